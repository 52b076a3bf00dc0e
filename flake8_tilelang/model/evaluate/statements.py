"""Statements: assignment, branches, loops, try, with, def, class, import."""
from __future__ import annotations

import ast
import os
from typing import Dict, Optional

from .budget import MAX_LEN, MAX_SIZE, MAX_UNROLL, MAX_WHILE, Budget, Interleaved
from .frames import Abrupt, Frame, Undecided
from .library import DENY, LIBRARY_ROOTS, import_time_effects
from .values import LIBRARY_CONSTANTS
from .values import (
    KW_UNKNOWN, MISSING, PLAIN, UNKNOWN, BoundV, ClassV, DictV, EnumMemberV, FuncV, GenCtxCallV, ImportV, InstanceV,
    ExecutorV, IterV, JitV, LibV, ListV,
    DictViewV, MacroV, Module,
    PropertyV,
    DeferredCallV, ExitStackV, NamespaceV,
    PassContextV,
    MUTATORS, equal_refs, hashable, havoc, havoc_deep, join, lost, join_vars, mklist, record_items, seq_known, spoil_entries, taint_links,
    truth,
)

MATCH = getattr(ast, "Match", None)  # Python 3.10+
# the interpreter's own modules, and the two libraries a kernel module is written against
_NEVER_SHADOWED = frozenset({"sys", "builtins", "tilelang", "tvm"})


