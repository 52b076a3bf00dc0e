"""What the evaluator's values are: Python constants, tuples and lists, and
the classes below (dicts, functions, classes, instances, library names,
prim_funcs), or ``UNKNOWN``; and the operations on values alone (truth,
join, export)."""
from __future__ import annotations

import ast
from collections import OrderedDict
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from ..nodes import Function, Scope
from .budget import Interleaved

if TYPE_CHECKING:
    from .evaluator import Evaluator

UNKNOWN = object()
PENDING = object()
MISSING = object()  # an attribute a class certainly does not have


class KeyMember(str):
    """``PassConfigKey.<NAME>``: a ``str`` Enum member, equal to (and hashed
    as) its value, so it is the same dict key as the raw string. ``str()``
    and ``%s`` give ``PassConfigKey.<NAME>`` as in Python; ``format()`` and
    f-strings give the value before Python 3.11 and the name from 3.11, so the
    evaluator treats them as unknown (``__format__`` raises here)."""

    def __str__(self):
        return "PassConfigKey." + self.member_name

    def __repr__(self):
        return "<PassConfigKey.%s: %s>" % (self.member_name, str.__repr__(self))

    def __format__(self, spec):
        raise TypeError("format() of a str Enum member depends on the Python version")

    @property
    def member_name(self) -> str:
        return _KEY_NAMES.get(self.value, "?")

    @property
    def value(self) -> str:
        return "" + self  # the plain string

    @property
    def name(self) -> str:
        return self.member_name


_KEY_NAMES: Dict[str, str] = {}
_MEMBERS: Dict[str, "KeyMember"] = {}


def key_member(name: str, value: str) -> "KeyMember":
    member = _MEMBERS.get(name)
    if member is None:
        _KEY_NAMES.setdefault(value, name)
        member = _MEMBERS[name] = KeyMember(value)
    return member


def plain_str(value):
    """A key as the model reads it: a ``KeyMember`` becomes its plain value."""
    return "" + value if type(value) is KeyMember else value


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

    __slots__ = ("entries", "complete", "token", "links", "loose")

    def __init__(self, token: int, entries=None, complete: bool = True):
        self.entries: Dict[object, tuple] = entries if entries is not None else {}
        self.complete = complete
        self.token = token
        # the containers a join made this one from, and the joins made from it:
        # `cfg = DEV if x else EXP` is one of the two, so a change to any of
        # them may be a change to the others (see taint_links)
        self.links: Optional[list] = None
        # keys of ``entries`` that may be absent (`{} if x else {K: False}`, a
        # store or a `del` that may not run); their values are False, 0 or
        # unknown, which a PassContext reads as it reads an absent switch
        self.loose: Optional[set] = None

    def copy(self, token: int) -> "DictV":
        out = DictV(token, dict(self.entries), self.complete)
        if self.loose:
            out.loose = set(self.loose)
        return out

    def maybe_absent(self, key) -> bool:
        return self.loose is not None and key in self.loose

    def exact(self) -> bool:
        """Its keys are known: no other key, none that may be absent."""
        return self.complete and not self.loose

    def make_loose(self, key) -> None:
        if self.loose is None:
            self.loose = set()
        self.loose.add(key)

    def make_certain(self, key) -> None:
        if self.loose is not None:
            self.loose.discard(key)

    def updated_by_maybe(self, key, entry) -> tuple:
        """What ``key`` holds after an update from a dict that may lack it
        (its ``entry``): (this dict's value or that one, whether the key was
        certainly here already)."""
        old = self.entries.get(key)
        had = old is not None and not self.maybe_absent(key)
        return (join(old[0], entry[0]) if old is not None else entry[0]), had


class DictViewV:
    """``d.keys()`` / ``d.values()`` / ``d.items()``: a live view, read as
    the dict is when it is used (``Evaluator.deref`` makes the tuple)."""

    __slots__ = ("d", "kind")

    def __init__(self, d: "DictV", kind: str):
        self.d = d
        self.kind = kind

    def now(self):
        d = self.d
        if not d.exact():
            return UNKNOWN
        if self.kind == "keys":
            return tuple(d.entries)
        if self.kind == "values":
            return tuple(e[0] for e in d.entries.values())
        return tuple((k, e[0]) for k, e in d.entries.items())


