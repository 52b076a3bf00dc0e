"""The data the kernel model is made of.

The builder (``build.py``) fills these in one walk over the module; the
resolver (``resolve.py``) and the evaluator (``evaluate/``) answer questions
about them (what does this name hold, which kernels does this call produce,
which configs reach a kernel).
Rules only read the finished ``FileModel`` (``model.py``).

Plain classes with ``__slots__`` rather than dataclasses: creating a
dataclass costs about a millisecond at import, and flake8 imports the model in
every process that meets a TileLang file (an editor on save included).
"""
from __future__ import annotations

import ast
from typing import Dict, List, Optional, Set, Tuple


class Binding:
    """One assignment of a name in a scope: ``value`` is None when the value
    cannot be known (a tuple target, a loop variable, a ``with`` target)."""

    __slots__ = ("value", "line", "fallback")

    def __init__(self, value: Optional[ast.expr], line: int, fallback: bool = False):
        self.value = value
        self.line = line
        self.fallback = fallback  # assigned in an ``except ImportError`` handler


class Scope:
    """A module, class or function body: its imports, bindings, definitions,
    and the TileLang calls made directly in it."""

    __slots__ = (
        "kind", "node", "name", "parent", "imports", "fallback_imports", "assigns", "params",
        "functions", "classes", "children", "globals", "nonlocals", "mutated", "local_calls", "uses", "returns",
        "call_scope_kinds", "call_conds", "call_loops", "filename", "stmt_calls",
    )

    def __init__(self, kind: str, node: ast.AST, name: str, parent: Optional["Scope"], filename: str = ""):
        self.kind = kind  # "module", "class" or "function"
        self.node = node
        self.name = name
        self.parent = parent
        self.imports: Dict[str, Optional[str]] = {}
        self.fallback_imports: Set[str] = set()
        self.assigns: Dict[str, List[Binding]] = {}
        self.params: Set[str] = set()
        self.functions: Dict[str, List["Function"]] = {}
        self.classes: Dict[str, "Scope"] = {}
        self.children: List["Function"] = []
        self.globals: Set[str] = set()
        self.nonlocals: Set[str] = set()  # `nonlocal x`: bound in the enclosing function
        self.mutated: Set[str] = set()
        # Calls whose callee is a plain name or ``self.x``/``cls.x``: macro
        # and builder candidates, resolved after the walk.
        self.local_calls: List[ast.Call] = []
        self.uses: List["Use"] = []
        self.returns: List[ast.expr] = []
        # The innermost T.Scope kind around each local call (by id of the call).
        self.call_scope_kinds: Dict[int, Optional[str]] = {}
        # Python-level conditions around each local call (see Use.conds).
        self.call_conds: Dict[int, tuple] = {}
        # The innermost T.Pipelined loop around each local call (see Use.pipelined).
        self.call_loops: Dict[int, "Use"] = {}
        self.filename = filename  # the module this scope belongs to
        # Calls that are a whole expression statement in a kernel or macro: TVMScript
        # emits the value such a call returns (a plain helper's `return T.pipe_barrier(...)`).
        self.stmt_calls: Set[int] = set()

    def __repr__(self) -> str:
        return "<%s %s %s>" % (type(self).__name__, self.kind, self.name)


class Function(Scope):
    __slots__ = ("cls", "is_prim_func", "is_macro", "jit", "launches", "bound", "vid_loads", "allocs",
                 "alloc_calls", "loaded", "generator")

    def __init__(self, kind: str, node: ast.AST, name: str, parent: Optional[Scope],
                 cls: Optional[Scope] = None, filename: str = ""):
        super().__init__(kind, node, name, parent, filename)
        self.cls = cls
        self.is_prim_func = False
        self.is_macro = False
        self.jit: Optional[ast.expr] = None  # the @jit decorator, when there is one
        self.launches: List["Launch"] = []
        # Names bound anywhere in this function (params, targets, loop vars, ...).
        self.bound: Set[str] = set()
        self.vid_loads: List[Tuple[ast.Name, Optional["Launch"]]] = []
        # Buffers allocated here: name -> allocation primitive ("alloc_ub",
        # ...), and the allocation call itself (shape, dtype).
        self.allocs: Dict[str, str] = {}
        self.alloc_calls: Dict[str, ast.Call] = {}
        # Every name read in this function (for "is `vid` ever used").
        self.loaded: Set[str] = set()
        # a `yield` of its own (not of a nested def): calling it runs nothing yet
        self.generator = False

    @property
    def line(self) -> int:
        return self.node.lineno  # type: ignore[attr-defined]


