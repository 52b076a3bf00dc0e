"""Cube <-> Vector handoffs and cross-core pipelines (preview rules)."""
from __future__ import annotations

import ast
from typing import Dict, Iterator, List, Optional

from .. import constants as C
from ..model.calls import argument, keyword_arg
from ..model.sides import GM, SIDE_NAMES, buffer_side
from ..diagnostic import Report
from ..registry import ERROR, WARNING, report, rule
from ._text import name as _name



def _both_on(config) -> bool:
    return config.is_on(C.AUTO_CV_COMBINE) and config.is_on(C.AUTO_CV_SYNC)


@rule(
    code="TLA009",
    name="cross-side-copy-needs-auto-cv",
    severity=ERROR,
    tiers=((WARNING, "when TL_ASCEND_AUTO_CV_COMBINE is off"),),
    confidence="medium",
    summary="direct Cube<->Vector copy without TL_ASCEND_AUTO_CV_COMBINE and TL_ASCEND_AUTO_CV_SYNC",
    what="""
Reports `T.copy(src, dst)` from an `alloc_L0C` (or `alloc_fragment`) buffer to
an `alloc_ub` buffer, or from `alloc_ub` to `alloc_L1`, in a kernel whose
config does not turn both COMBINE and AUTO_CV_SYNC on: an error with COMBINE
on and AUTO_CV_SYNC off, a warning with COMBINE off when the kernel has no
hand-written cross flags. Preview, opt-in.
""",
    why="""
AscendWorkspaceReduction always rewrites such a copy into a write and a read
through an automatic GM `workspace_N` (`ascend_workspace_reduction.cc:67-71,
178, 488-511`). Without CombineCV the two halves are not split onto their
cores; without AUTO_CV_SYNC nothing orders the read after the write: a race.
""",
    fix="Turn on both TL_ASCEND_AUTO_CV_COMBINE and TL_ASCEND_AUTO_CV_SYNC.",
    known_false_positives="Buffer kinds come from Expert allocations; `alloc_shared` pairs are skipped.",
    references="`src/transform/ascend_workspace_reduction.cc`; Programming Guide §4.1.5.2; #1176.",
    default_enabled=False,
    preview=True,
)
def cross_side_copy_needs_auto_cv(model) -> Iterator[Report]:
    for kernel in model.kernels:
        for config in kernel.configs:
            manual_flags = any(True for _ in kernel.uses_of(*C.CROSS_CORE_SYNC, config=config))
            combine, cv_sync = config.state(C.AUTO_CV_COMBINE), config.state(C.AUTO_CV_SYNC)
            if combine is None or cv_sync is None or (combine and cv_sync):
                continue
            if not combine and manual_flags:
                continue
            for use in kernel.uses_of("copy", config=config):
                call = use.use.call
                if not isinstance(call, ast.Call) or len(call.args) < 2:
                    continue
                src = kernel.buffer_kind(call.args[0], use)
                dst = kernel.buffer_kind(call.args[1], use)
                if (src in ("alloc_L0C", "alloc_fragment") and dst == "alloc_ub") or \
                        (src == "alloc_ub" and dst == "alloc_L1"):
                    if combine:
                        why = "%s: nothing orders the read after the write (race)" % (
                            config.describe(C.AUTO_CV_SYNC))
                    else:
                        why = "%s: the two halves are not split onto their cores" % (
                            config.describe(C.AUTO_CV_COMBINE))
                    yield report(
                        use,
                        "`T.copy` from %s to %s crosses cores through a GM workspace while %s" % (
                            _kind(src), _kind(dst), why),
                        help="Turn on TL_ASCEND_AUTO_CV_COMBINE and TL_ASCEND_AUTO_CV_SYNC",
                        severity=ERROR if combine else WARNING,
                    )


