"""A small abstract interpreter for the user's own module code.

The module's statements run in order, abstractly: values are Python
constants, dicts (``DictV``), tuples/lists, functions (``FuncV``, closures with
their defaults), partials, classes, instances, modules and TileLang objects
(``LibV``: ``tilelang.jit``, ``T.prim_func``, ``PassConfigKey``), prim_funcs
(``KernelV``, with the frame they were defined in), or ``UNKNOWN``. Nothing is
imported or executed for real.

- Branches on known values take one side; on unknown values both sides run
  and the results are joined (a value both sides agree on survives, anything
  else becomes unknown). A mutation made where it is not certain to happen
  makes the mutated key unknown instead of setting it.
- Functions run when they are called with the arguments of the call; a
  function nothing in the module calls runs once with unknown arguments, so
  compile sites inside it are seen too.
- ``tilelang.compile`` reads its config where it is called; a jit decorator
  keeps the dict object and reads it when the kernel is compiled (after the
  module has run).
- Bounded: statements executed, call depth, loop unrolling, container
  sizes. When the budget runs out the evaluator stops answering and the
  model falls back to its static answers.

Uncertain is silent: ``UNKNOWN`` never makes a rule fire.
"""
from __future__ import annotations

import ast
import operator
from typing import Dict, List, Optional, Tuple

from .. import constants as C
from .build import canonical_prim
from .config import Entry, PassConfig
from .crossmod import _STDLIB, DENY_ROOTS
from .nodes import Function, Scope
from .resolve import UNKNOWN

_DENY = DENY_ROOTS | _STDLIB

_PENDING = object()
_MATCH = getattr(ast, "Match", None)  # Python 3.10+

MAX_STEPS = 10000  # statements + calls per module
MAX_DEPTH = 10  # nested calls
MAX_UNROLL = 64  # loop iterations / comprehension items
MAX_LEN = 256  # container and string sizes built by arithmetic


class _Budget(Exception):
    pass


class _Abrupt(Exception):
    """return / raise / break / continue leaving a block for certain."""

    def __init__(self, kind: str):
        self.kind = kind


class BadKey:
    """``PassConfigKey.<NAME>`` for a member that does not exist."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __eq__(self, other):
        return isinstance(other, BadKey) and other.name == self.name

    def __hash__(self):
        return hash(("BadKey", self.name))


class DictV:
    """A dict: key -> (value, key node, value node, filename). ``complete``
    False when some keys are unknown. ``token`` is the branch it was made in."""

    __slots__ = ("entries", "complete", "token")

    def __init__(self, token: int, entries=None, complete: bool = True):
        self.entries: Dict[object, tuple] = entries if entries is not None else {}
        self.complete = complete
        self.token = token

    def copy(self, token: int) -> "DictV":
        return DictV(token, dict(self.entries), self.complete)


class FuncV:
    __slots__ = ("fn", "closure", "defaults", "ev", "kind")

    def __init__(self, fn: Function, closure, defaults: Dict[str, object], ev: "Evaluator", kind: str = ""):
        self.fn = fn
        self.closure = closure
        self.defaults = defaults
        self.ev = ev
        self.kind = kind  # "", "static", "class"


class LambdaV:
    __slots__ = ("node", "closure", "defaults")

    def __init__(self, node: ast.Lambda, closure, defaults):
        self.node = node
        self.closure = closure
        self.defaults = defaults


class BoundV:
    """A method bound to its first argument (``self``/``cls``/a dict or list)."""

    __slots__ = ("func", "obj")

    def __init__(self, func, obj):
        self.func = func
        self.obj = obj


class PartialV:
    __slots__ = ("func", "args", "kwargs")

    def __init__(self, func, args: tuple, kwargs: Dict[str, tuple]):
        self.func = func
        self.args = args
        self.kwargs = kwargs


class ClassV:
    __slots__ = ("scope", "attrs")

    def __init__(self, scope: Optional[Scope], attrs: Dict[str, object]):
        self.scope = scope
        self.attrs = attrs


class InstanceV:
    __slots__ = ("cls", "attrs", "token")

    def __init__(self, cls: ClassV, token: int):
        self.cls = cls
        self.attrs: Dict[str, object] = {}
        self.token = token


class LibV:
    """A name of a library (``tilelang.jit``, ``functools.partial``, a builtin)."""

    __slots__ = ("q",)

    def __init__(self, q: str):
        self.q = q

    def __eq__(self, other):
        return isinstance(other, LibV) and other.q == self.q

    def __hash__(self):
        return hash(("LibV", self.q))


class ImportV:
    """A name imported from a module that may be the user's (resolved lazily)."""

    __slots__ = ("q", "ev")

    def __init__(self, q: str, ev: "Evaluator"):
        self.q = q
        self.ev = ev


class LazyCallV:
    """A call of a function imported from another module, made when its value is needed."""

    __slots__ = ("func", "args", "kwargs", "node", "result")

    def __init__(self, func, args, kwargs, node):
        self.func = func
        self.args = args
        self.kwargs = kwargs
        self.node = node
        self.result = _PENDING


class JitDecoV:
    """``tilelang.jit(out_idx=..., pass_configs=...)``: a decorator that compiles."""

    __slots__ = ("kwargs", "node", "unknown_kwargs")

    def __init__(self, kwargs: Dict[str, tuple], node: ast.AST, unknown_kwargs: bool):
        self.kwargs = kwargs
        self.node = node
        self.unknown_kwargs = unknown_kwargs


class PassDecoV:
    """A decorator that hands its argument through (``tilelang.autotune(...)``)."""

    __slots__ = ()


class JitV:
    """A jitted factory (what ``@tilelang.jit`` makes of a function)."""

    __slots__ = ("factory", "event")

    def __init__(self, factory, event=None):
        self.factory = factory
        self.event = event  # the compile site it records kernels for


class KernelV:
    """A prim_func object, with the frame its ``def`` ran in."""

    __slots__ = ("fn", "closure")

    def __init__(self, fn: Function, closure):
        self.fn = fn
        self.closure = closure


class KernelsV:
    """One of several prim_funcs (a join)."""

    __slots__ = ("items",)

    def __init__(self, items: tuple):
        self.items = items


class Frame:
    __slots__ = ("vars", "parent", "fn", "kind", "locals", "globals", "module", "returns")

    def __init__(self, kind: str, parent: Optional["Frame"], module: Optional["Frame"],
                 fn: Optional[Scope] = None, local_names=None):
        self.kind = kind  # "module", "function", "class"
        self.vars: Dict[str, object] = {}
        self.parent = parent
        self.module = module if module is not None else self
        self.fn = fn
        self.locals = local_names  # names local to a function (unbound reads are unknown)
        self.globals: set = set()
        self.returns: List[object] = []


class Event:
    """A compile site reached during evaluation."""

    __slots__ = ("kind", "node", "config", "kernels", "function", "label", "origin", "called")

    def __init__(self, kind: str, node: ast.AST, config, kernels, function, label: str, origin):
        self.kind = kind  # "jit", "jit-call", "compile"
        self.node = node
        self.config = config  # DictV, None (no pass_configs), UNKNOWN, or a PassConfig once settled
        self.kernels = kernels  # list of KernelV, or UNKNOWN
        self.function = function  # the factory Function (jit)
        self.label = label
        self.origin = origin  # the pass_configs expression, or the site
        # kernels the jitted factory returned where the module calls it with its arguments
        self.called: list = []


