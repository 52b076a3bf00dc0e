"""Quoting values copied from the user's source into a message.

A key, scope or pipe name is whatever string the user wrote: it may hold a
newline (which would split a flake8 line, and a line starting ``::error::``
becomes a GitHub workflow command) or an escape sequence. ``repr()`` keeps it
on one line and free of control characters.
"""
from __future__ import annotations

import ast

_LIMIT = 60


def quoted(value: object, limit: int = _LIMIT) -> str:
    """``repr(value)``, shortened with ``...`` past ``limit`` characters."""
    text = repr(value)
    if len(text) > limit:
        text = text[:limit - 3] + "..."
    return text


def name(text: str) -> str:
    """A Python name in backticks (```workspace```), or its ``repr()`` when
    it is not an identifier (a name taken from a string)."""
    if text.isidentifier():
        return "`%s`" % text
    return quoted(text)


def source(node, limit: int = 40) -> str:
    """An expression as written (re-printed on one line), shortened with
    ``...`` past ``limit`` characters."""
    text = " ".join(ast.unparse(node).split()).replace("`", "'")
    if len(text) > limit:
        text = text[:limit - 3] + "..."
    return text
