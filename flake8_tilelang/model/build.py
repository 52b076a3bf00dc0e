"""One walk over a module: scopes, imports, bindings, TileLang calls, launches,
scopes and compile sites. Statements are visited recursively (bounded by the
nesting of blocks); expressions iteratively, so deep expressions cannot
overflow the stack here.
"""
from __future__ import annotations

import ast
from typing import Dict, List, Optional

from .. import constants as C
from .calls import argument
from .nodes import STORE, Binding, CompileSite, Function, Launch, Scope, Use

_MUTATORS = frozenset({"update", "setdefault", "pop", "popitem", "clear", "__setitem__"})
_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError"})


class _Ctx:
    """Where the walk is: scope, innermost T.Scope / T.Kernel / PassContext /
    T.Parallel / T.Pipelined, Python-level `if` tests, `except ImportError`."""

    __slots__ = ("scope", "tscope", "launch", "pass_context", "fallback", "parallel", "conds", "pipelined")

    def __init__(self, scope: Scope, tscope: Optional[str] = None, launch: Optional[Launch] = None,
                 pass_context: Optional[ast.Call] = None, fallback: bool = False,
                 parallel: Optional[Use] = None, conds: tuple = (), pipelined: Optional[Use] = None):
        self.scope = scope
        self.tscope = tscope  # innermost T.Scope kind
        self.launch = launch
        self.pass_context = pass_context
        self.fallback = fallback  # inside ``except ImportError``
        self.parallel = parallel  # innermost enclosing T.Parallel loop
        self.conds = conds  # Python-level `if` tests around this point (see Use.conds)
        self.pipelined = pipelined  # innermost enclosing T.Pipelined loop

    def but(self, **changes) -> "_Ctx":
        """A copy with some fields changed (contexts are never mutated)."""
        new = _Ctx.__new__(_Ctx)
        for name in _Ctx.__slots__:
            setattr(new, name, changes[name] if name in changes else getattr(self, name))
        return new


_LANGUAGE_DOT = C.LANGUAGE + "."
_PRIMS: Dict[str, Optional[str]] = {}  # qualname -> canonical_prim(qualname): a pure function, asked per call


def canonical_prim(qualname: Optional[str]) -> Optional[str]:
    """``tilelang.language.ascend.barrier_all`` -> ``barrier_all``;
    ``tilelang.language.tile.exp`` -> ``tile.exp``; anything else -> None."""
    if not qualname or not qualname.startswith(_LANGUAGE_DOT):
        return None
    found = _PRIMS.get(qualname)
    if found is not None:
        return found
    parts = qualname[len(_LANGUAGE_DOT):].split(".")
    if len(parts) > 1 and parts[0] in C.TILE_MODULES:
        parts[0] = "tile"
    elif len(parts) > 1 and parts[0] in C.LANGUAGE_SUBMODULES:
        parts = parts[1:]
    found = ".".join(parts)
    if len(_PRIMS) > 4096:  # bounded: names come from the files read
        _PRIMS.clear()
    _PRIMS[qualname] = found
    return found


def qualname(expr: ast.expr, scope: Scope) -> Optional[str]:
    """The dotted name an expression refers to through the file's imports,
    e.g. ``T.tile.exp`` -> ``tilelang.language.tile.exp``; None when the root
    name is not an import (a local, a parameter, an unknown)."""
    if type(expr) is ast.Name:
        return lookup_import(expr.id, scope)  # type: ignore[attr-defined]
    parts: List[str] = []
    while type(expr) is ast.Attribute:
        parts.append(expr.attr)  # type: ignore[attr-defined]
        expr = expr.value  # type: ignore[attr-defined]
    if type(expr) is not ast.Name:
        return None
    base = lookup_import(expr.id, scope)  # type: ignore[attr-defined]
    if base is None:
        return None
    if len(parts) == 1:
        return base + "." + parts[0]
    parts.reverse()
    return base + "." + ".".join(parts)


