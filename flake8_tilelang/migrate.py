"""``flake8-tilelang migrate``: the Expert -> Developer conversion of the mode
guide (§3.1 and the table in §3.2), as text edits on the kernel's own file.

Skips are decided first, for every kernel, before anything is planned: a
kernel the model cannot fully resolve, one compiled by ``tilelang.lower``,
one using ``T.sync_all``, one whose Expert primitives live in a macro of
another module or in a macro another module imports ("shared" means shared
anywhere in the project), or one whose macro a kernel that is not migrated
also calls. Only then are the edits planned, so nothing a kernel that stays
Expert reads (a dict, a macro) is edited: a config dict is edited in place
only when every reader, in this file and in the rest of the project, is
migrated; otherwise the kernel gets a kernel-local ``{**SHARED, ...}``.

The target follows the guide's §2.2 table per kernel kind: a pure Vector
kernel gets AUTO_SYNC + MEMORY_PLANNING and keeps its ``T.Scope("V")`` blocks
(with COMBINE off, upstream rejects unscoped Vector code since #1606/#1753:
TLA013), its ``alloc_ub`` becoming ``alloc_shared`` (AscendInferBufferScope
places it in UB whatever the switches); a
kernel whose Cube->Vector handoff goes through a GM buffer not named
``*workspace*`` keeps its scopes and cross-core flags and becomes Mixed
(AUTO_SYNC + MEMORY_PLANNING; CombineCV only synchronises workspace-named
buffers), with the §3.1.1 on-chip copy as a manual step; every other kernel
gets the four switches, ``alloc_L1``/``alloc_ub`` -> ``alloc_shared``,
``alloc_L0C`` -> ``alloc_fragment``, unused ``alloc_L0A``/``alloc_L0B``
dropped, ``with T.Scope`` blocks unwrapped and cross-core flags removed.
Hand-written syncs and ``T.annotate_address`` go in every kind; a block, an
``if`` or a loop left with nothing goes too, and so does a macro left empty
(with its calls). An Expert launch moves to ``threads=2`` only when the
kernel never reads its vector-core id (the launch's second target, whatever
its name) and every on-chip tile splits in two; otherwise the report lists
the lines to change. Semantic steps are reported, never guessed. A file is
written only when every edit applied cleanly and the result parses; every
byte outside the edits (line endings included) is kept.
"""
from __future__ import annotations

import ast
from typing import Dict, List, Optional, Sequence, Set, Tuple

from . import constants as C
from .diagnostic import Edit
from .rules import _fix
from .source import SourceFile

SYNC_PRIMS = C.INTRA_CORE_SYNC | C.CROSS_CORE_SYNC
RENAME_ALLOCS = {"alloc_L1": "alloc_shared", "alloc_ub": "alloc_shared", "alloc_L0C": "alloc_fragment"}
DROP_ALLOCS = frozenset({"alloc_L0A", "alloc_L0B"})
SWITCH_ORDER = (C.AUTO_SYNC, C.MEMORY_PLANNING, C.AUTO_CV_COMBINE, C.AUTO_CV_SYNC)


class Step:
    """A manual step for the report: where, what to do, the guide section,
    and every line it concerns."""

    __slots__ = ("line", "what", "section", "lines", "optional")

    def __init__(self, line: int, what: str, section: str, lines: Sequence[int] = (), optional: bool = False):
        self.line = line
        self.what = what
        self.section = section
        self.lines = sorted(set(lines) | {line})
        self.optional = optional


class KernelPlan:
    __slots__ = ("name", "line", "mode", "status", "reason", "edits", "steps", "actions", "target")

    def __init__(self, name: str, line: int, mode: str):
        self.name = name
        self.line = line
        self.mode = mode
        self.status = "migrated"  # or "skipped", "unchanged"
        self.reason = ""
        self.target = ""  # "Developer", "Developer (pure Vector)" or "Mixed"
        self.edits: List[Edit] = []
        self.steps: List[Step] = []
        self.actions: Dict[str, int] = {}  # what was done -> count

    def did(self, action: str, n: int = 1) -> None:
        self.actions[action] = self.actions.get(action, 0) + n

    def skip(self, reason: str) -> "KernelPlan":
        self.status = "skipped"
        self.reason = reason
        self.edits = []
        self.actions = {}
        self.steps = []
        return self

    @property
    def needs_human(self) -> bool:
        return self.status == "skipped" or any(not s.optional for s in self.steps)


class FilePlan:
    __slots__ = ("path", "kernels", "new_text", "new_bytes", "error", "remaining", "notebook")

    def __init__(self, path: str):
        self.path = path
        self.kernels: List[KernelPlan] = []
        self.new_text: Optional[str] = None
        self.new_bytes: Optional[bytes] = None  # new_text with the file's own line endings and encoding
        self.error: Optional[str] = None
        self.remaining: List[Tuple[int, str]] = []  # (line, code) still reported after migrating
        self.notebook = None  # a notebook.Notebook: lines are those of its joined code cells

    def at(self, line: int) -> str:
        """``path:line``, or ``nb.ipynb:cell 3:line`` in a notebook."""
        if self.notebook is not None:
            cell, row = self.notebook.locate(line)
            return "%s:cell %d:%d" % (self.path, cell, row)
        return "%s:%d" % (self.path, line)

    def place(self, line: int) -> Dict[str, int]:
        """``{"line": n}``, plus ``"cell"`` (and the line in that cell) in a notebook."""
        if self.notebook is not None:
            cell, row = self.notebook.locate(line)
            return {"cell": cell, "line": row}
        return {"line": line}


# -- planning -------------------------------------------------------------------------

def plan_file(path: str, source: SourceFile, tree: ast.Module, only: Optional[Set[str]] = None,
              annotate: bool = False) -> FilePlan:
    """Edits and report for every Expert or Mixed kernel of one file."""
    from .model import build_model

    model = build_model(tree, path)
    out = FilePlan(path)
    with _fix.context(tree, source.lines, path):
        return _plan(out, source, tree, model, only, annotate)


