"""Expert scopes and pipe names."""
from __future__ import annotations

import ast
from typing import Iterator, Optional

from .. import constants as C
from ..model.calls import argument
from ..model.resolve import UNKNOWN
from ..model.sides import PIPES as VALID_PIPES, SIDE_NAMES
from ..diagnostic import Report
from ..registry import ERROR, report, rule
from . import _fix
from ._text import quoted, source as _source

_TO_V = {"v", "vec", "vector", "aiv", "vec_core", "vector_core"}
_TO_C = {"c", "cube", "aic", "cube_core"}


@rule(
    code="TLA030",
    autofix="""
Unsafe (`--fix --unsafe-fixes`) when the string means exactly one core
(`"Vector"`, `"vec"`, `"v"` -> `"V"`; `"Cube"`, `"c"` -> `"C"`): the literal
is replaced, its quote character kept. Unsafe because it changes what the
kernel does: today every string but `"V"` selects the Cube core, so the block
moves to the Vector core (its buffers, pipes and syncs must suit Vector; TLA031
reports what does not). Otherwise display-only (the advice names both).
""",
    name="scope-name",
    severity=ERROR,
    confidence="high",
    summary='`T.Scope(...)` with a string other than exactly "C" or "V"',
    what="""
Reports `T.Scope("...")` whose literal is not exactly `"C"` or `"V"`
(`"Vector"`, `"Cube"`, `"v"`, `"vec"`, ...), anywhere in the file, and
suggests the letter it most likely means. In a kernel, a name or expression
(`T.Scope(SIDE)`, `T.Scope(SIDES[side])`) is judged by the string it holds
where the kernel is made, when that is the same at every compile site.
""",
    why="""
`T.Scope` writes `resource_scope = 1 if name == "V" else 0`
(`src/ir.cc:495-502`): every string except exactly `"V"` means the Cube core,
with no diagnostic. `T.Scope("Vector")` (the spelling of the `npuir` branch)
therefore compiles Vector code for the Cube core.
""",
    fix='Write `T.Scope("V")` for Vector code and `T.Scope("C")` for Cube code.',
    known_false_positives="""
None known. A non-literal argument is judged only in a kernel, by the value it has at every
compile site (a macro's parameter is not followed). `"Cube"` and `"Vector"` are the two
scopes of the AscendNPU IR dialect (branch `npuir`, whose `src/ir.cc` `Scope()` sets
the Vector scope for `scope_name == "Vector"` and Cube for anything else): like every
Ascend C rule, this one does not judge a kernel compiled with `target="npuir"`, nor one
whose target is unknown and that is written in that dialect (a `"Cube"`/`"Vector"`
scope or a `T.npuir_*` primitive). A kernel with no `target=` follows the `target`
setting (`target = "npuir"` for a project that is all NPUIR); with no setting it is
Ascend C unless it is written only in the npuir dialect (nothing of Ascend C's: no
`T.tile.*`, `T.gemm_v0`, `T.barrier_all`, cross flag or `TL_ASCEND_*` switch), which
is not judged: the `npuir` branch's own `jit` defaults to `target="npuir"`.
""",
    references='`src/ir.cc:495-502` (branch `ascendc_pto`); branch `npuir` (bd7c60c) `src/ir.cc` '
               '`Scope()` tests `scope_name == "Vector"`.',
)
def scope_name(model) -> Iterator[Report]:
    for use in model.all_uses:
        if use.prim != "Scope":
            continue
        name = model.scope_name_of(use)
        if name in (None, "?", "C", "V"):
            continue
        low = name.lower()
        meant = "V" if low in _TO_V or low.startswith("v") else "C" if low in _TO_C or low.startswith("c") else None
        title = 'Use `T.Scope("%s")`' % meant if meant else 'Use `T.Scope("C")` or `T.Scope("V")`'
        arg = argument(use.call, 0, "name") if isinstance(use.call, ast.Call) else None
        literal = arg is None or isinstance(arg, ast.Constant)
        edits = _fix.replace_string(arg, meant) if meant and literal else None
        if not literal:
            shown = _source(arg)
            title = ('Make `%s` "%s"' % (shown, meant)) if meant else 'Make `%s` "C" or "V"' % shown
        yield report(
            use,
            ('`T.Scope(%s)`' % quoted(name) if literal else
             '`T.Scope(%s)` passes %s, which' % (_source(arg), quoted(name)))
            + ' silently selects the Cube core: only the exact string "V" selects Vector',
            help=title,
            fix=_fix.fix(title, edits, _fix.UNSAFE) if edits else None,
        )


