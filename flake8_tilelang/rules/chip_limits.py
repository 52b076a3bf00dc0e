"""What fails on the NPU itself: a kernel's shapes and dtypes against the chip
(TLA101, TLA110, TLA111, TLA120, TLA130, TLA131).

Every rule here only queries ``model.buffers.facts``: the buffer table per
compile site, the copies, flags, gemm calls and scalar arithmetic sites; the
hardware numbers come from ``model.chip``. Values come from the call sites
that give the factory its arguments (else its defaults, and the message says
so); an extent, dtype or id that cannot be known keeps a rule silent.
"""
from __future__ import annotations

import ast
from typing import Iterator, Optional, Tuple

from ..diagnostic import Report
from ..model import chip as chips
from ..model.buffers import DTYPE_BYTES, HALF, facts
from ..model.resolve import UNKNOWN
from ..model.sides import trace
from ..registry import ERROR, report, rule

_LIMIT = 3  # buffers named in a capacity message


def _b(n: int) -> str:
    return format(n, ",")


@rule(
    code="TLA101",
    name="onchip-capacity-exceeded",
    severity=ERROR,
    confidence="high",
    summary="a kernel's UB / L1 / L0A / L0B / L0C buffers do not fit in the chip's memory",
    what="""
Adds up, per memory and per compile site, the on-chip buffers a kernel
allocates (shapes and dtypes evaluated with the arguments a call site passes
to the factory, else the factory's defaults) the way the compiler lays them
out, and reports when the total exceeds the chip's capacity (A2/A3: UB
196,608 B per vector core, L1 524,288 B, L0A/L0B 65,536 B, L0C 131,072 B;
the `target-chip` setting picks A5's larger UB and L0C).

- `TL_ASCEND_MEMORY_PLANNING` off (or absent): the linear layout, every
  buffer rounded up to 32 B; `T.annotate_address` places a buffer at its
  address (UB's other buffers follow the highest annotated end).
- Planning on: the peak of the planner's liveness, a buffer living from its
  first to its last use in program order; buffers whose lifetimes do not
  overlap share memory, so a plain sum over the limit is not a finding.
- `threads=2` halves dimension 0 of every UB buffer (each vector core holds
  half).
- `T.Pipelined(..., num_stages=k)`, k >= 2: a UB or L1 buffer that a
  statement of the loop body copies in from GM and a later statement reads
  is kept k times when it is only mentioned inside the loop
  (PipelinePlanning puts the GM copy in stage 0; InjectSoftwarePipeline
  versions the buffer). The message shows it as `x3 stages`. A loop in a
  macro, a body mixing Cube and Vector work (CrossCorePipeline) or an
  annotated buffer keeps one copy.

Buffers the compiler adds behind your back (reduce / sort scratch) are not
counted: the number is a lower bound, and the rule stays silent when an
extent or dtype is unknown. A kernel compiled at more than eight sites
(a long sweep of shapes) is judged at its first eight, a cost bound shared
by every rule that reads a kernel per compile site.
A kernel launched only without `is_npu=True` (a GPU-style `T.Kernel(n)`) is
not judged.
""",
    why="""
With planning off the allocator never checks (`check_overflow = false`,
`src/transform/ascend_memory_planning.cc:509`): the kernel compiles and
crashes on the device with `507015` "VEC instruction error: the ub address
out of bounds" (#159, commit 0071b14c). With planning on the build stops
with "Memory allocation failed for: <buffer> required: ..., new memory
available: ..." (or a segfault, #1646), far from the line that grew the
tile.
""",
    fix="Use smaller tiles (`block_M`, `block_N`), a narrower dtype for scratch buffers, fewer ping-pong "
        "copies; with planning off, turn TL_ASCEND_MEMORY_PLANNING on so buffers with disjoint lifetimes share "
        "memory.",
    known_false_positives="None known: sizes are a lower bound of what the compiler allocates. A kernel "
                          "compiled only with smaller arguments than its factory's defaults is judged by "
                          "the defaults when no call site in the file gives them (the message says so).",
    references="bug-classes §2.1; `src/transform/ascend_memory_planning.cc:34-38,324-437,507-560,852`; "
               "`src/transform/ascend_vid_reduction.cc:112-125`; `src/transform/pipeline_planning.cc:430-540`; "
               "`src/transform/inject_pipeline.cc:266-276,447-501`; #159, #1286, #1646; commit 0071b14c.",
)
def onchip_capacity_exceeded(model) -> Iterator[Report]:
    chip = chips.current()
    for kernel in model.npu_kernels:
        kf = facts(model, kernel)
        if not kf.alloc_uses:
            continue
        for memory in chips.MEMORIES:
            cap = chip.bytes(memory)
            over = []
            for site in kf.sites:
                fp = site.footprint(memory)
                if fp.bytes is not None and cap is not None and fp.bytes > cap:
                    over.append((site, fp))
            if not over:
                continue
            site, fp = over[0]
            largest = sorted(fp.buffers, key=lambda b: -(b.bytes or 0))
            named = ", ".join(b.describe() for b in largest[:_LIMIT])
            if len(largest) > _LIMIT:
                named += ", ..."
            how = ("MEMORY_PLANNING off: the linear allocator never checks, the kernel crashes on the device "
                   "(507015 ub address out of bounds)" if fp.method == "linear" and memory == "UB" else
                   "MEMORY_PLANNING off: the linear allocator never checks, buffers run past the end of %s"
                   % memory if fp.method == "linear" else
                   "peak of live buffers with MEMORY_PLANNING on: the build fails (Memory allocation failed)")
            more = _more(len(over) - 1)
            yield report(
                largest[0].use.use.call,
                "%s needs %s B of %s B (%s) %s%s: %s; %s" % (
                    memory, _b(fp.bytes), _b(chip.bytes(memory)), chip.name, site.site.where(), more, named,
                    how),
                help="Use smaller tiles or dtypes for these buffers" + (
                    ", or turn TL_ASCEND_MEMORY_PLANNING on so buffers with disjoint lifetimes share memory"
                    if fp.method == "linear" else ""),
            )


