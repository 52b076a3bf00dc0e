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

from .calls import bind_arguments, parameter_default
from .nodes import STORE, Function, Scope

# The one table of which core a buffer lives on. Expert allocations say it
# exactly. ``alloc_fragment`` is always a gemm operand in L0A/L0B/L0C
# (AscendInferBufferScope places it by operand position), so it is Cube too,
# but *inferred*: rules that must not act on an inference (TLA031, TLA006,
# a copy's side) ask with ``inferred=False``. ``alloc_shared`` becomes UB or
# L1 by its use: no side.
CUBE_ALLOCS = frozenset({"alloc_L1", "alloc_L0A", "alloc_L0B", "alloc_L0C"})
VECTOR_ALLOCS = frozenset({"alloc_ub"})
INFERRED_CUBE = frozenset({"alloc_fragment"})
GM = "gm"
SIDE_NAMES = {"C": "Cube", "V": "Vector"}
PIPES = ("fix", "mte1", "mte2", "mte3", "m", "v", "s")  # T.set_flag/wait_flag/pipe_barrier names
CUBE_PIPES = frozenset({"m", "mte1", "fix"})
VECTOR_PIPES = frozenset({"v"})
CUBE_OPS = frozenset({"gemm_v0", "mma"})

# The `T.tile.*` ops TileLang-Ascend defines (tilelang/language/ascend_tile.py), all Vector work,
# and the elementwise math ones real kernels call under the same namespace (`T.tile.tanh`). A
# `T.tile.*` name not listed (a fork's `T.tile.im2col`, which loads L1 into L0A on the Cube side)
# has no side the model can tell.
VECTOR_TILE_OPS = frozenset("tile." + name for name in (
    "atomic_add fill clear arith_progression sort merge_sort topk gather_mask gatherb select init_sort_buf brcb "
    "brcb_experiment binary_op add sub mul div max min bitwise_and bitwise_or unary_op exp sigmoid silu ln abs "
    "reciprocal sqrt rsqrt relu bitwise_not scalar_op leaky_relu axpy mul_add_dst bitwise_lshift bitwise_rshift "
    "bilinear_interpolation wholereducemax wholereducemin wholereducesum sort32 createvecindex transpose gather "
    "block_reduce_max block_reduce_min block_reduce_sum compare cast sin cos pow bitwise_xor clamp_max clamp_min "
    "clamp round broadcast row_expand_mul row_expand_mul_experiment row_expand_sub_experiment "
    "row_expand_div_experiment sub_experiment abs_experiment mins_experiment reduce_sum_experiment "
    "reduce_sum_mask_experiment gathermask_experiment fill_experiment sum_experiment "
    "tanh log log2 exp2 erf gelu").split())


def buffer_side(kind: Optional[str], inferred: bool = True) -> Optional[str]:
    """"C", "V", GM, or None for an allocation kind (see the table above)."""
    if kind in CUBE_ALLOCS or (inferred and kind in INFERRED_CUBE):
        return "C"
    if kind in VECTOR_ALLOCS:
        return "V"
    if kind == GM:
        return GM
    return None


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
        bound = bind_arguments(hop.macro.node, hop.call)
        expr = bound.get(name)
        if expr is None and hop.macro.cls is None and _all_told(hop.call):
            # not passed: the parameter's default (`def sync_pair(buf, eid=8)`), when it is a
            # literal (a name in it is read when the def runs, which the caller's scope is not)
            default = parameter_default(hop.macro.node, name)
            if isinstance(default, ast.Constant):
                return default, hop.caller
        owner = hop.caller
        level -= 1
    return expr, owner


def _all_told(call: ast.Call) -> bool:
    """No `*args` / `**kwargs` in the call: what it does not pass is not passed."""
    return not any(isinstance(a, ast.Starred) for a in call.args) and all(k.arg is not None for k in call.keywords)


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


def op_side(ku, kernel_func: Function) -> Optional[str]:
    """The side of a resource op, or None (not a resource op, or unknown)."""
    prim = ku.prim
    call = ku.use.call
    if prim in CUBE_OPS:
        return "C"
    if prim.startswith("tile."):
        if prim == "tile.atomic_add" and isinstance(call, ast.Call) and len(call.args) >= 2:
            src = buffer_kind(call.args[1], ku, kernel_func)
            if buffer_side(src) == "C":  # L0C -> GM atomic: Cube side
                return "C"
        return "V" if prim in VECTOR_TILE_OPS else None
    if prim.startswith("reduce_") or prim == "reduce":
        return "V"
    if prim == "copy" and isinstance(call, ast.Call) and len(call.args) >= 2:
        sides = {buffer_side(buffer_kind(a, ku, kernel_func), inferred=False) for a in call.args[:2]}
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
        if kind == "alloc_var":  # CombineCV keeps a store on the V side only when it targets UB
            return "C"           # (ascend_combinecv.cc:755-767), so a scalar store is Cube-side
        side = buffer_side(kind)
        return side if side in ("C", "V") else None
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
