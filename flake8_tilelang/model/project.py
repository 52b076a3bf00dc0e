"""The user's project: where its root folder is."""
from __future__ import annotations

import os

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