class Statements:
    """Mixin of ``Evaluator``: running statements."""

    # -- statements ----------------------------------------------------------
    def block(self, stmts, frame: Frame) -> None:
        for stmt in stmts:
            self.stmt(stmt, frame)

    def stmt(self, node: ast.stmt, frame: Frame) -> None:
        self.steps += 1  # self.tick(), inlined: once per statement run
        if self.steps > self.max_steps:
            raise Budget()
        t = type(node)
        if t is ast.Expr:
            self.expr(node.value, frame)
        elif t is ast.Assign:
            value = self.expr(node.value, frame)
            for target in node.targets:
                self.assign(target, value, frame, node.value)
        elif t is ast.AnnAssign:
            if node.value is not None:
                self.assign(node.target, self.expr(node.value, frame), frame, node.value)
        elif t is ast.AugAssign:
            self.augassign(node, frame)
        elif t in (ast.FunctionDef, ast.AsyncFunctionDef):
            self.funcdef(node, frame)  # binds a name of this frame (its decorators are calls)
        elif t is ast.ClassDef:
            self.effects += 1
            self.classdef(node, frame)
        elif t in (ast.Import, ast.ImportFrom):
            self.effects += 1
            self.import_(node, frame)
        elif t is ast.If:
            self.branch(self.deref(self.expr(node.test, frame)), node.body, node.orelse, frame)
        elif t in (ast.For, ast.AsyncFor):
            self.for_(node, frame)
        elif t is ast.While:
            self.while_(node, frame)
        elif t in (ast.With, ast.AsyncWith):
            self.effects += 1  # context managers entered and left
            entered = 0
            suppress = False
            ending = "normal"
            exits: list = []  # __exit__ of the user's context managers entered, innermost last
            stacks: list = []  # ExitStacks entered: closed when the block ends
            try:
                for item in node.items:
                    value = self.expr(item.context_expr, frame)
                    helper = self.enter_helper(value, item.context_expr) if t is ast.With else None
                    bound = UNKNOWN
                    if type(self.deref(value)) is ExitStackV and t is ast.With:
                        bound = self.deref(value)
                        stacks.append(bound)
                    elif helper is not None:
                        # a helper of the user's that enters PassContexts (also from another module)
                        contexts, leave, may, bound = helper
                        self.contexts.extend(contexts)
                        entered += len(contexts)
                        if leave is not None:
                            exits.append(leave)
                        suppress = suppress or may
                    else:
                        ctx = self.context_of(item.context_expr, value, frame)
                        if ctx is not None:
                            self.contexts.append(ctx)
                            entered += 1
                        suppress = suppress or self.may_suppress(item.context_expr, value, frame)
                    if type(value) is ExecutorV:
                        bound = value  # `with ThreadPoolExecutor() as ex:`: the pool itself
                    if item.optional_vars is not None:
                        # `with overridden(CFG) as cfg:` binds what the generator yields
                        self.assign(item.optional_vars, bound, frame)
                if suppress:
                    self.guarded(node.body, [[]], (), frame)  # the exception may end here
                else:
                    self.block(node.body, frame)
            except Abrupt as e:
                ending = e.kind
                # `contextlib.suppress(...)`, a context manager of the user's: the
                # exception may end here, and the code after the block runs
                if e.kind != "raise" or not suppress:
                    raise
            finally:
                for stack in reversed(stacks):
                    self.close_stack(stack, ending)  # what it entered is on top
                if entered:
                    del self.contexts[-entered:]
                for leave in reversed(exits):
                    leave(ending)
        elif t is ast.Try or type(node).__name__ == "TryStar":
            try:
                self.try_(node, frame)
            finally:
                # runs however the block is left (a return, a break, a raise): what it
                # does is seen by the caller, and its own return/raise wins
                self.block(node.finalbody, frame)
        elif t is ast.Return:
            value = self.expr(node.value, frame) if node.value is not None else None
            frame.returns.append(value)  # an output: what the caller reads once the body is done
            raise Abrupt("return")
        elif t is ast.Raise:
            raise Abrupt("raise")
        elif t is ast.Break:
            raise Abrupt("break")
        elif t is ast.Continue:
            raise Abrupt("continue")
        elif t is ast.Delete:
            self.effects += 1
            for target in node.targets:
                self.delete(target, frame)
        elif t in (ast.Global, ast.Nonlocal):
            self.effects += 1
            if t is ast.Global:
                frame.globals.update(node.names)
        elif t is MATCH:
            self.match(node, frame)
        elif t is ast.Assert:
            # Python runs it (tests do not pass -O): what its test calls happens; a test
            # that is certainly false raises AssertionError
            if truth(self.deref(self.expr(node.test, frame))) is False:
                raise Abrupt("raise")
        # pass, others: nothing to do

    def enter_helper(self, value, node):
        """A ``with`` item that is a context manager of the user's whose entry
        can be followed: (the PassContexts it enters, a callable running its
        ``__exit__`` given how the block ended, or None, whether it may swallow
        an exception, what ``as`` binds), else None."""
        value = self.deref(value)
        if isinstance(value, GenCtxCallV):
            found = self.enter_generator(value)
            if found is None:
                return None
            contexts, yielded, exit_code = found
            if not contexts and exit_code is None:
                return None  # as before: nothing after its yield, and no PassContext seen
            gen_ev = value.func.ev
            return (self.placed(contexts, node, gen_ev), self.generator_exit(gen_ev, exit_code, node), False,
                    yielded)
        if isinstance(value, InstanceV) and not value.opaque:
            found = self.enter_instance(value, node)
            if found is None:
                return None
            contexts, leave = found
            enter = value.cls.lookup("__enter__")
            contexts = self.placed(contexts, node, getattr(enter, "ev", self))

            def run_exit(ending):
                self.call_value(leave, (value, None, None, None), {}, node, self.module_frame)
            return contexts, run_exit, _may_swallow(leave.fn.node), UNKNOWN
        return None

    def generator_exit(self, gen_ev, exit_code, node):
        """What a contextmanager generator runs when its ``with`` block ends
        (``exit_code``: statements after its ``yield``, its ``finally``, and
        its frame): the code after the ``yield`` when the block ends without
        an exception (also by ``return`` or ``break``: the ``yield`` returns),
        the ``finally`` however it ends (an exception is thrown in at the
        ``yield``). A ``return`` there ends the generator; a ``raise``
        propagates from the ``with``."""
        if exit_code is None:
            return None
        after, final, gen_frame = exit_code

        def run_exit(ending):
            stmts = list(final) + ([] if ending == "raise" else list(after))
            if not stmts:
                return

            def run():
                try:
                    gen_ev.block(stmts, gen_frame)
                except Abrupt as e:
                    if e.kind == "raise":
                        raise
            run() if gen_ev is self else self.bridge(gen_ev, run, node)
        return run_exit

    def placed(self, contexts: list, node: ast.expr, ev) -> list:
        """PassContexts a helper of another module entered, placed at the
        ``with`` item in this file (their config's own lines say where the
        switches are set)."""
        if ev is self:
            return contexts
        return [PassContextV(c.config, node, node) if isinstance(c, PassContextV) else c for c in contexts]

    def context_of(self, node: ast.expr, value, frame: Frame):
        """The PassContext a ``with`` item enters: a PassContextV, None when
        it certainly enters none (a library's context manager other than
        TVM's and TileLang's, a plain value), UNKNOWN when it may (a context
        manager of the user's, anything unknown)."""
        value = self.deref(value)
        if isinstance(value, PassContextV):
            return value
        if isinstance(node, ast.Call):
            func = node.func
            while isinstance(func, ast.Attribute):
                func = func.value
            if isinstance(func, ast.Name):
                callee = self.deref(self.expr(node.func, frame))
                if isinstance(callee, LibV) and not _may_enter_pass_context(callee.q):
                    return None
            return UNKNOWN
        if isinstance(value, PLAIN) or isinstance(value, (LibV, DictV, tuple, list)):
            return None
        return UNKNOWN

    def may_suppress(self, node: ast.expr, value, frame: Frame) -> bool:
        """Whether a ``with`` item's ``__exit__`` may swallow an exception:
        ``contextlib.suppress``, or a context manager that is not a library's."""
        if isinstance(self.deref(value), PassContextV):
            return False
        if isinstance(node, ast.Call):
            callee = self.deref(self.expr(node.func, frame)) if isinstance(node.func, (ast.Name, ast.Attribute)) \
                else UNKNOWN
            if isinstance(callee, LibV):
                return callee.q in ("contextlib.suppress",)
        value = self.deref(value)
        return not (isinstance(value, PLAIN) or isinstance(value, (LibV, DictV, tuple, list)))

    def branch(self, test, body, orelse, frame: Frame) -> None:
        value = truth(test)
        if value is True:
            self.block(body, frame)
        elif value is False:
            self.block(orelse, frame)
        else:
            self.uncertain([body, orelse], frame)

    def try_(self, node, frame: Frame) -> None:
        """A handler runs when the body raises (see ``guarded``)."""
        for h in node.handlers:
            if h.name:
                frame.vars[h.name] = UNKNOWN
        try:
            if node.handlers:
                self.guarded(node.body, [h.body for h in node.handlers], node.orelse, frame)
                return
            self.block(node.body, frame)
        except Abrupt as e:
            if e.kind != "raise" or not node.handlers:
                raise
            # raised for certain: a handler may catch it (which one is not
            # told), or none does and it goes on
            self.uncertain([h.body for h in node.handlers] + [[ast.Raise(exc=None, cause=None)]], frame)
            return
        self.block(node.orelse, frame)

    def guarded(self, body, handlers: list, orelse, frame: Frame) -> None:
        """``body``, whose exceptions one of ``handlers`` may catch (a ``try``,
        ``with contextlib.suppress(...)``); then ``orelse`` if it ended. Any
        statement that may raise may do so part way: from the first such
        statement on, each statement of the body may or may not have run
        when a handler starts. Imports of TileLang, TVM and the project's
        own modules are taken to succeed (a kernel is compiled where they
        import); a body that cannot raise otherwise never reaches a handler.
        A certain raise propagates (the caller's handlers take it)."""
        first = None
        for i, stmt in enumerate(body):  # each statement judged in the state it runs in
            if not self.cannot_raise(stmt, frame):
                first = i
                break
            self.stmt(stmt, frame)
        if first is None:
            self.block(orelse, frame)
            return
        rest = body[first:]
        if all(_always_raises(h) for h in handlers):
            # every handler raises again: what follows the `try` ran all of it
            self.block(rest, frame)
            self.block(orelse, frame)
            return

        left: list = []  # the names as the run to the end left them (or as a raise did)
        names = _assigned_names(rest)
        held: list = []  # what those names held after each statement of the rest

        def to_the_end(fr: Frame) -> None:
            try:
                for stmt in rest:
                    self.stmt(stmt, fr)
                    held.extend(fr.vars.get(n) for n in names)
            except Abrupt as e:
                if e.kind == "raise":
                    left.append(dict(fr.vars))
                raise
            left.append(dict(fr.vars))
            self.block(orelse, fr)

        def raised_part_way(fr: Frame) -> None:
            # A handler starts from any point of the rest: a name it binds (or a
            # function it calls rebinds) may hold any of its values, and what it
            # held may be changed through it later. What the rest changes in place
            # is already not certain: the run to the end is a branch of its own.
            for value in held + [fr.vars.get(n) for n in names] + [v.get(n) for v in left for n in names]:
                lost(value)
            if left:
                fr.vars = join_vars(fr.vars, left[0])
            for name in names:
                self.assign_name(name, UNKNOWN, fr)
            self.uncertain(handlers, fr)

        self.uncertain([to_the_end, raised_part_way], frame)

    def cannot_raise(self, stmt, frame: Frame, lookups: bool = True) -> bool:
        t = type(stmt)
        if t is ast.Pass or t is ast.Global or t is ast.Nonlocal:
            return True
        if t is ast.Import or t is ast.ImportFrom:
            if t is ast.ImportFrom and (stmt.level or any(a.name == "*" for a in stmt.names)):
                return bool(stmt.level) and not any(a.name == "*" for a in stmt.names) \
                    and self.in_packages(stmt.level)
            names = [stmt.module] if t is ast.ImportFrom else [a.name for a in stmt.names]
            return all(self.import_assumed(q) for q in names)
        if t is ast.Expr:
            return self.safe_expr(stmt.value, frame, lookups)  # a docstring, `CFG.update(DEV)`
        if t is ast.Assign:
            return all(self.safe_target(x, frame, lookups) for x in stmt.targets) and self.safe_expr(stmt.value, frame, lookups)
        if t is ast.AnnAssign:
            return stmt.value is None or (self.safe_target(stmt.target, frame, lookups) and self.safe_expr(stmt.value, frame, lookups))
        if t is ast.If:
            # its branches are judged in the state before the `if`: no lookups
            return self.safe_expr(stmt.test, frame, lookups) and all(self.cannot_raise(x, frame, False)
                                                                     for x in stmt.body + stmt.orelse)
        if t is ast.FunctionDef or t is ast.AsyncFunctionDef:
            # its defaults and (without `from __future__ import annotations`) annotations run now
            a = stmt.args
            parts = a.defaults + a.kw_defaults + [stmt.returns] + \
                [x.annotation for x in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg] if x is not None]
            return not stmt.decorator_list and all(self.safe_expr(d, frame, lookups) for d in parts if d is not None)
        return False

    def safe_expr(self, node, frame: Frame, lookups: bool = True) -> bool:
        """An expression that cannot raise: constants, names, attributes of
        them, literal tuples / lists / dicts / sets of such, ``not``,
        ``and`` / ``or``, and a lookup the evaluator knows succeeds
        (``PRESETS["dev"]`` of a dict that holds that key)."""
        t = type(node)
        if t is ast.Constant:
            return True
        if t is ast.Name:
            return self.lookup(node.id, frame, MISSING) is not MISSING  # bound: no NameError
        if t is ast.Attribute:
            return self.safe_expr(node.value, frame, lookups)
        if t in (ast.Tuple, ast.List, ast.Set):
            return all(type(e) is not ast.Starred and self.safe_expr(e, frame, lookups) for e in node.elts)
        if t is ast.Dict:
            return all(k is not None and self.safe_expr(k, frame, lookups) for k in node.keys) and \
                all(self.safe_expr(v, frame, lookups) for v in node.values)
        if t is ast.UnaryOp:
            return type(node.op) is ast.Not and self.safe_expr(node.operand, frame, lookups)
        if t is ast.BoolOp:
            return all(self.safe_expr(v, frame, lookups) for v in node.values)
        if t is ast.IfExp:
            return all(self.safe_expr(x, frame, lookups) for x in (node.test, node.body, node.orelse))
        if t is ast.Compare or t is ast.BinOp:
            return self.safe_scalar_op(node, frame)
        if lookups and t is ast.Subscript and type(node.value) is ast.Name and type(node.slice) in _SAFE_LEAVES:
            obj = self.deref(self.lookup(node.value.id, frame))
            key = node.slice.value if type(node.slice) is ast.Constant else self.peek(node.slice, frame)
            return _lookup_succeeds(obj, key)
        if lookups and t is ast.Call and type(node.func) is ast.Attribute and type(node.func.value) is ast.Name \
                and not node.keywords and all(type(a) is not ast.Starred and self.safe_expr(a, frame)
                                              for a in node.args):
            return self.safe_dict_method(node, frame)
        return False

    def safe_scalar_op(self, node, frame: Frame) -> bool:
        """``MODE == "dev"``, ``BLOCK * 2``: constants or names holding a
        builtin number, string, bool or None, compared for (in)equality or
        identity, or added, subtracted, multiplied, divided by a non-zero
        number: such an operation cannot raise."""
        if type(node) is ast.Compare:
            if not all(type(op) in _SAFE_COMPARE for op in node.ops):
                return False
            values = [self._leaf_scalar(x, frame) for x in [node.left] + node.comparators]
            return all(v is not MISSING for v in values)
        op = type(node.op)
        left, right = self._leaf_scalar(node.left, frame), self._leaf_scalar(node.right, frame)
        if left is MISSING or right is MISSING:
            return False
        if type(left) is str or type(right) is str:
            return op is ast.Add and type(left) is str and type(right) is str
        if left is None or right is None:
            return False
        if op in (ast.Add, ast.Sub, ast.Mult):
            return True
        return op in (ast.Div, ast.FloorDiv, ast.Mod) and right != 0 and (op is ast.Div or type(right) is not float)

    def _leaf_scalar(self, node, frame: Frame):
        """The value of a constant or a bound name when it is a builtin
        scalar (MISSING otherwise)."""
        if type(node) is ast.Constant:
            value = node.value
        elif type(node) is ast.Name:
            value = self.deref(self.lookup(node.id, frame, MISSING))
        elif type(node) in (ast.BinOp, ast.Compare) and self.safe_scalar_op(node, frame):
            value = self.deref(self.expr(node, frame))  # `BLOCK * 2 // 4`: nothing to run
        else:
            return MISSING
        return value if type(value) in _SCALARS else MISSING

    def safe_dict_method(self, node: ast.Call, frame: Frame) -> bool:
        """A method of a dict the evaluator holds that cannot raise with these
        arguments: ``CFG.update(DEV)``, ``CFG.get(K)``, ``CFG.pop(K, None)``."""
        obj = self.deref(self.lookup(node.func.value.id, frame))
        if type(obj) is not DictV:
            return False
        method, args = node.func.attr, node.args
        if method in ("copy", "keys", "values", "items", "clear"):
            return not args
        if method == "update":
            if len(args) != 1:
                return False
            other = args[0]
            if type(other) is ast.Dict:
                return all(_known_key(self, k, frame) for k in other.keys)
            return type(self.peek(other, frame)) is DictV
        if not args or len(args) > 2 or not _known_key(self, args[0], frame):
            return False
        if method in ("get", "setdefault"):
            return True
        return method == "pop" and len(args) == 2

    def peek(self, node, frame: Frame):
        """The value of a name or of ``NAME[key]`` (a constant or a name as the
        key) in a dict or sequence the evaluator holds, read without running
        anything; UNKNOWN otherwise."""
        if type(node) is ast.Name:
            return self.deref(self.lookup(node.id, frame))
        if type(node) is ast.Subscript and type(node.value) is ast.Name and type(node.slice) in _SAFE_LEAVES:
            obj = self.peek(node.value, frame)
            key = node.slice.value if type(node.slice) is ast.Constant else self.peek(node.slice, frame)
            if _lookup_succeeds(obj, key):
                return self.deref(obj.entries[key][0] if type(obj) is DictV else obj[key])
        return UNKNOWN

    def in_packages(self, level: int) -> bool:
        """Whether a relative import of ``level`` dots is taken to succeed:
        this module's folder and the ``level - 1`` above it are packages
        (each has an ``__init__.py``). Otherwise it works only in some runs:
        `python scripts/run.py` has no parent package at all, and an import
        that climbs into a folder without ``__init__.py`` goes beyond the
        top-level package unless that folder is imported as a namespace
        package; a ``try`` around it may take its handler."""
        folder = os.path.dirname(os.path.abspath(self.filename))
        for _ in range(level):
            if not os.path.isfile(os.path.join(folder, "__init__.py")):
                return False
            folder = os.path.dirname(folder)
        return True

    def import_assumed(self, q) -> bool:
        """An import taken to succeed: TileLang, TVM, a module of the project."""
        if not q:
            return False
        root = q.split(".")[0]
        if root in ("tilelang", "tvm"):
            return True
        try:
            return self.resolver.loader.split(q, self.filename, quick=True) is not None
        except Exception:
            return False

    def safe_target(self, target, frame: Frame, lookups: bool = True) -> bool:
        if type(target) is ast.Name:
            return True
        if lookups and type(target) is ast.Subscript and type(target.value) is ast.Name and \
                self.safe_expr(target.slice, frame):
            return type(self.deref(self.lookup(target.value.id, frame))) is DictV  # a dict store
        if type(target) in (ast.Tuple, ast.List):
            return False  # unpacking may not match
        return False

    def uncertain(self, blocks, frame: Frame) -> None:
        """Run each block from the same state, in a branch of its own; join
        the states of the blocks that fall through."""
        start = dict(frame.vars)
        saved = self.token
        ends = []
        returns_before = len(frame.returns)
        loop = self.loops[-1] if self.loops else None
        jumps: dict = {"break": [], "continue": []}
        for body in blocks:
            frame.vars = dict(start)
            self.token = self.fork_token()
            try:
                if callable(body):
                    body(frame)
                else:
                    self.block(body, frame)
                ends.append(frame.vars)
            except Abrupt as e:
                if e.kind in ("break", "continue"):
                    (jumps[e.kind] if loop is not None else ends).append(frame.vars)
            finally:
                self.token = saved
        if not ends:
            if jumps["continue"]:
                # every way on leaves the iteration: a possible break is kept for the loop
                loop["break"].extend(jumps["break"])  # type: ignore[index]
                frame.vars = _join_all(jumps["continue"])
                raise Abrupt("continue")
            if jumps["break"]:
                frame.vars = _join_all(jumps["break"])
                raise Abrupt("break")
            frame.vars = start
            if len(frame.returns) > returns_before:
                raise Abrupt("return")
            raise Abrupt("raise")
        frame.vars = _join_all(ends)
        if jumps["break"] or jumps["continue"]:
            # the rest of this iteration may not run: its mutations are not certain,
            # and the loop joins the states the jumps left with
            loop["break"].extend(jumps["break"])  # type: ignore[index]
            loop["continue"].extend(jumps["continue"])  # type: ignore[index]
            self.token = self.fork_token()

    def for_(self, node, frame: Frame) -> None:
        value = self.iter_of(self.deref(self.expr(node.iter, frame)))  # `for tile in TileSpace(...)`
        if type(value) is IterV:
            # a loop that may stop early (`break`, `return`) leaves the rest of it; its
            # body must not take items from it too (see Interleaved)
            it = value
            source = self.take(it) if not it.looping else None
            if source is not None:
                # a generator, generator expression, `map`, `filter`: each item is made just
                # before the body runs for it, as CPython makes it (what the body changes, the
                # next item sees; what making an item changes, the body sees); a loop left by a
                # break leaves the rest for the next consumer
                state = {"undecided": False, "done": False}
                it.looping = True
                try:
                    self.loop_over(node, frame, self.until_undecided(source, state), state)
                finally:
                    it.looping = False
                return
            value = self.drain(it, stops_early=_may_leave(node.body))
            it.looping = True
            try:
                self.loop_over(node, frame, self.iterate(value))
            finally:
                it.looping = False
            return
        items = self.iterate(value)
        if type(value) is ListV and items is not None and not (len(items) > 8 and all(type(i) is int for i in items)):
            # a list is read by index as the loop goes, as CPython's iterator reads it: an item
            # the body appends (a worklist of configs) is reached, one it removes is skipped
            state = {"undecided": False, "done": False}
            self.loop_over(node, frame, self.until_undecided(self.live_items(value), state), state)
            return
        self.loop_over(node, frame, items)

    def take(self, it: IterV):
        """A Python iterator over the items ``it`` has left, made one at a time
        as a consumer here asks for them (see ``stream``): a generator,
        generator expression, ``map``, ``filter`` not read yet starts; one a
        consumer in this same branch left part way (a loop's ``break``,
        ``next``) goes on where it stopped, as CPython's does. None when what
        is left is not known: read by a consumer in a branch that may not have
        run (what is left then runs on in a branch of its own, see ``leave``),
        or an iterator of another kind."""
        if it.lazy is not None:
            if it.spent or it.lazy[4] is not self:
                return None
            kind, node, frame, first, _ = it.lazy
            it.lazy = None
            it.spent = True
            it.source = self.lazy_items(kind, node, frame, first)
        elif it.source is None or it.mark != self.token:
            if it.source is not None:
                source, it.source = it.source, None
                self.leave([source])
            return None
        return self._marked(it, it.source)

    def pending(self, it: IterV) -> bool:
        """Whether ``take`` gives what ``it`` has left here: its items are made
        as a consumer asks for them (not read yet, or left part way in this
        branch)."""
        if it.looping:
            return False
        if it.lazy is not None:
            return not it.spent and it.lazy[4] is self
        return it.source is not None and it.mark == self.token

    def _marked(self, it: IterV, source):
        while True:
            if it.source is not source:
                raise Undecided()  # a consumer in another branch took what is left
            it.mark = self.token
            self.depth += 1  # a generator driving another (`yield from`) is a call deeper
            try:
                item = next(source)
            except StopIteration:
                # nothing is left (unless read in a branch): the source stays, ended, so a
                # wrapper of another consumer on it ends too
                it.exhausted = self.precise(it)
                return
            except Undecided:
                it.source = None  # its rest was read as unknown where it stopped
                raise
            finally:
                self.depth -= 1
            yield item

    @staticmethod
    def until_undecided(items, state: dict):
        """``items`` (a Python iterator that may raise Undecided) for
        ``loop_over``: ``state["undecided"]`` when the rest cannot be told,
        ``state["done"]`` when it ran to its end."""
        try:
            yield from items
        except Undecided:
            state["undecided"] = True
            return
        state["done"] = True

    @staticmethod
    def live_items(lst: ListV):
        """A list's items read one at a time by index, as CPython's list
        iterator reads them: what the consumer appends between items is
        reached. Raises Undecided once its items are not known, or past
        MAX_UNROLL of them."""
        i = 0
        while True:
            if lst.spoiled or i >= MAX_UNROLL:
                raise Undecided()
            if i >= len(lst):
                return
            yield lst[i]
            i += 1

    def lazy_items(self, kind: str, node, frame: Frame, first):
        """A generator expression's, ``map``'s or ``filter``'s items, made one
        at a time (see ``comprehension_items``, ``map_rows``)."""
        if kind == "gen":
            return self.comprehension_items(node, frame, first)
        if kind == "call":
            return self.generator_items(first, frame)  # a generator function's call
        if kind == "wrap":
            return self.wrapped_items(*first)
        return self.map_rows(first, node, frame, keep=kind == "filter")

    def loop_over(self, node, frame: Frame, items, lazy: Optional[dict] = None) -> None:
        if lazy is None and items is not None and len(items) > 8 and all(type(i) is int for i in items):
            items = None  # a numeric loop (test data, shapes): once, as if any iteration
        if items is None:
            self.assign(node.target, UNKNOWN, frame)
            self.unknown_loop(node, frame)
            return
        loop: dict = {"break": [], "continue": []}
        self.loops.append(loop)
        saved = self.token
        broke: list = []  # states left by a break that may have happened
        try:
            for item in items:
                self.assign(node.target, item, frame)
                if self.iteration(node.body, frame, loop, broke):
                    if broke:
                        frame.vars = _join_all(broke + [frame.vars])
                    return  # certain: nothing after it runs, no else
            if lazy is not None and lazy["undecided"]:
                # the items after these are not known: the rest of the loop, as any such
                self.assign(node.target, UNKNOWN, frame)
                self.unknown_loop(node, frame)
                if broke:
                    frame.vars = _join_all([frame.vars] + broke)
                return
            self.block(node.orelse, frame)  # under the fork token when a break may have happened
            if broke:
                frame.vars = _join_all([frame.vars] + broke)
        finally:
            self.loops.pop()
            self.token = saved

    def iteration(self, body, frame: Frame, loop: dict, broke: list) -> bool:
        """One run of a loop's body; True when it certainly breaks out. A
        `continue` that may happen joins its state in; a `break` that may
        happen is kept in ``broke``, and the iterations after it run in a
        branch of their own."""
        try:
            self.block(body, frame)
        except Abrupt as e:
            if e.kind == "break":
                return True
            if e.kind != "continue":
                raise
        if loop["continue"]:
            frame.vars = _join_all([frame.vars] + loop["continue"])
            loop["continue"].clear()
        if loop["break"]:
            broke.extend(loop["break"])
            loop["break"].clear()
            self.token = self.fork_token()
        return False

    def while_(self, node, frame: Frame) -> None:
        """Iterations run one by one while the test is known to hold (at most
        MAX_WHILE of them); the rest of a loop whose test turns unknown, or
        that runs longer, is an unknown loop from the state reached."""
        loop: dict = {"break": [], "continue": []}
        self.loops.append(loop)
        saved = self.token
        broke: list = []  # states left by a break that may have happened
        rest = False  # the loop goes on as an unknown loop
        try:
            for count in range(MAX_WHILE + 1):
                test = truth(self.deref(self.expr(node.test, frame)))
                if test is False:
                    self.block(node.orelse, frame)  # under the fork token when a break may have happened
                    break
                if test is not True or count == MAX_WHILE:
                    rest = True
                    break
                if self.iteration(node.body, frame, loop, broke):
                    if broke:
                        frame.vars = _join_all(broke + [frame.vars])
                        broke = []
                    break  # certain: no more iterations, no else
        except BaseException:
            self.token = saved  # a return or raise leaves the loop: the caller's branch again
            raise
        finally:
            self.loops.pop()
        try:
            if rest:
                self.unknown_loop(node, frame, test_too=True)
        finally:
            self.token = saved
        if broke:
            frame.vars = _join_all([frame.vars] + broke)

    def unknown_loop(self, node, frame: Frame, test_too: bool = False) -> None:
        """A loop whose iterations cannot be told (how many, over what): the
        names it assigns and the containers it mutates by name are unknown
        from the start, then its body runs in a branch of its own, twice (a
        value one iteration leaves for the next is seen), and its ``else``
        may run."""
        names = self.loop_names.get(id(node))
        if names is None:
            body = node.body
            if test_too:  # a while loop: its test runs before each iteration (a walrus, a call)
                test = ast.Expr(value=node.test)
                ast.copy_location(test, node.test)
                body = [test] + body
            names = self.loop_names[id(node)] = (_assigned_names(body), _mutated_names(body), body)
        for name in names[0]:
            # what it held may still be what it holds (the loop may not run, or not rebind it):
            # a change made through the unknown value may reach it
            lost(self.lookup(name, frame, None))
            self.assign_name(name, UNKNOWN, frame)
        for name in names[1]:
            if havoc(self.deref(self.lookup(name, frame))):
                self.effects += 1  # changed in place: an outer pass read it before
        loop: dict = {"break": [], "continue": []}
        self.loops.append(loop)
        try:
            for second in (False, True):
                before, start = self.effects, dict(frame.vars)
                try:
                    self.uncertain([names[2], []], frame)
                except Abrupt as e:
                    if e.kind not in ("break", "continue"):
                        raise
                frame.vars = _join_all([frame.vars] + loop["break"] + loop["continue"])
                loop["break"].clear()
                loop["continue"].clear()
                if not second and self.effects == before and _same_state(start, frame.vars):
                    # the second pass would start from the state the first one
                    # started from, and change nothing outside this frame: it
                    # would see exactly what the first one saw (nested loops of
                    # reference code would otherwise run 2^depth times)
                    break
        finally:
            self.loops.pop()
        self.uncertain([node.orelse, []], frame)

    def iter_of(self, value):
        """What iterating ``value`` goes over: for an instance of a class of
        the user's with its own ``__iter__`` (a generator method, typically),
        what the method returns, called now (UNKNOWN when that is an instance
        again, ``__iter__`` returning ``self``); ``value`` itself otherwise."""
        if type(value) is not InstanceV or value.opaque or record_items(value) is not None:
            return value
        hook = value.cls.lookup("__iter__")
        if type(hook) is not FuncV or hook.kind:
            return value
        result = self.deref(self.call_value(BoundV(hook, value), (), {}, None, self.module_frame))
        return UNKNOWN if type(result) is InstanceV else result

    def iterate(self, value) -> Optional[list]:
        value = self.iter_of(self.deref(value))
        if value is UNKNOWN and self.handles:
            self.consume_unknown()
        if type(value) is IterV:
            value = self.drain(value)
        if type(value) is DeferredCallV:
            self.run_deferred(value)  # a generator runs when it is iterated; its items are not followed
            return None
        if isinstance(value, (tuple, list)) and not seq_known(value):
            return None
        if type(value) is InstanceV:
            value = record_items(value)  # a NamedTuple: its fields' values
        if isinstance(value, ClassV) and value.kind == "enum" and not value.opaque:
            seq = list({id(m): m for m in value.members.values()}.values())  # aliases once
        elif isinstance(value, (tuple, list, str)):
            seq = list(value)
        elif isinstance(value, DictV) and value.exact():
            seq = list(value.entries)
        else:
            return None
        return seq if len(seq) <= MAX_UNROLL else None

    def stream(self, value):
        """The items of ``value`` for a consumer that takes them one at a time
        and runs its own code between them (a comprehension's clause, a
        generator's ``for``): a generator expression, ``map``, ``filter`` or
        generator not consumed yet makes each item when it is asked for, as
        CPython does (a Python iterator); anything else as ``iterate`` reads
        it (None: not known)."""
        value = self.iter_of(self.deref(value))
        if type(value) is IterV and not value.looping:
            source = self.take(value)
            if source is not None:
                return source
        if type(value) is ListV:
            return self.live_items(value) if seq_known(value) and len(value) <= MAX_UNROLL else None
        return self.iterate(value)

    def drain(self, it: IterV, stops_early: bool = False):
        """The items of a one-shot iterator its consumer reads (a tuple), or
        UNKNOWN when it was consumed before. A generator expression's items
        are made now; for a consumer that may stop before the end
        (``any``, ``next``, ``zip``), in a branch of their own."""
        if it.looping:
            raise Interleaved()  # `for x in it: ... list(it)`: the loop's items are not all its own
        if it.spent:
            if it.exhausted:
                return ()
            source = self.take(it)  # left part way by a consumer: what is left, if it is known
            if source is None:
                return UNKNOWN
            try:
                if stops_early:
                    with self.forked():
                        return self.bounded(tuple(source))
                return self.bounded(tuple(source))
            except Undecided:
                return UNKNOWN
        it.spent = True
        if it.lazy is None:
            items = it.items
        else:
            kind, node, frame, first, ev = it.lazy
            it.lazy = None

            def make():
                try:
                    return ev.bounded(tuple(ev.lazy_items(kind, node, frame, first)))
                except Undecided:
                    return UNKNOWN

            def run():
                if stops_early:
                    with ev.forked():
                        return make()
                return make()

            items = run() if ev is self else self.bridge(ev, run, node)
            if type(items) is not tuple:
                return UNKNOWN
        # run to its end by a consumer that certainly ran: nothing is left
        it.exhausted = not stops_early and self.precise(it)
        return items

    def spend(self, it: IterV) -> None:
        """Something not followed may consume ``it`` (part of it, or all):
        a generator expression's items may be made (what that changes is
        uncertain); afterwards what is left is unknown."""
        if not it.spent:
            self.drain(it, stops_early=True)
        elif not it.exhausted and it.source is not None:
            source, it.source = it.source, None  # left part way: the rest may be made, or not
            self.leave([source])

    def match(self, node, frame: Frame) -> None:
        subject = self.expr(node.subject, frame)
        for case in node.cases:
            binds: dict = {}  # the names the pattern captures: stored only if it matches
            ok = self.pattern(case.pattern, subject, frame, binds)
            guarded = False
            if ok is True:
                for name, value in binds.items():
                    self.assign_name(name, value, frame)
                if case.guard is not None:
                    ok = truth(self.expr(case.guard, frame))  # the names stay bound if it fails
                    guarded = True  # it ran, here: the branch below does not run it again
            if ok is True:
                self.block(case.body, frame)
                return
            if ok is not False:
                # undecidable from here on: any remaining case, or none. Each runs in a
                # branch of its own, with what its own pattern captures from the subject
                # (a name it may capture but not known is unknown there)
                later = node.cases[node.cases.index(case):]
                self.uncertain([self.case_branch(c, subject, (ok, binds, guarded) if c is case else None)
                                for c in later] + [[]], frame)
                return

    def case_branch(self, case, subject, matched):
        """A ``case`` of an undecided ``match``, as a branch for ``uncertain``:
        its pattern (``matched``: its outcome and captures, when already
        judged), the names it captures bound, its guard, its body."""
        def run(frame: Frame) -> None:
            ok, binds, guarded = matched if matched is not None else (None, {}, False)
            if matched is None:
                ok = self.pattern(case.pattern, subject, frame, binds)
            if ok is False:
                return  # this case cannot be the one that matches
            if not guarded:
                for name in _captured(case.pattern):
                    value = binds.get(name, UNKNOWN)
                    if value is UNKNOWN:
                        lost(subject)  # some part of the subject, maybe: changed through the name
                    self.assign_name(name, value, frame)
                if case.guard is not None and truth(self.expr(case.guard, frame)) is False:
                    return
            self.block(case.body, frame)
        return run

    def pattern(self, pat, subject, frame: Frame, binds: dict):
        """Whether ``subject`` matches ``pat``: True, False or UNKNOWN; the
        names it captures go into ``binds``."""
        if isinstance(pat, ast.MatchAs):
            ok = True if pat.pattern is None else self.pattern(pat.pattern, subject, frame, binds)
            if pat.name:
                binds[pat.name] = subject  # `case x:`, `case (1 | 2) as small:`
            return ok
        if isinstance(pat, ast.MatchValue):
            value = self.deref(self.expr(pat.value, frame))
            subject = self.deref(subject)
            if isinstance(value, PLAIN) and isinstance(subject, PLAIN):
                return subject == value
            if isinstance(value, PLAIN) and type(subject) in (DictV, ListV, tuple):
                return False  # a dict, list or tuple never equals a number or a string
            return equal_refs(subject, value)  # `case Mode.EXPERT:`
        if isinstance(pat, ast.MatchSingleton):
            if type(subject) is EnumMemberV:
                return False  # `case None:` against a member
            return pat.value is subject if isinstance(subject, PLAIN) else UNKNOWN
        if isinstance(pat, ast.MatchOr):
            undecided = False
            for alternative in pat.patterns:  # the first that matches binds the names
                mine: dict = {}
                ok = self.pattern(alternative, subject, frame, mine)
                if ok is True and not undecided:
                    binds.update(mine)
                    return True
                if ok is not False:
                    undecided = True
                    binds.update(dict.fromkeys(mine, UNKNOWN))
            return UNKNOWN if undecided else False
        if isinstance(pat, ast.MatchMapping):
            return self.mapping_pattern(pat, self.deref(subject), frame, binds)
        if isinstance(pat, ast.MatchSequence):
            return self.sequence_pattern(pat, self.deref(subject), frame, binds)
        if isinstance(pat, ast.MatchClass):
            return self.class_pattern(pat, self.deref(subject), frame, binds)
        return UNKNOWN

    def class_pattern(self, pat, subject, frame: Frame, binds: dict):
        """``case str():``, ``case int(n):``: a builtin type (one positional
        pattern matches the subject itself); other classes are not read."""
        cls = self.deref(self.expr(pat.cls, frame))
        if type(cls) is ClassV:
            return self.user_class_pattern(cls, pat, subject, frame, binds)
        types = _BUILTIN_TYPES.get(cls.q) if type(cls) is LibV else None
        if types is None or pat.kwd_patterns or len(pat.patterns) > 1:
            return UNKNOWN
        if isinstance(subject, PLAIN) or type(subject) in (tuple, ListV, DictV):
            ok = isinstance(subject, types) if type(subject) is not DictV else dict in types
        else:
            return UNKNOWN  # an object: a subclass, maybe
        if ok and pat.patterns:
            return self.pattern(pat.patterns[0], subject, frame, binds)
        return ok

    def user_class_pattern(self, cls, pat, subject, frame: Frame, binds: dict):
        """``case Auto():``, ``case Tiled(block=b):`` with a class of the user's:
        an instance of it (or of a subclass), then each keyword pattern
        against that attribute. Positional patterns (``__match_args__``) are
        not read."""
        if cls.opaque or pat.patterns or cls.mro() is None:
            return UNKNOWN
        if isinstance(subject, PLAIN) or type(subject) in (tuple, ListV, DictV):
            return False  # a plain class of the user's is none of these
        if type(subject) is not InstanceV:
            return UNKNOWN
        mro = subject.cls.mro()
        if mro is None:
            return UNKNOWN
        if not any(c is cls for c in mro):
            return False if not subject.cls.opaque and not any(c.opaque for c in mro) else UNKNOWN
        matched = True
        for name, sub in zip(pat.kwd_attrs, pat.kwd_patterns):
            if subject.opaque or (name not in subject.attrs and subject.cls.lookup(name) is MISSING):
                return UNKNOWN  # the attribute may be missing (no match) or set where not followed
            ok = self.pattern(sub, self.deref(self.getattr_(subject, name)), frame, binds)
            if ok is False:
                return False
            if ok is not True:
                matched = UNKNOWN
        return matched

    def mapping_pattern(self, pat, subject, frame: Frame, binds: dict):
        """``case {"mode": "dev", "threads": t, **rest}:``: a dict holding
        those keys, each value matching its pattern."""
        if type(subject) is not DictV:
            # a number, string, tuple or list is not a mapping; an object may be one
            return False if isinstance(subject, (PLAIN, tuple, list)) else UNKNOWN
        matched = True
        keys = []
        for key_node, sub in zip(pat.keys, pat.patterns):
            key = self.deref(self.expr(key_node, frame))
            if key is UNKNOWN or not hashable(key):
                return UNKNOWN
            keys.append(key)
            if key not in subject.entries or subject.maybe_absent(key):
                if key not in subject.entries and subject.complete:
                    return False
                matched = UNKNOWN
                continue
            ok = self.pattern(sub, subject.entries[key][0], frame, binds)
            if ok is False:
                return False
            if ok is not True:
                matched = UNKNOWN  # a later key may still fail it
        if pat.rest:
            rest = DictV(self.token, {k: e for k, e in subject.entries.items() if k not in keys}, subject.complete)
            for k in subject.loose or ():
                if k in rest.entries:
                    rest.make_loose(k)
            binds[pat.rest] = rest
        return matched

    def sequence_pattern(self, pat, subject, frame: Frame, binds: dict):
        """``case [first, *rest]:``: a tuple or list (not a string) of that
        length, each item matching its pattern; the starred name a list."""
        if isinstance(subject, (PLAIN, DictV)):
            return False  # strings are not sequences to `match`
        if not seq_known(subject):
            return UNKNOWN
        items = list(subject)
        stars = [i for i, p in enumerate(pat.patterns) if isinstance(p, ast.MatchStar)]
        n = len(pat.patterns)
        if (not stars and len(items) != n) or (stars and len(items) < n - 1):
            return False
        if stars:
            i = stars[0]
            after = n - i - 1
            pairs = list(zip(pat.patterns[:i], items[:i])) + \
                list(zip(pat.patterns[i + 1:], items[len(items) - after:]))
            if pat.patterns[i].name:
                binds[pat.patterns[i].name] = mklist(items[i:len(items) - after], self.token)
        else:
            pairs = list(zip(pat.patterns, items))
        matched = True
        for sub, item in pairs:
            ok = self.pattern(sub, item, frame, binds)
            if ok is False:
                return False
            if ok is not True:
                matched = UNKNOWN
        return matched

    def funcdef(self, node, frame: Frame) -> None:
        fn = self.by_node.get(id(node))
        if fn is None:
            self.assign_name(node.name, UNKNOWN, frame)
            return
        # as CPython runs a `def`: the decorator expressions (top to bottom), the defaults,
        # then the decorators applied (bottom to top)
        decorators = [self.expr(dec, frame) for dec in node.decorator_list]
        args = node.args
        positional = list(args.posonlyargs) + list(args.args)
        defaults: Dict[str, object] = {}
        for a, d in zip(positional[len(positional) - len(args.defaults):], args.defaults):
            defaults[a.arg] = self.expr(d, frame)
        for a, d in zip(args.kwonlyargs, args.kw_defaults):
            if d is not None:
                defaults[a.arg] = self.expr(d, frame)
        closure = frame if frame.kind != "class" else frame.parent
        value: object = FuncV(fn, closure, defaults, self, home=frame if frame.kind == "class" else None)
        for dec, deco in zip(reversed(node.decorator_list), reversed(decorators)):
            value = self.apply(deco, value, dec, frame)
        self.assign_name(node.name, value, frame)

    def apply(self, deco, value, node: ast.AST, frame: Frame):
        """``@deco`` on ``value``."""
        deco = self.deref(deco)
        if isinstance(deco, LibV):
            if deco.q == "staticmethod" and isinstance(value, FuncV):
                return FuncV(value.fn, value.closure, value.defaults, value.ev, "static", value.home)
            if deco.q == "classmethod" and isinstance(value, FuncV):
                return FuncV(value.fn, value.closure, value.defaults, value.ev, "class", value.home)
            if deco.q == "property" and isinstance(value, FuncV) and not value.kind:
                return PropertyV(value)
            if deco.q == "functools.cached_property" and isinstance(value, FuncV) and not value.kind:
                return PropertyV(value, cached=True)
            if deco.q in ("staticmethod", "classmethod") and isinstance(value, JitV):
                return value
            if deco.q == "staticmethod" and isinstance(value, MacroV):
                return value  # read through the class or an instance, the macro as it is
            if isinstance(value, FuncV) and value.fn.is_macro and deco.q.startswith("tilelang.language.") \
                    and deco.q.endswith(".macro"):
                return MacroV(value.fn, value.closure)
        return self.call_value(deco, (value,), {}, node, frame)

    def classdef(self, node: ast.ClassDef, frame: Frame) -> None:
        scope = self.classes_by_node.get(id(node))
        # as CPython runs a `class`: the decorator expressions first, then the bases,
        # keywords and body; the decorators apply last (bottom to top)
        decorators = [self.deref(self.expr(dec, frame)) for dec in node.decorator_list]
        bases: list = []
        kind, opaque = "", False
        for b in node.bases:
            base = self.deref(self.expr(b, frame))
            if isinstance(base, ClassV):
                bases.append(base)
                if base.kind == "enum":
                    kind = "enum"
                opaque = opaque or base.opaque or base.kind == "namedtuple"
            elif isinstance(base, LibV) and base.q == "object":
                continue
            elif isinstance(base, LibV) and base.q in NAMEDTUPLE_BASES:
                kind = "namedtuple"
            elif isinstance(base, LibV) and base.q in ENUM_BASES:
                kind = "enum"
                # members of IntEnum / StrEnum / Flag equal plain values (and
                # hash as them): their comparisons and keys are not told
                opaque = opaque or base.q != "enum.Enum"
            else:
                opaque = True  # a base the evaluator does not model
        # the class keywords (a metaclass, arguments of __init_subclass__), evaluated before the body
        keywords: Dict[str, tuple] = {}
        for kw in node.keywords:
            keywords[kw.arg if kw.arg is not None else KW_UNKNOWN] = (self.expr(kw.value, frame), kw.value)
        cls_frame = Frame("class", frame, frame.module, scope)
        try:
            self.block(node.body, cls_frame)
        except Abrupt:
            opaque = True
        fields = _annotated_fields(node)
        value: object = None
        maker, frozen = "", False
        for dec_node, deco in zip(reversed(node.decorator_list), reversed(decorators)):
            q = deco.q if isinstance(deco, LibV) else None
            if isinstance(dec_node, ast.Call):
                callee = self.deref(self.expr(dec_node.func, frame))
                q = callee.q if isinstance(callee, LibV) else None
                if q in DATACLASS_DECORATORS and any(kw.arg == "init" or kw.arg is None for kw in dec_node.keywords):
                    q = None  # init=False, **options: a constructor not told
            if q in DATACLASS_DECORATORS and kind in ("", "dataclass"):
                kind = "dataclass"
                maker = q
                frozen = q in ("attr.frozen", "attrs.frozen")
                for kw in dec_node.keywords if isinstance(dec_node, ast.Call) else ():
                    if kw.arg == "frozen":
                        if not isinstance(kw.value, ast.Constant):
                            opaque = True  # whether a field can be set is not told
                        frozen = bool(getattr(kw.value, "value", False))
            elif q in TRANSPARENT_CLASS_DECORATORS:
                pass
            else:
                value = UNKNOWN  # a decorator that may return anything
        cls = ClassV(scope, cls_frame.vars, tuple(bases), kind, (), opaque)
        cls.maker, cls.frozen = maker, frozen
        if kind == "dataclass" and fields is not None:
            order = cls.mro()
            if order is None or any(base.kind != "dataclass" for base in bases):
                cls.opaque = True
            else:
                # the bases' fields in reverse method resolution order, as dataclasses collects
                # them (`class C(A, B)`: B's fields, then A's, then C's own)
                inherited = tuple(f for base in reversed(order[1:]) if base.kind == "dataclass" for f in base.fields)
                fields = tuple(dict.fromkeys(inherited + fields))
        elif kind in ("dataclass", "namedtuple") and fields is None:
            cls.opaque = True  # fields the constructor cannot be matched with
        if kind in ("dataclass", "namedtuple"):
            cls.fields = fields or ()
        opaque = cls.opaque
        cls_frame.owner = cls
        if kind == "dataclass" and not opaque:
            for stmt in node.body:
                spec = field_spec(stmt.value) if isinstance(stmt, ast.AnnAssign) and \
                    isinstance(stmt.target, ast.Name) else None
                if spec is not None:
                    cls.factories[stmt.target.id] = (spec.arg, self.expr(spec.value, cls_frame))  # type: ignore[union-attr]
        if kind == "enum":
            cls.opaque = self.enum_members(node, cls, cls_frame, frame) or cls.opaque
        if not self.class_created(node, cls, bases, keywords, frame):
            value = UNKNOWN
        self.assign_name(node.name, cls if value is None else value, frame)

    def class_created(self, node: ast.ClassDef, cls: ClassV, bases: list, keywords: Dict[str, tuple],
                      frame: Frame) -> bool:
        """What ``type.__new__`` runs once the body has: the first base's
        ``__init_subclass__`` (an implicit classmethod), with the class and
        its keywords (``class Sub(Base, flag=True)``). False when the class
        cannot be known: a metaclass other than ``abc.ABCMeta`` / ``type``
        (code the evaluator does not read, given the body's namespace: what
        the body holds may change) or a hook that cannot be followed. Keywords
        for a base not modelled make the class opaque. The evaluator's own
        kinds (enums, NamedTuples) keep their metaclass."""
        meta = keywords.pop("metaclass", None)
        given = tuple(cls.attrs.values()) + tuple(v[0] for v in keywords.values())
        if meta is not None:
            m = self.deref(meta[0])
            if not (type(m) is LibV and m.q in ("abc.ABCMeta", "type")):
                for v in given:
                    havoc(v)
                self.escape(given, calls=True)
                return False
        if cls.kind in ("enum", "namedtuple"):
            return True
        hook = bases[0].lookup("__init_subclass__") if len(bases) == 1 else (
            UNKNOWN if any(b.lookup("__init_subclass__") is not MISSING for b in bases) else MISSING)
        if type(hook) is FuncV:
            if hook.kind in ("", "class") and KW_UNKNOWN not in keywords:
                self.call_value(BoundV(hook, cls), (), keywords, node, frame)
                return True
            self.escape(given, calls=True)
            return False
        if keywords:  # for the hook of a base not modelled (a library's): it may keep them
            self.escape(given, calls=True)
            cls.opaque = True
        # no hook of the user's: object's, or a base not modelled (an opaque class, read as before)
        return True

    def enum_members(self, node: ast.ClassDef, cls: ClassV, cls_frame: Frame, frame: Frame) -> bool:
        """The members of an enum class, as ``EnumMeta`` makes them: in
        order, ``auto()`` numbered from the values before it, and a name
        whose value equals an earlier member's an alias of that member
        (``Mode.DEVELOPER is Mode.DEV``). True when which names are aliases
        cannot be told (a value not known exactly): its members' identity
        and equality are then unknown."""
        auto = set()
        for stmt in node.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                    and isinstance(stmt.value, ast.Call) and not stmt.value.args and not stmt.value.keywords \
                    and isinstance(stmt.value.func, (ast.Name, ast.Attribute)) \
                    and isinstance(getattr(stmt.value.func, "value", None), (ast.Name, type(None))):
                # `auto()` / `enum.auto()`: a name read again (nothing runs)
                callee = self.deref(self.expr(stmt.value.func, frame))
                if isinstance(callee, LibV) and callee.q == "enum.auto":
                    auto.add(stmt.targets[0].id)
        # its own equality, values made by __new__ or a numbering of its own
        inexact = any(m in cls_frame.vars for m in ("__eq__", "__hash__", "__new__", "_generate_next_value_",
                                                      "_ignore_"))
        by_value: dict = {}
        last: list = []
        for name, value in list(cls_frame.vars.items()):
            if name.startswith("_") or isinstance(value, (FuncV, ClassV, PropertyV)):
                continue
            if name in auto:
                # Enum._generate_next_value_: 1, then the last value + 1 (3.11 and 3.12+
                # agree while the values so far are ints in ascending order)
                if not last:
                    value = 1
                elif all(type(v) is int for v in last) and last[-1] == max(last):
                    value = last[-1] + 1
                else:
                    value = UNKNOWN
            last.append(value)
            if not isinstance(value, PLAIN) and not (type(value) is tuple and hashable(value)
                                                     and all(isinstance(v, PLAIN) for v in value)) \
                    or value != value:
                inexact = True  # a value not known, a list, NaN: aliases not told
                cls.members[name] = EnumMemberV(cls, name, value)
                continue
            earlier = by_value.get(value)
            if earlier is None:
                earlier = by_value[value] = EnumMemberV(cls, name, value)
            cls.members[name] = earlier
        return inexact

    def import_(self, node, frame: Frame) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                self.run_if_it_changes_others(alias.name, frame)
                if alias.asname:
                    frame.vars[alias.asname] = self.import_value(alias.name)
                else:
                    root = alias.name.split(".")[0]
                    frame.vars[root] = self.import_value(root)
            return
        module = "." * (node.level or 0) + (node.module or "")
        if module.strip("."):
            self.run_if_it_changes_others(module, frame)
        for alias in node.names:
            if alias.name == "*":
                self.star_import(module, frame)
                continue
            sep = "" if module.endswith(".") else "."
            if not module.strip("."):
                self.run_if_it_changes_others(module + alias.name, frame)  # `from . import expert_mode`
            frame.vars[alias.asname or alias.name] = self.import_value(module + sep + alias.name)

    def run_if_it_changes_others(self, q: str, frame: Frame) -> None:
        """Python runs a module when it is first imported; a module of the
        project whose top-level code may change another one (``from . import
        expert_mode`` switching the shared config) is evaluated here and now,
        so what it changes is changed for the rest of this module. Other
        modules are read when their names are used, if ever."""
        if self.quiet or (not q.startswith(".") and (q.split(".")[0] in LIBRARY_ROOTS or q.split(".")[0] in DENY)):
            return
        loader = self.resolver.loader
        try:
            found = loader.split(q, self.filename, quick=True)
        except Exception:
            return
        if found is None:
            return  # not a module of the project
        # Python imports the packages around a module first, each running its
        # `__init__.py` once (`from ..configs import AUTO` in pkg/kernels/exp.py
        # runs pkg/__init__.py, which may switch the shared config)
        for init in loader.package_inits(found[0]):
            self.run_for_effects(init, frame)
        if not found[1]:  # (a name inside a module: its module was checked)
            self.run_for_effects(found[0], frame)

    def own_packages(self, frame: Frame) -> None:
        """The linted module in a package: imported as ``pkg.kernels.exp``,
        Python runs ``pkg/__init__.py`` and ``pkg/kernels/__init__.py``
        first. Certain when the module has a relative import (it works only
        that way); otherwise it may also run as a script, without them: what
        they change is then unknown."""
        if not os.path.isfile(os.path.join(os.path.dirname(os.path.abspath(self.filename)), "__init__.py")):
            return
        loader = self.resolver.loader
        if loader.path != os.path.abspath(self.filename):
            return  # another module of the project: its packages run where it is imported
        relative = any(t is not None and t.startswith(".") for t in self.b.module.imports.values())
        for init in loader.package_inits(self.filename):
            self.run_for_effects(init, frame, maybe=not relative)

    def run_for_effects(self, path: str, frame: Frame, maybe: bool = False) -> None:
        """Evaluate the user's module at ``path`` now when its top-level code
        may change another module (``import_time_effects``); ``maybe``: it
        may also not have run (what it changes is then unknown)."""
        loader = self.resolver.loader
        other = loader.resolver_for(path)
        if other is None or other is self.resolver:
            return
        effects = getattr(other, "import_effects", None)
        if effects is None:
            effects = other.import_effects = import_time_effects(other.b)
        if not effects:
            return
        # what this module imported so far is bound now (`from .configs import MODE` keeps
        # the object it got, whatever the other module rebinds later)
        for name, value in list(frame.vars.items()):
            if type(value) is ImportV:
                frame.vars[name] = self.deref(value)
        back = maybe or loader.imports_reach(path, loader.path)
        self.module_at(path)
        ran = other.module_evaluator
        if back or ran is None or ran.cyclic or ran.exhausted:
            # it imports this module back (it may run before, during or after this one, as
            # the program's entry point decides), or could not be read to the end: what it
            # changes is not known, here and in the modules it reached
            self.havoc_namespace(frame)
            for r in list(loader.resolvers.values()):
                ev = getattr(r, "module_evaluator", None)
                if r is not None and r is not self.resolver and ev is not None and ev.module_frame is not None:
                    for name in list(ev.module_frame.vars):
                        havoc(ev.module_frame.vars[name])
                        ev.module_frame.vars[name] = UNKNOWN

    def star_import(self, module: str, frame: Frame) -> None:
        """``from .cfg import *``: the names a module of the user's exports
        (its ``__all__``, else its names without a leading underscore), as
        that module leaves them. From a module that cannot be read, any name
        bound so far may be replaced: all of them become unknown. A library's
        names are the library's (TileLang's, never a config of the user's)."""
        if not module.startswith(".") and (module.split(".")[0] in LIBRARY_ROOTS or module.split(".")[0] in DENY):
            return
        value = self.deref(self.resolve_import(module))
        names = None
        if isinstance(value, Module) and value.ev.module_frame is not None:
            exported = value.ev.module_frame.vars
            listed = self.deref(exported.get("__all__", MISSING))
            if listed is MISSING:
                names = [n for n in exported if not n.startswith("_")]
            elif seq_known(listed) and all(isinstance(n, str) for n in listed):
                names = list(listed)
        if names is None:
            for name in list(frame.vars):
                frame.vars[name] = UNKNOWN
            frame.star_unknown = True
            return
        for name in names:
            frame.vars[name] = value.get(name)  # type: ignore[union-attr]

    def import_value(self, q: str):
        if not q.startswith(".") and (q.split(".")[0] in LIBRARY_ROOTS or q.split(".")[0] in DENY):
            if self.shadowed(q.split(".")[0]):
                return UNKNOWN
            return LIBRARY_CONSTANTS[q] if q in LIBRARY_CONSTANTS else LibV(q)
        return ImportV(q, self)

    def shadowed(self, root: str) -> bool:
        """Whether a file of the user's beside this module has the name of the
        library ``root`` (``copy.py`` next to ``run.py``): run as a script,
        Python imports that file instead of the standard library's module
        (one not loaded at start-up), so what the name holds is not told.
        TileLang and TVM are always the library's (the TileLang-Ascend
        repository holds its own ``tilelang/`` package)."""
        if root in _NEVER_SHADOWED:
            return False
        found = self.shadows.get(root)
        if found is None:
            here = os.path.dirname(os.path.abspath(self.filename))
            found = self.shadows[root] = os.path.isfile(os.path.join(here, root + ".py")) or \
                os.path.isfile(os.path.join(here, root, "__init__.py"))
        return found

    # -- bindings ------------------------------------------------------------
    def assign(self, target, value, frame: Frame, value_node: Optional[ast.expr] = None) -> None:
        t = type(target)
        if t is ast.Name:
            self.assign_name(target.id, value, frame)
        elif t in (ast.Tuple, ast.List):
            elts = target.elts
            if type(value) is InstanceV:
                hooked = self.iter_of(value)  # its own __iter__, or a NamedTuple's fields
                value = record_items(value) if hooked is value else hooked
            if type(value) is IterV:
                value = self.drain(value)  # `(a, b), c = zip(...)`: unpacking consumes it
            elif value is UNKNOWN and self.handles:
                self.consume_unknown()  # it may be a generator a join made unknown
            if seq_known(value) and len(value) == len(elts) and \
                    not any(isinstance(e, ast.Starred) for e in elts):
                nodes = value_node.elts if isinstance(value_node, (ast.Tuple, ast.List)) and \
                    len(value_node.elts) == len(elts) else [None] * len(elts)
                for e, v, n in zip(elts, value, nodes):
                    self.assign(e, v, frame, n)
            elif seq_known(value) and sum(isinstance(e, ast.Starred) for e in elts) == 1 \
                    and len(value) >= len(elts) - 1:
                # `first, *rest = seq`: the items around the star, the rest as a list
                star = next(i for i, e in enumerate(elts) if isinstance(e, ast.Starred))
                after = len(elts) - star - 1
                for e, v in zip(elts[:star], value[:star]):
                    self.assign(e, v, frame)
                self.assign(elts[star].value, mklist(list(value[star:len(value) - after]), self.token), frame)
                for e, v in zip(elts[star + 1:], value[len(value) - after:]):
                    self.assign(e, v, frame)
            else:
                for e in elts:
                    self.assign(e.value if isinstance(e, ast.Starred) else e, UNKNOWN, frame)
        elif t is ast.Starred:
            self.assign(target.value, UNKNOWN, frame)
        elif t is ast.Subscript:
            obj = self.expr(target.value, frame)
            key = self.expr(target.slice, frame)
            self.set_item(obj, key, value, target.slice, value_node)
        elif t is ast.Attribute:
            self.set_attr(self.expr(target.value, frame), target.attr, value)

    def set_attr(self, obj, name: str, value) -> None:
        """``obj.name = value`` (also ``setattr``): on an instance, a class, or
        a module of the user's (its global)."""
        obj = self.deref(obj)
        if type(obj) is NamespaceV:
            self.havoc_namespace(obj.frame)  # `setattr(sys.modules[__name__], "CFG", ...)`
            return
        if isinstance(obj, (InstanceV, ClassV, Module)):
            self.effects += 1
        if isinstance(obj, InstanceV):
            if (obj.cls.kind == "namedtuple" and not obj.opaque) or (obj.cls.frozen and not obj.cls.opaque):
                raise Abrupt("raise")  # AttributeError / FrozenInstanceError
            hook = obj.cls.lookup(name)
            if type(hook) is PropertyV and hook.cached:
                hook = MISSING  # no __set__: the instance keeps the value
            if type(hook) is PropertyV and hook.setter is not None and obj.cls.lookup("__setattr__") is MISSING:
                # `opts.manual = True`: the setter runs, with what it changes
                self.call_value(hook.setter, (obj, value), {}, None, self.module_frame)
            elif type(hook) is PropertyV and hook.setter is None and obj.cls.lookup("__setattr__") is MISSING:
                raise Abrupt("raise")  # AttributeError: a property without a setter
            elif type(hook) is InstanceV and (hook.opaque or hook.cls.lookup("__set__") is not MISSING):
                # a data descriptor of the class (`auto_sync = Field(KEY)`): its __set__ decides
                setter = hook.cls.lookup("__set__") if not hook.opaque else UNKNOWN
                if type(setter) is FuncV and not setter.kind and obj.cls.lookup("__setattr__") is MISSING:
                    self.call_value(setter, (hook, obj, value), {}, None, self.module_frame)
                else:
                    if havoc_deep(obj, hook):
                        self.effects += 1
                    self.touch_unknown()
            elif hook is UNKNOWN or type(hook) is PropertyV or obj.cls.lookup("__setattr__") is not MISSING:
                # a descriptor not modelled or a __setattr__ decides what is kept, and may
                # change anything else of the object
                if havoc(obj):
                    self.effects += 1
            elif self.precise(obj):
                obj.attrs[name] = value
            else:
                obj.attrs[name] = join(obj.attrs.get(name, UNKNOWN), value)
            taint_links(obj, name)
        elif isinstance(obj, ClassV):
            # in a branch that may not run: the old value or this one
            obj.attrs[name] = value if self.token == 0 else join(obj.attrs.get(name, UNKNOWN), value)
            obj.members.pop(name, None)
        elif isinstance(obj, Module) and obj.ev.module_frame is not None:
            module_vars = obj.ev.module_frame.vars
            module_vars[name] = value if self.token == 0 else join(module_vars.get(name, UNKNOWN), value)
        elif not isinstance(obj, (Module, str, int, float, tuple)):
            self.changed_unknown(obj)  # `holder.cfg = ...` on a value not known
            self.escape((value,))

    def assign_name(self, name: str, value, frame: Frame) -> None:
        if frame.nonlocals and name in frame.nonlocals:
            self.effects += 1  # another frame's name
            home = frame.parent
            while home is not None and home.kind == "function" and name not in home.vars and \
                    not (home.locals is not None and name in home.locals):
                home = home.parent
            if home is None or home.kind != "function":
                frame.vars[name] = UNKNOWN  # not modelled: unknown where it is read here
                return
            # in a branch that may not run (token != 0) the enclosing frame is not joined
            # by it: the old value stays possible
            certain = self.phase != "post" and self.token == 0
            home.vars[name] = value if certain else join(home.vars.get(name, UNKNOWN), value)
            return
        if name in frame.globals:
            self.effects += 1  # another frame's name
            module = frame.module
            if self.phase == "post" or self.token != 0:
                # a `global` written in a branch that may not run (`if args.manual:
                # AUTO = False` in a helper): the module's value may stay as it was
                module.vars[name] = join(module.vars.get(name, UNKNOWN), value)
            else:
                module.vars[name] = value
            return
        frame.vars[name] = value

    def set_item(self, obj, key, value, key_node, value_node) -> None:
        obj = self.deref(obj)
        key = self.deref(key)
        if type(obj) is NamespaceV:
            self.havoc_namespace(obj.frame)  # `globals()["CFG"] = ...`
            return
        if isinstance(obj, (DictV, list)):
            self.effects += 1
            taint_links(obj, key)
        else:
            self.changed_unknown(obj)  # `PRESETS[mode][K] = v`: through a value not known
            self.escape((value,))  # kept there, and read back through values not known
            return
        if isinstance(obj, DictV):
            if key is UNKNOWN or not hashable(key):
                # any key may be the one written: a value that may differ from it is unknown
                obj.complete = False
                for k, e in list(obj.entries.items()):
                    if e[0] is not value:
                        lost(e[0])
                        obj.entries[k] = (UNKNOWN,) + tuple(e[1:])
                self.escape((value,))  # read back later through a key not known
                return
            if self.precise(obj):
                obj.entries[key] = (value, key_node, value_node, self.filename)
                obj.make_certain(key)
            else:
                old = obj.entries.get(key)
                if old is None or old[0] is not value:
                    # the old value or this one: read back later as unknown
                    lost(old[0] if old is not None else None)
                    self.escape((value,))
                obj.entries[key] = (UNKNOWN if old is None or old[0] is not value else value,
                                    key_node, value_node, self.filename)
                if old is None:
                    obj.make_loose(key)  # a store that may not run: maybe there
        elif isinstance(obj, list):
            if type(key) is int and self.precise(obj) and seq_known(obj):
                if -len(obj) <= key < len(obj):
                    obj[key] = value
                else:
                    raise Abrupt("raise")  # IndexError
            else:
                havoc(obj)  # a slice, an unknown index, or a store that may not happen
                self.escape((value,))  # in it now, maybe: read back as unknown

    def delete(self, target, frame: Frame) -> None:
        if isinstance(target, ast.Subscript):
            obj = self.expr(target.value, frame)
            key = self.expr(target.slice, frame)
            self.del_item(obj, key)
        elif isinstance(target, ast.Name):
            frame.vars[target.id] = UNKNOWN

    def del_item(self, obj, key) -> None:
        obj = self.deref(obj)
        key = self.deref(key)
        if type(obj) is NamespaceV:
            self.havoc_namespace(obj.frame)
            return
        if isinstance(obj, list):
            self.effects += 1
            taint_links(obj, key)
            if type(key) is int and self.precise(obj) and seq_known(obj) and -len(obj) <= key < len(obj):
                del obj[key]
            else:
                havoc(obj)  # a slice, an unknown index, or a deletion that may not happen
            return
        if not isinstance(obj, DictV):
            self.changed_unknown(obj)
            return
        self.effects += 1
        taint_links(obj, key, removed=True)
        if key is UNKNOWN or not hashable(key):
            spoil_entries(obj)  # any one of its keys (or one it may have that is not known) is gone
            return
        if key in obj.entries:
            if self.precise(obj):
                del obj.entries[key]
                obj.make_certain(key)
            else:
                lost(obj.entries[key][0])
                obj.entries[key] = (UNKNOWN,) + tuple(obj.entries[key][1:])
                obj.make_loose(key)  # a `del` that may not run: maybe gone
        elif obj.complete:
            raise Abrupt("raise")  # KeyError

    def augassign(self, node: ast.AugAssign, frame: Frame) -> None:
        """``x op= v`` as Python runs it: the target's container and key
        first, its current value, then ``v``; a dict ``|=`` and a list ``+=``
        / ``*=`` change the object in place (every alias of it sees the
        change) and store it back."""
        target = node.target
        t = type(target)
        if t is ast.Name:
            current = self.lookup(target.id, frame)
        elif t is ast.Subscript:
            obj = self.expr(target.value, frame)
            key = self.expr(target.slice, frame)
            current = self.subscript(obj, key) if type(target.slice) is not ast.Slice else UNKNOWN
        elif t is ast.Attribute:
            obj = self.expr(target.value, frame)
            current = self.getattr_(obj, target.attr)
        else:
            self.assign(target, UNKNOWN, frame)
            return
        value = self.expr(node.value, frame)
        current = self.deref(current)
        op = node.op
        if type(op) is ast.BitOr and type(current) is DictV:
            self.update(current, value, node.value)
            result = current
        elif type(op) in (ast.Add, ast.Mult) and type(current) is ListV:
            self.effects += 1
            taint_links(current)
            seq = self.iterate(value) if type(op) is ast.Add else None
            n = self.deref(value) if type(op) is ast.Mult else None
            if seq is not None and seq_known(current) and self.precise(current) and \
                    len(current) + len(seq) <= MAX_LEN and self.size(current) + self.size(tuple(seq)) <= MAX_SIZE:
                current.extend(seq)
            elif type(n) is int and seq_known(current) and self.precise(current) and \
                    len(current) * max(n, 0) <= MAX_LEN and self.size(current) * max(n, 1) <= MAX_SIZE:
                current[:] = list(current) * n
            else:
                havoc(current)
                if type(op) is ast.Add:
                    # in it now, maybe: read back as unknown (`l += [CFG]` in a branch, then
                    # `l[-1].update(...)` may change CFG), as `l.append(CFG)` is
                    self.escape(tuple(seq) if seq is not None else (value,))
            result = current
        else:
            result = self.binop(op, current, value)
            if (current is UNKNOWN or type(current) is InstanceV) and _may_change_in_place(op, self.deref(value)):
                # `x |= b`, `x += [...]`, `x *= 2`, `x += y` on a value not known may change,
                # in place, the dict or list (or object with its own __ior__) it is; `n += 1` cannot
                self.changed_unknown(current)
        if t is ast.Name:
            self.assign_name(target.id, result, frame)
        elif t is ast.Subscript:
            self.set_item(obj, key, result, target.slice, node.value)
        else:
            self.set_attr(obj, target.attr, result)

    def update(self, obj: DictV, other, node) -> None:
        self.effects += 1
        taint_links(obj)
        other = self.deref(other)
        if isinstance(other, DictV):
            for key, entry in other.entries.items():
                if other.maybe_absent(key):
                    # copied or not: the value it had, or this one
                    value, had = obj.updated_by_maybe(key, entry)
                    self.set_item(obj, key, value, entry[1], entry[2])
                    if not had:
                        obj.make_loose(key)
                    continue
                self.set_item(obj, key, entry[0], entry[1], entry[2])
                if self.precise(obj):
                    obj.entries[key] = entry
            if not other.complete:
                obj.complete = False
                for k, e in list(obj.entries.items()):
                    if k not in other.entries:
                        lost(e[0])
                        obj.entries[k] = (UNKNOWN,) + tuple(e[1:])
        else:
            obj.complete = False
            for k, e in list(obj.entries.items()):
                lost(e[0])
                obj.entries[k] = (UNKNOWN,) + tuple(e[1:])



