"""Cube/Vector cooperation: AUTO_CV_SYNC, COMBINE and the syncs that cross them."""
from __future__ import annotations

from typing import Iterator, Optional

from .. import constants as C
from ..model.resolve import UNKNOWN
from ..model.sides import SIDE_NAMES, pipe_side
from ..diagnostic import Report
from . import _fix
from ..registry import ERROR, WARNING, report, rule

_CV_SYNC = C.SWITCH_ENUM[C.AUTO_CV_SYNC]
_COMBINE = C.SWITCH_ENUM[C.AUTO_CV_COMBINE]


@rule(
    code="TLA004",
    name="cv-sync-without-combine",
    severity=ERROR,
    confidence="high",
    summary="TL_ASCEND_AUTO_CV_SYNC on while TL_ASCEND_AUTO_CV_COMBINE is off or absent: the switch is ignored",
    what="""
Reports a `pass_configs` that turns `TL_ASCEND_AUTO_CV_SYNC` on while
`TL_ASCEND_AUTO_CV_COMBINE` is off or not set. Reported once per config dict,
on the AUTO_CV_SYNC key's line (or on the `pass_configs=` argument when the
key's line is not in the file).
""",
    why="""
AUTO_CV_SYNC is read only inside the CombineCV pass, after CombineCV has
already returned the function unchanged because COMBINE is off
(`src/transform/ascend_combinecv.cc:823-830`); no other pass reads the key.
The switch is silently ignored: no cross-core flag is inserted, while the
author believes Cube->Vector handoffs are synchronised automatically.
""",
    fix="""
Add `TL_ASCEND_AUTO_CV_COMBINE: True` (Developer mode: then remove hand-written
scopes and cross flags), or remove the `TL_ASCEND_AUTO_CV_SYNC` key and keep
synchronising by hand (removing it changes nothing in the generated code).
""",
    known_false_positives="None: this is a pure config check.",
    references="""
- `src/transform/ascend_combinecv.cc:36-39, 823-830`
- tile-ai/tilelang-ascend #1825, #1367
- real case: `examples/deepseek_v4/int8_gemm.py:30`
""",
)
def cv_sync_without_combine(model) -> Iterator[Report]:
    for site in model.sites:
        config = site.config
        if not (config.is_on(C.AUTO_CV_SYNC) and config.is_off(C.AUTO_CV_COMBINE)):
            continue
        entry = config.entries[C.AUTO_CV_SYNC]
        node = entry.node if entry.filename == model.filename else (config.origin or site.site.node)
        yield report(
            node,
            "%s is ignored because %s: no cross-core sync is inserted" % (
                _CV_SYNC, config.describe(C.AUTO_CV_COMBINE)),
            help="Add %s: True, or remove the %s key and sync by hand" % (_COMBINE, _CV_SYNC),
        )


