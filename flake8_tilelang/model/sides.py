"""Which core a kernel statement runs on: Cube ("C"), Vector ("V"), both
("CV", a cross-side copy), or None when it cannot be known here.

Buffer kinds come from Expert allocations only (``alloc_L1``/``alloc_L0*`` are
Cube, ``alloc_ub`` is Vector, kernel parameters are GM). The compiler infers
the kind of ``alloc_shared``/``alloc_fragment`` buffers from their use
(AscendInferBufferScope), so copies touching them are unknown: rules stay
silent rather than guess.
"""
from __future__ import annotations

import ast
from typing import Optional, Tuple

from .calls import bind_arguments
from .nodes import STORE, Function, Scope

CUBE_ALLOCS = frozenset({"alloc_L1", "alloc_L0A", "alloc_L0B", "alloc_L0C"})
VECTOR_ALLOCS = frozenset({"alloc_ub"})
GM = "gm"
CUBE_PIPES = frozenset({"m", "mte1", "fix"})
VECTOR_PIPES = frozenset({"v"})
CUBE_OPS = frozenset({"gemm_v0", "mma"})


def trace(expr: Optional[ast.expr], ku, kernel_func: Function) -> Tuple[Optional[ast.expr], Optional[Scope]]:
    """Follow a macro parameter back to the expression the kernel passed in.
    Returns (expression, scope it is evaluated in)."""
    owner: Scope = ku.use.owner
    level = len(ku.via)
    while expr is not None and level > 0 and isinstance(owner, Function) and owner.is_macro:
        name = _base_name(expr)  # `buf[i, j]` in a macro: follow `buf`
        if name is None or name not in owner.params:
            break
        hop = ku.via[level - 1]
        expr = bind_arguments(hop.macro.node, hop.call).get(name)
        owner = hop.caller
        level -= 1
    return expr, owner


def _base_name(expr: Optional[ast.expr]) -> Optional[str]:
    while isinstance(expr, (ast.Subscript, ast.Attribute)):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else None


def buffer_kind(expr: Optional[ast.expr], ku, kernel_func: Function) -> Optional[str]:
    """"alloc_ub", "alloc_L1", ... or GM for a kernel parameter; None if unknown."""
    expr, owner = trace(expr, ku, kernel_func)
    name = _base_name(expr)
    scope = owner
    while name is not None and isinstance(scope, Function):
        if name in scope.allocs:
            return scope.allocs[name]
        if name in scope.params:
            return GM if scope.is_prim_func else None
        if name in scope.bound:
            return None
        scope = scope.parent  # a macro nested in the kernel sees its buffers
    return None


def _kind_side(kind: Optional[str]) -> Optional[str]:
    if kind in CUBE_ALLOCS:
        return "C"
    if kind in VECTOR_ALLOCS:
        return "V"
    if kind == GM:
        return GM
    return None


def op_side(ku, kernel_func: Function) -> Optional[str]:
    """The side of a resource op, or None (not a resource op, or unknown)."""
    prim = ku.prim
    call = ku.use.call
    if prim in CUBE_OPS:
        return "C"
    if prim.startswith("tile."):
        if prim == "tile.atomic_add" and isinstance(call, ast.Call) and len(call.args) >= 2:
            src = buffer_kind(call.args[1], ku, kernel_func)
            if _kind_side(src) == "C" or src == "alloc_fragment":  # L0C -> GM atomic: Cube side
                return "C"
        return "V"
    if prim.startswith("reduce_") or prim == "reduce":
        return "V"
    if prim == "copy" and isinstance(call, ast.Call) and len(call.args) >= 2:
        sides = {_kind_side(buffer_kind(a, ku, kernel_func)) for a in call.args[:2]}
        if None in sides:
            return None
        sides.discard(GM)
        if sides == {"C", "V"}:
            return "CV"
        return sides.pop() if sides else None
    if prim == "Parallel":
        # a T.Parallel loop is Vector work when it writes UB: alloc_ub, or an
        # alloc_shared (the compiler places it in UB when only vector ops use
        # it); fragments (L0) and scalars are not
        kinds = {buffer_kind(ast.Name(id=n, ctx=ast.Load()), ku, kernel_func) for n in ku.use.stores}
        kinds.discard(GM)
        if kinds and kinds <= {"alloc_ub", "alloc_shared"}:
            return "V"
        return None
    if prim == STORE:
        if ku.use.in_parallel:
            return None  # part of its T.Parallel loop
        kind = buffer_kind(call, ku, kernel_func)  # type: ignore[arg-type]
        if kind in VECTOR_ALLOCS:
            return "V"
        if kind in CUBE_ALLOCS or kind in ("alloc_var", "alloc_fragment"):
            return "C"
        return None
    return None


def pipe_side(pipe: object) -> Optional[str]:
    if not isinstance(pipe, str):
        return None
    p = pipe.lower()
    if p in CUBE_PIPES:
        return "C"
    if p in VECTOR_PIPES:
        return "V"
    return None