@rule(
    code="TLA034",
    name="npuir-scope-name",
    severity=ERROR,
    confidence="high",
    since="0.3.0",
    dialects=("npuir",),
    summary='`T.Scope("V")` (or another Vector spelling) in an AscendNPU IR kernel, where only "Vector" selects Vector',
    what="""
Reports `with T.Scope("V")` -- and the other strings that mean the Vector
core (`"v"`, `"vec"`, `"vector"`, `"AIV"`) -- in a kernel whose compile sites
all say `target="npuir"` (or that has none and the `target` setting is
`"npuir"`). The mirror of TLA030, for the other dialect.
""",
    why="""
On the AscendNPU IR route (branch `npuir`), `Scope()` in `src/ir.cc` sets the
Vector scope only for the exact string `"Vector"`; every other string is the
Cube scope, with no diagnostic. `T.Scope("V")`, the Ascend C spelling, therefore
compiles the block for the Cube core: code ported from the `ascendc_pto` branch
runs its Vector work on the wrong core.
""",
    fix='Write `T.Scope("Vector")` (and `T.Scope("Cube")`) in AscendNPU IR kernels.',
    autofix="""
Unsafe (`--fix --unsafe-fixes`): the literal becomes `"Vector"`, its quote
character kept. Unsafe because it changes what the kernel does: the block moves
from the Cube core, where it runs today, to the Vector core.
""",
    known_false_positives="""
None known. A kernel whose target is unknown, or that is compiled for both
dialects, is not judged; neither is a scope inside a `@T.macro` helper (a helper
may serve kernels of both dialects). `T.Scope("C")` is not reported: on this
route every string but `"Vector"` selects Cube, so it does what it says.
""",
    references='branch `npuir` of tile-ai/tilelang-ascend, `src/ir.cc` `Scope()`: `scope_id = 1` only for '
               '`scope_name == "Vector"`; its examples spell `T.Scope("Cube")` / `T.Scope("Vector")`. '
               'TLA030 is the Ascend C side.',
)
def npuir_scope_name(model) -> Iterator[Report]:
    for kernel in model.kernels:
        if kernel.dialect != C.NPUIR:
            continue  # every compile site must be known to be AscendNPU IR
        for ku in kernel.uses_of("Scope"):
            use = ku.use
            name = use.scope_name
            if ku.via or name in (None, "?", "Vector") or not isinstance(name, str):
                continue
            if name.lower() not in _TO_V:
                continue
            arg = argument(use.call, 0, "name") if isinstance(use.call, ast.Call) else None
            title = 'Use `T.Scope("Vector")`'
            yield report(
                arg if arg is not None else use,
                '`T.Scope(%s)` selects the Cube core on AscendNPU IR (target "npuir"): only the exact '
                'string "Vector" selects Vector' % quoted(name),
                help=title,
                fix=_fix.fix(title, _fix.replace_string(arg, "Vector") if arg is not None else None, _fix.UNSAFE),
            )


def _op_side(kernel, use) -> Optional[str]:
    if use.prim in ("gemm_v0", "mma", "copy") or use.prim.startswith(("tile.", "reduce_")):
        side = kernel.side(use)
        return side if side in ("C", "V") else None
    return None


@rule(
    code="TLA031",
    name="op-in-wrong-scope",
    severity=ERROR,
    confidence="high",
    summary='a Cube op inside `T.Scope("V")` or a Vector op inside `T.Scope("C")`',
    what="""
Reports a Cube op (`T.gemm_v0`, `T.mma`, a copy touching an `alloc_L1`/
`alloc_L0*` buffer) inside `T.Scope("V")`, and a Vector op (`T.tile.*`,
`T.reduce_*`, a copy touching an `alloc_ub` buffer) inside `T.Scope("C")`,
directly or through a macro. Only Expert allocations count: the compiler
infers the core of `alloc_shared`/`alloc_fragment` buffers. Only scopes named
exactly "C" or "V" are judged (TLA030 reports the others); a name passed as a
Python value (`T.Scope(side)`, `side = "C" if cube else "V"` in the factory,
or a module constant) is judged by the string it holds in every frame the
file compiles the kernel in, when they agree. A `T.tile.*` name
TileLang-Ascend does not define (a fork's `T.tile.im2col`, which is Cube work)
has no known core and is not judged.
""",
    why="""
The scope decides which binary the code is compiled into: Vector instructions
in the AIC binary (or the reverse) fail to build in bisheng or trap as an
illegal instruction. Newer compilers reject it in their C/V ownership check
(tile-ai/tilelang-ascend #1606).
""",
    fix="Move the op into the scope of its core.",
    known_false_positives="None known.",
    references="tile-ai/tilelang-ascend #1606 (ownership table); `codegen_ascend_pto.cc:3017-3040`.",
)
def op_in_wrong_scope(model) -> Iterator[Report]:
    for kernel in model.kernels:
        for use in kernel.uses_for(None):
            scope = use.scope_kind
            if use.maybe or scope not in ("C", "V"):
                continue
            side = _op_side(kernel, use)
            if side is not None and side != scope:
                yield report(
                    use,
                    '%s%s is %s work inside T.Scope("%s"): it is compiled into the %s binary (build '
                    "failure or illegal instruction)" % (
                        use.describe(), use.via_text(), SIDE_NAMES[side], scope, SIDE_NAMES[scope]),
                    help='Move it into `T.Scope("%s")`' % side,
                )