@rule(
    code="TLA010",
    name="auto-cv-sync-handoff-not-named-workspace",
    severity=WARNING,
    confidence="medium",
    summary="a Cube->Vector handoff buffer without `workspace` in its name under AUTO_CV_SYNC",
    what="""
With COMBINE and AUTO_CV_SYNC on, reports a kernel parameter written by one
core and read by the other (for example `T.copy(c_l0, P[...])` then
`T.copy(P[...], c_ub)`) whose name does not contain `workspace`. Reported on
the first write. Preview, opt-in.
""",
    why="""
The automatic cross-core sync pairs Cube and Vector accesses by buffer
*name*: only GM buffers whose name contains `workspace` get flags
(`src/transform/ascend_combinecv.cc:188-199`). Any other handoff buffer gets
no flag, and the Vector core can read data the Cube core has not finished
writing.
""",
    fix="Rename the parameter to `workspace_...` (the jit `workspace_idx` position does not change).",
    known_false_positives="Buffer sides come from Expert allocations and `alloc_fragment` (Cube).",
    references="`src/transform/ascend_combinecv.cc:188-199`; #1367.",
    default_enabled=False,
    preview=True,
)
def auto_cv_sync_handoff_not_named_workspace(model) -> Iterator[Report]:
    for kernel in model.kernels:
        if not any(_both_on(c) for c in kernel.configs):
            continue
        writes: Dict[str, List] = {}
        reads: Dict[str, List] = {}
        for use in kernel.uses_of("copy"):
            call = use.use.call
            if not isinstance(call, ast.Call) or len(call.args) < 2:
                continue
            src, dst = call.args[0], call.args[1]
            src_kind, dst_kind = kernel.buffer_kind(src, use), kernel.buffer_kind(dst, use)
            if dst_kind == GM and _side(src_kind):
                writes.setdefault(kernel.traced_name(dst, use), []).append((use, _side(src_kind)))
            if src_kind == GM and _side(dst_kind):
                reads.setdefault(kernel.traced_name(src, use), []).append((use, _side(dst_kind)))
        for name, ws in writes.items():
            if name is None or "workspace" in name:
                continue
            read_sides = {side for _, side in reads.get(name, [])}
            first = next(((u, s) for u, s in ws if read_sides - {s}), None)
            if first is not None:
                use, side = first
                yield report(
                    use,
                    "%s hands data from the %s core to the %s core, but AUTO_CV_SYNC only synchronises "
                    "buffers named `workspace*`: no flag is placed (race)" % (
                        _name(name), SIDE_NAMES[side], SIDE_NAMES["V" if side == "C" else "C"]),
                    help="Rename it `workspace_%s`" % name if name.isidentifier()
                    else "Rename it so the name contains `workspace`",
                )


def _kind(kind: str) -> str:
    """``alloc_L0C`` -> ``L0C``, ``alloc_ub`` -> ``UB``, ``alloc_fragment`` -> ``fragment``."""
    short = kind[len("alloc_"):]
    return short if short == "fragment" else short.upper()


def _side(kind: Optional[str]) -> Optional[str]:
    side = buffer_side(kind)
    return side if side in ("C", "V") else None


def _mixed_pipelines(kernel) -> List:
    """The ``T.Pipelined`` loops (as KernelUses, so a loop in a macro called
    twice counts twice and is reported at the call) with num_stages > 0 whose
    body does both Cube and Vector work."""
    sides: Dict[tuple, set] = {}
    for use in kernel.uses_for(None):
        key = use.loop_key
        if key is None or use.maybe:
            continue
        side = kernel.side(use)
        if side in ("C", "V"):
            sides.setdefault(key, set()).add(side)
    out = []
    for loop in kernel.uses_of("Pipelined"):
        stages = _num_stages(kernel, loop.use)
        if sides.get(loop.own_loop_key) == {"C", "V"} and isinstance(stages, int) and stages > 0:
            out.append(loop)
    return sorted(out, key=lambda l: l.order)