class FuncV:
    __slots__ = ("fn", "closure", "defaults", "ev", "kind", "home")

    def __init__(self, fn: Function, closure, defaults: Dict[str, object], ev: "Evaluator", kind: str = "",
                 home=None):
        self.fn = fn
        self.closure = closure
        self.defaults = defaults
        self.ev = ev
        self.kind = kind  # "", "static", "class"
        # the frame of the class body that defined it (its ``owner`` is the class
        # ``super()`` starts from), or None
        self.home = home


class MacroV:
    """A ``@T.macro`` function as a Python value (``body = exp_manual``, a
    factory parameter, a dict of macros): opaque to the evaluator, which
    never runs a macro; the model follows the calls of it that a kernel
    makes to the macro it is at each compile site."""

    __slots__ = ("fn", "closure")

    def __init__(self, fn: Function, closure=None):
        self.fn = fn
        self.closure = closure  # the frame its def ran in (what its free names read)


class PropertyV:
    """``@property`` on a function of a class (``getter``), and the function
    ``@<name>.setter`` added (``setter``, or None: read-only). Reading it on
    an instance runs the getter; assigning runs the setter."""

    __slots__ = ("getter", "setter", "cached")

    def __init__(self, getter: "FuncV", setter: Optional["FuncV"] = None, cached: bool = False):
        self.getter = getter
        self.setter = setter
        # `functools.cached_property`: the first read stores the result in the
        # instance, which later reads (and assignments) use as a plain attribute
        self.cached = cached


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
    __slots__ = ("func", "args", "kwargs", "home")

    def __init__(self, func, args: tuple, kwargs: Dict[str, tuple]):
        self.func = func
        self.args = args
        self.kwargs = kwargs
        self.home = None  # the evaluator of the module that made it (its keyword nodes are there)


class ClassV:
    """A class of the user's. ``kind``: "" (a plain class), "dataclass"
    (dataclasses, attrs: a constructor made from ``fields``), "namedtuple",
    "enum" (``members``). ``opaque``: a base or decorator the evaluator does
    not model, so what is not in ``attrs`` is unknown and instances are too."""

    __slots__ = ("scope", "attrs", "bases", "kind", "fields", "opaque", "members", "factories", "maker", "frozen",
                 "_mro")

    def __init__(self, scope: Optional[Scope], attrs: Dict[str, object], bases: tuple = (), kind: str = "",
                 fields: tuple = (), opaque: bool = False):
        self.scope = scope
        self.attrs = attrs
        self.bases = bases  # ClassV of the user's, in order
        self.kind = kind
        self.fields = fields  # dataclass / NamedTuple fields, in constructor order
        self.opaque = opaque
        self.members: Dict[str, "EnumMemberV"] = {}
        # dataclass fields given by field(default=...) / field(default_factory=...)
        self.factories: Dict[str, tuple] = {}
        self.maker = ""  # the decorator that made a dataclass (`dataclasses.dataclass`, `attr.define`)
        self.frozen = False  # `@dataclass(frozen=True)`: setting a field raises
        self._mro: object = MISSING  # the classes of the user's in method resolution order, None: not told

    def mro(self) -> Optional[List["ClassV"]]:
        """The class and its bases of the user's in CPython's order (C3
        linearization, as ``__mro__``): a mixin's attribute comes before a
        shared base's. None when the bases cannot be ordered (a TypeError)
        or the hierarchy is too deep."""
        if self._mro is MISSING:
            self._mro = _c3(self, 0)
        return self._mro  # type: ignore[return-value]

    def lookup(self, attr: str):
        """``attr`` through the class and its bases in method resolution
        order. A class not modelled (a library base) stops the search: only
        its own attributes are known, what its bases hold is unknown."""
        order = self.mro()
        return UNKNOWN if order is None else find_in(order, attr)


def find_in(order, attr: str):
    """``attr`` in the first of the classes ``order`` that has it; UNKNOWN
    past a class not modelled, MISSING when none has it."""
    for cls in order:
        if attr in cls.members:
            return cls.members[attr]
        if attr in cls.attrs:
            return cls.attrs[attr]
        if cls.opaque:
            return UNKNOWN
    return MISSING


