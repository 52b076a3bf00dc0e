"""A tiny YAML subset reader for the tests (the product never reads YAML and
depends on no YAML library): block mappings and sequences by indentation,
``- key: value`` items, ``# comments``, flow sequences ``[a, b]``, single-
and double-quoted strings, plain scalars (``true``/``false``/integers are
typed; everything else, ``${{ ... }}`` included, is a string).

Enough for README's workflow snippet and ``.pre-commit-hooks.yaml``; when
PyYAML happens to be installed the tests also check that it reads the same.
"""
import re
from typing import List, Tuple

_LINE = Tuple[int, str, int]  # indent, text, line number


def _strip_comment(text: str) -> str:
    quote = None
    for i, c in enumerate(text):
        if quote:
            if c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c == "#" and (i == 0 or text[i - 1] in " \t"):
            return text[:i].rstrip()
    return text.rstrip()


def _lines(text: str) -> List[_LINE]:
    out = []
    for number, raw in enumerate(text.splitlines(), 1):
        if "\t" in raw[: len(raw) - len(raw.lstrip())]:
            raise ValueError("line %d: a tab in the indentation" % number)
        body = _strip_comment(raw)
        if body.strip():
            out.append((len(body) - len(body.lstrip(" ")), body.strip(), number))
    return out


def scalar(text: str):
    text = text.strip()
    if text.startswith('"'):
        if not text.endswith('"') or len(text) < 2:
            raise ValueError("unterminated string %r" % text)
        return text[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    if text.startswith("'"):
        if not text.endswith("'") or len(text) < 2:
            raise ValueError("unterminated string %r" % text)
        return text[1:-1].replace("''", "'")
    if text.startswith("["):
        if not text.endswith("]"):
            raise ValueError("unterminated flow sequence %r" % text)
        inner = text[1:-1].strip()
        return [scalar(part) for part in _split_flow(inner)] if inner else []
    if text.startswith("{"):
        if not text.endswith("}"):
            raise ValueError("unterminated flow mapping %r" % text)
        out = {}
        for part in _split_flow(text[1:-1].strip()):
            key, _, value = part.partition(":")
            out[key.strip()] = scalar(value)
        return out
    if text in ("true", "True"):
        return True
    if text in ("false", "False"):
        return False
    if text in ("null", "~", ""):
        return None
    if re.fullmatch(r"[-+]?[0-9]+", text):
        return int(text)
    return text


def _split_flow(text: str) -> List[str]:
    parts, depth, quote, start = [], 0, None, 0
    for i, c in enumerate(text):
        if quote:
            if c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


_KEY = re.compile(r"""^("[^"]*"|'[^']*'|[^\s"'\[\]{}#][^:#]*?)\s*:(?:\s+|$)""")


def _key_value(text: str):
    m = _KEY.match(text)
    if m is None:
        return None
    key = m.group(1)
    if key[0] in "\"'":
        key = key[1:-1]
    return key, text[m.end():]


def _block(lines: List[_LINE], i: int, indent: int):
    """The node whose lines start at ``lines[i]`` (indented ``indent``)."""
    if lines[i][1].startswith("- ") or lines[i][1] == "-":
        out = []
        while i < len(lines) and lines[i][0] == indent and (lines[i][1].startswith("- ") or lines[i][1] == "-"):
            rest = lines[i][1][1:].lstrip(" ")
            if not rest:
                value, i = _block(lines, i + 1, lines[i + 1][0])
                out.append(value)
                continue
            inner = indent + len(lines[i][1]) - len(rest)
            if _key_value(rest) is not None:  # "- key: value" opens a mapping
                lines[i] = (inner, rest, lines[i][2])
                value, i = _block(lines, i, inner)
            else:
                value, i = scalar(rest), i + 1
            out.append(value)
        return out, i
    out = {}
    while i < len(lines) and lines[i][0] == indent:
        kv = _key_value(lines[i][1])
        if kv is None:
            raise ValueError("line %d: expected `key: value`, got %r" % (lines[i][2], lines[i][1]))
        key, rest = kv
        if key in out:
            raise ValueError("line %d: duplicate key %r" % (lines[i][2], key))
        if rest.strip():
            out[key], i = scalar(rest), i + 1
        elif i + 1 < len(lines) and (lines[i + 1][0] > indent or (
                lines[i + 1][0] == indent and lines[i + 1][1].startswith("- "))):
            out[key], i = _block(lines, i + 1, lines[i + 1][0])
        else:
            out[key], i = None, i + 1
    return out, i


def load(text: str):
    lines = _lines(text)
    if not lines:
        return None
    value, i = _block(lines, 0, lines[0][0])
    if i != len(lines):
        raise ValueError("line %d: unexpected indentation" % lines[i][2])
    return value
