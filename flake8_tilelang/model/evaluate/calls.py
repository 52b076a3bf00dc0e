"""Calls of the user's functions, lambdas, classes and methods of builtin
containers."""
from __future__ import annotations

import ast
import itertools
from types import GeneratorType
from typing import Dict, Optional

from ... import constants as C
from ..build import canonical_prim
from ..nodes import Function
from .budget import MAX_DEPTH, MAX_LEN, MAX_SIZE, MAX_UNROLL, MAX_WHILE, Budget
from .frames import Abrupt, Frame, Undecided
from .library import EFFECT_FREE_BUILTINS, FOREIGN_ROOTS, OPERATOR_BINOPS, Event, alternatives, inert_function
from .values import MUTATORS
from .values import (
    MISSING, BoundV, ClassV, DictV, ExecutorV, ExitStackV, FuncV, GenCtxCallV, GenCtxV, ImportV, InstanceV, IterV, JitDecoV, JitV, KW_UNKNOWN,
    DICT_READS, PENDING, DeferredCallV, DictViewV, EnumMemberV, ListV, NamespaceV,
    LambdaV, LazyCallV, LibV, ParamsV, PartialV, PassContextV, PassDecoV, PropertyV, STAR_UNKNOWN, UNKNOWN,
    JOINED, PLAIN, CachedV, EnumMemberV as _Member, SuperV, hashable, havoc_deep,
    join, havoc, kernels_of, mklist, plain, record_items, seq_known, taint_links, truth, user_function,
)

def placed(kwargs: Dict[str, tuple], node) -> Dict[str, tuple]:
    """Keywords made in another module, applied by a call at ``node`` in this
    one: their values stay, their nodes (where a compile site is placed) are
    the call's."""
    return {k: (v[0], node) for k, v in kwargs.items()}




# methods of containers that only read them
# (not list.index and the like: :meth:`method` spoils a list for a method it does not model)
READ_METHODS = frozenset({"dict." + name for name in DICT_READS} | {"list.copy"})


# Library calls :meth:`Library.library` answers without changing a value it
# was given: the builtins but setattr/delattr,
# every name of a foreign library (``torch.zeros``: UNKNOWN, its arguments
# untouched), and the TileLang calls whose results are new and whose compile
# sites (jit, compile, lower, prim_func's kernel frames) are outputs, read
# once the module has run. Any other library name counts as a change.
OUTPUT_ONLY = (C.JIT_NAMES | C.AUTOTUNE_NAMES | C.COMPILE_NAMES | C.LOWER_NAMES | C.PASS_CONTEXT_NAMES
               | C.PASS_CONFIG_KEY_CLASSES | EFFECT_FREE_BUILTINS
               | frozenset({"dict.fromkeys", "functools.partial", "functools.wraps", "contextlib.contextmanager"}))


def _immutable(value, depth: int) -> bool:
    """A value no callee can change in place (constants, tuples of them,
    library names, enum members, unknown)."""
    t = type(value)
    if value is None or value is UNKNOWN or t in (int, float, str, bool, complex, bytes) or t is LibV \
            or t is EnumMemberV:
        return True
    if t is tuple and depth < 3:
        return all(_immutable(v, depth + 1) for v in value)
    return False


# Library calls that may stop consuming a generator before its end.
_STOPS_EARLY = frozenset({"any", "all", "next", "zip", "itertools.takewhile", "itertools.islice",
                          "itertools.dropwhile"})

# Library calls that never change a dict, list or object they are given: the
# builtins the evaluator models (setattr/delattr included: modelled exactly),
# TileLang and TVM (the compile sites read their configs), and libraries whose
# functions only read Python containers (tensors are made from a list, a dict
# is dumped). Any other library call may change what it is given
# (`operator.setitem`, `dict.update(cfg, ...)`, `random.shuffle`, `heapq.heappush`).
_KEEPS = EFFECT_FREE_BUILTINS | frozenset({
    "setattr", "delattr", "contextlib.contextmanager", "contextlib.suppress", "functools.partial",
    "functools.wraps", "functools.lru_cache", "functools.cache", "copy.copy", "copy.deepcopy", "dict.fromkeys",
    "dataclasses.replace", "dataclasses.asdict", "dataclasses.fields", "dataclasses.astuple", "dataclasses.dataclass",
    "collections.OrderedDict", "collections.namedtuple", "collections.ChainMap", "enum.Enum",
}) | frozenset(OPERATOR_BINOPS)
_KEEPS_ROOTS = frozenset({
    "tilelang", "tvm", "torch", "torch_npu", "numpy", "np", "math", "json", "pprint", "logging", "itertools",
    "typing", "time", "pytest", "argparse", "warnings", "textwrap", "string", "re", "statistics", "fractions",
    "decimal", "numbers", "hashlib", "struct", "pathlib", "tempfile", "triton", "einops", "pandas", "scipy",
    "threading", "multiprocessing", "concurrent", "subprocess", "sys", "os", "shutil", "datetime", "collections",
    "traceback", "platform", "inspect", "csv", "matplotlib",
})
_CONTAINERS = (DictV, ListV, InstanceV)


# Library calls whose iterator asks for the items of the iterators they are given only as it
# is consumed (see Calls.lazy_wrapper)
_LAZY_WRAPPERS = frozenset({"enumerate", "zip", "itertools.chain", "iter"})


# Library calls whose result reads the iterators they are given only as it is consumed: a
# generator given to one not modelled so may be consumed later, in part or not at all
_LAZY_LIBRARY = _LAZY_WRAPPERS | frozenset({
    "map", "filter", "reversed", "itertools.islice", "itertools.takewhile", "itertools.dropwhile",
    "itertools.starmap", "itertools.filterfalse", "itertools.zip_longest", "itertools.cycle",
    "itertools.accumulate", "itertools.compress", "itertools.groupby", "itertools.pairwise", "itertools.tee",
    "itertools.batched"})


def _maps_lazily(q: str, args: tuple, kwargs) -> bool:
    """``map(build, CONFIGS)``, ``filter(wanted, CONFIGS)`` with a function of
    the user's: read item by item as consumed (Calls.map_rows)."""
    return q in ("map", "filter") and len(args) >= 2 and not kwargs and _callable_of_user(args[0]) \
        and (q == "map" or len(args) == 2)


# Library calls that call a function they are given (with values the evaluator does not follow).
_CALLS_BACK = frozenset({"map", "filter", "sorted", "min", "max", "functools.reduce", "itertools.starmap",
                         "itertools.filterfalse", "itertools.takewhile", "itertools.dropwhile",
                         "itertools.accumulate", "itertools.groupby", "list.sort"})


# Library calls that run a generator or coroutine handed to them (iterate it, await it,
# schedule it); any other (`print(job)`) leaves it pending.
_CONSUMERS = frozenset({"list", "tuple", "set", "frozenset", "sorted", "next", "sum", "any", "all", "min", "max",
                        "dict", "enumerate", "zip", "iter", "map", "filter", "reversed", "functools.reduce"})


# Methods of a str, list, dict that consume an iterator they are given.
_CONSUMING_METHODS = frozenset({"str.join", "list.extend", "dict.update", "set.update", "list.__iadd__",
                                "executor.map", "executor.starmap", "executor.imap", "executor.map_async"})

MAX_TASKS = 16  # tasks of one pool call that are followed

# what `operator.itemgetter(...)` / `attrgetter(...)` return, called on an item: reads only
GETTER_CALLS = frozenset({"operator.itemgetter.__call__", "operator.attrgetter.__call__"})


# Library calls that look at an iterator without taking items from it.
_LOOKS_ONLY = frozenset({"print", "bool", "len", "id", "type", "isinstance", "callable", "repr", "str", "hash"})


def consumes(q: str) -> bool:
    return q in _CONSUMERS or q.startswith(("asyncio.", "itertools."))


def keeps_arguments(q: str) -> bool:
    """Whether the library call ``q`` leaves the containers it is given as they were."""
    found = _KEPT.get(q)
    if found is None:
        if len(_KEPT) > 4096:  # bounded: names come from the files read
            _KEPT.clear()
        found = _KEPT[q] = q in _KEEPS or q.split(".", 1)[0] in _KEEPS_ROOTS or q.startswith("os.path.")
    return found


_KEPT: Dict[str, bool] = {}


# Library calls whose result is never one of their arguments or anything those
# hold: new numbers, strings, tensors, kernels (`tilelang.compile(main,
# pass_configs=CFG)` does not hand CFG back).
_FRESH_ROOTS = frozenset({
    "tilelang", "tvm", "torch", "torch_npu", "numpy", "np", "math", "json", "logging", "pprint", "hashlib", "re",
    "time", "datetime", "textwrap", "string", "struct", "platform", "subprocess", "pathlib", "tempfile",
    "warnings", "argparse", "inspect", "traceback", "shutil", "triton", "einops", "pandas", "scipy",
    "statistics", "fractions", "decimal", "numbers", "csv", "matplotlib", "pytest", "random",
})
_FRESH_CALLS = frozenset({
    "print", "len", "str", "repr", "format", "hash", "id", "isinstance", "issubclass", "callable", "bool", "int",
    "float", "abs", "round", "divmod", "pow", "any", "all", "input", "open", "hasattr", "range", "setattr",
    "delattr", "random.shuffle", "copy.deepcopy",
})
# methods of a dict or list whose result is never one of its items
_FRESH_METHODS = frozenset({"index", "count", "keys", "__len__", "__contains__", "__repr__", "__str__", "__eq__",
                            "__ne__", "__hash__", "__sizeof__", "__format__", "clear", "reverse", "sort",
                            "append", "extend", "insert", "remove", "update", "__setitem__", "__delitem__"})


