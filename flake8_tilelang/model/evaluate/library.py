"""The library surface: ``tilelang.jit``, ``tilelang.compile``,
``T.prim_func``, ``PassConfigKey``, ``tilelang.autotune``, the Python builtins
and ``functools.partial``; compile sites are recorded as ``Event``s."""
from __future__ import annotations

import ast
import itertools
import keyword
import math as _math
import re
from typing import Dict, Optional

from ... import constants as C
from ..build import canonical_prim
from ..calls import root_name
from ..config import LOWER_OUTSIDE_PASS_CONTEXT, Entry, PassConfig
from ..nodes import Function
from .budget import MAX_LEN, MAX_UNROLL
from .expressions import BUILTINS
from .frames import Abrupt, Frame
from .values import (
    KW_UNKNOWN, PLAIN, STAR_UNKNOWN, UNKNOWN, BadKey, BoundV, CachedV, ClassV, DictV, FuncV, JitDecoV, JitV, KernelsV,
    KernelV, LambdaV, ListV,
    EnumMemberV, ExecutorV, ExitStackV, InstanceV, LibV, NamespaceV, ParamSetV, ParamsV, PartialV, PassContextV, PassDecoV, as_bool, hashable, havoc, plain_str,
    kernels_of, mklist, plain, raw_of, record_items, seq_known, spoil, truth, MISSING,
)

# names whose values are never looked up in the user's project
DENY = C.THIRD_PARTY_ROOTS | C.STDLIB_ROOTS
LIBRARY_ROOTS = frozenset({
    "tilelang", "tvm", "torch", "torch_npu", "numpy", "functools", "os", "sys", "math", "argparse",
    "random", "itertools", "typing", "dataclasses", "enum", "collections", "json", "time", "pathlib", "attr", "attrs",
})

# Libraries a function may use and stay inert (see ``Evaluator.inert``): they
# never reach TileLang or the user's modules. The third-party libraries of the
# DENY list but TileLang and TVM, and the standard library modules that hold
# no handle on other modules or callables (not ``sys``: ``sys.modules``; not
# ``importlib``, ``inspect``, ``builtins``, ``gc``, ``functools``, ``contextlib``).
FOREIGN_ROOTS = (C.THIRD_PARTY_ROOTS - {"tilelang", "tvm"}) | frozenset({
    "math", "cmath", "random", "time", "datetime", "statistics", "itertools", "operator", "collections",
    "typing", "json", "re", "string", "textwrap", "struct", "os", "pathlib", "shutil", "tempfile", "subprocess",
    "logging", "warnings", "argparse", "copy", "heapq", "bisect", "fractions", "decimal", "numbers", "array",
    "csv", "hashlib", "matplotlib",
})
# Names that reach a module's namespace: never read by an inert function.
NAMESPACE_BUILTINS = frozenset({"setattr", "delattr", "globals", "locals", "vars", "exec", "eval", "compile",
                                "__import__", "__builtins__"})
# The builtins the evaluator knows (``BUILTINS``) that it models without an
# effect: all but those that change the object they are given (setattr,
# delattr) or reach a namespace (exec, eval, globals(), locals(), vars()).
EFFECT_FREE_BUILTINS = BUILTINS - NAMESPACE_BUILTINS
# `operator` functions that compute a new value from two (`functools.reduce(operator.or_, dicts)`);
# the in-place ones (`operator.ior`) and `setitem` are not here
OPERATOR_BINOPS = {
    "operator.add": ast.Add(), "operator.sub": ast.Sub(), "operator.mul": ast.Mult(),
    "operator.floordiv": ast.FloorDiv(), "operator.truediv": ast.Div(), "operator.mod": ast.Mod(),
    "operator.or_": ast.BitOr(), "operator.and_": ast.BitAnd(), "operator.xor": ast.BitXor(),
    "operator.lshift": ast.LShift(), "operator.rshift": ast.RShift(), "operator.pow": ast.Pow(),
}
# Code run from a string (after which any name of the module may hold
# anything), and namespaces handed out as a dict that later writes may go
# through (``NamespaceV``).
_NAMESPACE_CALLS = frozenset({"exec", "eval", "globals", "locals", "vars"})
# What an `eval` string may hold and still change nothing (`eval("torch.float16")`).
_PURE_EVAL_NODES = (ast.Expression, ast.Name, ast.Attribute, ast.Constant, ast.Load, ast.Subscript, ast.Tuple,
                    ast.List, ast.BinOp, ast.UnaryOp, ast.operator, ast.unaryop, ast.Slice)


def import_time_effects(builder) -> bool:
    """Whether importing the module may change another module of the
    project: its top-level code (what runs at import; function bodies do
    not) stores into, deletes from or calls something rooted at a name it
    imports from the project (``configs.CFG[K] = False``,
    ``configs.CFG.update(...)``, ``enable_expert()``, ``setup(CFG)``), or
    calls a function of its own (which may do so). Decided on the AST alone."""
    module = builder.module
    project = {name for name, target in module.imports.items()
               if target is None or target.startswith(".")
               or (target.split(".")[0] not in LIBRARY_ROOTS and target.split(".")[0] not in DENY)}
    if builder.star_imports:
        return True
    if not project:
        return False
    local = set(module.functions) | set(module.classes)
    stack = list(builder.tree.body)
    while stack:
        node = stack.pop()
        t = type(node)
        if t is ast.FunctionDef or t is ast.AsyncFunctionDef:
            stack.extend(node.decorator_list)
            stack.extend(d for d in node.args.defaults + node.args.kw_defaults if d is not None)
            continue
        if t is ast.Lambda:
            continue
        if t is ast.Call:
            root = root_name(node.func)
            if root in project or root in local:
                return True
            if any(root_name(a) in project for a in node.args) or \
                    any(root_name(k.value) in project for k in node.keywords):
                return True
        elif t in (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete):
            targets = node.targets if t is ast.Assign or t is ast.Delete else [node.target]
            for target in targets:
                for sub in ast.walk(target):
                    if isinstance(sub, (ast.Subscript, ast.Attribute)) and root_name(sub) in project:
                        return True
        stack.extend(ast.iter_child_nodes(node))
    return False