def _c3(cls: "ClassV", depth: int) -> Optional[List["ClassV"]]:
    """C3 linearization of ``cls`` over the classes of the user's (bases not
    modelled are not in ``bases``: the search stops at the opaque class that
    has them, before anything they could precede)."""
    if not cls.bases:
        return [cls]
    if depth > 32:
        return None
    seqs: List[List[ClassV]] = []
    for base in cls.bases:
        if base._mro is MISSING:
            base._mro = _c3(base, depth + 1)
        if base._mro is None:
            return None
        seqs.append(list(base._mro))  # type: ignore[arg-type]
    seqs.append(list(cls.bases))
    out = [cls]
    while True:
        seqs = [seq for seq in seqs if seq]
        if not seqs:
            return out
        for seq in seqs:
            head = seq[0]
            if not any(head in other[1:] for other in seqs):
                break
        else:
            return None  # TypeError: Cannot create a consistent method resolution order
        out.append(head)
        for seq in seqs:
            if seq[0] is head:
                del seq[0]


class CachedV:
    """``functools.lru_cache`` / ``functools.cache`` on ``func``: a call with
    the same arguments returns the very object the first one returned (a
    dict changed after it is returned changed), the function body running
    once per key. ``maxsize`` None is unbounded; past it the least recently
    used key is dropped, as Python drops it. ``spoiled`` once a call could
    not be told apart (an unknown argument, a call in a branch that may not
    run): every later call is unknown."""

    __slots__ = ("func", "maxsize", "typed", "memo", "token", "spoiled")

    def __init__(self, func, maxsize, typed: bool, token: int):
        self.func = func
        self.maxsize = maxsize
        self.typed = typed
        # key -> (the object returned, whether the entry is certainly there)
        self.memo: "OrderedDict[object, tuple]" = OrderedDict()
        self.token = token
        self.spoiled = False


class SuperV:
    """``super()`` in a method of ``owner`` (or ``super(owner, obj)``): reads
    an attribute from the classes after ``owner``, bound to ``obj``."""

    __slots__ = ("owner", "obj")

    def __init__(self, owner: ClassV, obj):
        self.owner = owner
        self.obj = obj


class EnumMemberV:
    """A member of an ``Enum`` class of the user's."""

    __slots__ = ("cls", "name", "value")

    def __init__(self, cls: ClassV, name: str, value):
        self.cls = cls
        self.name = name
        self.value = value


class InstanceV:
    """An instance; ``opaque`` when what its constructor did is not known
    (only its class's methods are)."""

    __slots__ = ("cls", "attrs", "token", "opaque", "links")

    def __init__(self, cls: ClassV, token: int):
        self.cls = cls
        self.attrs: Dict[str, object] = {}
        self.token = token
        self.opaque = cls.opaque
        self.links: Optional[list] = None  # as DictV.links


class LibV:
    """A name of a library (``tilelang.jit``, ``functools.partial``, a builtin)."""

    __slots__ = ("q",)

    def __init__(self, q: str):
        self.q = q

    def __eq__(self, other):
        return isinstance(other, LibV) and other.q == self.q

    def __hash__(self):
        return hash(("LibV", self.q))


# Methods of a dict that only read it (also of a namespace dict, ``globals()``).
DICT_READS = frozenset({"get", "copy", "keys", "values", "items", "__getitem__", "__contains__", "__len__",
                        "__iter__", "__repr__", "__str__", "__eq__", "__ne__", "__hash__", "__sizeof__",
                        "__format__"})


class DeferredCallV:
    """A call of a generator function or an ``async def`` function: Python runs
    its body when the result is iterated or awaited (or handed to a library
    call such as ``asyncio.run``), not when it is called. ``Calls.run_deferred``
    runs it there, once."""

    __slots__ = ("func", "args", "kwargs", "node", "result")

    def __init__(self, func, args, kwargs, node):
        self.func = func
        self.args = args
        self.kwargs = kwargs
        self.node = node
        self.result = PENDING


