"""Rules about ``with T.Kernel(...)`` launches."""
from __future__ import annotations

import ast
from typing import Iterator

from ..model.resolve import UNKNOWN
from ..diagnostic import Report
from ..registry import ERROR, INFO, WARNING, report, rule
from . import _fix
from ._text import quoted


def _sites(found) -> str:
    """`` at the compile site at line 12`` / ``s at lines 12, 14``: where a
    launch whose ``threads`` differs between sites has the value judged."""
    lines = sorted({line for line, _ in found if line is not None})
    if not lines:
        return " at a compile site"
    if len(lines) == 1:
        return " at the compile site at line %d" % lines[0]
    return " at the compile sites at lines %s" % ", ".join(str(n) for n in lines)


def _count(value) -> int:
    return value[0] if isinstance(value, (list, tuple)) else value


def _illegal(value) -> list:
    """What is wrong with a known ``threads`` value on the NPU (empty: legal)."""
    problems = []
    if isinstance(value, (list, tuple)):
        if len(value) != 1:
            problems.append("threads=%s (must hold exactly one value)" % quoted(value))
        elif type(value[0]) is not int or value[0] not in (1, 2):
            problems.append("threads=%s (must be 1 or 2)" % quoted(value))
    elif type(value) is not int:
        problems.append("threads=%s (must be an int, list or tuple)" % quoted(value))
    elif value not in (1, 2):
        problems.append("threads=%d (must be 1 or 2 on the NPU)" % value)
    return problems


def _at(launch):
    """Where a launch finding starts: the ``T.Kernel(...)`` call, on the
    ``with`` statement's line (where a ``# noqa`` goes); a parenthesised
    ``with (`` whose call starts on a later line keeps the statement's line."""
    if launch.call.lineno == launch.line:
        return launch.call
    return (launch.line, launch.call.col_offset)


