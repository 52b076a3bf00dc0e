"""Which files ``check`` looks at.

Directories are walked like flake8 walks them (so the printed paths are
spelled the same: ``os.path.join(root, name)``), keeping ``*.py`` files and ``*.ipynb`` notebooks and
skipping excluded names and paths, virtual environments (any directory with a
``pyvenv.cfg``) and the default build / cache / VCS folders. A file named on
the command line is always checked unless ``--force-exclude`` is given (what
pre-commit needs).
"""
from __future__ import annotations

import os
from typing import Iterator, List, Tuple

from ..settings import PathPattern, Settings, relative_posix

STDIN = "-"
# what a folder walk keeps: Python files and Jupyter notebooks (Ruff includes
# notebooks by default too; `exclude = ["*.ipynb"]` leaves them out)
SUFFIXES = (".py", ".ipynb")


class Excluder:
    def __init__(self, settings: Settings):
        self.root = settings.project_root
        patterns = [PathPattern(p) for p in settings.effective_exclude]
        self.name_patterns = [p for p in patterns if "/" not in p.pattern.strip("/")]
        self.path_patterns = [p for p in patterns if "/" in p.pattern.strip("/")]
        # most names are literal: a set lookup instead of a glob per entry
        self.literal_names = {p.pattern.strip("/") for p in self.name_patterns
                              if not any(c in p.pattern for c in "*?[")}
        self.glob_names = [p for p in self.name_patterns if p.pattern.strip("/") not in self.literal_names]

    def entry(self, full: str, name: str) -> bool:
        """An entry met while walking: its own name or its path (its parents
        were checked on the way down)."""
        if name in self.literal_names or any(p.matches_name(name) for p in self.glob_names):
            return True
        if self.path_patterns:
            rel = relative_posix(full, self.root)
            return any(p.matches_rel(rel) for p in self.path_patterns)
        return False

    def path(self, path: str) -> bool:
        """A path named on the command line: it or any of its parents."""
        rel = relative_posix(path, self.root)
        parts = [p for p in os.path.abspath(path).replace(os.sep, "/").split("/") if p]
        if not rel.startswith("../") and rel != "..":
            parts = rel.split("/")
        if any(p.matches_name(part) for p in self.name_patterns for part in parts):
            return True
        return any(p.matches_rel(rel) for p in self.path_patterns)


def walk(top: str) -> Iterator[Tuple[str, List[str], List[str]]]:
    """``os.walk(top)`` (top-down, ``dirs`` pruned in place, symlinked
    folders listed but not entered, unreadable folders skipped) without
    recursion: a hostile tree thousands of folders deep is walked, not a
    RecursionError (Python < 3.12 walks recursively)."""
    stack = [top]
    while stack:
        root = stack.pop()
        try:
            with os.scandir(root) as it:
                entries = list(it)
        except OSError:
            continue
        dirs: List[str] = []
        files: List[str] = []
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            (dirs if is_dir else files).append(entry.name)
        yield root, dirs, files
        for name in reversed(dirs):
            full = os.path.join(root, name)
            if not os.path.islink(full):
                stack.append(full)


def discover(paths: List[str], settings: Settings, force_exclude: bool = False) -> List[Tuple[str, str]]:
    """(display path, path to open) for every file to check, sorted, unique."""
    excluder = Excluder(settings)
    seen = set()
    out: List[Tuple[str, str]] = []

    def add(display: str) -> None:
        key = os.path.normcase(os.path.abspath(display)) if display != STDIN else STDIN
        if key not in seen:
            seen.add(key)
            out.append((display, display))

    for arg in paths or ["."]:
        if arg == STDIN:
            add(STDIN)
            continue
        if force_exclude and excluder.path(arg):
            continue
        if not os.path.isdir(arg):
            add(arg)  # a missing file becomes an E902 diagnostic, like flake8
            continue
        for root, dirs, files in walk(arg):
            if root != arg and "pyvenv.cfg" in files:  # a virtual environment
                dirs[:] = []
                continue
            dirs[:] = sorted(d for d in dirs if not excluder.entry(os.path.join(root, d), d))
            for name in files:
                if name.endswith(SUFFIXES):
                    full = os.path.join(root, name)
                    if not excluder.entry(full, name):
                        add(full)
    out.sort(key=lambda item: item[0])
    return out