class IterV:
    """A one-shot iterator: what ``zip``, ``enumerate`` return (``items``), or
    a generator expression (``lazy``: its node, frame, first iterable and
    evaluator; its items are made when it is first consumed, as CPython makes
    them). The first consumer reads the items; after that it is ``spent``:
    what is left depends on how far that consumer went, so it is unknown;
    ``exhausted`` when a consumer certainly ran it to the end (``dict(pairs)``
    outside any branch): nothing is left, so a second ``dict(pairs)`` is
    ``{}``, as in CPython."""

    __slots__ = ("items", "lazy", "spent", "exhausted", "token", "looping", "source", "mark")

    def __init__(self, items: tuple, token: int, lazy: Optional[tuple] = None):
        self.items = items
        self.lazy = lazy
        self.spent = False
        self.exhausted = False
        self.token = token
        self.looping = False  # a `for` loop runs over it now
        # once a consumer read part of it: the Python iterator making what is left (a
        # generator suspended where CPython's is), and the branch token of the last read
        # (a later consumer in that branch goes on from there; see Statements.take)
        self.source = None
        self.mark = 0


class ExitStackV:
    """``contextlib.ExitStack()``: the context managers ``enter_context``
    entered through it (their PassContexts stay current) and the exits
    ``callback``/``push``/``enter_context`` registered, run last first when
    the stack closes (the end of its ``with``, ``close()``); ``pop_all()``
    hands them to a new stack (see ``Calls.exit_stack_call``)."""

    __slots__ = ("exits", "contexts")

    def __init__(self):
        self.exits: list = []  # callables taking how the block ended ("normal", "raise", ...)
        self.contexts: list = []  # PassContexts entered through it, on the evaluator's stack


class ExecutorV:
    """A pool that runs the functions it is given: ``ThreadPoolExecutor()``,
    ``ProcessPoolExecutor()``, ``multiprocessing.Pool()`` (``with ... as ex``
    binds it). ``ex.map(build, CONFIGS)`` and ``ex.submit(build, cfg)`` call
    ``build`` with those arguments (see ``Calls.executor_call``)."""

    __slots__ = ()


class NamespaceV:
    """``globals()``, ``locals()``, ``vars()``: a frame's names as a dict. Reading
    through it is unknown; writing through it, or handing it to a call that
    could, makes the module's names unknown (``Library.havoc_namespace``)."""

    __slots__ = ("frame",)

    def __init__(self, frame):
        self.frame = frame


class ImportV:
    """A name imported from a module that may be the user's (resolved lazily)."""

    __slots__ = ("q", "ev")

    def __init__(self, q: str, ev: "Evaluator"):
        self.q = q
        self.ev = ev


def same_import(a: ImportV, b: ImportV) -> bool:
    """Two imports of one name of one file of the user's: ``from .utils
    import f`` in a ``try`` and ``from utils import f`` in its handler (a
    module run as part of its package, or as a script)."""
    if a.q == b.q:
        return a.ev is b.ev
    if a.ev is not b.ev:
        return False
    try:
        loader = a.ev.resolver.loader
        x = loader.split(a.q, a.ev.filename, quick=True)
        return x is not None and x == loader.split(b.q, b.ev.filename, quick=True)
    except Exception:  # noqa: B902 - an odd tree: not the same
        return False


class LazyCallV:
    """A call of a function imported from another module, made when its value is needed."""

    __slots__ = ("func", "args", "kwargs", "node", "result")

    def __init__(self, func, args, kwargs, node):
        self.func = func
        self.args = args
        self.kwargs = kwargs
        self.node = node
        self.result = PENDING


class JitDecoV:
    """``tilelang.jit(out_idx=..., pass_configs=...)``: a decorator that compiles."""

    __slots__ = ("kwargs", "node", "unknown_kwargs", "home")

    def __init__(self, kwargs: Dict[str, tuple], node: ast.AST, unknown_kwargs: bool):
        self.kwargs = kwargs
        self.node = node
        self.unknown_kwargs = unknown_kwargs
        self.home = None  # the evaluator of the module that made it (its keyword nodes are there)


class ParamsV:
    """``pytest.mark.parametrize(names, values)``: a decorator that hands the
    test function through; the runner calls it once per row of values.
    ``rows``: one tuple per row (UNKNOWN items where a value is not known), or
    None when the rows cannot be told (``indirect=``, an unknown list)."""

    __slots__ = ("names", "rows")

    def __init__(self, names: tuple, rows: Optional[list]):
        self.names = names
        self.rows = rows


class ParamSetV:
    """``pytest.param(*values, id=..., marks=...)``: one row of a parametrize."""

    __slots__ = ("values",)

    def __init__(self, values: tuple):
        self.values = values


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


class GenCtxV:
    """A generator function decorated with ``contextlib.contextmanager``."""

    __slots__ = ("func",)

    def __init__(self, func):
        self.func = func


