"""On-chip memory: address annotations and allocation primitives."""
from __future__ import annotations

import ast
from typing import Dict, Iterator, List, Optional, Tuple

from .. import constants as C
from ..model.buffers import DTYPE_BYTES as _DTYPE_BYTES  # the one table of element sizes
from ..model.resolve import UNKNOWN
from ..diagnostic import Report
from ..registry import ERROR, INFO, WARNING, report, rule

_KIND_NAME = {"alloc_L1": "L1", "alloc_L0A": "L0A", "alloc_L0B": "L0B", "alloc_L0C": "L0C", "alloc_ub": "UB"}


def _annotations(kernel, config=None) -> Iterator[Tuple[object, List[Tuple[str, ast.expr]]]]:
    """(use, [(buffer name, offset expression), ...]) per T.annotate_address
    (as ``config`` compiles the kernel, when given)."""
    for use in kernel.uses_of("annotate_address", config=config):
        call = use.use.call
        if use.via or not isinstance(call, ast.Call) or not call.args or not isinstance(call.args[0], ast.Dict):
            continue
        pairs = []
        for key, value in zip(call.args[0].keys, call.args[0].values):
            if isinstance(key, ast.Name):
                pairs.append((key.id, value))
        yield use, pairs


def _size(kernel, name: str) -> Optional[int]:
    call = kernel.func.alloc_calls.get(name)
    if call is None or len(call.args) < 2:
        return None
    shape = kernel.const(call.args[0])
    dtype = kernel.const(call.args[1])
    if isinstance(shape, int) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, (list, tuple)) or not all(type(d) is int for d in shape) \
            or not isinstance(dtype, str) or dtype not in _DTYPE_BYTES:
        return None
    total = _DTYPE_BYTES[dtype]
    for d in shape:
        total *= d
    return total


@rule(
    code="TLA040",
    name="annotate-address-aliasing-under-planning",
    severity=WARNING,
    confidence="medium",
    summary="two buffers annotated to overlapping addresses while TL_ASCEND_MEMORY_PLANNING is on",
    what="""
With `TL_ASCEND_MEMORY_PLANNING` on, reports a `T.annotate_address` that maps
two buffers of the same memory kind (L1, L0A, L0B, L0C, UB) to the same
offset (the same literal or the same expression) or, when both sizes are
known, to overlapping ranges. Sizes and offsets that come from the factory's
arguments are read per compile site: the finding names the site whose tiles
overlap (`at matmul(512, 512, 512, 128, 128, 128) (line 39)`).
""",
    why="""
The planner treats annotations as fixed pre-allocations and aborts with
`LOG(FATAL)` "memory allocate conflict" when two of them overlap while both
are live (`src/transform/ascend_memory_planning.cc:279-289, 640-652`).
Deliberate aliasing only works with planning off, where the linear allocator
honours annotations as written.
""",
    fix="Give the buffers disjoint ranges, drop the annotations and let the planner place them, or "
        "turn TL_ASCEND_MEMORY_PLANNING off to keep the hand-made layout.",
    known_false_positives="Buffers whose live ranges never overlap are accepted by the planner; the "
                          "checker does not compute liveness.",
    references="`src/transform/ascend_memory_planning.cc:279-289, 640-652`; PR #663; #1171; #1286.",
)
def annotate_address_aliasing_under_planning(model) -> Iterator[Report]:
    for kernel in model.kernels:
        config = next((c for c in kernel.configs if c.is_on(C.MEMORY_PLANNING)), None)
        if config is None:
            continue
        for use, pairs in _annotations(kernel):
            seen: Dict[str, List[Tuple[str, ast.expr]]] = {}
            reported = False
            for name, offset in pairs:
                kind = kernel.allocs.get(name)
                if kind not in _KIND_NAME or reported:
                    continue
                for other, other_offset in seen.get(kind, []):
                    if _overlap(kernel, name, offset, other, other_offset):
                        yield report(
                            use,
                            "`%s` and `%s` have overlapping %s annotations while %s: the planner aborts "
                            "(\"memory allocate conflict\") when both are live"
                            % (other, name, _KIND_NAME[kind], config.describe(C.MEMORY_PLANNING)),
                            help="Give them disjoint ranges, or turn TL_ASCEND_MEMORY_PLANNING off",
                        )
                        reported = True
                        break
                seen.setdefault(kind, []).append((name, offset))
            if reported:
                continue
            # the sizes or offsets differ between compile sites (factory arguments): each site
            # with planning on, as it compiles the kernel
            found = _overlap_at_a_site(model, kernel, use, [name for name, _ in pairs])
            if found is not None:
                first, second, memory, site = found
                yield report(
                    use,
                    "`%s` and `%s` have overlapping %s annotations %s while %s: the planner aborts "
                    "(\"memory allocate conflict\") when both are live"
                    % (first, second, memory, site.where(), site.config.describe(C.MEMORY_PLANNING)),
                    help="Give them disjoint ranges, or turn TL_ASCEND_MEMORY_PLANNING off",
                )


