"""Expressions: names, operators, comparisons, displays, comprehensions,
subscripts, attributes and names imported from the user's other modules."""
from __future__ import annotations

import ast
from types import GeneratorType
import operator
from typing import Optional

from ... import constants as C
from .budget import MAX_LEN, MAX_SIZE, MAX_UNROLL, format_fits, int_result_fits, size_of
from .frames import Abrupt, Frame, Undecided
from .values import LIBRARY_CONSTANTS
from .values import (
    MISSING, PLAIN, UNKNOWN, BadKey, BoundV, ClassV, DictV, DictViewV, EnumMemberV, FuncV, ImportV, InstanceV, LambdaV, LazyCallV,
    ExecutorV, ExitStackV, GenCtxCallV, IterV,
    DICT_READS, DeferredCallV, KeyMember, NamespaceV, key_member,
    LibV, Module, PassContextV, PropertyV, equal_refs, hashable, find_in, join, join_vars, mklist, plain, record_items, seq_known, spoil,
    truth, havoc, CachedV, SuperV, MUTATORS, merge_entries, lost,
)

_MUTATING_METHODS = MUTATORS | {"__ior__", "__dict__"}

BUILTINS = frozenset({
    "dict", "getattr", "hasattr", "len", "range", "tuple", "list", "bool", "int", "str", "float",
    "print", "isinstance", "sorted", "enumerate", "zip", "min", "max", "abs", "set", "frozenset",
    "staticmethod", "classmethod", "property", "super", "type", "object", "Exception", "ValueError",
    "RuntimeError", "TypeError", "KeyError", "NotImplementedError", "AssertionError", "ImportError",
    "ModuleNotFoundError", "AttributeError", "SystemExit", "reversed", "any", "all", "iter", "next",
    "True", "False", "None", "open", "vars", "id", "hash", "repr", "format", "round", "divmod", "pow",
    "map", "filter", "sum", "callable", "setattr", "delattr", "globals", "locals", "input", "exit", "quit",
    "exec", "eval",
})
BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod, ast.Div: operator.truediv, ast.BitAnd: operator.and_, ast.BitXor: operator.xor,
    ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.BitOr: operator.or_, ast.Pow: operator.pow,
}
COMPARE = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}


_Name, _Constant, _Call, _Attribute, _BinOp, _Slice = ast.Name, ast.Constant, ast.Call, ast.Attribute, ast.BinOp, ast.Slice
_NOT_BOUND = object()