def lookup_import(name: str, scope: Optional[Scope], depth: int = 0) -> Optional[str]:
    """The dotted name a bare name stands for: an import (`import tilelang as
    tl`), or a plain alias of one assigned once in its scope (`jit =
    tilelang.jit`, `PCK = tilelang.PassConfigKey`); None otherwise."""
    first = True
    while scope is not None:
        if scope.kind == "class" and not first:
            scope = scope.parent
            continue
        first = False
        if name in scope.params:
            return None
        if name in scope.imports:
            return scope.imports[name]
        if name in scope.assigns:
            binds = scope.assigns[name]
            value = binds[0].value if len(binds) == 1 else None
            if depth < 4 and isinstance(value, (ast.Name, ast.Attribute)) and name not in scope.mutated:
                return _alias(value, scope, depth + 1)
            return None
        if name in scope.functions:
            return None  # shadowed by a local definition
        scope = scope.parent
    return None


def _alias(expr: ast.expr, scope: Scope, depth: int) -> Optional[str]:
    parts: List[str] = []
    while type(expr) is ast.Attribute:
        parts.append(expr.attr)  # type: ignore[attr-defined]
        expr = expr.value  # type: ignore[attr-defined]
    if type(expr) is not ast.Name:
        return None
    base = lookup_import(expr.id, scope, depth)  # type: ignore[attr-defined]
    if base is None:
        return None
    parts.reverse()
    return ".".join([base] + parts)


