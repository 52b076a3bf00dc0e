"""Answers about names in one file: constant values, config dicts, which
function a call reaches, which prim_funcs an expression produces.

Every answer is bounded (depth, cycles) and says "unknown" rather than guess:
rules stay silent on unknowns.
"""
from __future__ import annotations

import ast
import operator
from typing import Dict, Iterable, List, Optional, Set, Tuple

from .. import constants as C
from .build import Builder, qualname
from .calls import bind_arguments, keyword_arg
from .config import Entry, PassConfig
from .crossmod import Loader
from .evaluate import UNKNOWN, Evaluator, export
from .nodes import Binding, CompileSite, Function, Scope



class _ImportCycle(Exception):
    """Raised inside a cross-module resolution that re-enters a module."""
_MAX_DEPTH = 8
_COMPARE = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}
_BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
}


class Resolver:
    def __init__(self, builder: Builder, loader=None):
        self.b = builder
        self.filename = builder.filename
        self._loader = loader  # crossmod.Loader, created on first cross-module name
        self._produced: Dict[int, Set[Function]] = {}
        # memo of name lookups (a module may rebind a name hundreds of times)
        self._name_configs: Dict[Tuple[int, str], PassConfig] = {}
        self._name_consts: Dict[Tuple[int, str], object] = {}
        self._calls_by_name: Optional[Dict[str, List[Tuple[ast.Call, Scope]]]] = None
        self.module_evaluator = None
        # False for a file with no kernel and no compile site: nothing there needs evaluating
        self.use_evaluator = True

    # -- evaluation --------------------------------------------------------
    def evaluator(self):
        """The module evaluated abstractly (once); None when it ran out of budget."""
        if self.module_evaluator is None:
            self.module_evaluator = Evaluator(self.b, self)
            self.module_evaluator.run()
        ev = self.module_evaluator
        return None if ev.exhausted or ev.running else ev

    def module_value(self, name: str):
        """What a module-level name holds once the module has run (``UNKNOWN``
        if that cannot be told)."""
        ev = self.evaluator() if self.use_evaluator else None
        if ev is None:
            return None
        return ev.final(name)

    # -- other modules ---------------------------------------------------
    @property
    def loader(self):
        if self._loader is None:
            self._loader = Loader(self.filename, analyse=lambda builder, loader: Resolver(builder, loader=loader))
        return self._loader

    def foreign(self, expr: ast.expr, scope: Scope) -> Optional[Tuple["Resolver", ast.Name]]:
        """For a name bound by an import (``CFG`` from ``from .configs import
        CFG``, or ``configs.CFG``): the other module's resolver and a name to
        look up at its top level. None when it is not a module of the user's
        project, or cannot be read."""
        q = qualname(expr, scope)
        if q is None or (isinstance(expr, ast.Name) and self.lookup(expr.id, scope)[0] != "import"):
            return None
        if q.startswith(C.MARKER + ".") or q == C.MARKER:
            return None
        found = self.loader.split(q, self.filename)
        if found is None or len(found[1]) != 1:
            return None
        resolver = self.loader.resolver_for(found[0])
        if resolver is None:
            return None
        return resolver, ast.Name(id=found[1][0], ctx=ast.Load())

    def in_foreign(self, expr: ast.expr, scope: Scope, op, default):
        """``op(resolver, name)`` in the module that binds ``expr``; ``default``
        when it cannot be followed or would re-enter a module already being
        resolved (an import cycle)."""
        other = self.foreign(expr, scope)
        if other is None:
            return default
        resolver, name = other
        stack = self.loader.loading
        if resolver.filename in stack or len(stack) >= _MAX_DEPTH:
            raise _ImportCycle()
        outermost = len(stack) == 1
        stack.append(resolver.filename)
        try:
            return op(resolver, name)
        except _ImportCycle:
            if outermost:
                return default  # the whole cross-module answer is unknown
            raise
        finally:
            stack.pop()

    def owner_of(self, scope: Scope) -> "Resolver":
        """The resolver of the module a scope belongs to."""
        if not scope.filename or scope.filename == self.filename or self._loader is None:
            return self
        return self._loader.resolvers.get(scope.filename) or self

    # -- names -----------------------------------------------------------
    def lookup(self, name: str, scope: Scope, line: Optional[int] = None
               ) -> Tuple[str, Optional[Scope], List[Binding]]:
        """Where ``name`` is bound as seen from ``scope``: ("assign", scope,
        bindings), ("param"/"import"/"function"/"class", scope, []) or
        ("unbound", None, [])."""
        s: Optional[Scope] = scope
        first = True
        while s is not None:
            if s.kind == "class" and not first:
                s = s.parent
                continue
            first = False
            if name in s.params:
                return "param", s, []
            if name in s.imports:
                return "import", s, []
            if name in s.functions:
                return "function", s, []
            if name in s.classes:
                return "class", s, []
            if name in s.assigns:
                if name in s.mutated:
                    return "mutated", s, []
                binds = [b for b in s.assigns[name] if not b.fallback] or s.assigns[name]
                return "assign", s, binds
            s = s.parent
        return "unbound", None, []

    # -- constants -------------------------------------------------------
    def const(self, expr: Optional[ast.expr], scope: Scope, depth: int = 0, bindings=None):
        """The Python value of an expression, or ``UNKNOWN``. ``bindings`` maps
        (id(function), parameter) to (expression, scope): the arguments one
        compile site passes to the function that builds a kernel."""
        if expr is None or depth > _MAX_DEPTH:
            return UNKNOWN
        if isinstance(expr, ast.Constant):
            return expr.value
        if isinstance(expr, (ast.Tuple, ast.List)):
            items = [self.const(e, scope, depth + 1, bindings) for e in expr.elts]
            if any(i is UNKNOWN for i in items):
                return UNKNOWN
            return tuple(items) if isinstance(expr, ast.Tuple) else list(items)
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
            v = self.const(expr.operand, scope, depth + 1, bindings)
            return -v if isinstance(v, (int, float)) and not isinstance(v, bool) else UNKNOWN
        if isinstance(expr, ast.BinOp) and type(expr.op) in _BINOPS:
            a = self.const(expr.left, scope, depth + 1, bindings)
            b = self.const(expr.right, scope, depth + 1, bindings)
            if type(a) is int and type(b) is int:
                try:
                    return _BINOPS[type(expr.op)](a, b)
                except ZeroDivisionError:
                    return UNKNOWN
            return UNKNOWN
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
            v = self.const(expr.operand, scope, depth + 1, bindings)
            return UNKNOWN if v is UNKNOWN else (not v)
        if isinstance(expr, ast.BoolOp):
            values = [self.const(v, scope, depth + 1, bindings) for v in expr.values]
            if any(v is UNKNOWN for v in values):
                return UNKNOWN
            result = values[0]
            for v in values[1:]:
                result = (result and v) if isinstance(expr.op, ast.And) else (result or v)
            return result
        if isinstance(expr, ast.Compare):
            left = self.const(expr.left, scope, depth + 1, bindings)
            for op, right_expr in zip(expr.ops, expr.comparators):
                right = self.const(right_expr, scope, depth + 1, bindings)
                if left is UNKNOWN or right is UNKNOWN or type(op) not in _COMPARE:
                    return UNKNOWN
                try:
                    if not _COMPARE[type(op)](left, right):
                        return False
                except TypeError:
                    return UNKNOWN
                left = right
            return True
        if isinstance(expr, ast.Attribute) or (isinstance(expr, ast.Name)
                                                 and self.lookup(expr.id, scope)[0] == "import"):
            return self.in_foreign(expr, scope, lambda r, n: r.const(n, r.b.module, depth + 1), UNKNOWN)
        if isinstance(expr, ast.Name):
            kind, where, binds = self.lookup(expr.id, scope)
            if kind == "param" and bindings and (id(where), expr.id) in bindings:
                bound, bound_scope = bindings[(id(where), expr.id)]
                return self.const(bound, bound_scope, depth + 1, None)
            if kind in ("assign", "mutated") and where is self.b.module:
                value = self.module_value(expr.id)
                if value is not None:
                    return export(value)
            if kind != "assign" or not binds or where is None:
                return UNKNOWN
            if bindings:  # the memo holds answers without bindings
                values = [self.const(b.value, where, depth + 1, bindings) for b in binds]
                if values[0] is UNKNOWN or any(v is UNKNOWN or v != values[0] for v in values[1:]):
                    return UNKNOWN
                return values[0]
            key = (id(where), expr.id)
            if key not in self._name_consts:
                self._name_consts[key] = UNKNOWN  # cycle guard: X = X + 1
                values = [self.const(b.value, where, depth + 1, bindings) for b in binds]
                first = values[0]
                if first is UNKNOWN or any(v is UNKNOWN or v != first or type(v) is not type(first)
                                           for v in values[1:]):
                    first = UNKNOWN
                self._name_consts[key] = first
            return self._name_consts[key]
        return UNKNOWN

    # -- pass_configs ----------------------------------------------------
    def site_config(self, site: CompileSite) -> PassConfig:
        """The pass_configs a compile site applies."""
        fname = self.filename
        if site.kind == "lower":
            ctx = site.pass_context
            if ctx is None:
                # lower() reads the ambient PassContext, which a caller may have
                # entered anywhere: unknown (TLA053 points this out)
                return PassConfig.unknown()
            expr = keyword_arg(ctx, "config")
            if expr is None and len(ctx.args) >= 5:
                expr = ctx.args[4]
            if expr is None:
                if any(kw.arg is None for kw in ctx.keywords):
                    return PassConfig.unknown()
                return PassConfig(origin=ctx, origin_desc="PassContext", filename=fname)
            return self.config(expr, site.scope).with_origin(expr, "PassContext config", fname)
        call = site.node
        if site.kind == "jit" and not isinstance(call, ast.Call):
            return PassConfig(origin=call, origin_desc="@jit decorator (no pass_configs)", filename=fname)
        assert isinstance(call, ast.Call)
        expr = keyword_arg(call, "pass_configs")
        label = {"jit": "@jit decorator", "jit-call": "tilelang.jit call",
                 "compile": "tilelang.compile call"}[site.kind]
        if expr is None:
            if any(kw.arg is None for kw in call.keywords):
                return PassConfig.unknown()
            return PassConfig(origin=call, origin_desc=label + " (no pass_configs)", filename=fname)
        return self.config(expr, site.scope).with_origin(expr, "pass_configs of the " + label, fname)

    def config(self, expr: ast.expr, scope: Scope, depth: int = 0) -> PassConfig:
        if depth > _MAX_DEPTH:
            return PassConfig.unknown()
        if isinstance(expr, ast.Constant) and expr.value is None:
            return PassConfig(filename=self.filename)
        if isinstance(expr, ast.Dict):
            result = PassConfig(filename=self.filename)
            for key, value in zip(expr.keys, expr.values):
                if key is None:  # {**BASE, ...}
                    result = result.merged(self.config(value, scope, depth + 1))
                    continue
                name = self.config_key(key, scope)
                if name is None:
                    result = result.merged(PassConfig.unknown())
                    continue
                raw = self.const(value, scope)
                result.entries[name] = Entry(name, _as_bool(raw), key, self.filename, value,
                                             None if raw is UNKNOWN else raw, raw is not UNKNOWN)
            return result
        if isinstance(expr, ast.DictComp):
            return self._dict_comp(expr, scope, depth)
        if isinstance(expr, ast.Attribute) or (isinstance(expr, ast.Name)
                                                 and self.lookup(expr.id, scope)[0] == "import"):
            return self.in_foreign(expr, scope, lambda r, n: r.config(n, r.b.module, depth + 1),
                                   PassConfig.unknown())
        if isinstance(expr, ast.Name):
            kind, where, binds = self.lookup(expr.id, scope)
            if kind != "assign" or not binds or where is None:
                return PassConfig.unknown()
            key = (id(where), expr.id)
            if key not in self._name_configs:
                self._name_configs[key] = PassConfig.unknown()  # cycle guard
                configs = [self.config(b.value, where, depth + 1) if b.value is not None
                           else PassConfig.unknown() for b in binds]
                result = configs[0]
                for other in configs[1:]:
                    result = result.joined(other)
                self._name_configs[key] = result
            return self._name_configs[key]
        if isinstance(expr, ast.IfExp):
            return self.config(expr.body, scope, depth + 1).joined(self.config(expr.orelse, scope, depth + 1))
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):
            return self.config(expr.left, scope, depth + 1).merged(self.config(expr.right, scope, depth + 1))
        if isinstance(expr, ast.Call):
            func = expr.func
            # dict(BASE, **{...}) / dict() / BASE.copy()
            if isinstance(func, ast.Name) and func.id == "dict" and self.lookup("dict", scope)[0] == "unbound":
                result = PassConfig(filename=self.filename)
                for arg in expr.args:
                    result = result.merged(self.config(arg, scope, depth + 1))
                for kw in expr.keywords:
                    if kw.arg is None:
                        result = result.merged(self.config(kw.value, scope, depth + 1))
                    else:
                        result = result.merged(PassConfig.unknown())
                return result
            if isinstance(func, ast.Attribute) and func.attr == "copy" and not expr.args:
                return self.config(func.value, scope, depth + 1)
        return PassConfig.unknown()

    def _dict_comp(self, expr: ast.DictComp, scope: Scope, depth: int) -> PassConfig:
        if len(expr.generators) != 1:
            return PassConfig.unknown()
        gen = expr.generators[0]
        if gen.ifs or gen.is_async or not isinstance(gen.target, ast.Name):
            return PassConfig.unknown()
        names = self.const(gen.iter, scope, depth + 1)
        if names is UNKNOWN or not isinstance(names, (list, tuple)) or \
                not all(isinstance(n, str) for n in names):
            return PassConfig.unknown()
        var = gen.target.id
        raw = self.const(expr.value, scope)
        value = _as_bool(raw)
        result = PassConfig(filename=self.filename)
        for item in names:
            key = self._comp_key(expr.key, var, item, scope)
            if key is None:
                return PassConfig.unknown()
            result.entries[key] = Entry(key, value, expr, self.filename, expr.value,
                                        None if raw is UNKNOWN else raw, raw is not UNKNOWN)
        return result

    def _comp_key(self, key: ast.expr, var: str, item: str, scope: Scope) -> Optional[str]:
        if isinstance(key, ast.Name) and key.id == var:
            return item
        if (isinstance(key, ast.Call) and isinstance(key.func, ast.Name) and key.func.id == "getattr"
                and len(key.args) >= 2 and isinstance(key.args[1], ast.Name) and key.args[1].id == var
                and qualname(key.args[0], scope) in C.PASS_CONFIG_KEY_CLASSES):
            return C.PASS_CONFIG_ENUM.get(item, "PassConfigKey." + item)
        return None

    def config_key(self, key: ast.expr, scope: Scope, depth: int = 0) -> Optional[str]:
        """The string key a dict key expression names, or None if unknown.
        A non-existent enum member comes back as ``PassConfigKey.<NAME>``."""
        if isinstance(key, ast.Attribute) and key.attr == "value":
            key = key.value
        if isinstance(key, ast.Attribute):
            owner = qualname(key.value, scope)
            if owner in C.PASS_CONFIG_KEY_CLASSES:
                return C.PASS_CONFIG_ENUM.get(key.attr, "PassConfigKey." + key.attr)
            return None
        if (isinstance(key, ast.Call) and isinstance(key.func, ast.Name) and key.func.id == "getattr"
                and len(key.args) >= 2 and qualname(key.args[0], scope) in C.PASS_CONFIG_KEY_CLASSES):
            member = self.const(key.args[1], scope)
            if isinstance(member, str):
                return C.PASS_CONFIG_ENUM.get(member, "PassConfigKey." + member)
            return None
        if isinstance(key, ast.Name) and depth < _MAX_DEPTH:
            # AUTO_SYNC = tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC; {AUTO_SYNC: True}
            kind, where, binds = self.lookup(key.id, scope)
            if kind == "import":
                return self.in_foreign(key, scope, lambda r, n: r.config_key(n, r.b.module, depth + 1), None)
            if kind == "assign" and where is not None and binds:
                names = {self.config_key(b.value, where, depth + 1) if b.value is not None else None
                         for b in binds}
                return names.pop() if len(names) == 1 else None
        value = self.const(key, scope)
        return value if isinstance(value, str) else None

    # -- functions and kernels --------------------------------------------
    def functions_for(self, func: ast.expr, scope: Scope, depth: int = 0) -> List[Function]:
        """Same-file functions a callee expression can reach."""
        if isinstance(func, ast.Name):
            kind, where, binds = self.lookup(func.id, scope)
            if kind == "function" and where is not None:
                return list(where.functions[func.id])
            if kind == "import" and depth < _MAX_DEPTH:
                return self.in_foreign(func, scope, lambda r, n: r.functions_for(n, r.b.module, depth + 1), [])
            return []
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            cls = self._class_of(func.value.id, scope)
            if cls is not None:
                return list(cls.functions.get(func.attr, []))
            if self.lookup(func.value.id, scope)[0] == "import" and depth < _MAX_DEPTH:
                return self.in_foreign(func, scope, lambda r, n: r.functions_for(n, r.b.module, depth + 1), [])
        return []

    def _class_of(self, name: str, scope: Scope) -> Optional[Scope]:
        if name in ("self", "cls"):
            s: Optional[Scope] = scope
            while s is not None:
                if isinstance(s, Function) and s.cls is not None:
                    return s.cls
                s = s.parent
            return None
        kind, where, _ = self.lookup(name, scope)
        if kind == "class" and where is not None:
            return where.classes[name]
        return None

    def produced(self, fn: Function, depth: int = 0) -> Set[Function]:
        """prim_funcs a factory/builder returns: those defined inside it, and
        those of undecorated builders it returns a call of."""
        key = id(fn)
        if key in self._produced:
            return self._produced[key]
        self._produced[key] = set()  # cycle guard
        result: Set[Function] = set()
        if fn.is_prim_func:
            result.add(fn)
        else:
            stack = list(fn.children)
            while stack:
                child = stack.pop()
                if child.jit is not None:
                    continue  # a nested factory with its own compile site
                if child.is_prim_func:
                    result.add(child)
                else:
                    stack.extend(child.children)
            if depth < _MAX_DEPTH:
                for value in fn.returns:
                    result |= self.kernels_of(value, fn, depth + 1)
        self._produced[key] = result
        return result

    def kernels_of(self, expr: Optional[ast.expr], scope: Scope, depth: int = 0,
                   before_line: Optional[int] = None) -> Set[Function]:
        """prim_funcs an expression evaluates to (or, for a factory passed to
        jit, produces)."""
        if expr is None or depth > _MAX_DEPTH:
            return set()
        if isinstance(expr, ast.Call):
            result: Set[Function] = set()
            for fn in self.functions_for(expr.func, scope):
                if fn.jit is None and not fn.is_macro:
                    result |= self.produced(fn, depth + 1)
            return result
        if isinstance(expr, ast.Attribute):
            result = set()
            for fn in self.functions_for(expr, scope):
                result |= self.produced(fn, depth + 1)
            return result
        if not isinstance(expr, ast.Name):
            return set()
        kind, where, binds = self.lookup(expr.id, scope)
        if kind == "function" and where is not None:
            result = set()
            for fn in where.functions[expr.id]:
                result |= self.produced(fn, depth + 1)
            return result
        if kind == "assign" and where is not None:
            chosen = binds
            if before_line is not None and where is scope:
                earlier = [b for b in binds if b.line < before_line]
                chosen = earlier[-1:] or binds
            result = set()
            for b in chosen:
                result |= self.kernels_of(b.value, where, depth + 1)
            if not result and before_line is not None and where is scope:
                for b in binds:
                    result |= self.kernels_of(b.value, where, depth + 1)
            return result
        if kind == "param" and isinstance(where, Function):
            return self._through_param(where, expr.id, depth + 1)
        return set()

    def _through_param(self, fn: Function, param: str, depth: int) -> Set[Function]:
        """A helper's parameter: what its callers in this file pass in."""
        args = fn.node.args  # type: ignore[attr-defined]
        first = (list(args.posonlyargs) + list(args.args))[:1]
        skip_self = fn.cls is not None and bool(first) and first[0].arg in ("self", "cls")
        result: Set[Function] = set()
        for call, caller in self.calls_to(fn):
            arg = bind_arguments(fn.node, call, skip_self).get(param)
            result |= self.kernels_of(arg, caller, depth, before_line=call.lineno)
        return result

    def calls_to(self, fn: Function) -> Iterable[Tuple[ast.Call, Scope]]:
        if self._calls_by_name is None:
            index: Dict[str, List[Tuple[ast.Call, Scope]]] = {}
            scopes: List[Scope] = [self.b.module] + list(self.b.functions)
            scopes += _classes(self.b.module, self.b.functions)
            for scope in scopes:
                for call in scope.local_calls:
                    f = call.func
                    name = f.id if isinstance(f, ast.Name) else f.attr  # type: ignore[union-attr]
                    index.setdefault(name, []).append((call, scope))
            self._calls_by_name = index
        for call, scope in self._calls_by_name.get(fn.name, []):
            if fn in self.functions_for(call.func, scope):
                yield call, scope


def _as_bool(value: object) -> Optional[bool]:
    if isinstance(value, bool):
        return value
    if type(value) is int and value in (0, 1):
        return bool(value)
    return None


def _classes(module: Scope, functions: List[Function]) -> List[Scope]:
    out: List[Scope] = []
    stack = [module] + list(functions)
    seen = set()
    while stack:
        s = stack.pop()
        for cls in s.classes.values():
            if id(cls) not in seen:
                seen.add(id(cls))
                out.append(cls)
                stack.append(cls)
    return out


