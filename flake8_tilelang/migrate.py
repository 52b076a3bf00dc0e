"""``flake8-tilelang migrate``: the Expert -> Developer conversion of the mode
guide (§3.1 and the table in §3.2), as text edits on the kernel's own file.

Mechanical steps are edits: the four switches on (the kernel's own config
dict edited in place, a shared one wrapped in a kernel-local
``{**SHARED, ...}``), ``alloc_L1``/``alloc_ub`` -> ``alloc_shared``,
``alloc_L0C`` -> ``alloc_fragment``, unused ``alloc_L0A``/``alloc_L0B``
dropped, ``with T.Scope`` blocks unwrapped, hand-written syncs, cross-core
flags and ``T.annotate_address`` removed, and an Expert launch moved to
``threads=2`` when the kernel never reads ``vid``. Semantic steps (``vid``
offsets and halved tiles, the GM workspace round trip, ``T.tile.*`` compute
that may stay) are listed in the report, never guessed. A kernel the model
cannot fully resolve is skipped with the reason. A file is written only when
every edit applied cleanly and the result parses.
"""
from __future__ import annotations

import ast
from typing import Dict, List, Optional, Set, Tuple

from . import constants as C
from .diagnostic import Edit
from .rules import _fix
from .source import SourceFile

SYNC_PRIMS = C.INTRA_CORE_SYNC | C.CROSS_CORE_SYNC
RENAME_ALLOCS = {"alloc_L1": "alloc_shared", "alloc_ub": "alloc_shared", "alloc_L0C": "alloc_fragment"}
DROP_ALLOCS = frozenset({"alloc_L0A", "alloc_L0B"})
SWITCH_ORDER = (C.AUTO_SYNC, C.MEMORY_PLANNING, C.AUTO_CV_COMBINE, C.AUTO_CV_SYNC)


class Step:
    """A manual step for the report: where, what to do, the guide section."""

    __slots__ = ("line", "what", "section")

    def __init__(self, line: int, what: str, section: str):
        self.line = line
        self.what = what
        self.section = section


class KernelPlan:
    __slots__ = ("name", "line", "mode", "status", "reason", "edits", "steps", "actions")

    def __init__(self, name: str, line: int, mode: str):
        self.name = name
        self.line = line
        self.mode = mode
        self.status = "migrated"  # or "skipped", "unchanged"
        self.reason = ""
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
        return self


class FilePlan:
    __slots__ = ("path", "kernels", "new_text", "error", "remaining")

    def __init__(self, path: str):
        self.path = path
        self.kernels: List[KernelPlan] = []
        self.new_text: Optional[str] = None
        self.error: Optional[str] = None
        self.remaining: List[Tuple[int, str]] = []  # (line, code) still reported after migrating


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
    from .inventory import DEVELOPER, UNKNOWN, config_mode, counts, kernel_mode

    planner = _Planner(source, tree, model)
    chosen = []
    for kernel in model.kernels:
        expert = any(counts(kernel).values())
        mode = kernel_mode([config_mode(c, expert) for c in kernel.configs]) if kernel.configs else UNKNOWN
        if only and not only & {kernel.name, kernel.display_name, kernel.display_name.split(".")[0]}:
            continue
        plan = KernelPlan(kernel.display_name, kernel.line, mode)
        out.kernels.append(plan)
        if mode == DEVELOPER:
            plan.status = "unchanged"
            plan.reason = "already Developer"
            continue
        chosen.append((kernel, plan))
    migrating = {id(k.func) for k, _ in chosen}
    for kernel, _ in chosen:  # the pass_configs= values of the kernels being migrated
        for site in kernel.sites:
            node = site.site.node
            for kw in getattr(node, "keywords", ()):
                if kw.arg == "pass_configs":
                    planner.migrating_values.add(id(kw.value))
    for kernel, plan in chosen:
        planner.plan(kernel, plan, migrating, annotate)
    # a macro shared by two migrated kernels is edited once
    edits = list(dict.fromkeys(e for _, p in chosen if p.status == "migrated" for e in p.edits))
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