def _overlap_at_a_site(model, kernel, use, names: List[str]):
    """(buffer, buffer, memory, site) for the first compile site with planning
    on that compiles the annotation ``use`` and where two buffers it places in
    one memory overlap, with that site's offsets and sizes (as compiled: every
    offset and size known); else None."""
    from ..model.buffers import facts

    for sf in facts(model, kernel).sites:
        if sf.site.defaults or sf.site.planning() is not True or not sf.compiles(use):
            continue
        seen: Dict[str, List[Tuple[str, int, int]]] = {}
        for name in names:
            buf = sf.buffers.get(name)
            if buf is None or buf.memory not in _KIND_NAME.values() or type(buf.address) is not int:
                continue
            size = buf.raw_bytes()
            if size is None:
                continue
            for other, start, other_size in seen.get(buf.memory, []):
                if buf.address < start + other_size and start < buf.address + size:
                    return other, name, buf.memory, sf.site
            seen.setdefault(buf.memory, []).append((name, buf.address, size))
    return None


def _overlap(kernel, a: str, a_off: ast.expr, b: str, b_off: ast.expr) -> bool:
    x, y = kernel.const(a_off), kernel.const(b_off)
    if x is UNKNOWN or y is UNKNOWN:
        return ast.dump(a_off) == ast.dump(b_off)
    if type(x) is not int or type(y) is not int:
        return False
    if x == y:
        return True
    sa, sb = _size(kernel, a), _size(kernel, b)
    if sa is None or sb is None:
        return False
    return x < y + sb and y < x + sa


@rule(
    code="TLA041",
    name="partial-annotate-address-linear",
    severity=WARNING,
    confidence="medium",
    summary="some but not all L1/L0 buffers annotated while TL_ASCEND_MEMORY_PLANNING is off",
    what="""
With `TL_ASCEND_MEMORY_PLANNING` off or absent, reports a kernel whose
`T.annotate_address` covers some but not all of its buffers of one non-UB kind
(L1, L0A, L0B or L0C), naming the buffers left out.
""",
    why="""
Without planning, a linear allocator places every unannotated L1/L0 buffer
from offset 0 and ignores the annotated ranges
(`src/transform/ascend_memory_planning.cc:530-546`), so the unannotated
buffers silently overlap the annotated ones. UB is safe: its unannotated
buffers are placed after the highest annotated address.
""",
    fix="Annotate every buffer of that kind, or none, or turn TL_ASCEND_MEMORY_PLANNING on.",
    known_false_positives="None known.",
    references="`src/transform/ascend_memory_planning.cc:507-550`; PR #682.",
)
def partial_annotate_address_linear(model) -> Iterator[Report]:
    for kernel in model.kernels:
        done = set()  # kinds reported for this kernel
        # each config with planning off, as its sites compile the kernel (a buffer a
        # factory argument adds at one call only is unannotated there)
        for config in kernel.configs:
            if config.is_off(C.MEMORY_PLANNING):
                yield from _partial_annotations(kernel, config, done)