def _plan(out: FilePlan, source: SourceFile, tree: ast.Module, model, only, annotate) -> FilePlan:
    from .inventory import DEVELOPER, UNKNOWN, config_mode, counts, kernel_mode, pure_vector

    planner = _Planner(source, tree, model)
    chosen = []
    for kernel in model.kernels:
        n = counts(kernel)
        expert = any(n.values())
        vector = pure_vector(kernel)
        only_scopes = not any(v for k, v in n.items() if k != "scopes")
        mode = kernel_mode([config_mode(c, expert, vector, only_scopes) for c in kernel.configs]) \
            if kernel.configs and kernel.applies((C.ASCENDC,)) else UNKNOWN
        if only and not only & {kernel.name, kernel.display_name, kernel.display_name.split(".")[0]}:
            continue
        plan = KernelPlan(kernel.display_name, kernel.line, mode)
        out.kernels.append(plan)
        if mode == DEVELOPER:
            plan.status = "unchanged"
            plan.reason = "already Developer"
            continue
        chosen.append((kernel, plan))
    # 1. skips first, for every kernel: what a skipped kernel reads is never edited
    for kernel, plan in chosen:
        reason = planner.skip_reason(kernel) or planner.target_of(kernel)
        if reason:
            plan.skip(reason)
    while True:  # a macro shared with a kernel that stays is not edited: that kernel stays too
        migrating = {id(k.func) for k, p in chosen if p.status != "skipped"}
        changed = False
        for kernel, plan in chosen:
            if plan.status != "skipped":
                reason = planner.shared_macro_reason(kernel, migrating)
                if reason:
                    plan.skip(reason)
                    changed = True
        if not changed:
            break
    # 2. the pass_configs= values of the kernels being migrated (a dict read elsewhere stays)
    for kernel, plan in chosen:
        if plan.status == "skipped":
            continue
        for node in [kernel.func.node] + [u.use.owner.node for u in kernel.raw_uses if u.via]:
            planner.migrating_ranges.append((node.lineno, node.end_lineno or node.lineno))
        for site in kernel.sites:
            node = site.site.node
            for kw in getattr(node, "keywords", ()):
                if kw.arg == "pass_configs":
                    planner.migrating_values.add(id(kw.value))
    # a dict read by kernels with different targets is never edited in place: each gets its own
    literal_targets: Dict[int, Set[tuple]] = {}
    for kernel, plan in chosen:
        if plan.status == "skipped":
            continue
        for literal in planner.literals_of(kernel):
            literal_targets.setdefault(id(literal), set()).add(planner.targets[id(kernel)][2])
    planner.wrap = {key for key, targets in literal_targets.items() if len(targets) > 1}
    # 3. the plans
    for kernel, plan in chosen:
        if plan.status != "skipped":
            planner.plan(kernel, plan, migrating, annotate)
            if not plan.edits and not plan.actions and plan.status == "migrated":
                plan.status = "unchanged"  # its manual steps, if any, are still reported
                plan.reason = "already at its target (%s)" % plan.target
    edits = list(dict.fromkeys(e for _, p in chosen if p.status == "migrated" for e in p.edits))
    edits += planner.literal_edits()  # a dict two migrated kernels share: the union of their targets
    edits = _collapse_blank_lines(source, edits)
    if not edits:
        return out
    try:
        out.new_text = apply_edits(source, edits)
    except ValueError as exc:
        out.error = str(exc)
        return out
    try:
        ast.parse(out.new_text, out.path)
    except (SyntaxError, ValueError) as exc:
        out.error = "the migrated file would not parse (%s); nothing was written" % exc
        out.new_text = None
        return out
    out.new_bytes = encode_keeping_line_endings(source, edits, out.new_text)
    return out


def _spans(source: SourceFile, edits: List[Edit]) -> List[Tuple[int, int, str]]:
    spans = sorted(((source.offset(*e.start), source.offset(*e.end), e.text) for e in edits),
                   key=lambda s: (s[0], s[1]))
    end = 0
    for start, stop, _ in spans:  # an insertion may open a deletion at the same point
        if start < end:
            raise ValueError("overlapping edits at offset %d" % start)
        end = stop
    return spans


def apply_edits(source: SourceFile, edits: List[Edit]) -> str:
    """``source.text`` with the edits applied (the fix engine's application).
    Raises ValueError when two edits overlap: a migration is all or nothing."""
    from .fixes import apply_edits as apply_spans

    return apply_spans(source.text, _spans(source, edits))


def encode_keeping_line_endings(source: SourceFile, edits: List[Edit], new_text: str) -> bytes:
    """The migrated file's bytes with every line ending outside the edits as
    it was (a file with mixed ``\\r\\n``/``\\n`` keeps them); new lines get the
    ending of the line they are written on."""
    try:
        original = source.raw.decode(source.encoding)
    except (UnicodeDecodeError, LookupError):
        return source.encode(new_text)
    if "\r" not in original or original.replace("\r\n", "\n").replace("\r", "\n") != source.text:
        return source.encode(new_text)
    # the ending of each normalised line, in order
    endings = []
    i = 0
    while True:
        j = original.find("\n", i)
        k = original.find("\r", i)
        if j < 0 and k < 0:
            break
        if k >= 0 and (j < 0 or k < j):
            if original[k + 1:k + 2] == "\n":
                endings.append("\r\n")
                i = k + 2
            else:
                endings.append("\r")
                i = k + 1
        else:
            endings.append("\n")
            i = j + 1
    out = []
    pos = 0  # in source.text
    line = 0  # newlines passed in source.text
    for start, stop, text in _spans(source, edits):
        chunk = source.text[pos:start]
        for piece in chunk.split("\n")[:-1]:
            out.append(piece + endings[line])
            line += 1
        out.append(chunk.split("\n")[-1])
        here = endings[line] if line < len(endings) else source.newline
        removed = source.text[start:stop].count("\n")
        out.append(text.replace("\n", here))
        line += removed
        pos = stop
    chunk = source.text[pos:]
    for piece in chunk.split("\n")[:-1]:
        out.append(piece + (endings[line] if line < len(endings) else source.newline))
        line += 1
    out.append(chunk.split("\n")[-1])
    data = "".join(out)
    if data.replace("\r\n", "\n").replace("\r", "\n") != new_text:
        return source.encode(new_text)
    raw = data.encode(source.encoding if source.encoding != "utf-8-sig" else "utf-8", "surrogateescape")
    return (b"\xef\xbb\xbf" + raw) if source.bom else raw