@rule(
    code="TLA110",
    name="ub-row-not-32b-aligned",
    severity=ERROR,
    confidence="high",
    summary="a multi-row UB tile copied to or from GM whose row is not a multiple of 32 bytes",
    what="""
Reports a `T.copy` between a kernel tensor (GM) and a UB buffer with more
than one row whose row (`shape[-1] x sizeof(dtype)`) is not a multiple of 32
bytes: `(M, 1)` float32 keepdim results, `block_N = 4` float32 tiles, 126
float32 columns. 1-D buffers and single-row tiles are one burst and fine.

For a UB buffer whose rows are aligned, a multi-row slice on the UB side is
reported when its constant column range starts off a 32-byte boundary
(`x_ub[:, 4:64]` in float32: the copy's UB address is misaligned), or is
narrower than the row by a width that is not a multiple of 32 bytes
(`x_ub[:, 0:30]` in float32, unless that width rounded up to 32 bytes is
the row itself). Column ranges only known at run time, and slices a macro
takes of a buffer parameter, are not judged.
A kernel launched only without `is_npu=True` (a GPU-style `T.Kernel(n)`) is
not judged.
""",
    why="""
The DMA (`DataCopyPad`) addresses the UB side in 32-byte blocks: every row
starts on a 32-byte boundary (`src/tl_templates/ascend/common.h:220-234`
counts the UB stride in 32-B blocks). With a shorter row, rows after the
first land at the wrong place. Nothing checks it: the kernel compiles, runs
and silently produces wrong data (#996, #1304, #1682, #1717). For a column
slice, code generation passes the slice's width as the UB row length
(`src/op/ascend.cc:204-226`), so rows are laid out at that width rounded up
to 32 bytes instead of the buffer's row pitch (PR #1537); and the UB side of
`DataCopy`/`DataCopyPad` must start on a 32-byte boundary (#1773, PR #1774).
""",
    fix="Pad the last dimension so a row is a multiple of 32 bytes (8 float32, 16 float16), copy row by "
        "row into a 1-D buffer, or keep the result 1-D; copy whole rows of a UB buffer, or column ranges "
        "whose start and width are multiples of 32 bytes.",
    known_false_positives="None known. Only whole buffers (or slices of them) that are copy endpoints are "
                          "judged; reduce outputs that only vector ops read are not.",
    references="bug-classes §2.2; `src/op/ascend.cc:204-226`; `src/tl_templates/ascend/common.h:197-234`; "
               "#996, #1304, #1682, #1717, #1773; PR #1453, #1537, #1774.",
)
def ub_row_not_32b_aligned(model) -> Iterator[Report]:
    for kernel in model.npu_kernels:
        kf = facts(model, kernel)
        for copy in kf.copies:
            ends = (copy.src, copy.dst)
            gm = [e for e in ends if e.kind == "gm"]
            onchip = [e for e in ends if e.kind is not None and e.kind != "gm"]
            if len(gm) != 1 or len(onchip) != 1:
                continue
            ub, other = onchip[0], gm[0]
            if kf.memory.get(ub.name or "") != "UB" or not ub.exact:
                continue
            found = [site for site in kf.sites if _misaligned(copy, ub, other, site) is not None]
            if found:  # named at the first such site, counting the others
                message, help_text = _misaligned(copy, ub, other, found[0], _more(len(found) - 1))
                yield report(copy.use.report_node, message, help=help_text)