@rule(
    code="TLA003",
    since="0.1.0",
    autofix="""
Unsafe (`--fix --unsafe-fixes`): rewrites `as (cid, vid)` to `as cid` when
the launch body never names the other targets. When the body reads `vid`
there is no mechanical edit (the split has to be rewritten): the advice is
shown only.
""",
    name="vid-with-threads",
    severity=ERROR,
    confidence="high",
    summary="`vid` used with a `T.Kernel(..., threads=N, is_npu=True)` launch, which binds only `cid`",
    what="""
For a launch `T.Kernel(..., threads=N, is_npu=True)` with `N` resolved to 1 or
2 (a literal, a module- or factory-level constant, or a one-element
list/tuple), reports the `with` line when the `as` target is a tuple or list
(`as (cid, vid)`, `as (cid,)`), and each line inside the launch that reads a
`vid` the prim_func never binds. `as (cid)` is a plain name and is fine; a
`vid` the kernel assigns or loops over is not a finding. The kernel's
pass_configs play no part.
""",
    why="""
With `threads` set, `KernelLaunchFrame.__enter__` returns a single variable,
`cid` (`tilelang/language/kernel.py:88-104`). `as (cid, vid)` then fails to
unpack while the TVMScript parser binds the target, so the kernel never
compiles. A leftover `vid` is an undefined name (a parse error), or, if a
Python `vid` exists in an enclosing scope, a constant: with `threads=2`,
AscendVidReduction already adds the vector-core offset to every GM<->UB copy
and halves UB buffers (`src/transform/ascend_vid_reduction.cc:96-98,306-309`),
so a hand-written `vid * half` offset applies twice (wrong rows, out-of-bounds
GM access). With `threads=1` there is one vector core per Cube core and no
`vid` at all.
""",
    fix="""
Bind only `cid` (`as cid`) and drop the `vid` offsets: size UB buffers to the
full tile and let the compiler split the rows between the vector cores. To
keep the hand-written split, remove `threads=` (Expert launch, `as (cid, vid)`).
""",
    known_false_positives="""
None known. `threads` that cannot be resolved is not checked. A factory
parameter (`threads=nthreads`) is read per compile site (`make(M, N,
nthreads=1)`): when the sites disagree, the finding names the sites where
`threads` is 1 or 2, and a site whose value cannot be told says nothing.
""",
    references="""
- `tilelang/language/kernel.py:88-104, 249-262`; `src/ir.cc:262-287`
- `docs/tutorials/vid_reduction_and_auto_cv_ratio.md`
- mode guide §3.1.1 (threads=2 -> vid elimination)
""",
)
def vid_with_threads(model) -> Iterator[Report]:
    for kernel in model.kernels:
        for launch in kernel.launches:
            n = launch.threads_count
            where = ""
            if n is None:
                # `threads` differs between compile sites: judged where it is 1 or 2
                found = launch.sites_where(lambda v: not _illegal(v))
                if found and launch.is_npu is True:
                    counts = sorted({_count(v) for _, v in found})
                    n = counts[0] if len(counts) == 1 else None
                    where = _sites(found)
                    if n is None:  # 1 at some sites, 2 at others
                        n = counts[-1]
            if n is None or launch.is_npu is not True:
                continue
            shown = "1 or 2" if where and len({_count(v) for _, v in launch.sites_where(lambda v: not _illegal(v))}) > 1 \
                else str(n)
            after = ("the compiler adds the vector-core offset itself" if n == 2
                     else "threads=1 runs one vector core per Cube core")
            if launch.target_is_sequence:
                advice = "Write `as cid` and drop the `vid` offsets (%s)" % after
                yield report(
                    _at(launch),
                    "`T.Kernel(..., threads=%s, is_npu=True)`%s binds only `cid`: a tuple `as` target fails "
                    "to unpack and the kernel never compiles" % (shown, where),
                    help=advice,
                    # with threads differing per site, only when every site is Developer
                    fix=_fix.fix(_single_target_title(launch), _single_target(launch), _fix.UNSAFE)
                    if not where or len(launch.sites_where(lambda v: not _illegal(v))) == len(launch.site_threads)
                    else None,
                    end_at=launch.target,
                )
            for node in launch.unbound_vid_reads:
                yield report(
                    node,
                    "`%s` is not bound by the threads=%s launch at line %d%s: an undefined name, or an outer "
                    "value whose offset the compiler applies twice" % (node.id, shown, launch.line, where),
                    help="Drop the `vid` offset (%s)" % after,
                )


@rule(
    code="TLA020",
    name="expert-launch-single-target",
    severity=ERROR,
    confidence="high",
    summary="Expert `T.Kernel(n, is_npu=True)` (no `threads`) bound to a single name",
    what="""
Reports `with T.Kernel(n, is_npu=True) as cid:` (also `as (cid)`, which is the
same thing) when `threads` is not given and the body uses `cid` as a number
(`cid // n`, `A[cid * block_M, 0]`): an Expert launch binds two values.
A `threads` factory parameter that is `None` at some compile sites (and
something else at others) is reported with those sites. A body that only
unpacks or indexes the name (`cid, vid = ids`, `ids[0]`), hands it to a
call, or assigns it again is fine with a list and is not reported.
""",
    why="""
Without `threads`, `KernelLaunchFrame.__enter__` returns the list `[cid, vid]`
(`tilelang/language/kernel.py:101-102`): `cid` is then a Python list, and the
first `cid // n_num` fails while the kernel is parsed.
""",
    fix="Bind both: `as (cid, vid)` (or `as (cid, _)`), or add `threads=2` for a Developer launch "
        "that binds only `cid`.",
    known_false_positives="None known.",
    references="`tilelang/language/kernel.py:88-104`; parser `bind_with_value` "
               "(`tilelang/language/parser/parser.py:66-69`).",
)
def expert_launch_single_target(model) -> Iterator[Report]:
    for kernel in model.kernels:
        for launch in kernel.launches:
            if launch.is_npu is not True or not isinstance(launch.target, ast.Name) \
                    or not launch.target_number_reads():
                continue
            where = ""
            if not launch.expert:
                found = launch.sites_where(lambda v: v is None)  # threads=None at some sites: Expert there
                if not found:
                    continue
                where = _sites(found)
            if True:
                yield report(
                    _at(launch),
                    "`T.Kernel(..., is_npu=True)` without `threads`%s yields `[cid, vid]`: `%s` is a list "
                    "and the kernel fails to parse" % (where, launch.target.id),
                    help="Write `as (%s, vid)`, or add `threads=2` to let the compiler split the vector "
                         "cores" % launch.target.id,
                    end_at=launch.target,
                )