class Builder:
    def __init__(self, tree: ast.Module, filename: str):
        self.tree = tree
        self.filename = filename
        self.module = Scope("module", tree, "<module>", None, filename=filename)
        self.functions: List[Function] = []
        self.sites: List[CompileSite] = []
        self.uses_by_call: Dict[int, Use] = {}
        self.imports_tilelang = False
        # every `PassConfigKey.<NAME>` written in the file: (node, NAME, scope)
        self.config_key_refs: List[tuple] = []
        # module-level helpers returning `T.Scope(...)`: name -> (def, the returned call)
        self.scope_helpers: Dict[str, tuple] = {}
        # some `from x import *` (anywhere): any free name may be bound by it
        self.star_imports = False
        self.has_walrus = False  # a `:=` anywhere (the evaluator joins frame names only then)

    # -- entry -----------------------------------------------------------
    def build(self) -> "Builder":
        self._prescan_imports(self.tree.body)
        self._prescan_scope_helpers()
        ctx = _Ctx(self.module)
        self._block(self.tree.body, ctx)
        return self

    def _prescan_imports(self, body: List[ast.stmt], fallback: bool = False) -> None:
        """Module-level imports, also inside module-level try/if/with, so a
        function defined above an import still resolves its names."""
        for stmt in body:
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                self._import(stmt, self.module, fallback)
            elif isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
                self._prescan_imports(stmt.body, fallback)
                for handler in stmt.handlers:  # type: ignore[attr-defined]
                    self._prescan_imports(handler.body, fallback or _catches_import_error(handler))
                self._prescan_imports(stmt.orelse, fallback)  # type: ignore[attr-defined]
                self._prescan_imports(stmt.finalbody, fallback)  # type: ignore[attr-defined]
            elif isinstance(stmt, ast.If):
                self._prescan_imports(stmt.body, fallback)
                self._prescan_imports(stmt.orelse, fallback)
            elif isinstance(stmt, ast.With):
                self._prescan_imports(stmt.body, fallback)

    def _prescan_scope_helpers(self) -> None:
        """Plain module-level functions whose value is a ``T.Scope(...)``
        (`def vector_side(): return T.Scope("V")`): `with vector_side():` in a
        kernel opens that scope while TVMScript parses it."""
        for stmt in self.tree.body:
            if not isinstance(stmt, ast.FunctionDef) or stmt.decorator_list:
                continue
            body = [s for s in stmt.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
            if len(body) == 1 and isinstance(body[0], ast.Return) and isinstance(body[0].value, ast.Call) and \
                    canonical_prim(qualname(body[0].value.func, self.module)) == "Scope":
                self.scope_helpers[stmt.name] = (stmt, body[0].value)

    def _helper_scope(self, call: ast.Call, scope: Scope) -> Optional[str]:
        """The scope a `with helper(...):` opens, when ``helper`` is a scope helper."""
        func = call.func
        if not isinstance(func, ast.Name) or func.id not in self.scope_helpers:
            return None
        s: Optional[Scope] = scope
        while s is not None and s is not self.module:
            if func.id in s.params or func.id in s.assigns or func.id in s.functions:
                return None  # shadowed
            s = s.parent
        if func.id in self.module.assigns or func.id in self.module.imports or \
                len(self.module.functions.get(func.id, ())) > 1:
            return None
        helper, returned = self.scope_helpers[func.id]
        kind = _scope_kind(returned)
        arg = argument(returned, 0, "name")
        if kind == "?" and isinstance(arg, ast.Name):
            from .calls import bind_arguments, parameter_default

            passed = bind_arguments(helper, call).get(arg.id)
            if passed is None:
                passed = parameter_default(helper, arg.id)
            if isinstance(passed, ast.Constant) and isinstance(passed.value, str):
                kind = passed.value
        return kind

    # -- statements ------------------------------------------------------
    def _block(self, stmts: List[ast.stmt], ctx: _Ctx) -> None:
        for stmt in stmts:
            self._stmt(stmt, ctx)

    def _stmt(self, node: ast.stmt, ctx: _Ctx) -> None:
        t = type(node)
        if t is ast.Expr:  # the most common statement in a kernel: a call
            value = node.value  # type: ignore[attr-defined]
            if type(value) is ast.Call and isinstance(ctx.scope, Function) and \
                    (ctx.scope.is_prim_func or ctx.scope.is_macro):
                ctx.scope.stmt_calls.add(id(value))
            self._expr(value, ctx)
            return
        if t is ast.Assign:  # the next most common
            self._expr(node.value, ctx)  # type: ignore[attr-defined]
            for target in node.targets:  # type: ignore[attr-defined]
                self._bind(target, node.value, ctx)  # type: ignore[attr-defined]
            self._record_alloc(node.targets, node.value, ctx)  # type: ignore[attr-defined]
            return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self._function(node, ctx)
        elif isinstance(node, ast.ClassDef):
            self._class(node, ctx)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            self._import(node, ctx.scope, ctx.fallback)
        elif isinstance(node, ast.AnnAssign):
            if node.value is not None:
                self._expr(node.value, ctx)
                self._bind(node.target, node.value, ctx)
                self._record_alloc([node.target], node.value, ctx)
        elif isinstance(node, ast.AugAssign):
            self._expr(node.value, ctx)
            self._bind(node.target, None, ctx)
            if isinstance(node.target, ast.Name):
                self._mutate(node.target.id, ctx.scope)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self._expr(node.iter, ctx)
            self._bind(node.target, None, ctx)
            use = self.uses_by_call.get(id(node.iter))
            body_ctx = ctx
            if use is not None and use.prim == "Parallel":
                body_ctx = ctx.but(parallel=use)
            elif use is not None and use.prim == "Pipelined":
                body_ctx = ctx.but(pipelined=use)
            self._block(node.body, body_ctx)
            self._block(node.orelse, ctx)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            self._with(node, ctx)
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            self._block(node.body, ctx)  # type: ignore[attr-defined]
            for handler in node.handlers:  # type: ignore[attr-defined]
                if handler.name:
                    self._bind_name(handler.name, None, handler.lineno, ctx)
                hctx = ctx.but(fallback=True) if _catches_import_error(handler) else ctx
                self._block(handler.body, hctx)
            self._block(node.orelse, ctx)  # type: ignore[attr-defined]
            self._block(node.finalbody, ctx)  # type: ignore[attr-defined]
        elif isinstance(node, ast.If) and isinstance(ctx.scope, Function) and \
                (ctx.scope.is_prim_func or ctx.scope.is_macro) and self._python_level(node.test, ctx):
            self._expr(node.test, ctx)
            self._block(node.body, ctx.but(conds=ctx.conds + ((node.test, True, ctx.scope),)))
            self._block(node.orelse, ctx.but(conds=ctx.conds + ((node.test, False, ctx.scope),)))
        elif t is ast.If or t is ast.While:
            self._expr(node.test, ctx)  # type: ignore[attr-defined]
            self._block(node.body, ctx)  # type: ignore[attr-defined]
            self._block(node.orelse, ctx)  # type: ignore[attr-defined]
        elif isinstance(node, ast.Return):
            if node.value is not None:
                self._expr(node.value, ctx)
                ctx.scope.returns.append(node.value)
        elif isinstance(node, ast.Global):
            ctx.scope.globals.update(node.names)
        elif isinstance(node, ast.Nonlocal):
            ctx.scope.nonlocals.update(node.names)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                self._expr(target, ctx)
                if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                    self._mutate(target.value.id, ctx.scope)
        else:
            self._generic(node, ctx)

    def _generic(self, node: ast.AST, ctx: _Ctx) -> None:
        for _, value in ast.iter_fields(node):
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.stmt):
                        self._stmt(item, ctx)
                    elif isinstance(item, ast.expr):
                        self._expr(item, ctx)
                    elif isinstance(item, ast.AST):  # match_case, etc.
                        self._generic(item, ctx)
            elif isinstance(value, ast.expr):
                self._expr(value, ctx)
            elif isinstance(value, ast.AST):
                self._generic(value, ctx)

    def _python_level(self, test: ast.expr, ctx: _Ctx, depth: int = 0) -> bool:
        """An `if` in a kernel whose test uses only names from outside the
        kernel (builder parameters, constants) and no TileLang call: TVMScript
        evaluates it while parsing, so only one branch becomes kernel code.
        In a ``@T.macro``, a parameter the macro never rebinds counts as such
        a name too (``if manual:``): the call's argument decides, a Python
        value at parse time (``model.settle_use`` reads it at each call)."""
        fn = ctx.scope
        passed = fn.params - set(fn.assigns) if fn.is_macro else ()  # type: ignore[attr-defined]
        for node in ast.walk(test):
            if isinstance(node, ast.Call):
                # `cfg.get(KEY)`, `use_sync(cfg)`: a Python call, unless of TileLang/TVM
                # or of something the kernel binds
                root = node.func
                while isinstance(root, (ast.Subscript, ast.Attribute)):
                    root = root.value
                if not isinstance(root, ast.Name) or root.id in fn.bound:  # type: ignore[attr-defined]
                    return False
                q = qualname(root, ctx.scope)
                if q is not None and q.split(".")[0] in ("tilelang", "tvm"):
                    return False
            elif isinstance(node, ast.Name):
                if node.id in fn.bound and node.id not in passed and \
                        not self._python_local(node.id, ctx, depth):  # type: ignore[attr-defined]
                    return False
            elif isinstance(node, (ast.Subscript, ast.Attribute)):
                # `Mode.EXPERT`, `cfg["mode"]`, `self.expert`: Python values, unless rooted in
                # a kernel name (a buffer, a TIR variable) or in TileLang/TVM itself
                root = node.value
                while isinstance(root, (ast.Subscript, ast.Attribute)):
                    root = root.value
                if not isinstance(root, ast.Name) or root.id in fn.bound:  # type: ignore[attr-defined]
                    return False
                q = qualname(root, ctx.scope)
                if q is not None and q.split(".")[0] in ("tilelang", "tvm") and \
                        not _names_config_key(node, ctx.scope):
                    return False
            elif isinstance(node, (ast.Lambda, ast.NamedExpr)):
                return False
        # a literal test (`if False:`) is a Python bool too: the parser visits one side
        return True

    def _python_local(self, name: str, ctx: _Ctx, depth: int) -> bool:
        """A name the kernel (or macro) binds once, by ``name = <Python-level
        expression>`` (``use_sync = manual``): TVMScript binds the Python value
        itself, so a test on it is Python-level too."""
        fn = ctx.scope
        binds = fn.assigns.get(name)
        if depth >= 4 or not binds or len(binds) != 1 or binds[0].value is None or name in fn.params \
                or name in fn.mutated:
            return False
        return self._python_level(binds[0].value, ctx, depth + 1)

    def _function(self, node, ctx: _Ctx) -> None:
        outer = ctx.scope
        for dec in node.decorator_list:
            self._expr(dec, ctx)
        args = node.args
        for default in list(args.defaults) + [d for d in args.kw_defaults if d is not None]:
            self._expr(default, ctx)
        fn = Function(
            "function", node, node.name, outer,
            cls=outer if outer.kind == "class" else None, filename=self.filename,
        )
        self.functions.append(fn)
        outer.functions.setdefault(node.name, []).append(fn)
        outer.children.append(fn)
        if outer.kind == "function":
            outer.bound.add(node.name)  # type: ignore[attr-defined]
        all_args = list(args.posonlyargs) + list(args.args) + list(args.kwonlyargs)
        all_args += [a for a in (args.vararg, args.kwarg) if a is not None]
        fn.params = {a.arg for a in all_args}
        fn.bound = set(fn.params)
        for dec in node.decorator_list:
            func = dec.func if isinstance(dec, ast.Call) else dec
            q = qualname(func, outer)
            if q is None:
                continue
            prim = canonical_prim(q)
            if prim == "prim_func":
                fn.is_prim_func = True
            elif prim == "macro":
                fn.is_macro = True
            elif q in C.JIT_NAMES:
                fn.jit = dec
                self.sites.append(CompileSite("jit", dec, outer, function=fn))
        self._block(node.body, _Ctx(fn))

    def _class(self, node: ast.ClassDef, ctx: _Ctx) -> None:
        for expr in list(node.decorator_list) + list(node.bases) + [k.value for k in node.keywords]:
            self._expr(expr, ctx)
        cls = Scope("class", node, node.name, ctx.scope, filename=self.filename)
        ctx.scope.classes[node.name] = cls
        self._bind_name(node.name, None, node.lineno, ctx)
        self._block(node.body, _Ctx(cls, fallback=ctx.fallback))

    def _import(self, node, scope: Scope, fallback: bool) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    self._add_import(scope, alias.asname, alias.name, fallback)
                else:
                    root = alias.name.split(".")[0]
                    self._add_import(scope, root, root, fallback)
                if alias.name.split(".")[0] == C.MARKER:
                    self.imports_tilelang = True
        else:
            module = "." * (node.level or 0) + (node.module or "")
            if not node.level and module.split(".")[0] == C.MARKER:
                self.imports_tilelang = True
            for alias in node.names:
                if alias.name == "*":
                    self.star_imports = True
                    continue
                sep = "" if module.endswith(".") else "."
                self._add_import(scope, alias.asname or alias.name, module + sep + alias.name, fallback)

    @staticmethod
    def _add_import(scope: Scope, name: str, target: str, fallback: bool) -> None:
        if name in scope.imports and scope.imports[name] != target:
            if fallback:
                return  # the try branch is the one that runs with tilelang installed
            if name in scope.fallback_imports:
                scope.fallback_imports.discard(name)
            else:
                target = None  # type: ignore[assignment]  # two different imports: ambiguous
        elif fallback and name not in scope.imports:
            scope.fallback_imports.add(name)
        scope.imports[name] = target

    def _with(self, node, ctx: _Ctx) -> None:
        inner = ctx
        for item in node.items:
            expr = item.context_expr
            self._expr(expr, ctx)
            if isinstance(expr, ast.Call):
                use = self.uses_by_call.get(id(expr))
                if use is not None:
                    use.with_stmt = node
                    if use.prim == "Kernel" and isinstance(ctx.scope, Function):
                        launch = Launch(node, expr, item.optional_vars, ctx.scope)
                        ctx.scope.launches.append(launch)
                        inner = inner.but(launch=launch)
                    elif use.prim == "Scope":
                        use.scope_name = _scope_kind(expr)
                        first = node.body[0] if node.body else None
                        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Call):
                            use.first_call = first.value
                        inner = inner.but(tscope=use.scope_name)
                elif qualname(expr.func, ctx.scope) in C.PASS_CONTEXT_NAMES:
                    inner = inner.but(pass_context=expr)
                elif isinstance(ctx.scope, Function) and (ctx.scope.is_prim_func or ctx.scope.is_macro):
                    kind = self._helper_scope(expr, ctx.scope)
                    if kind is not None:
                        # `with vector_side():` where the helper returns T.Scope("V")
                        use = Use("Scope", expr, ctx.scope, ctx.tscope, in_parallel=ctx.parallel is not None,
                                  conds=ctx.conds, pipelined=ctx.pipelined)
                        ctx.scope.uses.append(use)
                        self.uses_by_call[id(expr)] = use
                        use.with_stmt = node
                        use.scope_name = kind
                        first = node.body[0] if node.body else None
                        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Call):
                            use.first_call = first.value
                        inner = inner.but(tscope=kind)
                    elif _may_open_scope(expr, ctx.scope):
                        # `with getattr(T, "Scope")("V")`, `with VectorScope()` (a partial),
                        # another module's helper: a scope may open here, which one is unknown
                        inner = inner.but(tscope="?")
            elif isinstance(expr, ast.Name):
                # ctx = PassContext(config=...); with ctx: ...
                binds = ctx.scope.assigns.get(expr.id, [])
                value = binds[-1].value if binds else None
                if isinstance(value, ast.Call) and qualname(value.func, ctx.scope) in C.PASS_CONTEXT_NAMES:
                    inner = inner.but(pass_context=value)
                elif isinstance(ctx.scope, Function) and (ctx.scope.is_prim_func or ctx.scope.is_macro):
                    # `cube = T.Scope("C")` ... `with cube:`: that scope; any other object
                    # entered in a kernel may open one (which one is not told)
                    if len(binds) == 1 and isinstance(value, ast.Call) and \
                            canonical_prim(qualname(value.func, ctx.scope)) == "Scope":
                        inner = inner.but(tscope=_scope_kind(value))
                    else:
                        inner = inner.but(tscope="?")
            if item.optional_vars is not None:
                self._bind(item.optional_vars, None, ctx)
        self._block(node.body, inner)

    # -- bindings --------------------------------------------------------
    def _bind(self, target: ast.expr, value: Optional[ast.expr], ctx: _Ctx) -> None:
        if isinstance(target, ast.Name):
            self._bind_name(target.id, value, target.lineno, ctx)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:
                self._bind(elt, None, ctx)
        elif isinstance(target, ast.Starred):
            self._bind(target.value, None, ctx)
        elif isinstance(target, (ast.Subscript, ast.Attribute)):
            self._expr(target, ctx)
            base = target.value
            if isinstance(target, ast.Subscript) and isinstance(base, ast.Name):
                self._mutate(base.id, ctx.scope)
                if isinstance(ctx.scope, Function) and (ctx.scope.is_prim_func or ctx.scope.is_macro):
                    ctx.scope.uses.append(Use(STORE, target, ctx.scope, ctx.tscope,
                                              in_parallel=ctx.parallel is not None, conds=ctx.conds,
                                              pipelined=ctx.pipelined))
                    if ctx.parallel is not None:
                        ctx.parallel.stores.add(base.id)

    def _record_alloc(self, targets: List[ast.expr], value: ast.expr, ctx: _Ctx) -> None:
        use = self.uses_by_call.get(id(value))
        if use is None or not use.prim.startswith("alloc_") or not isinstance(ctx.scope, Function):
            return
        for target in targets:
            if isinstance(target, ast.Name):
                ctx.scope.allocs[target.id] = use.prim
                ctx.scope.alloc_calls[target.id] = value  # type: ignore[assignment]

    def _bind_name(self, name: str, value: Optional[ast.expr], line: int, ctx: _Ctx) -> None:
        scope = ctx.scope
        if name in scope.globals:
            scope = self.module
        elif name in scope.nonlocals:
            scope = _nonlocal_home(scope, name)
        scope.assigns.setdefault(name, []).append(Binding(value, line, ctx.fallback))
        if isinstance(ctx.scope, Function):
            ctx.scope.bound.add(name)

    def _mutate(self, name: str, scope: Scope) -> None:
        s: Optional[Scope] = scope
        while s is not None:
            if name in s.assigns or name in s.params:
                s.mutated.add(name)
                return
            s = s.parent
        scope.mutated.add(name)

    # -- expressions -----------------------------------------------------
    def _expr(self, root: ast.expr, ctx: _Ctx) -> None:
        """Visit an expression tree iteratively, in source order (pre-order,
        left to right). This is the hot loop of the checker: it dispatches on
        the exact node type and reads child fields from a per-type table."""
        fn = ctx.scope if isinstance(ctx.scope, Function) else None
        stack: List[ast.AST] = [root]
        pop = stack.pop
        push = stack.append
        Call, Name, Attribute, arg, Load, Constant = ast.Call, ast.Name, ast.Attribute, ast.arg, ast.Load, ast.Constant
        BinOp, Yield, YieldFrom, NamedExpr = ast.BinOp, ast.Yield, ast.YieldFrom, ast.NamedExpr
        while stack:
            node = pop()
            t = type(node)
            if t is Name:
                if fn is not None:
                    if type(node.ctx) is Load:
                        fn.loaded.add(node.id)
                        if node.id == "vid":
                            fn.vid_loads.append((node, ctx.launch))
                    else:
                        fn.bound.add(node.id)
                continue  # a Name has no children worth visiting
            if t is Call:
                self._call(node, ctx)
            elif t is Attribute:
                attr = node.attr
                if attr.isupper() and attr[:1].isalpha():
                    if qualname(node.value, ctx.scope) in C.PASS_CONFIG_KEY_CLASSES:
                        self.config_key_refs.append((node, attr, ctx.scope))
                value = node.value  # its one child field, as the generic loop below would push it
                tv = type(value)
                if tv is not Constant and not (tv is Name and fn is None):
                    push(value)
                continue
            elif t is BinOp:
                for value in (node.right, node.left):  # pushed last first: popped left first
                    tv = type(value)
                    if tv is not Constant and not (tv is Name and fn is None):
                        push(value)
                continue
            elif t is arg:
                if fn is not None:
                    fn.bound.add(node.arg)
            elif (t is Yield or t is YieldFrom) and fn is not None:
                fn.generator = True
            elif t is NamedExpr:
                self.has_walrus = True
            fields = _CHILD_FIELDS_REVERSED.get(t)
            if fields is None:
                fields = _child_fields(t)[::-1]
                _CHILD_FIELDS_REVERSED[t] = fields
            for name in fields:  # last field first: the stack pops them in source order
                value = getattr(node, name, None)
                tv = type(value)
                if value is None or tv is Constant or (tv is Name and fn is None):
                    continue  # nothing to visit (a Name outside functions records nothing)
                if tv is list:
                    for item in reversed(value):
                        ti = type(item)
                        if item is not None and ti is not Constant and not (ti is Name and fn is None) \
                                and not isinstance(item, (str, int)):
                            push(item)
                else:
                    push(value)

    def _call(self, call: ast.Call, ctx: _Ctx) -> None:
        scope = ctx.scope
        func = call.func
        q = qualname(func, scope)
        prim = canonical_prim(q)
        if prim is not None:
            use = Use(prim, call, scope, ctx.tscope, in_parallel=ctx.parallel is not None, conds=ctx.conds,
                      pipelined=ctx.pipelined)
            scope.uses.append(use)
            self.uses_by_call[id(call)] = use
            return
        if q in C.COMPILE_NAMES:
            self.sites.append(CompileSite("compile", call, scope, target=argument(call, 0, "func")))
        elif q in C.LOWER_NAMES:
            self.sites.append(CompileSite("lower", call, scope, target=argument(call, 0, "func"),
                                          pass_context=ctx.pass_context))
        elif q in C.JIT_NAMES and call.args:
            # tilelang.jit(factory, pass_configs=...)
            self.sites.append(CompileSite("jit-call", call, scope, target=call.args[0]))
        elif isinstance(func, ast.Call) and call.args and qualname(func.func, scope) in C.JIT_NAMES:
            # tilelang.jit(pass_configs=...)(factory)
            self.sites.append(CompileSite("jit-call", func, scope, target=call.args[0]))
        elif isinstance(func, ast.Name) or (isinstance(func, (ast.Subscript, ast.Call)) and isinstance(scope, Function)
                                            and scope.is_prim_func):
            # a name, or in a kernel `BODIES[mode](x)`, `pick(mode)(x)`: the model follows a macro it is
            scope.local_calls.append(call)
            scope.call_scope_kinds[id(call)] = ctx.tscope
            if ctx.conds:
                scope.call_conds[id(call)] = ctx.conds
            if ctx.pipelined is not None:
                scope.call_loops[id(call)] = ctx.pipelined
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            if func.value.id in ("self", "cls") or q is None or not _is_library(q):
                scope.local_calls.append(call)
                scope.call_scope_kinds[id(call)] = ctx.tscope
                if ctx.conds:
                    scope.call_conds[id(call)] = ctx.conds
                if ctx.pipelined is not None:
                    scope.call_loops[id(call)] = ctx.pipelined
            if func.attr in _MUTATORS:
                self._mutate(func.value.id, scope)


