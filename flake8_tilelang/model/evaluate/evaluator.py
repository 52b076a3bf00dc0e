"""The evaluator: runs one module abstractly, once, and answers what its
names hold."""
from __future__ import annotations

import ast
import contextlib
import os
import itertools
from typing import Dict, List, Optional

from ...constants import STRICT_ENV
from ..nodes import Function, Scope
from .budget import MAX_STEPS, STEPS_PER_LINE, Budget
from .frames import Abrupt, Frame
from .library import Event, inert_function
from .sites import names_read
from .values import (
    JOINED, PLAIN, BoundV, ClassV, DictV, DictViewV, FuncV, ImportV, IterV, InstanceV, LazyCallV, ListV, PENDING,
    UNKNOWN, LambdaV, Module, havoc_deep, join_vars,
    reachable, user_function,
)
from .answers import Answers
from .calls import Calls
from .expressions import Expressions
from .library import Library
from .statements import Statements


# Branch tokens are unique across every evaluator of the process: a function of
# another module runs on its own evaluator under its caller's token.
_TOKENS = itertools.count(1)


class Evaluator(Statements, Expressions, Calls, Library, Answers):
    """Runs one module abstractly (once) and answers what names hold."""

    def __init__(self, builder, resolver):
        self.b = builder
        self.resolver = resolver
        self.filename = builder.filename
        self.by_node: Dict[int, Function] = {id(f.node): f for f in builder.functions}
        self.classes_by_node: Dict[int, Scope] = {}
        stack = [builder.module] + list(builder.functions)
        while stack:
            s = stack.pop()
            for cls in s.classes.values():
                if id(cls.node) not in self.classes_by_node:
                    self.classes_by_node[id(cls.node)] = cls
                    stack.append(cls)
        self.steps = 0
        body = builder.tree.body
        lines = (getattr(body[-1], "end_lineno", None) or 0) if body else 0
        self.max_steps = MAX_STEPS + STEPS_PER_LINE * lines  # a long module may run longer
        # the parametrized tests' rows run on a budget of their own (see sweep)
        self.row_steps = self.max_steps
        self.depth = 0
        self.exhausted = False
        self.token = 0  # the innermost uncertain branch (0: certain)
        self.next_token = 0
        self.events: List[Event] = []
        self.executed: set = set()  # ids of Functions that ran
        self.module_frame: Optional[Frame] = None
        self.running = False
        self.done = False
        self.quiet = False
        self.cyclic = False  # imports a module that (indirectly) imports it back
        self.phase = "module"
        self.local_names: Dict[int, set] = {}
        self.loops: list = []  # innermost last: {"break": [states], "continue": [states]}
        self.sizes: dict = {}  # id(tuple) -> (tuple, its size): see budget.size_of
        self.loop_names: dict = {}  # id(loop) -> (names it assigns, names it mutates, the body run)
        # id(generator function's def) -> a `while True:` over its body: the rest of a generator
        # whose course is not told, read as an unknown loop (see Calls.generator_items)
        self.generator_rests: dict = {}
        # PassContexts entered around the code running now, innermost last:
        # a PassContextV, or UNKNOWN for a context manager that may enter one
        self.contexts: list = []
        # id(prim_func) -> the frames its def ran in (one per way it was made),
        # None in the list when there were too many to keep
        self.kernel_frames: Dict[int, list] = {}
        # the file the arguments of the call being bound were written in, when a
        # module's function is called from another module's code (see Calls.bridge)
        self.arguments_file: Optional[str] = None
        self.inert_memo: Dict[int, bool] = {}
        # NamespaceV / DeferredCallV values made so far: a call's arguments are
        # searched for them only when some exist (see call_value)
        self.handles = 0
        self.entered_by_hand: Dict[int, tuple] = {}  # id(contextmanager call) -> (it, its ExitStackV)
        self.shadows: Dict[str, bool] = {}  # library name -> a file of the user's beside this one has it
        self.namespace_class: Optional[ClassV] = None  # types.SimpleNamespace, made when first used
        self.field_class: Optional[ClassV] = None  # dataclasses.Field, made when first used
        self.param_rows: Dict[int, list] = {}  # id(Function) -> its pytest.mark.parametrize decorators
        self.once_names: Dict[int, dict] = {}  # see fold_once
        self.once_reads: Dict[int, tuple] = {}
        # bumped by everything that may change state beyond the running frame's
        # names (a call, a store into a container, a global): see unknown_loop
        self.effects = 0
        # containers an unknown value may be (or hold): what `PRESETS[mode]`
        # with an unknown mode, `max(configs, key=...)` or an unknown call given
        # them returned; a change made through an unknown value may be a change
        # to any of them (see touch_unknown)
        self.escaped: list = []
        self.escaped_ids: set = set()
        # functions of the user's an unknown value may be (`HANDLERS[mode]`): a call
        # of an unknown value may run them
        self.escaped_calls: list = []
        self.escaped_runs: Dict[int, int] = {}  # id(function) -> times run for an unknown call (bounded)
        self.compile_nodes: Optional[dict] = None  # id(call) -> the source's compile site there (unknown_compile)

    # -- driver ------------------------------------------------------------
    def run(self) -> "Evaluator":
        if self.done or self.running:
            return self
        self.running = True
        frame = Frame("module", None, None, self.b.module)
        frame.vars["__name__"] = UNKNOWN
        self.module_frame = frame
        try:
            try:
                self.own_packages(frame)
                self.block(self.b.tree.body, frame)
            except Abrupt:
                pass
            self.phase = "post"
            self.settle_factories()
            # configs a jit decorator holds are read when the kernel compiles
            for event in self.events:
                if isinstance(event.config, DictV):
                    event.config = self.to_config(event.config)
            self.sweep()
            self.settle_factories()
        except (Budget, RecursionError):
            self.exhausted = True
        except Exception:  # a form this evaluator mishandles: the model's static answers stand
            self.exhausted = True
            if os.environ.get(STRICT_ENV) == "1":
                self.running = False
                raise  # the tests run strict: a slip of the evaluator must not pass as "unknown"
        self.running = False
        self.done = True
        self.events = [e for e in self.events if not e.superseded]
        for event in self.events:
            if isinstance(event.config, DictV):
                event.config = self.to_config(event.config)
            if isinstance(event.kernels, tuple):
                event.kernels = UNKNOWN
            if event.called and isinstance(event.kernels, list):
                event.kernels = list(dict.fromkeys(event.called + event.kernels))
        return self

    def settle_factories(self) -> None:
        """jit factories: the kernels they return (arguments unknown, read at call time)."""
        for _ in range(4):
            pending = [e for e in self.events if isinstance(e.kernels, tuple)]
            if not pending:
                return
            for event in pending:
                event.kernels = self.kernels_from_factory(event.kernels[0])

    def sweep(self) -> None:
        """Run the functions nothing in the module ran, with unknown arguments:
        first the ones nothing calls by name (entry points, tests), then the rest."""
        called = set()
        for scope in [self.b.module] + list(self.b.functions):
            for call in scope.local_calls:
                f = call.func
                called.add(f.id if isinstance(f, ast.Name) else getattr(f, "attr", None))
        roots = [f for f in self.b.functions if not f.is_prim_func and not f.is_macro
                 and (f.parent is self.b.module or (f.parent is not None and f.parent.kind == "class"))]
        for second in (False, True):
            for fn in roots:
                if id(fn) in self.executed or (not second and fn.name in called):
                    continue
                if self.inert(fn):
                    continue  # running it cannot change what any kernel sees
                if self.run_rows(fn):
                    continue
                saved, self.token = self.token, self.fork_token()
                try:
                    self.call_function(self.func_value(fn), (), {}, None, unknown_args=True)
                except Abrupt:
                    pass
                finally:
                    self.token = saved

    def run_rows(self, fn: Function) -> bool:
        """Run a parametrized test once per row (``test_runs``), on the rows'
        own step budget: what they cost is not taken from the module's, so a
        file of many such tests is still evaluated. When that budget runs out
        during a row, the row stops there (it ran in a branch of its own: what
        it did so far may have happened) and the test runs once more with
        unknown arguments, as any other; False: no rows (run it so)."""
        runs = self.test_runs(fn)
        if runs is None or self.row_steps <= 0:
            return False
        for kwargs in runs:
            saved, self.token = self.token, self.fork_token()
            start, limit = self.steps, self.max_steps
            self.max_steps = start + self.row_steps
            stopped = False
            try:
                self.call_function(self.module_frame.vars[fn.name], (), kwargs, fn.node)
            except Abrupt:
                pass
            except Budget:
                stopped = True
            finally:
                self.row_steps -= self.steps - start
                self.steps, self.max_steps = start, limit
                self.token = saved
            if stopped:
                self.row_steps = 0
                return False
        return True

    def test_runs(self, fn: Function) -> Optional[list]:
        """The calls pytest makes of a module-level test function under
        ``@pytest.mark.parametrize`` (every combination of stacked ones, at
        most 16): keyword arguments, a fixture it takes unknown. None: run it
        once with unknown arguments."""
        decos = self.param_rows.get(id(fn))
        value = self.module_frame.vars.get(fn.name) if self.module_frame is not None else None
        if not decos or fn.parent is not self.b.module or type(value) is not FuncV or value.fn is not fn \
                or any(d.rows is None for d in decos):
            return None
        a = fn.node.args  # type: ignore[attr-defined]
        if a.vararg is not None or a.kwarg is not None or a.posonlyargs:
            return None
        combos: list = [{}]
        for deco in decos:
            combos = [dict(c, **dict(zip(deco.names, row))) for c in combos for row in deco.rows]
            if len(combos) > 16:
                return None
        params = [p.arg for p in list(a.args) + list(a.kwonlyargs)]
        if any(name not in params for c in combos for name in c):
            return None  # a name the function does not take: pytest fails it
        runs = []
        for combo in combos:
            kwargs = {name: (combo[name], fn.node) if name in combo else (UNKNOWN, fn.node)
                      for name in params if name in combo or name not in value.defaults}
            runs.append(kwargs)
        return runs

    def inert(self, fn: Function) -> bool:
        """Whether running ``fn`` with unknown arguments can change nothing
        the model reads: its body (nested functions and lambdas included)
        defines no class, declares no ``global``/``nonlocal``, imports only
        foreign libraries, and every name it reads is its own, a builtin the
        evaluator knows (``BUILTINS``) that does not reach a module's
        namespace (not ``globals``, ``setattr``), or a module-level import of
        a foreign library (``torch``, ``numpy``, ``math``). A reference implementation or a plotting helper
        is inert; anything that reads a module-level dict, calls a function
        of the module or names TileLang is not. Decided on the builder's
        facts, without walking the body again."""
        known = self.inert_memo.get(id(fn))
        if known is not None:
            return known
        self.inert_memo[id(fn)] = result = inert_function(self.b, fn)
        return result

    def func_value(self, fn: Function) -> FuncV:
        closure = self.module_frame
        return FuncV(fn, closure, {}, self)

    def tick(self) -> None:
        self.steps += 1
        if self.steps > self.max_steps:
            raise Budget()

    def fork_token(self) -> int:
        self.next_token = next(_TOKENS)
        return self.next_token

    @contextlib.contextmanager
    def forked(self, frame: Optional[Frame] = None):
        """Run what the block evaluates in a branch of its own: code that may
        or may not run (what it changes in objects made before is uncertain).
        With ``frame``, the names it binds there (a walrus) are joined with
        the ones before, as either may hold afterwards."""
        saved, start = self.token, (dict(frame.vars) if frame is not None else None)
        self.token = self.fork_token()
        try:
            yield
        finally:
            self.token = saved
            if frame is not None:
                frame.vars = join_vars(start, frame.vars)

    def deref(self, value):
        """A name imported from the user's project, or a call of one, followed
        only when its value is needed (a test helper from another module is
        never read if nothing uses what it returns)."""
        t = type(value)
        if t is not LazyCallV and t is not ImportV:  # most values: as they are
            if t is DictViewV:
                return value.now()  # a dict view: the dict as it is now
            return value
        if isinstance(value, LazyCallV):
            if value.result is PENDING:
                value.result = UNKNOWN  # re-entrance guard
                func = self.deref(value.func)
                # a function that cannot be read (a module outside the project) is called too:
                # as any unknown callee, it may change the dicts and lists it is given
                value.result = self.deref(self.call_value(func, value.args, value.kwargs, value.node,
                                                          self.module_frame))
            return value.result
        if isinstance(value, ImportV):
            for _ in range(8):
                # a name another module imported in turn (`from .configs import DEVELOPER` in a
                # package's __init__.py, re-exported): followed from that module
                value = value.ev.resolve_import(value.q, value)
                if type(value) is not ImportV:
                    break
            if isinstance(value, (ImportV, LazyCallV)):
                return UNKNOWN
        return value

    def escape(self, values, calls: bool = False) -> None:
        """An unknown value may be any container reachable from ``values``
        (with ``calls``: or one of the functions among them, `HANDLERS[mode]`)."""
        for v in values:
            if type(v) not in PLAIN:
                break
        else:
            return  # numbers and strings (a shape, a key): nothing to hold
        for c in reachable(values):
            if type(c) is IterV:
                self.spend(c)  # an actor not followed may consume it, now or later
            if id(c) not in self.escaped_ids:
                self.escaped_ids.add(id(c))
                self.escaped.append(c)
        for v in values if calls else ():
            for f in (v if type(v) is tuple else (v,)):
                if type(f) is ClassV and id(f) not in self.escaped_ids:
                    # a class handed out (`globals()[name]`, a registry read with a key not
                    # known): what is not followed may instantiate it and call its methods
                    self.escaped_ids.add(id(f))
                    for c in f.mro() or (f,):
                        for m in c.attrs.values():
                            if type(m) is FuncV and id(m) not in self.escaped_ids and len(self.escaped_calls) < 16:
                                self.escaped_ids.add(id(m))
                                self.escaped_calls.append(m)
                    continue
                if user_function(f) and id(f) not in self.escaped_ids and len(self.escaped_calls) < 16:
                    self.escaped_ids.add(id(f))
                    self.escaped_calls.append(f)
                    # what it may hand back when called later (`defaultdict(lambda: DEFAULT)`):
                    # the containers its free names hold
                    for c in reachable(self.free_values(f)):
                        if id(c) not in self.escaped_ids:
                            self.escaped_ids.add(id(c))
                            self.escaped.append(c)

    def free_values(self, f) -> list:
        """What the names a function of the user's reads from outside itself
        (its closure, the module's globals, and a bound method's object) hold
        now: anything it could return or change when called later."""
        out: list = []
        if type(f) is BoundV:
            out.append(f.obj)
            f = f.func
        if type(f) is FuncV:
            names: set = set()
            todo = [f.fn]
            while todo and len(names) < 256:
                fn = todo.pop()
                names |= fn.loaded - fn.bound
                todo.extend(fn.children)
            closure = f.closure
            out.extend(f.defaults.values())
        elif type(f) is LambdaV:
            params = {a.arg for a in ast.walk(f.node.args) if isinstance(a, ast.arg)}
            names = {n.id for n in ast.walk(f.node.body) if isinstance(n, ast.Name)} - params
            closure = f.closure
        else:
            return out
        for name in sorted(names):
            value = self.deref(self.lookup(name, closure)) if closure is not None else UNKNOWN
            if type(value) is Module and value.ev.module_frame is not None:
                out.extend(value.ev.module_frame.vars.values())  # `configs.AUTO` through the module
            else:
                out.append(value)
        return out

    def consume_unknown(self) -> None:
        """A value not known is iterated: it may be a generator (or generator
        expression, ``map``) a join made unknown, whose items are then made,
        maybe (see Statements.spend)."""
        for v in JOINED:
            if type(v) is IterV and not v.looping and (v.lazy is not None or v.source is not None):
                self.spend(v)  # not read yet, or left part way

    def touch_unknown(self) -> None:
        """Something was changed through a value the evaluator does not know:
        it may be any container an unknown value may be."""
        if (self.escaped or JOINED) and havoc_deep(*self.escaped, *JOINED):
            self.effects += 1  # what they hold now too (stored after they escaped)

    def changed_unknown(self, obj) -> None:
        """``obj[k] = v``, ``del obj[k]``, ``obj.x = v`` on a value that is not
        a container the evaluator models: an instance whose own __setitem__
        does it (not run), or a value not known."""
        if type(obj) is InstanceV:
            if havoc_deep(obj):
                self.effects += 1
        self.touch_unknown()

    def precise(self, obj) -> bool:
        return getattr(obj, "token", 0) == self.token

    def kernel_frame(self, fn: Function, closure):
        """``@T.prim_func`` ran on ``fn`` in ``closure``: TVMScript parses the
        kernel now, reading its free names as they are at this moment. The
        frame its expressions are read in (returned, and kept per kernel) is a
        copy of ``closure`` and the frames around it as they are now, so a
        module flag or dict changed after the kernel was made (`MANUAL = True`
        after the compile, a loop setting a global per compile) is not read
        in its later state."""
        if self.quiet or closure is None:
            return closure
        frames = self.kernel_frames.setdefault(id(fn), [])
        snapshot = freeze_frame(closure, fn.loaded)
        if None not in frames:
            frames.append(snapshot if len(frames) < 16 else None)
        return snapshot

    def locals_of(self, fn: Function) -> set:
        """The names local to a function (bound anywhere in it)."""
        names = self.local_names.get(id(fn))
        if names is None:
            names = set(fn.params) | set(fn.assigns) | set(fn.functions) | set(fn.classes) | set(fn.imports)
            names -= fn.globals
            names -= fn.nonlocals
            self.local_names[id(fn)] = names
        return names

    # -- questions from the model -------------------------------------------
    def value_in(self, expr: ast.expr, scope, closure=None):
        """``expr`` as written in ``scope`` (a function of this module, or the
        module), read once the module has run: names bound in ``scope`` and
        in the functions around it are unknown, module names hold their final
        values. ``closure``, when given, is the frame ``scope``'s def ran in
        (one way a kernel was made): only ``scope``'s own names are unknown."""
        if self.module_frame is None or self.exhausted:
            return UNKNOWN
        chain = []
        s = scope
        while s is not None and s is not self.b.module:
            if isinstance(s, Function):
                chain.append(s)
                if closure is not None:
                    break
            s = s.parent
        frame = closure if closure is not None else self.module_frame
        for fn in reversed(chain):
            frame = Frame("function", frame, frame.module, fn, self.locals_of(fn))
            frame.globals = set(fn.globals)
            frame.nonlocals = fn.nonlocals
        if isinstance(scope, Function) and (scope.is_prim_func or scope.is_macro) and chain and chain[0] is scope:
            self.fold_once(expr, scope, frame, set())
        return self.eval_static(expr, frame)

    def fold_once(self, expr: ast.expr, fn: Function, frame: Frame, done: set, depth: int = 0) -> None:
        """Bind in ``frame`` the names of kernel ``fn`` that ``expr`` reads and
        that the kernel binds once, by a plain assignment it never mutates
        (``sub = block_M // 2``, ``use_sync = manual``: TVMScript keeps that
        Python value), to what the evaluator makes of the value here. ``done``:
        the names already folded into ``frame`` (also guards ``x = x + 1``)."""
        once = self.once_names.get(id(fn))
        if once is None:
            once = self.once_names[id(fn)] = {
                name: binds[0].value for name, binds in fn.assigns.items()
                if len(binds) == 1 and binds[0].value is not None and name not in fn.params
                and name not in fn.mutated}
        if not once or depth > 16:
            return
        names = self.once_reads.get(id(expr))
        if names is None:
            names = self.once_reads[id(expr)] = names_read(expr, once)  # the kernel's AST lives as long
        for name in names:
            if name in done:
                continue
            done.add(name)
            value_expr = once[name]
            self.fold_once(value_expr, fn, frame, done, depth + 1)
            value = self.eval_static(value_expr, frame)
            if value is not UNKNOWN:
                frame.vars[name] = value

    def final(self, name: str):
        if self.module_frame is None:
            return UNKNOWN
        return self.deref(self.module_frame.vars.get(name, UNKNOWN))

    def eval_static(self, expr: ast.expr, closure=None):
        """An expression of a kernel, evaluated with the frame its prim_func
        was defined in (or the module's final state); names the kernel binds
        itself are unknown."""
        frame = closure if closure is not None else self.module_frame
        if frame is None or self.exhausted:
            return UNKNOWN
        saved = (self.token, self.steps, self.quiet)
        self.token = -1  # nothing outside is mutated from here
        self.steps = self.max_steps - 300
        self.quiet = True  # compile sites reached from here are not recorded again
        try:
            return self.deref(self.expr(expr, frame))
        except Exception:  # Budget, Abrupt, RecursionError, anything unforeseen
            return UNKNOWN
        finally:
            self.token, self.steps, self.quiet = saved


