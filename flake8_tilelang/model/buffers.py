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
from .evaluate.values import EnumMemberV
from .nodes import STORE, Function
from .sides import VECTOR_TILE_OPS, trace
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
    the ``T.tile.*`` ops it defines and ``T.reduce*`` (copies, gemm and
    bookkeeping are not)."""
    return prim in VECTOR_TILE_OPS or prim.startswith("reduce")


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
                 "address", "versions")

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
        # copies the software pipeline keeps: k for a buffer a `T.Pipelined(num_stages=k)`
        # stage fills from GM for a later stage (InjectSoftwarePipeline), else 1
        self.versions = 1

    def __repr__(self) -> str:
        return "<Buffer %s %s %s %s %s>" % (self.name, self.memory, self.shape, self.dtype, self.bytes)

    def describe(self) -> str:
        """``c_ub float32 128x256 = 131,072 B``."""
        shape = "x".join(str(d) for d in self.shape) if self.shape else "?"
        if self.versions > 1:
            shape += " x%d stages" % self.versions
        return "%s %s %s = %s B" % (self.name, self.dtype, shape, format(self.bytes or 0, ","))

    def raw_bytes(self) -> Optional[int]:
        """Elements x element size of one copy (before rounding and stages)."""
        if self.shape is None or self.dtype not in DTYPE_BYTES:
            return None
        n = DTYPE_BYTES[self.dtype]
        for d in self.shape:
            n *= d
        return n

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

    __slots__ = ("expr", "name", "kind", "indices", "exact")

    def __init__(self, expr: Optional[ast.expr], name: Optional[str], kind: Optional[str],
                 indices: Optional[List[ast.expr]], exact: bool = True):
        self.expr = expr
        self.name = name
        self.kind = kind
        self.indices = indices  # None: the whole buffer; else one expression per written index
        # False when a macro subscripts a buffer parameter (`ub[:, 0:4]` with `ub` passed in):
        # following the parameter back drops that subscript, so the region is not known
        self.exact = exact


class Copy:
    __slots__ = ("use", "src", "dst")

    def __init__(self, use, src: Endpoint, dst: Endpoint):
        self.use = use
        self.src = src
        self.dst = dst


class ScalarArith:
    """``ub[i] = a[i] + b[i]`` / ``x = a_val * 2`` outside T.Parallel: the
    statement, the operator node, and the kernel buffers whose loads are
    operands. In a ``@T.macro`` the kernel reaches, ``via`` is the chain of
    macro calls from the kernel and ``uses`` the kernel uses made through it
    (a site compiles the arithmetic when it compiles one of them)."""

    __slots__ = ("stmt", "node", "buffers", "via", "uses")

    def __init__(self, stmt: ast.stmt, node: ast.AST, buffers: List[str], via: tuple = (), uses: tuple = ()):
        self.stmt = stmt
        self.node = node
        self.buffers = buffers
        self.via = via
        self.uses = uses

    @property
    def report_node(self) -> ast.AST:
        """Where the kernel reaches it: the outermost macro call, or itself."""
        return self.via[0].call if self.via else self.node

    def via_text(self) -> str:
        if not self.via:
            return ""
        chain = " -> ".join("`%s`" % hop.macro.name for hop in self.via)
        where = "line %d" % self.node.lineno  # type: ignore[attr-defined]
        home, there = self.via[0].caller.filename, self.via[-1].macro.filename
        if there and there != home:
            from .config import shown_path

            where = "%s:%d" % (shown_path(there, home), self.node.lineno)  # type: ignore[attr-defined]
        return " through macro %s (the arithmetic is at %s)" % (chain, where)


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
        untold: set = set()
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
            elif (is_vector_op(prim) or prim.startswith("tile.")) and self.alloc_uses:
                # a `T.tile.*` op the compiler does not define: its buffers' memory is not told
                into = vector if is_vector_op(prim) else untold
                for a in list(call.args) + [kw.value for kw in call.keywords]:
                    name = self.name_of(a, u)
                    if name is not None:
                        into.add(name)
            elif prim == "Parallel":
                vector.update(n for n in u.use.stores if n in fn.allocs)
        self.memory: Dict[str, Optional[str]] = {
            name: infer_memory(fn.allocs.get(name, ""), gemm_positions.get(name, set()), name in vector,
                               name in cube) if name not in untold or fn.allocs.get(name) in EXPLICIT else None
            for name in self.alloc_uses}
        self.annotations = _annotations(kernel)
        self._scalar_arith: Optional[List[ScalarArith]] = None
        self._pipelines: Optional[List["Pipeline"]] = None
        self._sites: Optional[List["SiteFacts"]] = None
        self._touches: Dict[tuple, List[str]] = {}

    @property
    def pipelines(self) -> List["Pipeline"]:
        """The kernel's own ``for ... in T.Pipelined(...)`` loops (not those in
        macros), read from its AST once."""
        if self._pipelines is None:
            self._pipelines = _pipelines(self)
        return self._pipelines

    @property
    def scalar_arith(self) -> List["ScalarArith"]:
        if self._scalar_arith is None:
            fn = self.kernel.func
            found = _scalar_arith(fn, lambda name: name in fn.allocs)
            for via, uses in self._macro_chains():
                found.extend(self._macro_arith(via, uses))
            self._scalar_arith = found
        return self._scalar_arith

    def _macro_chains(self) -> List[tuple]:
        """(chain of macro hops, kernel uses made through it) for every
        ``@T.macro`` the kernel reaches, outermost first."""
        chains: Dict[tuple, tuple] = {}
        for u in self.kernel.raw_uses:
            for i in range(1, len(u.via) + 1):
                key = tuple(id(h.call) for h in u.via[:i])
                entry = chains.get(key)
                if entry is None:
                    entry = chains[key] = (u.via[:i], [])
                entry[1].append(u)
        vectorised: Dict[int, set] = {}
        out = []
        for via, uses in chains.values():
            if not via[-1].macro.is_macro:
                continue
            # a macro called inside T.Parallel / T.vectorized is vectorised with its caller's loop
            if any(id(hop.call) in _vector_loop_calls(hop.caller, vectorised) for hop in via):
                continue
            out.append((via, tuple(uses)))
        return out

    def _macro_arith(self, via: tuple, uses: tuple) -> List["ScalarArith"]:
        """The macro's scalar arithmetic on loads of its buffer parameters,
        each parameter followed back to the kernel buffer the call passes."""
        from .model import KernelUse
        from .nodes import Use

        macro: Function = via[-1].macro
        out = []
        for arith in _scalar_arith(macro, lambda name: name in macro.params):
            names = []
            for param in arith.buffers:
                probe = KernelUse(Use(STORE, arith.stmt, macro, None), via)
                name = self.name_of(ast.Name(id=param, ctx=ast.Load()), probe)
                if name is not None and name in self.alloc_uses:
                    names.append(name)
            if names:
                out.append(ScalarArith(arith.stmt, arith.node, names, via, uses))
        return out

    def touched(self, u) -> List[str]:
        """The kernel buffers a use touches (the same for every site)."""
        found = self._touches.get(u.key)
        if found is None:
            found = self._touches[u.key] = _touched(self, u)
        return found

    def compiled(self, u) -> bool:
        """Whether some site compiles the use; without sites, the model's answer."""
        if self.sites:
            return any(site.compiles(u) for site in self.sites)
        return not u.maybe and any(k is u or (k.use is u.use and k.via == u.via) for k in self.kernel.uses)

    def event_ids(self, use) -> List[Tuple[int, Optional["SiteFacts"]]]:
        """The event ids a ``T.set_flag`` / ``T.wait_flag`` gets where it is
        compiled, with the site: its third argument (a macro parameter
        followed back to what the kernel passes) evaluated at each site that
        compiles it, else as a constant of the kernel's scope (site None).
        Ints and int-enum members only."""
        from .calls import argument

        call = use.use.call
        if not isinstance(call, ast.Call):
            return []
        expr = argument(call, 2, "eventId") or argument(call, 2, "event_id")
        if expr is None:
            return []
        traced, owner = trace(expr, use, self.kernel.func)
        out: List[Tuple[int, Optional[SiteFacts]]] = []
        if owner is self.kernel.func and traced is not None:
            for site in self.sites:
                if site.compiles(use):
                    v = int_value(site.site.value(traced))
                    if v is not None:
                        out.append((v, site))
        if not out:
            v = int_value(self.kernel.arg_value(use, 2, "eventId"))
            if v is not None:
                out.append((v, None))
        return out

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
        return Endpoint(traced, name, kind, indices, _subscripts_kept(expr, use))

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
        # `threads=` of the launch here: None (absent: Expert), 1 or 2, UNKNOWN
        # (not known here, or illegal: UB buffers' first dimension is then unknown)
        self.threads: object = None
        for launch in kernel.launches:
            value = launch.threads
            if value is UNKNOWN:  # differs between sites (a factory parameter): this site's value
                value = launch.threads_with(site.value)
            if isinstance(value, (list, tuple)) and len(value) == 1:
                value = value[0]
            self.threads = value if value is None or (type(value) is int and value in (1, 2)) else UNKNOWN
        uses = _settled(kernel, site)
        # the calls this site compiles (a copy or gemm in a branch it drops is not judged here)
        self.live = {u.key for u in uses if not u.maybe}
        live_allocs = {id(u.use.call) for u in uses if not u.via and not u.maybe and u.prim.startswith("alloc_")}
        # a buffer a macro allocates is not in the table: the footprint is then a partial sum
        self.macro_allocs = any(u.via and not u.maybe and u.prim.startswith("alloc_") for u in uses)
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
        for loop in facts.pipelines:
            self._stage_versions(loop, uses)

    def compiles(self, u) -> bool:
        """Whether this site compiles the use (settled in its frame, not ``maybe``)."""
        return u.key in self.live

    def _size(self, buf: Buffer, call: ast.Call) -> None:
        if len(call.args) < 1:
            return
        shape = self.site.value(call.args[0])
        dtype_expr = call.args[1] if len(call.args) > 1 else next(
            (kw.value for kw in call.keywords if kw.arg == "dtype"), None)
        dtype = dtype_name(self.site.value(dtype_expr)) if dtype_expr is not None else None
        if type(shape) is int:
            shape = (shape,)
        if buf.memory == "UB" and self.threads is UNKNOWN:
            shape = None  # each vector core may hold half of it (threads=2) or all of it
        if isinstance(shape, (tuple, list)) and shape and all(type(d) is int and d > 0 for d in shape):
            dims = list(shape)
            if buf.memory == "UB" and self.threads == 2:
                dims[0] = max(1, dims[0] // 2)  # AscendVidReduction (ascend_vid_reduction.cc:112-125)
            buf.shape = tuple(dims)
        buf.dtype = dtype
        raw = buf.raw_bytes()
        if raw is not None:
            buf.bytes = align(raw)

    def _stage_versions(self, loop: "Pipeline", uses: list) -> None:
        """``T.Pipelined(..., num_stages=k)``, k >= 2, as PipelinePlanning and
        InjectSoftwarePipeline lay it out (``src/transform/pipeline_planning.cc``,
        ``inject_pipeline.cc:447-501``): a statement of the loop body that only
        copies GM into a UB/L1 buffer is stage 0, every other statement stage
        k (or k - 1), and a buffer the copy fills and a later statement reads
        gets k versions when it is allocated in the loop (every mention of it
        is inside the loop body: PlanAndUpdateBufferAllocationLocation moves
        it there). Only what is provable: a direct statement of the kernel's
        loop, a body that stays on one core (a Cube+Vector body goes through
        CrossCorePipeline, which versions differently), a buffer no
        ``T.annotate_address`` places. Anything else keeps one copy (the
        footprint stays a lower bound)."""
        facts = self.facts
        if not self.compiles(loop.use):
            return
        k = int_value(self.site.value(loop.stages)) if loop.stages is not None else None
        if k is None or k < 2:
            return
        inside = [u for u in uses if not u.maybe and loop.index_of(u) is not None]
        memories = set()
        for u in inside:
            for name in facts.touched(u):
                if name in facts.params or facts.kernel.func.allocs.get(name) == "alloc_var":
                    continue  # GM tensors and scalars say nothing about the core
                memories.add(facts.memory.get(name))
        cube = memories & {"L1", "L0A", "L0B", "L0C"}
        if None in memories or (cube and "UB" in memories):
            return  # a body whose core is not known, or a Cube+Vector one
        for w, u in loop.gm_copies(facts, inside):
            buf = self.buffers.get(u)
            if buf is None or buf.memory not in ("UB", "L1") or buf.address is not None or buf.bytes is None:
                continue
            if not loop.holds(facts, buf.name) or not loop.read_after(facts, buf.name, w, inside):
                continue
            buf.versions = k
            buf.bytes = align(k * buf.raw_bytes())  # type: ignore[operator]

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
        complete = len(known) == len(bufs) and not self.macro_allocs
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

class Pipeline:
    """A ``for ... in T.Pipelined(...)`` loop of the kernel: its use, the
    ``num_stages`` expression, and which top-level statement of its body
    each node belongs to."""

    def __init__(self, use, node: ast.For, stages: Optional[ast.expr], names: Dict[str, List[ast.Name]]):
        self.use = use
        self.node = node
        self.stages = stages
        self.body = node.body
        self._where: Dict[int, int] = {}
        for i, stmt in enumerate(node.body):
            for n in ast.walk(stmt):
                self._where[id(n)] = i
        self._names = names  # buffer name -> every Load of it in the kernel body

    def index_of(self, u) -> Optional[int]:
        """The body statement a kernel use sits in (through macros: the kernel's call)."""
        return self._where.get(id(u.via[0].call if u.via else u.use.call))

    def gm_copies(self, facts, inside) -> List[Tuple[int, str]]:
        """(statement index, buffer) for body statements that are a bare
        ``T.copy(<GM>, <buffer>)`` of the kernel: PipelinePlanning's copy stage."""
        out = []
        for u in inside:
            if u.via or u.prim != "copy" or not isinstance(u.use.call, ast.Call):
                continue
            i = self.index_of(u)
            stmt = self.body[i]  # type: ignore[index]
            if not (isinstance(stmt, ast.Expr) and stmt.value is u.use.call) or len(u.use.call.args) < 2:
                continue
            src = facts.endpoint(u.use.call.args[0], u)
            dst = facts.endpoint(u.use.call.args[1], u)
            if src.kind == "gm" and dst.name is not None and dst.kind != "gm" and dst.exact:
                out.append((i, dst.name))
        return out

    def holds(self, facts, name: str) -> bool:
        """Every mention of the buffer in the kernel is inside the loop body."""
        names = self._names.get(name, ())
        return bool(names) and all(id(n) in self._where for n in names)

    def read_after(self, facts, name: str, w: int, inside) -> bool:
        """A body statement after ``w`` reads the buffer: a copy from it, a
        gemm A/B, a vector op's source, a reduce's input, or an element load."""
        for u in inside:
            i = self.index_of(u)
            if i is None or i <= w or not isinstance(u.use.call, ast.Call):
                continue
            args = u.use.call.args
            prim = u.prim
            if prim == "copy" or prim.startswith("reduce"):
                read = args[:1]
            elif is_cube_op(prim):
                read = args[:2]
            elif prim.startswith("tile."):
                read = args[1:]
            else:
                continue
            if any(facts.name_of(a, u) == name for a in read):
                return True
        for stmt in self.body[w + 1:]:
            stack: List[Tuple[ast.AST, bool]] = [(stmt, False)]
            while stack:
                n, is_arg = stack.pop()
                # an element load (`y[i] = x_ub[i] * 2`); a subscript passed to a call is a
                # region whose role the call decides (`T.copy(X[...], x_ub[0:4, :])` writes it)
                if isinstance(n, ast.Subscript) and not is_arg and isinstance(n.ctx, ast.Load) and \
                        isinstance(n.value, ast.Name) and n.value.id == name:
                    return True
                args = {id(a) for a in n.args} if isinstance(n, ast.Call) else ()
                stack.extend((c, id(c) in args) for c in ast.iter_child_nodes(n))
        return False


def _pipelines(facts) -> List[Pipeline]:
    fn = facts.kernel.func
    loops = [u for u in facts.kernel.raw_uses if u.prim == "Pipelined" and not u.via]
    if not loops:
        return []
    by_call = {id(u.use.call): u for u in loops}
    names: Dict[str, List[ast.Name]] = {}
    found = []
    for node in ast.walk(fn.node):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in fn.allocs:
            names.setdefault(node.id, []).append(node)
        elif isinstance(node, ast.For) and id(node.iter) in by_call:
            call = node.iter
            stages = next((kw.value for kw in call.keywords if kw.arg == "num_stages"),  # type: ignore
                          call.args[2] if len(call.args) > 2 else None)  # type: ignore[attr-defined]
            if len(call.args) > 3 or any(kw.arg != "num_stages" and kw.arg != "cross_interval"  # type: ignore
                                         for kw in call.keywords):  # type: ignore[attr-defined]
                stages = None  # explicit order / stage lists: the planner's own layout is not used
            found.append((by_call[id(call)], node, stages))
    return [Pipeline(u, node, stages, names) for u, node, stages in found]


def _settled(kernel, site: SiteValues) -> list:
    """The kernel's uses with the Python-level `if` tests settled in this
    site's frame (TVMScript keeps only the taken branch); a use under a test
    that cannot be evaluated stays, marked ``maybe`` where the model says so."""
    from .model import settle_use

    closure = (kernel.func, site.closure, site.ev)
    return [u for u in (settle_use(u, kernel.resolver, closure) for u in kernel.raw_uses) if u is not None]


def _subscripts_kept(expr: Optional[ast.expr], use) -> bool:
    """Whether following ``expr`` back through the macro parameters (as
    ``sides.trace`` does) only ever replaces bare names: a macro's
    ``buf[:, 0:4]`` on a parameter ``buf`` is a region of whatever the caller
    passed, which the traced expression no longer shows."""
    from .calls import bind_arguments

    owner = use.use.owner
    level = len(use.via)
    while expr is not None and level > 0 and isinstance(owner, Function) and owner.is_macro:
        base = expr
        while isinstance(base, (ast.Subscript, ast.Attribute)):
            base = base.value
        if not isinstance(base, ast.Name) or base.id not in owner.params:
            return True
        if base is not expr:
            return False
        hop = use.via[level - 1]
        expr = bind_arguments(hop.macro.node, hop.call).get(base.id)
        owner = hop.caller
        level -= 1
    return True


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


def _vector_loop_prim(stmt: ast.stmt, fn: Function) -> Optional[str]:
    it = stmt.iter if isinstance(stmt, ast.For) else None
    if isinstance(it, ast.Call):
        q = qualname(it.func, fn)
        prim = canonical_prim(q) if q else None
        if prim in ("Parallel", "vectorized"):
            return prim
    return None


def _vector_loop_calls(fn: Function, cache: Dict[int, set]) -> set:
    """ids of the calls inside ``T.Parallel`` / ``T.vectorized`` loops of a
    function's own body (nested defs are other functions)."""
    found = cache.get(id(fn))
    if found is not None:
        return found
    found = cache[id(fn)] = set()
    stack = list(getattr(fn.node, "body", ()))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.For) and _vector_loop_prim(node, fn):
            found.update(id(n) for stmt in node.body for n in ast.walk(stmt) if isinstance(n, ast.Call))
            continue
        stack.extend(ast.iter_child_nodes(node))
    return found