# Library calls that never keep a function they are given for a later call:
# decorators the evaluator models, the test runner's markers (it calls the
# tests; the sweep runs what nothing calls), builtins that only look at it.
_NO_CALLABLE_ROOTS = frozenset({"tilelang", "tvm", "pytest", "functools", "typing", "dataclasses", "contextlib",
                                "inspect", "logging", "torch", "numpy", "np", "unittest", "abc", "enum"})
_NO_CALLABLE_CALLS = frozenset({"print", "isinstance", "callable", "id", "hash", "repr", "str", "getattr", "setattr",
                                "hasattr", "staticmethod", "classmethod", "property", "type", "len", "iter", "next",
                                "list", "tuple", "dict", "set", "frozenset", "sorted", "min", "max", "map", "filter",
                                "zip", "enumerate", "any", "all", "sum", "vars", "super"})


# library calls that run ``target=`` with ``args=`` / ``kwargs=`` (later, once)
_RUNS_TARGET = frozenset({"threading.Thread", "multiprocessing.Process", "multiprocessing.context.Process"})


def _callable_of_user(value) -> bool:
    """A function of the user's the evaluator can call (a partial of one too)."""
    return _callable_of_user(value.func) if type(value) is PartialV else user_function(value)


def _keeps_no_callable(q: str) -> bool:
    return q in _NO_CALLABLE_CALLS or q.split(".", 1)[0] in _NO_CALLABLE_ROOTS or q in _CALLS_BACK


def fresh_result(q: str) -> bool:
    if q in _FRESH_CALLS:
        return True
    if q in ("random.choice", "random.choices", "random.sample"):
        return False  # one of the items given
    return q.split(".", 1)[0] in _FRESH_ROOTS or q.startswith("os.path.")


def pure_library(q: str) -> bool:
    if q in OUTPUT_ONLY or q.split(".", 1)[0] in FOREIGN_ROOTS:
        return True
    # T.* calls: folded integers (``T.ceildiv``), kernels (``T.prim_func``), else unknown
    return canonical_prim(q) is not None


