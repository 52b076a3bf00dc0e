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
- Only the user's own files are read, after resolving symlinks: a module
  whose real path is outside the real project root (``creds.py ->
  ../outside/creds.py``) is unknown, and so is anything that ``stat`` does
  not show as a regular file of at most ``MAX_MODULE_BYTES`` (checked before
  opening: a FIFO, a device or a huge file is never opened or read).
- Bounded: at most ``MAX_MODULES`` foreign modules per linted file; a module
  that is missing, unreadable, unparsable or part of an import cycle is
  unknown, silently.
- An injectable ``source_provider(path) -> bytes | str | None`` is asked
  first (an editor's unsaved buffer); None means "read the disk".
- Parsed modules are cached per process by path, mtime and size. Lookups are
  cached too, but never for good: each is re-checked against the mtimes of
  the folders it searched, so a module created after a first lookup is found
  later in the same process.
- Memory and time have one budget (a tree costs ~200-400x its source): the
  modules one linted file follows total at most ``MAX_FILE_MODULE_BYTES``
  of source; a process (a CLI run, a ``-j`` worker, the server) parses at
  most ``MAX_PARSED_BYTES`` from disk and keeps the trees of at most
  ``MAX_KEPT_BYTES`` (least recently used first out); the lookup cache holds
  at most ``_FIND_CACHE_MAX`` names. Over a budget, a module is unknown.
"""
from __future__ import annotations

import ast
import os
import stat
import sys
import time
from contextlib import contextmanager
from typing import Callable, Dict, Iterator, List, Optional, Tuple, Union

from .. import constants as C
from .project import SRC, project_root

MAX_MODULES = 16
MAX_MODULE_BYTES = 2_000_000
# A folder modified this recently may change again within its mtime's
# granularity: a lookup in it is not trusted for later.
RACY_SECONDS = 2.0
DENY_ROOTS = C.THIRD_PARTY_ROOTS
_STDLIB = C.STDLIB_ROOTS

MAX_FILE_MODULE_BYTES = 1_000_000  # source of the modules one linted file follows
MAX_PARSED_BYTES = 16_000_000  # source parsed from disk per process
MAX_KEPT_BYTES = 2_000_000  # source whose trees the parse cache keeps per process

# (path, real path) -> (mtime_ns, size, Builder or None), least recently used first
_PARSE_CACHE: Dict[Tuple[str, str], Tuple[int, int, object]] = {}
_PARSE_CACHE_MAX = 256
_BUDGET = {"parsed": 0, "kept": 0}
# (search dirs, modpath) -> (folder stamp or None, path or None), oldest first
_FIND_CACHE: Dict[Tuple[Tuple[str, ...], Tuple[str, ...]], Tuple[Optional[tuple], Optional[str]]] = {}
_FIND_CACHE_MAX = 4096


def reset_budget() -> None:
    """Forget every parsed module and restore the process's budget (tests)."""
    _PARSE_CACHE.clear()
    _FIND_CACHE.clear()
    _BUDGET["parsed"] = _BUDGET["kept"] = 0


Source = Union[bytes, str]
SourceProvider = Callable[[str], Optional[Source]]
_PROVIDER: Optional[SourceProvider] = None


def set_source_provider(provider: Optional[SourceProvider]) -> Optional[SourceProvider]:
    """Install the provider every new Loader asks first (None: the disk);
    returns the previous one."""
    global _PROVIDER
    previous, _PROVIDER = _PROVIDER, provider
    return previous


@contextmanager
def source_provider(provider: Optional[SourceProvider]) -> Iterator[None]:
    previous = set_source_provider(provider)
    try:
        yield
    finally:
        set_source_provider(previous)


class Loader:
    """Per linted file: finds and builds foreign modules, within the caps."""

    def __init__(self, filename: str, source_provider: Optional[SourceProvider] = None,
                 analyse: Optional[Callable[[object, "Loader"], object]] = None):
        self.path = os.path.abspath(filename)
        self.directory = os.path.dirname(self.path)
        self.root = project_root(self.directory)
        self.real_root = os.path.realpath(self.root)
        self.source_provider = source_provider if source_provider is not None else _PROVIDER
        # what a foreign module's Builder becomes (the model's per-module
        # analysis), made by the caller: this module imports no analysis
        self.analyse = analyse
        self.resolvers: Dict[str, object] = {}  # path -> Resolver
        # modules whose names are being resolved right now (cycle guard)
        self.loading: List[str] = [self.path]
        self.count = 0
        self.module_bytes = 0  # source of the modules followed so far (MAX_FILE_MODULE_BYTES)

    # -- finding -----------------------------------------------------------
    def split(self, qualname: str, from_file: str, quick: bool = False,
              rebinds: bool = True) -> Optional[Tuple[str, List[str]]]:
        """``.configs.CFG`` -> (path of configs.py, ["CFG"]); None if not a
        module of the user's project. ``quick``: only a file or package that
        stands at that path (no astroid, whose import costs ~50 ms: for a
        question asked of every import, not only of names in use)."""
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
            candidates += [d for d in SRC.get() if self._inside(d)]  # the `src` setting
            dirs = tuple(dict.fromkeys(d for d in candidates if os.path.isdir(d)))
        for i in range(len(parts), 0, -1):
            path = self._find_here(dirs, tuple(parts[:i])) if quick else self._find(dirs, tuple(parts[:i]))
            if path is not None:
                if rebinds and self._rebound_by_package(path, i if level else i - 1):
                    return None
                return path, parts[i:]
        if quick:
            return None
        if not level and len(parts) >= 2:
            # a first-party package below the root (engine/compiler for `compiler.x`): the
            # only package of that name in the project (a bare module name is not enough)
            parent = unique_package_parent(self.root, parts[0])
            if parent is not None and parent not in dirs:
                for i in range(len(parts), 0, -1):
                    path = self._find((parent,), tuple(parts[:i]))
                    if path is not None:
                        return path, parts[i:]
        return None

    def _find(self, dirs: Tuple[str, ...], modpath: Tuple[str, ...]) -> Optional[str]:
        key = (dirs, modpath)
        stamp = _stamp(dirs, modpath)
        cached = _FIND_CACHE.get(key)
        if cached is not None:
            if stamp is not None and cached[0] == stamp:
                return cached[1]
            if cached[1] is None:  # "not found" may be stale: so may astroid's own memo
                _forget_astroid_lookups()
        path = None
        first = modpath[0]
        if any(os.path.isfile(os.path.join(d, first + ".py")) or os.path.isdir(os.path.join(d, first))
               for d in dirs):
            try:
                from astroid import modutils  # deferred: ~50 ms, only for cross-module names

                found = modutils.file_from_modpath(list(modpath), path=list(dirs))
            except Exception:  # ImportError, and anything odd in a user's tree
                found = None
            if found and found.endswith(".py") and self._is_users(found):
                path = os.path.abspath(found)
        # else: nothing of that name here: no need to wake astroid
        _FIND_CACHE.pop(key, None)
        while len(_FIND_CACHE) >= _FIND_CACHE_MAX:
            del _FIND_CACHE[next(iter(_FIND_CACHE))]
        _FIND_CACHE[key] = (stamp, path)
        return path

    def _find_here(self, dirs: Tuple[str, ...], modpath: Tuple[str, ...]) -> Optional[str]:
        """The user's module ``modpath`` as a file below one of ``dirs``
        (``a/b.py`` or ``a/b/__init__.py``), without astroid."""
        for d in dirs:
            base = os.path.join(d, *modpath)
            for path in (base + ".py", os.path.join(base, "__init__.py")):
                if os.path.isfile(path) and self._is_users(path):
                    return os.path.abspath(path)
        return None

    def _inside(self, folder: str) -> bool:
        """A `src` folder inside this file's project root, symlinks resolved."""
        real = os.path.realpath(folder)
        try:
            return os.path.commonpath([real, self.real_root]) == self.real_root
        except ValueError:
            return False

    def _is_users(self, path: str) -> bool:
        """Inside the project root once every symlink is resolved, and not
        an installed package."""
        real = os.path.realpath(path)
        if "site-packages" in real or "dist-packages" in real:
            return False
        try:
            return os.path.commonpath([real, self.real_root]) == self.real_root
        except ValueError:  # different drives
            return False

    def _rebound_by_package(self, path: str, levels: int) -> bool:
        """Whether the ``__init__.py`` of a package around the module at
        ``path`` (up to ``levels`` packages up) binds the module's name to
        something else: ``from pk import configs`` takes the name
        ``pk/__init__.py`` bound (``from .v2 import configs``, ``configs =
        SimpleNamespace(...)``), not the file ``pk/configs.py``, while
        ``import pk.configs`` takes the file. Which one a name means is then
        not told (``split`` says None: unknown)."""
        current = os.path.abspath(path)
        for _ in range(levels):
            if os.path.basename(current) == "__init__.py":
                folder = os.path.dirname(current)
                name, parent = os.path.basename(folder), os.path.dirname(folder)
            else:
                name, parent = os.path.splitext(os.path.basename(current))[0], os.path.dirname(current)
            init = os.path.join(parent, "__init__.py")
            if not os.path.isfile(init) or not self._is_users(init):
                return False
            builder, _ = _parse(init, self.source_provider)
            scope = getattr(builder, "module", None)
            if scope is None:
                return False  # unreadable: the module is read as the file (as before)
            if name in scope.assigns or name in scope.functions or name in scope.classes:
                return True
            if name in scope.imports:
                target = scope.imports[name]
                if target is None:
                    return True  # two different imports of the name
                try:
                    found = self.split(target, init, quick=True, rebinds=False)
                except Exception:
                    return True
                if found is None or found[1] or os.path.abspath(found[0]) != current:
                    return True  # `from .v2 import configs`: another module, or a name in one
            current = init
        return False

    def package_inits(self, path: str) -> List[str]:
        """The ``__init__.py`` of each package that encloses the module at
        ``path``, outermost first: what Python runs before the module when it
        imports it as part of its package (``pkg.configs`` runs
        ``pkg/__init__.py`` first). Only the user's files, within the project
        root."""
        out: List[str] = []
        d = os.path.dirname(os.path.abspath(path))
        if os.path.basename(path) == "__init__.py":
            d = os.path.dirname(d)  # a package's own __init__ is the module itself
        for _ in range(12):
            init = os.path.join(d, "__init__.py")
            if not os.path.isfile(init) or not self._is_users(init):
                break
            out.append(init)
            parent = os.path.dirname(d)
            if parent == d:
                break
            d = parent
        return out[::-1]

    def imports_reach(self, path: str, target: str, limit: int = 24) -> bool:
        """Whether running the module at ``path`` may import the module at
        ``target`` (directly, or through the user's modules it imports, their
        packages' ``__init__`` included), read from their import statements
        anywhere in the file. True also when that cannot be told (a module
        over the budget, an import that cannot be placed is not counted)."""
        seen = {path}
        todo = [path]
        while todo:
            current = todo.pop()
            resolver = self.resolvers.get(current)
            builder = getattr(resolver, "b", None) if resolver is not None else None
            if builder is None:
                builder, _ = _parse(current, self.source_provider)
            if builder is None:
                continue
            for node in ast.walk(builder.tree):  # type: ignore[attr-defined]
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom):
                    module = "." * (node.level or 0) + (node.module or "")
                    sep = "" if module.endswith(".") else "."
                    names = ([module] if module.strip(".") else []) + [
                        module + sep + a.name for a in node.names if a.name != "*"]
                else:
                    continue
                for q in names:
                    try:
                        found = self.split(q, current, quick=True)
                    except Exception:
                        continue
                    if found is None:
                        continue
                    for p in self.package_inits(found[0]) + [found[0]]:
                        if p == target:
                            return True
                        if p not in seen:
                            if len(seen) >= limit:
                                return True
                            seen.add(p)
                            todo.append(p)
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
        if not self._is_users(path):  # checked again on the path about to be read
            builder = None
        else:
            builder, size = _parse(path, self.source_provider, MAX_FILE_MODULE_BYTES - self.module_bytes)
            self.module_bytes += size
        resolver = None
        if builder is not None and self.analyse is not None:
            resolver = self.analyse(builder, self)
        self.resolvers[path] = resolver
        return resolver


