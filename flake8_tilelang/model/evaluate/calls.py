"""Calls of the user's functions, lambdas, classes and methods of builtin
containers."""
from __future__ import annotations

import ast
from typing import Dict, Optional

from ..nodes import Function
from .budget import MAX_DEPTH, MAX_LEN, MAX_SIZE, Budget
from .frames import Abrupt, Frame
from .values import (
    MISSING, BoundV, ClassV, DictV, FuncV, ImportV, InstanceV, JitDecoV, JitV, KW_UNKNOWN, LambdaV, LazyCallV, LibV,
    PartialV, PassDecoV, STAR_UNKNOWN, UNKNOWN, hashable, join, havoc, kernels_of, mklist, plain, seq_known,
)

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
                        kwargs[k] = (e[0], e[2] if e[2] is not None else kw.value)
                    if not value.complete:
                        kwargs[KW_UNKNOWN] = (UNKNOWN, kw.value)
                else:
                    kwargs[KW_UNKNOWN] = (UNKNOWN, kw.value)
            else:
                kwargs[kw.arg] = (value, kw.value)
        site = node.func if type(node.func) is ast.Call else node
        return self.call_value(func, tuple(args), kwargs, site, frame, call_node=node)

    def call_value(self, func, args: tuple, kwargs: Dict[str, tuple], node, frame: Frame, call_node=None):
        if func is UNKNOWN:
            return UNKNOWN
        t = type(func)  # the value classes have no subclasses: exact type tests
        if t is ImportV:
            return LazyCallV(func, args, kwargs, node)  # called when its value is needed
        if t is LazyCallV:
            func = self.deref(func)
            t = type(func)
        if t is LibV:  # the most frequent callee (torch.*, T.*, builtins): tested first
            return self.library(func.q, args, kwargs, node, frame)
        if t is FuncV:
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
                found = kernels_of(result)
                if found is not None:
                    if isinstance(event.config, DictV):
                        # the decorator holds the dict: this call compiles with it as it is now
                        self.record_call(event, list(found))
                    else:
                        event.called.extend(found)
            return UNKNOWN
        if isinstance(func, PassDecoV):
            return args[0] if len(args) == 1 and not kwargs else UNKNOWN
        if isinstance(func, ClassV):
            return self.construct(func, args, kwargs, node)
        return UNKNOWN

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
            init.ev.call_function(init, (inst,) + args, kwargs, node)
            return inst
        if cls.kind in ("dataclass", "namedtuple") and not inst.opaque:
            self.bind_fields(cls, inst, args, kwargs)
            post = cls.lookup("__post_init__")
            if isinstance(post, FuncV):
                post.ev.call_function(post, (inst,), {}, node)
            elif post is not MISSING:
                inst.opaque = True
            return inst
        if init is not MISSING or args or kwargs:
            inst.opaque = True  # a constructor the evaluator does not run
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
        c: Optional[ClassV] = cls
        while c is not None:
            if name in c.factories:
                how, value = c.factories[name]
                if how == "default":
                    return value
                return self.call_value(value, (), {}, None, self.module_frame)  # a new object per instance
            if name in c.attrs:
                return c.attrs[name]
            c = c.bases[0] if len(c.bases) == 1 else None
        return UNKNOWN

    def call_function(self, func: FuncV, args: tuple, kwargs: Dict[str, tuple], node,
                      unknown_args: bool = False):
        fn = func.fn
        if fn.is_prim_func or fn.is_macro or self.depth >= MAX_DEPTH or self.exhausted:
            return UNKNOWN
        self.tick()
        self.executed.add(id(fn))
        locals_ = self.locals_of(fn)
        frame = Frame("function", func.closure, func.closure.module if func.closure else self.module_frame,
                      fn, locals_)
        frame.globals = set(fn.globals)
        frame.call = None if unknown_args else node
        self.bind_params(fn, frame, func.defaults, args, kwargs, unknown_args)
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
                if key is UNKNOWN or not hashable(key):
                    return UNKNOWN
                if key in obj.entries:
                    return obj.entries[key][0]
                return (args[1] if len(args) > 1 else None) if obj.complete else UNKNOWN
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
                if hashable(key) and key is not UNKNOWN and key not in obj.entries and obj.complete:
                    if len(args) > 1:
                        return args[1]
                    raise Abrupt("raise")  # KeyError
                value = obj.entries[key][0] if hashable(key) and key in obj.entries else UNKNOWN
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
            if not seq_known(obj):
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
            havoc(obj)  # anything may have happened to it
            return UNKNOWN
        if kind == "str" and isinstance(obj, str):
            if name in ("upper", "lower", "strip") and not args:
                return getattr(obj, name)()
            if name == "startswith" and len(args) == 1 and isinstance(args[0], str):
                return obj.startswith(args[0])
        return UNKNOWN