_LEAVES = (ast.Break, ast.Return, ast.Raise, ast.Yield, ast.YieldFrom, ast.Await)


# `case str():` and the like: the Python types each builtin's class pattern accepts
_BUILTIN_TYPES = {"str": (str,), "int": (int,), "float": (float,), "bool": (bool,), "bytes": (bytes,),
                  "list": (list,), "tuple": (tuple,), "dict": (dict,)}


def _captured(pattern) -> list:
    """Every name a ``case`` pattern may capture (in any of its parts)."""
    names = []
    for node in ast.walk(pattern):
        name = getattr(node, "name", None) if isinstance(node, (ast.MatchAs, ast.MatchStar)) else \
            getattr(node, "rest", None) if isinstance(node, ast.MatchMapping) else None
        if name:
            names.append(name)
    return names


def _may_leave(body) -> bool:
    """Whether a loop's body may leave it before its iterable ends: a
    ``break``, ``return``, ``raise``, ``yield`` or ``await`` anywhere in it
    (nested functions and classes aside). An exception a call raises is a
    ``try``'s business: its body runs in branches of its own."""
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, _LEAVES):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False


def _may_enter_pass_context(q: str) -> bool:
    """A library callable whose result, used in ``with``, may enter a
    PassContext: TVM's and TileLang's, except the kernel language."""
    root = q.split(".")[0]
    return root in ("tilelang", "tvm") and not q.startswith(("tilelang.language", "tvm.target", "tilelang.tvm.target"))