class Expressions:
    """Mixin of ``Evaluator``: evaluating expressions."""

    # -- names ---------------------------------------------------------------
    def lookup(self, name: str, frame: Frame, unbound=UNKNOWN):
        """The value of ``name`` read in ``frame``; ``unbound`` when it may not
        be bound (a NameError)."""
        if frame is not None and not frame.globals:  # the usual case: bound in the innermost frame
            found = frame.vars.get(name, _NOT_BOUND)
            if found is not _NOT_BOUND:
                return found
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
                return unbound  # local, not (certainly) bound yet
            if f.star_unknown:
                return unbound  # maybe bound by a star import that could not be read
            f = f.parent
        if name in BUILTINS:
            if name in ("True", "False", "None"):
                return {"True": True, "False": False, "None": None}[name]
            return LibV(name)
        return unbound

    # -- expressions ---------------------------------------------------------
    def expr(self, node, frame: Frame):
        # the hot path: checks in the order of how often each node type is
        # evaluated over real kernel files (names, constants, calls, ...)
        t = type(node)
        if t is _Name:
            if frame is not None and not frame.globals:  # lookup's first step, inlined
                found = frame.vars.get(node.id, _NOT_BOUND)
                if found is not _NOT_BOUND:
                    return found
            return self.lookup(node.id, frame)
        if t is _Constant:
            return node.value
        if t is _Call:
            return self.call(node, frame)
        if t is _Attribute:
            return self.getattr_(self.expr(node.value, frame), node.attr)
        if t is _BinOp:
            return self.binop(node.op, self.expr(node.left, frame), self.expr(node.right, frame))
        if node is None:
            return None
        if t is _Slice:
            return UNKNOWN  # in a tuple index (`A[0:n, j]`): a buffer region, not a value
        if t is ast.Dict:
            return self.dict_display(node, frame)
        if t is ast.Tuple or t is ast.List:
            items = []
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    seq = self.iterate(self.expr(e.value, frame))
                    if seq is None:
                        return UNKNOWN
                    items.extend(seq)
                else:
                    items.append(self.expr(e, frame))
            return self.bounded(tuple(items) if t is ast.Tuple else mklist(items, self.token))
        if t is ast.Subscript:
            obj = self.expr(node.value, frame)
            index = node.slice
            if type(index) is _Slice:
                # bounds are read only to cut a known sequence (a buffer region `A[0:n]` in a
                # kernel is not a value the evaluator has)
                if not isinstance(self.deref(obj), (tuple, list, str)):
                    return UNKNOWN
                return self.subscript(obj, self.slice_value(index, frame))
            return self.subscript(obj, self.expr(index, frame))
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
                    if i + 1 < len(node.values):
                        # `flag and enable()`: the rest may run, with what it changes (a
                        # walrus there may bind its name or not)
                        with self.forked(frame if self.b.has_walrus and _binds_names(node) else None):
                            for rest in node.values[i + 1:]:
                                tr = truth(self.expr(rest, frame))
                                if tr is UNKNOWN or (is_and and not tr) or (not is_and and tr):
                                    break
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
            # one arm runs: a walrus binds the names of the arm that ran
            start = dict(frame.vars) if self.b.has_walrus and _binds_names(node) else None
            with self.forked():
                a = self.expr(node.body, frame)
            if start is not None:
                after_body, frame.vars = frame.vars, dict(start)
            with self.forked():
                b = self.expr(node.orelse, frame)
            if start is not None:
                frame.vars = join_vars(after_body, frame.vars)
            return join(a, b)
        if t is ast.NamedExpr:
            value = self.expr(node.value, frame)
            self.assign(node.target, value, frame, node.value)
            return value
        if t is ast.GeneratorExp:
            # made when consumed; only the first iterable is read here (as CPython does)
            self.handles += 1
            return IterV((), self.token, ("gen", node, frame, self.expr(node.generators[0].iter, frame), self))
        if t in (ast.DictComp, ast.ListComp, ast.SetComp):
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
                    if type(x) is KeyMember:
                        return UNKNOWN  # f"{PassConfigKey.X}": the value before Python 3.11, the name from 3.11
                    if not isinstance(x, (str, int)) or isinstance(x, bool) or \
                            (isinstance(x, int) and x.bit_length() > 4 * MAX_LEN):
                        return UNKNOWN
                    parts.append(str(x))
                else:
                    return UNKNOWN
            s = "".join(parts)
            return s if len(s) <= MAX_LEN else UNKNOWN
        if t is ast.Yield or t is ast.YieldFrom:
            # the yielded value is made (its calls run); what `send` passes back is unknown
            if node.value is not None:
                value = self.expr(node.value, frame)
                if t is ast.YieldFrom:
                    self.iterate(value)
            return UNKNOWN
        if t is ast.Await:
            value = self.expr(node.value, frame)
            return self.run_deferred(value) if type(value) is DeferredCallV else UNKNOWN
        return UNKNOWN

    def dict_display(self, node: ast.Dict, frame: Frame):
        result = DictV(self.token)
        for k, v in zip(node.keys, node.values):
            if k is None:
                other = self.expr(v, frame)
                self.merge_into(result, other)
                continue
            key = self.deref(self.expr(k, frame))  # a key imported from the project: its value
            value = self.expr(v, frame)
            if key is UNKNOWN or not hashable(key):
                spoil(result)
                continue
            result.entries[key] = (value, k, v, self.filename)
        return self.bounded(result)

    def merge_into(self, result: DictV, other) -> None:
        other = self.deref(other)
        if isinstance(other, DictV):
            merge_entries(result, other)
            if not other.complete:
                result.complete = False
                for k, e in list(result.entries.items()):
                    if k not in other.entries:
                        lost(e[0])
                        result.entries[k] = (UNKNOWN,) + tuple(e[1:])
        else:
            spoil(result)

    def any_iteration(self, node, inner: Frame) -> None:
        """A comprehension whose iterations cannot be told (an unknown
        iterable or test, too many items): its body may run for any item, so
        it runs once more with unknown loop variables, in a branch of its own
        (what it changes is then uncertain: `[register(k) for k in names]`)."""
        try:
            with self.forked():
                for i, gen in enumerate(node.generators):
                    if i:
                        self.expr(gen.iter, inner)
                    for name in _target_names(gen.target):
                        inner.vars[name] = UNKNOWN
                    for cond in gen.ifs:
                        self.expr(cond, inner)
                parts = (node.key, node.value) if isinstance(node, ast.DictComp) else (node.elt,)
                for part in parts:
                    self.expr(part, inner)
        except Abrupt:
            pass

    def iterations(self, node, frame: Frame, inner: Frame, first=MISSING, sources: Optional[list] = None):
        """Each iteration of a comprehension's ``for``/``if`` clauses, its
        names bound in ``inner`` (a Python generator: the clauses run when the
        next iteration is asked for); ``first``: the first iterable, already
        read (a generator expression reads it where it is written). Raises
        Undecided when the next one cannot be told (an unknown iterable or
        test, more than MAX_UNROLL). ``sources``: the iterators it reads item
        by item are added there (see ``leave``)."""
        count = 0

        def run(i: int):
            nonlocal count
            if i == len(node.generators):
                count += 1
                if count > MAX_UNROLL:
                    raise Undecided()
                yield None
                return
            gen = node.generators[i]
            items = self.stream(first if not i and first is not MISSING else self.expr(gen.iter, inner if i else frame))
            if items is None or gen.is_async:
                raise Undecided()
            if sources is not None and type(items) is GeneratorType:
                sources.append(items)
            for item in items:
                self.tick()
                self.assign(gen.target, item, inner)
                keep = True
                for cond in gen.ifs:
                    tv = truth(self.expr(cond, inner))
                    if tv is UNKNOWN:
                        raise Undecided()
                    if not tv:
                        keep = False
                        break
                if keep:
                    yield from run(i + 1)

        return run(0)

    def comprehension(self, node, frame: Frame):
        """A list, set or dict comprehension, run to its end where it is written."""
        inner = Frame("function", frame, frame.module, None, set())
        inner.vars = {}
        out: list = []
        result = DictV(self.token) if isinstance(node, ast.DictComp) else None
        walrus = _walrus_names(node) if self.b.has_walrus and _binds_names(node) else ()
        sources: list = []
        try:
            for _ in self.iterations(node, frame, inner, MISSING, sources):
                if result is not None:
                    key = self.deref(self.expr(node.key, inner))
                    value = self.expr(node.value, inner)
                    if key is UNKNOWN or not hashable(key):
                        raise Undecided()
                    result.entries[key] = (value, node, node.value, self.filename)
                else:
                    out.append(self.expr(node.elt, inner))
        except Undecided:
            self.leave(sources)
            self.any_iteration(node, inner)
            for name in walrus:  # bound in the enclosing scope, maybe
                lost(self.lookup(name, frame, None))
                self.assign_name(name, UNKNOWN, frame)
            return UNKNOWN
        for name in walrus:
            # `[(last := k) for k in keys]`: the name belongs to the enclosing scope
            if name in inner.vars:
                self.assign_name(name, inner.vars[name], frame)
        if result is not None:
            return self.bounded(result)
        if isinstance(node, ast.ListComp):
            return self.bounded(mklist(out, self.token))
        return self.bounded(tuple(out))

    def comprehension_items(self, node: ast.GeneratorExp, frame: Frame, first):
        """A generator expression's items, made one at a time (a Python
        generator): its clauses and element run when the next item is asked
        for. Raises Undecided when the next item cannot be told; the
        iterations it cannot tell then run in a branch of their own, as in
        ``comprehension``."""
        inner = Frame("function", frame, frame.module, None, set())
        inner.vars = {}
        for name in (_walrus_names(node) if self.b.has_walrus and _binds_names(node) else ()):
            lost(self.lookup(name, frame, None))  # it may keep what it held
            self.assign_name(name, UNKNOWN, frame)  # bound in the enclosing scope, as far as it runs
        sources: list = []
        try:
            for _ in self.iterations(node, frame, inner, first, sources):
                yield self.expr(node.elt, inner)
        except Undecided:
            self.leave(sources)
            self.any_iteration(node, inner)
            raise

    def iterator_contains(self, value, it: IterV):
        """``value in it``: the items made one at a time up to the first equal
        one, as CPython makes them; the rest is left for the next consumer.
        UNKNOWN (what is left then may be made, or not) when an item does
        not compare as a plain value."""
        source = self.take(it) if not it.looping else None
        if source is None:
            self.spend(it)
            return UNKNOWN
        try:
            for item in source:
                same = _equal(value, self.deref(item))
                if same is UNKNOWN:
                    self.leave([source])
                    return UNKNOWN
                if same:
                    return True
        except Undecided:
            return UNKNOWN
        return False

    def leave(self, sources: list) -> None:
        """A consumer stopped at an item it cannot tell what to do with (an
        unknown key, test or target): the items its lazy sources (a generator
        it read item by item) have left may be made, or not; each runs on in
        a branch of its own."""
        for items in sources:
            try:
                with self.forked():
                    for _ in items:
                        pass
            except (Undecided, Abrupt, ValueError):  # ValueError: a generator running now, up the stack
                pass

    def slice_value(self, node: ast.Slice, frame: Frame):
        bounds = [None if e is None else self.deref(self.expr(e, frame)) for e in (node.lower, node.upper, node.step)]
        if all(b is None or type(b) is int for b in bounds):
            return slice(*bounds)
        return UNKNOWN

    def subscript(self, obj, key):
        if type(obj) is DictViewV:
            return UNKNOWN  # a view is not subscriptable (TypeError)
        obj = self.deref(obj)
        key = self.deref(key)
        if type(obj) is LibV and obj.q == "sys.modules":
            self.handles += 1
            return NamespaceV(self.module_frame)  # maybe this module: its names, written through later
        if isinstance(obj, LibV) and obj.q in C.PASS_CONFIG_KEY_CLASSES and isinstance(key, str):
            return self.getattr_(obj, key)  # PassConfigKey["TL_ASCEND_AUTO_SYNC"]
        if type(obj) is NamespaceV:
            # `globals()["CFG"]`: that name's value, which may be changed through what is read
            names = obj.frame.vars if obj.frame is not None else {}
            self.escape(tuple(names.values()) if type(key) is not str else (names.get(key),), calls=True)
            return UNKNOWN
        if isinstance(obj, DictV):
            if not hashable(key) or key is UNKNOWN:
                self.escape(tuple(e[0] for e in obj.entries.values()), calls=True)  # `PRESETS[mode]`: any
                return UNKNOWN
            entry = obj.entries.get(key)
            if entry is None and obj.complete:
                raise Abrupt("raise")  # KeyError
            if entry is None or obj.maybe_absent(key):
                return UNKNOWN  # there with any value, or maybe not there (KeyError)
            return entry[0]
        if isinstance(obj, ClassV) and obj.kind == "enum" and not obj.opaque and isinstance(key, str):
            return obj.members.get(key, UNKNOWN)  # Mode["EXPERT"]
        if type(obj) is InstanceV:
            obj = record_items(obj)  # `tile[0]` of a NamedTuple (None: any other instance, unknown below)
        if isinstance(obj, (tuple, list, str)) and (isinstance(obj, str) or seq_known(obj)):
            if type(key) is int:
                try:
                    return obj[key]
                except IndexError:
                    raise Abrupt("raise") from None
            if type(key) is slice and all(b is None or type(b) is int for b in (key.start, key.stop, key.step)) \
                    and key.step != 0:
                part = obj[key]  # the same items: a slice copies the list, not what it holds
                return mklist(part, self.token) if isinstance(obj, list) else part
        if isinstance(obj, (tuple, list)):
            self.escape(tuple(obj), calls=True)  # an item not told which: any of them
        return UNKNOWN

    def binop(self, op, a, b):
        if type(a) is DictViewV or type(b) is DictViewV:
            return UNKNOWN  # set operations of views, not those of the tuples they read as
        a, b = self.deref(a), self.deref(b)
        result = self._binop(op, a, b)
        if result is UNKNOWN and a is not UNKNOWN and b is not UNKNOWN:
            self.escape((a, b))  # `(DEV,) * n`, an operator of the user's class: it may hold them
        return result

    def _binop(self, op, a, b):
        if isinstance(op, ast.BitOr) and isinstance(a, DictV) and isinstance(b, DictV):
            result = a.copy(self.token)
            self.merge_into(result, b)
            return result
        if isinstance(a, PLAIN) and isinstance(b, PLAIN) and type(op) in BINOPS:
            if isinstance(op, ast.Pow) and (not isinstance(b, int) or abs(b) > 64):
                return UNKNOWN
            if isinstance(op, (ast.LShift,)) and isinstance(b, int) and b > 64:
                return UNKNOWN
            if not _plain_result_fits(op, a, b):
                return UNKNOWN  # judged before computing: the result could be huge
            try:
                result = BINOPS[type(op)](a, b)
            except Exception:
                return UNKNOWN
            if isinstance(result, (str, bytes)) and len(result) > MAX_LEN:
                return UNKNOWN
            return result
        if isinstance(op, ast.Add) and seq_known(a) and seq_known(b) and type(a) is type(b):
            if len(a) + len(b) > MAX_LEN or self.size(a) + self.size(b) > MAX_SIZE:
                return UNKNOWN
            return tuple(a) + tuple(b) if isinstance(a, tuple) else mklist(list(a) + list(b), self.token)
        if isinstance(op, ast.Mult) and (type(b) is int and seq_known(a) or type(a) is int and seq_known(b)):
            seq, n = (a, b) if type(b) is int else (b, a)
            if len(seq) * max(n, 0) > MAX_LEN or self.size(seq) * max(n, 1) > MAX_SIZE:
                return UNKNOWN
            items = list(seq) * n  # the same items, repeated: `[{}] * 2` holds one dict twice
            return tuple(items) if isinstance(seq, tuple) else mklist(items, self.token)
        return UNKNOWN

    def size(self, value) -> int:
        return size_of(value, self.sizes)

    def bounded(self, value):
        """``value``, or UNKNOWN when it is over the size budget."""
        return value if size_of(value, self.sizes) <= MAX_SIZE else UNKNOWN

    def iterator(self, items: tuple):
        """A one-shot iterator over ``items`` (``zip``, ``enumerate``)."""
        if self.bounded(items) is UNKNOWN:
            return UNKNOWN
        self.handles += 1  # calls look at what they are given for it
        return IterV(items, self.token)

    def compare(self, node: ast.Compare, frame: Frame):
        left = self.expr(node.left, frame)
        if type(left) is DictViewV:
            return UNKNOWN  # a view compares as a set (keys, items) or by identity (values)
        left = self.deref(left)
        for op, right_node in zip(node.ops, node.comparators):
            right = self.expr(right_node, frame)
            if right is UNKNOWN and self.handles and isinstance(op, (ast.In, ast.NotIn)):
                self.consume_unknown()  # `k in it` of an `it` a join made unknown: it may be consumed
            if type(right) is IterV:
                if isinstance(op, (ast.In, ast.NotIn)):
                    # `k in it` consumes it up to the first match
                    found = self.iterator_contains(left, right)
                    if found is UNKNOWN or len(node.ops) > 1:
                        return UNKNOWN
                    return found if isinstance(op, ast.In) else not found
                return UNKNOWN
            if type(right) is DictViewV and not isinstance(op, (ast.In, ast.NotIn)):
                return UNKNOWN
            right = self.deref(right)
            if isinstance(op, (ast.Is, ast.IsNot)):
                if left is UNKNOWN or right is UNKNOWN:
                    return UNKNOWN
                if isinstance(left, PLAIN) and isinstance(right, PLAIN) and \
                        (left is None or right is None or type(left) is bool or type(right) is bool):
                    ok = (left is right) == isinstance(op, ast.Is)
                elif isinstance(left, EnumMemberV) and isinstance(right, EnumMemberV) and \
                        not left.cls.opaque and not right.cls.opaque:
                    ok = (left is right) == isinstance(op, ast.Is)  # members are singletons, aliases one
                elif isinstance(left, EnumMemberV) and isinstance(right, PLAIN) or \
                        isinstance(right, EnumMemberV) and isinstance(left, PLAIN):
                    ok = isinstance(op, ast.IsNot)  # `mode is None`: a member is never a constant
                else:
                    return UNKNOWN
            elif isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, DictV):
                if not hashable(left) or left is UNKNOWN:
                    return UNKNOWN
                if left in right.entries:
                    if right.maybe_absent(left):
                        return UNKNOWN
                    ok = True
                elif right.complete:
                    ok = False
                else:
                    return UNKNOWN
                ok = ok if isinstance(op, ast.In) else not ok
            elif isinstance(op, (ast.In, ast.NotIn)) and isinstance(left, EnumMemberV) and seq_known(right):
                # `member in (Feature.SYNC, ...)`: members are equal only to themselves
                # (a member of a str/int mixin enum may equal a plain value: unknown)
                if left.cls.opaque or any(x is UNKNOWN or not (isinstance(x, EnumMemberV) or plain(x)) for x in right):
                    return UNKNOWN
                ok = any(x is left for x in right) == isinstance(op, ast.In)
            else:
                if not (plain(left) and plain(right)) or type(op) not in COMPARE:
                    same = equal_refs(left, right) if isinstance(op, (ast.Eq, ast.NotEq)) else UNKNOWN
                    if same is UNKNOWN:
                        return UNKNOWN
                    ok = same == isinstance(op, ast.Eq)
                else:
                    try:
                        ok = bool(COMPARE[type(op)](left, right))
                    except Exception:
                        return UNKNOWN
            if not ok:
                return False
            left = right
        return True

    # -- attributes ----------------------------------------------------------
    def getattr_(self, obj, attr: str):
        if obj is UNKNOWN:  # no test below holds for it
            if attr in _MUTATING_METHODS:
                self.touch_unknown()  # `PRESETS[mode].update(...)`: a change through a value not known
            return UNKNOWN
        if isinstance(obj, LibV):
            if obj.q in C.PASS_CONFIG_KEY_CLASSES:
                value = C.PASS_CONFIG_ENUM.get(attr)
                return key_member(attr, value) if value is not None else BadKey(attr)
            q = obj.q + "." + attr
            return LIBRARY_CONSTANTS[q] if q in LIBRARY_CONSTANTS else LibV(q)
        if isinstance(obj, ImportV):
            return ImportV(obj.q + "." + attr, obj.ev)  # followed when used
        if type(obj) is NamespaceV:
            if attr not in DICT_READS:
                self.havoc_namespace(obj.frame)  # `globals().update(...)`, `.pop`, `.setdefault`
            return UNKNOWN
        if isinstance(obj, LazyCallV):
            obj = self.deref(obj)
        if type(obj) is IterV:
            self.spend(obj)  # `gen.send`, `it.__next__`: called, it consumes some of it
            return UNKNOWN
        if type(obj) is ExecutorV:
            return BoundV(LibV("executor." + attr), obj)
        if type(obj) is ExitStackV:
            return BoundV(LibV("contextlib.ExitStack." + attr), obj)
        if type(obj) is GenCtxCallV and attr in ("__enter__", "__exit__"):
            return BoundV(LibV("contextmanager." + attr), obj)  # entered by hand (setUp / tearDown)
        if isinstance(obj, str):
            if type(obj) is KeyMember and attr in ("value", "name"):
                return obj.value if attr == "value" else obj.member_name
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
            value = obj.lookup(attr)
            if value is MISSING:
                if attr == "__name__" and obj.scope is not None and not obj.opaque:
                    return obj.scope.name  # `REGISTRY[cls.__name__] = cls` in `__init_subclass__`
                return obj.fields if attr == "_fields" and obj.kind == "namedtuple" and not obj.opaque else UNKNOWN
            if isinstance(value, FuncV) and value.kind == "class":
                return BoundV(value, obj)
            if type(value) is PropertyV:
                return UNKNOWN  # the property object itself
            if type(value) is InstanceV and (value.opaque or value.cls.lookup("__get__") is not MISSING):
                return UNKNOWN  # a descriptor read through the class: what its __get__ gives
            return value
        if isinstance(obj, EnumMemberV):
            if attr == "value":
                return obj.value
            if attr == "name":
                return obj.name
            value = obj.cls.lookup(attr)  # `Plan.ON.enabled()`: a method of its class
            if type(value) is FuncV or type(value) is PropertyV and not value.cached:
                return self.bound_to(value, obj)
            return UNKNOWN
        if isinstance(obj, InstanceV):
            if attr in obj.attrs:
                return obj.attrs[attr]
            if attr == "__class__":
                return obj.cls
            if attr == "__dict__":
                if havoc(obj):  # written through later, maybe
                    self.effects += 1
                return UNKNOWN
            value = obj.cls.lookup(attr)
            if type(value) is PropertyV and value.cached:
                result = self.bound_to(value, obj)
                if not self.precise(obj):
                    return UNKNOWN  # stored or not, later reads could not tell
                obj.attrs[attr] = result
                return result
            if type(value) in (PropertyV, FuncV, CachedV):
                return self.bound_to(value, obj)
            if value is MISSING and obj.cls.kind == "namedtuple" and not obj.opaque:
                if attr == "_fields":
                    return obj.cls.fields
                if attr in ("_replace", "_asdict"):
                    return BoundV(LibV("namedtuple." + attr), obj)
            if value is MISSING or obj.opaque:
                return UNKNOWN  # an attribute its constructor (or a base's) may have set
            if type(value) is InstanceV and (value.opaque or value.cls.lookup("__get__") is not MISSING):
                # a descriptor of the class (`auto_sync = Field(KEY)`): its __get__ gives the value
                getter = value.cls.lookup("__get__") if not value.opaque else UNKNOWN
                if type(getter) is FuncV and not getter.kind:
                    return self.deref(self.call_value(getter, (value, obj, obj.cls), {}, None, self.module_frame))
                return UNKNOWN
            return value
        if isinstance(obj, Module):
            return obj.get(attr)
        if type(obj) is SuperV:
            return self.super_attr(obj, attr)
        if type(obj) is CachedV:
            return BoundV(LibV("lru_cache." + attr), obj) if attr == "cache_clear" else UNKNOWN
        if isinstance(obj, PassContextV) and attr in ("__enter__", "__exit__"):
            return BoundV(LibV("PassContext." + attr), obj)
        if type(obj) is PropertyV and attr == "setter":
            return BoundV(LibV("property.setter"), obj)  # `@manual.setter`
        return UNKNOWN

    def super_attr(self, sup, attr: str):
        """``super().attr``: looked up in the classes after the one whose
        method asks, in the object's method resolution order, bound to the
        object. What cannot be
        found exactly is unknown, and the object may change through it."""
        owner, obj = sup.owner, sup.obj
        value = UNKNOWN
        start = obj.cls if isinstance(obj, InstanceV) else obj if isinstance(obj, ClassV) else None
        order = start.mro() if start is not None and not owner.opaque else None
        at = next((i for i, c in enumerate(order) if c is owner), None) if order else None
        if at is not None:
            # the classes after the asking one in the object's own order (a mixin's
            # `super()` reaches the next mixin, not its own base)
            value = find_in(order[at + 1:], attr)  # type: ignore[index]
        elif not owner.opaque and len(owner.bases) <= 1:
            value = owner.bases[0].lookup(attr) if owner.bases else MISSING
        if value is MISSING:
            # past the user's classes: `object`, whose __init__ does nothing
            return LibV("object.__init__") if attr == "__init__" else UNKNOWN
        if value is UNKNOWN:
            if havoc(obj):
                self.effects += 1
            return UNKNOWN
        if isinstance(obj, InstanceV):
            return self.bound_to(value, obj)
        if isinstance(value, FuncV) and value.kind == "class":
            return BoundV(value, obj)  # `super().preset()` in a classmethod: the class
        return UNKNOWN if type(value) is PropertyV else value  # a plain function, unbound

    def bound_to(self, value, inst):
        """A class attribute read through the instance ``inst``: a method
        bound to it (a classmethod to its class, a staticmethod as it is,
        an ``lru_cache``'d method keyed on it), a property's getter run."""
        if type(value) is PropertyV:
            # `cfg.pass_configs`: the getter runs with the instance
            return self.deref(self.call_value(value.getter, (inst,), {}, None, self.module_frame))
        if type(value) is FuncV:
            if value.kind == "static":
                return value
            return BoundV(value, inst.cls if value.kind == "class" else inst)
        if type(value) is CachedV:
            return BoundV(value, inst)
        return value

    def resolve_import(self, q: str, via: Optional[ImportV] = None):
        """A name imported from the user's project: its value at the end of
        that module's evaluation (unknown when it cannot be followed)."""
        self.effects += 1  # may run that module (once): counted like a call
        resolver = self.resolver
        try:
            found = resolver.loader.split(q, self.filename)
        except Exception:
            return UNKNOWN
        if found is None:
            return ImportV(q, self) if via is None else UNKNOWN
        path, rest = found
        value = self.module_at(path)
        if value is UNKNOWN:
            return UNKNOWN
        ev = value.ev
        for name in rest:
            value = ev.getattr_(value, name)
        return value

    def module_at(self, path: str):
        """The user's module at ``path`` as a value, evaluated once (to its
        end, the first time it is asked for); UNKNOWN when it cannot be read,
        is part of an import cycle or ran out of budget."""
        loader = self.resolver.loader
        if path in loader.loading:
            # an import cycle: every module on it is unknown (Python fails the import)
            for p in loader.loading[max(1, loader.loading.index(path)):]:
                r = loader.resolvers.get(p)
                if r is not None and r.module_evaluator is not None:
                    r.module_evaluator.cyclic = True
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
            return Module(ev)
        finally:
            loader.loading.pop()



