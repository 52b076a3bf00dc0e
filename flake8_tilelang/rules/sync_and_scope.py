"""Hand-written scopes and syncs that contradict the compiler switches."""
from __future__ import annotations

from typing import Iterator

from .. import constants as C
from ..diagnostic import Report
from ..registry import ERROR, WARNING, report, rule
from . import _fix


def _call_text(use) -> str:
    call = use.use.call
    if use.prim == "Scope" and _scope_literal(use) != "?":
        return 'T.Scope("%s")' % _scope_literal(use)
    return "T.%s(...)" % use.prim if (call.args or call.keywords) else "T.%s()" % use.prim


@rule(
    code="TLA001",
    since="0.1.0",
    autofix="""
Unsafe (`--fix --unsafe-fixes`): deletes the `with T.Scope(...):` header and
dedents its body one level. A comment after the header's colon stays, on a
line of its own; comments in the body move with it; lines inside a
multi-line string are never re-indented. It changes what the kernel says
about its sides, so it is never applied by plain `--fix`. No fix when the
scope is inside a `@T.macro` (reported on the macro call), when a kernel
compiled with COMBINE off reaches the same scope, for `with T.Scope(...) as
x`, several `with` items, or a body on the header's line. A nested scope is
unwrapped on the next pass of the same run.
""",
    name="scope-under-auto-cv-combine",
    severity=WARNING,
    tiers=((ERROR, "when the kernel has both a Cube and a Vector scope, hand-written cross-core flags, "
                   "or a scope that opens with a sync"),),
    confidence="high",
    summary="`with T.Scope(...)` in a kernel compiled with TL_ASCEND_AUTO_CV_COMBINE on",
    what="""
Reports each `with T.Scope(...)` in a kernel whose `pass_configs` turn
`TL_ASCEND_AUTO_CV_COMBINE` on, including scopes inside `@T.macro` helpers the
kernel calls (reported on the macro call in the kernel). It is an error when
the kernel has both a Cube and a Vector scope, hand-written cross-core flags,
or a scope whose first statement is a sync; otherwise (for example a kernel
with only `T.Scope("V")`) it is a warning.
""",
    why="""
With COMBINE on, the CombineCV pass re-emits the whole kernel twice, once for
the Cube core and once for the Vector core, and decides the side of every
statement with its own classifier (`src/transform/ascend_combinecv.cc:702-767`).
It does not recognise the `resource_scope` a `T.Scope` writes: your scope is
copied into both branches, where it nests as dead code on the wrong side.
Flags and barriers cannot be classified and follow the previous classified
statement, so a `T.wait_cross_flag` at the top of `T.Scope("V")` stays in the
Cube copy and is dropped from the Vector copy: a silent race and wrong
results (tile-ai/tilelang-ascend #1509, still open). Kernels that only use
`T.Scope("V")` happen to work today, which is why that case is a warning.
""",
    fix="""
Either delete the `with T.Scope(...)` blocks and let CombineCV split the
kernel (Developer mode), or set `TL_ASCEND_AUTO_CV_COMBINE: False` and scope
every Cube and Vector op by hand (Expert mode).
""",
    known_false_positives="""
Pure `T.Scope("V")` kernels compile and run today; the warning says the scope
is redundant. Silence one line with `# noqa: TLA001` if you keep it on purpose.
""",
    references="""
- `src/transform/ascend_combinecv.cc:597-767, 840-858` (CVCombineEmitter)
- tile-ai/tilelang-ascend #1509, #1244
- mode guide: "avoid writing T.Scope while AUTO_CV_COMBINE is on"
""",
)
def scope_under_auto_cv_combine(model) -> Iterator[Report]:
    for kernel in model.kernels:
        for config in kernel.configs:
            if not config.is_on(C.AUTO_CV_COMBINE):
                continue
            scopes = list(kernel.uses_of("Scope", config=config))
            literal = {_scope_literal(u) for u in scopes}
            both_sides = "V" in literal and "C" in literal
            cross_flags = any(True for _ in kernel.uses_of(*C.CROSS_CORE_SYNC, config=config))
            # a sync opening a scope follows the op *before* the scope in CombineCV's
            # classification, so it lands on the wrong side
            sync_calls = {id(u.use.call) for u in kernel.uses_of(*(C.INTRA_CORE_SYNC | C.CROSS_CORE_SYNC),
                                                                 config=config) if not u.via}
            sync_first = any(id(u.use.first_call) in sync_calls for u in scopes if u.use.first_call is not None)
            severity = ERROR if both_sides or cross_flags or sync_first else WARNING
            for use in scopes:
                advice = ("Remove the `with T.Scope` block, or set TL_ASCEND_AUTO_CV_COMBINE False and "
                          "scope every op by hand")
                # the fix title says what the edit does; the alternative stays in `help`
                title = "Unwrap the `with T.Scope` block (its body stays, dedented)"
                edits = None
                if not use.via and _everywhere_on(model, use, C.AUTO_CV_COMBINE):
                    edits = _fix.unwrap_with(use.use.with_stmt)
                if severity == ERROR:
                    consequence = "its flags and barriers land on the wrong core (silent race)"
                else:
                    consequence = "redundant, it is copied into both cores"
                yield report(
                    use,
                    "`%s`%s is ignored while %s: %s" % (
                        _call_text(use), use.via_text(), config.describe(C.AUTO_CV_COMBINE), consequence),
                    help=advice,
                    fix=_fix.fix(title, edits, _fix.UNSAFE) if edits else None,
                    severity=severity,
                )