_LIBRARY_ROOTS = frozenset({"tilelang", "tvm", "torch", "torch_npu", "numpy", "np", "math", "os", "sys"})


def _nonlocal_home(scope: Scope, name: str) -> Scope:
    """The enclosing function a ``nonlocal name`` of ``scope`` binds in: the
    nearest one that binds it so far, else the nearest one."""
    nearest = None
    s = scope.parent
    while s is not None and s.kind != "module":
        if isinstance(s, Function):
            if nearest is None:
                nearest = s
            if name in s.params or name in s.assigns:
                return s
        s = s.parent
    return nearest if nearest is not None else scope


def _is_library(qualname: str) -> bool:
    """A call into a library module (never a user's macro or factory)."""
    return qualname.lstrip(".").split(".")[0] in _LIBRARY_ROOTS and not qualname.startswith(".")


# Per node type: the fields that can hold child nodes worth visiting (no
# `ctx`, no operators, no plain strings/ints). Filled lazily.
_LEAF_FIELDS = frozenset({"ctx", "op", "ops", "kind", "type_comment", "conversion", "is_async", "level"})
_CHILD_FIELDS: Dict[type, tuple] = {ast.Constant: ()}
_CHILD_FIELDS_REVERSED: Dict[type, tuple] = {ast.Constant: ()}


