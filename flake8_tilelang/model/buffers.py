"""The on-chip facts of a kernel: its buffer table (per compile site), the
copies, flags, gemm calls and scalar arithmetic sites it contains, and its
footprint per memory. Rules TLA101-TLA131 only query this; this module is
where the kernel's AST is read for them.

Built lazily (``facts(model, kernel)``) and only when a rule that needs it
runs, so the ordinary rules pay nothing.

Memory of a buffer: Expert allocations say it (``alloc_ub`` UB, ``alloc_L1``
L1, ``alloc_L0A/B/C``). Developer allocations are placed by the compiler's
AscendInferBufferScope (``src/transform/ascend_infer_buffer_scope.cc:383-418``),
transcribed in :func:`infer_memory`: ``alloc_fragment`` is L0A if some gemm
takes it as A, else L0B if some gemm takes it as B, else L0C; ``alloc_shared``
is L1 when a gemm uses it and UB when only vector ops do. A shared buffer only
copies touch stays unknown (the compiler then looks at the copy partners).
"""
from __future__ import annotations

import ast
from typing import Dict, List, Optional, Tuple

from .build import canonical_prim, qualname
from .chip import MEMORIES
from .evaluate import UNKNOWN
from .nodes import STORE, Function
from .sides import trace
from .evaluate.sites import SiteValues, dtype_name, kernel_sites

DTYPE_BYTES = {
    "float16": 2, "bfloat16": 2, "half": 2, "int16": 2, "uint16": 2,
    "float32": 4, "float": 4, "int32": 4, "uint32": 4,
    "float64": 8, "int64": 8, "uint64": 8,
    "int8": 1, "uint8": 1, "bool": 1, "float8_e4m3": 1, "float8_e5m2": 1,
}
HALF = frozenset({"float16", "bfloat16"})
EXPLICIT = {"alloc_ub": "UB", "alloc_L1": "L1", "alloc_L0A": "L0A", "alloc_L0B": "L0B", "alloc_L0C": "L0C"}
INFERRED = frozenset({"alloc_shared", "alloc_fragment"})
ALIGN = 32  # every buffer is rounded up to 32 B (ascend_memory_planning.cc:852)


def is_cube_op(prim: str) -> bool:
    """The compiler's IsGEMMFunction: the op name contains gemm, mma or matmul."""
    low = prim.lower()
    return "gemm" in low or "mma" in low or "matmul" in low


def is_vector_op(prim: str) -> bool:
    """A TileLang call the compiler counts as Vector work for scope inference:
    ``T.tile.*`` and ``T.reduce*`` (copies, gemm and bookkeeping are not)."""
    return prim.startswith("tile.") or prim.startswith("reduce")


def infer_memory(prim: str, gemm_positions: set, vector: bool, cube: bool) -> Optional[str]:
    """The memory of an allocation (AscendInferBufferScope for the Developer ones)."""
    if prim in EXPLICIT:
        return EXPLICIT[prim]
    if prim == "alloc_fragment":
        if 0 in gemm_positions:
            return "L0A"
        if 1 in gemm_positions:
            return "L0B"
        return "L0C"
    if prim == "alloc_shared":
        if cube:
            return "L1"
        if vector:
            return "UB"
    return None