@rule(
    code="TLA032",
    autofix="""
Unsafe (`--fix --unsafe-fixes`), in `T.Scope("C")` only: a literal Vector pipe
becomes `"FIX"` (the Cube core's pipe for a cross flag; case kept). Unsafe
because the side comes from the enclosing scope (the rule's confidence is
medium) and the flag is then raised at another point. In `T.Scope("V")`
both `"MTE3"` and `"V"` are valid, so there is no fix; a pipe passed in from
elsewhere has none either.
""",
    name="cross-flag-pipe-vs-scope",
    severity=ERROR,
    confidence="medium",
    summary="`T.set_cross_flag` with a pipe of the other core for its scope",
    what="""
Reports `T.set_cross_flag("FIX" / "M" / "MTE1", ...)` inside `T.Scope("V")`, and
`T.set_cross_flag("V" / "MTE3", ...)` inside `T.Scope("C")`, directly or
through a macro whose argument resolves.
""",
    why="""
A cross-core flag is raised when the given pipe of the *current* core drains.
The Vector core has no FIX/M/MTE1 pipe and the Cube core no V/MTE3 pipe; the
TileLang-Ascend API notes report "Illegal instruction (unaligned UUB
addresses)" for FIX on the Vector side [not reproduced here].
""",
    fix='Use `"MTE3"` (or `"V"`) in `T.Scope("V")` and `"FIX"` in `T.Scope("C")`.',
    known_false_positives="None known.",
    references="tile-ai/tilelang-ascend `.agents/skills/.../api-schedule-sync.md:186-193`; "
               "`tilelang/language/ascend.py:116-135`.",
)
def cross_flag_pipe_vs_scope(model) -> Iterator[Report]:
    wrong = {"V": {"fix", "m", "mte1"}, "C": {"v", "mte3"}}
    for kernel in model.kernels:
        for use in kernel.uses_of("set_cross_flag"):
            scope = use.scope_kind
            if scope not in wrong:
                continue
            pipe = kernel.arg_value(use, 0, "pipe")
            if isinstance(pipe, str) and pipe.lower() in wrong[scope]:
                good = "MTE3" if scope == "V" else "FIX"
                edits = None
                written = good if pipe.isupper() else good.lower()  # the case the code uses
                arg = argument(use.use.call, 0, "pipe")
                if scope == "C" and not use.via and isinstance(arg, ast.Constant):
                    # the Cube core has one pipe to raise a cross flag from
                    edits = _fix.replace_string(arg, written)
                yield report(
                    use,
                    '`T.set_cross_flag(%s)`%s in T.Scope("%s") names a pipe the %s core does not have '
                    "(illegal instruction)" % (quoted(pipe), use.via_text(), scope, SIDE_NAMES[scope]),
                    help='Use "%s"' % good,
                    # the title says what the edit writes
                    fix=_fix.fix('Use "%s"' % written, edits, _fix.UNSAFE) if edits else None,
                )