@rule(
    code="TLA021",
    name="invalid-npu-launch",
    severity=ERROR,
    confidence="high",
    summary="`T.Kernel(..., is_npu=True)` with an illegal `threads` or more than one grid dimension",
    what="""
With `is_npu=True`, reports a resolvable `threads` other than 1 or 2 (an int,
or a one-element list/tuple), a `threads` list of more than one value or of
another type, and more than one grid argument. Unresolvable values are not
checked. A `threads` factory parameter is read per compile site: when the
sites disagree, each illegal value is reported with the sites that pass it.
`threads` spread from a dict (`**LAUNCH`) counts as the keyword, and a grid
spread from a tuple (`T.Kernel(*grid, is_npu=True)`) is counted at each
compile site.
""",
    why="""
The NPU launch asserts exactly one grid dimension and `threads` in {1, 2}
(`tilelang/language/kernel.py:248-261`, `src/ir.cc:250,262,280-281`): anything
else is an `AssertionError` or `TypeError` while the kernel is built. GPU-style
`threads=128` is the usual slip when porting a CUDA TileLang kernel.
""",
    fix="One grid argument (flatten the grid: `T.Kernel(m_num * n_num, ...)`) and `threads=2` "
        "(Developer, compiler-split vector cores), `threads=1`, or no `threads` (Expert).",
    known_false_positives="None known.",
    references="`tilelang/language/kernel.py:240-263`; `src/ir.cc:244-287`.",
)
def invalid_npu_launch(model) -> Iterator[Report]:
    for kernel in model.kernels:
        for launch in kernel.launches:
            if launch.is_npu is not True:
                continue
            problems = []
            args = launch.grid_args
            if len(args) > 1 and not any(isinstance(a, ast.Starred) for a in args):
                problems.append("%d grid arguments (an NPU launch takes exactly one)" % len(args))
            else:  # a grid spread from a sequence: counted at each compile site
                many = [(line, n) for line, n in launch.site_grids if n is not None and n > 1]
                for n in sorted({n for _, n in many}):
                    problems.append("%d grid arguments (an NPU launch takes exactly one)%s"
                                    % (n, _sites([s for s in many if s[1] == n])))
            value = launch.threads
            if value is not UNKNOWN and value is not None:  # the keyword, or a `**` spread's
                problems.extend(_illegal(value))
            elif value is UNKNOWN:
                # `threads` differs between compile sites: each illegal value, where it is passed
                found = launch.sites_where(lambda v: v is not None and bool(_illegal(v)))
                for shown in dict.fromkeys(repr(v) for _, v in found):
                    at = [(line, v) for line, v in found if repr(v) == shown]
                    problems.extend(p + _sites(at) for p in _illegal(at[0][1]))
            if problems:
                yield report(
                    _at(launch),
                    "invalid NPU launch, %s: building the kernel fails with an assertion" % " and ".join(problems),
                    help="Use one flattened grid argument and threads=2, threads=1 or no threads",
                    end_at=launch.call,
                )