def _scope_literal(use) -> str:
    return use.use.scope_name or "?"


@rule(
    code="TLA002",
    since="0.1.0",
    autofix="""
Unsafe (`--fix --unsafe-fixes`): deletes the hand-written sync statement (it
changes the kernel's synchronisation). A trailing comment stays on a line of
its own (a `# noqa` on that line goes with the statement); a sync that is
the only statement of its block becomes `pass`. A sync inside a `@T.macro`
is deleted in the macro only when every kernel of the file that reaches it
compiles with AUTO_SYNC on and no other module of the project may import the
macro ("shared" means shared anywhere in the project); a macro shared with a
kernel of another config, a macro in another module or imported by one, or a
statement sharing its line (`a(); b()`) gets no fix. `T.set_flag` / `T.wait_flag` / `T.init_flag` / `T.clear_flag` are
deleted only when every flag primitive of the kernels that reach them can be
deleted too: removing one half of a set/wait pair would leave a wait that
never returns.
""",
    name="manual-sync-under-auto-sync",
    severity=WARNING,
    confidence="high",
    summary="hand-written intra-core sync in a kernel compiled with TL_ASCEND_AUTO_SYNC on",
    what="""
Reports each `T.barrier_all`, `T.pipe_barrier`, `T.set_flag`, `T.wait_flag`,
`T.init_flag` and `T.clear_flag` in a kernel whose `pass_configs` turn
`TL_ASCEND_AUTO_SYNC` on. A sync inside a `@T.macro` (also a macro calling a
macro) is reported on the line where the kernel calls the macro, and the
message names the macro and the line of the primitive. `T.sync_all` and the
cross-core flags are not intra-core syncs and are not reported.
""",
    why="""
AscendSyncInsert, the last pass of the pipeline, inserts its own
`pipe_barrier` and `set_flag`/`wait_flag` pairs wherever it sees a
dependency. It only recognises its own `tl.ascend_auto_*` ops as syncs
(`IsSyncStatement`, `src/transform/ascend_sync_insert.cc:723-741`): it never
removes, merges with or reasons about a hand-written one. The result is double
synchronisation, any ping-pong overlap you built by hand is serialised by the
pass's conservative syncs, and the auto pass hands out event IDs on the same
per-pipe-pair hardware events your flags use, so an outstanding manual flag
can be consumed by an automatic wait (a hang or a missed sync) [inferred from
the allocator, not reproduced on a device].
""",
    fix="""
Delete the hand-written syncs and let AscendSyncInsert place them (Developer
mode), or set `TL_ASCEND_AUTO_SYNC: False` if the hand-written protocol is
intended (Expert mode).
""",
    known_false_positives="""
Some kernels keep a hand-written protocol under AUTO_SYNC on purpose; they
work but pay for double syncs. Use `# noqa: TLA002` on those lines, or turn
the switch off for that kernel.
""",
    references="""
- `src/transform/ascend_sync_insert.cc:67-71` (pass switch), `:723-741` (IsSyncStatement), `:1605-1647` (event IDs)
- mode guide §2.1 ①: with AUTO_SYNC on, no `T.barrier_all`/`T.set_flag`/`T.wait_flag` is written
""",
)
def manual_sync_under_auto_sync(model) -> Iterator[Report]:
    for kernel in model.kernels:
        for config in kernel.configs:
            if not config.is_on(C.AUTO_SYNC):
                continue
            for use in kernel.uses_of(*C.INTRA_CORE_SYNC, config=config):
                if use.via:
                    what = "macro `%s` runs hand-written `T.%s` (%s)" % (
                        use.via[0].macro.name, use.prim, use.where_text())
                else:
                    what = "hand-written `%s`" % _call_text(use)
                advice = "Delete it, or set TL_ASCEND_AUTO_SYNC False to keep the hand-written protocol"
                title = "Delete the hand-written `T.%s`" % use.prim
                edits = _sync_deletion(model, use)
                if edits and use.prim in _FLAGS and not _flags_all_deletable(model, use):
                    edits = None  # deleting half of a set/wait pair would leave a wait that hangs
                yield report(
                    use,
                    "%s while %s: AscendSyncInsert syncs on top of it (double sync)" % (
                        what, config.describe(C.AUTO_SYNC)),
                    help=advice,
                    fix=_fix.fix(title, edits, _fix.UNSAFE) if edits else None,
                )


