"""Who splits Cube and Vector work when CombineCV is off."""
from __future__ import annotations

from typing import Iterator, List, Tuple

from .. import constants as C
from ..model.sides import SIDE_NAMES
from ..diagnostic import Report
from ..registry import ERROR, report, rule

_COMBINE = C.SWITCH_ENUM[C.AUTO_CV_COMBINE]
_EXPERT_KINDS = C.EXPERT_ALLOCS


def _unscoped_ops(kernel, config) -> List[Tuple[object, str]]:
    """Resource ops outside every T.Scope, in program order, with their side.
    Scalar code is exempt: a store counts only into an Expert on-chip buffer."""
    out = []
    for use in kernel.in_order(config):
        if use.scope_kind is not None or use.maybe:
            continue
        if use.prim == "@store" and kernel.buffer_kind(use.use.call, use) not in _EXPERT_KINDS:
            continue
        side = kernel.side(use)
        if side in ("C", "V"):
            out.append((use, side))
    return out


def _unscoped_sides(kernel, wanted):
    """The first config with COMBINE off under which the kernel's unscoped
    ops (as compiled with it) have the sides ``wanted`` accepts: (config,
    ops), or None. A factory argument may keep Vector work in one site's code
    and drop it from another's, so each config is read."""
    for config in kernel.configs:
        if not config.is_off(C.AUTO_CV_COMBINE):
            continue
        ops = _unscoped_ops(kernel, config)
        if ops and wanted({side for _, side in ops}):
            return config, ops
    return None


@rule(
    code="TLA006",
    name="unscoped-cv-ops-without-combine",
    severity=ERROR,
    confidence="high",
    summary="Cube and Vector ops outside any T.Scope while TL_ASCEND_AUTO_CV_COMBINE is off",
    what="""
With `TL_ASCEND_AUTO_CV_COMBINE` off or absent (config known), reports a kernel
whose resource ops outside every `with T.Scope` include both Cube work
(`T.gemm_v0`, `T.mma`, copies touching `alloc_L1`/`alloc_L0*` buffers) and
Vector work (`T.tile.*`, `T.reduce_*`, copies touching `alloc_ub` buffers,
`T.Parallel` loops storing into on-chip buffers), directly or through a macro.
Reported once per kernel, on the first such op. `T.printf`, `T.dump_tensor`,
scalar code, allocations, GM-only statements and copies of `alloc_shared` /
`alloc_fragment` buffers (whose core the compiler infers) do not count.
""",
    why="""
Nothing splits the kernel onto the two cores: CombineCV returns early when
COMBINE is off, and there is no scope to say which core runs what. Such code
is emitted for both the AIC and the AIV: the PTO backend has no
`#if __DAV_*` guard, and AscendC has nothing outside `if ASCEND_IS_AI*`
(`codegen_ascend_pto.cc:3017-3040`, `codegen_ascend.cc:723-735`). Cube
instructions in the Vector binary (and the reverse) fail to build or run;
upstream now rejects such kernels outright (tile-ai/tilelang-ascend #1606,
#1753).
""",
    fix="""
Turn `TL_ASCEND_AUTO_CV_COMBINE` on (Developer mode), or wrap the Cube ops in
`with T.Scope("C")` and the Vector ops in `with T.Scope("V")` (Expert mode).
""",
    known_false_positives="""
Kernels whose buffers are all `alloc_shared`/`alloc_fragment` are not judged, nor
files with no sign of TileLang-Ascend (upstream CUDA TileLang has no cores to split).
A kernel that only ever runs through a backend that ignores one side would
still be reported.
""",
    references="""
- tile-ai/tilelang-ascend #1606 (C/V ownership table), #1753, #1816
- `src/target/codegen_ascend_pto.cc:3017-3040`; `src/target/codegen_ascend.cc:723-735`
""",
)
def unscoped_cv_ops_without_combine(model) -> Iterator[Report]:
    if not model.is_ascend:
        return
    for kernel in model.kernels:
        found = _unscoped_sides(kernel, lambda sides: sides == {"C", "V"})
        if found is None:
            continue
        config, ops = found
        first, side = ops[0]
        other = next(u for u, s in ops if s != side)
        yield report(
            first,
            "%s%s does %s work and %s at line %d %s work, outside any T.Scope, while %s: each core "
            "runs both (build failure or illegal instruction)" % (
                first.describe(), first.via_text(), SIDE_NAMES[side], other.describe(), other.line,
                SIDE_NAMES["V" if side == "C" else "C"], config.describe(C.AUTO_CV_COMBINE)),
            help='Turn %s on, or wrap the ops in `T.Scope("C")` / `T.Scope("V")`' % _COMBINE,
        )


@rule(
    code="TLA013",
    name="unscoped-single-side-without-combine",
    severity=ERROR,
    confidence="medium",
    summary="ops of one core outside any T.Scope while TL_ASCEND_AUTO_CV_COMBINE is off",
    what="""
Like TLA006, but the kernel's unscoped resource ops are all Cube or all
Vector work (a pure-Vector elementwise kernel with AUTO_SYNC and
MEMORY_PLANNING only, or an Expert GEMM with no scope). Reported once per
kernel, on the first such op. Opt-in preview rule.
""",
    why="""
The code is emitted for both cores. Older compilers accept it, and the mode
guide's pure-Vector recipe and its Expert GEMM example are written exactly
this way, but upstream TileLang-Ascend rejects it since
tile-ai/tilelang-ascend #1606/#1753: a pure-Vector kernel needs COMBINE or a
`T.Scope("V")`.
""",
    fix="""
Turn `TL_ASCEND_AUTO_CV_COMBINE` on, or wrap the ops in the scope of their core
(`with T.Scope("V")` for Vector work).
""",
    known_false_positives="""
Runs fine on compilers older than #1606/#1753, which is why the rule is
opt-in: select it with `--extend-select=TLA013` when targeting newer releases.
""",
    references="""
- tile-ai/tilelang-ascend #1606, #1753, #1816
- mode guide §2.2 (pure-Vector recipe with COMBINE off)
""",
    default_enabled=False,
    preview=True,
)
def unscoped_single_side_without_combine(model) -> Iterator[Report]:
    if not model.is_ascend:
        return
    for kernel in model.kernels:
        found = _unscoped_sides(kernel, lambda sides: len(sides) == 1)
        if found is None or _unscoped_sides(kernel, lambda sides: sides == {"C", "V"}) is not None:
            continue  # TLA006 reports the kernel: Cube and Vector work at another site
        config, ops = found
        first, side = ops[0]
        yield report(
            first,
            "unscoped %s work %s%s while %s: emitted for both cores (rejected since #1753)" % (SIDE_NAMES[side], first.describe(), first.via_text(), config.describe(C.AUTO_CV_COMBINE)),
            help='Turn %s on, or wrap it in `T.Scope("%s")`' % (_COMBINE, side),
        )