@rule(
    code="TLA022",
    name="threads2-manual-vector-split",
    severity=WARNING,
    confidence="medium",
    summary="hand-halved on-chip buffer under `threads=2`, which halves it again",
    what="""
Under a `T.Kernel(..., threads=2, is_npu=True)` launch, reports an `alloc_ub`
or `alloc_shared` whose first dimension is written `X // 2` (or `X // VEC_NUM`
with `VEC_NUM = 2`). Opt-in style rule.
""",
    why="""
With `threads=2` the compiler's AscendVidReduction already halves the first
dimension of every UB buffer and adds each vector core's offset
(`src/transform/ascend_vid_reduction.cc:96-130,306-330`). A buffer halved by
hand is halved again: each core handles a quarter of the tile. Open bug #1800
also halves tile-op lengths inside row loops.
""",
    fix="Size on-chip buffers to the full tile (`block_M`, not `block_M // 2`).",
    known_false_positives="A dimension that is legitimately halved for another reason; that is why the "
                          "rule is opt-in.",
    references="`src/transform/ascend_vid_reduction.cc:96-130,306-330`; "
               "`docs/tutorials/vid_reduction_and_auto_cv_ratio.md`; tile-ai/tilelang-ascend #1800.",
    default_enabled=False,
)
def threads2_manual_vector_split(model) -> Iterator[Report]:
    for kernel in model.kernels:
        if not any(l.threads_count == 2 and l.is_npu is True for l in kernel.launches):
            continue
        for use in kernel.uses_of("alloc_ub", "alloc_shared"):
            if use.via:
                continue
            call = use.use.call
            shape = call.args[0] if isinstance(call, ast.Call) and call.args else None
            first = shape.elts[0] if isinstance(shape, (ast.Tuple, ast.List)) and shape.elts else None
            if halved_by_hand(kernel, first):
                yield report(
                    use,
                    "`T.%s` is halved by hand under threads=2, where the compiler halves it again: each "
                    "vector core gets a quarter tile" % use.prim,
                    help="Size it to the full tile",
                )


@rule(
    code="TLA090",
    name="expert-vid-unused",
    severity=WARNING,
    confidence="medium",
    summary="Expert launch whose `vid` is never read: both vector cores do the same work",
    what="""
Reports an Expert launch (`is_npu=True`, no `threads`) of a kernel with Vector
work whose second target is `_` or never read. Cube-only work (including
`T.tile.atomic_add` from an L0C buffer) is exempt. A `threads` factory
parameter that is `None` at some compile sites makes the launch Expert there:
reported with those sites. Opt-in style rule.
""",
    why="""
An Expert launch runs two vector cores (AIV) per Cube core; without `vid`
both run identical code: duplicated GM writes, and doubled results for
atomics.
""",
    fix="Split the rows by `vid` (`row = cid * block_M + vid * (block_M // 2)`), or use `threads=2` "
        "and let the compiler split them.",
    known_false_positives="Kernels that rely on the doubling on purpose (some atomic-add tests). "
                          "That is why the rule is opt-in.",
    references="mode guide §3.1.1; tile-ai/tilelang-ascend "
               "`testing/python/language/test_tilelang_ascend_language_tile_atomic_add.py`.",
    default_enabled=False,
)
def expert_vid_unused(model) -> Iterator[Report]:
    for kernel in model.kernels:
        for launch in kernel.launches:
            expert_sites = [] if launch.expert else launch.sites_where(lambda v: v is None)
            if launch.is_npu is not True or not (launch.expert or expert_sites) \
                    or not isinstance(launch.target, (ast.Tuple, ast.List)) or len(launch.target.elts) != 2:
                continue
            vid = launch.target.elts[1]  # the vector-core id, whatever its name
            if not isinstance(vid, ast.Name) or (vid.id != "_" and launch.vid_reads(first=True)):
                continue
            if not any(kernel.side(u) == "V" for u in kernel.uses_for(None) if not u.maybe):
                continue
            yield report(
                _at(launch),
                "`%s` is never read: both vector cores of this Expert launch%s do the same work "
                "(duplicated writes, doubled atomics)" % (vid.id, _sites(expert_sites) if expert_sites else ""),
                help=("Split the rows by `%s`, or use threads=2" % vid.id if vid.id != "_"
                      else "Bind `vid` and split the rows by it, or use threads=2"),
                end_at=vid,
            )