def _more(n: int) -> str:
    """What a finding that names one compile site adds for the others where it holds."""
    return " (and %d more call site%s)" % (n, "s" if n > 1 else "") if n else ""


def _misaligned(copy, ub, other, site, more: str = "") -> Optional[Tuple[str, str]]:
    """TLA110 at one site: (message, help), or None; ``more`` follows the site's name."""
    if not site.compiles(copy.use):
        return None
    buf = site.buffers.get(ub.name or "")
    if buf is None or buf.shape is None or len(buf.shape) < 2:
        return None
    row = buf.row_bytes()
    if row is None:
        return None
    direction = "from" if ub is copy.dst else "to"
    shape = "x".join(str(d) for d in buf.shape)
    per_row = 32 // DTYPE_BYTES[buf.dtype] if 32 % DTYPE_BYTES[buf.dtype] == 0 else 32
    where = site.site.where() + more
    if row % 32 == 0:
        problem = _slice_problem(buf, ub, site)
        if problem is None:
            return None
        return ("`%s` (%s %s) is copied %s GM `%s` through %s %s: the UB side of a copy must start on a "
                "32-byte boundary and keep the buffer's row pitch, so rows land at the wrong offset "
                "(silently wrong data)" % (buf.name, buf.dtype, shape, direction, other.name, problem, where),
                "Copy whole rows of the UB buffer (or a column range whose start and width are multiples of %d "
                "elements), or use a separate buffer as wide as the slice" % per_row)
    rows = _rows(buf, ub, site)
    if rows is None or rows <= 1:
        return None
    return ("`%s` (%s %s) is copied %s GM `%s` with %d rows of %d B %s: UB rows must be a multiple "
            "of 32 B, so every row after the first lands at the wrong offset (silently wrong data)"
            % (buf.name, buf.dtype, shape, direction, other.name, rows, row, where),
            "Pad the last dimension to a multiple of %d elements, or copy a 1-D buffer" % per_row)