@rule(
    code="TLA033",
    autofix="""
Unsafe (`--fix --unsafe-fixes`), and only when exactly one valid pipe is
within reach (one letter added, dropped, changed or two swapped: `"mte22"` ->
`"mte2"`, upper case kept), or for a pipe's long name (`"vec"`/`"vector"` ->
`"v"`, `"scalar"` -> `"s"`, `"fixpipe"` -> `"fix"`, `"cube"` -> `"m"`): the
literal is replaced. Unsafe because it writes
a pipe name the code did not have: which pipe a sync waits on is the
kernel's meaning, and the compile error made a human look. Display-only when several are (`"mte"` is mte1, mte2 or
mte3: a wrong guess would be a silent wrong sync where the compile error
forced a look), when none is, and for a pipe passed in from elsewhere (a
constant, a macro argument).
""",
    name="invalid-pipe-name",
    severity=ERROR,
    confidence="high",
    summary="a pipe name that is not one of fix, mte1, mte2, mte3, m, v, s",
    what="""
Reports a pipe string in `T.set_flag` / `T.wait_flag` (both pipes),
`T.pipe_barrier` and `T.set_cross_flag` that is not fix, mte1, mte2, mte3, m,
v or s (any case; `T.pipe_barrier("all")` is valid). A literal is reported
where it is written, in any function; a pipe passed in (a constant, a macro
argument) is reported where the kernel reaches it; an unresolved pipe is not
checked.
""",
    why="""
The pipe is emitted verbatim as `PIPE_<X>` (`tilelang/language/ascend.py:8,135,
173,226`), so a typo only surfaces as a bisheng compile error on a machine
with the Ascend toolchain.
""",
    fix="Use one of the valid pipe names; the help text suggests the nearest.",
    known_false_positives="None known.",
    references="`tilelang/language/ascend.py:8` (the pipe Literal), `:135`, `:173`, `:226`.",
)
def invalid_pipe_name(model) -> Iterator[Report]:
    positions = {"set_flag": ((0, "src"), (1, "dst")), "wait_flag": ((0, "src"), (1, "dst")),
                 "pipe_barrier": ((0, "pipe"),), "set_cross_flag": ((0, "pipe"),)}

    def within_reach(pipe):
        """The valid pipes one edit away (a letter added, dropped, changed or
        two swapped), or the one a known long name means (`"vec"` is `v`)."""
        low = pipe.lower()
        if low in _PIPE_ALIASES:
            return [_PIPE_ALIASES[low]]
        return sorted(p for p in VALID_PIPES if _one_edit(low, p))

    def suggestion(pipe):
        near = within_reach(pipe)
        if len(near) == 1:  # exactly one valid pipe within reach: the fix
            return near[0].upper() if pipe.isupper() else near[0]
        return None

    def bad(prim, pipe):
        if not isinstance(pipe, str):
            return None
        low = pipe.lower()
        if low in VALID_PIPES or (prim == "pipe_barrier" and low == "all"):
            return None
        near = within_reach(pipe)
        if len(near) == 1:
            return 'Use "%s"' % suggestion(pipe)
        if near:
            return "Did you mean %s? (more than one pipe is one letter away: check by hand)" % " or ".join(
                '"%s"' % p for p in near)
        return "Use one of fix, mte1, mte2, mte3, m, v, s"

    def message(prim, via, pipe):
        return ("`T.%s`%s uses invalid pipe %s: it is emitted verbatim as a PIPE_* name and fails to "
                "compile" % (prim, via, quoted(pipe)))

    # a literal pipe is reported where it is written, in any function (also a
    # macro no kernel calls yet)
    for use in model.all_uses:
        if use.prim not in positions or not isinstance(use.call, ast.Call):
            continue
        for index, keyword in positions[use.prim]:
            arg = argument(use.call, index, keyword)
            if isinstance(arg, ast.Constant):
                hint = bad(use.prim, arg.value)
                if hint is not None:
                    near = suggestion(arg.value)
                    edits = _fix.replace_string(arg, near) if near else None
                    yield report(use, message(use.prim, "", arg.value), help=hint,
                                 fix=_fix.fix(hint, edits, _fix.UNSAFE))
    # a pipe passed in (a constant, a macro argument) is reported where the
    # kernel reaches it
    for kernel in model.kernels:
        for use in kernel.uses_of(*positions):
            for index, keyword in positions[use.prim]:
                arg = argument(use.use.call, index, keyword)
                if arg is None or isinstance(arg, ast.Constant):
                    continue
                pipe = kernel.arg_value(use, index, keyword)
                hint = bad(use.prim, pipe) if pipe is not UNKNOWN else None
                if hint is not None:
                    # written elsewhere (a constant, a macro argument): shown, never applied
                    yield report(use, message(use.prim, use.via_text(), pipe), help=hint,
                                 fix=_fix.fix(hint, None, _fix.DISPLAY_ONLY))


# the long names of a pipe (`PIPE_V` is the vector unit, `PIPE_S` the scalar unit, `PIPE_FIX` the fixpipe)
_PIPE_ALIASES = {"vec": "v", "vector": "v", "scalar": "s", "fixpipe": "fix", "cube": "m"}


def _one_edit(a: str, b: str) -> bool:
    """``a`` and ``b`` differ by one insertion, deletion, substitution or
    transposition of adjacent letters."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


def _close(word, candidates, n=1, cutoff=0.6):
    import difflib  # only when there is a typo to suggest a fix for

    return difflib.get_close_matches(word, candidates, n=n, cutoff=cutoff)