_FREEZE_ITEMS = 4096  # containers copied for one kernel's snapshot, at most
_MUTABLE = (DictV, ListV, InstanceV, tuple)


def freeze_frame(frame: Frame, names) -> Frame:
    """A copy of ``frame`` and of the frames around it (up to the module's),
    whose values of ``names`` that are containers are copies too, as they
    are now: later stores into the live frames or containers do not reach
    it. A container too large to copy is unknown in the copy."""
    copies: Dict[int, Frame] = {}
    budget = [_FREEZE_ITEMS]

    def copy(f: Optional[Frame]) -> Optional[Frame]:
        if f is None:
            return None
        done = copies.get(id(f))
        if done is not None:
            return done
        new = Frame(f.kind, None, None, f.fn, f.locals)
        copies[id(f)] = new
        new.vars = dict(f.vars)
        for name in names:
            value = new.vars.get(name)
            if value is not None and type(value) in _MUTABLE:
                new.vars[name] = _frozen(value, budget, 0)
        new.parent = copy(f.parent)
        new.module = new if f.module is f else copy(f.module)
        new.globals = f.globals
        new.nonlocals = f.nonlocals
        new.star_unknown = f.star_unknown
        new.call = f.call
        return new

    return copy(frame)  # type: ignore[return-value]


def _frozen(value, budget: list, depth: int):
    t = type(value)
    if t not in _MUTABLE:
        return value
    if depth > 6 or budget[0] <= 0:
        return UNKNOWN
    if t is DictV:
        budget[0] -= len(value.entries) + 1
        if budget[0] < 0:
            return UNKNOWN
        out = DictV(value.token, {key: (_frozen(entry[0], budget, depth + 1),) + tuple(entry[1:])
                                  for key, entry in value.entries.items()}, value.complete)
        out.loose = set(value.loose) if value.loose else None
        return out
    if t is ListV or t is tuple:
        budget[0] -= len(value) + 1
        if budget[0] < 0:
            return UNKNOWN
        items = [_frozen(item, budget, depth + 1) for item in value]
        if t is tuple:
            return value if all(a is b for a, b in zip(items, value)) else tuple(items)
        out = ListV(items, value.token)
        out.spoiled = value.spoiled
        return out
    # an instance: its attributes as they are now
    budget[0] -= len(value.attrs) + 1
    if budget[0] < 0:
        return UNKNOWN
    out = InstanceV(value.cls, value.token)
    out.opaque = value.opaque
    out.attrs = {name: _frozen(attr, budget, depth + 1) for name, attr in value.attrs.items()}
    return out