class GenCtxCallV:
    """``helper(...)`` of a ``GenCtxV``: entered by ``with`` (runs the
    generator to its ``yield``)."""

    __slots__ = ("func", "args", "kwargs", "node")

    def __init__(self, func, args: tuple, kwargs, node):
        self.func = func
        self.args = args
        self.kwargs = kwargs
        self.node = node


class PassContextV:
    """``tvm.transform.PassContext(config=...)``: its config is read when it is
    made (a ``PassConfig``, or ``UNKNOWN``); ``origin`` is the config's
    expression (or the call when it has none)."""

    __slots__ = ("config", "origin", "node")

    def __init__(self, config, origin: ast.AST, node: ast.AST):
        self.config = config
        self.origin = origin
        self.node = node


class KernelsV:
    """One of several prim_funcs (a join)."""

    __slots__ = ("items",)

    def __init__(self, items: tuple):
        self.items = items



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


PLAIN = (int, float, str, bool, bytes, type(None))
# Library names whose value at run time is one constant (`if TYPE_CHECKING:` never runs).
LIBRARY_CONSTANTS = {"typing.TYPE_CHECKING": False, "typing_extensions.TYPE_CHECKING": False}
# methods of a dict, list or set that change it in place
MUTATORS = frozenset({"update", "setdefault", "pop", "popitem", "clear", "append", "extend", "insert",
                      "remove", "sort", "reverse", "add", "discard", "__setitem__", "__delitem__"})


def plain(value) -> bool:
    """A Python constant (or a tuple/list of them) the old model could have read."""
    if isinstance(value, PLAIN):
        return True
    if isinstance(value, (tuple, list)):
        return seq_known(value) and all(plain(v) for v in value)
    return False


def user_function(value) -> bool:
    """A function of the user's the evaluator can run: a def, a lambda, a
    method bound to its object."""
    t = type(value)
    return t is FuncV or t is LambdaV or (t is BoundV and type(value.func) is FuncV)


def known(value) -> bool:
    return value is not UNKNOWN


def truth(value):
    """True/False for a value whose truth is known, else UNKNOWN."""
    if isinstance(value, PLAIN):
        return bool(value)
    if isinstance(value, (tuple, list)):
        return bool(value) if seq_known(value) else UNKNOWN
    if isinstance(value, DictV):
        if value.entries and (not value.loose or any(k not in value.loose for k in value.entries)):
            return True
        return False if value.complete and not value.entries else UNKNOWN
    if isinstance(value, (FuncV, ClassV, KernelV, JitV, JitDecoV, PartialV, BadKey, LambdaV, IterV)):
        return True  # an iterator is true even when it has no items
    return UNKNOWN


def join(a, b):
    """One of two values (two sides of an unknown branch)."""
    if a is b:
        return a
    if isinstance(a, PLAIN) and isinstance(b, PLAIN):
        return a if type(a) is type(b) and a == b else UNKNOWN
    if type(a) is ImportV and type(b) is ImportV:
        return a if same_import(a, b) else UNKNOWN
    if isinstance(a, DictV) and isinstance(b, DictV):
        entries = {}
        loose = set()
        for key in list(a.entries) + [k for k in b.entries if k not in a.entries]:
            ea, eb = a.entries.get(key), b.entries.get(key)
            src = ea or eb
            if ea is not None and eb is not None:
                value = join(ea[0], eb[0])
                if a.maybe_absent(key) or b.maybe_absent(key):
                    loose.add(key)
            else:
                other, present = (b, ea) if ea is not None else (a, eb)
                # absent from a complete dict is off: keeps a False that both mean
                # (for a PassContext; for Python the key may be absent)
                value = present[0] if other.complete and present[0] in (False, 0) \
                    and type(present[0]) in (bool, int) else UNKNOWN
                loose.add(key)
            entries[key] = (value,) + tuple(src[1:])
        joined = DictV(min(a.token, b.token), entries, a.complete and b.complete)
        joined.loose = loose or None
        return _linked(joined, a, b)
    if seq_known(a) and seq_known(b) and type(a) is type(b) and len(a) == len(b):
        items = [join(x, y) for x, y in zip(a, b)]
        return tuple(items) if isinstance(a, tuple) else _linked(mklist(items, min(a.token, b.token)), a, b)
    if type(a) is InstanceV and type(b) is InstanceV and a.cls is b.cls:
        # one instance or the other: each attribute both have, joined; one only
        # one of them has may be missing (unknown)
        joined = InstanceV(a.cls, min(a.token, b.token))
        joined.opaque = a.opaque or b.opaque
        for name in list(a.attrs) + [n for n in b.attrs if n not in a.attrs]:
            if name in a.attrs and name in b.attrs:
                joined.attrs[name] = join(a.attrs[name], b.attrs[name])
            else:
                joined.attrs[name] = UNKNOWN
        return _linked(joined, a, b)
    ka, kb = kernels_of(a), kernels_of(b)
    if ka is not None and kb is not None:
        items = tuple(dict.fromkeys(ka + kb))
        return KernelsV(items)
    if isinstance(a, LibV) and a == b:
        return a
    for side in (a, b):
        if type(side) in (DictV, ListV, InstanceV, tuple, FuncV, LambdaV, BoundV, IterV) and len(JOINED) < 4096:
            JOINED.append(side)  # it may be what the unknown value holds (or calls, or iterates)
    return UNKNOWN


