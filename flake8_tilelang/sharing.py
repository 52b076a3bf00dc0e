"""Who else in the project may read a module-level name: the importers a fix
or ``migrate`` must respect before editing a shared dict or macro in place.

"Shared" means shared anywhere in the project (the folder
:func:`model.crossmod.project_root` finds), so this over-approximates on
purpose: another ``.py`` file that imports the module (``from .cfg import
CFG``, ``from pkg.cfg import *``, ``import cfg`` / ``from pkg import cfg``) and
mentions the name (or a ``*``) is a reader, whatever it does with it. A project too large to scan within the caps, or a
file that cannot be read, makes every name shared. Nothing is imported or
run; files are read as text, each at most once per change (size and mtime).
"""
from __future__ import annotations

import os
import re
from typing import Dict, List, Optional, Tuple

_SKIP_DIRS = frozenset({".git", ".hg", ".svn", ".venv", "venv", "build", "dist", "node_modules",
                        "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox", ".nox",
                        "site-packages", ".eggs"})
MAX_FILES = 20000
MAX_BYTES = 4 * 1024 * 1024

_TEXTS: Dict[str, Tuple[Tuple[int, int], Optional[str]]] = {}  # path -> (stamp, text)


def _project_files(root: str) -> Optional[List[str]]:
    out: List[str] = []
    stack = [root]
    while stack:
        d = stack.pop()
        try:
            entries = list(os.scandir(d))
        except OSError:
            continue
        if d != root and any(e.name == "pyvenv.cfg" for e in entries):
            continue
        for e in entries:
            try:
                if e.is_dir(follow_symlinks=False):
                    if e.name not in _SKIP_DIRS and not e.name.endswith(".egg-info"):
                        stack.append(e.path)
                elif e.name.endswith(".py") and e.is_file(follow_symlinks=False):
                    out.append(e.path)
            except OSError:
                continue
        if len(out) > MAX_FILES:
            return None
    return out


def _text(path: str, same: Optional[Tuple[int, int]] = None) -> Tuple[bool, Optional[str]]:
    """(whether ``path`` is the file ``same`` names as (device, inode), its
    text or None when it cannot be read or is too big)."""
    try:
        st = os.stat(path)
    except OSError:
        return False, None
    if same is not None and (st.st_dev, st.st_ino) == same:
        return True, None
    stamp = (st.st_size, st.st_mtime_ns)
    cached = _TEXTS.get(path)
    if cached is not None and cached[0] == stamp:
        return False, cached[1]
    text: Optional[str] = None
    if st.st_size <= MAX_BYTES:
        try:
            with open(path, "rb") as f:
                text = f.read().decode("utf-8", "replace")
        except OSError:
            text = None
    _TEXTS[path] = (stamp, text)
    return False, text


def readers(filename: str, names, root: Optional[str] = None) -> List[str]:
    """Other files of the project that may read any of ``names``, defined at
    module level in ``filename`` (paths; ``["?"]`` when the project cannot be
    scanned: treat as shared)."""
    from .model.crossmod import project_root

    path = os.path.abspath(filename)
    if not os.path.isfile(path):
        return []  # stdin or an in-memory buffer: no project around it we can read
    root = root or project_root(os.path.dirname(path))
    stem = os.path.splitext(os.path.basename(path))[0]
    module = stem if stem != "__init__" else os.path.basename(os.path.dirname(path))
    files = _project_files(root)
    if files is None:
        return ["?"]
    words = [re.compile(r"\b%s\b" % re.escape(n)) for n in names]
    m = re.escape(module)
    # `from pkg.module import X, *` / `from .module import (X,` (X read directly), or the module
    # itself imported (`import pkg.module`, `from pkg import module`): then `module.X` or X
    from_module = re.compile(r"^[ \t]*from[ \t]+[\w.]*?(?<![\w])%s[ \t]+import\b" % m, re.M)
    module_itself = re.compile(r"^[ \t]*(?:import[ \t]+[^\n#]*(?<![\w])%s\b|from[ \t]+[\w.]+[ \t]+import[ \t]+"
                               r"[^\n#]*(?<![\w.])%s\b)" % (m, m), re.M)
    out = []
    try:
        st = os.stat(path)
        own = (st.st_dev, st.st_ino)  # the file itself, also when a link in the tree names it
    except OSError:
        return []
    for other in files:
        same, text = _text(other, own)
        if same:
            continue
        if text is None:
            try:
                if os.path.getsize(other) > MAX_BYTES:
                    continue
            except OSError:
                continue  # gone since the scan: it reads nothing
            out.append(other)  # unreadable: it may read it
            continue
        if module not in text or "import" not in text:
            continue
        star = any(text[hit.end():].split("\n", 1)[0].strip().startswith("*")
                   for hit in from_module.finditer(text))
        if star or ((from_module.search(text) or module_itself.search(text))
                    and any(w.search(text) for w in words)):
            out.append(other)
    return out


def module_level_names(tree, node, defs: bool = False) -> List[str]:
    """The names a module-level statement holding ``node`` binds (an
    assignment's targets; with ``defs`` a def's name), or [] when ``node`` is
    not inside such a statement (a dict in a decorator goes with its def)."""
    import ast

    line = getattr(node, "lineno", None)
    if tree is None or line is None:
        return []
    for stmt in tree.body:
        if not (stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno)):
            continue
        if isinstance(stmt, ast.Assign):
            return [n.id for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) and isinstance(stmt.target, ast.Name):
            return [stmt.target.id]
        if isinstance(stmt, ast.Expr):  # `CFG.update({...})`, `CFG.setdefault(...)`
            return [n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)]
        if defs and isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return [stmt.name]
        return []
    return []


def shared_beyond(filename: str, tree, node, defs: bool = False) -> bool:
    """``node`` (a dict; with ``defs`` a macro's statement) sits in a
    module-level binding that another file of the project may import."""
    names = module_level_names(tree, node, defs)
    return bool(names) and bool(readers(filename, names))
