"""Resolved pass_configs: which switches a compile site sets, to what, and where.

A switch's state is True (on), False (off) or None (unknown). Absent from a
dict that is fully known means off: that is what TVM's PassContext does with
a missing key (every Ascend switch defaults to False).
"""
from __future__ import annotations

import ast
import os
from typing import Dict, Optional

from .. import constants as C
from .project import project_root


# How a config is named when tilelang.lower runs with no PassContext entered.
LOWER_OUTSIDE_PASS_CONTEXT = "tilelang.lower outside any PassContext"


class Entry:
    """One key of a resolved pass_configs dict."""

    __slots__ = ("key", "value", "node", "filename", "value_node", "raw", "raw_known")

    def __init__(self, key: str, value: Optional[bool], node: ast.AST, filename: str,
                 value_node: Optional[ast.AST] = None, raw: object = None, raw_known: bool = False):
        self.key = key  # the string key TVM sees, e.g. "tl.ascend_auto_sync"
        self.value = value  # None: set to something not resolvable to a bool
        self.node = node  # where the key is written
        self.filename = filename
        self.value_node = value_node
        # The value as a Python constant when it is one (True, "True", None,
        # 1.5, [..]); ``raw_known`` False when it could not be resolved at all.
        self.raw = raw
        self.raw_known = raw_known

    @property
    def line(self) -> int:
        return self.node.lineno  # type: ignore[attr-defined]


class PassConfig:
    """A resolved pass_configs: its entries, and whether every key is known."""

    __slots__ = ("entries", "complete", "origin", "origin_desc", "filename")

    def __init__(self, entries: Optional[Dict[str, Entry]] = None, complete: bool = True,
                 origin: Optional[ast.AST] = None, origin_desc: str = "", filename: str = ""):
        self.entries: Dict[str, Entry] = entries if entries is not None else {}
        self.complete = complete  # False: some keys could not be resolved
        self.origin = origin  # the pass_configs= argument / decorator / PassContext
        self.origin_desc = origin_desc  # "pass_configs of the @jit decorator"
        self.filename = filename

    @classmethod
    def unknown(cls) -> "PassConfig":
        return cls(complete=False)

    def state(self, key: str) -> Optional[bool]:
        entry = self.entries.get(key)
        if entry is not None:
            return entry.value
        return False if self.complete else None

    def is_on(self, key: str) -> bool:
        return self.state(key) is True

    def is_off(self, key: str) -> bool:
        return self.state(key) is False

    def where(self, key: str) -> str:
        """Human text naming where the switch got its state."""
        entry = self.entries.get(key)
        if entry is not None:
            if entry.filename == self.filename:  # the compile site's own file: the one linted
                return "set at line %d" % entry.line
            return "set at %s:%d" % (shown_path(entry.filename, self.filename), entry.line)
        origin_line = getattr(self.origin, "lineno", None)
        if origin_line is None:
            return "not set"
        if self.origin_desc == LOWER_OUTSIDE_PASS_CONTEXT:
            return "no PassContext around the tilelang.lower at line %d" % origin_line
        return "not set in the pass_configs at line %d" % origin_line

    def describe(self, key: str) -> str:
        """``TL_ASCEND_AUTO_SYNC is on (set at k.py:14)``."""
        state = {True: "on", False: "off", None: "unknown"}[self.state(key)]
        return "%s is %s (%s)" % (C.SWITCH_ENUM.get(key, key), state, self.where(key))

    # -- combining -------------------------------------------------------
    def merged(self, other: "PassConfig") -> "PassConfig":
        """``{**self, **other}``."""
        if not other.complete:
            # unknown keys in `other` may override anything set before it
            return PassConfig(dict(other.entries), False, self.origin, self.origin_desc, self.filename)
        entries = dict(self.entries)
        entries.update(other.entries)
        return PassConfig(entries, self.complete, self.origin, self.origin_desc, self.filename)

    def joined(self, other: "PassConfig") -> "PassConfig":
        """One of two configs (branches of a conditional, two assignments):
        a switch keeps its state only where both agree."""
        entries: Dict[str, Entry] = {}
        for key in set(self.entries) | set(other.entries):
            a, b = self.state(key), other.state(key)
            src = self.entries.get(key) or other.entries.get(key)
            entries[key] = Entry(key, a if a == b else None, src.node, src.filename, src.value_node,
                                 src.raw if a == b else None, src.raw_known and a == b)
        return PassConfig(entries, self.complete and other.complete, self.origin, self.origin_desc,
                          self.filename)

    def with_origin(self, origin: ast.AST, desc: str, filename: str) -> "PassConfig":
        return PassConfig(dict(self.entries), self.complete, origin, desc, filename)


def shown_path(path: str, home: str) -> str:
    """How a message names ``path`` seen from a kernel in ``home``: the bare
    file name when it is the same file or in the same folder, else the path
    relative to the project root (``pkg/configs.py``), so two ``configs.py``
    in different folders are never confused."""
    if not path or not home or os.path.dirname(os.path.abspath(path)) == os.path.dirname(os.path.abspath(home)):
        return os.path.basename(path)
    root = project_root(os.path.dirname(os.path.abspath(home)))
    rel = os.path.relpath(os.path.abspath(path), root)
    if rel.startswith(".."):
        return os.path.basename(path)
    return rel.replace(os.sep, "/")