def kernels_of(value) -> Optional[tuple]:
    if isinstance(value, KernelV):
        return (value,)
    if isinstance(value, KernelsV):
        return value.items
    return None

KW_UNKNOWN = "**"  # key of kwargs for a ``**spread`` that could not be read
STAR_UNKNOWN = object()


def mklist(items, token):
    return ListV(items, token)


class ListV(list):
    """A list; ``spoiled`` once something unknown may have changed it (its
    items and length are then unknown)."""

    __slots__ = ("token", "spoiled", "links")

    def __init__(self, items=(), token: int = 0):
        super().__init__(items)
        self.token = token
        self.spoiled = False
        self.links: Optional[list] = None  # as DictV.links


_TUPLE_HOOKS = ("__iter__", "__getitem__", "__len__")


def record_items(value) -> Optional[tuple]:
    """What iterating, indexing or unpacking a NamedTuple instance sees: its
    fields' values in order (None for anything else, or when a field or
    the class's own ``__iter__``/``__getitem__``/``__len__`` is not known)."""
    if type(value) is not InstanceV or value.opaque or value.cls.kind != "namedtuple":
        return None
    cls = value.cls
    if any(cls.lookup(hook) is not MISSING for hook in _TUPLE_HOOKS) or any(f not in value.attrs for f in cls.fields):
        return None
    return tuple(value.attrs[f] for f in cls.fields)


def seq_known(value) -> bool:
    """A tuple or list whose items are known (not a spoiled list)."""
    return isinstance(value, (tuple, list)) and not getattr(value, "spoiled", False)


def havoc(value) -> bool:
    """Something unknown may have changed ``value`` in place. Whether that
    changed anything (a value already havocked stays as it is)."""
    # (a value already havocked through a join is not done: what it was joined from, or
    # into, may not be; its links are followed again)
    if isinstance(value, DictV):
        if not value.complete and not value.links \
                and all(e[0] is UNKNOWN and value.maybe_absent(k) for k, e in value.entries.items()):
            return False
        spoil(value)
        return True
    if isinstance(value, ListV):
        if value.spoiled:
            if not value.links:
                return False
            taint_links(value)  # its items were lost when it was spoiled
            return True
        value.spoiled = True
        for item in value:
            lost(item)
        taint_links(value)
        return True
    if type(value) is IterV:
        if value.looping:
            raise Interleaved()  # what is not followed may take items from under the loop
        if value.spent:
            return False
        value.spent = True  # consumed, maybe (a lazy one's items, if made, change nothing followed)
        return True
    if isinstance(value, InstanceV):
        if value.opaque and not value.links and all(v is UNKNOWN for v in value.attrs.values()):
            return False
        for name in list(value.attrs):
            lost(value.attrs[name])
            value.attrs[name] = UNKNOWN
        value.opaque = True
        taint_links(value)
        return True
    return False


def _linked(joined, a, b):
    """``joined`` is ``a`` or ``b``: it may be either (and whatever they may
    be), and either may be it (and whatever joins it made may be)."""
    for side in (a, b):
        if type(side) is DictV or type(side) is ListV or type(side) is InstanceV:
            if side.links is None:
                side.links = []
            side.links.append((True, joined))  # up: a join it may be
            if joined.links is None:
                joined.links = []
            joined.links.append((False, side))  # down: what the join may be
    return joined


