"""Rules about ``with T.Kernel(...)`` launches."""
from __future__ import annotations

from typing import Iterator

from ..registry import ERROR, Diagnostic, rule


@rule(
    code="TLA003",
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
None known. `threads` that cannot be resolved (a factory parameter) is not
checked.
""",
    references="""
- `tilelang/language/kernel.py:88-104, 249-262`; `src/ir.cc:262-287`
- `docs/tutorials/vid_reduction_and_auto_cv_ratio.md`
- mode guide §3.1.1 (threads=2 -> vid elimination)
""",
)
def vid_with_threads(model) -> Iterator[Diagnostic]:
    for kernel in model.kernels:
        for launch in kernel.launches:
            n = launch.threads_count
            if n is None or launch.is_npu is not True:
                continue
            after = ("the compiler adds the vector-core offset itself" if n == 2
                     else "threads=1 runs one vector core per Cube core")
            if launch.target_is_sequence:
                yield Diagnostic(
                    "TLA003", launch.line, launch.call.col_offset,
                    "`T.Kernel(..., threads=%d, is_npu=True)` binds only `cid`, so a tuple `as` target "
                    "fails to unpack and the kernel never compiles; write `as cid` and drop the `vid` "
                    "offsets (%s)" % (n, after),
                    ERROR,
                )
            for node in launch.unbound_vid_reads:
                yield Diagnostic(
                    "TLA003", node.lineno, node.col_offset,
                    "`vid` is not bound by `T.Kernel(..., threads=%d, is_npu=True)` (line %d), which binds "
                    "only `cid`: it is an undefined name, or an outer Python value whose offset the "
                    "compiler then applies twice; drop the `vid` offset (%s)" % (n, launch.line, after),
                    ERROR,
                )