def _collapse_blank_lines(source: SourceFile, edits: List[Edit]) -> List[Edit]:
    """A run of deleted whole lines between two blank lines takes the blank
    line after it along (no double blank line where a statement or a macro
    was)."""
    deleted: Set[int] = set()
    for e in edits:
        if e.start[1] == 0 and e.end[1] == 0 and not e.text and e.end[0] > e.start[0]:
            deleted.update(range(e.start[0], e.end[0]))
    if not deleted:
        return edits
    touched = {n for e in edits for n in range(e.start[0], e.end[0] + 1) if not (
        e.start[1] == 0 and e.end[1] == 0 and not e.text)}
    blank = lambda n: 0 < n <= len(source.lines) and not source.line_text(n).strip()  # noqa: E731
    extra = []
    for n in sorted(deleted):
        if n - 1 in deleted or not blank(n - 1):
            continue
        end = n
        while end + 1 in deleted:
            end += 1
        after = end + 1
        run = []
        while blank(after) and after not in deleted and after not in touched:
            run.append(after)
            after += 1
        if run:
            before = 0
            m = n - 1
            while blank(m) and m not in deleted:
                before += 1
                m -= 1
            take = run[:min(len(run), before)]
            for k in take:
                extra.append(Edit((k, 0), (k + 1, 0), ""))
    return edits + extra