class Calls:
    """Mixin of ``Evaluator``: calling values."""

    # -- calls ---------------------------------------------------------------
    def call(self, node: ast.Call, frame: Frame):
        self.steps += 1  # self.tick(), inlined: once per call evaluated
        if self.steps > self.max_steps:
            raise Budget()
        func = self.expr(node.func, frame)
        args: list = []
        for a in node.args:
            if type(a) is ast.GeneratorExp and type(func) is LibV and func.q in _STOPS_EARLY:
                # `any(enable(k) for k in keys)`: the items after the first that decides may
                # never be made, so what making them changes is not certain
                with self.forked():
                    args.append(self.expr(a, frame))
                continue
            if type(a) is ast.Starred:
                seq = self.iterate(self.expr(a.value, frame))
                if seq is None:
                    args.append(STAR_UNKNOWN)
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
                        # a key the dict may lack: the parameter's default or this value
                        kwargs[k] = (UNKNOWN if value.maybe_absent(k) else e[0], e[2] if e[2] is not None else kw.value)
                    if not value.exact():
                        # not known which keys it passes (one it may lack): a `**kwargs`
                        # collecting them, `dict(**d)`, may or may not hold that key
                        kwargs[KW_UNKNOWN] = (UNKNOWN, kw.value)
                else:
                    kwargs[KW_UNKNOWN] = (UNKNOWN, kw.value)
            else:
                kwargs[kw.arg] = (value, kw.value)
        site = node.func if type(node.func) is ast.Call else node
        return self.call_value(func, tuple(args), kwargs, site, frame, call_node=node)

    def call_value(self, func, args: tuple, kwargs: Dict[str, tuple], node, frame: Frame, call_node=None):
        t = type(func)  # the value classes have no subclasses: exact type tests
        if self.handles and (args or kwargs):  # only once a namespace, generator or iterator exists
            iterators = False
            if not (t is FuncV or t is LambdaV or t is ClassV or (t is LibV and func.q in _LOOKS_ONLY)
                    or (t is BoundV and (type(func.func) is FuncV or self.reads_only(func)))) \
                    and any(v is UNKNOWN for v in args + tuple(v[0] for v in kwargs.values())):
                # `next(it)`, `cfg.update(it)`, `run(it)` of an `it` a join made unknown: a call
                # not followed that is given a value not known may consume it
                self.consume_unknown()
            for a in args:
                ta = type(a)
                if ta is NamespaceV and not (t is LibV and keeps_arguments(func.q)):
                    self.havoc_namespace(a.frame)  # `register(globals())`, `exec(src, globals())`
                elif ta is DeferredCallV and t is LibV and consumes(func.q):
                    self.run_deferred(a)  # `asyncio.run(main())`, `list(gen())`, `next(gen)`
                elif ta is IterV:
                    iterators = True
            for v in kwargs.values():
                tv = type(v[0])
                if tv is NamespaceV:
                    self.havoc_namespace(v[0].frame)
                elif tv is DeferredCallV and t is LibV and consumes(func.q):
                    self.run_deferred(v[0])
                elif tv is IterV:
                    iterators = True
            if iterators:
                if t is LibV and func.q == "next" and 1 <= len(args) <= 2 and not kwargs and type(args[0]) is IterV \
                        and not args[0].looping:
                    source = self.take(args[0])
                    if source is not None:
                        # `first = next(candidates)`: one item made, the rest left where it stopped
                        try:
                            return next(source)
                        except StopIteration:
                            if len(args) == 2:
                                return args[1]
                            raise Abrupt("raise") from None
                        except Undecided:
                            return UNKNOWN
                if t is LibV and func.q in _LAZY_WRAPPERS:
                    wrapped = self.lazy_wrapper(func.q, args, kwargs)
                    if wrapped is not None:
                        return wrapped
                if not (t is LibV and _maps_lazily(func.q, args, kwargs)):  # map_rows reads them item by item
                    args, kwargs = self.hand_iterators(func, args, kwargs)
        if func is UNKNOWN:
            # something not known is called: it may change the dicts, lists and objects
            # it is given (`runner.prepare(CFG)`, `stack.callback(CFG.update, ...)`), what
            # they hold, and anything an unknown value it is given may be; what it returns
            # may be any of them; and it may be a function of this module that a value not
            # known stands for (`HANDLERS[mode]()`)
            if call_node is not None:
                self.unknown_compile(call_node)
            if args or kwargs:
                given = args + tuple(v[0] for v in kwargs.values())
                for value in given:
                    tv = type(value)
                    if tv is DictV or tv is ListV or tv is InstanceV or tv is BoundV or tv is ImportV \
                            or tv is LazyCallV or (tv is tuple and _holds_containers(value)):
                        self.spoil_given("", args, kwargs)
                        self.escape(given)
                        break
                for value in given:
                    if user_function(value):
                        # kept, maybe, and called later (`sub.set_defaults(func=run_manual)`,
                        # then `args.func(args)`)
                        self.escape((value,), calls=True)
                if (self.escaped or JOINED) and (KW_UNKNOWN in kwargs
                                                 or any(v is UNKNOWN or v is STAR_UNKNOWN for v in given)):
                    self.touch_unknown()
            joined = [f for f in JOINED if type(f) is FuncV or type(f) is LambdaV
                      or (type(f) is BoundV and type(f.func) is FuncV)]
            for target in list(self.escaped_calls) + joined[:16]:
                runs = self.escaped_runs.get(id(target), 0)
                if runs < 4:  # bounded; and never while it runs (`HANDLERS[mode]()` inside a handler)
                    self.escaped_runs[id(target)] = 8
                    self.maybe_call(target, node, frame)
                    self.escaped_runs[id(target)] = runs + 1
            return UNKNOWN
        # What a call may change beyond the frames it creates (see unknown_loop):
        # a library call that is not pure, a method of a dict or list that is not
        # a read, another module's function or import. A function of this module
        # (a lambda, a constructor, a jitted factory) counts each change it makes
        # where it makes it; the compile sites it records are outputs.
        if t is LibV:
            if not pure_library(func.q):
                self.effects += 1
        elif t is BoundV:
            if type(func.func) is LibV and not self.reads_only(func):
                self.effects += 1
        elif t is ImportV or t is LazyCallV or (t is FuncV and func.ev is not self):
            self.effects += 1
        if t is ImportV:
            lazy = LazyCallV(func, args, kwargs, node)
            if not self.quiet and not self.harmless_call(func.q, args, kwargs):
                # a function of another module runs here and now, with the state of now:
                # it may change what its arguments hold (`set_expert(DEV)`), its own
                # module's dicts that this one imported (`enable_expert()`), or compile
                # the kernels it is given
                return self.deref(lazy)
            # a kernel expression's question, or a call that cannot change anything
            # (a reference implementation given tensors and ints): made when its
            # value is needed, if ever
            return lazy
        if t is LazyCallV:
            func = self.deref(func)
            t = type(func)
        if t is LibV or t is BoundV and type(func.func) is LibV:
            for a in args:
                if type(a) is DictViewV:
                    # a library reads a dict view it is given where it is called (the
                    # dicts it holds are then among what it was given)
                    args = tuple(self.deref(a) if type(a) is DictViewV else a for a in args)
                    break
        if t is LibV:  # the most frequent callee (torch.*, T.*, builtins): tested first
            if func.q == "super":
                return self.super_(args, kwargs, frame)
            if func.q == "contextlib.contextmanager":
                return GenCtxV(args[0]) if len(args) == 1 and not kwargs and isinstance(args[0], FuncV) \
                    else UNKNOWN
            if func.q == "functools.reduce":
                folded = self.reduce(args, kwargs, node, frame)
                if folded is not MISSING:
                    return folded
            if _maps_lazily(func.q, args, kwargs):
                # `map(build, CONFIGS)`, `filter(wanted, CONFIGS)`: calls the function for each
                # item when it is consumed
                self.handles += 1
                return IterV((), self.token, (func.q, node, frame, args, self))
            if func.q in _CALLS_BACK:
                # `sorted(configs, key=relax)`, `list(map(lambda k: CFG.update(...), keys))`: the
                # function may be called, with values not followed; what it changes may change
                for value in args if not kwargs else args + tuple(v[0] for v in kwargs.values()):
                    if user_function(value):
                        self.maybe_call(value, node, frame)
            result = self.library(func.q, args, kwargs, node, frame)
            if type(result) is JitDecoV or type(result) is PartialV:
                result.home = self
            if not args and not kwargs:
                return result
            given = args if not kwargs else args + tuple(v[0] for v in kwargs.values())
            held = callables = unknown = False
            for value in given:
                tv = type(value)
                if tv in PLAIN:
                    continue
                if tv is DictV or tv is ListV or tv is InstanceV or tv is ImportV or tv is LazyCallV \
                        or (tv is tuple and _holds_containers(value)):
                    held = True
                elif tv is BoundV:
                    held = True
                    callables = callables or type(value.func) is FuncV
                    if type(value.func) is LibV and value.func.q.rsplit(".", 1)[-1] in MUTATORS \
                            and func.q not in _LOOKS_ONLY:
                        # `map(CFG.update, PARTS)`, `Thread(target=CFG.update, ...)`: the library
                        # calls the dict's own method, now or later, with what it is given
                        if havoc_deep(value.obj):
                            self.effects += 1
                        self.escape((value.obj,))
                elif tv is FuncV or tv is LambdaV:
                    callables = True
                elif value is UNKNOWN:
                    unknown = True
            if callables:
                if func.q in _RUNS_TARGET and not args and "target" in kwargs and KW_UNKNOWN not in kwargs:
                    # `threading.Thread(target=main, kwargs=case).start()`: main runs with those
                    # arguments (in a branch of its own: whether and when is not told)
                    self.run_target(kwargs, node, frame)
                elif not _keeps_no_callable(func.q):
                    # `sub.set_defaults(func=run_manual)`, `register(handler)`: the library may
                    # keep the function and call it later, from a call of a value not known
                    # (`args.func(args)`)
                    self.escape(tuple(v for v in given if type(v) is FuncV or type(v) is LambdaV
                                      or (type(v) is BoundV and type(v.func) is FuncV)), calls=True)
            if held:
                self.spoil_given(func.q, args, kwargs)
                if result is UNKNOWN and not fresh_result(func.q):
                    # `max(configs, key=len)`, `copy.copy(PRESETS)`, `os.environ.get(k, DEFAULT)`:
                    # what it returns may be (or hold) what it was given
                    self.escape(given)
            if unknown and (self.escaped or JOINED) and not keeps_arguments(func.q):
                self.touch_unknown()  # `random.shuffle(PRESETS[mode])`
            return result
        if t is FuncV:
            if func.ev is not self:
                return self.bridge(func.ev, lambda: func.ev.call_function(func, args, kwargs, node), node)
            return func.ev.call_function(func, args, kwargs, node)
        if t is CachedV:
            return self.call_cached(func, args, kwargs, node, frame)
        if isinstance(func, GenCtxV):
            return GenCtxCallV(func.func, args, kwargs, node)  # runs when a `with` enters it
        if isinstance(func, LambdaV):
            return self.call_lambda(func, args, kwargs)
        if isinstance(func, BoundV):
            if type(func.obj) is ExecutorV:
                return self.executor_call(func.func.q, args, kwargs, node, frame)
            if type(func.obj) is ExitStackV:
                return self.exit_stack_call(func.func.q, func.obj, args, kwargs, node, frame)
            if type(func.obj) is GenCtxCallV:
                # `cm.__enter__()` / `cm.__exit__(None, None, None)` of a contextmanager: as a
                # one-item ExitStack kept for it
                entry = self.entered_by_hand.get(id(func.obj))
                if func.func.q.endswith("__enter__"):
                    if entry is None:
                        entry = self.entered_by_hand[id(func.obj)] = (func.obj, ExitStackV())
                    return self.exit_stack_call("enter_context", entry[1], (func.obj,), kwargs,
                                                ast.Call(func=node, args=[node], keywords=[]), frame)
                if entry is not None:
                    del self.entered_by_hand[id(func.obj)]
                    self.close_stack(entry[1], "normal" if not args or args[0] is None else "raise")
                return False
            if isinstance(func.func, LibV):
                result = self.method(func.func.q, func.obj, args, kwargs, node)
                obj = func.obj
                if result is UNKNOWN and (type(obj) is DictV or type(obj) is ListV) \
                        and func.func.q.split(".", 1)[-1] not in _FRESH_METHODS:
                    # `PRESETS.get(mode)`, `configs.pop(i)`: one of what it holds, maybe
                    contents = tuple(e[0] for e in obj.entries.values()) if type(obj) is DictV else tuple(obj)
                    self.escape(contents + args + tuple(v[0] for v in kwargs.values()))
                return result
            return self.call_value(func.func, (func.obj,) + args, kwargs, node, frame)
        if isinstance(func, PartialV):
            merged = dict(func.kwargs) if func.home in (None, self) else placed(func.kwargs, node)
            merged.update(kwargs)
            return self.call_value(func.func, func.args + args, merged, node, frame)
        if isinstance(func, JitDecoV):
            if len(args) == 1 and not kwargs:
                given = func.kwargs if func.home in (None, self) else placed(func.kwargs, node)
                return self.jit(args[0], given, func.unknown_kwargs, node, "jit-call")
            return UNKNOWN
        if isinstance(func, JitV):
            # calling a jitted factory compiles what it returns for these arguments
            event = func.event
            if event is not None and isinstance(func.factory, (FuncV, BoundV)) and not self.quiet \
                    and len(event.called) < 8:
                # the factory runs for the call that gives its arguments (`jit(f)(1024, bm=256)`,
                # not the `jit(f)` it calls): its site is named by them
                result = self.call_value(func.factory, args, kwargs, call_node if call_node is not None else node, frame)
                found = kernels_of(result)
                if found is not None and alternatives(found):
                    # one prim_func or another: which one this call compiles is not told
                    undecided = Event(event.kind, event.node, UNKNOWN, list(found), event.function,
                                      event.label, event.origin)
                    undecided.target = event.target
                    self.events.append(undecided)
                elif found is not None:
                    if isinstance(event.config, DictV):
                        # the decorator holds the dict: this call compiles with it as it is now
                        self.record_call(event, list(found))
                    else:
                        event.called.extend(found)
            return UNKNOWN
        if isinstance(func, PassDecoV):
            return args[0] if len(args) == 1 and not kwargs else UNKNOWN
        if t is ParamsV:
            if len(args) != 1 or kwargs:
                return UNKNOWN
            if type(args[0]) is FuncV:  # the test runs once per row (stacked: every combination)
                self.param_rows.setdefault(id(args[0].fn), []).append(func)
            return args[0]
        if isinstance(func, ClassV):
            return self.construct(func, args, kwargs, node)
        if t is InstanceV:
            # `builder()`: its class's `__call__` (looked up on the class, as Python does)
            hook = func.cls.lookup("__call__")
            if type(hook) is FuncV or type(hook) is CachedV:
                return self.call_value(self.bound_to(hook, func), args, kwargs, node, frame, call_node)
        return UNKNOWN

    def call_cached(self, cached, args: tuple, kwargs, node, frame: Frame):
        """A call of an ``lru_cache``'d function: the object the first call
        with these arguments returned, or the function's result, kept. An
        entry made in a branch that may not have run may be there or not:
        the call then returns either it or what the function returns now."""
        key = _cache_key(args, kwargs, cached.typed)
        if cached.spoiled or key is None:
            if key is None and any(v is UNKNOWN for v in args + tuple(v[0] for v in kwargs.values())):
                cached.spoiled = True  # which entry it hit, or whether it ran, is not told
            for value, _ in cached.memo.values():
                if havoc(value):  # returned again, maybe, and changed by the caller
                    self.effects += 1
            if key is None and not cached.spoiled:
                return UNKNOWN  # an unhashable argument: TypeError before anything runs
            self.maybe_call(cached.func, node, frame) if type(cached.func) in (FuncV, LambdaV) else None
            return UNKNOWN
        certain = self.token == cached.token
        entry = cached.memo.get(key)
        if entry is not None and entry[1]:
            cached.memo.move_to_end(key)
            return entry[0]
        if entry is not None:
            # made in a branch that may not have run: that object, or a new one
            with self.forked():
                fresh = self.call_value(cached.func, args, kwargs, node, frame)
            result = join(entry[0], fresh)
        else:
            result = self.call_value(cached.func, args, kwargs, node, frame)
        if cached.maxsize != 0:
            cached.memo[key] = (result, certain)
            cached.memo.move_to_end(key)
            if cached.maxsize is not None and len(cached.memo) > cached.maxsize:
                if not certain:
                    cached.spoiled = True  # which entry was dropped depends on the branches taken
                cached.memo.popitem(last=False)
        return result

    def super_(self, args: tuple, kwargs, frame: Frame):
        """``super()`` in a method (the class whose body defined it, and the
        method's first argument as it is now) or ``super(Cls, obj)``. Anything
        else is unknown, and the object it would be bound to may change
        through it (`super().__init__()` of a base not followed)."""
        obj = MISSING
        if not args and not kwargs and frame.kind == "function" and frame.fn is not None:
            node = getattr(frame.fn, "node", None)
            a = getattr(node, "args", None)
            params = (list(a.posonlyargs) + list(a.args)) if a is not None else []
            if params:
                obj = self.deref(frame.vars.get(params[0].arg, MISSING))
            owner = frame.owner
            if type(owner) is ClassV and obj is not MISSING and obj is not UNKNOWN:
                return SuperV(owner, obj)
        elif len(args) == 2 and not kwargs:
            owner, obj = self.deref(args[0]), self.deref(args[1])
            if type(owner) is ClassV and obj is not UNKNOWN:
                return SuperV(owner, obj)
        for value in args if obj is MISSING else args + (obj,):
            if type(self.deref(value)) in _CONTAINERS and havoc(self.deref(value)):
                self.effects += 1
        return UNKNOWN

    # -- other modules' functions and context managers -------------------------
    def reduce(self, args: tuple, kwargs, node, frame: Frame):
        """``functools.reduce(f, items[, initial])`` as CPython runs it, when
        the items are known and ``f`` is a function of the module or a pure
        ``operator`` function; MISSING when it cannot be followed."""
        if kwargs or not 2 <= len(args) <= 3:
            return MISSING
        f = self.deref(args[0])
        if not (user_function(f) or (type(f) is LibV and f.q in OPERATOR_BINOPS)):
            return MISSING
        items = self.iterate(self.deref(args[1]))
        if items is None:
            return MISSING
        items = list(items)
        if len(args) == 3:
            acc = args[2]
        elif items:
            acc = items.pop(0)
        else:
            raise Abrupt("raise")  # TypeError: reduce() of empty iterable with no initial value
        for item in items:
            acc = self.deref(self.call_value(f, (acc, item), {}, node, frame))
        return acc

    def maybe_call(self, func, node, frame: Frame) -> None:
        """``func`` may be called (by ``map``, ``sorted``, ...) with arguments
        not followed: run it once with unknown arguments, in a branch of its
        own, so what it may change is unknown afterwards (a store into an
        existing dict is not certain; a global it rebinds joins both values)."""
        try:
            with self.forked(self.module_frame):
                if type(func) is LambdaV:
                    a = func.node.args
                    names = list(a.posonlyargs) + list(a.args)
                    self.call_lambda(func, tuple(UNKNOWN for _ in names), {})
                else:
                    target = func.func if type(func) is BoundV else func
                    run = lambda: target.ev.call_function(target, (), {}, node, unknown_args=True)  # noqa: E731
                    run() if target.ev is self else self.bridge(target.ev, run, node)
        except Abrupt:
            pass

    def run_target(self, kwargs, node, frame: Frame) -> None:
        target = self.deref(kwargs["target"][0])
        pos = self.deref(kwargs["args"][0]) if "args" in kwargs else ()
        named = self.deref(kwargs["kwargs"][0]) if "kwargs" in kwargs else DictV(0)
        if not user_function(target):
            return
        if not seq_known(pos) or type(named) is not DictV or not named.exact() \
                or not all(type(k) is str for k in named.entries):
            self.escape((target,), calls=True)  # arguments not told: as any kept function
            return
        try:
            with self.forked(self.module_frame):
                self.call_value(target, tuple(pos), {k: (e[0], node) for k, e in named.entries.items()}, node,
                                frame)
        except Abrupt:
            pass

    def spoil_given(self, q: str, args: tuple, kwargs) -> None:
        """`operator.setitem(cfg, k, v)`, `dict.update(cfg, ...)`, `random.shuffle(configs)`:
        the dicts, lists and objects handed to a library call that is not
        modelled may change (also through a bound method: `reduce(CFG.update, ...)`)."""
        if q and keeps_arguments(q):  # "": something not known is called
            return
        for value in args + tuple(v[0] for v in kwargs.values()):
            if type(value) is ImportV or type(value) is LazyCallV:
                value = self.deref(value)  # `prepare(configs.CFG)`: the dict it names
            if type(value) is BoundV and type(value.func) is LibV:
                value = value.obj
            if (type(value) in _CONTAINERS or type(value) is tuple) and havoc_deep(value):
                self.effects += 1  # and what it holds: `prepare(PRESETS)` may change PRESETS["dev"]

    def harmless_call(self, q: str, args: tuple, kwargs) -> bool:
        """Whether calling ``q``, a name imported from another module, can
        change nothing this module reads: it is given only immutable values,
        and it is not a function of the user's project, or one that is inert
        (``inert_function``, judged on that module's builder, not run)."""
        values = list(args) + [v[0] for v in kwargs.values()]
        if KW_UNKNOWN in kwargs or not all(_immutable(v, 0) for v in values):
            return False
        try:
            found = self.resolver.loader.split(q, self.filename)
        except Exception:  # noqa: B902 - an unreadable project: as if not followed
            return False
        if found is None:
            return True  # not the user's project: its call is unknown and changes nothing here
        path, rest = found
        if len(rest) != 1:
            return False
        other = self.resolver.loader.resolver_for(path)
        if other is None:
            return True  # cannot be read: its value is unknown, whenever it is asked
        module = other.b.module
        name = rest[0]
        fns = module.functions.get(name)
        if not fns or len(fns) != 1 or name in module.assigns or name in module.classes \
                or name in module.imports:
            return False
        return inert_function(other.b, fns[0])

    def bridge(self, other, run, node):
        """Run ``run()`` (code of another module, on that module's evaluator)
        as part of this evaluation: under this branch token, quietness and
        PassContext stack. The compile sites it reaches are this module's,
        placed at ``node`` (the call in this file that led there)."""
        saved = (other.token, other.quiet, other.contexts, other.depth, other.arguments_file)
        mark = len(other.events)
        other.token, other.quiet, other.contexts = self.token, self.quiet, self.contexts
        other.arguments_file = self.filename  # `**kwargs` of the first call are written here
        other.depth = max(other.depth, self.depth + 1)
        other.handles += self.handles  # values this module made may reach that one's calls
        try:
            return run()
        finally:
            self.handles += other.handles
            other.token, other.quiet, other.contexts, other.depth, other.arguments_file = saved
            reached = other.events[mark:]
            del other.events[mark:]
            if not self.quiet and node is not None:
                for event in reached:
                    self.adopt(event, other, node)

    def adopt(self, event, other, node) -> None:
        """A compile site reached in another module's code, seen from the call
        at ``node`` in this file."""
        where = getattr(event.node, "lineno", None)
        if where is not None and not event.desc.startswith("reached"):
            from ..config import LOWER_OUTSIDE_PASS_CONTEXT, shown_path

            if event.desc != LOWER_OUTSIDE_PASS_CONTEXT:
                what = event.desc or "pass_configs of the " + event.label
                event.desc = "%s at %s:%d, reached through the call at line %d" % (
                    what, shown_path(other.filename, self.filename), where, getattr(node, "lineno", 0))
        event.node = node
        event.origin = node
        self.events.append(event)

    def enter_generator(self, call: GenCtxCallV):
        """``with helper(...):`` of a ``@contextlib.contextmanager`` generator:
        it runs to its ``yield``; the PassContexts open there are the ones the
        ``with`` body runs under. Only a ``yield`` that ends every block around
        it, inside ``with`` blocks and ``if``s decided here, is followed (the
        generator then does nothing when the ``with`` exits), or a ``yield``
        of the generator's own body, or the last statement of a ``try`` of
        it, with code after it (``CFG[K] = v; yield; CFG[K] = old``, or in a
        ``finally``): that code runs when the ``with`` exits. Returns
        (contexts, the yielded value, the exit), else None; the exit is None
        or (statements that run unless the body raised, statements that run
        however it ended, the generator's frame)."""
        func = call.func
        ev = func.ev
        if ev is not self:
            return self.bridge(ev, lambda: ev.enter_generator(call), call.node)
        fn = func.fn
        if fn.is_prim_func or fn.is_macro or self.depth >= MAX_DEPTH or self.exhausted:
            return None
        self.tick()
        frame = Frame("function", func.closure, func.closure.module if func.closure else self.module_frame,
                      fn, self.locals_of(fn))
        if func.home is not None:
            frame.owner = func.home.owner
        frame.globals = set(fn.globals)
        frame.nonlocals = fn.nonlocals
        frame.call = call.node
        self.bind_params(fn, frame, func.defaults, call.args, call.kwargs, False)
        base = len(self.contexts)
        self.depth += 1
        loops, self.loops = self.loops, []
        state = {"yielded": UNKNOWN, "exit": None}
        try:
            found = self.to_yield(fn.node.body, frame, state, top=True)
        except Abrupt:
            found = None
        finally:
            self.depth -= 1
            self.loops = loops
            entered = self.contexts[base:]
            del self.contexts[base:]
        if not found:
            return None
        exit_code = state["exit"]
        return entered, state["yielded"], (exit_code + (frame,) if exit_code is not None else None)

    def to_yield(self, stmts, frame: Frame, state: dict, top: bool = False) -> bool:
        for i, stmt in enumerate(stmts):
            if not _yields((stmt,)):
                self.stmt(stmt, frame)
                continue
            rest = stmts[i + 1:]
            if top and _bare_yield(stmt) and not _yields(rest):
                # `CFG[K] = v; yield CFG; CFG[K] = old`: the rest runs when the `with` exits
                state["yielded"] = self.expr(stmt.value.value, frame) if stmt.value.value is not None else None
                state["exit"] = (rest, [])
                return True
            if top and isinstance(stmt, ast.Try) and not stmt.handlers and not stmt.orelse and stmt.body \
                    and _bare_yield(stmt.body[-1]) and not _yields(stmt.body[:-1]) \
                    and not _yields(stmt.finalbody) and not _yields(rest):
                # `try: yield cfg finally: restore(cfg)`: the finally runs however the body ends
                for inner in stmt.body[:-1]:
                    self.stmt(inner, frame)
                last = stmt.body[-1]
                state["yielded"] = self.expr(last.value.value, frame) if last.value.value is not None else None
                state["exit"] = (rest, stmt.finalbody)
                return True
            if i != len(stmts) - 1:
                return self.not_followed(stmts[i:], frame)  # code after the yield runs at exit
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Yield):
                if stmt.value.value is not None:
                    state["yielded"] = self.expr(stmt.value.value, frame)
                return True
            if isinstance(stmt, ast.With):
                for item in stmt.items:
                    value = self.expr(item.context_expr, frame)
                    ctx = self.context_of(item.context_expr, value, frame)
                    if ctx is not None:
                        self.contexts.append(ctx)
                    if item.optional_vars is not None:
                        self.assign(item.optional_vars, UNKNOWN, frame)
                return self.to_yield(stmt.body, frame, state)
            if isinstance(stmt, ast.If):
                test = truth(self.deref(self.expr(stmt.test, frame)))
                if test is True:
                    return self.to_yield(stmt.body, frame, state)
                if test is False:
                    return self.to_yield(stmt.orelse, frame, state)
            return self.not_followed(stmts[i:], frame)
        return False

    def not_followed(self, stmts, frame: Frame) -> bool:
        """A generator's code around its ``yield`` that is not followed: it
        may run (before the ``with`` body or at its exit), so its effects are
        made uncertain; the context it enters is unknown."""
        self.uncertain([stmts, []], frame)
        return False

    def enter_instance(self, inst: InstanceV, node):
        """``with Helper():`` of a class of the user's: its ``__enter__`` runs;
        the PassContexts it enters (``ctx.__enter__()``) are the ones the
        ``with`` body runs under (UNKNOWN when it enters none that can be
        seen: it may enter anything). Returns (contexts, __exit__), or None
        when its methods cannot be followed."""
        enter = inst.cls.lookup("__enter__")
        leave = inst.cls.lookup("__exit__")
        if not isinstance(enter, FuncV) or not isinstance(leave, FuncV) or enter.kind or leave.kind:
            return None
        base = len(self.contexts)
        try:
            self.call_value(enter, (inst,), {}, node, self.module_frame)
        except Abrupt:
            del self.contexts[base:]
            return None
        entered = self.contexts[base:]
        del self.contexts[base:]
        if not entered:
            # it entered none that can be seen: it may have entered any (unknown);
            # its __exit__ still runs after the block
            entered = [UNKNOWN]
        return entered, leave

    def construct(self, cls: ClassV, args: tuple, kwargs: Dict[str, tuple], node):
        """``cls(...)``: its ``__init__`` runs; a dataclass / NamedTuple / attrs
        class binds its fields; what cannot be told makes the instance opaque."""
        if cls.kind == "enum":
            if len(args) == 1 and not kwargs:  # Mode("expert"): the member with that value
                for member in cls.members.values():
                    if plain(member.value) and plain(args[0]) and type(member.value) is type(args[0]) \
                            and member.value == args[0]:
                        return member
            return UNKNOWN
        inst = InstanceV(cls, self.token)
        init = cls.lookup("__init__")
        if isinstance(init, FuncV):
            self.call_value(init, (inst,) + args, kwargs, node, self.module_frame)
            return inst
        if cls.kind in ("dataclass", "namedtuple") and not inst.opaque:
            self.bind_fields(cls, inst, args, kwargs)
            post = cls.lookup("__post_init__")
            if isinstance(post, FuncV):
                self.call_value(post, (inst,), {}, node, self.module_frame)
            elif post is not MISSING:
                inst.opaque = True
            return inst
        if init is not MISSING or args or kwargs:
            inst.opaque = True  # a constructor the evaluator does not run
            self.escape(args + tuple(v[0] for v in kwargs.values()))  # it may keep them: `Holder(CFG).cfg`
        return inst

    def bind_fields(self, cls: ClassV, inst, args: tuple, kwargs: Dict[str, tuple]) -> None:
        fields = cls.fields
        if any(a is STAR_UNKNOWN for a in args) or KW_UNKNOWN in kwargs or len(args) > len(fields) \
                or any(k not in fields for k in kwargs):
            for name in fields:
                inst.attrs[name] = UNKNOWN  # a spread, or a TypeError
            return
        for name, value in zip(fields, args):
            inst.attrs[name] = value
        for name in fields[len(args):]:
            if name in kwargs:
                inst.attrs[name] = kwargs[name][0]
            else:
                inst.attrs[name] = self.field_default(cls, name)

    def field_default(self, cls: ClassV, name: str):
        for c in cls.mro() or (cls,):
            if name in c.factories:
                how, value = c.factories[name]
                if how == "default":
                    return value
                return self.call_value(value, (), {}, None, self.module_frame)  # a new object per instance
            if name in c.attrs:
                return c.attrs[name]
            if c.opaque:
                break
        return UNKNOWN

    def call_function(self, func: FuncV, args: tuple, kwargs: Dict[str, tuple], node,
                      unknown_args: bool = False, now: bool = False):
        fn = func.fn
        if fn.is_prim_func or fn.is_macro or self.depth >= MAX_DEPTH or self.exhausted:
            return UNKNOWN
        if (fn.generator or type(fn.node) is ast.AsyncFunctionDef) and not now and not unknown_args:
            # a generator function (a `yield` of its own) or an `async def`: calling it runs
            # nothing yet but binds its arguments; its body runs where the result is consumed:
            # a generator's one item at a time (generator_items), a coroutine's at once
            # (run_deferred)
            self.executed.add(id(fn))  # called: not swept as a function nothing calls
            self.handles += 1
            if type(fn.node) is ast.FunctionDef:
                self.tick()
                frame = self.function_frame(func, args, kwargs, node, False)
                return IterV((), self.token, ("call", node, frame, func, func.ev))
            return DeferredCallV(func, args, kwargs, node)
        self.tick()
        self.executed.add(id(fn))
        frame = self.function_frame(func, args, kwargs, node, unknown_args)
        self.depth += 1
        loops, self.loops = self.loops, []  # a break in the callee is not the caller's
        raised = False
        try:
            self.block(fn.node.body, frame)
            frame.returns.append(None)
        except Abrupt as e:
            raised = e.kind == "raise"
        finally:
            self.depth -= 1
            self.loops = loops
        if not frame.returns:
            if raised and not unknown_args:
                raise Abrupt("raise")  # the call raises for certain: the caller stops here
            return UNKNOWN
        result = frame.returns[0]
        for r in frame.returns[1:]:
            result = join(result, r)
        return result

    def function_frame(self, func: FuncV, args: tuple, kwargs: Dict[str, tuple], node, unknown_args: bool) -> Frame:
        """The frame a call of ``func`` runs in, its parameters bound."""
        fn = func.fn
        frame = Frame("function", func.closure, func.closure.module if func.closure else self.module_frame,
                      fn, self.locals_of(fn))
        if func.home is not None:
            frame.owner = func.home.owner  # the method's class, for `super()`
        frame.globals = set(fn.globals)
        frame.nonlocals = fn.nonlocals
        frame.call = None if unknown_args else node
        self.bind_params(fn, frame, func.defaults, args, kwargs, unknown_args)
        return frame

    def generator_items(self, func: FuncV, frame: Frame):
        """A generator function's items, made one at a time (a Python
        generator): the code up to the next ``yield`` runs when the next item
        is asked for, as CPython runs it, so what the consumer changes between
        items the generator sees, and the other way round. Its ``yield``s are
        followed where they stand as statements, in ``for`` and ``while``
        loops and ``if`` branches whose course is known; any other place (a
        ``try``, a ``with``, ``x = yield``, a loop or branch not told) raises
        Undecided: what the rest of the body may do is then read as an
        unknown loop over the whole body from where it stands (what its names
        hold, and what it changes, is uncertain), and the items left are
        unknown."""
        count = [0]
        sources: list = []
        try:
            yield from self.yields_of(func.fn.node.body, frame, count, None, sources)
        except Undecided:
            self.leave(sources)
            rest = self.generator_rests.get(id(func.fn.node))
            if rest is None:
                rest = ast.While(test=ast.Constant(True), body=func.fn.node.body, orelse=[])
                self.generator_rests[id(func.fn.node)] = rest
            self.depth += 1
            loops, self.loops = self.loops, []
            try:
                self.unknown_loop(rest, frame)
            except Abrupt:
                pass
            finally:
                self.depth -= 1
                self.loops = loops
            raise
        except _Returned:
            return

    def segment(self, stmt, frame: Frame, loop: Optional[dict]) -> None:
        """One statement of a generator's body without a ``yield``: run as
        the body of a call would (one frame deeper, the consumer's loops not
        its own). A ``break``/``continue``/``return`` that may or may not
        happen leaves the generator's course untold (Undecided)."""
        returns = len(frame.returns)
        self.depth += 1
        loops, self.loops = self.loops, ([loop] if loop is not None else [])
        try:
            self.stmt(stmt, frame)
        except Abrupt as e:
            if e.kind == "return":
                raise _Returned() from None
            raise
        finally:
            self.depth -= 1
            self.loops = loops
        if len(frame.returns) != returns or (loop is not None and (loop["break"] or loop["continue"])):
            raise Undecided()

    def yields_of(self, stmts, frame: Frame, count: list, loop: Optional[dict], sources: list):
        """The items ``stmts`` yield (see generator_items); a ``break`` or
        ``continue`` that certainly happens leaves as Abrupt."""
        for stmt in stmts:
            if not _yields((stmt,)):
                self.segment(stmt, frame, loop)
                continue
            t = type(stmt)
            if t is ast.Expr and type(stmt.value) in (ast.Yield, ast.YieldFrom):
                node = stmt.value
                value = None
                if node.value is not None:
                    value = self.generator_expr(node.value, frame)
                items = (value,) if type(node) is ast.Yield else self.items_for(value, sources)
                for item in items:
                    count[0] += 1
                    if count[0] > MAX_UNROLL:
                        raise Undecided()
                    yield item
            elif t is ast.For:
                for item in self.items_for(self.generator_expr(stmt.iter, frame), sources):
                    self.assign(stmt.target, item, frame)
                    if (yield from self.loop_iteration(stmt.body, frame, count, sources)):
                        break
                else:
                    yield from self.yields_of(stmt.orelse, frame, count, loop, sources)
            elif t is ast.While:
                for _ in range(MAX_WHILE + 1):
                    test = truth(self.deref(self.generator_expr(stmt.test, frame)))
                    if test is False:
                        yield from self.yields_of(stmt.orelse, frame, count, loop, sources)
                        break
                    if test is not True:
                        raise Undecided()
                    if (yield from self.loop_iteration(stmt.body, frame, count, sources)):
                        break
                else:
                    raise Undecided()
            elif t is ast.If:
                test = truth(self.deref(self.generator_expr(stmt.test, frame)))
                if test is True:
                    yield from self.yields_of(stmt.body, frame, count, loop, sources)
                elif test is False:
                    yield from self.yields_of(stmt.orelse, frame, count, loop, sources)
                else:
                    raise Undecided()
            else:
                raise Undecided()

    def loop_iteration(self, body, frame: Frame, count: list, sources: list):
        """One run of the body of a generator's loop, its items yielded; True
        when it certainly breaks out."""
        try:
            yield from self.yields_of(body, frame, count, {"break": [], "continue": []}, sources)
        except Abrupt as e:
            if e.kind == "break":
                return True
            if e.kind != "continue":
                raise
        return False

    def items_for(self, value, sources: list):
        """What a generator's ``for`` or ``yield from`` goes over, item by item
        (see ``stream``). Raises Undecided when it is not known."""
        value = self.deref(value)
        if type(value) is DeferredCallV:
            raise Undecided()  # an `async def`'s coroutine
        items = self.stream(value)
        if items is None:
            raise Undecided()
        if type(items) is GeneratorType:
            sources.append(items)
        return items

    def lazy_wrapper(self, q: str, args: tuple, kwargs: Dict[str, tuple]):
        """``enumerate(gen)``, ``zip(gen, ...)``, ``itertools.chain(gen, ...)``,
        ``iter(gen)`` of a one-shot iterator whose items are made as they are
        asked for (a generator, a generator expression, ``map``, ``filter``,
        not read yet or left part way here: see ``pending``):
        an iterator that asks for them when it is consumed, one at a time, as
        CPython's does. The other arguments are read now (None: a form not
        modelled so; the call is then read as before)."""
        if q == "iter":
            if len(args) == 1 and not kwargs and type(args[0]) is IterV:
                return args[0]  # an iterator's iter() is itself
            return None
        if q == "enumerate":
            start = args[1] if len(args) > 1 else kwargs.get("start", (0,))[0]
            if not 1 <= len(args) <= 2 or set(kwargs) - {"start"} or (len(args) > 1 and kwargs) \
                    or type(start) is not int:
                return None
            parts: list = [args[0]]
        elif kwargs or not args:
            return None
        else:
            parts = list(args)
            start = 0
        lazy = False
        for i, a in enumerate(parts):
            if type(a) is IterV and self.pending(a):
                lazy = True
                continue
            if type(a) is IterV:
                return None
            seq = self.iterate(a)
            if seq is None:
                return None
            parts[i] = tuple(seq)
        if not lazy:
            return None
        self.handles += 1
        return IterV((), self.token, ("wrap", None, None, (q, tuple(parts), start), self))

    def wrapped_items(self, q: str, parts: tuple, start: int):
        """The items of a ``lazy_wrapper`` iterator, made as they are asked
        for: CPython's own ``enumerate``/``zip``/``chain`` over the items of
        its arguments, made one at a time (see ``stream``)."""
        streams = []
        for a in parts:
            items = self.stream(a) if type(a) is IterV else a
            if items is None:
                raise Undecided()
            streams.append(items)
        if q == "enumerate":
            return enumerate(streams[0], start)
        if q == "zip":
            return zip(*streams)
        return itertools.chain(*streams)

    def generator_expr(self, node, frame: Frame):
        """An expression of a generator's body (a yielded value, a loop's
        iterable, a test), evaluated one frame deeper."""
        self.depth += 1
        try:
            return self.expr(node, frame)
        finally:
            self.depth -= 1

    def hand_iterators(self, func, args: tuple, kwargs: Dict[str, tuple]):
        """One-shot iterators given to a call. A library call that consumes
        what it is given (``dict(pairs)``, ``sorted(gen)``, ``"".join(gen)``)
        reads their items, here; any other library call, or a callee not
        followed, may consume them: spent, and what it is given is unknown.
        A function of the user's gets them as they are (its body consumes)."""
        t = type(func)
        q = func.q if t is LibV else func.func.q if t is BoundV and type(func.func) is LibV else None
        if q is None and func is not UNKNOWN and t is not ImportV and t is not LazyCallV \
                and not (t is FuncV and func.ev is not self):
            return args, kwargs
        if q in _LOOKS_ONLY:
            return args, kwargs  # `print(gen)`, `bool(it)`: it stays as it is
        reads = q is not None and (consumes(q) or q in _CONSUMING_METHODS)

        def hand(value):
            if type(value) is not IterV:
                return value
            if reads and not (q in _LAZY_LIBRARY and (value.lazy is not None or value.source is not None)):
                return self.drain(value, stops_early=q in _STOPS_EARLY)
            self.spend(value)
            return UNKNOWN

        return tuple(hand(a) for a in args), {k: (hand(v[0]),) + tuple(v[1:]) for k, v in kwargs.items()}

    def exit_stack_call(self, q: str, stack, args: tuple, kwargs, node, frame: Frame):
        """``stack.enter_context(cm)`` enters ``cm`` now, as a ``with`` item
        would (a PassContext stays current, a contextmanager of the user's runs
        to its ``yield``), and keeps its exit; ``stack.callback(f, *a)`` and
        ``stack.push(exit)`` keep a call; ``close()`` runs them, last first;
        ``pop_all()`` moves them to a new stack. Another method: what it is
        given is handed out."""
        self.effects += 1
        name = q.rsplit(".", 1)[-1]
        if KW_UNKNOWN in kwargs or any(a is STAR_UNKNOWN for a in args):
            name = ""
        if name == "enter_context" and len(args) == 1 and not kwargs:
            value = self.deref(args[0])
            expr = node.args[0] if isinstance(node, ast.Call) and len(node.args) == 1 else None
            helper = self.enter_helper(value, expr) if expr is not None else None
            if helper is not None:
                contexts, leave, _may, bound = helper
                self.contexts.extend(contexts)
                stack.contexts.extend(contexts)
                if leave is not None:
                    stack.exits.append(leave)
                return bound
            ctx = self.context_of(expr, value, frame) if expr is not None else UNKNOWN
            if ctx is not None:
                self.contexts.append(ctx)
                stack.contexts.append(ctx)
            return value if isinstance(value, PassContextV) else UNKNOWN
        if name == "callback" and args:
            fn, rest = args[0], args[1:]
            stack.exits.append(lambda ending: self.call_value(fn, rest, kwargs, node, frame))
            return fn
        if name == "push" and len(args) == 1 and not kwargs:
            fn = args[0]
            stack.exits.append(lambda ending: self.call_value(fn, (None, None, None), {}, node, frame))
            return fn
        if name in ("close", "__exit__"):
            self.close_stack(stack, "normal")
            return None if name == "close" else False
        if name == "__enter__" and not args:
            return stack
        if name == "pop_all" and not args:
            moved = ExitStackV()
            moved.exits, stack.exits = stack.exits, []
            moved.contexts, stack.contexts = stack.contexts, []
            return moved
        # anything else (`enter_async_context`, arguments not told): its exits are not
        # told either; what it was given may be called or changed later
        self.escape(args + tuple(v[0] for v in kwargs.values()), calls=True)
        for value in args:
            if user_function(value):
                self.maybe_call(value, node, frame)
        self.touch_unknown()
        return UNKNOWN

    def close_stack(self, stack, ending: str) -> None:
        """The exits of an ExitStack, last first, and its PassContexts left."""
        for ctx in reversed(stack.contexts):
            for i in range(len(self.contexts) - 1, -1, -1):
                if self.contexts[i] is ctx:
                    del self.contexts[i]
                    break
        stack.contexts = []
        exits, stack.exits = stack.exits, []
        for leave in reversed(exits):
            leave(ending)

    def executor_call(self, q: str, args: tuple, kwargs, node, frame: Frame):
        """``ex.map(build, CONFIGS)``, ``ex.starmap``, ``ex.submit(build, cfg)``,
        ``pool.apply_async(...)``: ``build`` runs with each row of arguments.
        The tasks run at the same time (threads) or in other processes, in an
        order not told: each runs in a branch of its own (what it changes
        here is uncertain), and what they return is unknown."""
        name = q.rsplit(".", 1)[-1]
        if name in ("shutdown", "close", "join", "terminate", "__enter__", "__exit__"):
            return None
        fn = args[0] if args else None
        if fn is None or not _callable_of_user(fn):
            if type(fn) is BoundV and type(fn.func) is LibV and fn.func.q.rsplit(".", 1)[-1] in MUTATORS \
                    and havoc_deep(fn.obj):
                self.effects += 1  # `pool.map(CFG.update, parts)`: the dict's own method runs
            self.escape(args + tuple(v[0] for v in kwargs.values()), calls=True)
            return UNKNOWN
        calls: list = []
        if name in ("map", "imap", "imap_unordered", "starmap", "map_async", "starmap_async") and len(args) >= 2:
            seqs = [self.iterate(a) for a in args[1:]]
            if any(x is None for x in seqs) or (name.startswith("starmap") and len(seqs) != 1):
                self.maybe_call(fn, node, frame)
                return UNKNOWN
            rows = seqs[0] if name.startswith("starmap") else list(zip(*seqs))
            for row in rows:
                if not seq_known(row):
                    self.maybe_call(fn, node, frame)
                    return UNKNOWN
                calls.append((tuple(row), {}))
        elif name == "submit":
            calls.append((args[1:], kwargs))
        elif name in ("apply", "apply_async"):
            pos = args[1] if len(args) > 1 else kwargs.get("args", ((),))[0]
            named = args[2] if len(args) > 2 else kwargs.get("kwds", (None,))[0]
            if not seq_known(pos) or (named is not None and not (type(named) is DictV and named.exact())):
                self.maybe_call(fn, node, frame)
                return UNKNOWN
            calls.append((tuple(pos), {k: (e[0], node) for k, e in named.entries.items()} if named else {}))
        else:
            self.maybe_call(fn, node, frame)
            return UNKNOWN
        for call_args, call_kwargs in calls[:MAX_TASKS]:
            self.tick()
            try:
                with self.forked():
                    self.call_value(fn, call_args, call_kwargs, node, frame)
            except Abrupt:
                pass  # the task raised: its future holds the exception
        return UNKNOWN

    def map_rows(self, args: tuple, node, frame: Frame, keep: bool = False):
        """The items of ``map(f, *iterables)`` made one at a time (a Python
        generator): ``f`` called on each row of the iterables (read when the
        first item is asked for), up to the shortest; with ``keep``,
        ``filter(f, iterable)``: the items ``f`` returns a true value for.
        Raises Undecided when the next item cannot be told."""
        seqs = [self.stream(a) for a in args[1:]]  # a generator given: its items made as asked for
        if any(x is None for x in seqs):
            self.maybe_call(args[0], node, frame)
            raise Undecided()
        rows = zip(*seqs)
        for row in rows:
            self.tick()
            result = self.call_value(args[0], tuple(row), {}, node, frame)
            if not keep:
                yield result
                continue
            kept = truth(self.deref(result))
            if kept is UNKNOWN:
                with self.forked():
                    for later in rows:
                        self.call_value(args[0], tuple(later), {}, node, frame)
                raise Undecided()
            if kept:
                yield row[0]

    def run_deferred(self, value: DeferredCallV):
        """Run a generator's or coroutine's body where it is consumed, once;
        what it returns (a coroutine's value; a generator's items are not
        followed)."""
        if value.result is PENDING:
            value.result = UNKNOWN  # re-entrance guard, and consumed once
            func = value.func
            run = lambda: func.ev.call_function(func, value.args, value.kwargs, value.node, now=True)  # noqa: E731
            result = run() if func.ev is self else self.bridge(func.ev, run, value.node)
            value.result = UNKNOWN if isinstance(func.fn.node, ast.FunctionDef) else result
        return value.result

    def call_lambda(self, func: "LambdaV", args: tuple, kwargs) -> object:
        a = func.node.args
        if a.vararg is not None or a.kwarg is not None or a.kwonlyargs or self.depth >= MAX_DEPTH:
            return UNKNOWN
        names = [p.arg for p in list(a.posonlyargs) + list(a.args)]
        if len(args) > len(names) or any(x is STAR_UNKNOWN for x in args) or KW_UNKNOWN in kwargs:
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
        try:
            self._bind_params(fn, frame, defaults, args, kwargs, unknown_args)
        finally:
            self.arguments_file = None  # only the call a bridge makes has its arguments elsewhere

    def _bind_params(self, fn: Function, frame: Frame, defaults, args, kwargs, unknown_args: bool) -> None:
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
        star_unknown = any(x is STAR_UNKNOWN for x in args)
        kw_unknown = KW_UNKNOWN in kwargs
        extra: list = []
        for i, value in enumerate(args):
            if value is STAR_UNKNOWN:
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
            rest = {k: v for k, v in kwargs.items() if k not in names and k is not KW_UNKNOWN}
            # the keywords are written where the call is (another module's, for a bridged call)
            written = self.arguments_file or self.filename
            d = DictV(self.token, {k: (v[0], v[1], v[1], written) for k, v in rest.items()},
                      not kw_unknown)
            frame.vars[a.kwarg.arg] = d

    @staticmethod
    def reads_only(bound) -> bool:
        """A method call :meth:`method` answers without changing its object:
        a read of a dict or list, any str method, or any method of a list
        already spoiled (its answer is unknown, nothing is changed)."""
        func = bound.func
        if type(func) is not LibV:
            return False
        q = func.q
        if q in READ_METHODS or q.startswith("str.") or q.startswith("namedtuple.") or q in GETTER_CALLS:
            return True
        return q.startswith("list.") and isinstance(bound.obj, list) and not seq_known(bound.obj)

    def method(self, q: str, obj, args: tuple, kwargs, node):
        kind, name = q.split(".", 1)
        if kind == "lru_cache" and type(obj) is CachedV:
            if name == "cache_clear" and not args and not kwargs:
                if self.token == obj.token:
                    obj.memo.clear()
                    obj.spoiled = False
                else:  # cleared in a branch that may not run: each entry may be gone
                    for k, (value, _) in list(obj.memo.items()):
                        obj.memo[k] = (value, False)
            return None
        if q in GETTER_CALLS and len(args) == 1 and not kwargs:
            # what itemgetter("block_M") / attrgetter("tile.m") made, called on one item
            if name == "itemgetter.__call__":
                got = [self.subscript(args[0], k) for k in obj]
            else:
                got = []
                for path in obj:
                    value = args[0]
                    for part in path.split("."):
                        value = self.getattr_(self.deref(value), part)
                    got.append(value)
            return got[0] if len(got) == 1 else tuple(got)
        if kind == "namedtuple" and type(obj) is InstanceV:
            items = record_items(obj)
            fields = obj.cls.fields
            if items is None:
                return UNKNOWN
            if name == "_asdict" and not args and not kwargs:
                return DictV(self.token, {f: (v, node, None, self.filename) for f, v in zip(fields, items)})
            if name == "_replace" and not args and KW_UNKNOWN not in kwargs:
                if any(k not in fields for k in kwargs):
                    raise Abrupt("raise")  # ValueError: unexpected field names
                out = InstanceV(obj.cls, self.token)
                out.attrs.update(obj.attrs)
                for k, (v, _) in kwargs.items():
                    out.attrs[k] = v
                return out
            return UNKNOWN
        if kind == "property":
            if name == "setter" and type(obj) is PropertyV and len(args) == 1 and not kwargs \
                    and type(args[0]) is FuncV and not args[0].kind:
                return PropertyV(obj.getter, args[0])
            return UNKNOWN
        if kind == "PassContext" and isinstance(obj, PassContextV):
            if name == "__enter__" and not args and not kwargs:
                self.contexts.append(obj)
                return obj
            if name == "__exit__":
                for i in range(len(self.contexts) - 1, -1, -1):
                    if self.contexts[i] is obj:
                        del self.contexts[i]
                        break
                return False
            return UNKNOWN
        if kind == "dict" and isinstance(obj, DictV):
            args = tuple(self.deref(a) for a in args)  # keys imported from the project: their values
            if name == "copy" and not args:
                return obj.copy(self.token)
            if name == "get" and args:
                key = args[0]
                if key is UNKNOWN or not hashable(key):
                    return UNKNOWN
                default = args[1] if len(args) > 1 else None
                if key in obj.entries:
                    value = obj.entries[key][0]
                    return join(value, default) if obj.maybe_absent(key) else value
                return default if obj.complete else UNKNOWN
            if name == "update":
                for a in args:
                    self.update(obj, a, node)
                if kwargs:
                    self.update(obj, DictV(self.token, {k: (v[0], v[1], v[1], self.filename)
                                                        for k, v in kwargs.items() if k is not KW_UNKNOWN},
                                           KW_UNKNOWN not in kwargs), node)
                return None
            if name == "setdefault" and args:
                key = args[0]
                default = args[1] if len(args) > 1 else None
                if key is UNKNOWN or not hashable(key):
                    obj.complete = False
                    return UNKNOWN
                if key in obj.entries:
                    if obj.maybe_absent(key):
                        # there (its value) or not (set to the default now)
                        entry = obj.entries[key]
                        value = join(entry[0], default)
                        self.set_item(obj, key, value, entry[1], entry[2])
                        return value
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
                if hashable(key) and key is not UNKNOWN and key not in obj.entries and obj.complete:
                    if len(args) > 1:
                        return args[1]
                    raise Abrupt("raise")  # KeyError
                value = obj.entries[key][0] if hashable(key) and key in obj.entries else UNKNOWN
                if value is not UNKNOWN and obj.maybe_absent(key):
                    value = join(value, args[1]) if len(args) > 1 else UNKNOWN  # or a KeyError
                    self.del_item(obj, key)
                    return value
                self.del_item(obj, key)
                return value
            if name == "clear":
                self.effects += 1
                taint_links(obj)  # what may be this very dict (a join made from it) is emptied too, maybe
                if self.precise(obj):
                    obj.entries.clear()
                    obj.complete = True
                    obj.loose = None
                else:
                    self.del_item(obj, UNKNOWN)
                return None
            if name in ("keys", "values", "items"):
                # a live view: what it holds is read where it is used
                return DictViewV(obj, name) if not args and not kwargs else UNKNOWN
            if name in ("popitem",):
                self.del_item(obj, UNKNOWN)
                return UNKNOWN
            if name == "__setitem__" and len(args) == 2 and not kwargs:
                self.set_item(obj, args[0], args[1], node, None)
                return None
            if name == "__delitem__" and len(args) == 1 and not kwargs:
                self.del_item(obj, args[0])
                return None
            if name not in DICT_READS and havoc(obj):
                self.effects += 1  # `cfg.__ior__(...)`, a method not modelled: anything may have changed
            return UNKNOWN
        if kind == "list" and isinstance(obj, list):
            if not seq_known(obj):
                if name in ("append", "extend", "insert"):
                    self.escape(args)  # in it now, maybe: read back as unknown
                return UNKNOWN
            if name == "append" and len(args) == 1 and self.precise(obj) and len(obj) < MAX_LEN \
                    and self.size(obj) + self.size(args[0]) <= MAX_SIZE:
                obj.append(args[0])
                return None
            if name == "extend" and len(args) == 1 and self.precise(obj):
                seq = self.iterate(args[0])
                if seq is not None and len(obj) + len(seq) <= MAX_LEN \
                        and self.size(obj) + self.size(tuple(seq)) <= MAX_SIZE:
                    obj.extend(seq)
                    return None
            if name == "copy":
                return mklist(list(obj), self.token)
            if name in ("index", "count"):
                return UNKNOWN  # reads: the items may compare in ways not modelled
            if not kwargs and self.precise(obj):
                if name == "pop" and len(args) <= 1:
                    at = args[0] if args else -1
                    if type(at) is int and -len(obj) <= at < len(obj):
                        return obj.pop(at)
                elif name == "insert" and len(args) == 2 and type(args[0]) is int and len(obj) < MAX_LEN \
                        and self.size(obj) + self.size(args[1]) <= MAX_SIZE:
                    obj.insert(args[0], args[1])
                    return None
                elif name in ("clear", "reverse") and not args:
                    getattr(obj, name)()
                    return None
            if name in ("append", "extend", "insert"):
                self.escape(args)  # in it now, maybe: read back as unknown
            havoc(obj)  # anything may have happened to it
            return UNKNOWN
        if kind == "str" and isinstance(obj, str):
            return _str_method(obj, name, args, kwargs)
        return UNKNOWN


