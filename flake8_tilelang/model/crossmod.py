"""Following a name into another module of the user's project.

When the same-file model meets a name bound by an import (``from .configs
import CFG``, ``import pkg.configs as c`` then ``c.CFG``, ``from . import
macros``), this finds the module's source file with astroid's module finder
(relative and absolute imports, packages with or without ``__init__.py``,
namespace packages, src layouts), parses it with ``ast`` and walks it with the
same builder as the linted file. Nothing is ever imported or executed.

- astroid is imported only here, and only when such a name must be resolved.
- Only the user's own files are read: the module must live under the linted
  file's project root and outside site-packages; tilelang, tvm, torch, numpy,
  the standard library and other heavy packages are never looked up.
- Bounded: at most ``MAX_MODULES`` foreign modules per linted file; a module
  that is missing, unreadable, unparsable or part of an import cycle is
  unknown, silently.
- Parsed modules are cached per process by path, mtime and size.
"""
from __future__ import annotations

import ast
import os
import sys
from typing import Dict, List, Optional, Tuple

from .. import constants as C

MAX_MODULES = 16
_PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git", "tox.ini")
DENY_ROOTS = C.THIRD_PARTY_ROOTS
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ())) | frozenset(sys.builtin_module_names)

# path -> (mtime_ns, size, Builder or None)
_PARSE_CACHE: Dict[str, Tuple[int, int, object]] = {}
_PARSE_CACHE_MAX = 256
# (search dirs, modpath) -> path or None
_FIND_CACHE: Dict[Tuple[Tuple[str, ...], Tuple[str, ...]], Optional[str]] = {}


def project_root(directory: str) -> str:
    d = directory
    for _ in range(12):
        if any(os.path.exists(os.path.join(d, m)) for m in _PROJECT_MARKERS):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    return directory


class Loader:
    """Per linted file: finds and builds foreign modules, within the caps."""

    def __init__(self, filename: str):
        self.path = os.path.abspath(filename)
        self.directory = os.path.dirname(self.path)
        self.root = project_root(self.directory)
        self.resolvers: Dict[str, object] = {}  # path -> Resolver
        # modules whose names are being resolved right now (cycle guard)
        self.loading: List[str] = [self.path]
        self.count = 0

    # -- finding -----------------------------------------------------------
    def split(self, qualname: str, from_file: str) -> Optional[Tuple[str, List[str]]]:
        """``.configs.CFG`` -> (path of configs.py, ["CFG"]); None if not a
        module of the user's project."""
        level = len(qualname) - len(qualname.lstrip("."))
        parts = [p for p in qualname[level:].split(".") if p]
        if not parts:
            return None
        if level == 0 and (parts[0] in DENY_ROOTS or parts[0] in _STDLIB):
            return None
        if level:
            base = os.path.dirname(os.path.abspath(from_file))
            for _ in range(level - 1):
                base = os.path.dirname(base)
            dirs: Tuple[str, ...] = (base,)
        else:
            here = os.path.dirname(os.path.abspath(from_file))
            candidates = [here, self.directory, self.root, os.path.join(self.root, "src")]
            dirs = tuple(dict.fromkeys(d for d in candidates if os.path.isdir(d)))
        for i in range(len(parts), 0, -1):
            path = self._find(dirs, tuple(parts[:i]))
            if path is not None:
                return path, parts[i:]
        return None

    def _find(self, dirs: Tuple[str, ...], modpath: Tuple[str, ...]) -> Optional[str]:
        key = (dirs, modpath)
        if key in _FIND_CACHE:
            return _FIND_CACHE[key]
        path = None
        first = modpath[0]
        if not any(os.path.isfile(os.path.join(d, first + ".py")) or os.path.isdir(os.path.join(d, first))
                   for d in dirs):
            _FIND_CACHE[key] = None  # nothing of that name here: no need to wake astroid
            return None
        try:
            from astroid import modutils  # deferred: ~50 ms, only for cross-module names

            found = modutils.file_from_modpath(list(modpath), path=list(dirs))
        except Exception:  # ImportError, and anything odd in a user's tree
            found = None
        if found and found.endswith(".py") and self._is_users(found):
            path = os.path.abspath(found)
        _FIND_CACHE[key] = path
        return path

    def _is_users(self, path: str) -> bool:
        path = os.path.abspath(path)
        if "site-packages" in path or "dist-packages" in path:
            return False
        try:
            return os.path.commonpath([path, self.root]) == self.root
        except ValueError:  # different drives
            return False

    # -- loading -----------------------------------------------------------
    def resolver_for(self, path: str):
        """The Resolver of a foreign module (built once per linted file), or
        None: over the cap, a cycle, unreadable or unparsable."""
        if path in self.resolvers:
            return self.resolvers[path]
        if path == self.path or self.count >= MAX_MODULES:
            return None
        self.count += 1
        builder = _parse(path)
        resolver = None
        if builder is not None:
            from .resolve import Resolver

            resolver = Resolver(builder, loader=self)
        self.resolvers[path] = resolver
        return resolver


def _parse(path: str):
    try:
        st = os.stat(path)
    except OSError:
        return None
    cached = _PARSE_CACHE.get(path)
    if cached is not None and cached[0] == st.st_mtime_ns and cached[1] == st.st_size:
        return cached[2]
    builder = None
    try:
        with open(path, "rb") as f:
            source = f.read()
        if len(source) <= 2_000_000:
            from .build import Builder

            builder = Builder(ast.parse(source, path), path).build()
    except (SyntaxError, ValueError, OSError, RecursionError, UnicodeDecodeError):
        builder = None
    if len(_PARSE_CACHE) >= _PARSE_CACHE_MAX:
        _PARSE_CACHE.clear()
    _PARSE_CACHE[path] = (st.st_mtime_ns, st.st_size, builder)
    return builder