def _same_state(a: dict, b: dict) -> bool:
    """The same names holding the very same objects."""
    if len(a) != len(b):
        return False
    for name, value in a.items():
        if b.get(name, MISSING) is not value:
            return False
    return True


def _join_all(states: list) -> dict:
    merged = states[0]
    for other in states[1:]:
        merged = join_vars(merged, other)
    return merged


_MUTATORS = MUTATORS


_SAFE_LEAVES = (ast.Constant, ast.Name)
_SAFE_COMPARE = (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)
_SCALARS = (int, bool, float, str, type(None))
_LEAVES_BLOCK = (ast.Break, ast.Continue, ast.Return)


def _may_swallow(exit_def) -> bool:
    """Whether an ``__exit__`` may end an exception: it returns a value that
    may be true (one that returns nothing, None or False never does)."""
    stack = list(exit_def.body)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(n, ast.Return) and n.value is not None and \
                not (isinstance(n.value, ast.Constant) and n.value.value in (None, False)):
            return True
        stack.extend(ast.iter_child_nodes(n))
    return False


def _always_raises(body) -> bool:
    """A handler that ends in ``raise`` and has no ``break`` / ``continue`` /
    ``return`` on the way: nothing after the ``try`` runs from it."""
    return bool(body) and type(body[-1]) is ast.Raise and \
        not any(isinstance(n, _LEAVES_BLOCK) for stmt in body for n in ast.walk(stmt))