@rule(
    code="TLA091",
    name="threads2-explicit-workspace",
    severity=INFO,
    confidence="medium",
    summary="`threads=2` kernel that still passes an explicit GM workspace",
    what="""
Reports a `threads=2` launch in a kernel whose jit decorator has
`workspace_idx=` or whose parameters are named `workspace*`. Opt-in style rule.
""",
    why="""
The recommended Developer CV form (mode guide §3.1.1, §6.5) lets the compiler
move data between the cores on chip; an explicit GM workspace is supported
but costs two GM round trips and manual offsets.
""",
    fix="Remove `workspace_idx` and the `workspace_*` parameters and copy between on-chip buffers "
        "directly (`T.copy(c_frag, c_shared)`).",
    known_false_positives="Complex multi-stage pipelines that deliberately keep the workspace "
                          "(mode guide §7).",
    references="mode guide §3.1.1; `testing/python/language/cvseparate/"
               "test_tilelang_ascend_language_vid_reduction.py` (supported form).",
    default_enabled=False,
)
def threads2_explicit_workspace(model) -> Iterator[Report]:
    for kernel in model.kernels:
        launch = next((l for l in kernel.launches if l.threads_count == 2 and l.is_npu is True), None)
        if launch is None:
            continue
        params = [p for p in _param_names(kernel.func) if p.startswith("workspace")]
        has_idx = any(isinstance(s.site.node, ast.Call)
                      and any(kw.arg == "workspace_idx" for kw in s.site.node.keywords)
                      for s in kernel.sites)
        if params or has_idx:
            what = "parameter `%s`" % params[0] if params else "`workspace_idx`"
            yield report(
                _at(launch),
                "threads=2 kernel with an explicit GM workspace (%s): two GM round trips for data the "
                "compiler can move on chip" % what,
                help="Drop the workspace and copy between on-chip buffers",
                end_at=launch.call,
            )


def halved_by_hand(kernel, first) -> bool:
    """A tile dimension written ``X // 2`` (also ``X // VEC_NUM`` with
    ``VEC_NUM = 2``, or a name bound to either): split by hand between the two
    vector cores, which the threads=2 vid-reduction pass would split again.
    TLA022 and ``migrate`` (which then keeps the launch Expert) share it."""
    if isinstance(first, ast.Name):  # half = block_M // 2
        first = kernel.binding(first.id)
    return isinstance(first, ast.BinOp) and isinstance(first.op, ast.FloorDiv) and kernel.const(first.right) == 2


def _param_names(fn) -> list:
    args = fn.node.args
    return [a.arg for a in list(args.posonlyargs) + list(args.args) + list(args.kwonlyargs)]


def _single_target_title(launch) -> str:
    """What ``_single_target``'s edit writes: ``as cid`` (the first target's name)."""
    elts = getattr(launch.target, "elts", None) or ()
    first = elts[0].id if elts and isinstance(elts[0], ast.Name) else "cid"
    return "Write `as %s` (bind only the core id)" % first


def _single_target(launch):
    """``as (cid, vid)`` -> ``as cid`` when the launch body never names the
    other targets (else the edit would leave them undefined: advice only)."""
    target = launch.target
    if not isinstance(target, (ast.Tuple, ast.List)) or not target.elts:
        return None
    first = target.elts[0]
    if not isinstance(first, ast.Name) or not all(isinstance(e, ast.Name) for e in target.elts):
        return None
    others = {e.id for e in target.elts[1:]} - {first.id}
    for stmt in getattr(launch.with_stmt, "body", ()):
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and node.id in others:
                return None
    return _fix.replace_node(target, first.id)