class _Planner:
    def __init__(self, source: SourceFile, tree: ast.Module, model):
        self.src = source
        self.tree = tree
        self.model = model
        self.ctx = _fix.current()  # statements, blocks and string lines of this file
        self.migrating_values: Set[int] = set()
        self.migrating_ranges: List[Tuple[int, int]] = []  # lines of the migrated kernels and their macros
        self.key_prefix = self._key_prefix()
        self._shared_defs: Dict[int, List[str]] = {}
        self._literals: Dict[int, Tuple[ast.Dict, object, List[str]]] = {}
        self.targets: Dict[int, tuple] = {}  # id(kernel) -> (kind, target, switches, GM handoff)
        self.wrap: Set[int] = set()  # dicts read by kernels with different targets: never edited in place
        self.emptied_macros: Dict[int, Tuple[object, Set[int]]] = {}  # id(def) -> (Function, plans' ids)

    # -- skips --------------------------------------------------------------------------
    def skip_reason(self, kernel) -> str:
        if not kernel.applies((C.ASCENDC,)):
            return ("an AscendNPU IR kernel (target=\"npuir\", or an unknown target and npuir scopes or "
                    "primitives): Expert and Developer mode are Ascend C's")
        if not kernel.configs or not kernel.sites:
            return "no compile site found for it in this file"
        for config in kernel.configs:
            if any(config.state(k) is None for k in C.SWITCHES):
                return "its pass_configs cannot be resolved (%s)" % (config.origin_desc or "pass_configs")
        if any(site.site.kind == "lower" for site in kernel.sites):
            return "compiled by tilelang.lower in a PassContext: edit that PassContext's config by hand"
        uses = list(kernel.raw_uses)
        if any(u.prim == "sync_all" for u in uses):
            return "uses T.sync_all, which CombineCV cannot compile (TLA008): restructure it first"
        for u in uses:
            if not (u.prim in SYNC_PRIMS or u.prim == "Scope" or u.prim in C.EXPERT_ALLOCS
                    or u.prim == "annotate_address"):
                continue
            owner = u.use.owner
            if owner.filename and owner.filename != self.model.filename:
                return ("macro `%s` in another module has Expert primitives" % u.via[-1].macro.name
                        if u.via else "Expert primitives in another module")
            if u.via:
                readers = self._importers(owner.node)
                if readers:
                    return "macro `%s` with Expert primitives is also imported by %s" % (
                        owner.name, _files(readers))
        return ""

    def shared_macro_reason(self, kernel, migrating: Set[int]) -> str:
        for u in kernel.raw_uses:
            if u.via and (u.prim in SYNC_PRIMS or u.prim == "Scope" or u.prim in C.EXPERT_ALLOCS
                          or u.prim == "annotate_address"):
                macro = u.use.owner
                users = [k for k in self.model.kernels if any(
                    hop.macro is macro for ku in k.raw_uses for hop in ku.via)]
                if any(id(k.func) not in migrating for k in users):
                    return "macro `%s` is shared with kernels that are not migrated" % macro.name
        return ""

    def _importers(self, node: ast.AST) -> List[str]:
        """Other files of the project that may import the module-level def
        or binding holding ``node``."""
        from .sharing import module_level_names, readers

        if id(node) not in self._shared_defs:
            names = module_level_names(self.tree, node, defs=True)
            self._shared_defs[id(node)] = readers(self.model.filename, names) if names else []
        return self._shared_defs[id(node)]

    # -- the target ------------------------------------------------------------------
    def target_of(self, kernel) -> str:
        """Decide the kernel's target from the guide's §2.2 table (kept in
        ``self.targets``); a reason to skip it, or ""."""
        kind = _kind(kernel)
        handoff = self._gm_handoff(kernel, list(kernel.raw_uses)) if kind != "vector" else None
        if handoff is not None:
            if any(config.state(C.AUTO_CV_COMBINE) or config.state(C.AUTO_CV_SYNC) for config in kernel.configs):
                return ("its Cube->Vector handoff goes through GM buffer `%s` (lines %s), which CombineCV does "
                        "not synchronise, and its config turns CombineCV on: replace the handoff with an on-chip "
                        "`T.copy` first (§3.1.1 step 4)" % (handoff[0], _lines(handoff[1])))
            self.targets[id(kernel)] = (kind, "Mixed", (C.AUTO_SYNC, C.MEMORY_PLANNING), handoff)
        elif kind == "vector":
            # AUTO_SYNC + MEMORY_PLANNING; a COMBINE already on stays (its scopes then go), CV_SYNC is
            # never added: there is no Cube->Vector handoff to synchronise (TLA052 agrees)
            self.targets[id(kernel)] = (kind, "Developer (pure Vector)", (C.AUTO_SYNC, C.MEMORY_PLANNING), None)
        else:
            self.targets[id(kernel)] = (kind, "Developer", SWITCH_ORDER, None)
        return ""

    # -- the kernel -----------------------------------------------------------------
    def plan(self, kernel, plan: KernelPlan, migrating: Set[int], annotate: bool) -> None:
        uses = list(kernel.raw_uses)
        kind, target, switches, handoff = self.targets[id(kernel)]
        plan.target = target
        removed: Set[int] = set()  # statements deleted (by id)
        unwrapped: List[ast.With] = []
        seen: Set[int] = set()
        keep_cv = target == "Mixed"
        # COMBINE stays off: each op keeps its core's scope
        keep_scopes = keep_cv or (kind == "vector" and not any(
            config.state(C.AUTO_CV_COMBINE) for config in kernel.configs))
        for u in uses:
            call = u.use.call
            if id(call) in seen:
                continue
            seen.add(id(call))
            prim = u.prim
            if prim == "Scope" and u.use.with_stmt is not None:
                if not keep_scopes:
                    unwrapped.append(u.use.with_stmt)  # type: ignore[arg-type]
            elif prim in SYNC_PRIMS or prim == "annotate_address":
                if keep_cv and prim in C.CROSS_CORE_SYNC:
                    continue
                stmt = self._statement_of(call)
                if stmt is None:
                    plan.steps.append(Step(call.lineno, "remove `T.%s` by hand (it is part of a larger "
                                                        "statement)" % prim, "§3.1 step 4"))
                    continue
                removed.add(id(stmt))
                plan.did("removed T.%s" % prim if prim != "annotate_address" else "removed T.annotate_address")
            elif prim in RENAME_ALLOCS:
                if keep_cv:
                    continue  # Mixed keeps its buffers (AscendInferBufferScope places alloc_shared either way)
                if self._rename(call, RENAME_ALLOCS[prim], plan):
                    plan.did("%s -> %s" % (prim, RENAME_ALLOCS[prim]))
                else:
                    plan.steps.append(Step(call.lineno, "replace `%s` with `T.%s`" % (prim, RENAME_ALLOCS[prim]),
                                           "§3.2"))
            elif prim in DROP_ALLOCS:
                if keep_cv:
                    continue
                stmt = self._statement_of(call)
                name = self._assigned_name(stmt)
                if name is not None and not self._used_elsewhere(kernel, name, stmt):
                    removed.add(id(stmt))
                    plan.did("dropped unused %s" % prim)
                else:
                    plan.steps.append(Step(call.lineno, "`%s` is used by hand-written L0 copies or `T.mma`: "
                                                        "use `T.gemm_v0` on the L1 buffers and drop it" % (
                                                            name or prim), "§3.2"))
            elif prim.startswith("tile."):
                plan.steps.append(Step(call.lineno, "`T.%s` may stay, or become a `T.Parallel` loop of "
                                                    "`T.%s`" % (prim, prim[5:]), "§3.1 step 5", optional=True))
        macros = list({id(u.use.owner.node): u.use.owner for u in uses
                       if u.via and u.use.owner.filename == self.model.filename}.values())
        funcs = [kernel.func.node] + [m.node for m in macros]
        self._delete_statements(kernel, funcs, macros, removed, unwrapped, plan)
        if unwrapped:
            plan.did("unwrapped with T.Scope", len(unwrapped))
        if handoff is not None:
            name, lines = handoff
            plan.steps.append(Step(lines[0], "the Cube->Vector handoff goes through GM buffer `%s`, which CombineCV "
                                             "does not synchronise (only `*workspace*` buffers): the scopes and "
                                             "cross-core flags stay (Mixed mode); to go Developer, copy on chip "
                                             "(`T.copy` between the two buffers), then migrate again" % name,
                                   "§3.1.1 step 4", lines))
        else:
            self._launch(kernel, plan)
        self._workspace(kernel, plan)
        self._configs(kernel, plan, switches)
        if annotate:
            for step in plan.steps:
                if not step.optional:
                    plan.edits.append(self._todo(step))

    # -- statements -------------------------------------------------------------------
    def _statement_of(self, call: ast.AST) -> Optional[ast.stmt]:
        return self.ctx.statement_of(call) or self.ctx.assignment_of(call)

    @staticmethod
    def _assigned_name(stmt: Optional[ast.stmt]) -> Optional[str]:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            return stmt.targets[0].id
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            return stmt.target.id
        return None

    def _used_elsewhere(self, kernel, name: str, stmt: Optional[ast.stmt]) -> bool:
        for node in ast.walk(kernel.func.node):
            if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
                return True
        return False

    def _shares_line(self, stmt: ast.stmt, block: List[ast.stmt]) -> bool:
        return any(s is not stmt and (s.lineno <= stmt.end_lineno and s.end_lineno >= stmt.lineno)  # type: ignore
                   for s in block)

    def _delete_statements(self, kernel, funcs: List[ast.AST], macros: List[object], removed: Set[int],
                           unwrapped: List[ast.With], plan: KernelPlan) -> None:
        """Delete the removed statements (a trailing comment stays on a line
        of its own); an ``if`` or a loop whose blocks are all gone goes too
        (when its test or iterable has no effect of its own), a macro left
        empty goes with the statements that call it, and a block left with
        nothing gets a ``pass``."""
        unwrapped_ids = {id(w) for w in unwrapped}
        every = [node for func in funcs for node in ast.walk(func)]
        for node in every:
            if id(node) not in removed:
                continue
            block = self.ctx.block_of(node)  # type: ignore[arg-type]
            if block is None or self._shares_line(node, block):  # type: ignore[arg-type]
                plan.steps.append(Step(node.lineno, "remove the hand-written primitive on this line by hand "  # type: ignore
                                                    "(it shares the line with another statement)", "§3.1 step 4"))
                removed.discard(id(node))
        memo: Dict[int, bool] = {}

        def gone(stmt: ast.stmt) -> bool:
            key = id(stmt)
            if key not in memo:
                memo[key] = False  # a cycle guard
                if key in removed:
                    result = True
                elif key in unwrapped_ids:
                    result = all(gone(s) for s in stmt.body)  # type: ignore[attr-defined]
                elif isinstance(stmt, ast.If) and _pure(stmt.test):
                    result = all(gone(s) for s in stmt.body) and all(gone(s) for s in stmt.orelse)
                elif isinstance(stmt, ast.For) and _pure(stmt.iter) and not stmt.orelse:
                    result = all(gone(s) for s in stmt.body)
                elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
                        and id(stmt.value) in emptied_calls:
                    result = True
                else:
                    result = False
                memo[key] = result
            return memo[key]

        # macros of this file whose body all goes, called only as statements: they go too
        emptied_calls: Set[int] = set()
        emptied: List[ast.AST] = []
        for macro in macros:
            body = macro.node.body  # type: ignore[attr-defined]
            if not all(gone(s) for s in body) or not any(id(s) in removed for s in ast.walk(macro.node)):
                continue
            calls = self._statement_calls(macro.name, kernel)  # type: ignore[attr-defined]
            if calls is None:
                continue
            emptied.append(macro.node)  # type: ignore[attr-defined]
            emptied_calls.update(calls)
            memo.clear()
        for macro_node in emptied:
            first = min([macro_node.lineno] + [d.lineno for d in macro_node.decorator_list])  # type: ignore
            plan.edits.append(Edit((first, 0), ((macro_node.end_lineno or first) + 1, 0), ""))  # type: ignore
            plan.did("removed macro `%s` left empty" % macro_node.name)  # type: ignore[attr-defined]
        skip_inside = {id(n) for m in emptied for n in ast.walk(m)}
        roots = [kernel.func.node] + [m.node for m in macros if id(m.node) not in skip_inside]  # type: ignore
        for root in roots:
            self._prune(root, gone, removed, unwrapped_ids, unwrapped, plan)
        for with_stmt in unwrapped:
            if id(with_stmt) in skip_inside or gone(with_stmt):
                continue
            self._unwrap(with_stmt, plan)

    def _statement_calls(self, name: str, kernel) -> Optional[Set[int]]:
        """The calls of macro ``name`` in this file when each is a whole
        statement of a kernel being migrated (else None: it stays, as ``pass``)."""
        calls: Set[int] = set()
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
                call = self._call_of(node)
                if call is None or self.ctx.statement_of(call) is None or not any(
                        a <= node.lineno <= b for a, b in self.migrating_ranges):
                    return None
                calls.add(id(call))
        return calls

    def _call_of(self, name: ast.Name) -> Optional[ast.Call]:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call) and node.func is name:
                return node
        return None

    def _prune(self, root: ast.AST, gone, removed: Set[int], unwrapped_ids: Set[int],
               unwrapped: List[ast.With], plan: KernelPlan) -> None:
        """Walk the blocks under ``root``: delete the top-most gone statements,
        and put a ``pass`` in a block of a kept statement that is left empty."""
        stack = [root]
        while stack:
            node = stack.pop()
            for field in ("body", "orelse", "finalbody"):
                block = getattr(node, field, None)
                if not isinstance(block, list) or not block or not isinstance(block[0], ast.stmt):
                    continue
                for stmt in block:
                    if gone(stmt) and id(stmt) not in unwrapped_ids:
                        self._delete(stmt, plan, unwrapped)
                    elif gone(stmt):  # an unwrapped scope whose body all goes: header and body
                        self._delete(stmt, plan, unwrapped, keep_comment=False)
                    else:
                        stack.append(stmt)
                if id(node) in unwrapped_ids and field == "body":
                    continue  # its statements move to the parent block
                if all(gone(s) for s in block):
                    first = block[0]
                    indent = self._indent_after(first.lineno, first.col_offset, unwrapped)
                    plan.edits.append(Edit((first.lineno, 0), (first.lineno, 0), indent + "pass\n"))

    def _indent_after(self, line: int, col: int, unwrapped: List[ast.With]) -> str:
        indent = self.src.line_text(line)[:col]
        shift = sum(self._delta(w) for w in unwrapped if w.body[0].lineno <= line <= (w.end_lineno or 0))
        return indent[:max(0, len(indent) - shift)]

    def _delete(self, stmt: ast.stmt, plan: KernelPlan, unwrapped: List[ast.With], keep_comment=True) -> None:
        first = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", ())])
        last = stmt.end_lineno or stmt.lineno
        comment = _fix._kept_comment(self.ctx, last, stmt.end_col_offset or 0) if keep_comment else ""
        text = ""
        if comment and not isinstance(stmt, (ast.If, ast.For, ast.With)):
            text = self._indent_after(first, stmt.col_offset, unwrapped) + comment + "\n"
        plan.edits.append(Edit((first, 0), (last + 1, 0), text))

    def _delta(self, with_stmt: ast.With) -> int:
        """How many indentation characters unwrapping ``with_stmt`` removes."""
        inner = self.src.line_text(with_stmt.body[0].lineno)
        return (len(inner) - len(inner.lstrip(" \t"))) - len(self._with_indent(with_stmt))

    def _with_indent(self, with_stmt: ast.With) -> str:
        return self.src.line_text(with_stmt.lineno)[:with_stmt.col_offset]

    # -- with T.Scope -----------------------------------------------------------------
    def _unwrap(self, with_stmt: ast.With, plan: KernelPlan) -> None:
        """The TLA001 fix's unwrapping (header gone, a header comment kept, the
        body dedented outside multi-line strings), minus the lines deleted."""
        edits = _fix.unwrap_with(with_stmt)
        if not edits:
            plan.steps.append(Step(with_stmt.lineno, "unwrap this `with T.Scope` by hand (its body starts on "
                                                     "the header line, or the header has `as`)", "§3.1 step 3"))
            return
        deleted: Set[int] = set()
        for e in plan.edits:
            if e.start[1] == 0 and e.end[1] == 0 and e.end[0] > e.start[0]:
                deleted.update(range(e.start[0], e.end[0]))
        plan.edits.append(edits[0])
        plan.edits.extend(e for e in edits[1:] if e.start[0] not in deleted)

    # -- allocations ------------------------------------------------------------------
    def _rename(self, call: ast.AST, new: str, plan: KernelPlan) -> bool:
        func = getattr(call, "func", None)
        edits = _fix.replace_attr_name(func, new) if isinstance(func, ast.Attribute) else None
        if not edits or func.lineno != func.end_lineno:  # type: ignore[union-attr]
            return False
        plan.edits.extend(edits)
        return True

    # -- launch -----------------------------------------------------------------------
    def _launch(self, kernel, plan: KernelPlan) -> None:
        for launch in kernel.launches:
            if not launch.expert or launch.is_npu is not True:
                continue
            target = launch.target
            vid = launch.vid_name  # the second target, whatever its name (`as (bx, by)`)
            reads = launch.vid_reads()
            if reads:
                halved = [n for n, why in self._tiles_not_splitting(kernel) if "by hand" in why]
                lines = sorted({n.lineno for n in reads} | set(halved))
                plan.steps.append(Step(launch.line, "remove the `%s` offsets%s, then launch with `threads=2` and "
                                                    "`as %s`" % (vid, " and size the halved tiles to the full tile"
                                                                 if halved else "", _first_name(target)),
                                       "§3.1.1 steps 1 and 3", lines))
                continue
            if not (isinstance(target, ast.Tuple) and len(target.elts) == 2
                    and all(isinstance(e, ast.Name) for e in target.elts)):
                if target is not None:
                    plan.steps.append(Step(launch.line, "launch with `threads=2` and a single `as cid` target",
                                           "§3.1.1 step 1"))
                continue
            halves = self._tiles_not_splitting(kernel)
            if halves:
                plan.steps.append(Step(launch.line, "add `threads=2` and `as %s` once every vector tile splits in "
                                                    "two: %s" % (target.elts[0].id, "; ".join(
                                                        "line %d %s" % (n, why) for n, why in halves)),
                                       "§3.1.1 step 1", [n for n, _ in halves]))
                continue
            call = launch.call
            last = (call.args + [k.value for k in call.keywords])[-1] if (call.args or call.keywords) else None
            if last is None:
                continue
            first_kw = next((k for k in call.keywords), None)
            if first_kw is not None:
                at = (first_kw.lineno, first_kw.col_offset)
                plan.edits.append(Edit(at, at, "threads=2, "))
            else:
                at = (last.end_lineno, last.end_col_offset)  # type: ignore[attr-defined]
                plan.edits.append(Edit(at, at, ", threads=2"))
            cid = target.elts[0]
            plan.edits.append(Edit((target.lineno, target.col_offset),
                                   (target.end_lineno, target.end_col_offset), cid.id))  # type: ignore
            plan.did("launch moved to threads=2")

    def _tiles_not_splitting(self, kernel) -> List[Tuple[int, str]]:
        """On-chip vector tiles the vid-reduction pass could not halve: a
        first dimension halved by hand (it would be halved again), one row
        or an odd number of rows (lines and why)."""
        from .rules.launch import halved_by_hand

        out: List[Tuple[int, str]] = []
        for use in kernel.uses_of("alloc_ub", maybe=True):
            call = use.use.call
            shape = call.args[0] if isinstance(call, ast.Call) and call.args else None
            first = shape.elts[0] if isinstance(shape, (ast.Tuple, ast.List)) and shape.elts else shape
            if use.via:
                out.append((call.lineno, "(allocated in macro `%s`: check its size)" % use.via[-1].macro.name))
                continue
            if first is None:
                out.append((call.lineno, "(shape not written as a tuple)"))
                continue
            text = ast.get_source_segment(self.src.text, first) or "?"
            if halved_by_hand(kernel, first):
                out.append((call.lineno, "(`%s` is halved by hand: size it to the full tile)" % text))
                continue
            value = kernel.const(first)
            if type(value) is int and (value < 2 or value % 2):
                out.append((call.lineno, "(%d row%s: cannot split in two)" % (value, "" if value == 1 else "s")))
            # a size known only at compile time (`block_M`) is a tile size: split like the guide's examples
        return sorted(set(out))

    def _gm_handoff(self, kernel, uses) -> Optional[Tuple[str, List[int]]]:
        """A GM parameter not named ``*workspace*`` written by one core and
        read by the other (also through a macro's parameter), in a kernel with
        cross-core flags: (name, lines)."""
        from .model.sides import trace

        if not any(u.prim in C.CROSS_CORE_SYNC for u in uses):
            return None
        args = kernel.func.node.args
        params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
        sides: Dict[str, Dict[str, List[int]]] = {}
        for u in kernel.uses_of("copy", maybe=True):
            call = u.use.call
            if not isinstance(call, ast.Call) or len(call.args) < 2:
                continue
            side = kernel.side(u)
            if side not in ("C", "V"):
                side = u.scope_kind if u.scope_kind in ("C", "V") else None
            if side is None:
                continue
            for role, arg in (("read", call.args[0]), ("write", call.args[1])):
                if u.via:  # a macro's parameter: what the kernel passed in
                    arg, owner = trace(arg, u, kernel.func)
                    if owner is not kernel.func:
                        continue
                while isinstance(arg, (ast.Subscript, ast.Attribute)):
                    arg = arg.value
                if isinstance(arg, ast.Name) and arg.id in params and "workspace" not in arg.id.lower():
                    sides.setdefault(arg.id, {}).setdefault(role + side, []).append(u.line)
        for name in sorted(sides):
            seen = sides[name]
            for w, r in (("writeC", "readV"), ("writeV", "readC")):
                if w in seen and r in seen:
                    return name, sorted(set(seen[w] + seen[r]))
        return None

    def _workspace(self, kernel, plan: KernelPlan) -> None:
        args = kernel.func.node.args
        reads: Dict[str, int] = {}
        writes: Dict[str, int] = {}
        for u in kernel.raw_uses:  # T.copy(src, dst) in program order
            call = u.use.call
            if u.prim != "copy" or u.via or not isinstance(call, ast.Call) or len(call.args) < 2:
                continue
            for table, arg in ((reads, call.args[0]), (writes, call.args[1])):
                while isinstance(arg, (ast.Subscript, ast.Attribute)):
                    arg = arg.value
                if isinstance(arg, ast.Name):
                    table[arg.id] = min(table.get(arg.id, call.lineno), call.lineno)
        for arg in args.args + args.kwonlyargs:
            if arg.arg.startswith("workspace"):
                used = sorted({n.lineno for n in ast.walk(kernel.func.node)
                               if isinstance(n, ast.Name) and n.id == arg.arg})
                plan.steps.append(Step(arg.lineno, "replace the GM round trip through `%s` with an on-chip "
                                                   "`T.copy`, then drop the parameter and `workspace_idx`" % arg.arg,
                                       "§3.1.1 steps 2 and 4", used))
            name = arg.arg
            if name in reads and name in writes and reads[name] < writes[name] and plan.target != "Mixed":
                # the scopes ran side by side, ordered by flags; unwrapped, program order is the data flow
                plan.steps.append(Step(reads[name], "`%s` is read here before it is written at line %d: with "
                                                    "the scopes gone, program order is the data flow; interleave "
                                                    "the Cube and Vector steps (one loop) by hand"
                                       % (name, writes[name]), "§3.1 step 3", [writes[name]]))

    # -- pass_configs -----------------------------------------------------------------
    def _key_prefix(self) -> Optional[str]:
        imports = getattr(self.model.resolver.b.module, "imports", {}) if self.model.resolver else {}
        for name, target in imports.items():
            if target == "tilelang":
                return name + ".PassConfigKey."
        for name, target in imports.items():
            if target in C.PASS_CONFIG_KEY_CLASSES:
                return name + "."
        return None

    def _key(self, key: str) -> str:
        if self.key_prefix is not None:
            return self.key_prefix + C.SWITCH_ENUM[key]
        return '"%s"' % key

    def _configs(self, kernel, plan: KernelPlan, switches: Sequence[str]) -> None:
        done: Set[int] = set()
        for site in kernel.sites:
            node = site.site.node
            if id(node) in done:
                continue
            done.add(id(node))
            call = node if isinstance(node, ast.Call) else None
            config = site.config
            needed = [k for k in switches if config.state(k) is not True]
            if not needed:
                continue
            if call is None:  # a bare `@tilelang.jit`
                at = (node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]
                plan.edits.append(Edit(at, at, "(pass_configs=%s)" % self._literal(switches, at[0])))
                plan.did("pass_configs added")
                continue
            kw = next((k for k in call.keywords if k.arg == "pass_configs"), None)
            if kw is None:
                parts = call.args + [k.value for k in call.keywords]
                if parts:
                    last = parts[-1]
                    at = (last.end_lineno, last.end_col_offset)  # type: ignore[attr-defined]
                    plan.edits.append(Edit(at, at, ", pass_configs=%s" % self._literal(switches, at[0])))
                else:
                    at = (call.end_lineno, call.end_col_offset - 1)  # type: ignore[attr-defined]
                    plan.edits.append(Edit(at, at, "pass_configs=%s" % self._literal(switches, at[0])))
                plan.did("pass_configs added")
                continue
            literal = kw.value if isinstance(kw.value, ast.Dict) else self._own_literal(kw.value, kernel)
            if literal is not None and id(literal) in self.wrap and not isinstance(kw.value, ast.Dict):
                literal = None  # its readers want different targets: a kernel-local dict each
            if literal is not None:
                _, _, keys = self._literals.setdefault(id(literal), (literal, config, []))
                keys.extend(k for k in needed if k not in keys)
                plan.did("switches turned on")
            else:
                value = kw.value
                items = ["**" + (ast.get_source_segment(self.src.text, value) or "")]
                items += ["%s: True" % self._key(k) for k in needed]
                text = self._dict_text(items, value.lineno)
                plan.edits.append(Edit((value.lineno, value.col_offset),
                                       (value.end_lineno, value.end_col_offset), text))  # type: ignore
                plan.did("kernel-local pass_configs")

    def _literal(self, keys, line: int) -> str:
        return self._dict_text(["%s: True" % self._key(k) for k in keys], line)

    def _dict_text(self, items: List[str], line: int, width: Optional[int] = None) -> str:
        """``{a, b}``, or one item a line when that would make ``line`` long
        (``width``: the line's length without the text being replaced)."""
        text = "{%s}" % ", ".join(items)
        current = self.src.line_text(line)
        if (len(current) if width is None else width) + len(text) <= 99:
            return text
        indent = current[:len(current) - len(current.lstrip(" \t"))]
        return "{\n%s%s}" % ("".join("%s    %s,\n" % (indent, item) for item in items), indent)

    def _own_literal(self, value: ast.expr, kernel) -> Optional[ast.Dict]:
        """The module-level dict literal a name refers to, when nothing else
        reads that name: no other code of this file, no kernel that is not
        migrated, and no other module of the project (so editing it touches
        only the kernels being migrated)."""
        if not isinstance(value, ast.Name):
            return None
        assigns = [s for s in self.tree.body if isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and any(
            isinstance(n, ast.Name) and n.id == value.id
            for t in (s.targets if isinstance(s, ast.Assign) else [s.target]) for n in ast.walk(t))]
        if len(assigns) != 1 or not isinstance(assigns[0], ast.Assign) or not isinstance(assigns[0].value, ast.Dict):
            return None
        loads = [n for n in ast.walk(self.tree) if isinstance(n, ast.Name) and n.id == value.id
                 and isinstance(n.ctx, ast.Load)]
        if any(id(n) not in self.migrating_values for n in loads):
            return None  # another kernel (or other code) reads it: keep theirs
        if self._importers(assigns[0].value):
            return None  # another module of the project may read it
        return assigns[0].value

    def literals_of(self, kernel) -> List[ast.Dict]:
        """The dict displays this kernel's pass_configs= would edit in place."""
        out = []
        for site in kernel.sites:
            for kw in getattr(site.site.node, "keywords", ()):
                if kw.arg == "pass_configs":
                    literal = kw.value if isinstance(kw.value, ast.Dict) else self._own_literal(kw.value, kernel)
                    if literal is not None:
                        out.append(literal)
        return out

    def literal_edits(self) -> List[Edit]:
        out = KernelPlan("", 0, "")
        for literal, config, keys in self._literals.values():
            self._edit_literal(literal, config, [k for k in SWITCH_ORDER if k in keys], out)
        return out.edits

    def _edit_literal(self, literal: ast.Dict, config, needed: List[str], plan: KernelPlan) -> None:
        present = {}
        for key, val in zip(literal.keys, literal.values):
            if key is None:
                continue
            for k, entry in config.entries.items():
                if entry.node is key:
                    present[k] = val
        missing = [k for k in needed if present.get(k) is None]
        if missing and literal.lineno == literal.end_lineno:
            # one line: rewritten whole, one entry a line when it would get long
            turned = {id(present[k]) for k in needed if present.get(k) is not None}
            items = []
            for key, val in zip(literal.keys, literal.values):
                seg = ast.get_source_segment(self.src.text, val) if id(val) not in turned else "True"
                items.append("**" + (seg or "") if key is None else "%s: %s" % (
                    ast.get_source_segment(self.src.text, key), seg))
            items += ["%s: True" % self._key(k) for k in missing]
            head = self.src.line_text(literal.lineno)
            text = self._dict_text(items, literal.lineno, len(head) - (literal.end_col_offset - literal.col_offset))
            plan.edits.append(Edit((literal.lineno, literal.col_offset),
                                   (literal.end_lineno, literal.end_col_offset), text))  # type: ignore[arg-type]
            return
        for k in needed:
            val = present.get(k)
            if val is not None:
                plan.edits.append(Edit((val.lineno, val.col_offset), (val.end_lineno, val.end_col_offset),
                                       "True"))  # type: ignore[attr-defined]
        if not missing:
            return
        if literal.values:
            last = literal.values[-1]
            multiline = literal.end_lineno != literal.lineno
            end_line = last.end_lineno or last.lineno
            rest = self.src.line_text(end_line).encode("utf-8", "surrogatepass")[last.end_col_offset:].decode(
                "utf-8", "surrogatepass")
            own_line = multiline and end_line < (literal.end_lineno or 0) and (
                rest.strip() in ("", ",") or rest.strip().lstrip(",").strip().startswith("#"))
            if own_line:
                # after the last entry's line (its comma and comment stay where they are)
                indent = self.src.line_text(last.lineno)[:self._first_col(literal)]
                if not rest.lstrip().startswith(","):
                    at = (end_line, last.end_col_offset)  # type: ignore[attr-defined]
                    plan.edits.append(Edit(at, at, ","))
                text = "".join("%s%s: True,\n" % (indent, self._key(k)) for k in missing)
                plan.edits.append(Edit((end_line + 1, 0), (end_line + 1, 0), text))
            elif multiline:
                indent = self.src.line_text(last.lineno)[:self._first_col(literal)]
                text = "".join(",\n%s%s: True" % (indent, self._key(k)) for k in missing)
                at = (last.end_lineno, last.end_col_offset)  # type: ignore[attr-defined]
                plan.edits.append(Edit(at, at, text))
            else:
                text = "".join(", %s: True" % self._key(k) for k in missing)
                at = (last.end_lineno, last.end_col_offset)  # type: ignore[attr-defined]
                plan.edits.append(Edit(at, at, text))
        else:
            at = (literal.end_lineno, literal.end_col_offset - 1)  # type: ignore[attr-defined]
            plan.edits.append(Edit(at, at, ", ".join("%s: True" % self._key(k) for k in missing)))

    def _first_col(self, literal: ast.Dict) -> int:
        first = next((k for k in literal.keys if k is not None), None) or literal.values[0]
        return first.col_offset

    def _todo(self, step: Step) -> Edit:
        text = self.src.line_text(step.line)
        indent = text[:len(text) - len(text.lstrip(" \t"))]
        return Edit((step.line, 0), (step.line, 0), "%s# TODO(migrate, %s): %s\n" % (indent, step.section, step.what))