def inert_function(builder, fn: Function, visiting: Optional[set] = None) -> bool:
    """``Evaluator.inert`` on a module's builder facts alone (no evaluation):
    ``fn`` reads only its own names, builtins without an effect on a
    namespace, foreign libraries, and functions of its module that are inert
    themselves (each defined once, never rebound)."""
    module = builder.module
    if builder.star_imports:
        return False
    visiting = set() if visiting is None else visiting
    visiting.add(id(fn))
    loaded: set = set()
    bound: set = set()
    stack = [fn]
    while stack:
        f = stack.pop()
        if f.globals or f.classes or f.is_prim_func or f.is_macro or f.jit is not None or f.uses \
                or f.launches or f.fallback_imports:
            return False
        for target in f.imports.values():
            if target is None or target.split(".")[0] not in FOREIGN_ROOTS:
                return False  # `import tilelang` in a function, a relative import, the user's module
        loaded |= f.loaded
        bound |= f.bound
        bound.update(f.imports)
        stack.extend(f.children)
    helpers = []
    for name in loaded:
        if name in module.functions:
            fns = module.functions[name]
            if len(fns) != 1 or name in module.assigns or name in module.classes or name in module.imports \
                    or name in module.fallback_imports or name in module.mutated:
                return False
            helpers.append(fns[0])  # another function of the module: inert if it is
            continue
        if name in module.assigns or name in module.classes or name in module.fallback_imports:
            return False
        target = module.imports.get(name, False)
        if target is not False:
            if target is None or target.split(".")[0] not in FOREIGN_ROOTS:
                return False
        elif name not in bound and (name not in BUILTINS or name in NAMESPACE_BUILTINS):
            return False  # `exec`, `globals()`, `setattr`, or a name bound nowhere
    return all(id(h) in visiting or inert_function(builder, h, visiting) for h in helpers)

class Event:
    """A compile site reached during evaluation."""

    __slots__ = ("kind", "node", "config", "kernels", "function", "label", "origin", "called", "desc",
                 "outside_pass_context", "superseded", "target")

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
        self.desc = ""  # how the config's origin is named, when not "pass_configs of the <label>"
        # a lower() reached with no PassContext entered: every switch off
        self.outside_pass_context = False
        # a jit decorator's own site once the module has certainly called the factory:
        # the compiles are those calls
        self.superseded = False
        # the dialect it compiles for: "ascendc", "npuir", "default" (no target / "auto":
        # the installed branch's, i.e. the `target` setting) or None (unknown)
        self.target = C.DEFAULT_TARGET



def _pure_eval(source) -> bool:
    """A string ``eval`` reads a value from without changing anything: names,
    attributes, constants, subscripts and arithmetic, no call."""
    if not isinstance(source, str) or len(source) > 200:
        return False
    try:
        tree = ast.parse(source, mode="eval")
    except (SyntaxError, ValueError):
        return False
    return all(isinstance(node, _PURE_EVAL_NODES) for node in ast.walk(tree))


_DOTTED_PREFIX = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\.\Z")
_NAME_PART = re.compile(r"[A-Za-z0-9_.]*\Z")


def _names_an_attribute(call) -> bool:
    """``eval("torch." + dtype)``, ``eval(f"torch.{dtype}")``: a string made of
    a constant dotted prefix and name parts, the way test code spells
    ``getattr(torch, dtype)``. Read as that lookup (it changes nothing) even
    when the part is not known."""
    if not isinstance(call, ast.Call) or len(call.args) != 1:
        return False
    arg = call.args[0]
    if isinstance(arg, ast.JoinedStr):
        parts = list(arg.values)
    else:
        parts = []
        while isinstance(arg, ast.BinOp) and isinstance(arg.op, ast.Add):
            parts.append(arg.right)
            arg = arg.left
        parts.append(arg)
        parts.reverse()
    if len(parts) < 2:
        return False
    first = parts[0]
    if not (isinstance(first, ast.Constant) and isinstance(first.value, str) and _DOTTED_PREFIX.match(first.value)):
        return False
    for part in parts[1:]:
        if isinstance(part, ast.Constant):
            if not (isinstance(part.value, str) and _NAME_PART.match(part.value)):
                return False
        elif isinstance(part, ast.FormattedValue):
            if part.format_spec is not None or part.conversion != -1:
                return False
        elif not isinstance(part, (ast.Name, ast.Attribute, ast.Subscript)):
            return False  # a call or anything else could be made to run code
    return True