def _num_stages(kernel, loop):
    expr = argument(loop.call, 1, "num_stages")
    return 0 if expr is None else kernel.const(expr)


@rule(
    code="TLA011",
    name="cross-core-pipeline-without-auto-cv",
    severity=WARNING,
    confidence="medium",
    summary="a Cube+Vector `T.Pipelined` loop (or `cross_interval`) without COMBINE and AUTO_CV_SYNC",
    what="""
Reports a `T.Pipelined(..., num_stages>0)` loop whose body does both Cube and
Vector work, or any `cross_interval=` other than 1, in a kernel whose config
does not turn both COMBINE and AUTO_CV_SYNC on. Preview, opt-in.
""",
    why="""
CrossCorePipeline rewrites such a loop whatever the config (stage loops,
versioned buffers), but its `tl_cross_interval` annotation is read only by
the automatic cross-core sync: without the switches the restructured
handoffs get no flags.
""",
    fix="Turn on TL_ASCEND_AUTO_CV_COMBINE and TL_ASCEND_AUTO_CV_SYNC, or drop `num_stages`.",
    known_false_positives="Sides come from Expert allocations and ops; unknown buffers are skipped.",
    references="`src/transform/cross_core_pipeline.cc:1209-1300`; `ascend_combinecv.cc:142-150`; "
               "Programming Guide :1173.",
    default_enabled=False,
    preview=True,
)
def cross_core_pipeline_without_auto_cv(model) -> Iterator[Report]:
    for kernel in model.kernels:
        config = next((c for c in kernel.configs
                       if c.state(C.AUTO_CV_COMBINE) is not None and c.state(C.AUTO_CV_SYNC) is not None
                       and not _both_on(c)), None)
        if config is None:
            continue
        loops = list(_mixed_pipelines(kernel))
        for use in kernel.uses_of("Pipelined"):
            interval = keyword_arg(use.use.call, "cross_interval")
            value = kernel.const(interval) if interval is not None else 1
            if isinstance(value, int) and value != 1 and use not in loops:
                loops.append(use)
        off = " and ".join(config.describe(key) for key in (C.AUTO_CV_COMBINE, C.AUTO_CV_SYNC)
                           if not config.is_on(key))
        for loop in loops:
            yield report(
                loop,
                "Cube+Vector T.Pipelined loop%s while %s: nothing synchronises the handoffs "
                "CrossCorePipeline creates" % (loop.via_text(), off),
                help="Turn on TL_ASCEND_AUTO_CV_COMBINE and TL_ASCEND_AUTO_CV_SYNC, or drop `num_stages`",
            )


@rule(
    code="TLA012",
    name="multiple-cross-core-pipelines",
    severity=ERROR,
    confidence="medium",
    summary="more than one Cube+Vector `T.Pipelined` loop in one kernel",
    what="""
Reports the second and later `T.Pipelined(..., num_stages>0)` loops of a kernel
that each do both Cube and Vector work. Preview, opt-in.
""",
    why="""
CrossCorePipeline supports one cross-core pipeline per kernel and stops with
an ICHECK failure "Cross_core_pipeline: only support one cross core pipeline
body" (`src/transform/cross_core_pipeline.cc:1228-1231`).
""",
    fix="Merge the loops, or drop `num_stages` on all but one.",
    known_false_positives="Loops whose work stays on one core are not counted.",
    references="`src/transform/cross_core_pipeline.cc:1228-1231`.",
    default_enabled=False,
    preview=True,
)
def multiple_cross_core_pipelines(model) -> Iterator[Report]:
    for kernel in model.kernels:
        loops = _mixed_pipelines(kernel)
        for loop in loops[1:]:
            yield report(
                loop,
                "another Cube+Vector T.Pipelined loop%s in this kernel (the first is at line %d): "
                "CrossCorePipeline supports only one and fails with an ICHECK" % (loop.via_text(), loops[0].line),
                help="Merge the loops, or drop `num_stages` on all but one",
            )
