"""The flake8 adapter: ``TLA = flake8_tilelang.plugin:Plugin``.

flake8 creates one ``Plugin`` per file and calls ``run()``. Everything real
happens in ``engine.check_tree``; this file only translates. Options live on
the class because that is how flake8 hands them over (``parse_options`` runs
in every worker, also under ``--jobs`` with spawn), and they are only read.

This module is the gate flake8 imports in every run: it must stay small. The
engine, the model, the evaluator and the rules are imported by ``run()``
only for a file with an import line naming tilelang (a test checks
``sys.modules``). Once they are loaded the process's live objects are frozen
(``engine.settle``, at the first TileLang file), so the garbage collector never
walks them again.
"""
from __future__ import annotations

import ast
import gc
import os
from typing import Any, ClassVar, FrozenSet, Iterator, List, Optional, Sequence, Tuple

from . import __version__
from .constants import MARKER, OPT_IN_CODES


class Plugin:
    name = "flake8-tilelang"
    version = __version__

    # Codes the user named explicitly (or by a prefix longer than "TLA") in
    # select / extend-select: opt-in rules only report when listed here.
    _explicit: ClassVar[FrozenSet[str]] = frozenset()
    _disable_noqa: ClassVar[bool] = False
    # flake8's own decision (select / ignore, extend-*): a rule whose every code
    # flake8 would drop is not run at all (None: run every rule, flake8 filters)
    _decide: ClassVar[Any] = None
    # `tilelang-target` / `tilelang-src` from flake8's configuration (the CLI's
    # `target` / `src`); None / () when not given
    _target: ClassVar[Optional[str]] = None
    _src: ClassVar[Tuple[str, ...]] = ()

    def __init__(self, tree: ast.Module, lines: Sequence[str], filename: str):
        self.tree = tree
        self.lines = lines
        self.filename = filename

    @classmethod
    def add_options(cls, manager: Any) -> None:
        # a constant (checked against the registry by the tests), so flake8's
        # start-up never imports the rules
        manager.extend_default_ignore(list(OPT_IN_CODES))
        manager.add_option("--tilelang-target", parse_from_config=True, default=None,
                           help="TileLang dialect of compile sites that name no target: ascendc "
                                "(default) or npuir")
        manager.add_option("--tilelang-src", parse_from_config=True, comma_separated_list=True,
                           normalize_paths=True, default=[],
                           help="first-party source roots for `from compiler.x import y` "
                                "(like Ruff's src; folders inside the project)")

    @classmethod
    def parse_options(cls, options: Any) -> None:
        selected = []
        for attr in ("select", "extend_select", "enable_extensions"):
            selected.extend(getattr(options, attr, None) or [])
        cls._explicit = frozenset(s.strip().upper() for s in selected if s)
        cls._disable_noqa = bool(getattr(options, "disable_noqa", False))
        cls._decide = _decision_engine(options)
        target = getattr(options, "tilelang_target", None)
        cls._target = None
        if target:
            cls._target = {"ascendc": "ascendc", "pto": "ascendc", "npuir": "npuir"}.get(str(target).strip().lower())
            if cls._target is None:
                raise ValueError("flake8-tilelang: --tilelang-target must be ascendc or npuir, got %r" % target)
        src = getattr(options, "tilelang_src", None) or []
        # the engine's loader searches a folder only inside the linted file's project root
        cls._src = tuple(os.path.abspath(p) for p in src if isinstance(p, str) and p)

    @classmethod
    def _wanted(cls, code: str) -> bool:
        if cls._decide is not None and not cls._decide(code):
            return False  # `--select=TLA001`: TLA101's footprints are never computed
        if code not in OPT_IN_CODES:
            return True
        # like flake8-bugbear's B9 guard: flake8 drops extend_default_ignore
        # when the user sets ignore=, so check the explicit selection here
        return any(code[:i] in cls._explicit for i in range(4, len(code) + 1))

    def run(self) -> Iterator[Tuple[int, int, str, type]]:
        # the gate, before anything else is imported: a file that never has an
        # import line naming tilelang costs one substring scan (the engine
        # repeats the exact check; this one only needs to be a superset)
        if not may_import_tilelang(self.lines):
            return
        # Building a model allocates many short-lived objects; in a flake8
        # process each collection they trigger also walks flake8's own
        # objects. Collect at most once, after the file, instead.
        paused = gc.isenabled()
        if paused:
            gc.disable()
        try:
            found = self._check()
        finally:
            if paused:
                gc.enable()
        yield from found

    def _check(self) -> List[Tuple[int, int, str, type]]:
        from .engine import check_tree
        from .output import printable
        from .registry import REGISTRY, all_rules

        if self._decide is not None and not any(self._wanted(r.code) for r in all_rules()):
            return []  # `--select=E,F`: flake8 would drop every TLA code, build no model
        out = []
        for d in check_tree(self.tree, self.lines, self.filename, wanted=self._wanted,
                            file_noqa=not self._disable_noqa, target=self._target, src=self._src):
            rule = REGISTRY.get(d.code)
            # flake8 prints the text as it is: a folder name of the project quoted in it
            # ("set at <path>") must not reach the terminal as an escape sequence
            out.append((d.line, d.col, printable(d.flake8_text(rule.severity if rule else None)), type(self)))
        return out


def _decision_engine(options: Any) -> Any:
    """``code -> bool``: whether flake8 reports the code with these options
    (its DecisionEngine, already imported by flake8 itself); None when it
    cannot be asked (an older flake8, options that are not flake8's)."""
    try:
        from flake8.style_guide import Decision, DecisionEngine

        engine = DecisionEngine(options)
        engine.decision_for("TLA000")
    except Exception:  # noqa: B902 - never stop flake8: fall back to running every rule
        return None
    return lambda code: engine.decision_for(code) is Decision.Selected


def may_import_tilelang(lines: Sequence[str]) -> bool:
    """Some line names tilelang and starts with ``import``/``from``."""
    for line in lines:
        if MARKER in line and line.lstrip().startswith(("import", "from")):
            return True
    return False