class Library:
    """Mixin of ``Evaluator``: calls of library names, compile sites."""

    def havoc_namespace(self, frame: Frame) -> None:
        """``exec(...)``, ``eval(...)``, ``globals()``, ``locals()``, ``vars()``:
        code the evaluator does not read may rebind any name of the module and
        change in place anything the running frames hold. Every module name
        becomes unknown and every container those frames hold is spoiled, so
        what follows reads as unknown (never as the value before the call)."""
        self.effects += 1
        f = frame
        while f is not None:
            for value in list(f.vars.values()):
                havoc(value)  # not deref'd: a pending call of another module stays pending
            f = f.parent
        module = frame.module if frame is not None else self.module_frame
        for f in (module, self.module_frame):
            if f is None:
                continue
            for name in list(f.vars):
                value = f.vars[name]
                havoc(value)
                f.vars[name] = UNKNOWN

    # -- library calls -------------------------------------------------------
    def copy_of(self, value, deep: bool):
        """``copy.copy`` (a new dict or list holding the same items) and
        ``copy.deepcopy`` (new dicts and lists all the way down, shared parts
        shared once, as its memo does). An instance, or anything else not
        modelled, is unknown; a deep copy of it holds nothing of the original."""
        memo: Dict[int, object] = {}

        def dup(v, depth):
            t = type(v)
            if isinstance(v, PLAIN) or t in (LibV, ClassV, FuncV, EnumMemberV, BadKey):
                return v  # immutable, or copied as itself (functions, classes, enum members)
            if id(v) in memo:
                return memo[id(v)]
            if depth > 32:
                raise _NotCopied()
            if t is DictV:
                out = DictV(self.token, {}, v.complete)
                out.loose = set(v.loose) if v.loose else None
                memo[id(v)] = out
                for k, e in v.entries.items():
                    out.entries[k] = (dup(e[0], depth + 1) if deep else e[0],) + tuple(e[1:])
                return out
            if t is ListV:
                if not seq_known(v):
                    raise _NotCopied()
                out = mklist([], self.token)
                memo[id(v)] = out
                out.extend(dup(x, depth + 1) if deep else x for x in v)
                return out
            if t is tuple:
                return tuple(dup(x, depth + 1) for x in v) if deep else v
            if t is InstanceV and copyable(v):
                # a new object of its class, __init__ not run, holding its attributes (copies of them)
                out = InstanceV(v.cls, self.token)
                memo[id(v)] = out
                out.attrs.update((k, dup(x, depth + 1) if deep else x) for k, x in v.attrs.items())
                return out
            raise _NotCopied()

        try:
            return self.bounded(dup(self.deref(value), 0))
        except _NotCopied:
            # a shallow copy holds what the original holds; a deep one made by a hook
            # of the class (`__deepcopy__` returning self) may too
            self.escape((value,))
            return UNKNOWN

    def fields_of(self, value, as_tuple: bool, depth: int = 0):
        """``dataclasses.asdict`` / ``astuple``: dataclass instances (and those
        in lists, tuples, NamedTuples and dicts) made dicts or tuples, anything
        else deep-copied, each part on its own (no memo across parts)."""
        v = self.deref(value)
        t = type(v)
        if depth > 16:
            raise _NotCopied()
        if t is InstanceV and v.cls.maker == "dataclasses.dataclass" and not v.opaque:
            if any(f not in v.attrs for f in v.cls.fields):
                raise _NotCopied()
            parts = [(f, self.fields_of(v.attrs[f], as_tuple, depth + 1)) for f in v.cls.fields]
            if as_tuple:
                return tuple(p for _, p in parts)
            return DictV(self.token, {f: (p, None, None, self.filename) for f, p in parts})
        if t is InstanceV and _dataclass_based(v.cls):
            raise _NotCopied()  # a subclass of a dataclass, or one not modelled: asdict may convert it
        items = record_items(v)
        if items is not None:
            out = InstanceV(v.cls, self.token)
            out.attrs.update(zip(v.cls.fields, (self.fields_of(x, as_tuple, depth + 1) for x in items)))
            return out
        if t is tuple or t is ListV:
            if not seq_known(v):
                raise _NotCopied()
            parts = [self.fields_of(x, as_tuple, depth + 1) for x in v]
            return tuple(parts) if t is tuple else mklist(parts, self.token)
        if t is DictV:
            out = DictV(self.token, {}, v.complete)
            out.loose = set(v.loose) if v.loose else None
            for k, e in v.entries.items():
                out.entries[k] = (self.fields_of(e[0], as_tuple, depth + 1),) + tuple(e[1:])
            return out
        copied = self.copy_of(v, deep=True)
        if copied is UNKNOWN and v is not UNKNOWN:
            raise _NotCopied()
        return copied

    def lru_cache(self, q: str, args: tuple, kwargs):
        """``@functools.cache``, ``@lru_cache``, ``@lru_cache(maxsize=None)``,
        ``@lru_cache(32, typed=True)``, ``lru_cache(maxsize=None)(f)``."""
        options = {k: v[0] for k, v in kwargs.items()}
        if KW_UNKNOWN in options or set(options) - {"maxsize", "typed"} or len(args) > 2:
            return UNKNOWN
        maxsize = 128 if q == "functools.lru_cache" else None
        if args and not _callable(args[0]):
            maxsize, args = args[0], args[1:]  # `lru_cache(64)`: the size, positionally
            if len(args) == 1 and "typed" not in options:
                options["typed"], args = args[0], ()
        maxsize = options.get("maxsize", maxsize)
        typed = options.get("typed", False)
        if not (maxsize is None or type(maxsize) is int) or type(typed) is not bool:
            return UNKNOWN
        if args:
            return CachedV(args[0], maxsize, typed, self.token) if len(args) == 1 and _callable(args[0]) \
                else UNKNOWN
        return PartialV(LibV("functools.lru_cache"), (), {"maxsize": (maxsize, None), "typed": (typed, None)})

    def library(self, q: str, args: tuple, kwargs, node, frame: Frame):
        if q in C.JIT_NAMES:
            unknown = KW_UNKNOWN in kwargs
            kw = {k: v for k, v in kwargs.items() if k is not KW_UNKNOWN}
            if args:
                return self.jit(args[0], kw, unknown, node, "jit-call")
            return JitDecoV(kw, node, unknown)
        if q in _EXECUTORS:
            return ExecutorV()
        if q == "contextlib.ExitStack" and not args and not kwargs:
            return ExitStackV()
        if q == "pytest.mark.parametrize":
            return self.parametrize(args, kwargs)
        if q == "pytest.param":
            # a row: its values (its marks do not change them; the runner runs it unless selected out)
            return ParamSetV(args) if not any(a is STAR_UNKNOWN for a in args) and set(kwargs) <= {"id", "marks"} \
                else UNKNOWN
        if q.startswith("pytest.mark.") and q.count(".") == 2:
            # `@pytest.mark.skipif(...)`, `@pytest.mark.npu`: the function, marked
            return args[0] if len(args) == 1 and not kwargs and type(args[0]) is FuncV else PassDecoV()
        if q in C.AUTOTUNE_NAMES:
            return PassDecoV() if not args else args[0]
        if q in C.COMPILE_NAMES:
            target = args[0] if args else kwargs.get("func", (UNKNOWN,))[0]
            cached = q in C.CACHED_NAMES
            event = self.record("compile", node, kwargs, target, None,
                                "tilelang.cached call" if cached else "tilelang.compile call")
            if event is not None:  # a 4th positional is `target` on npuir, `execution_backend` on ascendc_pto
                starred = any(a is STAR_UNKNOWN for a in args)
                # cached's positionals after the third are its *args: its target is a keyword only
                event.target = compile_target(kwargs, UNKNOWN if (len(args) > 3 and not cached) or starred else None)
            return UNKNOWN
        prim = canonical_prim(q)
        if prim == "prim_func":
            if len(args) == 1 and isinstance(args[0], FuncV):
                return KernelV(args[0].fn, self.kernel_frame(args[0].fn, args[0].closure))
            if not args and not any(k == KW_UNKNOWN for k in kwargs):
                # `@T.prim_func(private=True)`: the decorator it returns parses the same way
                return PartialV(LibV(q), (), {})
            return UNKNOWN
        if q in C.PASS_CONTEXT_NAMES:
            return self.pass_context(args, kwargs, node)
        if q in C.LOWER_NAMES:
            starred = any(a is STAR_UNKNOWN for a in args)
            self.lower(node, args[0] if args else kwargs.get("func", (UNKNOWN,))[0],
                       compile_target(kwargs, UNKNOWN if starred else args[1] if len(args) > 1 else None))
            return UNKNOWN
        if q in ("functools.lru_cache", "functools.cache"):
            return self.lru_cache(q, args, kwargs)
        if q in ("copy.copy", "copy.deepcopy") and len(args) == 1 and not kwargs:
            return self.copy_of(args[0], deep=q == "copy.deepcopy")
        if q == "functools.wraps" and len(args) == 1:
            return PassDecoV()  # copies the wrapped function's name and docstring, nothing else
        if q == "functools.partial" and args:
            return PartialV(args[0], tuple(args[1:]), dict(kwargs))
        if q == "dict":
            result = DictV(self.token)
            for a in args:
                a = self.deref(a)  # `dict(_D)` of a dict imported from another module
                if isinstance(a, DictV):
                    self.merge_into(result, a)
                else:
                    seq = self.iterate(a)
                    if seq is None:
                        spoil(result)
                        continue
                    for pair in seq:
                        if isinstance(pair, tuple) and len(pair) == 2:
                            pair = (self.deref(pair[0]), pair[1])
                        if isinstance(pair, tuple) and len(pair) == 2 and hashable(pair[0]) \
                                and pair[0] is not UNKNOWN:
                            result.entries[pair[0]] = (pair[1], node, None, self.filename)
                        else:
                            spoil(result)
            for k, (v, vnode) in kwargs.items():
                if k is KW_UNKNOWN:
                    spoil(result)
                else:
                    result.entries[k] = (v, vnode, vnode, self.filename)
            return result
        if q in _NAMESPACE_CALLS:
            if q == "vars" and args:
                havoc(self.deref(args[0]))  # its __dict__: written through later
            elif q in ("exec", "eval"):
                if not (q == "eval" and len(args) == 1 and not kwargs and
                        (_pure_eval(args[0]) or _names_an_attribute(node))):
                    self.havoc_namespace(frame)
            elif not args and not kwargs:
                self.handles += 1
                return NamespaceV(frame)  # globals(), locals(), vars(): written through later, maybe
            return UNKNOWN
        if q in ("setattr", "delattr") and len(args) == (3 if q == "setattr" else 2) and not kwargs:
            if isinstance(args[1], str):
                self.set_attr(args[0], args[1], args[2] if q == "setattr" else UNKNOWN)
            else:
                havoc(self.deref(args[0]))
            return None
        if q in C.PASS_CONFIG_KEY_CLASSES and len(args) == 1 and not kwargs:
            # PassConfigKey("tl.ascend_auto_sync"): the member with that value (a str enum)
            return args[0] if isinstance(args[0], str) and args[0] in C.KNOWN_KEYS else UNKNOWN
        if q == "getattr" and len(args) >= 2 and isinstance(args[1], str):
            value = self.getattr_(args[0], args[1])
            if isinstance(value, BadKey) and len(args) > 2:
                return args[2]
            if len(args) > 2 and (value is UNKNOWN or type(value) is LibV):
                self.escape((args[2],))  # the attribute may be missing: the default, maybe
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
            if seq is None or not all(hashable(k) and k is not UNKNOWN for k in seq):
                return UNKNOWN
            value = args[1] if len(args) > 1 else None
            return DictV(self.token, {k: (value, node, None, self.filename) for k in seq})
        if q == "zip" and args and set(kwargs) <= {"strict"}:
            seqs = [self.iterate(a) for a in args]
            strict = kwargs.get("strict", (False,))[0]
            if any(x is None for x in seqs) or type(strict) is not bool \
                    or strict and len({len(x) for x in seqs}) > 1:  # ValueError when consumed
                return UNKNOWN
            return self.iterator(tuple(zip(*seqs)))
        if q in ("itertools.product", "itertools.chain") and set(kwargs) <= ({"repeat"} if q == "itertools.product"
                                                                               else set()):
            # `for bm, bn in itertools.product(BMS, BNS)`: a sweep of build parameters
            seqs = [self.iterate(a) for a in args]
            repeat = kwargs.get("repeat", (1,))[0]
            if any(x is None for x in seqs) or type(repeat) is not int or not 0 <= repeat <= 8:
                return UNKNOWN
            count = 1
            for x in seqs:
                count *= len(x) if q == "itertools.product" else 1
            if q == "itertools.product" and count ** repeat > MAX_UNROLL:
                return UNKNOWN
            items = tuple(itertools.product(*seqs, repeat=repeat)) if q == "itertools.product" \
                else tuple(itertools.chain(*seqs))
            return self.iterator(items)
        if q == "enumerate" and 1 <= len(args) + len(kwargs) <= 2 and set(kwargs) <= {"start"} and args:
            seq = self.iterate(args[0])
            start = args[1] if len(args) > 1 else kwargs.get("start", (0,))[0]
            if seq is None or type(start) is not int or len(args) > 1 and kwargs:
                return UNKNOWN
            return self.iterator(tuple(enumerate(seq, start)))
        if q in ("tuple", "list") and len(args) <= 1:
            if not args:
                return () if q == "tuple" else mklist([], self.token)
            seq = self.iterate(args[0])
            if seq is None:
                return UNKNOWN
            return self.bounded(tuple(seq) if q == "tuple" else mklist(seq, self.token))
        if q == "len" and len(args) == 1:
            a = record_items(args[0]) or args[0]
            if isinstance(a, str) or seq_known(a):
                return len(a)
            if isinstance(a, DictV) and a.exact():
                return len(a.entries)
            return UNKNOWN
        if q == "range" and 1 <= len(args) <= 3 and all(type(a) is int for a in args):
            try:
                r = range(*args)
                return tuple(r) if len(r) <= MAX_UNROLL else UNKNOWN
            except (ValueError, OverflowError):  # a zero step; a length past sys.maxsize
                return UNKNOWN
        if q == "bool" and len(args) == 1 and not kwargs and not isinstance(args[0], PLAIN):
            return truth(self.deref(args[0]))  # of a container, an iterator, a function
        if q in _NUMBERS and not kwargs:
            return self.numbers(q, args)
        if q in ("sorted", "min", "max") and args and kwargs and KW_UNKNOWN not in kwargs \
                and set(kwargs) <= ({"key", "reverse"} if q == "sorted" else {"key", "default"}):
            return self.ordered_by_key(q, args, kwargs, node, frame)
        if q in ("sum", "min", "max", "all", "any", "sorted", "reversed", "math.prod") and args and not kwargs:
            return self.over_items(q, args, kwargs)
        if q in ("bool", "int", "str", "float") and len(args) == 1 and isinstance(args[0], PLAIN):
            if q == "int" and isinstance(args[0], (str, bytes)) and len(args[0]) > MAX_LEN:
                return UNKNOWN
            try:
                value = {"bool": bool, "int": int, "str": str, "float": float}[q](args[0])
            except Exception:
                return UNKNOWN
            return value if not isinstance(value, str) or len(value) <= MAX_LEN else UNKNOWN
        if q == "types.SimpleNamespace" and not args:
            # `SimpleNamespace(auto_sync=True)`: an object holding those attributes
            if self.namespace_class is None:
                self.namespace_class = ClassV(None, {})
            inst = InstanceV(self.namespace_class, self.token)
            for name, (value, _) in kwargs.items():
                if name is KW_UNKNOWN:
                    inst.opaque = True  # `SimpleNamespace(**opts)` of keys not known
                    self.escape(tuple(v[0] for v in kwargs.values()))
                    break
                inst.attrs[name] = value
            return inst
        if q == "dataclasses.fields" and len(args) == 1 and not kwargs:
            # `for f in dataclasses.fields(opts)`: one Field per field, in order; its `.name` is
            # known, its other attributes (type, default, metadata) are not
            obj = self.deref(args[0])
            cls = obj.cls if type(obj) is InstanceV else obj
            if not (isinstance(cls, ClassV) and cls.maker == "dataclasses.dataclass" and not cls.opaque):
                return UNKNOWN  # a TypeError, or a class not modelled
            if self.field_class is None:
                self.field_class = ClassV(None, {})
            out = []
            for name in cls.fields:
                f = InstanceV(self.field_class, self.token)
                f.attrs["name"] = name
                f.opaque = True
                out.append(f)
            return tuple(out)
        if q in ("dataclasses.asdict", "dataclasses.astuple") and len(args) == 1 and not kwargs:
            obj = self.deref(args[0])
            if not (type(obj) is InstanceV and obj.cls.maker == "dataclasses.dataclass"):
                return UNKNOWN  # a TypeError, or an instance not modelled
            try:
                return self.bounded(self.fields_of(obj, q == "dataclasses.astuple"))
            except _NotCopied:
                return UNKNOWN
        if q == "collections.namedtuple":
            return self.namedtuple_class(args, kwargs)
        if q in ("operator.itemgetter", "operator.attrgetter") and args and not kwargs \
                and all(hashable(a) and a is not UNKNOWN for a in args) \
                and (q == "operator.itemgetter" or all(isinstance(a, str) for a in args)):
            return BoundV(LibV(q + ".__call__"), args)  # `key=itemgetter("block_M")`: see GETTER_CALLS
        if q == "dataclasses.replace" and len(args) == 1:
            # a copy with some fields changed (through the constructor: __post_init__ runs)
            obj = self.deref(args[0])
            if not isinstance(obj, InstanceV) or obj.opaque or obj.cls.kind != "dataclass" \
                    or any(k not in obj.cls.fields for k in kwargs):
                return UNKNOWN
            fields = {name: (obj.attrs.get(name, UNKNOWN), node) for name in obj.cls.fields}
            fields.update(kwargs)
            return self.construct(obj.cls, (), fields, node)
        if q == "type" and len(args) == 1 and not kwargs:
            if isinstance(args[0], InstanceV):
                return args[0].cls
            if isinstance(args[0], EnumMemberV):
                return args[0].cls
            return UNKNOWN
        if q == "print":
            return None
        if q in OPERATOR_BINOPS and len(args) == 2 and not kwargs:
            return self._binop(OPERATOR_BINOPS[q], self.deref(args[0]), self.deref(args[1]))
        if prim in ("ceildiv", "floordiv") and not kwargs and all(type(a) is int for a in args):
            return int_fold(prim, args)
        return UNKNOWN

    def namedtuple_class(self, args: tuple, kwargs) -> object:
        """``collections.namedtuple("Tile", "bm bn", defaults=[64])``: a class
        of that kind, its fields bound by its constructor. A name CPython
        would refuse, ``rename=True`` or arguments not known: unknown."""
        if len(args) != 2 or set(kwargs) - {"defaults", "module"} or not isinstance(args[0], str):
            return UNKNOWN  # `field_names=` by keyword, `rename=True`: not modelled
        defaults = kwargs.get("defaults", (None,))[0]
        names = self.deref(args[1])
        if isinstance(names, str):
            names = names.replace(",", " ").split()
        else:
            names = self.iterate(names)
        defaults = () if defaults is None else self.iterate(defaults)
        if names is None or defaults is None or len(names) > MAX_UNROLL or not all(type(n) is str for n in names) \
                or len(set(names)) != len(names) or len(defaults) > len(names):
            return UNKNOWN
        if not all(n.isidentifier() and not keyword.iskeyword(n) and not n.startswith("_")
                   for n in names + [args[0]]):
            return UNKNOWN  # ValueError
        cls = ClassV(None, {"__name__": args[0]}, (), "namedtuple", tuple(names))
        for name, value in zip(names[len(names) - len(defaults):], defaults):
            cls.factories[name] = ("default", value)
        return cls

    def parametrize(self, args: tuple, kwargs):
        """``@pytest.mark.parametrize("dtype,target", [...])``: the rows the
        test runs with, each row's values in order of ``names``."""
        names = self.deref(args[0]) if args else kwargs.get("argnames", (UNKNOWN,))[0]
        values = args[1] if len(args) > 1 else kwargs.get("argvalues", (UNKNOWN,))[0]
        if isinstance(names, str):
            names = tuple(n.strip() for n in names.split(",") if n.strip())
        elif seq_known(names) and all(isinstance(n, str) for n in names):
            names = tuple(names)
        else:
            return ParamsV((), None)
        if not names or len(args) > 2 or set(kwargs) - {"argnames", "argvalues", "ids", "scope"}:
            return ParamsV(names, None)  # `indirect=`: the values go to fixtures
        items = self.iterate(values)
        if items is None:
            return ParamsV(names, None)
        rows = []
        for item in items:
            item = self.deref(item)
            if type(item) is ParamSetV:
                rows.append(item.values if len(item.values) == len(names) else (UNKNOWN,) * len(names))
            elif len(names) == 1:
                rows.append((item,))
            elif seq_known(item) and len(item) == len(names):
                rows.append(tuple(item))
            else:
                rows.append((UNKNOWN,) * len(names))  # `pytest.param(...)`, a row not known
        return ParamsV(names, rows)

    def numbers(self, q: str, args: tuple):
        """``abs``, ``round``, ``divmod``, ``pow``, ``math.ceil`` and the like of
        known numbers (shape arithmetic: `math.ceil(dv / block_v)`,
        `tilelang.math.next_power_of_2(head_kv)`), computed as Python does; a
        result too large, or an error (``math.sqrt(-1)``), is unknown."""
        if not args or not all(type(a) in (int, float, bool) for a in args):
            return UNKNOWN
        if q == "pow" or q == "math.pow":
            if len(args) != 2:
                return UNKNOWN  # pow(a, b, mod): not modelled
            result = self._binop(ast.Pow(), *args)
            return float(result) if q == "math.pow" and type(result) in (int, float) else result
        if q == "divmod":
            if len(args) != 2:
                return UNKNOWN
            parts = (self._binop(ast.FloorDiv(), *args), self._binop(ast.Mod(), *args))
            return UNKNOWN if UNKNOWN in parts else parts
        if q == "round" and len(args) == 2 and (type(args[1]) is not int or abs(args[1]) > 4096):
            return UNKNOWN
        if q in ("math.gcd", "math.lcm") and not all(type(a) is int for a in args):
            return UNKNOWN
        if q in _INT_RESULT_BITS and any(type(a) is int and a.bit_length() > 4096 for a in args):
            return UNKNOWN
        func, fewest, most = _NUMBERS[q]
        if not fewest <= len(args) <= most:
            return UNKNOWN
        try:
            result = func(*args)
        except (ValueError, OverflowError, ZeroDivisionError, TypeError):
            return UNKNOWN
        if type(result) is int and result.bit_length() > 8192:
            return UNKNOWN
        return result

    def over_items(self, q: str, args: tuple, kwargs):
        """``sum``, ``min``, ``max``, ``all``, ``any``, ``sorted``, ``reversed``,
        ``math.prod`` of a known sequence (min and max of numbers given one by
        one are folded below): computed as Python does."""
        if q in ("min", "max") and len(args) > 1:
            items = list(args)
        elif len(args) > (2 if q in ("sum", "math.prod") else 1):
            return UNKNOWN
        else:
            if q == "reversed" and not isinstance(self.deref(args[0]), (tuple, list, str)):
                return UNKNOWN  # a dict, a set, an iterator: not modelled, or TypeError
            items = self.iterate(args[0])
            if items is None:
                return UNKNOWN
        if q in ("all", "any"):
            for item in items:
                tv = truth(self.deref(item))
                if tv is UNKNOWN:
                    return UNKNOWN
                if tv is (q == "any"):
                    return tv
            return q == "all"
        if q == "reversed":
            return self.iterator(tuple(reversed(items)))
        if q in ("sum", "math.prod"):
            total = args[1] if len(args) > 1 else (0 if q == "sum" else 1)
            op = ast.Add() if q == "sum" else ast.Mult()
            for item in items:
                if not isinstance(total, (int, float)) or not isinstance(item, (int, float)):
                    return UNKNOWN  # numbers only: `sum(lists, [])` is not modelled
                total = self._binop(op, total, item)
                if total is UNKNOWN:
                    return UNKNOWN
            return total
        if not all(plain(x) for x in items):
            return UNKNOWN  # what they compare: numbers, strings, tuples of them
        try:
            if q == "sorted":
                return mklist(sorted(items), self.token)
            return min(items) if q == "min" else max(items)
        except (TypeError, ValueError):  # mixed types, an empty sequence
            return UNKNOWN

    def ordered_by_key(self, q: str, args: tuple, kwargs, node, frame: Frame):
        """``sorted(items, key=..., reverse=...)``, ``max(items, key=...,
        default=...)``: the key function called once per item, in order (as
        CPython calls it); the items themselves (a dict picked by its block
        size is that dict) ordered by what it returns, stable, the first of
        equal ones for min and max. Keys that are not plain constants, or
        that Python could not compare, make the result unknown."""
        key = kwargs.get("key", (None,))[0]
        reverse = kwargs.get("reverse", (False,))[0]
        if type(reverse) not in (bool, int):
            return UNKNOWN
        if q != "sorted" and (len(args) > 1 and "default" in kwargs):
            return UNKNOWN  # TypeError
        if q != "sorted" and len(args) > 1:
            items = list(args)
        elif len(args) != 1:
            return UNKNOWN
        else:
            items = self.iterate(args[0])
            if items is None:
                return UNKNOWN
        if key is None:
            keys = items
        else:
            keys = [self.deref(self.call_value(key, (item,), {}, node, frame)) for item in items]
        if not all(plain(k) for k in keys):
            return UNKNOWN
        if not items and q != "sorted":
            return kwargs["default"][0] if "default" in kwargs else UNKNOWN  # ValueError without one
        try:
            if q == "sorted":
                order = sorted(range(len(items)), key=keys.__getitem__, reverse=bool(reverse))
                return mklist([items[i] for i in order], self.token)
            pick = min if q == "min" else max
            return items[pick(range(len(items)), key=keys.__getitem__)]
        except (TypeError, ValueError):  # keys of mixed types
            return UNKNOWN

    # -- PassContext and lower -----------------------------------------------
    def pass_context(self, args: tuple, kwargs, node) -> PassContextV:
        """``PassContext(opt_level, required_pass, disabled_pass, instruments,
        config)``: the config is copied into the context when it is made."""
        if KW_UNKNOWN in kwargs or any(a is STAR_UNKNOWN for a in args):
            return PassContextV(UNKNOWN, node, node)
        if "config" in kwargs:
            value, origin = kwargs["config"]
        elif len(args) > 4:
            value = args[4]
            origin = node.args[4] if isinstance(node, ast.Call) and len(node.args) > 4 else node
        else:
            return PassContextV(PassConfig(filename=self.filename), node, node)
        value = self.deref(value)
        if value is None:
            config = PassConfig(filename=self.filename)
        elif isinstance(value, DictV):
            config = self.to_config(value)
        else:
            config = UNKNOWN
        return PassContextV(config, origin, node)

    def lower(self, node, target, dialect=C.DEFAULT_TARGET) -> None:
        """``tilelang.lower(func)`` compiles under the PassContext entered
        around it when it runs: the innermost one, all switches off when
        there is none, unknown when a context manager that may enter one is
        open."""
        if self.exhausted or self.quiet:
            return
        ctx = self.contexts[-1] if self.contexts else None
        found = kernels_of(self.deref(target))
        kernels = list(found) if found is not None else UNKNOWN
        if alternatives(found):
            # one of several prim_funcs: which one compiles here is not told
            self.events.append(Event("lower", node, UNKNOWN, kernels, None, "tilelang.lower call", node))
            return
        if ctx is None:
            event = Event("lower", node, None, kernels, None, "tilelang.lower call", node)
            event.desc = LOWER_OUTSIDE_PASS_CONTEXT
            event.outside_pass_context = True
        elif isinstance(ctx, PassContextV):
            event = Event("lower", node, ctx.config, kernels, None, "tilelang.lower call", ctx.origin)
            event.desc = "PassContext config" if ctx.origin is not ctx.node else "PassContext"
        else:
            event = Event("lower", node, UNKNOWN, kernels, None, "tilelang.lower call", node)
        event.target = dialect
        self.events.append(event)

    # -- compile sites -------------------------------------------------------
    def jit(self, target, kwargs, unknown_kwargs: bool, node, kind: str):
        target = self.deref(target)
        if isinstance(target, FuncV) and target.fn.is_prim_func:
            target = KernelV(target.fn, target.closure)
        if isinstance(target, (KernelV, KernelsV)):
            event = self.record(kind, node, dict(kwargs, **({KW_UNKNOWN: (UNKNOWN, node)} if unknown_kwargs else {})),
                                target, None, "tilelang.jit call", lazy=True)
            if event is not None:
                event.target = compile_target(kwargs, UNKNOWN if unknown_kwargs else None)
            return JitV(target)
        if not isinstance(target, (FuncV, JitV, BoundV)):
            if target is not UNKNOWN:
                return UNKNOWN
        factory = target.factory if isinstance(target, JitV) else target
        fn = factory.fn if isinstance(factory, FuncV) else None
        label = "@jit decorator" if fn is not None and decorates(node, fn) else "tilelang.jit call"
        if label == "@jit decorator":
            kind = "jit"
        all_kwargs = dict(kwargs)
        if unknown_kwargs:
            all_kwargs[KW_UNKNOWN] = (UNKNOWN, node)
        event = self.record(kind, node, all_kwargs, None, fn, label, lazy=True, factory=factory)
        if event is not None:
            event.target = compile_target(kwargs, UNKNOWN if unknown_kwargs else None)
        return JitV(factory, event)

    def unknown_compile(self, node) -> None:
        """A compile site of the source (``tilelang.compile(...)``, a jitted
        factory's call) reached where what it calls is not known (``tilelang``
        rebound through ``globals()``, a factory that is now unknown): it
        compiles something, with a config not known. Recorded, so the kernels
        this site compiles elsewhere are not taken to have only those configs."""
        sites = self.compile_nodes
        if sites is None:
            sites = self.compile_nodes = {id(s.node): s for s in self.b.sites if s.kind != "jit"}
        site = sites.get(id(node))
        if site is not None and not (self.exhausted or self.quiet):
            event = Event(site.kind, node, UNKNOWN, UNKNOWN, None, "call", node)
            event.target = None
            self.events.append(event)

    def record(self, kind: str, node, kwargs, target, function, label: str, lazy: bool = False,
               factory=None):
        if self.exhausted or self.quiet:
            return None
        entry = kwargs.get("pass_configs")
        if entry is None:
            config = UNKNOWN if KW_UNKNOWN in kwargs else None
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
            found = kernels_of(self.deref(target))
            kernels = list(found) if found is not None else UNKNOWN
            if alternatives(found):
                config = UNKNOWN  # one of several prim_funcs: which one compiles here is not told
        event = Event(kind, node, config, kernels, function, label, origin)
        self.events.append(event)
        return event

    def record_call(self, event: Event, kernels: list) -> None:
        """A jitted factory called where its decorator's dict has the state it
        has now: a compile of its own (the decorator's own site keeps the
        dict's final state, for calls made later)."""
        assert isinstance(event.config, DictV)
        if self.token == 0:
            event.superseded = True
        config = self.to_config(event.config)
        for other in self.events:
            if other.node is event.node and other is not event and isinstance(other.config, PassConfig) \
                    and other.config.entries.keys() == config.entries.keys() and other.config.complete == config.complete \
                    and all(other.config.entries[k].value == e.value and other.config.entries[k].node is e.node
                            for k, e in config.entries.items()):
                other.kernels = list(dict.fromkeys(other.kernels + kernels)) if isinstance(other.kernels, list) \
                    else other.kernels
                return
        call = Event(event.kind, event.node, config, kernels, event.function, event.label, event.origin)
        call.target = event.target
        self.events.append(call)

    def kernels_from_factory(self, factory):
        """The prim_funcs a jit factory returns (its arguments unknown)."""
        if isinstance(factory, (KernelV, KernelsV)):
            return list(kernels_of(factory))
        if not isinstance(factory, (FuncV, BoundV)):
            return UNKNOWN
        try:
            if isinstance(factory, BoundV):
                result = self.call_value(factory, (), {}, None, self.module_frame)
            else:
                saved, self.token = self.token, self.fork_token()
                try:
                    result = factory.ev.call_function(factory, (), {}, None, unknown_args=True)
                finally:
                    self.token = saved
        except Abrupt:
            return UNKNOWN
        found = kernels_of(result)
        return list(found) if found is not None else UNKNOWN

    def to_config(self, d: DictV) -> PassConfig:
        entries: Dict[str, Entry] = {}
        complete = d.complete
        for key, (value, knode, vnode, filename) in d.entries.items():
            if isinstance(key, BadKey):
                name = "PassConfigKey." + key.name
            elif isinstance(key, str):
                name = plain_str(key)
            else:
                complete = False
                continue
            raw_known = plain(value) or isinstance(value, DictV)
            raw = raw_of(value) if raw_known else None
            if knode is None:
                knode = vnode
            if knode is None:
                continue
            entries[name] = Entry(name, as_bool(raw) if raw_known else None, knode, filename, vnode,
                                  raw, raw_known)
        return PassConfig(entries, complete, filename=self.filename)

    # -- questions from the model -------------------------------------------