def _kind(kernel) -> str:
    """"vector" for a kernel with no Cube work at all (the guide's pure
    Vector row), else "cv"."""
    from .inventory import pure_vector

    return "vector" if pure_vector(kernel) else "cv"


_PURE_CALLS = frozenset({"range", "serial", "Pipelined", "Parallel", "unroll", "grid", "len", "min", "max", "abs",
                         "floordiv", "floormod", "ceildiv", "truncdiv", "truncmod", "if_then_else"})


def _pure(expr: ast.expr) -> bool:
    """An ``if`` test or a loop's iterable with no effect of its own (names,
    constants, arithmetic, comparisons, ``range``/``T.serial``/...)."""
    for node in ast.walk(expr):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name not in _PURE_CALLS:
                return False
        elif isinstance(node, (ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom, ast.Lambda)):
            return False
    return True


def _first_name(target) -> str:
    if isinstance(target, (ast.Tuple, ast.List)) and target.elts and isinstance(target.elts[0], ast.Name):
        return target.elts[0].id
    return "cid"


def _files(paths: List[str]) -> str:
    import os

    shown = [p if p == "?" else os.path.relpath(p) for p in paths[:3]]
    return ", ".join(shown) + (" and %d more" % (len(paths) - 3) if len(paths) > 3 else "")