def apply_edits(source: SourceFile, edits: List[Edit]) -> str:
    """``source.text`` with the edits applied (the fix engine's application).
    Raises ValueError when two edits overlap: a migration is all or nothing."""
    from .fixes import apply_edits as apply_spans

    spans = sorted(((source.offset(*e.start), source.offset(*e.end), e.text) for e in edits),
                   key=lambda s: (s[0], s[1]))
    end = 0
    for start, stop, _ in spans:  # an insertion may open a deletion at the same point
        if start < end:
            raise ValueError("overlapping edits at offset %d" % start)
        end = stop
    return apply_spans(source.text, spans)


class _Planner:
    def __init__(self, source: SourceFile, tree: ast.Module, model):
        self.src = source
        self.tree = tree
        self.model = model
        self.ctx = _fix.current()  # statements, blocks and string lines of this file
        self.migrating_values: Set[int] = set()
        self.key_prefix = self._key_prefix()

    # -- the kernel -----------------------------------------------------------------
    def plan(self, kernel, plan: KernelPlan, migrating: Set[int], annotate: bool) -> None:
        if not kernel.configs or not kernel.sites:
            plan.skip("no compile site found for it in this file")
            return
        for config in kernel.configs:
            if any(config.state(k) is None for k in C.SWITCHES):
                plan.skip("its pass_configs cannot be resolved (%s)" % (config.origin_desc or "pass_configs"))
                return
        if any(site.site.kind == "lower" for site in kernel.sites):
            plan.skip("compiled by tilelang.lower in a PassContext: edit that PassContext's config by hand")
            return
        uses = list(kernel.raw_uses)
        if any(u.prim == "sync_all" for u in uses):
            plan.skip("uses T.sync_all, which CombineCV cannot compile (TLA008): restructure it first")
            return
        for u in uses:
            owner = u.use.owner
            if owner.filename and owner.filename != self.model.filename:
                if u.prim in SYNC_PRIMS or u.prim == "Scope" or u.prim in C.EXPERT_ALLOCS:
                    plan.skip("macro `%s` in another module has Expert primitives" % u.via[-1].macro.name
                              if u.via else "Expert primitives in another module")
                    return
            if u.via and (u.prim in SYNC_PRIMS or u.prim == "Scope" or u.prim in C.EXPERT_ALLOCS
                          or u.prim == "annotate_address"):
                macro = u.use.owner
                users = [k for k in self.model.kernels if any(
                    hop.macro is macro for ku in k.raw_uses for hop in ku.via)]
                if any(id(k.func) not in migrating for k in users):
                    plan.skip("macro `%s` is shared with kernels that are not migrated" % macro.name)
                    return
        removed: Set[int] = set()  # statements deleted (by id)
        unwrapped: List[ast.With] = []
        seen: Set[int] = set()
        for u in uses:
            call = u.use.call
            if id(call) in seen:
                continue
            seen.add(id(call))
            prim = u.prim
            if prim == "Scope" and u.use.with_stmt is not None:
                unwrapped.append(u.use.with_stmt)  # type: ignore[arg-type]
            elif prim in SYNC_PRIMS or prim == "annotate_address":
                stmt = self._statement_of(call)
                if stmt is None:
                    plan.steps.append(Step(call.lineno, "remove `T.%s` by hand (it is part of a larger "
                                                        "statement)" % prim, "§3.1 step 4"))
                    continue
                removed.add(id(stmt))
                plan.did("removed T.%s" % prim if prim != "annotate_address" else "removed T.annotate_address")
            elif prim in RENAME_ALLOCS:
                if self._rename(call, RENAME_ALLOCS[prim], plan):
                    plan.did("%s -> %s" % (prim, RENAME_ALLOCS[prim]))
                else:
                    plan.steps.append(Step(call.lineno, "replace `%s` with `T.%s`" % (prim, RENAME_ALLOCS[prim]),
                                           "§3.2"))
            elif prim in DROP_ALLOCS:
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
                plan.steps.append(Step(call.lineno, "optional: `T.%s` may stay, or become a `T.Parallel` "
                                                    "loop of `T.%s`" % (prim, prim[5:]), "§3.1 step 5"))
        funcs = [kernel.func.node] + list({id(u.use.owner.node): u.use.owner.node for u in uses
                                           if u.via and u.use.owner.filename == self.model.filename}.values())
        deleted_lines = self._delete_statements(funcs, removed, unwrapped, plan)
        for with_stmt in unwrapped:
            self._unwrap(with_stmt, plan, deleted_lines)
        if unwrapped:
            plan.did("unwrapped with T.Scope", len(unwrapped))
        self._launch(kernel, plan)
        self._workspace(kernel, plan)
        self._configs(kernel, plan)
        if annotate:
            for step in plan.steps:
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

    def _delete_statements(self, funcs: List[ast.AST], removed: Set[int], unwrapped: List[ast.With],
                           plan: KernelPlan) -> Set[int]:
        """Delete the removed statements' lines; a block left with nothing
        (an unwrapped scope whose body all goes counts as gone too) gets a
        ``pass``. Returns the deleted line numbers."""
        unwrapped_ids = {id(w) for w in unwrapped}
        memo: Dict[int, bool] = {}

        def gone(stmt: ast.stmt) -> bool:
            if id(stmt) not in memo:
                memo[id(stmt)] = id(stmt) in removed or (
                    id(stmt) in unwrapped_ids and all(gone(s) for s in stmt.body))  # type: ignore[attr-defined]
            return memo[id(stmt)]

        deleted: Set[int] = set()
        every = [node for func in funcs for node in ast.walk(func)]
        for node in every:
            if id(node) not in removed:
                continue
            block = self.ctx.block_of(node)  # type: ignore[arg-type]
            if block is None or self._shares_line(node, block):  # type: ignore[arg-type]
                plan.steps.append(Step(node.lineno, "remove the hand-written primitive on this line by hand "  # type: ignore
                                                    "(it shares the line with another statement)", "§3.1 step 4"))
                removed.discard(id(node))
                memo.clear()
                continue
        for node in every:
            if id(node) in removed:
                first, last = node.lineno, node.end_lineno or node.lineno  # type: ignore[attr-defined]
                plan.edits.append(Edit((first, 0), (last + 1, 0), ""))
                deleted.update(range(first, last + 1))
            for field in ("body", "orelse", "finalbody"):
                block = getattr(node, field, None)
                if not isinstance(block, list) or not block or not isinstance(block[0], ast.stmt):
                    continue
                if id(node) in unwrapped_ids and field == "body":
                    continue  # its statements move to the parent block
                if all(gone(s) for s in block) and any(id(s) in removed or id(s) in unwrapped_ids
                                                       for s in block):
                    first = block[0]
                    indent = self.src.line_text(first.lineno)[:first.col_offset]
                    shift = sum(self._delta(w) for w in unwrapped
                                if w.body[0].lineno <= first.lineno <= (w.end_lineno or 0))
                    indent = indent[:max(0, len(indent) - shift)]
                    plan.edits.append(Edit((first.lineno, 0), (first.lineno, 0), indent + "pass\n"))
        return deleted

    def _delta(self, with_stmt: ast.With) -> int:
        """How many indentation characters unwrapping ``with_stmt`` removes."""
        inner = self.src.line_text(with_stmt.body[0].lineno)
        return (len(inner) - len(inner.lstrip(" \t"))) - len(self._with_indent(with_stmt))

    def _with_indent(self, with_stmt: ast.With) -> str:
        return self.src.line_text(with_stmt.lineno)[:with_stmt.col_offset]

    # -- with T.Scope -----------------------------------------------------------------
    def _unwrap(self, with_stmt: ast.With, plan: KernelPlan, deleted: Set[int]) -> None:
        """The TLA001 fix's unwrapping (header gone, a header comment kept, the
        body dedented outside multi-line strings), minus the lines deleted."""
        edits = _fix.unwrap_with(with_stmt)
        if not edits:
            plan.steps.append(Step(with_stmt.lineno, "unwrap this `with T.Scope` by hand (its body starts on "
                                                     "the header line, or the header has `as`)", "§3.1 step 3"))
            return
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
            if not launch.expert:
                continue
            reads = [n for n in ast.walk(launch.with_stmt) if isinstance(n, ast.Name) and n.id == "vid"
                     and isinstance(n.ctx, ast.Load)]
            target = launch.target
            if reads:
                lines = sorted({n.lineno for n in reads})
                plan.steps.append(Step(launch.line, "remove the `vid` offsets and halved tiles (lines %s), then "
                                                    "launch with `threads=2` and `as cid`" % _lines(lines),
                                       "§3.1.1 steps 1 and 3"))
                continue
            if not (isinstance(target, ast.Tuple) and len(target.elts) == 2
                    and all(isinstance(e, ast.Name) for e in target.elts)):
                continue
            call = launch.call
            last = (call.args + [k.value for k in call.keywords])[-1] if (call.args or call.keywords) else None
            if last is None or call.end_lineno != call.lineno:
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
                plan.steps.append(Step(arg.lineno, "replace the GM round trip through `%s` with an on-chip "
                                                   "`T.copy`, then drop the parameter and `workspace_idx`" % arg.arg,
                                       "§3.1.1 steps 2 and 4"))
            name = arg.arg
            if name in reads and name in writes and reads[name] < writes[name]:
                # the scopes ran side by side, ordered by flags; unwrapped, program order is the data flow
                plan.steps.append(Step(reads[name], "`%s` is read here before it is written at line %d: with "
                                                    "the scopes gone, program order is the data flow; interleave "
                                                    "the Cube and Vector steps (one loop) by hand"
                                       % (name, writes[name]), "§3.1 step 3"))

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

    def _configs(self, kernel, plan: KernelPlan) -> None:
        done: Set[int] = set()
        for site in kernel.sites:
            node = site.site.node
            if id(node) in done:
                continue
            done.add(id(node))
            call = node if isinstance(node, ast.Call) else None
            config = site.config
            needed = [k for k in SWITCH_ORDER if config.state(k) is not True]
            if not needed:
                continue
            if call is None:  # a bare `@tilelang.jit`
                at = (node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]
                plan.edits.append(Edit(at, at, "(pass_configs=%s)" % self._literal(SWITCH_ORDER, at[0])))
                plan.did("pass_configs added")
                continue
            kw = next((k for k in call.keywords if k.arg == "pass_configs"), None)
            if kw is None:
                parts = call.args + [k.value for k in call.keywords]
                if parts:
                    last = parts[-1]
                    at = (last.end_lineno, last.end_col_offset)  # type: ignore[attr-defined]
                    plan.edits.append(Edit(at, at, ", pass_configs=%s" % self._literal(SWITCH_ORDER, at[0])))
                else:
                    at = (call.end_lineno, call.end_col_offset - 1)  # type: ignore[attr-defined]
                    plan.edits.append(Edit(at, at, "pass_configs=%s" % self._literal(SWITCH_ORDER, at[0])))
                plan.did("pass_configs added")
                continue
            literal = kw.value if isinstance(kw.value, ast.Dict) else self._own_literal(kw.value, kernel)
            if literal is not None:
                self._edit_literal(literal, config, needed, plan)
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

    def _dict_text(self, items: List[str], line: int) -> str:
        """``{a, b}``, or one item a line when that would make ``line`` long."""
        text = "{%s}" % ", ".join(items)
        current = self.src.line_text(line)
        if len(current) + len(text) <= 99:
            return text
        indent = current[:len(current) - len(current.lstrip(" \t"))]
        return "{\n%s%s}" % ("".join("%s    %s,\n" % (indent, item) for item in items), indent)

    def _own_literal(self, value: ast.expr, kernel) -> Optional[ast.Dict]:
        """The module-level dict literal a name refers to, when nothing else
        in the file reads that name (so editing it touches only this kernel)."""
        if not isinstance(value, ast.Name):
            return None
        assigns = [s for s in self.tree.body if isinstance(s, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == value.id for t in s.targets)]
        if len(assigns) != 1 or not isinstance(assigns[0].value, ast.Dict):
            return None
        loads = [n for n in ast.walk(self.tree) if isinstance(n, ast.Name) and n.id == value.id
                 and isinstance(n.ctx, ast.Load)]
        if any(id(n) not in self.migrating_values for n in loads):
            return None  # another kernel (or other code) reads it: keep theirs
        return assigns[0].value

    def _edit_literal(self, literal: ast.Dict, config, needed: List[str], plan: KernelPlan) -> None:
        present = {}
        for key, val in zip(literal.keys, literal.values):
            if key is None:
                continue
            for k, entry in config.entries.items():
                if entry.node is key:
                    present[k] = val
        missing = []
        for k in needed:
            val = present.get(k)
            if val is not None:
                plan.edits.append(Edit((val.lineno, val.col_offset), (val.end_lineno, val.end_col_offset),
                                       "True"))  # type: ignore[attr-defined]
            else:
                missing.append(k)
        if not missing:
            return
        if literal.values:
            last = literal.values[-1]
            multiline = literal.end_lineno != literal.lineno
            if multiline:
                indent = self.src.line_text(last.lineno)[:self._first_col(literal)]
                text = "".join(",\n%s%s: True" % (indent, self._key(k)) for k in missing)
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