_FLAGS = frozenset({"set_flag", "wait_flag", "init_flag", "clear_flag"})


def _sync_deletion(model, use):
    """The edits deleting the sync statement ``use`` reaches, or None."""
    ctx = _fix.current()
    if ctx is None:
        return None
    memo = ctx.memo.setdefault("deletion", {})
    key = id(use.use.call)
    if key not in memo:  # one answer per primitive, however many configs report it
        stmt = ctx.statement_of(use.use.call) if _everywhere_on(model, use, C.AUTO_SYNC) else None
        memo[key] = _fix.delete_statement(stmt) if stmt is not None else None
    return memo[key]


def _flags_all_deletable(model, use) -> bool:
    """A flag is deleted only with every other flag primitive of the kernels
    that reach it: a `T.set_flag` deleted while its `T.wait_flag` stays (in a
    shared macro, another module, a mode-switch branch) would hang."""
    ctx = _fix.current()
    if ctx is None:
        return False
    memo = ctx.memo.setdefault("flags_ok", {})
    reach = ctx.memo.get("reach") or {}
    for kernel in reach.get(id(use.use.call), ()):
        ok = memo.get(id(kernel))
        if ok is None:
            ok = True
            for config in kernel.configs or (None,):
                for other in kernel.uses_of(*_FLAGS, config=config, maybe=True):
                    if other.maybe or not _sync_deletion(model, other):
                        ok = False
                        break
                if not ok:
                    break
            memo[id(kernel)] = ok
        if not ok:
            return False
    return True


def _everywhere_on(model, use, key: str) -> bool:
    """True when the primitive ``use`` reaches is written in this file and
    every kernel and config of the file that reaches it compiles it with
    ``key`` on (a macro shared with a kernel of another mode gets no fix)."""
    if use.use.owner.filename != model.filename:
        return False
    ctx = _fix.current()
    if ctx is None:
        return False
    reach = ctx.memo.get("reach")
    if reach is None:  # id(call) -> the kernels that reach it, built once per file
        reach = ctx.memo["reach"] = {}
        for kernel in model.kernels:
            for u in kernel.raw_uses:
                found = reach.setdefault(id(u.use.call), [])
                if not found or found[-1] is not kernel:
                    found.append(kernel)
    for kernel in reach.get(id(use.use.call), ()):
        if not kernel.configs or not all(config.is_on(key) for config in kernel.configs):
            return False
    if use.via:  # a macro: shared anywhere in the project is shared
        from ..sharing import shared_beyond

        shared = ctx.memo.setdefault("shared_macros", {})
        owner = use.use.owner.node
        if id(owner) not in shared:
            shared[id(owner)] = shared_beyond(model.filename, ctx.tree, owner, defs=True)
        if shared[id(owner)]:
            return False
    return True
