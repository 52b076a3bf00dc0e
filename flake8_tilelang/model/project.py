"""The user's project: where its root folder is."""
from __future__ import annotations

import os
from contextvars import ContextVar
from typing import Tuple

# Ruff's ``src`` setting: extra first-party roots (absolute folders) where
# ``from compiler.x import y`` is looked up; a folder outside the linted
# file's project root is never searched (the Loader checks).
SRC: ContextVar[Tuple[str, ...]] = ContextVar("flake8_tilelang_src", default=())

PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git", "tox.ini")


def project_root(directory: str) -> str:
    """The nearest folder at or above ``directory`` (at most 12 levels) that
    holds a project marker, else ``directory`` itself."""
    d = directory
    for _ in range(12):
        if any(os.path.exists(os.path.join(d, m)) for m in PROJECT_MARKERS):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    return directory