def _partial_annotations(kernel, config, done: set) -> Iterator[Report]:
    annotations = list(_annotations(kernel, config))
    if not annotations:
        return
    annotated = {name for _, pairs in annotations for name, _ in pairs}
    allocs = kernel.allocs_for(config)
    for kind in ("alloc_L1", "alloc_L0A", "alloc_L0B", "alloc_L0C"):
        buffers = [n for n, k in allocs.items() if k == kind]
        covered = [n for n in buffers if n in annotated]
        missing = [n for n in buffers if n not in annotated]
        if covered and missing and kind not in done:
            done.add(kind)
            use = annotations[0][0]
            yield report(
                use,
                "T.annotate_address places %s but not %s (%s) while %s: the unannotated buffers "
                "land at offset 0, over the annotated ones" % (
                    ", ".join("`%s`" % n for n in covered), ", ".join("`%s`" % n for n in missing),
                    _KIND_NAME[kind], config.describe(C.MEMORY_PLANNING)),
                help="Annotate every %s buffer, or none, or turn TL_ASCEND_MEMORY_PLANNING on"
                     % _KIND_NAME[kind],
            )


@rule(
    code="TLA042",
    name="removed-alloc-local",
    severity=ERROR,
    confidence="high",
    summary="`T.alloc_local(...)`, which TileLang-Ascend removed",
    what="Reports every `T.alloc_local(...)` in a file that launches NPU kernels "
         "(`T.Kernel(..., is_npu=True)`); upstream CUDA TileLang, which shares the package name, "
         "still has `T.alloc_local`, so files without an NPU launch are not judged.",
    why="""
`T.alloc_local` was removed: calling it raises `AttributeError` with a
migration message (`tilelang/language/__init__.py:230-240`), so the kernel
never builds.
""",
    fix="Use `T.alloc_var(dtype)` for a scalar, or `T.alloc_shared` / `T.alloc_ub` for a buffer.",
    known_false_positives="None.",
    references="`tilelang/language/__init__.py:230-240`.",
)
def removed_alloc_local(model) -> Iterator[Report]:
    # `T.alloc_local` is valid in upstream (CUDA) TileLang, which shares the
    # package name: only judge files that launch NPU kernels
    if not any(launch.is_npu is True for kernel in model.kernels for launch in kernel.launches):
        return
    for use in model.all_uses:
        if use.prim == "alloc_local":
            yield report(
                use,
                "`T.alloc_local` was removed from TileLang-Ascend: building the kernel raises AttributeError",
                help="Use `T.alloc_var` for a scalar, or `T.alloc_shared` / `T.alloc_ub` for a buffer",
            )


@rule(
    code="TLA092",
    name="expert-alloc-in-developer-kernel",
    severity=INFO,
    confidence="medium",
    summary="Expert allocations in a kernel compiled with all four switches on",
    what="""
Reports the first `T.alloc_L1` / `T.alloc_ub` / `T.alloc_L0*` of a kernel whose
config turns all four Ascend switches on. Opt-in style rule.
""",
    why="""
Mixed mode is supported, but in a Developer kernel `T.alloc_shared` /
`T.alloc_fragment` let the compiler choose the memory and keep the kernel
portable (mode guide §3.2).
""",
    fix="`T.alloc_L1`/`T.alloc_ub` -> `T.alloc_shared`, `T.alloc_L0C` -> `T.alloc_fragment`, drop "
        "`T.alloc_L0A`/`T.alloc_L0B` (gemm_v0 handles them).",
    known_false_positives="Deliberate Mixed-mode kernels; that is why the rule is opt-in.",
    references="mode guide §1 and §3.2.",
    default_enabled=False,
)
def expert_alloc_in_developer_kernel(model) -> Iterator[Report]:
    for kernel in model.kernels:
        # each all-on config as it compiles the kernel (an allocation may be in one site's code only)
        first = next((u for c in kernel.configs if all(c.is_on(s) for s in C.SWITCHES)
                      for u in kernel.uses_of(*C.EXPERT_ALLOCS, config=c)), None)
        if first is not None:
            yield report(
                first,
                "`T.%s` in a Developer kernel (all four switches on) fixes a memory the compiler would "
                "choose" % first.prim,
                help="Use `T.alloc_shared` / `T.alloc_fragment`",
            )
