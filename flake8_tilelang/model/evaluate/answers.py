"""The model's value questions, answered by the evaluator once the module
has run: what an expression written in a scope holds as a plain value."""
from __future__ import annotations

import ast
from typing import Dict, Optional, Tuple

from ..nodes import Function, Scope
from .values import UNKNOWN, export


class Answers:
    """Mixin of ``Evaluator``: values for the model and the rules."""

    def answer(self, expr: Optional[ast.expr], scope: Scope, closure=None):
        """What ``expr``, written in ``scope``, holds as a plain Python value
        (a constant, tuple or list of them), else ``UNKNOWN``. In a prim_func
        and without ``closure`` (the frame one compilation's def ran in): the
        value in every frame the kernel was made in, when they agree."""
        if expr is None or self.exhausted or self.running:  # type: ignore[attr-defined]
            return UNKNOWN
        try:
            memo: Dict[Tuple[int, int, int], Tuple[ast.expr, object]] = self._answers  # type: ignore[has-type]
        except AttributeError:
            memo = self._answers = {}  # values are fixed once the module ran
        key = (id(expr), id(scope), id(closure))
        hit = memo.get(key)
        if hit is not None and hit[0] is expr:
            return hit[1]
        value = self._answer(expr, scope, closure)
        memo[key] = (expr, value)
        return value

    def use_kernel_frames(self, fn: Function, frames: list) -> None:
        """Answer questions about kernel ``fn`` from ``frames`` (the frames its
        def ran in for the compile calls that matter: another file's), not
        from those of this module's own run; answers given so far go."""
        self.kernel_frames[id(fn)] = frames  # type: ignore[attr-defined]
        self._answers = {}

    def _answer(self, expr: ast.expr, scope: Scope, closure):
        value_in = self.value_in  # type: ignore[attr-defined]
        if closure is not None:
            return export(value_in(expr, scope, closure))
        frames = self.kernel_frames.get(id(scope)) if isinstance(scope, Function) and scope.is_prim_func \
            else None  # type: ignore[attr-defined]
        if not frames or None in frames:
            return export(value_in(expr, scope))
        first = export(value_in(expr, scope, frames[0]))
        for frame in frames[1:]:
            if first is UNKNOWN:
                break
            other = export(value_in(expr, scope, frame))
            if other is UNKNOWN or type(other) is not type(first) or other != first:
                first = UNKNOWN
        return first