STORE = "@store"  # pseudo-primitive: ``buf[i, j] = ...`` (CombineCV classifies stores too)


class Use:
    """A call that resolves to ``tilelang.language.<prim>``, or (prim
    ``STORE``) a store into a subscripted buffer, in program order."""

    __slots__ = ("prim", "call", "owner", "scope_kind", "with_stmt", "in_parallel", "stores", "scope_name",
                 "conds", "pipelined", "first_call")

    def __init__(self, prim: str, call: ast.AST, owner: Scope, scope_kind: Optional[str],
                 in_parallel: bool = False, conds: tuple = (), pipelined: Optional["Use"] = None):
        # canonical name relative to tilelang.language: "barrier_all", "tile.exp", "Scope"
        self.prim = prim
        self.call = call  # the ast.Call (the ast.Subscript target for STORE)
        self.owner = owner
        # innermost enclosing T.Scope: "C", "V", another literal, "?" or None
        self.scope_kind = scope_kind
        self.with_stmt: Optional[ast.AST] = None  # set when the call is a ``with`` item
        self.in_parallel = in_parallel  # inside a ``for ... in T.Parallel(...)`` loop
        # For a T.Parallel use: names of the buffers its body stores into.
        self.stores: Set[str] = set()
        # For a T.Scope use: its literal name ("C", "V", "Vector", ...) or "?".
        self.scope_name: Optional[str] = None
        # Python-level `if` tests around the use, which TVMScript evaluates
        # while parsing (only the taken branch exists): ((test, polarity, scope), ...).
        self.conds = conds
        # The innermost ``for ... in T.Pipelined(...)`` loop around the use.
        self.pipelined = pipelined
        # For a T.Scope use: the call that is the first statement of its body, if any.
        self.first_call: Optional[ast.AST] = None

    def __repr__(self) -> str:
        return "<Use T.%s line %d>" % (self.prim, self.line)

    @property
    def line(self) -> int:
        return self.call.lineno

    @property
    def col(self) -> int:
        return self.call.col_offset


