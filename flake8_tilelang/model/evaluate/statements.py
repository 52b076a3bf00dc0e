"""Statements: assignment, branches, loops, try, with, def, class, import."""
from __future__ import annotations

import ast
from typing import Dict, Optional

from .budget import MAX_UNROLL
from .frames import Abrupt, Frame
from .library import DENY, LIBRARY_ROOTS
from .values import ClassV, DictV, FuncV, ImportV, InstanceV, JitV, LibV, PLAIN, UNKNOWN, hashable, join, join_vars, truth

MATCH = getattr(ast, "Match", None)  # Python 3.10+


class Statements:
    """Mixin of ``Evaluator``: running statements."""

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
            handlers = [h.body for h in node.handlers if not catches_import_error(h)]
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
            raise Abrupt("return")
        elif t is ast.Raise:
            raise Abrupt("raise")
        elif t is ast.Break:
            raise Abrupt("break")
        elif t is ast.Continue:
            raise Abrupt("continue")
        elif t is ast.Delete:
            for target in node.targets:
                self.delete(target, frame)
        elif t in (ast.Global, ast.Nonlocal):
            if t is ast.Global:
                frame.globals.update(node.names)
        elif t is MATCH:
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
            except Abrupt as e:
                if e.kind in ("break", "continue"):
                    ends.append(frame.vars)
            finally:
                self.token = saved
        if not ends:
            frame.vars = start
            if len(frame.returns) > returns_before:
                raise Abrupt("return")
            raise Abrupt("raise")
        merged = ends[0]
        for other in ends[1:]:
            merged = join_vars(merged, other)
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
            except Abrupt as e:
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
            if isinstance(value, PLAIN) and isinstance(subject, PLAIN):
                return value == subject
            return UNKNOWN
        if isinstance(pat, ast.MatchSingleton):
            return pat.value is subject if isinstance(subject, PLAIN) else UNKNOWN
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
        except Abrupt:
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
        if not q.startswith(".") and (q.split(".")[0] in LIBRARY_ROOTS or q.split(".")[0] in DENY):
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
            if key is UNKNOWN or not hashable(key):
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
        if key is UNKNOWN or not hashable(key):
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


def catches_import_error(handler: ast.ExceptHandler) -> bool:
    exc = handler.type
    names = exc.elts if isinstance(exc, ast.Tuple) else [exc]
    return any(isinstance(n, ast.Name) and n.id in ("ImportError", "ModuleNotFoundError") for n in names)