def align(n: int) -> int:
    return -(-n // ALIGN) * ALIGN


class Buffer:
    """One row of the buffer table, at one compile site."""

    __slots__ = ("name", "prim", "memory", "inferred", "shape", "dtype", "bytes", "first", "last", "use",
                 "address")

    def __init__(self, name: str, prim: str, memory: Optional[str], use):
        self.name = name
        self.prim = prim
        self.memory = memory  # "UB", "L1", "L0A", "L0B", "L0C" or None
        self.inferred = prim in INFERRED
        self.shape: Optional[Tuple[int, ...]] = None  # as compiled (dim 0 halved under threads=2 for UB)
        self.dtype: Optional[str] = None
        self.bytes: Optional[int] = None  # 32-byte rounded
        self.first = None  # program-order key of the first / last touch (None: never touched)
        self.last = None
        self.use = use  # the KernelUse of the allocation
        self.address: object = None  # T.annotate_address offset: int, UNKNOWN, or None

    def __repr__(self) -> str:
        return "<Buffer %s %s %s %s %s>" % (self.name, self.memory, self.shape, self.dtype, self.bytes)

    def describe(self) -> str:
        """``c_ub float32 128x256 = 131,072 B``."""
        shape = "x".join(str(d) for d in self.shape) if self.shape else "?"
        return "%s %s %s = %s B" % (self.name, self.dtype, shape, format(self.bytes or 0, ","))

    def rows(self) -> Optional[int]:
        if self.shape is None:
            return None
        n = 1
        for d in self.shape[:-1]:
            n *= d
        return n

    def row_bytes(self) -> Optional[int]:
        if self.shape is None or self.dtype not in DTYPE_BYTES:
            return None
        return self.shape[-1] * DTYPE_BYTES[self.dtype]


class Footprint:
    """A memory's bytes at one site: ``method`` "linear" (planning off),
    "peak" (planning on: the planner's textual liveness), or None (unknown)."""

    __slots__ = ("memory", "bytes", "method", "buffers", "complete")

    def __init__(self, memory: str, nbytes: Optional[int], method: Optional[str], buffers: List[Buffer],
                 complete: bool):
        self.memory = memory
        self.bytes = nbytes
        self.method = method
        self.buffers = buffers  # the buffers counted (for the message: largest first)
        self.complete = complete  # every buffer of the memory had a known size


class Endpoint:
    """One operand of ``T.copy``: its kernel-level buffer name, what it is
    (an allocation primitive, "gm" for a prim_func tensor parameter, None),
    and the subscript written, if any."""

    __slots__ = ("expr", "name", "kind", "indices")

    def __init__(self, expr: Optional[ast.expr], name: Optional[str], kind: Optional[str],
                 indices: Optional[List[ast.expr]]):
        self.expr = expr
        self.name = name
        self.kind = kind
        self.indices = indices  # None: the whole buffer; else one expression per written index


class Copy:
    __slots__ = ("use", "src", "dst")

    def __init__(self, use, src: Endpoint, dst: Endpoint):
        self.use = use
        self.src = src
        self.dst = dst


class ScalarArith:
    """``ub[i] = a[i] + b[i]`` / ``x = a_val * 2`` outside T.Parallel: the
    statement, the operator node, and the buffers whose loads are operands."""

    __slots__ = ("stmt", "node", "buffers")

    def __init__(self, stmt: ast.stmt, node: ast.AST, buffers: List[str]):
        self.stmt = stmt
        self.node = node
        self.buffers = buffers


class KernelFacts:
    """What the on-chip rules ask about one kernel."""

    def __init__(self, model, kernel):
        self.model = model
        self.kernel = kernel
        fn: Function = kernel.func
        self.params = _tensor_params(fn)  # name -> rank (None when not known)
        self.alloc_uses = {}  # name -> KernelUse of the kernel's own allocation
        by_call = {id(call): name for name, call in fn.alloc_calls.items()}
        for u in kernel.raw_uses:
            if not u.via and id(u.use.call) in by_call:
                self.alloc_uses[by_call[id(u.use.call)]] = u
        self.copies: List[Copy] = []
        self.flags = []  # KernelUse of T.set_flag / T.wait_flag
        self.gemms = []  # (KernelUse, [name of A, B, C])
        gemm_positions: Dict[str, set] = {}
        vector: set = set()
        cube: set = set()
        # every use before the Python-level `if`s are settled: each site says which it compiles
        for u in kernel.raw_uses:
            prim = u.prim
            call = u.use.call
            if prim in ("set_flag", "wait_flag"):
                self.flags.append(u)
            if not isinstance(call, ast.Call):
                if prim == STORE and u.use.in_parallel:
                    name = self.name_of(call, u)
                    if name is not None:
                        vector.add(name)
                continue
            if prim == "copy" and len(call.args) >= 2:
                self.copies.append(Copy(u, self.endpoint(call.args[0], u), self.endpoint(call.args[1], u)))
            elif is_cube_op(prim):
                names = [self.name_of(a, u) for a in call.args[:3]]
                self.gemms.append((u, names))
                for pos, name in enumerate(names):
                    if name is not None:
                        gemm_positions.setdefault(name, set()).add(pos)
                        cube.add(name)
            elif is_vector_op(prim) and self.alloc_uses:
                for a in list(call.args) + [kw.value for kw in call.keywords]:
                    name = self.name_of(a, u)
                    if name is not None:
                        vector.add(name)
            elif prim == "Parallel":
                vector.update(n for n in u.use.stores if n in fn.allocs)
        self.memory: Dict[str, Optional[str]] = {
            name: infer_memory(fn.allocs.get(name, ""), gemm_positions.get(name, set()), name in vector,
                               name in cube)
            for name in self.alloc_uses}
        self.annotations = _annotations(kernel)
        self._scalar_arith: Optional[List[ScalarArith]] = None
        self._sites: Optional[List["SiteFacts"]] = None
        self._touches: Dict[tuple, List[str]] = {}

    @property
    def scalar_arith(self) -> List["ScalarArith"]:
        if self._scalar_arith is None:
            self._scalar_arith = _scalar_arith(self.kernel.func)
        return self._scalar_arith

    def touched(self, u) -> List[str]:
        """The kernel buffers a use touches (the same for every site)."""
        key = (id(u.use.call), tuple(id(h.call) for h in u.via))
        found = self._touches.get(key)
        if found is None:
            found = self._touches[key] = _touched(self, u)
        return found

    def compiled(self, u) -> bool:
        """Whether some site compiles the use; without sites, the model's answer."""
        if self.sites:
            return any(site.compiles(u) for site in self.sites)
        return not u.maybe and any(k is u or (k.use is u.use and k.via == u.via) for k in self.kernel.uses)

    # -- names -------------------------------------------------------------
    def name_of(self, expr: Optional[ast.expr], use) -> Optional[str]:
        """The kernel's own buffer (allocation or tensor parameter) an operand
        names, following macro parameters back; None for anything else."""
        expr, owner = trace(expr, use, self.kernel.func)
        while isinstance(expr, (ast.Subscript, ast.Attribute)):
            if isinstance(expr, ast.Attribute):
                return None  # `buf.data`, `self.x`: not a buffer we know
            expr = expr.value
        if not isinstance(expr, ast.Name):
            return None
        fn = self.kernel.func
        scope = owner
        while isinstance(scope, Function):
            if scope is fn:
                return expr.id if expr.id in fn.allocs or expr.id in self.params else None
            if expr.id in scope.allocs or expr.id in scope.params or expr.id in scope.bound:
                return None  # the macro's own name
            scope = scope.parent
        return None

    def endpoint(self, expr: ast.expr, use) -> Endpoint:
        name = self.name_of(expr, use)
        traced, _ = trace(expr, use, self.kernel.func)
        indices = None
        if isinstance(traced, ast.Subscript):
            sl = traced.slice
            if hasattr(ast, "Index") and isinstance(sl, getattr(ast, "Index")):  # Python 3.8
                sl = sl.value  # type: ignore[attr-defined]
            indices = list(sl.elts) if isinstance(sl, ast.Tuple) else [sl]
        kind = None
        if name is not None:
            kind = "gm" if name in self.params else self.kernel.func.allocs.get(name)
        return Endpoint(traced, name, kind, indices)

    # -- sites ---------------------------------------------------------------
    @property
    def sites(self) -> List["SiteFacts"]:
        if self._sites is None:
            self._sites = [SiteFacts(self, s) for s in kernel_sites(self.kernel, self.model)]
        return self._sites


class SiteFacts:
    """The buffer table and footprints of a kernel at one compile site."""

    def __init__(self, facts: KernelFacts, site: SiteValues):
        self.facts = facts
        self.site = site
        kernel = facts.kernel
        self.threads = None
        for launch in kernel.launches:
            self.threads = launch.threads_count
            if self.threads is None and launch.site_threads:
                # `threads` differs between sites (a factory parameter): this site's value
                value = site.value(launch.keyword("threads"))
                if isinstance(value, (list, tuple)) and len(value) == 1:
                    value = value[0]
                self.threads = value if type(value) is int and value in (1, 2) else None
        uses = _settled(kernel, site)
        # the calls this site compiles (a copy or gemm in a branch it drops is not judged here)
        self.live = {(id(u.use.call), tuple(id(h.call) for h in u.via)) for u in uses if not u.maybe}
        live_allocs = {id(u.use.call) for u in uses if not u.via and not u.maybe and u.prim.startswith("alloc_")}
        self.buffers: Dict[str, Buffer] = {}
        for name, u in facts.alloc_uses.items():
            if id(u.use.call) not in live_allocs:
                continue  # in a branch this site drops (or may drop)
            buf = Buffer(name, kernel.func.allocs.get(name, ""), facts.memory.get(name), u)
            self._size(buf, u.use.call)
            self.buffers[name] = buf
        for u in uses:
            if u.maybe or u.prim.startswith("alloc_") or u.prim == "annotate_address":
                continue
            for name in facts.touched(u):
                buf = self.buffers.get(name)
                if buf is not None:
                    key = u.order
                    if buf.first is None or key < buf.first:
                        buf.first = key
                    if buf.last is None or key > buf.last:
                        buf.last = key
        self.annotated = False
        for name, expr in facts.annotations:
            buf = self.buffers.get(name)
            if buf is not None:
                value = site.value(expr)
                buf.address = value if type(value) is int else UNKNOWN
                self.annotated = True
        self._footprints: Dict[str, Footprint] = {}

    def compiles(self, u) -> bool:
        """Whether this site compiles the use (settled in its frame, not ``maybe``)."""
        return (id(u.use.call), tuple(id(h.call) for h in u.via)) in self.live

    def _size(self, buf: Buffer, call: ast.Call) -> None:
        if len(call.args) < 1:
            return
        shape = self.site.value(call.args[0])
        dtype_expr = call.args[1] if len(call.args) > 1 else next(
            (kw.value for kw in call.keywords if kw.arg == "dtype"), None)
        dtype = dtype_name(self.site.value(dtype_expr)) if dtype_expr is not None else None
        if type(shape) is int:
            shape = (shape,)
        if isinstance(shape, (tuple, list)) and shape and all(type(d) is int and d > 0 for d in shape):
            dims = list(shape)
            if buf.memory == "UB" and self.threads == 2:
                dims[0] = max(1, dims[0] // 2)  # AscendVidReduction (ascend_vid_reduction.cc:112-125)
            buf.shape = tuple(dims)
        buf.dtype = dtype
        if buf.shape is not None and dtype in DTYPE_BYTES:
            n = DTYPE_BYTES[dtype]
            for d in buf.shape:
                n *= d
            buf.bytes = align(n)

    def footprint(self, memory: str) -> Footprint:
        """Bytes of ``memory`` this site needs, as the compiler lays it out:
        planning off, the linear allocator (annotated buffers at their
        address, UB's others after the highest annotated end, L1/L0's others
        from 0); planning on, the peak of the live sizes (a buffer lives from
        its first to its last touch). Unknown (``bytes`` None) when the
        planning state or an annotated address is not known."""
        hit = self._footprints.get(memory)
        if hit is not None:
            return hit
        # a buffer nothing touches is dropped before memory planning (an upstream example
        # relies on it: rms_norm's cast buffers when no cast is needed); what we cannot see
        # touched is left out too, so the total stays a lower bound
        bufs = [b for b in self.buffers.values() if b.memory == memory and b.first is not None]
        known = [b for b in bufs if b.bytes is not None]
        complete = len(known) == len(bufs)
        planning = self.site.planning()
        result = Footprint(memory, None, None, known, complete)
        if planning is False:
            annotated = [b for b in known if b.address is not None]
            if any(b.address is UNKNOWN for b in bufs):
                pass  # an alias we cannot place
            else:
                end = max([b.address + b.bytes for b in annotated], default=0)  # type: ignore[operator]
                rest = sum(b.bytes for b in known if b.address is None)  # type: ignore[misc]
                total = (align(end) + rest) if memory == "UB" else max(end, rest)
                result = Footprint(memory, total, "linear", known, complete)
        elif planning is True:
            if not any(b.address is not None for b in bufs):
                live = [b for b in known if b.first is not None]
                peak = max([b.bytes for b in known] or [0])  # type: ignore[type-var]
                for b in live:
                    at = sum(o.bytes for o in live if o.first <= b.first <= o.last)  # type: ignore[misc,operator]
                    peak = max(peak, at)
                result = Footprint(memory, peak, "peak", known, complete)
        self._footprints[memory] = result
        return result

    def footprints(self) -> List[Footprint]:
        return [self.footprint(m) for m in MEMORIES]


# -- reading the kernel -------------------------------------------------------

def _settled(kernel, site: SiteValues) -> list:
    """The kernel's uses with the Python-level `if` tests settled in this
    site's frame (TVMScript keeps only the taken branch); a use under a test
    that cannot be evaluated stays, marked ``maybe`` where the model says so."""
    from .model import settle_use

    closure = (kernel.func, site.closure, site.ev)
    return [u for u in (settle_use(u, kernel.resolver, closure) for u in kernel.raw_uses) if u is not None]


def _tensor_params(fn: Function) -> Dict[str, Optional[int]]:
    """A prim_func's ``T.Tensor`` / ``T.Buffer`` parameters and their rank."""
    out: Dict[str, Optional[int]] = {}
    args = fn.node.args  # type: ignore[attr-defined]
    for a in list(args.posonlyargs) + list(args.args) + list(args.kwonlyargs):
        ann = a.annotation
        if not isinstance(ann, ast.Call) or not ann.args:
            continue
        q = qualname(ann.func, fn)
        prim = canonical_prim(q) if q else None
        if prim not in ("Tensor", "Buffer"):
            continue
        shape = ann.args[0]
        out[a.arg] = len(shape.elts) if isinstance(shape, (ast.Tuple, ast.List)) else None
    return out


def _touched(facts: KernelFacts, u) -> List[str]:
    call = u.use.call
    if u.prim == STORE:
        name = facts.name_of(call, u)  # type: ignore[arg-type]
        return [name] if name else []
    if u.prim == "Parallel":
        return [n for n in u.use.stores if n in facts.alloc_uses]
    if not isinstance(call, ast.Call):
        return []
    names = []
    for a in list(call.args) + [kw.value for kw in call.keywords]:
        name = facts.name_of(a, u)
        if name is not None:
            names.append(name)
    return names


def _annotations(kernel) -> List[Tuple[str, ast.expr]]:
    """(buffer, offset expression) for every ``T.annotate_address`` entry the
    kernel itself writes (an annotation we cannot read makes no entry)."""
    out = []
    for u in kernel.uses_of("annotate_address"):
        call = u.use.call
        if u.via or not isinstance(call, ast.Call) or not call.args or not isinstance(call.args[0], ast.Dict):
            continue
        for key, value in zip(call.args[0].keys, call.args[0].values):
            if isinstance(key, ast.Name):
                out.append((key.id, value))
    return out


_ARITH = (ast.Add, ast.Sub, ast.Mult, ast.Div)


def _scalar_arith(fn: Function) -> List[ScalarArith]:
    """Assignments in the prim_func body, outside ``T.Parallel`` /
    ``T.vectorized`` loops, that apply + - * / to a load of an on-chip buffer
    (``ub[i]``) or to a local bound once to such a load (``a = ub[i]``).
    A ``T.cast(...)`` operand is not a load."""
    loads: Dict[str, str] = {}  # local name -> buffer it was loaded from
    for name, binds in fn.assigns.items():
        if len(binds) == 1 and isinstance(binds[0].value, ast.Subscript):
            base = binds[0].value.value
            if isinstance(base, ast.Name) and base.id in fn.allocs:
                loads[name] = base.id
    out: List[ScalarArith] = []

    def operand(node: ast.expr) -> Optional[str]:
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in fn.allocs:
            return node.value.id
        if isinstance(node, ast.Name) and node.id in loads:
            return loads[node.id]
        return None

    def visit_expr(stmt: ast.stmt, expr: ast.expr) -> None:
        stack = [expr]
        while stack:
            node = stack.pop()
            if isinstance(node, ast.Call):
                continue  # T.cast(x, "float32"), T.exp(...): what is inside is converted or not scalar arithmetic
            if isinstance(node, ast.BinOp) and isinstance(node.op, _ARITH):
                names = [n for n in (operand(node.left), operand(node.right)) if n is not None]
                if names:
                    out.append(ScalarArith(stmt, node, names))
                    return
            stack.extend(n for n in ast.iter_child_nodes(node) if isinstance(n, ast.expr))

    def block(stmts) -> None:
        for stmt in stmts:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if isinstance(stmt, ast.For):
                it = stmt.iter
                prim = None
                if isinstance(it, ast.Call):
                    q = qualname(it.func, fn)
                    prim = canonical_prim(q) if q else None
                if prim in ("Parallel", "vectorized"):
                    continue
                block(stmt.body)
                block(stmt.orelse)
                continue
            if isinstance(stmt, ast.Assign):
                if all(isinstance(t, (ast.Subscript, ast.Name)) for t in stmt.targets):
                    visit_expr(stmt, stmt.value)
            elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, _ARITH):
                name = operand(stmt.target) if isinstance(stmt.target, ast.Subscript) else None
                if name is not None:
                    out.append(ScalarArith(stmt, stmt, [name]))
                else:
                    visit_expr(stmt, stmt.value)
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, field, None)
                if inner and not isinstance(stmt, ast.For):
                    block(inner)

    block(fn.node.body)  # type: ignore[attr-defined]
    return out


_CACHE_ATTR = "_tla_facts"


def facts(model, kernel) -> KernelFacts:
    """The kernel's facts, built on first use and kept for the model's life."""
    cache = _cache_of(model)
    found = cache.get(id(kernel))
    if found is None or found.kernel is not kernel:
        found = KernelFacts(model, kernel)
        cache[id(kernel)] = found
    return found


_CACHES: Dict[int, Tuple[object, Dict[int, KernelFacts]]] = {}


def _cache_of(model) -> Dict[int, KernelFacts]:
    """Per-model cache without a slot on FileModel: keyed by the model's id
    and checked by identity (ids are reused once a model is gone)."""
    entry = _CACHES.get(id(model))
    if entry is None or entry[0] is not model:
        _CACHES.clear()  # one file is linted at a time: keep no older model alive
        entry = (model, {})
        _CACHES[id(model)] = entry
    return entry[1]