def _lines(lines: List[int]) -> str:
    shown = ", ".join(str(n) for n in lines[:6])
    return shown + (", ..." if len(lines) > 6 else "")


# -- the command ------------------------------------------------------------------------

def report_text(plans: List[FilePlan]) -> str:
    out = []
    for fp in plans:
        for k in fp.kernels:
            if k.status == "unchanged":
                continue
            head = "%s:%d: %s (%s): %s" % (fp.path, k.line, k.name, k.mode, k.status)
            if k.status == "skipped":
                head += ": " + k.reason
            elif fp.error:
                head = "%s:%d: %s (%s): not written: %s" % (fp.path, k.line, k.name, k.mode, fp.error)
            elif k.actions:
                head += " (%s)" % ", ".join("%s %d" % (a, n) if n > 1 else a for a, n in sorted(k.actions.items()))
            out.append(head)
            for step in sorted(k.steps, key=lambda s: s.line):
                out.append("  %s:%d: manual (%s): %s" % (fp.path, step.line, step.section, step.what))
        if fp.remaining and fp.new_text is not None:
            codes = {}
            for _, code in fp.remaining:
                codes[code] = codes.get(code, 0) + 1
            out.append("  %s: still reported after migrating: %s" % (
                fp.path, ", ".join("%s %d" % (c, n) for c, n in sorted(codes.items()))))
    return "\n".join(out) + ("\n" if out else "")


def summary(plans: List[FilePlan]) -> Dict[str, object]:
    kernels = [k for fp in plans for k in fp.kernels]
    skipped: Dict[str, int] = {}
    steps: Dict[str, int] = {}
    for k in kernels:
        if k.status == "skipped":
            skipped[k.reason.split(":")[0]] = skipped.get(k.reason.split(":")[0], 0) + 1
        for s in k.steps:
            steps[s.section] = steps.get(s.section, 0) + 1
    return {
        "migrated": sum(1 for fp in plans for k in fp.kernels if k.status == "migrated" and fp.new_text is not None),
        "skipped": skipped,
        "not_written": sum(1 for fp in plans if fp.error),
        "manual_steps": steps,
    }