def taint_links(obj, key=MISSING, removed: bool = False) -> None:
    """``obj`` changed (at ``key``, or anywhere; ``removed``: ``key`` was
    deleted): the containers that may be the very same object (the joins
    made from it, and theirs, and what a join was made from, and theirs; not
    the other side of a join it went into) may have changed too."""
    if getattr(obj, "links", None) is None:
        return
    seen = {id(obj)}
    for direction in (True, False):
        stack = [other for up, other in obj.links if up is direction]
        while stack:
            other = stack.pop()
            if id(other) in seen:
                continue
            seen.add(id(other))
            if other.links:
                stack.extend(o for up, o in other.links if up is direction)
            if type(other) is ListV:
                if not other.spoiled:
                    for item in other:
                        lost(item)
                other.spoiled = True
            elif type(other) is InstanceV:
                if type(key) is str:
                    lost(other.attrs.get(key))
                    other.attrs[key] = UNKNOWN  # set there too, maybe: now there, with any value
                else:
                    for name in list(other.attrs):
                        lost(other.attrs[name])
                        other.attrs[name] = UNKNOWN
                    other.opaque = True
            elif key is not MISSING and key is not UNKNOWN and hashable(key):
                entry = other.entries.get(key)
                if entry is not None:
                    lost(entry[0])
                    other.entries[key] = (UNKNOWN,) + tuple(entry[1:])
                    if removed:
                        other.make_loose(key)  # `c.pop(k)` where c may be this dict: k may be gone
                elif removed:
                    pass  # deleting a key it does not hold changes nothing (or raises)
                elif other.complete:
                    other.complete = False  # the key may be there now, with any value
            else:
                spoil_entries(other)


def spoil_entries(d: DictV) -> None:
    """Anything may have happened to ``d``: any key added, any value
    changed, any key deleted (each may be absent now)."""
    d.complete = False
    for k, e in list(d.entries.items()):
        lost(e[0])
        d.entries[k] = (UNKNOWN,) + tuple(e[1:])
        d.make_loose(k)


def reachable(values, limit: int = 4096) -> list:
    """The dicts, lists and instances reachable from ``values`` (through
    entries, items, attributes, tuples, bound methods, partials), each once:
    what an actor holding any of them could change."""
    out: list = []
    seen: set = set()
    stack = list(values)
    while stack and len(out) < limit:
        v = stack.pop()
        t = type(v)
        if t is DictV or t is ListV or t is InstanceV or t is tuple or t is ClassV:
            if id(v) in seen:
                continue
            seen.add(id(v))
            if t is DictV:
                out.append(v)
                stack.extend(e[0] for e in v.entries.values())
                stack.extend(k for k in v.entries if type(k) is InstanceV)
            elif t is ListV:
                out.append(v)
                stack.extend(v)
            elif t is InstanceV:
                out.append(v)
                stack.extend(v.attrs.values())
            elif t is ClassV:
                stack.extend(v.attrs.values())  # its class-level dicts and lists
            else:
                stack.extend(v)
        elif t is IterV:
            if id(v) not in seen:
                seen.add(id(v))
                out.append(v)
                stack.extend(v.items)
        elif t is BoundV or t is SuperV:
            stack.append(v.obj)
        elif t is PartialV:
            stack.extend(v.args)
            stack.extend(x[0] for x in v.kwargs.values())
        elif t is CachedV:
            stack.extend(value for value, _ in v.memo.values())
    return out


def havoc_deep(*values) -> bool:
    """``havoc`` everything reachable from ``values``: an actor not modelled
    that is given a dict of dicts may change the inner ones too."""
    changed = False
    for c in reachable(values):
        changed = havoc(c) or changed
    return changed


# Containers that a join of two different ones made unknown (`c = DEV if x
# else EXP` where the two cannot be merged): the unknown value may be either,
# so a change made through an unknown value reaches them (see
# Evaluator.touch_unknown). Emptied when a model is built.
JOINED: list = []

