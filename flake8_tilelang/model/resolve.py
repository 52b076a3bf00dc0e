"""Names in one file: where a name is bound (scopes), which functions a
call reaches (the user's macros and helpers, also in other modules), and the
module's evaluator (``evaluate/``), the only reader of values: ask it
(``evaluator().answer(expr, scope)``), not this.

Every answer is bounded (depth, cycles) and says "unknown" rather than guess:
rules stay silent on unknowns.
"""
from __future__ import annotations

import ast
from typing import Dict, List, Optional, Tuple

from .. import constants as C
from .build import Builder, qualname
from .evaluate import UNKNOWN, Evaluator
from .nodes import Binding, Function, Scope

__all__ = ["UNKNOWN", "Resolver"]


class _ImportCycle(Exception):
    """Raised inside a cross-module resolution that re-enters a module."""


_MAX_DEPTH = 8


class Resolver:
    def __init__(self, builder: Builder, loader=None):
        self.b = builder
        self.filename = builder.filename
        self._loader = loader  # crossmod.Loader, created on first cross-module name
        self.module_evaluator = None
        # (id(test), id(scope)) -> (test, whether it is a mode switch): see model.settle_use
        self.mode_switches: Dict[Tuple[int, int], Tuple[ast.expr, bool]] = {}
        self._method_defs: Optional[Dict[str, int]] = None

    def method_defs(self, name: str) -> int:
        """How many classes of this module define a method ``name``: more than
        one, and ``self.name(...)`` may reach a subclass's override."""
        if self._method_defs is None:
            counts: Dict[str, int] = {}
            for fn in self.b.functions:
                if fn.cls is not None:
                    counts[fn.name] = counts.get(fn.name, 0) + 1
            self._method_defs = counts
        return self._method_defs.get(name, 0)

    # -- evaluation --------------------------------------------------------
    def evaluator(self):
        """The module evaluated abstractly (once); None when it ran out of budget."""
        if self.module_evaluator is None:
            self.module_evaluator = Evaluator(self.b, self)
            self.module_evaluator.run()
        ev = self.module_evaluator
        return None if ev.exhausted or ev.running else ev

    # -- other modules ---------------------------------------------------
    @property
    def loader(self):
        if self._loader is None:
            from .crossmod import Loader  # deferred: most files never name a module of the project

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
                return self._inherited(cls, func.attr)
            if self.lookup(func.value.id, scope)[0] == "import" and depth < _MAX_DEPTH:
                return self.in_foreign(func, scope, lambda r, n: r.functions_for(n, r.b.module, depth + 1), [])
        return []

    def _inherited(self, cls: Scope, name: str) -> List[Function]:
        """The functions ``name`` reaches on ``cls``: its own, else those of
        its first base class (in this file) that defines it, in the order of
        its bases, depth first (single and simple multiple inheritance; a
        base that is not a class of this file, or an attribute the class body
        assigns, stops the search: not known)."""
        seen = set()
        todo = [cls]
        while todo:
            c = todo.pop(0)
            if id(c) in seen or len(seen) >= 16:
                continue
            seen.add(id(c))
            if name in c.functions:
                return list(c.functions[name])
            if name in c.assigns or name in c.imports:
                return []
            bases = []
            for base in getattr(c.node, "bases", []):
                found = self._class_of(base.id, c.parent) if isinstance(base, ast.Name) and base.id not in (
                    "self", "cls") and c.parent is not None else None
                if found is None:
                    if isinstance(base, ast.Name) and base.id == "object":
                        continue
                    return []  # a base not known: it may define the name
                bases.append(found)
            todo[0:0] = bases
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