# str methods run as Python runs them on known strings (results bounded in size)
_STR_PLAIN = frozenset({"upper", "lower", "strip", "lstrip", "rstrip", "title", "capitalize", "casefold",
                        "startswith", "endswith", "replace", "removeprefix", "removesuffix", "split", "rsplit",
                        "partition", "rpartition", "isidentifier", "isdigit", "isalpha", "isalnum", "islower",
                        "isupper", "find", "rfind", "count"})
_MAX_STR = 4096


def _str_method(obj: str, name: str, args: tuple, kwargs):
    """A method of a known string: the same result when every argument is a
    known str, int or None (and ``join`` / ``format`` of known parts)."""
    if kwargs and name != "format":
        return UNKNOWN
    if name == "join" and len(args) == 1 and type(args[0]) in (tuple, list, ListV) and seq_known(args[0]) \
            and all(type(p) is str for p in args[0]):
        parts = args[0]
        if sum(len(p) for p in parts) + len(obj) * len(parts) <= _MAX_STR:
            return obj.join(parts)
        return UNKNOWN
    if name == "format":
        values = list(args) + [v[0] for v in kwargs.values()]
        if KW_UNKNOWN in kwargs or ":" in obj or "!" in obj \
                or not all(type(v) in (str, int, bool) or v is None for v in values):
            return UNKNOWN  # a format spec (`{:>100000}`) or a value whose str() is not modelled
        if len(obj) + obj.count("{") * max([len(str(v)) for v in values] or [0]) > _MAX_STR:
            return UNKNOWN  # judged before it is made: `"{0}" * 4000` of a long string
        try:
            text = obj.format(*args, **{k: v[0] for k, v in kwargs.items()})
        except (IndexError, KeyError, ValueError, AttributeError):
            return UNKNOWN
        return text if len(text) <= _MAX_STR else UNKNOWN
    if name in _STR_PLAIN and all(type(a) in (str, int) or a is None for a in args):
        if name == "replace" and len(args) >= 2 and isinstance(args[1], str) \
                and len(obj) * max(1, len(args[1])) > _MAX_STR:
            return UNKNOWN
        try:
            result = getattr(obj, name)(*args)
        except (TypeError, ValueError):
            return UNKNOWN
        if isinstance(result, list):
            return ListV(result)
        return result
    return UNKNOWN