_BUILTINS = frozenset({
    "dict", "getattr", "hasattr", "len", "range", "tuple", "list", "bool", "int", "str", "float",
    "print", "isinstance", "sorted", "enumerate", "zip", "min", "max", "abs", "set", "frozenset",
    "staticmethod", "classmethod", "property", "super", "type", "object", "Exception", "ValueError",
    "RuntimeError", "TypeError", "KeyError", "NotImplementedError", "AssertionError", "ImportError",
    "ModuleNotFoundError", "AttributeError", "SystemExit", "reversed", "any", "all", "iter", "next",
    "True", "False", "None", "open", "vars", "id", "hash", "repr", "format", "round", "divmod", "pow",
    "map", "filter", "sum", "callable", "setattr", "delattr", "globals", "locals", "input", "exit", "quit",
})
_BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod, ast.Div: operator.truediv, ast.BitAnd: operator.and_, ast.BitXor: operator.xor,
    ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.BitOr: operator.or_, ast.Pow: operator.pow,
}
_COMPARE = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}
_PLAIN = (int, float, str, bool, bytes, type(None))
_LIBRARY_ROOTS = frozenset({
    "tilelang", "tvm", "torch", "torch_npu", "numpy", "functools", "os", "sys", "math", "argparse",
    "random", "itertools", "typing", "dataclasses", "enum", "collections", "json", "time", "pathlib",
})


def plain(value) -> bool:
    """A Python constant (or a tuple/list of them) the old model could have read."""
    if isinstance(value, _PLAIN):
        return True
    if isinstance(value, (tuple, list)):
        return all(plain(v) for v in value)
    return False


def _known(value) -> bool:
    return value is not UNKNOWN


def truth(value):
    """True/False for a value whose truth is known, else UNKNOWN."""
    if isinstance(value, _PLAIN):
        return bool(value)
    if isinstance(value, (tuple, list)):
        return bool(value)
    if isinstance(value, DictV):
        if value.entries:
            return True
        return False if value.complete else UNKNOWN
    if isinstance(value, (FuncV, ClassV, KernelV, JitV, JitDecoV, PartialV, BadKey, LambdaV)):
        return True
    return UNKNOWN


def join(a, b):
    """One of two values (two sides of an unknown branch)."""
    if a is b:
        return a
    if isinstance(a, _PLAIN) and isinstance(b, _PLAIN):
        return a if type(a) is type(b) and a == b else UNKNOWN
    if isinstance(a, DictV) and isinstance(b, DictV):
        entries = {}
        for key in list(a.entries) + [k for k in b.entries if k not in a.entries]:
            ea, eb = a.entries.get(key), b.entries.get(key)
            src = ea or eb
            if ea is not None and eb is not None:
                value = join(ea[0], eb[0])
            else:
                other, present = (b, ea) if ea is not None else (a, eb)
                # absent from a complete dict is off: keeps a False that both mean
                value = present[0] if other.complete and present[0] in (False, 0) \
                    and type(present[0]) in (bool, int) else UNKNOWN
            entries[key] = (value,) + tuple(src[1:])
        return DictV(min(a.token, b.token), entries, a.complete and b.complete)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)) and type(a) is type(b) and len(a) == len(b):
        items = [join(x, y) for x, y in zip(a, b)]
        return tuple(items) if isinstance(a, tuple) else _mklist(items, min(a.token, b.token))
    ka, kb = _kernels_of(a), _kernels_of(b)
    if ka is not None and kb is not None:
        items = tuple(dict.fromkeys(ka + kb))
        return KernelsV(items)
    if isinstance(a, LibV) and a == b:
        return a
    return UNKNOWN


def _kernels_of(value) -> Optional[tuple]:
    if isinstance(value, KernelV):
        return (value,)
    if isinstance(value, KernelsV):
        return value.items
    return None