def _scalar_arith(fn: Function, is_buffer) -> List[ScalarArith]:
    """Assignments in the prim_func body, outside ``T.Parallel`` /
    ``T.vectorized`` loops, that apply + - * / to a load of an on-chip buffer
    (``ub[i]``) or to a local bound once to such a load (``a = ub[i]``).
    A ``T.cast(...)`` operand is not a load."""
    loads: Dict[str, str] = {}  # local name -> buffer it was loaded from
    for name, binds in fn.assigns.items():
        if len(binds) == 1 and isinstance(binds[0].value, ast.Subscript):
            base = binds[0].value.value
            if isinstance(base, ast.Name) and is_buffer(base.id):
                loads[name] = base.id
    out: List[ScalarArith] = []

    def operand(node: ast.expr) -> Optional[str]:
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and is_buffer(node.value.id):
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


def facts(model, kernel) -> KernelFacts:
    """The kernel's facts, built on the first question and kept on the kernel
    (``Kernel.onchip``) for the model's life: a run whose selected rules never
    ask (``--select TLA00``) never builds a buffer table or a footprint."""
    found = kernel.onchip
    if found is None or found.model is not model:
        found = kernel.onchip = KernelFacts(model, kernel)
    return found


_INT_ENUM_BASES = frozenset({"enum.IntEnum", "enum.IntFlag"})


def int_value(value) -> Optional[int]:
    """An int the evaluator holds: a plain int (not a bool), or a member of an
    int enum (``class Ev(enum.IntEnum)``, ``class Ev(int, enum.Enum)``), which
    TVMScript passes on as its int. Anything else: None."""
    if type(value) is int:
        return value
    if isinstance(value, EnumMemberV) and type(value.value) is int and _int_enum(value.cls, 0):
        return value.value
    return None


def _int_enum(cls, depth: int) -> bool:
    """Whether an enum class of the user's derives from int (read from the
    bases its ``class`` statement names, through the file's imports)."""
    scope = getattr(cls, "scope", None)
    node = getattr(scope, "node", None)
    if not isinstance(node, ast.ClassDef) or depth > 8:
        return False
    for base in node.bases:
        if isinstance(base, ast.Name) and base.id == "int":
            return True
        q = qualname(base, scope.parent) if scope.parent is not None else None
        if q in _INT_ENUM_BASES:
            return True
    return any(_int_enum(b, depth + 1) for b in getattr(cls, "bases", ()))