def _lookup_succeeds(obj, key) -> bool:
    """``obj[key]`` of a dict or sequence the evaluator holds cannot raise."""
    if type(obj) is DictV:
        return key is not UNKNOWN and hashable(key) and key in obj.entries and not obj.maybe_absent(key)
    if type(obj) in (tuple, list, ListV) and type(key) is int and seq_known(obj):
        return -len(obj) <= key < len(obj)
    return False


def _known_key(ev, node, frame: Frame) -> bool:
    """A dict key that cannot make a dict method raise: a constant, a name
    holding a hashable value, an attribute (``PassConfigKey.X``), or for
    ``update`` a name holding a dict."""
    t = type(node)
    if t is ast.Constant:
        return True
    if t is ast.Attribute:
        return True
    if t is ast.Name:
        value = ev.deref(ev.lookup(node.id, frame))
        return value is not UNKNOWN and (type(value) is DictV or hashable(value))
    return False


def _assigned_names(stmts) -> set:
    """Names a block binds (its nested functions and classes excluded)."""
    out: set = set()
    stack = list(stmts)
    Name, Store, Del = ast.Name, ast.Store, ast.Del
    while stack:
        node = stack.pop()
        t = type(node)
        if t is Name:
            if type(node.ctx) is Store or type(node.ctx) is Del:
                out.add(node.id)
            continue  # a Name's only child is its context
        if t in _SCOPE_DEFS:
            out.add(node.name)
            continue
        elif t is ast.Import or t is ast.ImportFrom:
            out.update((a.asname or a.name).split(".")[0] for a in node.names if a.name != "*")
        elif t is ast.ExceptHandler and node.name:
            out.add(node.name)
        elif t in _OWN_SCOPES:
            continue
        _push_children(node, t, stack)
    return out


