"""The flake8 adapter: ``TLA = flake8_tilelang.plugin:Plugin``.

flake8 creates one ``Plugin`` per file and calls ``run()``. Everything real
happens in ``engine.check_tree``; this file only translates. Options live on
the class because that is how flake8 hands them over (``parse_options`` runs
in every worker, also under ``--jobs`` with spawn), and they are only read.
"""
from __future__ import annotations

import ast
from typing import Any, ClassVar, FrozenSet, Iterator, Sequence, Tuple

from . import __version__
from .constants import MARKER, OPT_IN_CODES


class Plugin:
    name = "flake8-tilelang"
    version = __version__

    # Codes the user named explicitly (or by a prefix longer than "TLA") in
    # select / extend-select: opt-in rules only report when listed here.
    _explicit: ClassVar[FrozenSet[str]] = frozenset()
    _disable_noqa: ClassVar[bool] = False

    def __init__(self, tree: ast.Module, lines: Sequence[str], filename: str):
        self.tree = tree
        self.lines = lines
        self.filename = filename

    @classmethod
    def add_options(cls, manager: Any) -> None:
        # a constant (checked against the registry by the tests), so flake8's
        # start-up never imports the rules
        manager.extend_default_ignore(list(OPT_IN_CODES))

    @classmethod
    def parse_options(cls, options: Any) -> None:
        selected = []
        for attr in ("select", "extend_select", "enable_extensions"):
            selected.extend(getattr(options, attr, None) or [])
        cls._explicit = frozenset(s.strip().upper() for s in selected if s)
        cls._disable_noqa = bool(getattr(options, "disable_noqa", False))

    @classmethod
    def _wanted(cls, code: str) -> bool:
        if code not in OPT_IN_CODES:
            return True
        # like flake8-bugbear's B9 guard: flake8 drops extend_default_ignore
        # when the user sets ignore=, so check the explicit selection here
        return any(code[:i] in cls._explicit for i in range(4, len(code) + 1))

    def run(self) -> Iterator[Tuple[int, int, str, type]]:
        # the marker gate, before anything else is imported: a file that never
        # says "tilelang" costs one substring scan
        if not any(MARKER in line for line in self.lines):
            return
        from .engine import check_tree
        from .registry import REGISTRY

        for d in check_tree(self.tree, self.lines, self.filename, wanted=self._wanted,
                            file_noqa=not self._disable_noqa):
            rule = REGISTRY.get(d.code)
            yield d.line, d.col, d.flake8_text(rule.severity if rule else None), type(self)
