"""The data the kernel model is made of.

The builder (``build.py``) fills these in one walk over the module; the
resolver (``resolve.py``) answers questions about them (what does this name
hold, which kernels does this call produce, which configs reach a kernel).
Rules only read the finished ``FileModel`` (``model.py``).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple


@dataclass
class Binding:
    """One assignment of a name in a scope: ``value`` is None when the value
    cannot be known (a tuple target, a loop variable, a ``with`` target)."""

    value: Optional[ast.expr]
    line: int
    fallback: bool = False  # assigned in an ``except ImportError`` handler


@dataclass(eq=False)
class Scope:
    kind: str  # "module", "class" or "function"
    node: ast.AST
    name: str
    parent: Optional["Scope"]
    imports: Dict[str, Optional[str]] = field(default_factory=dict)
    fallback_imports: Set[str] = field(default_factory=set)
    assigns: Dict[str, List[Binding]] = field(default_factory=dict)
    params: Set[str] = field(default_factory=set)
    functions: Dict[str, List["Function"]] = field(default_factory=dict)
    classes: Dict[str, "Scope"] = field(default_factory=dict)
    children: List["Function"] = field(default_factory=list)
    globals: Set[str] = field(default_factory=set)
    mutated: Set[str] = field(default_factory=set)
    # Calls whose callee is a plain name or ``self.x``/``cls.x``: macro and
    # builder candidates, resolved after the walk.
    local_calls: List[ast.Call] = field(default_factory=list)
    uses: List["Use"] = field(default_factory=list)
    returns: List[ast.expr] = field(default_factory=list)
    # The innermost T.Scope kind around each local call (by id of the call).
    call_scope_kinds: Dict[int, Optional[str]] = field(default_factory=dict)
    # Python-level conditions around each local call (see Use.conds).
    call_conds: Dict[int, tuple] = field(default_factory=dict)
    # The innermost T.Pipelined loop around each local call (see Use.pipelined).
    call_loops: Dict[int, "Use"] = field(default_factory=dict)
    filename: str = ""  # the module this scope belongs to


@dataclass(eq=False)
class Function(Scope):
    cls: Optional[Scope] = None
    is_prim_func: bool = False
    is_macro: bool = False
    jit: Optional[ast.expr] = None  # the @jit decorator, when there is one
    launches: List["Launch"] = field(default_factory=list)
    # Names bound anywhere in this function (params, targets, loop vars, ...).
    bound: Set[str] = field(default_factory=set)
    vid_loads: List[Tuple[ast.Name, Optional["Launch"]]] = field(default_factory=list)
    # Buffers allocated here: name -> allocation primitive ("alloc_ub", ...),
    # and the allocation call itself (shape, dtype).
    allocs: Dict[str, str] = field(default_factory=dict)
    alloc_calls: Dict[str, ast.Call] = field(default_factory=dict)
    # Every name read in this function (for "is `vid` ever used").
    loaded: Set[str] = field(default_factory=set)

    @property
    def line(self) -> int:
        return self.node.lineno  # type: ignore[attr-defined]


STORE = "@store"  # pseudo-primitive: ``buf[i, j] = ...`` (CombineCV classifies stores too)


@dataclass(eq=False)
class Use:
    """A call that resolves to ``tilelang.language.<prim>``, or (prim
    ``STORE``) a store into a subscripted buffer, in program order."""

    prim: str  # canonical name relative to tilelang.language: "barrier_all", "tile.exp", "Scope"
    call: ast.AST  # the ast.Call (the ast.Subscript target for STORE)
    owner: Scope
    scope_kind: Optional[str]  # innermost enclosing T.Scope: "C", "V", another literal, "?" or None
    with_stmt: Optional[ast.AST] = None  # set when the call is a ``with`` item
    in_parallel: bool = False  # inside a ``for ... in T.Parallel(...)`` loop
    # For a T.Parallel use: names of the buffers its body stores into.
    stores: Set[str] = field(default_factory=set)
    # For a T.Scope use: its literal name ("C", "V", "Vector", ...) or "?".
    scope_name: Optional[str] = None
    # Python-level `if` tests around the use, which TVMScript evaluates while
    # parsing (only the taken branch exists): ((test, polarity, scope), ...).
    conds: tuple = ()
    # The innermost ``for ... in T.Pipelined(...)`` loop around the use.
    pipelined: Optional["Use"] = None

    @property
    def line(self) -> int:
        return self.call.lineno

    @property
    def col(self) -> int:
        return self.call.col_offset


@dataclass(eq=False)
class Launch:
    """``with T.Kernel(...) as target`` inside a prim_func."""

    with_stmt: ast.AST
    call: ast.Call
    target: Optional[ast.expr]
    owner: Function
    # Filled in by the model: the resolved ``threads=`` (an int, a list/tuple
    # of ints, None when absent, or resolve.UNKNOWN) and ``is_npu=``.
    threads: object = None
    is_npu: Optional[bool] = None
    # Reads of ``vid`` inside this launch that the prim_func never binds.
    unbound_vid_reads: List[ast.Name] = field(default_factory=list)

    @property
    def line(self) -> int:
        return self.with_stmt.lineno  # type: ignore[attr-defined]

    def keyword(self, name: str) -> Optional[ast.expr]:
        for kw in self.call.keywords:
            if kw.arg == name:
                return kw.value
        return None

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

    @property
    def grid_args(self) -> List[ast.expr]:
        return list(self.call.args)

    @property
    def target_is_sequence(self) -> bool:
        return isinstance(self.target, (ast.Tuple, ast.List))


@dataclass(eq=False)
class CompileSite:
    """A place that turns a prim_func into a kernel with some pass_configs."""

    kind: str  # "jit" (decorator), "jit-call", "compile" or "lower"
    node: ast.AST  # the decorator / call
    scope: Scope  # where its arguments are evaluated
    target: Optional[ast.expr] = None  # the compiled object (compile/lower/jit-call)
    function: Optional[Function] = None  # the decorated factory (jit)
    pass_context: Optional[ast.Call] = None  # lower: the enclosing PassContext(...)

    @property
    def line(self) -> int:
        return self.node.lineno  # type: ignore[attr-defined]