def compile_target(kwargs, positional=None):
    """The dialect a compile site's ``target`` selects: ``"ascendc"`` for
    "ascendc" / "pto", ``"npuir"`` for "npuir", ``"default"`` when none is given
    or "auto" (the installed branch decides: the `target` setting), None when
    unknown (a value the engine cannot read, a Target object, another string,
    keywords from an unknown ``**spread``). ``positional``: the value passed
    by position where a target may sit (``UNKNOWN`` when it cannot be told)."""
    if "target" in kwargs:
        value = kwargs["target"][0]
    elif positional is not None:
        value = positional
    elif KW_UNKNOWN in kwargs:
        return None
    else:
        return C.DEFAULT_TARGET
    return C.TARGET_DIALECTS.get(value) if isinstance(value, str) else None


def alternatives(found) -> bool:
    """Kernels of a join (a factory returning one prim_func or another on a
    test the engine cannot decide): more than one prim_func, only one of
    which is compiled."""
    return found is not None and len({id(k.fn) for k in found}) > 1


# Pools that run the functions they are given (ExecutorV).
_EXECUTORS = frozenset({
    "concurrent.futures.ThreadPoolExecutor", "concurrent.futures.ProcessPoolExecutor",
    "concurrent.futures.thread.ThreadPoolExecutor", "concurrent.futures.process.ProcessPoolExecutor",
    "multiprocessing.Pool", "multiprocessing.pool.Pool", "multiprocessing.pool.ThreadPool",
})