def _child_fields(t: type) -> tuple:
    fields = tuple(f for f in getattr(t, "_fields", ()) if f not in _LEAF_FIELDS
                   and not (t is ast.Attribute and f == "attr") and not (t is ast.Name and f == "id")
                   and not (t is ast.arg and f == "arg") and not (t is ast.keyword and f == "arg"))
    _CHILD_FIELDS[t] = fields
    return fields


def _scope_kind(call: ast.Call) -> str:
    """The literal name of ``T.Scope("V")`` / ``T.Scope(name="V")``, else "?"."""
    arg = argument(call, 0, "name")
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value
    return "?"


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    exc = handler.type
    names = exc.elts if isinstance(exc, ast.Tuple) else [exc]
    return any(isinstance(n, ast.Name) and n.id in _IMPORT_ERRORS for n in names)


def _names_config_key(node: ast.expr, scope: Scope) -> bool:
    """``tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC`` (or the class itself): a
    Python value, not kernel code."""
    while isinstance(node, ast.Attribute):
        if qualname(node, scope) in C.PASS_CONFIG_KEY_CLASSES:
            return True
        node = node.value
    return False


def _may_open_scope(call: ast.Call, scope: Scope) -> bool:
    """A ``with`` call in a kernel that is no TileLang primitive the builder
    reads: anything but a library callable of another package may enter a
    ``T.Scope``."""
    q = qualname(call.func, scope)
    if q is None:
        return True
    root = q.lstrip(".").split(".")[0]
    if q.startswith(C.LANGUAGE + "."):
        return canonical_prim(q) == "Scope"  # another primitive (T.block, T.If...) opens none
    if q.startswith(".") or root in ("tilelang", "tvm"):
        return True
    return root not in C.THIRD_PARTY_ROOTS and root not in C.STDLIB_ROOTS