@rule(
    code="TLA005",
    autofix="""
Only when TL_ASCEND_AUTO_CV_COMBINE is off: the automatic protocol never
runs there and the hand-written flags carry the handoff, so the fix deletes
the inert `TL_ASCEND_AUTO_CV_SYNC` entry from the `pass_configs` dict and
keeps the flags (removing the flags would leave no cross-core sync at all).
An entry is inert only if it is inert for every reader: safe when the dict
cannot be read outside this file (written in the decorator or call, or in a
function); unsafe when it is bound at module level and another module of the
project may import it (a COMBINE kernel there would lose its cross-core
sync). Not offered when the entry is written in another file, or the same
entry also reaches a config with COMBINE on or a compile site whose kernel
is unknown. With COMBINE on there is no mechanical fix: the advice is shown
only.
""",
    name="manual-cross-flags-with-auto-cv-sync",
    severity=ERROR,
    tiers=((WARNING, "when TL_ASCEND_AUTO_CV_COMBINE is off, where the automatic protocol is inert"),),
    confidence="high",
    summary="`T.set_cross_flag`/`T.wait_cross_flag` in a kernel compiled with TL_ASCEND_AUTO_CV_SYNC on",
    what="""
Reports each `T.set_cross_flag` / `T.wait_cross_flag` (directly or through a
`@T.macro`, reported at the macro call) in a kernel whose config turns
`TL_ASCEND_AUTO_CV_SYNC` on. An error when `TL_ASCEND_AUTO_CV_COMBINE` is on
too (two live protocols); a warning when COMBINE is off, where the automatic
protocol is inert and TLA004 reports the config.
""",
    why="""
With COMBINE and AUTO_CV_SYNC on, CombineCV inserts its own cross-core flags
for every `workspace` handoff, numbering flag IDs from 0
(`src/transform/ascend_combinecv.cc:318-340, 368`). Hand-written flags usually
use 0..N too: both protocols share one FFTS flag-ID space, so a wait can be
satisfied by the wrong producer, or a set goes unmatched and the kernel hangs.
With COMBINE off the automatic protocol never runs: the config then
contradicts the code, and the hand-written flags carry the handoff.
""",
    fix="""
Remove the hand-written cross flags and let the compiler synchronise
(Developer mode), or set `TL_ASCEND_AUTO_CV_SYNC: False` and keep the manual
protocol (Expert mode).
""",
    known_false_positives="None known.",
    references="""
- `src/transform/ascend_combinecv.cc:318-340, 368`
- tile-ai/tilelang-ascend #1825
""",
)
def manual_cross_flags_with_auto_cv_sync(model) -> Iterator[Report]:
    for kernel in model.kernels:
        for config in kernel.configs:
            if not config.is_on(C.AUTO_CV_SYNC):
                continue
            combine = config.state(C.AUTO_CV_COMBINE)
            if combine is None:
                continue
            for use in kernel.uses_of(*C.CROSS_CORE_SYNC, config=config):
                if combine:
                    severity, consequence = ERROR, (
                        "CombineCV's flags reuse its IDs (wrong signal or hang)")
                else:
                    severity, consequence = WARNING, (
                        "without %s the switch does nothing (the config contradicts the code)" % _COMBINE)
                help_text, fix = "Remove the hand-written cross flags, or set %s False" % _CV_SYNC, None
                if not combine:
                    # the flags carry the handoff: the inert switch is what goes
                    help_text = "Remove the %s key (inert without %s) and keep the flags" % (
                        _CV_SYNC, _COMBINE)
                    edits, safe = _drop_inert_cv_sync(model, config)
                    fix = _fix.fix("Remove the inert %s key" % _CV_SYNC, edits,
                                   _fix.SAFE if safe else _fix.UNSAFE) if edits else None
                yield report(
                    use,
                    "hand-written `T.%s`%s while %s: %s" % (
                        use.prim, use.via_text(), config.describe(C.AUTO_CV_SYNC), consequence),
                    help=help_text,
                    fix=fix,
                    severity=severity,
                )


def _drop_inert_cv_sync(model, config):
    """(edits deleting the AUTO_CV_SYNC entry, safe), when every config of
    the file that holds that entry has COMBINE off (else the key is not
    inert: no fix). Safe only when no other module of the project can read
    the dict (a module-level dict another module imports may reach a COMBINE
    kernel there): else unsafe."""
    from ..sharing import shared_beyond

    entry = config.entries.get(C.AUTO_CV_SYNC)
    if entry is None or entry.filename != model.filename:
        return None, False
    for kernel in model.kernels:
        for other in kernel.configs:
            mine = other.entries.get(C.AUTO_CV_SYNC)
            if mine is not None and mine.node is entry.node and other.state(C.AUTO_CV_COMBINE) is not False:
                return None, False
    for site in model.sites:  # a reader in this file that is no kernel of it (unknown) keeps it
        mine = site.config.entries.get(C.AUTO_CV_SYNC)
        if mine is not None and mine.node is entry.node and not site.kernels:
            return None, False
    edits = _fix.delete_dict_entry(entry.node)
    if not edits:
        return None, False
    ctx = _fix.current()
    return edits, not shared_beyond(model.filename, ctx.tree if ctx else None, entry.node)


@rule(
    code="TLA007",
    name="sync-dropped-by-cv-combine",
    severity=ERROR,
    confidence="medium",
    summary="hand-written sync that CombineCV keeps only on the other core's side",
    what="""
With `TL_ASCEND_AUTO_CV_COMBINE` on and `TL_ASCEND_AUTO_SYNC` off, reports a
hand-written `T.set_flag`, `T.wait_flag` or `T.pipe_barrier` whose pipes
belong to one core (M, MTE1, FIX: Cube; V: Vector) when the classified
statement just before it, in program order, runs on the other core. Syncs
whose side or predecessor cannot be determined, `T.barrier_all`, and syncs on
shared pipes (MTE2, MTE3, S) are not judged. Never reported on a line TLA002
already reports.
""",
    why="""
CombineCV cannot classify a sync (its first argument is a pipe name), so it
keeps each one only on the side of the previous classified statement and
turns it into `Evaluate(0)` on the other side
(`src/transform/ascend_combinecv.cc:702-752`). A Vector-pipe flag that follows
a Cube op is therefore removed from the Vector code that needs it: an
unmatched `set`/`wait` (hang) or a missing barrier (race). PR #635 fixed
exactly this ("execution stuck") and was closed without merging.
The classification of statements here is [inferred] from the pass source and
has not been run on a device.
""",
    fix="""
Move the sync after the first copy or compute of its own side, or turn COMBINE
off and write explicit `T.Scope` blocks (Expert mode), or turn AUTO_SYNC on
and delete the hand-written syncs (Developer mode).
""",
    known_false_positives="""
Only the narrow case above is reported; kernels from tile-ai/tilelang-ascend
that place their flags after an op of their own side and are known to run
(for example `examples/causal_conv1d/causal_conv1d.py`) stay silent.
""",
    references="""
- `src/transform/ascend_combinecv.cc:702-752` (sticky side of unclassified statements)
- tile-ai/tilelang-ascend PR #635
""",
    yields_to=("TLA002",),
)
def sync_dropped_by_cv_combine(model) -> Iterator[Report]:
    for kernel in model.kernels:
        # each config the kernel is compiled with, as compiled there (a factory argument
        # may keep an op in one site's code and drop it from another's); a sync reported
        # under two configs is one finding (the engine keeps one per line and code)
        for config in kernel.configs:
            if config.is_on(C.AUTO_CV_COMBINE) and config.is_off(C.AUTO_SYNC):
                yield from _dropped_syncs(kernel, config)