class Launch:
    """``with T.Kernel(...) as target`` inside a prim_func."""

    __slots__ = ("with_stmt", "call", "target", "owner", "threads", "is_npu", "unbound_vid_reads", "site_threads",
                 "site_grids")

    def __init__(self, with_stmt: ast.AST, call: ast.Call, target: Optional[ast.expr], owner: Function):
        self.with_stmt = with_stmt
        self.call = call
        self.target = target
        self.owner = owner
        # Filled in by the model: the resolved ``threads=`` (an int, a
        # list/tuple of ints, None when absent, or resolve.UNKNOWN) and ``is_npu=``.
        self.threads: object = None
        self.is_npu: Optional[bool] = None
        # Reads of ``vid`` inside this launch that the prim_func never binds.
        self.unbound_vid_reads: List[ast.Name] = []
        # ``threads=`` per compile site, when the sites disagree (``threads`` is
        # then unknown): (line of the site, the value there, UNKNOWN when not told)
        self.site_threads: List[Tuple[Optional[int], object]] = []
        # for a grid spread from a sequence (`T.Kernel(*grid, ...)`): (line of the site,
        # the number of grid arguments there, None when not known)
        self.site_grids: List[Tuple[Optional[int], Optional[int]]] = []

    @property
    def line(self) -> int:
        return self.with_stmt.lineno  # type: ignore[attr-defined]

    def keyword(self, name: str) -> Optional[ast.expr]:
        from .calls import keyword_arg

        return keyword_arg(self.call, name)

    @property
    def expert(self) -> bool:
        """No ``threads`` (or ``threads=None``): the launch binds ``[cid, vid]``."""
        return self.threads is None  # absent, or resolved to None

    @property
    def threads_count(self) -> Optional[int]:
        """1 or 2 when ``threads`` resolves to a legal NPU value (an int or a
        one-element list/tuple), else None."""
        value = self.threads
        if isinstance(value, (list, tuple)) and len(value) == 1:
            value = value[0]
        if type(value) is int and value in (1, 2):
            return value
        return None

    def sites_where(self, test) -> List[Tuple[Optional[int], object]]:
        """(site line, threads) of the compile sites whose known ``threads``
        passes ``test`` (none when ``threads`` is the same at every site)."""
        from .evaluate import UNKNOWN

        return [(line, v) for line, v in self.site_threads if v is not UNKNOWN and test(v)]

    def threads_with(self, evaluate) -> object:
        """``threads=`` as ``evaluate`` (a launch argument -> its value) reads
        the call: the keyword, or what a ``**`` spread dict passes (None when
        neither sets it, UNKNOWN when a spread cannot be read)."""
        from .evaluate import UNKNOWN, spread_keywords

        threads = self.keyword("threads")
        if threads is not None:
            return evaluate(threads)
        for kw in self.call.keywords:
            if kw.arg is None:
                found = spread_keywords(evaluate(kw.value))
                if found is None:
                    return UNKNOWN
                if "threads" in found:
                    return found["threads"]
        return None

    def grid_count_with(self, evaluate) -> Optional[int]:
        """How many grid arguments the call passes, a ``*`` spread counted as
        ``evaluate`` reads it (None when a spread is not a known sequence)."""
        from .evaluate import export

        n = 0
        for arg in self.call.args:
            if isinstance(arg, ast.Starred):
                seq = export(evaluate(arg.value))
                if not isinstance(seq, (tuple, list)):
                    return None
                n += len(seq)
            else:
                n += 1
        return n

    @property
    def grid_args(self) -> List[ast.expr]:
        return list(self.call.args)

    @property
    def target_is_sequence(self) -> bool:
        return isinstance(self.target, (ast.Tuple, ast.List))

    @property
    def vid_name(self) -> str:
        """The name of the vector-core id: the second target of ``as (cid, X)``
        whatever it is called (``as (bx, by)``), else the conventional ``vid``."""
        target = self.target
        if isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == 2 \
                and isinstance(target.elts[1], ast.Name):
            return target.elts[1].id
        return "vid"

    def target_number_reads(self) -> List[ast.Name]:
        """For ``as cid`` (a single name): the reads of ``cid`` in the launch's
        body that use it as a number, which fails while the kernel is parsed
        when the launch yields the list ``[cid, vid]``: an operand of
        arithmetic or an ordering comparison, or part of an index
        (``A[cid * n, 0]``).
        Unpacking (``c, v = cid``), subscripting (``cid[0]``) and handing it to
        a call are fine with a list, so they are not counted; nor is anything
        once the body assigns the name again (empty then)."""
        target = self.target
        if not isinstance(target, ast.Name):
            return []
        name = target.id
        numbers: Set[int] = set()  # ids of the nodes used as numbers: operands and indexes
        names: List[ast.Name] = []
        for stmt in getattr(self.with_stmt, "body", ()):
            for node in ast.walk(stmt):
                t = type(node)
                if t is ast.Name:
                    if node.id == name:
                        if not isinstance(node.ctx, ast.Load):
                            return []  # rebound in the body: what it holds later is not the launch's
                        names.append(node)
                elif t is ast.BinOp:
                    numbers.add(id(node.left))
                    numbers.add(id(node.right))
                elif t is ast.UnaryOp:
                    if type(node.op) is not ast.Not:  # `not ids` is a truth test
                        numbers.add(id(node.operand))
                elif t is ast.Compare:
                    if any(type(op) in _ORDERINGS for op in node.ops):  # `ids == 0` is just False
                        numbers.add(id(node.left))
                        numbers.update(id(c) for c in node.comparators)
                elif t is ast.Subscript:
                    index = node.slice
                    numbers.add(id(index))
                    if type(index) is ast.Tuple:
                        numbers.update(id(e) for e in index.elts)
        return [n for n in names if id(n) in numbers]

    def vid_reads(self, first: bool = False) -> List[ast.Name]:
        """Every read of :attr:`vid_name` inside the launch's body (with
        ``first``: the first one met, enough to tell whether there is any)."""
        name = self.vid_name
        reads = (n for stmt in getattr(self.with_stmt, "body", ()) for n in ast.walk(stmt)
                 if type(n) is ast.Name and n.id == name and type(n.ctx) is ast.Load)
        if first:
            found = next(reads, None)
            return [found] if found is not None else []
        return sorted(reads, key=lambda n: (n.lineno, n.col_offset))


class CompileSite:
    """A place that turns a prim_func into a kernel with some pass_configs."""

    __slots__ = ("kind", "node", "scope", "target", "function", "pass_context")

    def __init__(self, kind: str, node: ast.AST, scope: Scope, target: Optional[ast.expr] = None,
                 function: Optional[Function] = None, pass_context: Optional[ast.Call] = None):
        self.kind = kind  # "jit" (decorator), "jit-call", "compile" or "lower"
        self.node = node  # the decorator / call
        self.scope = scope  # where its arguments are evaluated
        self.target = target  # the compiled object (compile/lower/jit-call)
        self.function = function  # the decorated factory (jit)
        self.pass_context = pass_context  # lower: the enclosing PassContext(...)

    @property
    def line(self) -> int:
        return self.node.lineno  # type: ignore[attr-defined]


_ORDERINGS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