class Evaluator:
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
        self.depth = 0
        self.exhausted = False
        self.token = 0  # the innermost uncertain branch (0: certain)
        self._next_token = 0
        self.events: List[Event] = []
        self.executed: set = set()  # ids of Functions that ran
        self.module_frame: Optional[Frame] = None
        self._running = False
        self._done = False
        self.quiet = False
        self.cyclic = False  # imports a module that (indirectly) imports it back
        self.phase = "module"
        self._locals: Dict[int, set] = {}

    # -- driver ------------------------------------------------------------
    def run(self) -> "Evaluator":
        if self._done or self._running:
            return self
        self._running = True
        frame = Frame("module", None, None, self.b.module)
        frame.vars["__name__"] = UNKNOWN
        self.module_frame = frame
        try:
            try:
                self.block(self.b.tree.body, frame)
            except _Abrupt:
                pass
            self.phase = "post"
            self.settle_factories()
            # configs a jit decorator holds are read when the kernel compiles
            for event in self.events:
                if isinstance(event.config, DictV):
                    event.config = self.to_config(event.config)
            self.sweep()
            self.settle_factories()
        except (_Budget, RecursionError):
            self.exhausted = True
        except Exception:  # a form this evaluator mishandles: the model's static answers stand
            self.exhausted = True
        self._running = False
        self._done = True
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
                self._next_token += 1
                saved, self.token = self.token, self._next_token
                try:
                    self.call_function(self.func_value(fn), (), {}, None, unknown_args=True)
                except _Abrupt:
                    pass
                finally:
                    self.token = saved

    def func_value(self, fn: Function) -> FuncV:
        closure = self.module_frame
        return FuncV(fn, closure, {}, self)

    def tick(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise _Budget()

    def fork_token(self) -> int:
        self._next_token += 1
        return self._next_token

    def deref(self, value):
        """A name imported from the user's project, or a call of one, followed
        only when its value is needed (a test helper from another module is
        never read if nothing uses what it returns)."""
        if isinstance(value, LazyCallV):
            if value.result is _PENDING:
                value.result = UNKNOWN  # re-entrance guard
                func = self.deref(value.func)
                value.result = self.deref(self.call_value(func, value.args, value.kwargs, value.node,
                                                          self.module_frame)) if func is not UNKNOWN else UNKNOWN
            return value.result
        if isinstance(value, ImportV):
            value = self.resolve_import(value.q, value)
            if isinstance(value, (ImportV, LazyCallV)):
                return UNKNOWN
        return value

    def precise(self, obj) -> bool:
        return getattr(obj, "token", 0) == self.token

    # -- statements ----------------------------------------------------------
    def block(self, stmts, frame: Frame) -> None:
        for stmt in stmts:
            self.stmt(stmt, frame)

    def stmt(self, node: ast.stmt, frame: Frame) -> None:
        self.tick()
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
            self.funcdef(node, frame)
        elif t is ast.ClassDef:
            self.classdef(node, frame)
        elif t in (ast.Import, ast.ImportFrom):
            self.import_(node, frame)
        elif t is ast.If:
            self.branch(self.deref(self.expr(node.test, frame)), node.body, node.orelse, frame)
        elif t in (ast.For, ast.AsyncFor):
            self.for_(node, frame)
        elif t is ast.While:
            test = truth(self.expr(node.test, frame))
            if test is False:
                self.block(node.orelse, frame)
            else:
                self.uncertain([node.body, []], frame)
        elif t in (ast.With, ast.AsyncWith):
            for item in node.items:
                self.expr(item.context_expr, frame)
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, UNKNOWN, frame)
            self.block(node.body, frame)
        elif t is ast.Try or type(node).__name__ == "TryStar":
            self.block(node.body, frame)
            handlers = [h.body for h in node.handlers if not _catches_import_error(h)]
            for h in node.handlers:
                if h.name:
                    frame.vars[h.name] = UNKNOWN
            if handlers:
                self.uncertain([node.orelse] + handlers, frame)
            else:
                self.block(node.orelse, frame)
            self.block(node.finalbody, frame)
        elif t is ast.Return:
            value = self.expr(node.value, frame) if node.value is not None else None
            frame.returns.append(value)
            raise _Abrupt("return")
        elif t is ast.Raise:
            raise _Abrupt("raise")
        elif t is ast.Break:
            raise _Abrupt("break")
        elif t is ast.Continue:
            raise _Abrupt("continue")
        elif t is ast.Delete:
            for target in node.targets:
                self.delete(target, frame)
        elif t in (ast.Global, ast.Nonlocal):
            if t is ast.Global:
                frame.globals.update(node.names)
        elif t is _MATCH:
            self.match(node, frame)
        elif t is ast.Assert:
            pass
        # pass, others: nothing to do

    def branch(self, test, body, orelse, frame: Frame) -> None:
        value = truth(test)
        if value is True:
            self.block(body, frame)
        elif value is False:
            self.block(orelse, frame)
        else:
            self.uncertain([body, orelse], frame)

    def uncertain(self, blocks, frame: Frame) -> None:
        """Run each block from the same state, in a branch of its own; join
        the states of the blocks that fall through."""
        start = dict(frame.vars)
        saved = self.token
        ends = []
        returns_before = len(frame.returns)
        for body in blocks:
            frame.vars = dict(start)
            self.token = self.fork_token()
            try:
                self.block(body, frame)
                ends.append(frame.vars)
            except _Abrupt as e:
                if e.kind in ("break", "continue"):
                    ends.append(frame.vars)
            finally:
                self.token = saved
        if not ends:
            frame.vars = start
            if len(frame.returns) > returns_before:
                raise _Abrupt("return")
            raise _Abrupt("raise")
        merged = ends[0]
        for other in ends[1:]:
            merged = _join_vars(merged, other)
        frame.vars = merged

    def for_(self, node, frame: Frame) -> None:
        items = self.iterate(self.expr(node.iter, frame))
        if items is not None and len(items) > 8 and all(type(i) is int for i in items):
            items = None  # a numeric loop (test data, shapes): once, as if any iteration
        if items is None:
            self.assign(node.target, UNKNOWN, frame)
            self.uncertain([node.body, []], frame)
            return
        for item in items:
            self.assign(node.target, item, frame)
            try:
                self.block(node.body, frame)
            except _Abrupt as e:
                if e.kind == "break":
                    return
                if e.kind != "continue":
                    raise
        self.block(node.orelse, frame)

    def iterate(self, value) -> Optional[list]:
        value = self.deref(value)
        if isinstance(value, (tuple, list, str)):
            seq = list(value)
        elif isinstance(value, DictV) and value.complete:
            seq = list(value.entries)
        else:
            return None
        return seq if len(seq) <= MAX_UNROLL else None

    def match(self, node, frame: Frame) -> None:
        subject = self.expr(node.subject, frame)
        for case in node.cases:
            ok = self.pattern(case.pattern, subject, frame)
            if ok is True and case.guard is not None:
                ok = truth(self.expr(case.guard, frame))
            if ok is True:
                self.block(case.body, frame)
                return
            if ok is not False:
                # undecidable from here on: any remaining case, or none
                rest = [c.body for c in node.cases[node.cases.index(case):]]
                self.uncertain(rest + [[]], frame)
                return

    def pattern(self, pat, subject, frame: Frame):
        if isinstance(pat, ast.MatchAs) and pat.pattern is None:
            if pat.name:
                frame.vars[pat.name] = subject
            return True
        if isinstance(pat, ast.MatchValue):
            value = self.expr(pat.value, frame)
            if isinstance(value, _PLAIN) and isinstance(subject, _PLAIN):
                return value == subject
            return UNKNOWN
        if isinstance(pat, ast.MatchSingleton):
            return pat.value is subject if isinstance(subject, _PLAIN) else UNKNOWN
        if isinstance(pat, ast.MatchOr):
            results = [self.pattern(p, subject, frame) for p in pat.patterns]
            if True in results:
                return True
            return False if all(r is False for r in results) else UNKNOWN
        return UNKNOWN

    def funcdef(self, node, frame: Frame) -> None:
        fn = self.by_node.get(id(node))
        if fn is None:
            self.assign_name(node.name, UNKNOWN, frame)
            return
        args = node.args
        positional = list(args.posonlyargs) + list(args.args)
        defaults: Dict[str, object] = {}
        for a, d in zip(positional[len(positional) - len(args.defaults):], args.defaults):
            defaults[a.arg] = self.expr(d, frame)
        for a, d in zip(args.kwonlyargs, args.kw_defaults):
            if d is not None:
                defaults[a.arg] = self.expr(d, frame)
        closure = frame if frame.kind != "class" else frame.parent
        value: object = FuncV(fn, closure, defaults, self)
        for dec in reversed(node.decorator_list):
            deco = self.expr(dec, frame)
            value = self.apply(deco, value, dec, frame)
        self.assign_name(node.name, value, frame)

    def apply(self, deco, value, node: ast.AST, frame: Frame):
        """``@deco`` on ``value``."""
        deco = self.deref(deco)
        if isinstance(deco, LibV):
            if deco.q == "staticmethod" and isinstance(value, FuncV):
                return FuncV(value.fn, value.closure, value.defaults, value.ev, "static")
            if deco.q == "classmethod" and isinstance(value, FuncV):
                return FuncV(value.fn, value.closure, value.defaults, value.ev, "class")
            if deco.q in ("staticmethod", "classmethod") and isinstance(value, JitV):
                return value
        return self.call_value(deco, (value,), {}, node, frame)

    def classdef(self, node: ast.ClassDef, frame: Frame) -> None:
        scope = self.classes_by_node.get(id(node))
        cls_frame = Frame("class", frame, frame.module, scope)
        try:
            self.block(node.body, cls_frame)
        except _Abrupt:
            pass
        self.assign_name(node.name, ClassV(scope, cls_frame.vars), frame)

    def import_(self, node, frame: Frame) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    frame.vars[alias.asname] = self.import_value(alias.name)
                else:
                    root = alias.name.split(".")[0]
                    frame.vars[root] = self.import_value(root)
            return
        module = "." * (node.level or 0) + (node.module or "")
        for alias in node.names:
            if alias.name == "*":
                continue
            sep = "" if module.endswith(".") else "."
            frame.vars[alias.asname or alias.name] = self.import_value(module + sep + alias.name)

    def import_value(self, q: str):
        if not q.startswith(".") and (q.split(".")[0] in _LIBRARY_ROOTS or q.split(".")[0] in _DENY):
            return LibV(q)
        return ImportV(q, self)

    # -- bindings ------------------------------------------------------------
    def assign(self, target, value, frame: Frame, value_node: Optional[ast.expr] = None) -> None:
        t = type(target)
        if t is ast.Name:
            self.assign_name(target.id, value, frame)
        elif t in (ast.Tuple, ast.List):
            elts = target.elts
            if isinstance(value, (tuple, list)) and len(value) == len(elts) and \
                    not any(isinstance(e, ast.Starred) for e in elts):
                nodes = value_node.elts if isinstance(value_node, (ast.Tuple, ast.List)) and \
                    len(value_node.elts) == len(elts) else [None] * len(elts)
                for e, v, n in zip(elts, value, nodes):
                    self.assign(e, v, frame, n)
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
            obj = self.expr(target.value, frame)
            if isinstance(obj, InstanceV):
                if self.precise(obj):
                    obj.attrs[target.attr] = value
                else:
                    obj.attrs[target.attr] = join(obj.attrs.get(target.attr, UNKNOWN), value)
            elif isinstance(obj, ClassV):
                obj.attrs[target.attr] = value if self.token == 0 else UNKNOWN

    def assign_name(self, name: str, value, frame: Frame) -> None:
        if name in frame.globals:
            module = frame.module
            if self.phase == "post":
                module.vars[name] = join(module.vars.get(name, UNKNOWN), value)
            else:
                module.vars[name] = value
            return
        frame.vars[name] = value

    def set_item(self, obj, key, value, key_node, value_node) -> None:
        if isinstance(obj, DictV):
            if key is UNKNOWN or not _hashable(key):
                obj.complete = False
                return
            if self.precise(obj):
                obj.entries[key] = (value, key_node, value_node, self.filename)
            else:
                old = obj.entries.get(key)
                obj.entries[key] = (UNKNOWN if old is None or old[0] is not value else value,
                                    key_node, value_node, self.filename)
        elif isinstance(obj, list) and type(key) is int and self.precise(obj):
            if -len(obj) <= key < len(obj):
                obj[key] = value

    def delete(self, target, frame: Frame) -> None:
        if isinstance(target, ast.Subscript):
            obj = self.expr(target.value, frame)
            key = self.expr(target.slice, frame)
            self.del_item(obj, key)
        elif isinstance(target, ast.Name):
            frame.vars[target.id] = UNKNOWN

    def del_item(self, obj, key) -> None:
        if not isinstance(obj, DictV):
            return
        if key is UNKNOWN or not _hashable(key):
            obj.complete = False
            for k, e in list(obj.entries.items()):
                obj.entries[k] = (UNKNOWN,) + tuple(e[1:])
            return
        if key in obj.entries:
            if self.precise(obj):
                del obj.entries[key]
            else:
                obj.entries[key] = (UNKNOWN,) + tuple(obj.entries[key][1:])

    def augassign(self, node: ast.AugAssign, frame: Frame) -> None:
        value = self.expr(node.value, frame)
        target = node.target
        if isinstance(target, ast.Name):
            current = self.lookup(target.id, frame)
            if isinstance(node.op, ast.BitOr) and isinstance(current, DictV):
                self.update(current, value, node.value)  # dict |= is in place
                return
            result = self.binop(node.op, current, value)
            self.assign_name(target.id, result, frame)
        elif isinstance(target, ast.Subscript):
            obj = self.expr(target.value, frame)
            key = self.expr(target.slice, frame)
            self.set_item(obj, key, UNKNOWN, target.slice, node.value)
        else:
            self.assign(target, UNKNOWN, frame)

    def update(self, obj: DictV, other, node) -> None:
        other = self.deref(other)
        if isinstance(other, DictV):
            for key, entry in other.entries.items():
                self.set_item(obj, key, entry[0], entry[1], entry[2])
                if self.precise(obj):
                    obj.entries[key] = entry
            if not other.complete:
                obj.complete = False
                for k, e in list(obj.entries.items()):
                    if k not in other.entries:
                        obj.entries[k] = (UNKNOWN,) + tuple(e[1:])
        else:
            obj.complete = False
            for k, e in list(obj.entries.items()):
                obj.entries[k] = (UNKNOWN,) + tuple(e[1:])

    # -- names ---------------------------------------------------------------
    def lookup(self, name: str, frame: Frame):
        f: Optional[Frame] = frame
        first = True
        while f is not None:
            if f.kind == "class" and not first:
                f = f.parent
                continue
            first = False
            if name in f.globals:
                f = f.module
                continue
            if name in f.vars:
                return f.vars[name]
            if f.locals is not None and name in f.locals:
                return UNKNOWN  # local, not (certainly) bound yet
            f = f.parent
        if name in _BUILTINS:
            if name in ("True", "False", "None"):
                return {"True": True, "False": False, "None": None}[name]
            return LibV(name)
        return UNKNOWN

    # -- expressions ---------------------------------------------------------
    def expr(self, node, frame: Frame):
        if node is None:
            return None
        t = type(node)
        if t is ast.Constant:
            return node.value
        if t is ast.Name:
            return self.lookup(node.id, frame)
        if t is ast.Attribute:
            return self.getattr_(self.expr(node.value, frame), node.attr)
        if t is ast.Call:
            return self.call(node, frame)
        if t is ast.Dict:
            return self.dict_display(node, frame)
        if t in (ast.Tuple, ast.List):
            items = []
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    seq = self.iterate(self.expr(e.value, frame))
                    if seq is None:
                        return UNKNOWN
                    items.extend(seq)
                else:
                    items.append(self.expr(e, frame))
            return tuple(items) if t is ast.Tuple else _mklist(items, self.token)
        if t is ast.Subscript:
            return self.subscript(self.expr(node.value, frame), self.expr(node.slice, frame))
        if t is ast.BinOp:
            return self.binop(node.op, self.expr(node.left, frame), self.expr(node.right, frame))
        if t is ast.UnaryOp:
            v = self.expr(node.operand, frame)
            if isinstance(node.op, ast.Not):
                tv = truth(v)
                return UNKNOWN if tv is UNKNOWN else (not tv)
            if isinstance(v, (int, float)) and not isinstance(v, bool) or type(v) is bool:
                try:
                    return {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}[
                        type(node.op)](v)
                except Exception:
                    return UNKNOWN
            return UNKNOWN
        if t is ast.BoolOp:
            is_and = isinstance(node.op, ast.And)
            result = UNKNOWN
            for i, e in enumerate(node.values):
                v = self.expr(e, frame)
                tv = truth(v)
                if tv is UNKNOWN:
                    return UNKNOWN
                result = v
                if (is_and and not tv) or (not is_and and tv):
                    return v
            return result
        if t is ast.Compare:
            return self.compare(node, frame)
        if t is ast.IfExp:
            test = truth(self.deref(self.expr(node.test, frame)))
            if test is True:
                return self.expr(node.body, frame)
            if test is False:
                return self.expr(node.orelse, frame)
            saved = self.token
            self.token = self.fork_token()
            try:
                a = self.expr(node.body, frame)
                self.token = self.fork_token()
                b = self.expr(node.orelse, frame)
            finally:
                self.token = saved
            return join(a, b)
        if t is ast.NamedExpr:
            value = self.expr(node.value, frame)
            self.assign(node.target, value, frame, node.value)
            return value
        if t in (ast.DictComp, ast.ListComp, ast.SetComp, ast.GeneratorExp):
            return self.comprehension(node, frame)
        if t is ast.Lambda:
            args = node.args
            positional = list(args.posonlyargs) + list(args.args)
            defaults = {a.arg: self.expr(d, frame)
                        for a, d in zip(positional[len(positional) - len(args.defaults):], args.defaults)}
            return LambdaV(node, frame, defaults)
        if t is ast.JoinedStr:
            parts = []
            for v in node.values:
                if isinstance(v, ast.Constant):
                    parts.append(str(v.value))
                elif isinstance(v, ast.FormattedValue) and v.format_spec is None and v.conversion == -1:
                    x = self.expr(v.value, frame)
                    if not isinstance(x, (str, int)) or isinstance(x, bool):
                        return UNKNOWN
                    parts.append(str(x))
                else:
                    return UNKNOWN
            s = "".join(parts)
            return s if len(s) <= MAX_LEN else UNKNOWN
        return UNKNOWN

    def dict_display(self, node: ast.Dict, frame: Frame):
        result = DictV(self.token)
        for k, v in zip(node.keys, node.values):
            if k is None:
                other = self.expr(v, frame)
                self._merge_into(result, other)
                continue
            key = self.expr(k, frame)
            value = self.expr(v, frame)
            if key is UNKNOWN or not _hashable(key):
                _spoil(result)
                continue
            result.entries[key] = (value, k, v, self.filename)
        return result

    def _merge_into(self, result: DictV, other) -> None:
        other = self.deref(other)
        if isinstance(other, DictV):
            result.entries.update(other.entries)
            if not other.complete:
                result.complete = False
                for k, e in list(result.entries.items()):
                    if k not in other.entries:
                        result.entries[k] = (UNKNOWN,) + tuple(e[1:])
        else:
            _spoil(result)

    def comprehension(self, node, frame: Frame):
        inner = Frame("function", frame, frame.module, None, set())
        inner.vars = {}
        out: list = []
        result = DictV(self.token) if isinstance(node, ast.DictComp) else None
        count = [0]

        def run(i: int) -> bool:
            if i == len(node.generators):
                count[0] += 1
                if count[0] > MAX_UNROLL:
                    return False
                if result is not None:
                    key = self.expr(node.key, inner)
                    value = self.expr(node.value, inner)
                    if key is UNKNOWN or not _hashable(key):
                        return False
                    result.entries[key] = (value, node, node.value, self.filename)
                else:
                    out.append(self.expr(node.elt, inner))
                return True
            gen = node.generators[i]
            items = self.iterate(self.expr(gen.iter, inner if i else frame))
            if items is None or gen.is_async:
                return False
            for item in items:
                self.tick()
                self.assign(gen.target, item, inner)
                keep = True
                for cond in gen.ifs:
                    tv = truth(self.expr(cond, inner))
                    if tv is UNKNOWN:
                        return False
                    if not tv:
                        keep = False
                        break
                if keep and not run(i + 1):
                    return False
            return True

        if not run(0):
            return UNKNOWN
        if result is not None:
            return result
        if isinstance(node, ast.ListComp):
            return _mklist(out, self.token)
        return tuple(out)

    def subscript(self, obj, key):
        obj = self.deref(obj)
        if isinstance(obj, LibV) and obj.q in C.PASS_CONFIG_KEY_CLASSES and isinstance(key, str):
            return self.getattr_(obj, key)  # PassConfigKey["TL_ASCEND_AUTO_SYNC"]
        if isinstance(obj, DictV):
            if not _hashable(key) or key is UNKNOWN:
                return UNKNOWN
            entry = obj.entries.get(key)
            return entry[0] if entry is not None else UNKNOWN
        if isinstance(obj, (tuple, list, str)):
            if type(key) is int:
                try:
                    return obj[key]
                except IndexError:
                    return UNKNOWN
            if isinstance(key, slice):
                return UNKNOWN
        return UNKNOWN

    def binop(self, op, a, b):
        a, b = self.deref(a), self.deref(b)
        if isinstance(op, ast.BitOr) and isinstance(a, DictV) and isinstance(b, DictV):
            result = a.copy(self.token)
            self._merge_into(result, b)
            return result
        if isinstance(a, _PLAIN) and isinstance(b, _PLAIN) and type(op) in _BINOPS:
            if isinstance(op, ast.Pow) and (not isinstance(b, int) or abs(b) > 64):
                return UNKNOWN
            if isinstance(op, (ast.LShift,)) and isinstance(b, int) and b > 64:
                return UNKNOWN
            if isinstance(op, ast.Mult) and (isinstance(a, (str, bytes)) or isinstance(b, (str, bytes))):
                n = b if isinstance(a, (str, bytes)) else a
                if not isinstance(n, int) or n * max(len(a) if isinstance(a, (str, bytes)) else 1,
                                                     len(b) if isinstance(b, (str, bytes)) else 1) > MAX_LEN:
                    return UNKNOWN
            try:
                result = _BINOPS[type(op)](a, b)
            except Exception:
                return UNKNOWN
            if isinstance(result, (str, bytes)) and len(result) > MAX_LEN:
                return UNKNOWN
            return result
        if isinstance(op, ast.Add) and isinstance(a, (tuple, list)) and type(a) is type(b):
            if len(a) + len(b) > MAX_LEN:
                return UNKNOWN
            return tuple(a) + tuple(b) if isinstance(a, tuple) else _mklist(list(a) + list(b), self.token)
        return UNKNOWN

    def compare(self, node: ast.Compare, frame: Frame):
        left = self.deref(self.expr(node.left, frame))
        for op, right_node in zip(node.ops, node.comparators):
            right = self.deref(self.expr(right_node, frame))
            if isinstance(op, (ast.Is, ast.IsNot)):
                if left is UNKNOWN or right is UNKNOWN:
                    return UNKNOWN
                if isinstance(left, _PLAIN) and isinstance(right, _PLAIN) and \
                        (left is None or right is None or type(left) is bool or type(right) is bool):
                    ok = (left is right) == isinstance(op, ast.Is)
                else:
                    return UNKNOWN
            elif isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, DictV):
                if not _hashable(left) or left is UNKNOWN:
                    return UNKNOWN
                if left in right.entries:
                    ok = True
                elif right.complete:
                    ok = False
                else:
                    return UNKNOWN
                ok = ok if isinstance(op, ast.In) else not ok
            else:
                if not (plain(left) and plain(right)) or type(op) not in _COMPARE:
                    if isinstance(op, (ast.Eq, ast.NotEq)) and _comparable_ref(left) and _comparable_ref(right):
                        ok = (left == right) == isinstance(op, ast.Eq)
                    else:
                        return UNKNOWN
                else:
                    try:
                        ok = bool(_COMPARE[type(op)](left, right))
                    except Exception:
                        return UNKNOWN
            if not ok:
                return False
            left = right
        return True

    # -- attributes ----------------------------------------------------------
    def getattr_(self, obj, attr: str):
        if isinstance(obj, LibV):
            if obj.q in C.PASS_CONFIG_KEY_CLASSES:
                value = C.PASS_CONFIG_ENUM.get(attr)
                return value if value is not None else BadKey(attr)
            return LibV(obj.q + "." + attr)
        if isinstance(obj, ImportV):
            return ImportV(obj.q + "." + attr, obj.ev)  # followed when used
        if isinstance(obj, LazyCallV):
            obj = self.deref(obj)
        if isinstance(obj, str):
            if attr == "value" and obj in C.KNOWN_KEYS:
                return obj
            return BoundV(LibV("str." + attr), obj)
        if isinstance(obj, BadKey):
            return obj if attr == "value" else UNKNOWN
        if isinstance(obj, DictV):
            return BoundV(LibV("dict." + attr), obj)
        if isinstance(obj, list):
            return BoundV(LibV("list." + attr), obj)
        if isinstance(obj, ClassV):
            value = obj.attrs.get(attr, UNKNOWN)
            if isinstance(value, FuncV) and value.kind == "class":
                return BoundV(value, obj)
            return value
        if isinstance(obj, InstanceV):
            if attr in obj.attrs:
                return obj.attrs[attr]
            value = obj.cls.attrs.get(attr, UNKNOWN)
            if isinstance(value, FuncV):
                if value.kind == "static":
                    return value
                return BoundV(value, obj.cls if value.kind == "class" else obj)
            return value
        if isinstance(obj, Module):
            return obj.get(attr)
        return UNKNOWN

    def resolve_import(self, q: str, via: Optional[ImportV] = None):
        """A name imported from the user's project: its value at the end of
        that module's evaluation (unknown when it cannot be followed)."""
        resolver = self.resolver
        try:
            found = resolver.loader.split(q, self.filename)
        except Exception:
            return UNKNOWN
        if found is None:
            return ImportV(q, self) if via is None else UNKNOWN
        path, rest = found
        loader = resolver.loader
        if path in loader.loading:
            # an import cycle: every module on it is unknown (Python fails the import)
            for p in loader.loading[max(1, loader.loading.index(path)):]:
                r = loader.resolvers.get(p)
                if r is not None and r._evaluator is not None:
                    r._evaluator.cyclic = True
            return UNKNOWN
        if len(loader.loading) >= 8:
            return UNKNOWN
        other = loader.resolver_for(path)
        if other is None:
            return UNKNOWN
        loader.loading.append(path)
        try:
            ev = other.evaluator()
            if ev is None or ev.module_frame is None or ev.exhausted or ev.cyclic:
                return UNKNOWN
            value = Module(ev)
            for name in rest:
                value = ev.getattr_(value, name)
            return value
        finally:
            loader.loading.pop()

    # -- calls ---------------------------------------------------------------
    def call(self, node: ast.Call, frame: Frame):
        self.tick()
        func = self.expr(node.func, frame)
        args: list = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                seq = self.iterate(self.expr(a.value, frame))
                if seq is None:
                    args.append(_STAR_UNKNOWN)
                    continue
                args.extend(seq)
            else:
                args.append(self.expr(a, frame))
        kwargs: Dict[str, tuple] = {}
        for kw in node.keywords:
            value = self.expr(kw.value, frame)
            if kw.arg is None:
                value = self.deref(value)
                if isinstance(value, DictV) and all(isinstance(k, str) for k in value.entries):
                    for k, e in value.entries.items():
                        kwargs[k] = (e[0], e[2] if e[2] is not None else kw.value)
                    if not value.complete:
                        kwargs[_KW_UNKNOWN] = (UNKNOWN, kw.value)
                else:
                    kwargs[_KW_UNKNOWN] = (UNKNOWN, kw.value)
            else:
                kwargs[kw.arg] = (value, kw.value)
        site = node.func if isinstance(node.func, ast.Call) else node
        return self.call_value(func, tuple(args), kwargs, site, frame, call_node=node)

    def call_value(self, func, args: tuple, kwargs: Dict[str, tuple], node, frame: Frame, call_node=None):
        if func is UNKNOWN:
            return UNKNOWN
        if isinstance(func, ImportV):
            return LazyCallV(func, args, kwargs, node)  # called when its value is needed
        if isinstance(func, LazyCallV):
            func = self.deref(func)
        if isinstance(func, FuncV):
            return func.ev.call_function(func, args, kwargs, node)
        if isinstance(func, LambdaV):
            return self.call_lambda(func, args, kwargs)
        if isinstance(func, BoundV):
            if isinstance(func.func, LibV):
                return self.method(func.func.q, func.obj, args, kwargs, node)
            return self.call_value(func.func, (func.obj,) + args, kwargs, node, frame)
        if isinstance(func, PartialV):
            merged = dict(func.kwargs)
            merged.update(kwargs)
            return self.call_value(func.func, func.args + args, merged, node, frame)
        if isinstance(func, JitDecoV):
            if len(args) == 1 and not kwargs:
                return self.jit(args[0], func.kwargs, func.unknown_kwargs, node, "jit-call")
            return UNKNOWN
        if isinstance(func, JitV):
            # calling a jitted factory compiles what it returns for these arguments
            event = func.event
            if event is not None and isinstance(func.factory, (FuncV, BoundV)) and not self.quiet \
                    and len(event.called) < 8:
                result = self.call_value(func.factory, args, kwargs, node, frame)
                found = _kernels_of(result)
                if found is not None:
                    event.called.extend(found)
            return UNKNOWN
        if isinstance(func, PassDecoV):
            return args[0] if len(args) == 1 and not kwargs else UNKNOWN
        if isinstance(func, ClassV):
            inst = InstanceV(func, self.token)
            init = func.attrs.get("__init__")
            if isinstance(init, FuncV):
                init.ev.call_function(init, (inst,) + args, kwargs, node)
            return inst
        if isinstance(func, LibV):
            return self.library(func.q, args, kwargs, node, frame)
        return UNKNOWN

    def call_function(self, func: FuncV, args: tuple, kwargs: Dict[str, tuple], node,
                      unknown_args: bool = False):
        fn = func.fn
        if fn.is_prim_func or fn.is_macro or self.depth >= MAX_DEPTH or self.exhausted:
            return UNKNOWN
        self.tick()
        self.executed.add(id(fn))
        locals_ = self._locals.get(id(fn))
        if locals_ is None:
            locals_ = set(fn.params) | set(fn.assigns) | set(fn.functions) | set(fn.classes) | set(fn.imports)
            locals_ -= fn.globals
            self._locals[id(fn)] = locals_
        frame = Frame("function", func.closure, func.closure.module if func.closure else self.module_frame,
                      fn, locals_)
        frame.globals = set(fn.globals)
        self.bind_params(fn, frame, func.defaults, args, kwargs, unknown_args)
        self.depth += 1
        try:
            self.block(fn.node.body, frame)
            frame.returns.append(None)
        except _Abrupt:
            pass
        finally:
            self.depth -= 1
        if not frame.returns:
            return UNKNOWN
        result = frame.returns[0]
        for r in frame.returns[1:]:
            result = join(result, r)
        return result

    def call_lambda(self, func: "LambdaV", args: tuple, kwargs) -> object:
        a = func.node.args
        if a.vararg is not None or a.kwarg is not None or a.kwonlyargs or self.depth >= MAX_DEPTH:
            return UNKNOWN
        names = [p.arg for p in list(a.posonlyargs) + list(a.args)]
        if len(args) > len(names) or any(x is _STAR_UNKNOWN for x in args) or _KW_UNKNOWN in kwargs:
            return UNKNOWN
        frame = Frame("function", func.closure, func.closure.module, None, set(names))
        for name, value in zip(names, args):
            frame.vars[name] = value
        for name in names[len(args):]:
            if name in kwargs:
                frame.vars[name] = kwargs[name][0]
            elif name in func.defaults:
                frame.vars[name] = func.defaults[name]
            else:
                return UNKNOWN
        self.tick()
        self.depth += 1
        try:
            return self.expr(func.node.body, frame)
        finally:
            self.depth -= 1

    def bind_params(self, fn: Function, frame: Frame, defaults, args, kwargs, unknown_args: bool) -> None:
        a = fn.node.args
        positional = [p.arg for p in list(a.posonlyargs) + list(a.args)]
        names = positional + [p.arg for p in a.kwonlyargs]
        if unknown_args:
            for name in names:
                frame.vars[name] = UNKNOWN
            if positional and fn.cls is not None and fn.node.decorator_list:
                pass
            for p in (a.vararg, a.kwarg):
                if p is not None:
                    frame.vars[p.arg] = UNKNOWN
            return
        star_unknown = any(x is _STAR_UNKNOWN for x in args)
        kw_unknown = _KW_UNKNOWN in kwargs
        extra: list = []
        for i, value in enumerate(args):
            if value is _STAR_UNKNOWN:
                break
            if i < len(positional):
                frame.vars[positional[i]] = value
            else:
                extra.append(value)
        for name in names:
            if name in kwargs:
                frame.vars[name] = kwargs[name][0]
            elif name not in frame.vars:
                if star_unknown or kw_unknown:
                    frame.vars[name] = UNKNOWN
                elif name in defaults:
                    frame.vars[name] = defaults[name]
                else:
                    frame.vars[name] = UNKNOWN
        if a.vararg is not None:
            frame.vars[a.vararg.arg] = UNKNOWN if star_unknown else tuple(extra)
        if a.kwarg is not None:
            rest = {k: v for k, v in kwargs.items() if k not in names and k is not _KW_UNKNOWN}
            d = DictV(self.token, {k: (v[0], v[1], v[1], self.filename) for k, v in rest.items()},
                      not kw_unknown)
            frame.vars[a.kwarg.arg] = d

    def method(self, q: str, obj, args: tuple, kwargs, node):
        kind, name = q.split(".", 1)
        if kind == "dict" and isinstance(obj, DictV):
            if name == "copy" and not args:
                return obj.copy(self.token)
            if name == "get" and args:
                key = args[0]
                if key is UNKNOWN or not _hashable(key):
                    return UNKNOWN
                if key in obj.entries:
                    return obj.entries[key][0]
                return (args[1] if len(args) > 1 else None) if obj.complete else UNKNOWN
            if name == "update":
                for a in args:
                    self.update(obj, a, node)
                if kwargs:
                    self.update(obj, DictV(self.token, {k: (v[0], v[1], v[1], self.filename)
                                                        for k, v in kwargs.items() if k is not _KW_UNKNOWN},
                                           _KW_UNKNOWN not in kwargs), node)
                return None
            if name == "setdefault" and args:
                key = args[0]
                default = args[1] if len(args) > 1 else None
                if key is UNKNOWN or not _hashable(key):
                    obj.complete = False
                    return UNKNOWN
                if key in obj.entries:
                    if obj.entries[key][0] is UNKNOWN and not self.precise(obj):
                        pass
                    return obj.entries[key][0]
                if not obj.complete:
                    self.set_item(obj, key, UNKNOWN, node, None)
                    return UNKNOWN
                vnode = node.args[1] if isinstance(node, ast.Call) and len(node.args) > 1 else None
                knode = node.args[0] if isinstance(node, ast.Call) and node.args else node
                self.set_item(obj, key, default, knode, vnode)
                return default
            if name == "pop" and args:
                key = args[0]
                value = obj.entries[key][0] if _hashable(key) and key in obj.entries else UNKNOWN
                self.del_item(obj, key)
                return value
            if name == "clear":
                if self.precise(obj):
                    obj.entries.clear()
                    obj.complete = True
                else:
                    self.del_item(obj, UNKNOWN)
                return None
            if name in ("keys", "values", "items"):
                if not obj.complete:
                    return UNKNOWN
                if name == "keys":
                    return tuple(obj.entries)
                if name == "values":
                    return tuple(e[0] for e in obj.entries.values())
                return tuple((k, e[0]) for k, e in obj.entries.items())
            if name in ("popitem",):
                self.del_item(obj, UNKNOWN)
            return UNKNOWN
        if kind == "list" and isinstance(obj, list):
            if name == "append" and len(args) == 1 and self.precise(obj) and len(obj) < MAX_LEN:
                obj.append(args[0])
                return None
            if name == "extend" and len(args) == 1 and self.precise(obj):
                seq = self.iterate(args[0])
                if seq is not None and len(obj) + len(seq) <= MAX_LEN:
                    obj.extend(seq)
                    return None
            if name == "copy":
                return _mklist(list(obj), self.token)
            obj.append(UNKNOWN)  # spoil: anything may have happened to it
            return UNKNOWN
        if kind == "str" and isinstance(obj, str):
            if name in ("upper", "lower", "strip") and not args:
                return getattr(obj, name)()
            if name == "startswith" and len(args) == 1 and isinstance(args[0], str):
                return obj.startswith(args[0])
        return UNKNOWN

    # -- library calls -------------------------------------------------------
    def library(self, q: str, args: tuple, kwargs, node, frame: Frame):
        if q in C.JIT_NAMES:
            unknown = _KW_UNKNOWN in kwargs
            kw = {k: v for k, v in kwargs.items() if k is not _KW_UNKNOWN}
            if args:
                return self.jit(args[0], kw, unknown, node, "jit-call")
            return JitDecoV(kw, node, unknown)
        if q in C.AUTOTUNE_NAMES:
            return PassDecoV() if not args else args[0]
        if q in C.COMPILE_NAMES:
            target = args[0] if args else kwargs.get("func", (UNKNOWN,))[0]
            self.record("compile", node, kwargs, target, None, "tilelang.compile call")
            return UNKNOWN
        prim = canonical_prim(q)
        if prim == "prim_func":
            if len(args) == 1 and isinstance(args[0], FuncV):
                return KernelV(args[0].fn, args[0].closure)
            return UNKNOWN
        if q == "functools.partial" and args:
            return PartialV(args[0], tuple(args[1:]), dict(kwargs))
        if q == "dict":
            result = DictV(self.token)
            for a in args:
                if isinstance(a, DictV):
                    self._merge_into(result, a)
                else:
                    seq = self.iterate(a)
                    if seq is None:
                        _spoil(result)
                        continue
                    for pair in seq:
                        if isinstance(pair, tuple) and len(pair) == 2 and _hashable(pair[0]) \
                                and pair[0] is not UNKNOWN:
                            result.entries[pair[0]] = (pair[1], node, None, self.filename)
                        else:
                            _spoil(result)
            for k, (v, vnode) in kwargs.items():
                if k is _KW_UNKNOWN:
                    _spoil(result)
                else:
                    result.entries[k] = (v, vnode, vnode, self.filename)
            return result
        if q == "getattr" and len(args) >= 2 and isinstance(args[1], str):
            value = self.getattr_(args[0], args[1])
            if isinstance(value, BadKey) and len(args) > 2:
                return args[2]
            return value
        if q == "hasattr" and len(args) == 2 and isinstance(args[1], str):
            obj = args[0]
            if isinstance(obj, LibV) and obj.q in C.PASS_CONFIG_KEY_CLASSES:
                return args[1] in C.PASS_CONFIG_ENUM
            if isinstance(obj, ClassV):
                return True if args[1] in obj.attrs else UNKNOWN
            return UNKNOWN
        if q == "dict.fromkeys" and 1 <= len(args) <= 2 and not kwargs:
            seq = self.iterate(args[0])
            if seq is None or not all(_hashable(k) and k is not UNKNOWN for k in seq):
                return UNKNOWN
            value = args[1] if len(args) > 1 else None
            return DictV(self.token, {k: (value, node, None, self.filename) for k in seq})
        if q in ("zip", "enumerate") and args and not kwargs:
            seqs = [self.iterate(a) for a in args]
            if any(x is None for x in seqs) or (q == "enumerate" and len(seqs) != 1):
                return UNKNOWN
            return tuple(enumerate(seqs[0])) if q == "enumerate" else tuple(zip(*seqs))
        if q in ("tuple", "list") and len(args) <= 1:
            if not args:
                return () if q == "tuple" else _mklist([], self.token)
            seq = self.iterate(args[0])
            if seq is None:
                return UNKNOWN
            return tuple(seq) if q == "tuple" else _mklist(seq, self.token)
        if q == "len" and len(args) == 1:
            a = args[0]
            if isinstance(a, (tuple, list, str)):
                return len(a)
            if isinstance(a, DictV) and a.complete:
                return len(a.entries)
            return UNKNOWN
        if q == "range" and 1 <= len(args) <= 3 and all(type(a) is int for a in args):
            r = range(*args)
            return tuple(r) if len(r) <= MAX_UNROLL else UNKNOWN
        if q in ("bool", "int", "str", "float") and len(args) == 1 and isinstance(args[0], _PLAIN):
            try:
                return {"bool": bool, "int": int, "str": str, "float": float}[q](args[0])
            except Exception:
                return UNKNOWN
        if q == "print":
            return None
        return UNKNOWN

    # -- compile sites -------------------------------------------------------
    def jit(self, target, kwargs, unknown_kwargs: bool, node, kind: str):
        target = self.deref(target)
        if isinstance(target, FuncV) and target.fn.is_prim_func:
            target = KernelV(target.fn, target.closure)
        if isinstance(target, (KernelV, KernelsV)):
            self.record(kind, node, dict(kwargs, **({_KW_UNKNOWN: (UNKNOWN, node)} if unknown_kwargs else {})),
                        target, None, "tilelang.jit call", lazy=True)
            return JitV(target)
        if not isinstance(target, (FuncV, JitV, BoundV)):
            if target is not UNKNOWN:
                return UNKNOWN
        factory = target.factory if isinstance(target, JitV) else target
        fn = factory.fn if isinstance(factory, FuncV) else None
        label = "@jit decorator" if fn is not None and _decorates(node, fn) else "tilelang.jit call"
        if label == "@jit decorator":
            kind = "jit"
        all_kwargs = dict(kwargs)
        if unknown_kwargs:
            all_kwargs[_KW_UNKNOWN] = (UNKNOWN, node)
        event = self.record(kind, node, all_kwargs, None, fn, label, lazy=True, factory=factory)
        return JitV(factory, event)

    def record(self, kind: str, node, kwargs, target, function, label: str, lazy: bool = False,
               factory=None):
        if self.exhausted or self.quiet:
            return None
        entry = kwargs.get("pass_configs")
        if entry is None:
            config = UNKNOWN if _KW_UNKNOWN in kwargs else None
            origin = node
        else:
            value, origin = entry
            value = self.deref(value)
            if value is None:
                config = DictV(0)
            elif isinstance(value, DictV):
                config = value if lazy else self.to_config(value)
            else:
                config = UNKNOWN
        if factory is not None:  # kernels found after the module ran
            kernels = (factory,)
        else:
            found = _kernels_of(self.deref(target))
            kernels = list(found) if found is not None else UNKNOWN
        event = Event(kind, node, config, kernels, function, label, origin)
        self.events.append(event)
        return event

    def kernels_from_factory(self, factory):
        """The prim_funcs a jit factory returns (its arguments unknown)."""
        if isinstance(factory, (KernelV, KernelsV)):
            return list(_kernels_of(factory))
        if not isinstance(factory, (FuncV, BoundV)):
            return UNKNOWN
        try:
            if isinstance(factory, BoundV):
                result = self.call_value(factory, (), {}, None, self.module_frame)
            else:
                self._next_token += 1
                saved, self.token = self.token, self._next_token
                try:
                    result = factory.ev.call_function(factory, (), {}, None, unknown_args=True)
                finally:
                    self.token = saved
        except _Abrupt:
            return UNKNOWN
        found = _kernels_of(result)
        return list(found) if found is not None else UNKNOWN

    def to_config(self, d: DictV) -> PassConfig:
        entries: Dict[str, Entry] = {}
        complete = d.complete
        for key, (value, knode, vnode, filename) in d.entries.items():
            if isinstance(key, BadKey):
                name = "PassConfigKey." + key.name
            elif isinstance(key, str):
                name = key
            else:
                complete = False
                continue
            raw_known = plain(value) or isinstance(value, DictV)
            raw = _raw(value) if raw_known else None
            if knode is None:
                knode = vnode
            if knode is None:
                continue
            entries[name] = Entry(name, _as_bool(raw) if raw_known else None, knode, filename, vnode,
                                  raw, raw_known)
        return PassConfig(entries, complete, filename=self.filename)

    # -- questions from the model -------------------------------------------
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
        self.steps = MAX_STEPS - 300
        self.quiet = True  # compile sites reached from here are not recorded again
        try:
            return self.deref(self.expr(expr, frame))
        except Exception:  # _Budget, _Abrupt, RecursionError, anything unforeseen
            return UNKNOWN
        finally:
            self.token, self.steps, self.quiet = saved