def _dropped_syncs(kernel, config) -> Iterator[Report]:
    previous: Optional[str] = None  # side of the last classified statement; "?" unknown
    for use in kernel.in_order(config):
        if use.prim in ("set_flag", "wait_flag", "pipe_barrier"):
            needed = None if use.maybe else _sync_side(kernel, use)
            if needed is not None and previous in ("C", "V") and previous != needed:
                yield report(
                    use,
                    "`T.%s`%s (%s pipes) follows a %s op while %s: dropped from the %s "
                    "code (hang or race)" % (
                        use.prim, use.via_text(), SIDE_NAMES[needed], SIDE_NAMES[previous],
                        config.describe(C.AUTO_CV_COMBINE), SIDE_NAMES[needed]),
                    help="Move it after an op of its own side, or turn COMBINE off and use explicit "
                         "T.Scope blocks",
                )
            continue
        if use.prim == "@store" and use.use.in_parallel:
            continue  # part of its T.Parallel loop, already counted
        if use.prim in _CLASSIFIED or use.prim.startswith(("tile.", "reduce_")):
            side = None if use.maybe else kernel.side(use)
            previous = side if side in ("C", "V") else "?"


_CLASSIFIED = frozenset({"copy", "gemm_v0", "mma", "Parallel", "@store"})


def _sync_side(kernel, use) -> Optional[str]:
    args = ((0, "pipe"),) if use.prim == "pipe_barrier" else ((0, "src"), (1, "dst"))
    sides = set()
    for i, keyword in args:
        value = kernel.arg_value(use, i, keyword)
        if value is UNKNOWN:
            return None
        sides.add(pipe_side(value))
    sides.discard(None)
    return sides.pop() if len(sides) == 1 else None


@rule(
    code="TLA008",
    name="sync-all-under-cv-combine",
    severity=ERROR,
    confidence="high",
    summary="`T.sync_all()` in a kernel compiled with TL_ASCEND_AUTO_CV_COMBINE on",
    what="Reports each `T.sync_all()` (directly or through a macro) in a kernel whose config turns "
         "`TL_ASCEND_AUTO_CV_COMBINE` on.",
    why="""
CombineCV reads `args[0]` of every call to find its pipe; `T.sync_all()` has no
arguments, so the pass crashes at compile time with
`IndexError: indexing 0 on an array of size 0`
(`src/transform/ascend_combinecv.cc:709`, #1244). The fix, PR #1267, was still
open at the snapshot this rule was written against. Even after it lands,
`sync_all` must be kept on both sides or the Cube and Vector counts of the
global barrier will not match.
""",
    fix="Turn COMBINE off and use explicit `T.Scope` blocks, or restructure the kernel so it does not "
        "need a block-wide barrier.",
    known_false_positives="Versions that include PR #1267 no longer crash; the rule is version-gated in spirit.",
    references="""
- `src/transform/ascend_combinecv.cc:709`
- tile-ai/tilelang-ascend #1244, PR #1267
""",
)
def sync_all_under_cv_combine(model) -> Iterator[Report]:
    for kernel in model.kernels:
        for config in kernel.configs:
            if not config.is_on(C.AUTO_CV_COMBINE):
                continue
            for use in kernel.uses_of("sync_all", config=config):
                yield report(
                    use,
                    "`T.sync_all()`%s while %s crashes CombineCV at compile time (IndexError)" % (
                        use.via_text(), config.describe(C.AUTO_CV_COMBINE)),
                    help="Turn COMBINE off and use explicit T.Scope blocks",
                )