def _stamp(dirs: Tuple[str, ...], modpath: Tuple[str, ...]) -> Optional[tuple]:
    """The mtimes of every folder a lookup of ``modpath`` reads (each search
    folder and the package folders below it), or None when one of them
    changed too recently to be trusted."""
    out = []
    racy = time.time() - RACY_SECONDS
    for d in dirs:
        current = d
        for part in (None,) + modpath[:-1]:
            if part is not None:
                current = os.path.join(current, part)
            try:
                st = os.stat(current)
            except (OSError, ValueError):
                out.append(None)
                break
            if st.st_mtime >= racy:
                return None
            out.append((st.st_ino, st.st_mtime_ns))
    return tuple(out)


def _forget_astroid_lookups() -> None:
    """astroid memoizes its file lookups (``lru_cache``) for the life of the
    process; drop those memos, best effort, when a folder changed."""
    if "astroid" not in sys.modules:
        return
    try:
        from astroid import modutils
        from astroid.interpreter._import import spec, util
    except Exception:
        return
    owners = ((modutils, "cached_os_path_isfile"), (modutils, "_has_init"),
              (modutils, "_cache_normalize_path_"), (spec, "_find_spec"), (util, "is_namespace"))
    functions = [getattr(owner, name, None) for owner, name in owners]
    functions += [getattr(f, "find_module", None) for f in getattr(spec, "_SPEC_FINDERS", ())]
    for fn in functions:
        clear = getattr(fn, "cache_clear", None)
        if clear is not None:
            try:
                clear()
            except Exception:
                pass