class Module:
    """A module of the user's project, as a value."""

    __slots__ = ("ev",)

    def __init__(self, ev: Evaluator):
        self.ev = ev

    def get(self, name: str):
        frame = self.ev.module_frame
        if frame is None:
            return UNKNOWN
        return frame.vars.get(name, UNKNOWN)


_KW_UNKNOWN = "**"  # key of kwargs for a ``**spread`` that could not be read
_STAR_UNKNOWN = object()


def _mklist(items, token):
    return _ListV(items, token)


class _ListV(list):
    __slots__ = ("token",)

    def __init__(self, items=(), token: int = 0):
        super().__init__(items)
        self.token = token


def _spoil(d: DictV) -> None:
    d.complete = False
    for k, e in list(d.entries.items()):
        d.entries[k] = (UNKNOWN,) + tuple(e[1:])


def _hashable(value) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _comparable_ref(value) -> bool:
    return isinstance(value, (BadKey, LibV))


def _raw(value):
    if isinstance(value, DictV):
        return {}
    if isinstance(value, list):
        return [_raw(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_raw(v) for v in value)
    return value


def _as_bool(value) -> Optional[bool]:
    if isinstance(value, bool):
        return value
    if type(value) is int and value in (0, 1):
        return bool(value)
    return None


def _join_vars(a: Dict[str, object], b: Dict[str, object]) -> Dict[str, object]:
    out = {}
    for name in list(a) + [n for n in b if n not in a]:
        if name in a and name in b:
            out[name] = join(a[name], b[name])
        else:
            out[name] = a[name] if name in a else b[name]
    return out


def _decorates(node, fn: Function) -> bool:
    return any(dec is node for dec in fn.node.decorator_list)  # type: ignore[attr-defined]


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    exc = handler.type
    names = exc.elts if isinstance(exc, ast.Tuple) else [exc]
    return any(isinstance(n, ast.Name) and n.id in ("ImportError", "ModuleNotFoundError") for n in names)


def kernel_values(value) -> Optional[Tuple[KernelV, ...]]:
    return _kernels_of(value)


def export(value):
    """A value as the rest of the model reads constants: a plain Python
    constant, tuple or list, else ``UNKNOWN``."""
    if not plain(value):
        return UNKNOWN
    if isinstance(value, list):
        return [export(v) for v in value]
    if isinstance(value, tuple):
        return tuple(export(v) for v in value)
    return value