_SCOPE_DEFS = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})
_OWN_SCOPES = frozenset({ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp})
# per node type, its fields that may hold nodes (``ast.iter_child_nodes``
# without its generator: the same children, found faster)
_NODE_FIELDS: Dict[type, tuple] = {}


def _push_children(node, t, stack: list) -> None:
    fields = _NODE_FIELDS.get(t)
    if fields is None:
        fields = _NODE_FIELDS[t] = tuple(t._fields)
    for name in fields:
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            stack.append(value)
        elif type(value) is list:
            for item in value:
                if isinstance(item, ast.AST):
                    stack.append(item)


def _walk(stmts) -> list:
    """Every node under ``stmts`` (``ast.walk``'s nodes, in another order)."""
    out = list(stmts)
    i = 0
    while i < len(out):
        node = out[i]
        i += 1
        _push_children(node, type(node), out)
    return out


def _mutated_names(stmts) -> set:
    """Names of containers a block may mutate in place: subscript and
    attribute targets, receivers of mutating methods, arguments of calls."""
    out: set = set()
    Subscript, Attribute, Store, Del = ast.Subscript, ast.Attribute, ast.Store, ast.Del
    for node in _walk(stmts):
        t = type(node)
        if t is ast.Name or t is ast.Constant or t is ast.Load:
            continue  # the most frequent nodes: nothing to read
        target = None
        if t is Subscript or t is Attribute:
            if type(node.ctx) is Store or type(node.ctx) is Del:
                target = node.value
        elif t is ast.AugAssign:
            target = node.target
        elif t is ast.Call:
            if isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATORS:
                target = node.func.value
            for arg in list(node.args) + [kw.value for kw in node.keywords]:
                if isinstance(arg, ast.Starred):
                    arg = arg.value
                if isinstance(arg, ast.Name):
                    out.add(arg.id)
        while isinstance(target, (ast.Subscript, ast.Attribute)):
            target = target.value
        if isinstance(target, ast.Name):
            out.add(target.id)
    return out