class _Returned(Exception):
    """A generator's ``return``: no more items."""


def _bare_yield(stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Yield)


def _yields(stmts) -> bool:
    return any(isinstance(n, (ast.Yield, ast.YieldFrom)) for s in stmts for n in ast.walk(s))


def _holds_containers(value: tuple) -> bool:
    for v in value:
        tv = type(v)
        if tv is DictV or tv is ListV or tv is InstanceV or tv is BoundV or (tv is tuple and _holds_containers(v)):
            return True
    return False


def _cache_key(args: tuple, kwargs, typed: bool):
    """``functools._make_key`` for arguments the evaluator knows exactly (or
    None): positionals, then keywords in the order given, then the types
    when ``typed``; a lone int or str (exactly) is its own key, so ``f(1)``
    and ``f(True)`` are two entries, as in CPython."""
    key = tuple(args)
    if kwargs:
        if KW_UNKNOWN in kwargs:
            return None
        key += (_KW_MARK,)
        for k, v in kwargs.items():
            key += (k, v[0])
    if not all(v is _KW_MARK or _keyable(v) for v in key):
        return None
    if typed:
        key += tuple(type(v) for v in args)
        if kwargs:
            key += tuple(type(v[0]) for v in kwargs.values())
    elif len(key) == 1 and type(key[0]) in (int, str):
        return key[0]
    return ("args",) + key  # never equal to a lone int or str


_KW_MARK = object()


def _keyable(value) -> bool:
    if isinstance(value, PLAIN):
        return True
    if type(value) is tuple:
        return all(_keyable(v) for v in value)
    if type(value) in (ClassV, FuncV, LibV, _Member, InstanceV):
        return hashable(value)
    return False
