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
from .engine import check_tree


class Plugin:
    name = "flake8-tilelang"
    version = __version__

    # Codes the user named explicitly (or by a prefix longer than "TLA") in
    # select / extend-select: opt-in rules only report when listed here.
    _explicit: ClassVar[FrozenSet[str]] = frozenset()

    def __init__(self, tree: ast.Module, lines: Sequence[str], filename: str):
        self.tree = tree
        self.lines = lines
        self.filename = filename

    @classmethod
    def add_options(cls, manager: Any) -> None:
        from .registry import all_rules

        opt_in = all_rules().opt_in_codes()
        if opt_in:
            manager.extend_default_ignore(opt_in)

    @classmethod
    def parse_options(cls, options: Any) -> None:
        selected = []
        for attr in ("select", "extend_select", "enable_extensions"):
            selected.extend(getattr(options, attr, None) or [])
        cls._explicit = frozenset(s.strip().upper() for s in selected if s)

    @classmethod
    def _wanted(cls, code: str) -> bool:
        from .registry import REGISTRY

        rule = REGISTRY.get(code)
        if rule is None or rule.default_enabled:
            return True
        # like flake8-bugbear's B9 guard: flake8 drops extend_default_ignore
        # when the user sets ignore=, so check the explicit selection here
        return any(code[:i] in cls._explicit for i in range(4, len(code) + 1))

    def run(self) -> Iterator[Tuple[int, int, str, type]]:
        for d in check_tree(self.tree, self.lines, self.filename, wanted=self._wanted):
            yield d.line, d.col, d.flake8_text(), type(self)