NAMEDTUPLE_BASES = frozenset({"typing.NamedTuple", "typing_extensions.NamedTuple"})
ENUM_BASES = frozenset({"enum.Enum", "enum.IntEnum", "enum.StrEnum", "enum.Flag", "enum.IntFlag"})
DATACLASS_DECORATORS = frozenset({
    "dataclasses.dataclass", "attr.s", "attr.attrs", "attr.define", "attr.frozen", "attr.mutable",
    "attrs.define", "attrs.frozen", "attrs.mutable",
})
TRANSPARENT_CLASS_DECORATORS = frozenset({
    "typing.final", "typing_extensions.final", "enum.unique", "functools.total_ordering",
})


_FIELD_KEYWORDS = frozenset({"default", "default_factory", "repr", "compare", "hash", "metadata"})


def field_spec(value: Optional[ast.expr]):
    """``dataclasses.field(default=...)`` / ``(default_factory=...)``: the
    keyword expression that gives the field's default, else None."""
    if not isinstance(value, ast.Call):
        return None
    func = value.func
    if (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)) != "field":
        return None
    for kw in value.keywords:
        if kw.arg in ("default", "default_factory"):
            return kw
    return None


def _annotated_fields(node: ast.ClassDef):
    """The names a dataclass / NamedTuple body declares as fields, in order;
    None when one of them cannot be matched with a constructor argument
    (``ClassVar``/``InitVar``/``KW_ONLY``, ``field(...)``, attrs' ``attr.ib()``)."""
    out: list = []
    for stmt in node.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            text = ast.dump(stmt.annotation)
            if "ClassVar" in text:
                continue
            if "InitVar" in text or "KW_ONLY" in text:
                return None
            value = stmt.value
            if isinstance(value, ast.Call):
                func = value.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
                if name in ("ib", "attrib", "attr"):
                    return None
                if name == "field" and (value.args or any(kw.arg not in _FIELD_KEYWORDS for kw in value.keywords)):
                    return None  # init=False, kw_only=...: not matched with arguments here
            out.append(stmt.target.id)
        elif isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call):
            func = stmt.value.func
            if isinstance(func, ast.Attribute) and func.attr in ("ib", "attrib", "field"):
                return None
    return tuple(out)


def _may_change_in_place(op: ast.operator, value) -> bool:
    """Whether ``x op= value``, ``x`` not known, may change ``x`` in place:
    a dict's ``|=``, a list's ``+=`` of an iterable or ``*=`` of an int (or
    of a value not known: it may be one); ``+= 1`` cannot (a list's ``+=``
    of an int raises)."""
    t = type(op)
    if t is ast.BitOr:
        return True
    if t is ast.Add:
        return value is UNKNOWN or type(value) in (ListV, tuple, DictV, DictViewV)
    if t is ast.Mult:
        return value is UNKNOWN or type(value) is int or type(value) is bool
    return False