# Number functions computed when their arguments are known numbers: name ->
# (the function, fewest and most arguments). pow, math.pow and divmod go
# through the evaluator's operators (their result size is judged first).
_NUMBERS = {
    "abs": (abs, 1, 1), "round": (round, 1, 2), "divmod": (None, 2, 2), "pow": (None, 2, 2),
    "math.pow": (None, 2, 2), "math.ceil": (_math.ceil, 1, 1), "math.floor": (_math.floor, 1, 1),
    "math.trunc": (_math.trunc, 1, 1), "math.sqrt": (_math.sqrt, 1, 1), "math.isqrt": (_math.isqrt, 1, 1),
    "math.log": (_math.log, 1, 2), "math.log2": (_math.log2, 1, 1), "math.log10": (_math.log10, 1, 1),
    "math.gcd": (_math.gcd, 0, 8), "math.lcm": (getattr(_math, "lcm", None), 0, 8), "math.exp": (_math.exp, 1, 1),
    "math.fabs": (_math.fabs, 1, 1),
    # tilelang/math/__init__.py (the same in TileLang and TileLang-Ascend)
    "tilelang.math.next_power_of_2": (lambda x: 1 << (x - 1).bit_length(), 1, 1),
    "tilelang.math.cdiv": (lambda a, b: (a + b - 1) // b, 2, 2),
}
# functions whose result grows with an integer argument: bounded before computing
_INT_RESULT_BITS = frozenset({"tilelang.math.next_power_of_2", "math.lcm"})


def int_fold(name: str, args: tuple):
    """T.ceildiv / T.floordiv of two ints (shape arithmetic; min and max are ``over_items``)."""
    if len(args) != 2 or args[1] == 0:
        return UNKNOWN
    return -(-args[0] // args[1]) if name == "ceildiv" else args[0] // args[1]


def decorates(node, fn: Function) -> bool:
    return any(dec is node for dec in fn.node.decorator_list)  # type: ignore[attr-defined]


def _callable(value) -> bool:
    """A function value of the user's that a cache decorator may wrap."""
    return type(value) in (FuncV, BoundV, LambdaV, JitV, CachedV)


_COPY_HOOKS = ("__deepcopy__", "__copy__", "__reduce__", "__reduce_ex__", "__getstate__", "__setstate__",
               "__new__", "__slots__", "__getattr__", "__getattribute__")


def copyable(inst: InstanceV) -> bool:
    """``copy`` / ``deepcopy`` of an instance of the user's makes a new object
    of its class holding (copies of) its attributes: its class (and bases)
    hook none of the copy protocol and what it holds is known."""
    cls = inst.cls
    return not inst.opaque and not cls.opaque and cls.kind != "enum" \
        and all(cls.lookup(hook) is MISSING for hook in _COPY_HOOKS)


def _dataclass_based(cls: ClassV, depth: int = 0) -> bool:
    """Whether ``cls`` is, or derives from, a dataclass (or a class whose
    bases are not all known), as ``dataclasses.asdict`` tells instances to
    convert from those to copy."""
    if cls.kind == "dataclass" or cls.opaque or depth > 16:
        return True
    return any(_dataclass_based(base, depth + 1) for base in cls.bases)


class _NotCopied(Exception):
    """A part of the value ``copy_of`` does not model."""