def _lines(lines: List[int], fp: Optional[FilePlan] = None) -> str:
    if fp is not None and fp.notebook is not None:
        shown = ", ".join("cell %(cell)d:%(line)d" % fp.place(n) for n in lines[:12])
        return shown + (", ..." if len(lines) > 12 else "")
    shown = ", ".join(str(n) for n in lines[:12])
    return shown + (", ..." if len(lines) > 12 else "")


# -- the command ------------------------------------------------------------------------

def report_text(plans: List[FilePlan], show_optional: bool = False) -> str:
    """What needs a human first (skipped kernels, then kernels with manual
    steps, each step with every line it concerns), then what was migrated
    cleanly. The optional ``T.tile.*`` rewrites are a count unless
    ``show_optional``."""
    first: List[str] = []
    later: List[str] = []
    optional = 0
    order = {"skipped": 0}
    rows = [(fp, k) for fp in plans for k in fp.kernels
            if k.status != "unchanged" or any(not st.optional for st in k.steps)]
    rows.sort(key=lambda r: (order.get(r[1].status, 1) if r[1].needs_human or r[0].error else 2))
    for fp, k in rows:
        head = "%s: %s (%s): %s" % (fp.at(k.line), k.name, k.mode, k.status)
        if k.status == "skipped":
            head += ": " + k.reason
        elif fp.error:
            head = "%s: %s (%s): not written: %s" % (fp.at(k.line), k.name, k.mode, fp.error)
        else:
            if k.target and k.target != "Developer":
                head += " to %s" % k.target
            if k.actions:
                head += " (%s)" % ", ".join("%s %d" % (a, n) if n > 1 else a for a, n in sorted(k.actions.items()))
        block = first if (k.needs_human or fp.error) else later
        block.append(head)
        for step in sorted(k.steps, key=lambda s: s.line):
            if step.optional and not show_optional:
                optional += 1
                continue
            where = " (lines %s)" % _lines(step.lines, fp) if len(step.lines) > 1 else ""
            block.append("  %s: %s (%s): %s%s" % (fp.at(step.line), "optional" if step.optional else "manual",
                                                  step.section, step.what, where))
    for fp in plans:
        if fp.remaining and fp.new_text is not None:
            codes: Dict[str, int] = {}
            for _, code in fp.remaining:
                codes[code] = codes.get(code, 0) + 1
            later.append("  %s: still reported after migrating: %s" % (
                fp.path, ", ".join("%s %d" % (c, n) for c, n in sorted(codes.items()))))
    out = first + later
    if optional:
        out.append("%d optional `T.tile.*` rewrite%s (§3.1 step 5) not listed: --show-optional lists them" % (
            optional, "" if optional == 1 else "s"))
    return "\n".join(out) + ("\n" if out else "")


def summary(plans: List[FilePlan]) -> Dict[str, object]:
    kernels = [k for fp in plans for k in fp.kernels]
    skipped: Dict[str, int] = {}
    steps: Dict[str, int] = {}
    targets: Dict[str, int] = {}
    optional = 0
    for k in kernels:
        if k.status == "skipped":
            skipped[k.reason.split(":")[0]] = skipped.get(k.reason.split(":")[0], 0) + 1
        for st in k.steps:
            if st.optional:
                optional += 1
            else:
                steps[st.section] = steps.get(st.section, 0) + 1
    migrated = [k for fp in plans for k in fp.kernels if k.status == "migrated" and fp.new_text is not None]
    for k in migrated:
        targets[k.target] = targets.get(k.target, 0) + 1
    return {
        "migrated": len(migrated),
        "targets": targets,
        "skipped": skipped,
        "not_written": sum(1 for fp in plans if fp.error),
        "manual_steps": steps,
        "optional_steps": optional,
    }