def _slice_problem(buf, end, site) -> Optional[str]:
    """For a UB buffer whose rows are 32-byte aligned: a multi-row slice of it
    whose constant column range starts off a 32-byte boundary (sub-case b:
    the UB address of the copy is misaligned, PR #1774), or is narrower than
    the row by a width that is not a multiple of 32 bytes (sub-case c: the
    copy lays rows out at the slice's width rounded up to 32 bytes, not at
    the buffer's pitch, `src/op/ascend.cc:204-226`). None when not provable."""
    if end.indices is None or len(end.indices) != len(buf.shape):
        return None
    rows = _rows(buf, end, site)
    if rows is None or rows <= 1:
        return None
    last = end.indices[-1]
    if not isinstance(last, ast.Slice) or last.step is not None:
        return None
    width = buf.shape[-1]
    lo = 0 if last.lower is None else site.site.value(last.lower)
    hi = width if last.upper is None else site.site.value(last.upper)
    if type(lo) is not int or type(hi) is not int or not 0 <= lo < hi <= width:
        return None
    size = DTYPE_BYTES[buf.dtype]
    shown = "`%s[..., %d:%d]` (%d rows)" % (buf.name, lo, hi, rows)
    if lo * size % 32:
        return "%s, whose columns start %d B into the row" % (shown, lo * size)
    span = (hi - lo) * size
    if hi - lo < width and span % 32 and -(-span // 32) * 32 != width * size:
        return "%s, a column slice of %d B per row: each UB row is taken as %d B, not the buffer's %d B" % (
            shown, span, -(-span // 32) * 32, width * size)
    return None


def _rows(buf, end, site) -> Optional[int]:
    """Rows the copy moves on the UB side: the buffer's, or a slice's."""
    if end.indices is None:
        return buf.rows()
    if len(end.indices) != len(buf.shape):
        return None
    rows = 1
    for index, dim in zip(end.indices[:-1], buf.shape[:-1]):
        if not isinstance(index, ast.Slice):
            return None  # the start-point form: the extent comes from the other side
        lo = 0 if index.lower is None else site.site.value(index.lower)
        hi = dim if index.upper is None else site.site.value(index.upper)
        if index.step is not None or type(lo) is not int or type(hi) is not int:
            return None
        rows *= max(0, hi - lo)
    return rows


@rule(
    code="TLA111",
    name="gm-slice-scalar-last-dim",
    severity=ERROR,
    confidence="high",
    summary="`T.copy(G[a:b, j], tile)`: a slice mixed with a scalar last index copies one column",
    what="""
Reports a `T.copy` operand that indexes a kernel tensor with a slice in an
earlier dimension and a single index in the last one, such as
`T.copy(W[0:OUT, k * block_K], w_l1)`.
A kernel launched only without `is_npu=True` (a GPU-style `T.Kernel(n)`) is
not judged.
""",
    why="""
TVMScript turns the scalar into an extent-1 range, so the copy reads a
strided column, not the tile that starts at column `j`
(`tilelang/language/copy.py:65-79` keeps the region's own extents). Column
copies are not supported either: only the first element arrives and the
rest is zero-padded (#1195). Nothing reports it.
""",
    fix="Write the tile's extent in the last dimension (`G[a:b, j:j + w]`), or the start-point form "
        "`G[a, j]` whose extent comes from the other operand.",
    known_false_positives="None known.",
    references="bug-classes §2.4; `tilelang/language/copy.py:65-79,196-270`; #1195.",
)
def gm_slice_scalar_last_dim(model) -> Iterator[Report]:
    for kernel in model.npu_kernels:
        kf = facts(model, kernel)
        for copy in kf.copies:
            if not kf.compiled(copy.use):
                continue
            for end in (copy.src, copy.dst):
                if end.kind != "gm" or end.indices is None:
                    continue
                rank = kf.params.get(end.name or "")
                if rank is None or len(end.indices) != rank or rank < 2:
                    continue
                *head, last = end.indices
                if isinstance(last, (ast.Slice, ast.Starred)) or not any(isinstance(i, ast.Slice) for i in head):
                    continue
                yield report(
                    copy.use.report_node,
                    "`%s[...]` mixes a slice with a single last index: the copy moves one column (extent 1 in "
                    "the last dimension), not the tile that starts there; values after the first arrive as "
                    "zeros" % end.name,
                    help="Give the last dimension its extent (`j:j + w`), or use the start-point form "
                         "`%s[a, j]`" % end.name,
                )
                break


@rule(
    code="TLA120",
    name="event-id-out-of-range",
    severity=ERROR,
    confidence="high",
    summary="`T.set_flag` / `T.wait_flag` with a constant event id outside 0-7",
    what="""
Reports a `T.set_flag(src, dst, id)` or `T.wait_flag(src, dst, id)` whose
event id is provably a constant outside 0-7 (a literal, a module constant,
a factory argument at a call site, a member of an `IntEnum` sync table),
also when a `@T.macro` makes the call with an id the kernel passes, or
with its parameter's literal default when the call leaves it out (the
finding is on the kernel's macro call). An id that depends on the call
site (`base + 2` with the factory's `base`) is judged at each site, and the
finding names the first site where it is out of range. Ids computed from
loop variables (`k % 2`) are not judged, nor members of a plain `Enum`
(not an int).
A kernel launched only without `is_npu=True` (a GPU-style `T.Kernel(n)`) is
not judged.
""",
    why="""
Each pipe pair has eight hardware event ids (CANN SetFlag/WaitFlag: 0-7 on
Atlas A2, A3 and Ascend 950; a 3-bit field). Code generation emits the id
verbatim (`codegen_ascend.cc:2183-2190`) and nothing checks it; the
compiler's own sync insertion had the same bug and now wraps ids with `% 8`
(commit 0212f4cc). An id of 8 or more is out of the documented range: it
may alias another pair's event, giving a race or a hang on the device
(PR #1240).
""",
    fix="Use an id in 0-7 that no other live set/wait pair of the same pipes uses.",
    known_false_positives="None known.",
    references="bug-classes §2.6; `src/target/codegen_ascend.cc:2183-2190`; commit 0212f4cc; PR #1240; "
               "CANN `atlasascendc_api_07_0270`.",
)
def event_id_out_of_range(model) -> Iterator[Report]:
    chip = chips.current()
    low, high = chip.event_ids.value
    for kernel in model.npu_kernels:
        kf = facts(model, kernel)
        for use in kf.flags:
            if not kf.compiled(use):
                continue
            values = kf.event_ids(use)
            bad = [(v, site) for v, site in values if not low <= v <= high]
            if not bad:
                continue
            value, site = bad[0]
            # the id depends on the compile site (a factory argument): name the site
            where = " %s" % site.site.where() if site is not None and len({v for v, _ in values}) > 1 else ""
            yield report(
                use.report_node,
                "`T.%s` event id %d is outside %d-%d (%s)%s%s: code generation emits it verbatim and the "
                "hardware has 8 ids per pipe pair, so it may alias another pair's event (race or hang)"
                % (use.prim, value, low, high, chip.name, use.via_text(), where),
                help="Use an event id in %d-%d" % (low, high),
            )


def _transpose_b(use, site) -> object:
    """gemm_v0's ``transpose_B`` at this site: True, False, or UNKNOWN (mma: False)."""
    call = use.use.call
    if use.prim != "gemm_v0":
        return UNKNOWN
    expr = call.args[4] if len(call.args) > 4 else next(
        (kw.value for kw in call.keywords if kw.arg == "transpose_B"), None)
    if expr is None:
        return False
    traced, owner = trace(expr, use, site.facts.kernel.func)
    if owner is not site.facts.kernel.func:
        return UNKNOWN
    value = site.site.value(traced)
    return value if type(value) is bool else UNKNOWN


@rule(
    code="TLA130",
    name="cube-dtype-unsupported",
    severity=ERROR,
    confidence="high",
    summary="`T.gemm_v0` / `T.mma` with float32 A/B (A2/A3), a half-precision accumulator, or A/B dtypes "
            "that differ",
    what="""
Reports a `T.gemm_v0` or `T.mma` whose operand buffers have dtypes the Cube
path does not support: float32 A/B on A2/A3 with `transpose_B=False` (the
documented workaround, `transpose_B=True`, is not reported), an accumulator C in
float16 or bfloat16, A and B of different dtypes, or int8 A/B with a C other
than int32. Dtypes come from the buffers' allocations, evaluated at each
call site of the factory (else its defaults).
A kernel launched only without `is_npu=True` (a GPU-style `T.Kernel(n)`) is
not judged.
""",
    why="""
The AscendC Cube path takes A/B in float16, bfloat16 or int8 with C float32
(int32 for int8) (PR #1518). float32 A/B return NaN on 910B (#13, #1093,
#1725: the fp32 16x8 fractal cannot be transposed); an fp16/bf16
accumulator fails in BiSheng inside catlass `copy_l0c_to_gm.hpp` with an
error that points into a temporary C++ file (#1093). `gemm_v0` itself checks
only ranks and K (`tilelang/language/ascend.py:343-400`).
""",
    fix="Keep A/B in float16/bfloat16 (cast with `T.tile.cast` first) and accumulate in float32; use int32 "
        "for int8 inputs; for float32 A/B on A2/A3, lay B out transposed and pass `transpose_B=True` (#1725).",
    known_false_positives="None known. float32 A/B is judged only on A2/A3 (PR #1760 may lift it).",
    references="bug-classes §2.3; `tilelang/language/ascend.py:343-400`; #13, #1093, #1725; PR #1518, #1760.",
)
def cube_dtype_unsupported(model) -> Iterator[Report]:
    chip = chips.current()
    for kernel in model.npu_kernels:
        kf = facts(model, kernel)
        for use, names in kf.gemms:
            if len(names) < 3 or None in names:
                continue
            found = [(p, site) for p, site in ((_cube_problem(use, names, site, chip), site) for site in kf.sites)
                     if p is not None]
            if found:
                problem, site = found[0]
                yield report(
                    use.report_node,
                    "`T.%s`%s: %s (%s%s)" % (use.prim, use.via_text(), problem, site.site.where(),
                                             _more(len(found) - 1)),
                    help="Use float16/bfloat16 (or int8) A/B of one dtype and a float32 (int32) accumulator",
                )


def _cube_problem(use, names, site, chip) -> Optional[str]:
    """TLA130 at one site: what is wrong with the operands' dtypes there, or None."""
    if not site.compiles(use):
        return None
    bufs = [site.buffers.get(n) for n in names]  # type: ignore[arg-type]
    if any(b is None or b.dtype not in DTYPE_BYTES for b in bufs):
        return None
    a, b, c = (x.dtype for x in bufs)  # type: ignore[union-attr]
    if a != b:
        return "A `%s` is %s but B `%s` is %s: the Cube path needs one input dtype" % (names[0], a, names[1], b)
    if c in HALF:
        return "the accumulator `%s` is %s: Cube results are float32 (int32 for int8), BiSheng rejects the " \
               "kernel inside catlass copy_l0c_to_gm" % (names[2], c)
    if a in ("float32", "float") and chip.fp32_cube.value is False and _transpose_b(use, site) is False:
        return "A/B are float32 with transpose_B=False, which the Cube cannot do on %s (the fp32 16x8 fractal " \
               "of B cannot be transposed): the result is NaN" % chip.name
    if a == "int8" and c != "int32":
        return "int8 A/B need an int32 accumulator, `%s` is %s" % (names[2], c)
    return None


@rule(
    code="TLA131",
    name="half-scalar-arith",
    severity=ERROR,
    confidence="high",
    summary="scalar float16/bfloat16 arithmetic in a kernel body, which BiSheng rejects",
    what="""
Reports an assignment in a prim_func body, outside `T.Parallel` (and
`T.vectorized`) loops, that applies `+ - * /` to an element loaded from a
float16 or bfloat16 on-chip buffer (`out[i] = a[i] + b[i]`,
`x = a_ub[k]` then `x * 2`, `acc[i] += v`). The same in a `@T.macro` the
kernel calls (also through other macros, also from another module) is
reported on the kernel's macro call: the macro's buffer parameters are
followed back to the kernel's buffers, whose dtypes are evaluated at each
call site of the factory. What `T.Parallel` vectorises (a macro called
inside one included) and operands wrapped in `T.cast(..., "float32")` are
fine; a plain copy `a[i] = b[i]` has no arithmetic and is fine.
A kernel launched only without `is_npu=True` (a GPU-style `T.Kernel(n)`) is
not judged.
""",
    why="""
The AI Core's scalar unit has no half-precision arithmetic: BiSheng stops
with `error: half precision operation is not allowed in aicore function`,
pointing into the generated `$TMPDIR/tmpXXXX.cpp`, not at your line (#471,
#1504).
""",
    fix="Cast the operands to float32 (`T.cast(a[i], \"float32\")`) and the result back, or vectorise "
        "the loop (`T.tile.add` / `T.tile.mul`, or `T.Parallel` in Developer mode).",
    known_false_positives="None known. A `T.Parallel` loop the compiler cannot vectorise falls back to "
                          "scalar code (commit f6b0b921); it is not reported.",
    references="bug-classes §2.5; #471, #1504; PR #1513, #1697.",
)
def half_scalar_arith(model) -> Iterator[Report]:
    for kernel in model.npu_kernels:
        kf = facts(model, kernel)
        if not any(b.dtype in HALF for site in kf.sites for b in site.buffers.values()) or not kf.scalar_arith:
            continue
        for site_arith in kf.scalar_arith:
            for site in kf.sites:
                if site_arith.via and not any(site.compiles(u) for u in site_arith.uses):
                    continue  # the macro call is in a branch this site drops
                half = [n for n in site_arith.buffers if n in site.buffers and site.buffers[n].dtype in HALF]
                if not half:
                    continue
                buf = site.buffers[half[0]]
                yield report(
                    site_arith.report_node,
                    "scalar %s arithmetic on an element of `%s` outside T.Parallel%s %s: BiSheng rejects it "
                    "(\"half precision operation is not allowed in aicore function\")" % (
                        buf.dtype, buf.name, site_arith.via_text(), site.site.where()),
                    help="Cast the operands with T.cast(..., \"float32\"), or vectorise with T.tile.* / "
                         "T.Parallel",
                )
                break