_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_BINARY = getattr(os, "O_BINARY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def _read(real: str, st: os.stat_result) -> Optional[bytes]:
    """A regular file's bytes, at most MAX_MODULE_BYTES, else None; ``st``
    (its ``stat``) was checked before this opens it."""
    if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_MODULE_BYTES:
        return None
    try:
        fd = os.open(real, os.O_RDONLY | _NONBLOCK | _BINARY | _CLOEXEC)
    except OSError:
        return None
    with open(fd, "rb", closefd=True) as f:
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            data = f.read(MAX_MODULE_BYTES + 1)
        except OSError:
            return None
    return data if len(data) <= MAX_MODULE_BYTES else None


def _build(source: Source, path: str):
    try:
        from .build import Builder

        builder = Builder(ast.parse(source, path), path).build()
        builder.noqa_index = _noqa_index(source)
        return builder
    except (SyntaxError, ValueError, OSError, RecursionError, MemoryError, UnicodeDecodeError):
        return None


def _noqa_index(source: Source):
    """Where flake8 would look for the ``# noqa`` of each line of this module
    (``suppress.NoqaIndex``), None when it has none: a finding in its kernel
    that a file compiling the kernel reports honours them
    (``engine._foreign_findings``)."""
    text = source.decode("utf-8", "replace") if isinstance(source, bytes) else source
    if "noqa" not in text.lower():
        return None
    from ..suppress import NoqaIndex

    return NoqaIndex(text.splitlines(True))


def _parse(path: str, provider: Optional[SourceProvider] = None,
           room: int = MAX_FILE_MODULE_BYTES) -> Tuple[object, int]:
    """(the module's Builder or None, its source size). ``room``: what is
    left of the linted file's budget; the process's budgets are checked
    here too. Over any of them, the module is unknown (None)."""
    if provider is not None:
        try:
            source = provider(path)
        except Exception:  # a broken provider means "no buffer": read the disk
            source = None
        if not isinstance(source, (bytes, str)):
            source = None  # anything else means "no buffer"
        if source is not None:
            if len(source) > MAX_MODULE_BYTES or len(source) > room:
                return None, 0
            # not cached (a buffer changes without an mtime) and not charged to the
            # process: an editor's buffers are bounded by the editor and the server
            return _build(source, path), len(source)
    real = os.path.realpath(path)
    try:
        st = os.stat(real)
    except (OSError, ValueError):
        return None, 0
    key = (path, real)
    cached = _PARSE_CACHE.pop(key, None)
    if cached is not None and cached[0] == st.st_mtime_ns and cached[1] == st.st_size:
        if cached[2] is not None and cached[1] > room:
            _PARSE_CACHE[key] = cached
            return None, 0
        _PARSE_CACHE[key] = cached  # now the most recently used
        return cached[2], cached[1] if cached[2] is not None else 0
    if cached is not None and cached[2] is not None:
        _BUDGET["kept"] -= cached[1]
    if st.st_size > room or _BUDGET["parsed"] + st.st_size > MAX_PARSED_BYTES:
        return None, 0  # over the file's or the process's budget: unknown, and not remembered
    data = _read(real, st)
    builder = None
    if data is not None:
        _BUDGET["parsed"] += len(data)
        builder = _build(data, path)
    size = st.st_size if builder is not None else 0
    if size <= MAX_KEPT_BYTES:
        while _PARSE_CACHE and (len(_PARSE_CACHE) >= _PARSE_CACHE_MAX or _BUDGET["kept"] + size > MAX_KEPT_BYTES):
            old = _PARSE_CACHE.pop(next(iter(_PARSE_CACHE)))
            if old[2] is not None:
                _BUDGET["kept"] -= old[1]
        _PARSE_CACHE[key] = (st.st_mtime_ns, st.st_size, builder)
        _BUDGET["kept"] += size
    return builder, size


# Folders never searched for first-party packages.
_SKIP_DIRS = frozenset({"site-packages", "dist-packages", "node_modules", "__pycache__", "venv", "env",
                        "build", "dist"})
_INDEX_MAX_DIRS = 5000
_INDEX_SECONDS = 5.0
# root -> (time built, {name: [folders holding a package or module of that name]})
_PACKAGE_INDEX: Dict[str, Tuple[float, Dict[str, List[str]]]] = {}


def unique_package_parent(root: str, name: str) -> Optional[str]:
    """The folder below ``root`` that holds the only package ``name/`` (with
    an ``__init__.py``) of the project, or None when
    there is none or several (Ruff's ``src``, told by the tree itself). The
    index is bounded (folders walked, depth) and rebuilt after a few seconds."""
    now = time.time()
    cached = _PACKAGE_INDEX.get(root)
    if cached is None or now - cached[0] > _INDEX_SECONDS:
        cached = (now, _index_packages(root))
        if len(_PACKAGE_INDEX) > 64:
            _PACKAGE_INDEX.clear()
        _PACKAGE_INDEX[root] = cached
    found = cached[1].get(name, [])
    return found[0] if len(found) == 1 else None


def _index_packages(root: str) -> Dict[str, List[str]]:
    index: Dict[str, List[str]] = {}
    stack = [(root, 0)]
    seen = 0
    while stack and seen < _INDEX_MAX_DIRS:
        folder, depth = stack.pop()
        seen += 1
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            if name.startswith(".") or name in _SKIP_DIRS:
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    if os.path.isfile(os.path.join(entry.path, "__init__.py")) and folder != root:
                        index.setdefault(name, []).append(folder)
                    if depth < 8:
                        stack.append((entry.path, depth + 1))
            except OSError:
                continue
    return index
