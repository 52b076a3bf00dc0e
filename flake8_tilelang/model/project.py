"""The user's project: where its root folder is."""
from __future__ import annotations

import os
import threading
from typing import Generic, Optional, Tuple, TypeVar

T = TypeVar("T")
_MAKING = threading.Lock()


class Setting(Generic[T]):
    """A ``contextvars.ContextVar`` made when it is first set: a lint whose
    settings are all defaults (the flake8 plugin's usual case) reads the
    default and never imports ``contextvars``. Each thread (the language
    server's) still sees only its own value once one is set."""

    __slots__ = ("name", "default", "_var")

    def __init__(self, name: str, default: T):
        self.name = name
        self.default = default
        self._var = None  # type: Optional[object]

    def get(self) -> T:
        var = self._var
        return self.default if var is None else var.get()  # type: ignore[attr-defined]

    def set(self, value: T):
        if self._var is None:
            with _MAKING:
                if self._var is None:
                    from contextvars import ContextVar

                    self._var = ContextVar(self.name, default=self.default)
        return self._var.set(value)  # type: ignore[attr-defined]

    def reset(self, token) -> None:
        self._var.reset(token)  # type: ignore[union-attr]


# Ruff's ``src`` setting: extra first-party roots (absolute folders) where
# ``from compiler.x import y`` is looked up; a folder outside the linted
# file's project root is never searched (the Loader checks).
SRC: "Setting[Tuple[str, ...]]" = Setting("flake8_tilelang_src", ())

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