def lost(value) -> None:
    """``value`` was in a container whose content is now unknown (an entry
    overwritten with an unknown value, a list spoiled): a read of that
    container may give it back, so a change made through an unknown value
    may reach it."""
    t = type(value)
    if (t is DictV or t is ListV or t is InstanceV or t is FuncV or t is LambdaV or t is BoundV or t is IterV
            or (t is tuple and any(type(v) in (DictV, ListV, InstanceV) for v in value))) and len(JOINED) < 4096:
        JOINED.append(value)


def merge_entries(result: DictV, other: DictV) -> None:
    """``result.update(other)`` (``{**result, **other}``) for the keys of a
    known dict: a key ``other`` may lack leaves ``result``'s value, or
    ``other``'s."""
    for key, entry in other.entries.items():
        if other.loose is not None and key in other.loose:
            value, had = result.updated_by_maybe(key, entry)
            result.entries[key] = (value,) + tuple((result.entries[key] if had else entry)[1:])
            if not had:
                result.make_loose(key)
        else:
            result.entries[key] = entry
            result.make_certain(key)


def spoil(d: DictV) -> None:
    spoil_entries(d)
    taint_links(d)


def hashable(value) -> bool:
    """Usable as a dict key: hashable, and not a value still to be read (a
    name imported from the project that nobody has followed yet)."""
    if type(value) is ImportV or type(value) is LazyCallV:
        return False
    if type(value) is InstanceV:
        # an instance is its own key unless its class says otherwise (`__eq__`, `__hash__`)
        cls = value.cls
        return not cls.opaque and all(cls.lookup(m) is MISSING for m in ("__eq__", "__hash__"))
    if type(value) is tuple:
        return all(hashable(v) for v in value)
    if type(value) is EnumMemberV:
        return not value.cls.opaque  # an IntEnum member is the key 1 too
    try:
        hash(value)
    except TypeError:
        return False
    return True


def comparable_ref(value) -> bool:
    return isinstance(value, (BadKey, LibV, EnumMemberV))


def equal_refs(left, right):
    """``left == right`` for a library name, a bad key or an enum member
    against such a value or a constant: True / False, or UNKNOWN. A member
    of an enum whose members may equal other values (IntEnum, StrEnum, a
    mixin, values not told apart) is unknown."""
    for a, b in ((left, right), (right, left)):
        if type(a) is EnumMemberV:
            if a.cls.opaque or not (comparable_ref(b) or isinstance(b, PLAIN)) or \
                    type(b) is EnumMemberV and b.cls.opaque:
                return UNKNOWN
            return a is b  # Enum compares by identity (an alias is the member itself)
    if comparable_ref(left) and comparable_ref(right):
        return left == right
    return UNKNOWN


def raw_of(value):
    if isinstance(value, DictV):
        return {}
    if isinstance(value, list):
        return [raw_of(v) for v in value]
    if isinstance(value, tuple):
        return tuple(raw_of(v) for v in value)
    return value


def as_bool(value) -> Optional[bool]:
    if isinstance(value, bool):
        return value
    if type(value) is int and value in (0, 1):
        return bool(value)
    return None


def join_vars(a: Dict[str, object], b: Dict[str, object]) -> Dict[str, object]:
    """Both states' names (``a``'s order first); a name in both holds the
    join of its two values (the same object: that object, without a call)."""
    out = {}
    for name, va in a.items():
        if name in b:
            vb = b[name]
            out[name] = va if va is vb else join(va, vb)
        else:
            out[name] = va
    for name, vb in b.items():
        if name not in a:
            out[name] = vb
    return out



def kernel_values(value) -> Optional[Tuple[KernelV, ...]]:
    return kernels_of(value)


def spread_keywords(value) -> Optional[Dict[str, object]]:
    """What a ``**`` spread passes to a call as keywords (``T.Kernel(n,
    **LAUNCH)``): a dict whose keys are all known strings, certainly there,
    as plain values; None when it is not such a dict."""
    if not isinstance(value, DictV) or not value.exact() or not all(type(k) is str for k in value.entries):
        return None
    return {key: export(entry[0]) for key, entry in value.entries.items()}


def export(value):
    """A value as the rest of the model reads constants: a plain Python
    constant, tuple or list, else ``UNKNOWN``."""
    if not plain(value):
        return UNKNOWN
    if isinstance(value, list):
        return [export(v) for v in value]
    if isinstance(value, tuple):
        return tuple(export(v) for v in value)
    return plain_str(value)