_INT_OPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Pow: "pow", ast.LShift: "lshift"}


def _plain_result_fits(op, a, b) -> bool:
    """Whether ``a <op> b`` on constants stays within the value budget,
    judged from the operands alone."""
    if type(a) in (int, bool) and type(b) in (int, bool):
        return int_result_fits(_INT_OPS.get(type(op), "other"), a, b)
    text = (str, bytes)
    if isinstance(op, ast.Mult) and (isinstance(a, text) or isinstance(b, text)):
        n = b if isinstance(a, text) else a
        return type(n) in (int, bool) and n * max(len(a) if isinstance(a, text) else 1,
                                                   len(b) if isinstance(b, text) else 1) <= MAX_LEN
    if isinstance(op, ast.Mod) and isinstance(a, text):
        return format_fits(a if isinstance(a, str) else a.decode("latin-1"))
    if isinstance(op, ast.Add) and isinstance(a, text) and isinstance(b, text):
        return len(a) + len(b) <= MAX_LEN
    if isinstance(op, ast.Pow) and isinstance(a, float) and type(b) in (int, bool):
        return True  # float powers overflow (OverflowError), they do not grow
    return True


def _target_names(target) -> list:
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]


_WALRUS: dict = {}


def _binds_names(node) -> bool:
    """Whether an expression holds a walrus (the only way it binds a name of
    its frame). Memoized per node; the cache is bounded."""
    key = id(node)
    hit = _WALRUS.get(key)
    if hit is not None and hit[0] is node:
        return hit[1]
    found = any(isinstance(n, ast.NamedExpr) for n in ast.walk(node))
    if len(_WALRUS) > 4096:
        _WALRUS.clear()
    _WALRUS[key] = (node, found)
    return found


def _walrus_names(node) -> list:
    return [n.target.id for n in ast.walk(node) if isinstance(n, ast.NamedExpr)]


def _equal(a, b):
    """``a == b`` as ``compare`` reads it: constants (and tuples and lists of
    them) as CPython compares them, library names and enum members by
    ``equal_refs``; UNKNOWN for anything else."""
    if plain(a) and plain(b):
        try:
            return bool(a == b)
        except Exception:
            return UNKNOWN
    return equal_refs(a, b)
