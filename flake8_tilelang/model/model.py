"""The per-file kernel model every rule queries.

``FileModel.kernels`` lists each ``@T.prim_func`` with the configs that reach
it (one per compile site), its launches, and every TileLang primitive it uses,
directly or through ``@T.macro`` helpers, each tied to the line in the kernel
a user would change.
"""
from __future__ import annotations

import ast
import os
from typing import Dict, Iterator, List, Optional, Tuple

from .. import constants as C
from . import dialect as _dialect
from .build import Builder
from .config import PassConfig
from .evaluate import export, spread_keywords, truth
from .evaluate.values import MacroV
from .nodes import STORE, CompileSite, Function, Launch, Use
from .resolve import UNKNOWN, Resolver
from .calls import argument, root_name
from .sides import buffer_kind, op_side, trace

_MAX_MACRO_DEPTH = 8

_PIPE_PRIMS = frozenset({"pipe_barrier", "set_flag", "wait_flag"})


class MacroHop:
    """One macro call on the way from a kernel to a primitive."""

    __slots__ = ("macro", "call", "caller", "callee", "kernel")

    def __init__(self, macro: Function, call: ast.Call, caller: Function,
                 callee: Optional[ast.expr] = None, kernel: Optional[Function] = None):
        self.macro = macro
        self.call = call  # the call of ``macro``
        self.caller = caller  # the function (kernel or macro) that makes the call
        # A call of a value (`body(x)`, `BODIES[mode](x)`, a macro's parameter the kernel
        # passes a macro for): ``callee``, an expression of ``kernel``, is ``macro`` in some
        # frame the kernel was made in; settled per compile site.
        self.callee = callee
        self.kernel = kernel

    @property
    def call_scope_kind(self) -> Optional[str]:
        return self.caller.call_scope_kinds.get(id(self.call))


class KernelUse:
    """A primitive as the kernel sees it: ``use`` may sit inside a macro;
    ``line``/``col`` are where the kernel reaches it (the outermost macro
    call, or the primitive itself)."""

    __slots__ = ("use", "via", "maybe")

    def __init__(self, use: Use, via: Tuple[MacroHop, ...] = (), maybe: bool = False):
        self.use = use
        self.via = via
        # True under a mode switch that could not be evaluated: the use may
        # not exist in the compiled kernel, so rules do not report it.
        self.maybe = maybe

    def __repr__(self) -> str:
        return "<KernelUse T.%s line %d%s>" % (self.prim, self.line, " maybe" if self.maybe else "")

    @property
    def prim(self) -> str:
        return self.use.prim

    @property
    def key(self) -> Tuple:
        """The same primitive reached the same way (through the same macro
        calls), under any config or site."""
        return (id(self.use.call), tuple([id(h.call) for h in self.via]) if self.via else ())

    @property
    def scope_kind(self) -> Optional[str]:
        """The innermost ``T.Scope`` around this use as the kernel runs it:
        inside the macro first, then around each macro call outwards."""
        if self.use.scope_kind is not None:
            return self.use.scope_kind
        for hop in reversed(self.via):
            if hop.call_scope_kind is not None:
                return hop.call_scope_kind
        return None

    @property
    def pipelined(self) -> Optional[Use]:
        """The innermost ``T.Pipelined`` loop around this use, as the kernel runs it."""
        if self.use.pipelined is not None:
            return self.use.pipelined
        for hop in reversed(self.via):
            loop = hop.caller.call_loops.get(id(hop.call))
            if loop is not None:
                return loop
        return None

    @property
    def loop_key(self) -> Optional[Tuple]:
        """Identifies the ``T.Pipelined`` loop instance around this use: the
        same loop reached through two macro calls is two loops in the kernel."""
        if self.use.pipelined is not None:
            return (tuple(id(h.call) for h in self.via), id(self.use.pipelined))
        for i in range(len(self.via) - 1, -1, -1):
            loop = self.via[i].caller.call_loops.get(id(self.via[i].call))
            if loop is not None:
                return (tuple(id(h.call) for h in self.via[:i]), id(loop))
        return None

    @property
    def own_loop_key(self) -> Tuple:
        """For a ``T.Pipelined`` use: the key its body's uses carry."""
        return (tuple(id(h.call) for h in self.via), id(self.use))

    @property
    def order(self) -> Tuple[int, ...]:
        """Program-order key within the kernel (macro bodies expanded in place)."""
        key: Tuple[int, ...] = ()
        for hop in self.via:
            key += (hop.call.lineno, hop.call.col_offset)
        return key + (self.use.call.lineno, self.use.call.col_offset)  # type: ignore[attr-defined]

    @property
    def report_node(self) -> ast.AST:
        return self.via[0].call if self.via else self.use.call

    @property
    def line(self) -> int:
        return self.report_node.lineno  # type: ignore[attr-defined]

    @property
    def col(self) -> int:
        return self.report_node.col_offset  # type: ignore[attr-defined]

    def describe(self) -> str:
        """How a message names this use: ```T.copy``` or ``a store into `buf```."""
        if self.use.prim == STORE:
            target = self.use.call
            while isinstance(target, (ast.Subscript, ast.Attribute)):
                target = target.value
            name = target.id if isinstance(target, ast.Name) else "a buffer"
            return "the store into `%s`" % name
        return "`T.%s`" % self.use.prim

    def via_text(self) -> str:
        """`` (through macro `wait_v` -> `sync`, whose `T.set_flag` is at line 40)``."""
        if not self.via:
            return ""
        chain = " -> ".join("`%s`" % hop.macro.name for hop in self.via)
        return " through macro %s (its `T.%s` is at %s)" % (chain, self.use.prim, self.where_text())

    def where_text(self) -> str:
        """``line 40`` in the kernel's file, ``utils.py:40`` in another module."""
        home = self.via[0].caller.filename if self.via else self.use.owner.filename
        if self.use.owner.filename and self.use.owner.filename != home:
            from .config import shown_path

            return "%s:%d" % (shown_path(self.use.owner.filename, home), self.use.line)
        return "line %d" % self.use.line


class Kernel:
    """A ``@T.prim_func``: the configs that reach it (one per compile site),
    its launches and every primitive it uses."""

    __slots__ = ("func", "configs", "uses", "resolver", "sites", "raw_uses", "_by_config", "_index", "onchip",
                 "_npuir_signs", "_compiled", "compiled_at", "_launches")

    def __init__(self, func: Function, uses: List[KernelUse], resolver: Optional[Resolver] = None,
                 raw_uses: Optional[List[KernelUse]] = None):
        self.func = func
        self.configs: List[PassConfig] = []
        self.uses = uses
        self.resolver = resolver
        self.sites: List["Site"] = []
        # every use before Python-level `if`s are settled, and per config the
        # uses settled with what that compile site passes to the kernel's builder
        self.raw_uses = raw_uses if raw_uses is not None else list(uses)
        self._by_config: Dict[int, List[KernelUse]] = {}
        self._index: Dict[int, Dict[str, List[KernelUse]]] = {}  # id(uses list) -> prim -> uses
        # the on-chip facts (buffer table, footprints): built by ``buffers.facts`` on the
        # first question a rule asks, so a run that selects no on-chip rule never builds them
        self.onchip = None
        self._npuir_signs: Optional[bool] = None  # read off raw_uses, which never change
        self._compiled: Optional[List[KernelUse]] = None
        # a kernel another module of the project defines, judged in this file: the
        # compile call here that compiles it (each call gets a Kernel of its own)
        self.compiled_at: Optional[ast.AST] = None
        self._launches: Optional[List[Launch]] = None  # its own, for such a kernel (per call)

    def __repr__(self) -> str:
        return "<Kernel %s line %d>" % (self.display_name, self.line)

    def uses_for(self, config: Optional[PassConfig]) -> List[KernelUse]:
        """The uses as compiled under ``config``; None: as some site compiles
        the kernel (each config's code merged: a use in a branch one site
        keeps is there, ``maybe`` only if it is so everywhere), for questions
        about the code whatever the config (a Cube op in `T.Scope("V")`)."""
        if config is not None:
            return self._by_config.get(id(config), self.uses)
        if self._compiled is None:
            merged: Optional[List[KernelUse]] = None
            for c in self.configs:
                own = self._by_config.get(id(c), self.uses)
                merged = own if merged is None else _union(merged, own)
            self._compiled = merged if merged is not None else self.uses
        return self._compiled

    def buffer_kind(self, expr: Optional[ast.expr], use: KernelUse) -> Optional[str]:
        """"alloc_ub", "alloc_L1", ..., "gm" for a parameter, or None."""
        return buffer_kind(expr, use, self.func)

    def traced_name(self, expr: Optional[ast.expr], use: KernelUse) -> Optional[str]:
        """The kernel-level name of a buffer a primitive touches (macro
        parameters followed back to the kernel's argument)."""
        expr, _ = trace(expr, use, self.func)
        while isinstance(expr, (ast.Subscript, ast.Attribute)):
            expr = expr.value
        return expr.id if isinstance(expr, ast.Name) else None

    @property
    def allocs(self) -> Dict[str, str]:
        """Buffers the kernel itself allocates (name -> allocation primitive),
        leaving out allocations in Python-level branches that are dropped or
        may be (see ``KernelUse.maybe``)."""
        return self.allocs_for(None, self.uses)

    def allocs_for(self, config: Optional[PassConfig], uses: Optional[List[KernelUse]] = None) -> Dict[str, str]:
        """``allocs`` as ``config``'s compile sites compile the kernel."""
        if uses is None:
            uses = self.uses_for(config)
        live = {id(u.use.call) for u in uses if not u.via and not u.maybe and u.prim.startswith("alloc_")}
        return {name: self.func.allocs[name] for name, call in self.func.alloc_calls.items()
                if id(call) in live and name in self.func.allocs}

    def binding(self, name: str) -> Optional[ast.expr]:
        """The single value a name seen from the kernel is assigned, if any."""
        if self.resolver is None:
            return None
        kind, _, binds = self.resolver.lookup(name, self.func)
        return binds[0].value if kind == "assign" and len(binds) == 1 else None

    def const(self, expr: Optional[ast.expr]) -> object:
        """A constant in the kernel's scope (``UNKNOWN`` if it is not one)."""
        if expr is None or self.resolver is None:
            return UNKNOWN
        return value_of(self.resolver, expr, self.func)

    def side(self, use: KernelUse) -> Optional[str]:
        """"C", "V", "CV" (cross-side copy) or None: see ``sides.op_side``."""
        return op_side(use, self.func)

    def arg_value(self, use: KernelUse, index: int, keyword: Optional[str] = None) -> object:
        """The constant value of a primitive's argument, following macro
        parameters back to the kernel; ``UNKNOWN`` when it cannot be known."""
        call = use.use.call
        expr = argument(call, index, keyword) if isinstance(call, ast.Call) else None
        if expr is None or self.resolver is None:
            return UNKNOWN
        if isinstance(expr, ast.Name):
            expr, owner = trace(expr, use, self.func)
        else:
            owner = use.use.owner  # a subscript/call of a macro parameter is not the argument
        if expr is None or owner is None:
            return UNKNOWN
        return value_of(self.resolver.owner_of(owner), expr, owner)

    def in_order(self, config: Optional[PassConfig] = None) -> List[KernelUse]:
        return sorted(self.uses_for(config), key=lambda u: u.order)

    @property
    def name(self) -> str:
        return self.func.name

    @property
    def line(self) -> int:
        return self.func.line

    @property
    def display_name(self) -> str:
        """``factory.main`` for the usual nested prim_func, else ``main``."""
        parent = self.func.parent
        if parent is not None and parent.kind == "function":
            return "%s.%s" % (parent.name, self.func.name)
        return self.func.name

    @property
    def launches(self) -> List[Launch]:
        return self.func.launches if self._launches is None else self._launches

    @property
    def targets(self) -> Tuple[Optional[str], ...]:
        """The dialect of each compile site ("ascendc", "npuir", None: unknown),
        once each; a kernel with no known site: the `target` setting's."""
        if not self.sites:
            return (_dialect.default(),)
        return tuple(dict.fromkeys(site.target for site in self.sites))

    @property
    def dialect(self) -> Optional[str]:
        """"ascendc" or "npuir" when every compile site agrees and is known,
        else None (unknown)."""
        targets = self.targets
        return targets[0] if len(targets) == 1 else None

    @property
    def npuir_signs(self) -> bool:
        """The kernel is written in the npuir dialect by its look: a
        ``T.Scope("Cube")`` / ``T.Scope("Vector")``, a ``T.npuir_*`` primitive,
        or a pipe spelled ``"PIPE_MTE2"`` (npuir's ``pipe_barrier``/``set_flag``
        take the long names; Ascend C's add the prefix themselves)."""
        if self._npuir_signs is None:
            self._npuir_signs = self._find_npuir_signs()
        return self._npuir_signs

    def _find_npuir_signs(self) -> bool:
        for u in self.raw_uses:
            prim = u.prim
            if prim == "Scope":
                if _dialect.npuir_only_scope(u.use.scope_name):
                    return True
            elif prim.startswith("npuir_"):
                return True
            elif prim in _PIPE_PRIMS and _dialect.npuir_pipe(u.use.call):
                return True
        return False

    @property
    def gpu_style(self) -> bool:
        """Every launch is ``T.Kernel(n, ...)`` without ``is_npu=True`` (its
        default is False): a GPU-style launch frame (``threads`` defaults to
        128), not an NPU kernel (``FileModel.npu_kernels`` leaves it out)."""
        return bool(self.launches) and all(launch.is_npu is False for launch in self.launches)

    @property
    def npuir_only(self) -> bool:
        """Written in the npuir dialect (``npuir_signs``) and in nothing of
        Ascend C / PTO's: no ``T.tile.*``, no primitive of its
        ``tilelang/language/ascend.py`` that the npuir branch does not define
        (``T.gemm_v0``, ``T.barrier_all``, cross flags), no ``TL_ASCEND_*``
        switch in a config that reaches it."""
        if not self.npuir_signs:
            return False
        if any(u.prim.startswith("tile.") or u.prim in _dialect.ASCENDC_ONLY for u in self.raw_uses):
            return False
        return not any(key.startswith("tl.ascend") for site in self.sites for key in site.config.entries)

    def applies(self, dialects: Tuple[str, ...]) -> bool:
        """Whether a rule about ``dialects`` judges this kernel: every dialect
        it is compiled for is one of them. A site whose target is unknown
        counts as Ascend C, unless the kernel looks like npuir
        (``npuir_signs``): then nothing dialect-specific is said."""
        targets = self.targets
        known = {t for t in targets if t is not None}
        if None in targets:
            known.add(C.NPUIR if self.npuir_signs else C.ASCENDC)
        if not _dialect.configured() and (not self.sites or any(site.defaulted for site in self.sites)) \
                and self.npuir_only:
            # written in the npuir dialect and compiled with no target, in a project
            # with no `target` setting (the npuir branch's own default is npuir):
            # which dialect it is in is not told, so no dialect's rule judges it
            return False
        return known <= set(dialects)

    def uses_of(self, *prims: str, maybe: bool = False,
                config: Optional[PassConfig] = None) -> Iterator[KernelUse]:
        """Uses of these primitives (as compiled under ``config`` when given);
        ``maybe=True`` also yields the ones under a mode switch that could not
        be evaluated."""
        uses = self.uses_for(config)
        index = self._index.get(id(uses))
        if index is None:
            index = {}
            for u in uses:
                index.setdefault(u.use.prim, []).append(u)
            self._index[id(uses)] = index
        if len(prims) == 1:
            found = index.get(prims[0], ())
        else:
            found = sorted((u for p in set(prims) for u in index.get(p, ())), key=lambda u: u.order)
        for u in found:
            if maybe or not u.maybe:
                yield u


class Site:
    """A compile site, the config it applies and the kernels it reaches."""

    __slots__ = ("site", "config", "kernels", "outside_pass_context", "target", "defaulted")

    def __init__(self, site: CompileSite, config: PassConfig, kernels: List[Kernel]):
        self.site = site
        self.config = config
        self.kernels = kernels
        # a tilelang.lower() that runs with no PassContext entered: every switch off
        self.outside_pass_context = False
        # the dialect it compiles for ("ascendc", "npuir"; None: unknown)
        self.target: Optional[str] = None
        self.defaulted = False  # names no target: ``target`` is the setting's (or Ascend C)

    def applies(self, dialects: Tuple[str, ...]) -> bool:
        """Like ``Kernel.applies``: an unknown target counts as Ascend C unless
        a kernel it compiles looks like npuir or its config has ``npuir.`` keys;
        no target in a project with no ``target`` setting, on such a site: no
        dialect's rule judges it."""
        target = self.target
        if target is None:
            npuir = any(k.npuir_signs for k in self.kernels) or any(
                key.startswith("npuir.") for key in self.config.entries)
            target = C.NPUIR if npuir else C.ASCENDC
        elif self.defaulted and not _dialect.configured() and any(k.npuir_only for k in self.kernels):
            return False  # no target, no setting, written only in npuir: not told (see Kernel.applies)
        return target in dialects

    @property
    def line(self) -> int:
        return self.site.line


class FileModel:
    """Everything the rules know about one file."""

    __slots__ = ("filename", "imports_tilelang", "kernels", "sites", "resolver", "config_key_refs", "all_uses",
                 "is_ascend", "_views", "foreign")

    def __init__(self, filename: str, imports_tilelang: bool, kernels: List[Kernel], sites: List[Site],
                 resolver: Optional[Resolver] = None,
                 config_key_refs: Optional[List[Tuple[ast.AST, str]]] = None,
                 all_uses: Optional[List[Use]] = None):
        self.filename = filename
        self.imports_tilelang = imports_tilelang
        self.kernels = kernels
        self.sites = sites
        self.resolver = resolver
        # every `PassConfigKey.<NAME>` written in the file: (ast node, NAME)
        self.config_key_refs = config_key_refs or []
        # every TileLang call in the file, in any function (macros not called too)
        self.all_uses = all_uses or []
        # Upstream (CUDA) TileLang shares the package name: rules whose trigger
        # is not Ascend-specific by itself only judge files with an Ascend sign
        # (an NPU launch, an Ascend switch, an Ascend-only primitive).
        self.is_ascend = _looks_ascend(self)
        self._views: Dict[Tuple[str, ...], "FileModel"] = {}
        # kernels other modules define that compile calls of this file compile
        self.foreign: List[Kernel] = []

    def foreign_view(self, kernel: Kernel) -> "FileModel":
        """The model the rules judge a foreign kernel with: that kernel alone,
        no compile site of its own to report on (this file's sites are
        judged with the file), nothing else of the file."""
        return FileModel(self.filename, True, [kernel], [], self.resolver)

    @property
    def npu_kernels(self) -> List[Kernel]:
        """The kernels launched on the NPU: not a GPU-style ``T.Kernel(n)``
        without ``is_npu=True`` (``Kernel.gpu_style``). The on-chip rules
        judge these."""
        return [k for k in self.kernels if not k.gpu_style]

    def for_dialects(self, dialects: Tuple[str, ...]) -> "FileModel":
        """The model as a rule about ``dialects`` sees it (the one place
        applicability is decided; the engine hands each rule this view): only
        the kernels and compile sites ``applies`` keeps, the uses in them and
        in the macros they reach, and the file's other uses and
        ``PassConfigKey`` references when the file is of those dialects."""
        key = tuple(dialects)
        if set(C.DIALECTS) <= set(key):
            return self
        view = self._views.get(key)
        if view is None:
            view = self._views[key] = _view(self, key)
        return view

    def scope_name_of(self, use: Use) -> Optional[str]:
        """The name a ``T.Scope(...)`` use passes: its literal, else the
        string its argument holds where the kernel writing it was made (the
        same at every compile site; a macro's parameter is not followed).
        None when not known."""
        name = use.scope_name
        if name != "?":
            return name
        owner = use.owner
        if not isinstance(use.call, ast.Call) or self.resolver is None or not isinstance(owner, Function) \
                or not owner.is_prim_func:
            return None
        arg = argument(use.call, 0, "name")
        if arg is None:
            return None
        value = value_of(self.resolver.owner_of(owner), arg, owner)
        return value if isinstance(value, str) else None

    @classmethod
    def empty(cls, filename: str) -> "FileModel":
        return cls(filename, False, [], [])


def _view(model: FileModel, dialects: Tuple[str, ...]) -> FileModel:
    kernels = [k for k in model.kernels if k.applies(dialects)]
    sites = [s for s in model.sites if s.applies(dialects)]
    if len(kernels) == len(model.kernels) and len(sites) == len(model.sites) and \
            (kernels or sites or _dialect.default() in dialects):
        return model
    out = [k for k in model.kernels if k not in kernels]
    bad = {id(k.func) for k in out} | {id(h.macro) for k in out for u in k.raw_uses for h in u.via}
    good = {id(k.func) for k in kernels} | {id(h.macro) for k in kernels for u in k.raw_uses for h in u.via}
    if kernels:
        file_ok = True
    elif out:
        file_ok = False
    elif model.sites:
        file_ok = bool(sites)
    else:
        file_ok = _dialect.default() in dialects
    uses = [u for u in model.all_uses
            if id(u.owner) in good or (id(u.owner) not in bad and file_ok)]
    view = object.__new__(FileModel)
    for slot in FileModel.__slots__:
        setattr(view, slot, getattr(model, slot))
    view.kernels = kernels
    view.sites = sites
    view.all_uses = uses
    view.config_key_refs = model.config_key_refs if file_ok else []
    view._views = {}
    return view


def value_of(resolver: Resolver, expr: Optional[ast.expr], scope, closure=None) -> object:
    """The engine's answer for ``expr`` in ``scope`` (``Evaluator.answer``),
    ``UNKNOWN`` when the module's evaluation gave up."""
    ev = resolver.evaluator()
    return UNKNOWN if ev is None else ev.answer(expr, scope, closure)


def build_model(tree: ast.Module, filename: str) -> FileModel:
    from .evaluate.values import JOINED

    del JOINED[:]  # what the last file's joins made unknown
    builder = Builder(tree, filename).build()
    if not builder.imports_tilelang:
        return FileModel.empty(filename)
    resolver = Resolver(builder)
    prims = [fn for fn in builder.functions if fn.is_prim_func]
    # the evaluator is the only reader of values; a file with no kernel and no
    # compile site has none to read
    ev = resolver.evaluator() if prims or builder.sites else None
    kernels: Dict[int, Kernel] = {}
    if ev is not None:
        for fn in prims:
            _scope_names(fn, ev)
    for fn in prims:
        raw = list(_kernel_uses(fn, resolver))
        uses = [u for u in (settle_use(u, resolver) for u in raw) if u is not None]
        kernels[id(fn)] = Kernel(fn, uses=uses, resolver=resolver, raw_uses=raw)
        for launch in fn.launches:
            _resolve_launch(launch, fn, resolver)
    sites: List[Site] = []
    by_node: Dict[int, list] = {}
    compile_sites = list(builder.sites)
    if ev is not None:
        known = {id(site.node) for site in builder.sites}
        for event in ev.events:
            if id(event.node) not in by_node and id(event.node) not in known:
                # a compile site only evaluation finds (a partial of jit, a stored decorator)
                compile_sites.append(CompileSite(event.kind, event.node, builder.module,
                                                 function=event.function))
            by_node.setdefault(id(event.node), []).append(event)
    signatures: Dict[int, dict] = {}
    dead: set = set()
    foreign: Dict[tuple, Kernel] = {}
    for site in compile_sites:
        events = by_node.get(id(site.node))
        if not events:
            # never reached when the module ran (dead code), or the evaluation
            # gave up: what it applies and compiles is unknown
            sites.append(Site(site, PassConfig.unknown(), []))
            continue
        some_kernel = False  # an event here compiles something not known
        reached_here: list = []
        for event in events:
            config = _event_config(event, filename)
            info = Site(site, config, [])
            info.outside_pass_context = event.outside_pass_context
            info.target = _dialect.resolve(event.target)
            info.defaulted = event.target == C.DEFAULT_TARGET
            sites.append(info)
            if event.kernels is UNKNOWN:
                some_kernel = True
                continue
            reached = [(kv.fn, kv.closure) for kv in event.kernels]
            reached_here += reached
            if event.function is not None:
                dead |= _unreturned(event.function, {id(fn) for fn, _ in reached})
            _attach(info, reached, kernels, resolver, signatures)
            if any(id(fn) not in kernels for fn, _ in reached):
                _attach_foreign(info, reached, kernels, foreign, resolver, signatures, filename)
        if some_kernel and reached_here:
            # the same call compiled something not known another time (a loop whose later
            # turn calls through a name `globals()` rebound): the kernels it compiles when
            # known may be compiled here with a config not known too
            info = Site(site, PassConfig.unknown(), [])
            info.target = None
            sites.append(info)
            _attach(info, reached_here, kernels, resolver, signatures)
    _developer_vid_reads(list(kernels.values()) + list(foreign.values()))
    # a prim_func a jit factory defines but (for certain) does not return is never compiled
    ordered = sorted((k for k in kernels.values() if not (id(k.func) in dead and not k.sites)),
                     key=lambda k: k.line)
    refs = [(node, name) for node, name, _ in builder.config_key_refs]
    all_uses = list(builder.module.uses)
    for fn in builder.functions:
        all_uses.extend(fn.uses)
    model = FileModel(filename, True, ordered, sites, resolver, refs, all_uses)
    model.foreign = sorted(foreign.values(), key=lambda k: (k.compiled_at.lineno, k.line))  # type: ignore[union-attr]
    return model


def _scope_names(fn: Function, ev) -> None:
    """``with T.Scope(side):`` in a kernel, ``side`` a name (``side = "C" if
    cube else "V"`` in the factory, a module constant): the string it holds
    in every frame this file compiles the kernel in, when they agree (a
    compile with arguments not told, or none, leaves it unknown), becomes
    the side of what the block holds, as a literal would (the build read it
    as "?": some scope, not told which)."""
    scopes = [u for u in fn.uses if u.prim == "Scope" and u.scope_name == "?" and u.with_stmt is not None
              and isinstance(u.call, ast.Call)]
    if not scopes:
        return
    frames = _frames_compiled_here(ev, fn)
    if None in frames or len(frames) >= 16:
        return
    for su in sorted(scopes, key=lambda u: (u.with_stmt.lineno, u.with_stmt.col_offset)):
        arg = argument(su.call, 0, "name")
        if arg is None:
            continue
        names = {ev.answer(arg, fn, frame) for frame in frames}
        name = names.pop() if len(names) == 1 else None
        if not isinstance(name, str):
            continue
        body = su.with_stmt.body
        start = (body[0].lineno, body[0].col_offset)
        end = (su.with_stmt.end_lineno, su.with_stmt.end_col_offset)

        def inside(node) -> bool:
            at = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
            return start <= at <= end

        for u in fn.uses:
            if u.scope_kind == "?" and u is not su and inside(u.call):
                u.scope_kind = name
        for call in fn.local_calls:
            if fn.call_scope_kinds.get(id(call)) == "?" and inside(call):
                fn.call_scope_kinds[id(call)] = name


MAX_FOREIGN = 16  # kernels of other modules judged in one file (per compile call), at most


def _frames_compiled_here(ev, fn: Function) -> list:
    """The frames ``fn``'s def ran in for the compile calls of this file
    (None for one not told: every answer is then unknown)."""
    frames: list = []
    for event in ev.events:
        if isinstance(event.kernels, list):
            for kv in event.kernels:
                if kv.fn is fn and len(frames) < 16 and (kv.closure is not None or None not in frames):
                    frames.append(kv.closure)
        elif event.kernels is UNKNOWN and None not in frames:
            frames.append(None)  # a compile call here that may compile it too, with arguments not told
    return frames or [None]


def _attach_foreign(info: "Site", reached, kernels: Dict[int, Kernel], foreign: Dict[tuple, Kernel],
                    resolver: Resolver, signatures: Dict[int, dict], filename: str) -> None:
    """A kernel that another module of the project defines and this compile
    call compiles (``tilelang.compile(rows.exp_rows(...), pass_configs=AUTO)``):
    its own file never sees this config, so it is judged here, one Kernel per
    compile call (its findings are reported on the call, see
    ``engine._foreign_findings``)."""
    node = info.site.node
    for fn, closure in reached:
        if id(fn) in kernels or not fn.is_prim_func or not fn.filename or fn.filename == filename \
                or os.path.realpath(fn.filename) == os.path.realpath(filename):
            continue  # this file read again under another name: its own kernels are judged already
        key = (id(fn), id(node))
        kernel = foreign.get(key)
        owner = resolver.owner_of(fn)
        if kernel is None:
            if len(foreign) >= MAX_FOREIGN or owner is resolver:
                continue
            here, there = resolver.evaluator(), owner.evaluator()
            if here is None or there is None:
                continue
            if not any(k[0] == id(fn) for k in foreign):
                # the kernel's module answers questions about it (a constant of the
                # factory, `threads`, a branch) from the frames it was made in: here,
                # those this file's compile calls compile, not the ones of that
                # module's own run (its `__main__` compiling it with other arguments)
                there.use_kernel_frames(fn, _frames_compiled_here(here, fn))
            raw = list(_kernel_uses(fn, owner))
            uses = [u for u in (settle_use(u, owner) for u in raw) if u is not None]
            kernel = foreign[key] = Kernel(fn, uses=uses, resolver=owner, raw_uses=raw)
            kernel.compiled_at = node
            # launches of its own: what they read per site is this call's alone
            kernel._launches = [Launch(launch.with_stmt, launch.call, launch.target, launch.owner)
                                for launch in fn.launches]
            for launch in kernel._launches:
                _resolve_launch(launch, fn, owner)
        _attach(info, [(fn, closure)], {id(fn): kernel}, owner, signatures)


def _unreturned(factory: Function, returned: set) -> set:
    """ids of the prim_funcs defined directly in a factory (not in a nested
    factory of its own) that it does not return."""
    out = set()
    stack = list(factory.children)
    while stack:
        child = stack.pop()
        if child.jit is not None:
            continue
        if child.is_prim_func:
            if id(child) not in returned:
                out.add(id(child))
        else:
            stack.extend(child.children)
    return out


def _event_config(event, filename: str) -> PassConfig:
    if event.config is UNKNOWN:
        return PassConfig.unknown()
    if event.config is None:
        return PassConfig(origin=event.node, origin_desc=event.desc or event.label + " (no pass_configs)",
                          filename=filename)
    return event.config.with_origin(event.origin, event.desc or "pass_configs of the " + event.label, filename)


def _attach(info: Site, reached, kernels: Dict[int, Kernel], resolver: Resolver,
            signatures: Dict[int, dict]) -> None:
    """Tie a site's config to the kernels it reaches; each kernel keeps one
    config per distinct (config, code as compiled there)."""
    config = info.config
    for fn, closure in reached:
        kernel = kernels.get(id(fn))
        if kernel is None:
            continue
        if kernel not in info.kernels:
            info.kernels.append(kernel)
        if info not in kernel.sites:
            kernel.sites.append(info)
        _launch_at_site(kernel, info, closure, resolver)
        settled = None
        if closure is not None and any(u.use.conds or u.via for u in kernel.raw_uses):
            settled = [u for u in (settle_use(u, resolver, (fn, closure)) for u in kernel.raw_uses)
                       if u is not None]
        kernel._compiled = None  # the merged uses change with each config
        sig = _config_signature(config)
        seen = signatures.setdefault(id(kernel), {})
        known = seen.get(sig)
        if known is None:
            if len(seen) >= 32:
                continue
            own = config if settled is None else \
                config.with_origin(config.origin, config.origin_desc, config.filename)  # type: ignore[arg-type]
            seen[sig] = own
            kernel.configs.append(own)
            if settled is not None:
                kernel._by_config[id(own)] = settled
        else:
            # the same config compiling the kernel another way (other arguments): a use
            # exists under it if it exists in either; it is `maybe` only if so in both
            kernel._by_config[id(known)] = _union(kernel.uses_for(known), kernel.uses if settled is None else settled)


def _union(a: List[KernelUse], b: List[KernelUse]) -> List[KernelUse]:
    if a is b:
        return a
    out: Dict[tuple, KernelUse] = {}
    for u in list(a) + list(b):
        have = out.get(u.key)
        if have is None or (have.maybe and not u.maybe):
            out[u.key] = u
    return list(out.values())


def _config_signature(config: PassConfig) -> tuple:
    return (config.complete, id(config.origin), tuple(sorted(
        (key, e.value, id(e.node), e.raw_known, repr(e.raw)) for key, e in config.entries.items())))


_ASCEND_PRIMS = frozenset({
    "alloc_L1", "alloc_ub", "alloc_L0A", "alloc_L0B", "alloc_L0C", "Scope", "gemm_v0", "set_flag", "wait_flag",
    "pipe_barrier", "barrier_all", "set_cross_flag", "wait_cross_flag", "annotate_address", "init_flag",
    "clear_flag", "sync_all",
})


def _looks_ascend(model: "FileModel") -> bool:
    if any(launch.is_npu is True for kernel in model.kernels for launch in kernel.launches):
        return True
    if any(name.startswith("TL_ASCEND") for _, name in model.config_key_refs):
        return True
    for site in model.sites:
        if any(key.startswith("tl.ascend") for key in site.config.entries):
            return True
    return any(use.prim in _ASCEND_PRIMS or use.prim.startswith("tile.") for use in model.all_uses)


def settle_use(use: KernelUse, resolver: Resolver, closure=None) -> Optional[KernelUse]:
    """Evaluate the Python-level `if` tests around a use (TVMScript keeps only
    the taken branch): None when the use sits in a dropped branch. A test that
    cannot be evaluated is taken as true (a size specialisation such as
    `if BATCH_T > 0:` is compiled for realistic inputs), except a mode switch
    on a bare boolean parameter (`if expert:`), whose other branch is the
    alternative implementation: uses under it are ``maybe`` and not reported.
    ``closure``: (kernel, the frame its def ran in) for one compilation;
    without it a test in the kernel is read in every frame it was made in."""
    conds = list(use.use.conds)
    maybe = False
    for hop in use.via:
        conds.extend(hop.caller.call_conds.get(id(hop.call), ()))
        if hop.callee is not None and hop.kernel is None:
            maybe = True  # one of several defs, called from a macro: not told which
        elif hop.callee is not None:
            frame = closure[1] if closure is not None and hop.kernel is closure[0] else None
            values = _callee_values(hop.callee, hop.kernel, resolver.owner_of(hop.kernel), frame)
            here = [isinstance(v, MacroV) and v.fn is hop.macro for v in values]
            if not any(here) and all(isinstance(v, MacroV) for v in values):
                return None  # another macro is called there
            if not all(here):
                maybe = True  # this macro at some sites, something not known at others
    if not conds:
        return KernelUse(use.use, use.via, maybe=True) if maybe else use
    for test, polarity, scope in conds:
        owner = resolver.owner_of(scope)
        if closure is not None and scope is closure[0]:
            value = value_of(owner, test, scope, closure[1])
        else:
            if use.via and getattr(scope, "is_macro", False):
                value = _macro_test_when_parsed(test, scope, use.via[0].caller, owner, resolver, closure)
            else:
                value = value_of(owner, test, scope)
            if value is UNKNOWN and use.via and getattr(scope, "is_macro", False):
                value = _macro_test(test, scope, use.via, resolver, closure)
        if value is not UNKNOWN:
            value = truth(value)
        if value is UNKNOWN:
            if not maybe:
                # the same test is judged once per model (every use under it, every site asks)
                key = (id(test), id(scope))
                known = owner.mode_switches.get(key)
                if known is None or known[0] is not test:
                    known = owner.mode_switches[key] = (test, _is_mode_switch(test, scope, owner))
                maybe = known[1]
        elif bool(value) != polarity:
            return None
    return KernelUse(use.use, use.via, maybe=True) if maybe else use


_PLAIN = (bool, int, float, str, type(None))


def _macro_test_when_parsed(test: ast.expr, macro: Function, kernel: Function, owner: Resolver,
                            resolver: Resolver, closure):
    """A module-level macro's test, read with the module as it was when the
    kernel that expands it was parsed (``closure``: one compile site of it;
    else every frame the kernel was made in, when they agree)."""
    if macro.parent is not owner.b.module or resolver.owner_of(kernel) is not owner:
        return value_of(owner, test, macro)  # another module's, or a nested def: as the module ends
    ev = owner.evaluator()
    if ev is None:
        return UNKNOWN
    if closure is not None and closure[0] is kernel:
        frames = [closure[1]]
    else:
        frames = ev.kernel_frames.get(id(kernel))
        if not frames or None in frames:
            return value_of(owner, test, macro)
    first = UNKNOWN
    for i, frame in enumerate(frames):
        value = export(ev.value_in(test, macro, frame.module))
        if value is UNKNOWN or (i and (type(value) is not type(first) or value != first)):
            return UNKNOWN
        first = value
    return first


def _macro_test(test: ast.expr, macro: Function, via, resolver: Resolver, closure):
    """A macro's ``if`` on its parameters (``if manual:``), read with what the
    calls along ``via`` pass for them: ``stage(buf, False)`` drops the branch
    where the macro is expanded. UNKNOWN unless every parameter the test reads
    is a Python constant there."""
    index = max((i for i, hop in enumerate(via) if hop.macro is macro), default=-1)
    if index < 0:
        return UNKNOWN
    values = {}
    for node in ast.walk(test):
        if isinstance(node, ast.Name) and node.id in macro.params and node.id not in values:
            value = _passed(node.id, via, index, resolver, closure, 0)
            if type(value) not in _PLAIN:
                return UNKNOWN
            values[node.id] = value
    owner = resolver.owner_of(macro)
    ev = owner.evaluator()
    if ev is None or ev.module_frame is None:
        return UNKNOWN
    from .evaluate.frames import Frame

    results = []
    for parent in _macro_closures(macro, via, index, resolver, closure, ev):
        frame = Frame("function", parent, parent.module, macro, set(macro.bound) | set(macro.params))
        frame.vars.update(values)
        results.append(ev.eval_static(test, frame))
    if len(results) == 1:
        return results[0]
    first = export(results[0]) if results else UNKNOWN
    for value in map(export, results[1:]):
        if value is UNKNOWN or type(value) is not type(first) or value != first:
            return UNKNOWN
    return first


def _macro_closures(macro: Function, via, index: int, resolver: Resolver, closure, ev) -> list:
    """The frames a macro's free names are read in where ``via[index]``
    expands it at one compile site (``closure``): the module's for a
    module-level macro; for one a factory defines (``if hand_sync:`` on the
    factory's argument), the frame that def ran in: the macro value the kernel
    calls (``epi(...)``, each frame it may be), or, called by its name, the
    frame of that factory among the kernel's enclosing frames. [] when not known."""
    parent_fn = macro.parent
    if parent_fn is None or parent_fn.kind == "module":
        return [ev.module_frame]
    if closure is None:
        return []
    hop = via[index]
    if hop.callee is not None:
        if hop.kernel is not closure[0]:
            return []
        out = []
        for value in _callee_values(hop.callee, hop.kernel, resolver.owner_of(hop.kernel), closure[1]):
            if not isinstance(value, MacroV) or value.fn is not macro or value.closure is None:
                return []
            # made by a factory around the kernel: that frame as the parse saw it (the
            # kernel's copy), not as the factory left it
            out.append(_enclosing(closure[1], value.closure.fn) or value.closure)
        return out
    if via[0].caller is not closure[0] or any(h.callee is not None for h in via[:index + 1]):
        return []
    frame = _enclosing(closure[1], parent_fn)
    return [frame] if frame is not None else []


def _enclosing(frame, fn):
    """The frame of ``fn`` among ``frame`` and the frames around it."""
    while frame is not None and (frame.fn is not fn or frame.kind != "function"):
        frame = frame.parent
    return frame


def _passed(name: str, via, index: int, resolver: Resolver, closure, depth: int):
    """What the call at ``via[index]`` passes for the macro's parameter ``name``
    (its default when it passes none), followed through the calling macros."""
    from .calls import bind_arguments, parameter_default

    hop = via[index]
    node = hop.macro.node
    expr = bind_arguments(node, hop.call).get(name)
    if expr is None:
        expr = parameter_default(node, name)
        if expr is None or any(isinstance(x, ast.Starred) for x in hop.call.args) or \
                any(k.arg is None for k in hop.call.keywords):
            return UNKNOWN
        return value_of(resolver.owner_of(hop.macro), expr, hop.macro.parent)
    if isinstance(expr, ast.Constant):
        return expr.value
    caller = hop.caller
    if index > 0 and caller is via[index - 1].macro and isinstance(expr, ast.Name) and expr.id in caller.params \
            and expr.id not in caller.assigns and depth < 8:
        return _passed(expr.id, via, index - 1, resolver, closure, depth + 1)
    owner = resolver.owner_of(caller)
    if closure is not None and caller is closure[0]:
        return value_of(owner, expr, caller, closure[1])
    return value_of(owner, expr, caller)


def _is_mode_switch(test: ast.expr, scope, resolver: Resolver) -> bool:
    """`expert`, `not expert`, `expert and use_scope`: parameters tested as
    booleans; `mode == "expert"`, `mode in ("a", "b")`: parameters compared
    with strings."""
    if _reads_switch(test, scope, resolver):
        return True
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    names = test.values if isinstance(test, ast.BoolOp) else [test]
    for n in names:
        while isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not):
            n = n.operand
        if isinstance(n, ast.Compare) and len(n.ops) == 1 and \
                isinstance(n.ops[0], (ast.Eq, ast.NotEq, ast.In, ast.NotIn, ast.Is, ast.IsNot)):
            sides = [n.left, n.comparators[0]]
            marks = [_is_mode_literal(x) or isinstance(x, ast.Attribute) for x in sides]
            if any(marks):  # `mode == "expert"`, `mode is Mode.EXPERT`
                n = sides[1] if marks[0] and not marks[1] else sides[0] if not marks[0] else \
                    (sides[0] if not isinstance(sides[1], ast.Attribute) else sides[1])
        while isinstance(n, (ast.Attribute, ast.Subscript)):
            n = n.value  # `opts.expert`, `flags["sync"]`: a parameter's field
        if isinstance(n, ast.Name) and resolver.lookup(n.id, scope)[0] == "param":
            return True
    return False


def _reads_switch(test: ast.expr, scope, resolver: Resolver) -> bool:
    """`cfg[PassConfigKey.TL_ASCEND_AUTO_SYNC]`, `cfg.get("tl.ascend_auto_sync")`:
    a test on a pass_configs switch chooses between two implementations."""
    for node in ast.walk(test):
        if isinstance(node, ast.Subscript):
            key = node.slice
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                and node.args:
            key = node.args[0]
        else:
            continue
        if isinstance(key, ast.Attribute) and key.attr.startswith("TL_"):
            return True
        value = value_of(resolver, key, scope)
        if isinstance(value, str) and value.startswith("tl."):
            return True
    return False


def _is_mode_literal(expr: ast.expr) -> bool:
    """A string (or None), or a tuple/list of strings: what a mode is compared with."""
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, str) or expr.value is None
    if isinstance(expr, (ast.Tuple, ast.List, ast.Set)):
        return bool(expr.elts) and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in expr.elts)
    return False


def _launch_at_site(kernel: Kernel, info: Site, closure, resolver: Resolver) -> None:
    """``threads=`` of each launch as this site compiles the kernel, for a
    launch whose value differs between sites (a factory parameter passed
    differently at each call: ``make(M, N, nthreads=1)``), and the number of
    grid arguments of a launch that spreads its grid (``T.Kernel(*grid)``)."""
    ev = resolver.evaluator()
    if closure is None or ev is None:
        return
    line = getattr(info.site.node, "lineno", None)

    def evaluate(expr):
        return ev.value_in(expr, kernel.func, closure)

    for launch in kernel.launches:
        if launch.threads is UNKNOWN:
            value = export(launch.threads_with(evaluate))
            if (line, value) not in launch.site_threads and len(launch.site_threads) < 16:
                launch.site_threads.append((line, value))
        if any(isinstance(a, ast.Starred) for a in launch.call.args):
            count = launch.grid_count_with(evaluate)
            if (line, count) not in launch.site_grids and len(launch.site_grids) < 16:
                launch.site_grids.append((line, count))


def _developer_vid_reads(kernels) -> None:
    """A launch that is Developer (threads 1 or 2) at some compile sites: the
    reads of its `vid` it never binds are unbound there."""
    for kernel in kernels:
        for launch in kernel.launches:
            if launch.threads_count is None and launch.sites_where(_legal_threads):
                launch.unbound_vid_reads = _unbound_vid_reads(kernel.func, launch, developer=True)


def _legal_threads(value) -> bool:
    if isinstance(value, (list, tuple)) and len(value) == 1:
        value = value[0]
    return type(value) is int and value in (1, 2)


def _resolve_launch(launch: Launch, fn: Function, resolver: Resolver) -> None:
    threads = launch.keyword("threads")
    launch.threads = None if threads is None else value_of(resolver, threads, fn)
    keyword = launch.keyword("is_npu")
    is_npu = value_of(resolver, keyword, fn) if keyword is not None else False  # T.Kernel's default
    launch.is_npu = is_npu if isinstance(is_npu, bool) else None
    spreads = [kw.value for kw in launch.call.keywords if kw.arg is None]
    if spreads:
        _spread_launch(launch, spreads, fn, resolver)
    launch.unbound_vid_reads = _unbound_vid_reads(fn, launch)


def _spread_launch(launch: Launch, spreads: List[ast.expr], fn: Function, resolver: Resolver) -> None:
    """``T.Kernel(n, is_npu=True, **DEV_LAUNCH)``, ``**launch_options()``: the
    keywords a spread dict holds are keywords too; a spread that cannot be
    read (the same in every frame the kernel was made in) may set anything."""
    ev = resolver.evaluator()
    found: Dict[str, object] = {}
    for expr in spreads:
        value = _spread_keywords(ev, expr, fn) if ev is not None else None
        if value is None:
            if launch.keyword("threads") is None:
                launch.threads = UNKNOWN
            if launch.keyword("is_npu") is None:
                launch.is_npu = None
            return
        found.update(value)
    if "threads" in found:
        launch.threads = found["threads"]
    if "is_npu" in found:
        launch.is_npu = found["is_npu"] if isinstance(found["is_npu"], bool) else None


def _spread_keywords(ev, expr: ast.expr, fn: Function) -> Optional[Dict[str, object]]:
    frames = ev.kernel_frames.get(id(fn))
    values = [ev.value_in(expr, fn)] if not frames or None in frames else \
        [ev.value_in(expr, fn, frame) for frame in frames]
    out: Optional[Dict[str, object]] = None
    for value in values:
        keywords = spread_keywords(value)
        if keywords is None:
            return None
        if out is None:
            out = keywords
        elif out != keywords:  # the frames disagree: what they do not all pass alike is unknown
            for key in set(out) | set(keywords):
                if key not in out or key not in keywords or out[key] != keywords[key]:
                    out[key] = UNKNOWN
    return out


def _unbound_vid_reads(fn: Function, launch: Launch, developer: bool = False) -> List[ast.Name]:
    """Reads of ``vid`` inside ``launch`` where nothing in the prim_func has
    bound it yet (in statement order: a read before the loop that binds it, a
    read after a comprehension whose variable it was). ``developer``: the
    launch is Developer at some compile sites (its ``threads`` differs)."""
    name = launch.vid_name  # the launch's own vector-id name (`as (bx, by)`: `by`)
    if (launch.threads_count is None and not developer) or name not in fn.loaded:
        return []  # only a Developer launch (threads=1/2) leaves `vid` unbound
    if name == "vid" and name not in fn.bound:  # build.py records the reads of `vid` itself
        return [node for node, owner in fn.vid_loads if owner is launch]
    reads: List[ast.Name] = []
    _VidWalk(launch, reads, name).block(fn.node.body, name in fn.params, False)  # type: ignore[attr-defined]
    return reads


class _VidWalk:
    def __init__(self, launch: Launch, reads: List[ast.Name], name: str = "vid"):
        self.launch = launch
        self.reads = reads
        self.name = name

    def block(self, stmts, bound: bool, inside: bool) -> bool:
        for stmt in stmts:
            bound = self.stmt(stmt, bound, inside)
        return bound

    def stmt(self, node: ast.stmt, bound: bool, inside: bool) -> bool:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return bound or node.name == self.name
        if isinstance(node, (ast.With, ast.AsyncWith)):
            now_inside = inside
            for item in node.items:
                self.expr(item.context_expr, bound, inside)
                if item.optional_vars is not None:
                    bound = bound or _binds(self.name, item.optional_vars)
                if node is self.launch.with_stmt:
                    now_inside = True
            return self.block(node.body, bound, now_inside) or bound
        if isinstance(node, (ast.For, ast.AsyncFor)):
            self.expr(node.iter, bound, inside)
            in_loop = bound or _binds(self.name, node.target)
            after = self.block(node.body, in_loop, inside)
            return self.block(node.orelse, after, inside) or bound or _binds(self.name, node.target)
        if isinstance(node, (ast.If, ast.While)):
            self.expr(node.test, bound, inside)
            a = self.block(node.body, bound, inside)
            b = self.block(node.orelse, bound, inside)
            return a or b
        if isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            after = self.block(node.body, bound, inside)  # type: ignore[attr-defined]
            for handler in node.handlers:  # type: ignore[attr-defined]
                after = self.block(handler.body, bound, inside) or after
            after = self.block(node.orelse, after, inside)  # type: ignore[attr-defined]
            return self.block(node.finalbody, after, inside)  # type: ignore[attr-defined]
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            value = node.value
            if value is not None:
                bound = self.expr(value, bound, inside)
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if isinstance(node, ast.AugAssign):
                self.expr(node.target, bound, inside)
            for target in targets:
                if _binds(self.name, target):
                    bound = True
                else:
                    self.expr(target, bound, inside)
            return bound
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                bound = self.stmt(child, bound, inside)
            elif isinstance(child, ast.expr):
                bound = self.expr(child, bound, inside)
        return bound

    def expr(self, node: ast.expr, bound: bool, inside: bool) -> bool:
        """Visit the reads of an expression; returns whether ``vid`` is bound
        after it (a walrus may bind it)."""
        if isinstance(node, ast.Name):
            if node.id == self.name and isinstance(node.ctx, ast.Load) and not bound and inside:
                self.reads.append(node)
            return bound
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            inner = bound
            for gen in node.generators:
                self.expr(gen.iter, inner, inside)
                inner = inner or _binds(self.name, gen.target)
                for cond in gen.ifs:
                    self.expr(cond, inner, inside)
            parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            for part in parts:
                self.expr(part, inner, inside)
            return bound  # the comprehension's variable does not outlive it
        if isinstance(node, ast.Lambda):
            return bound
        if isinstance(node, ast.NamedExpr):
            bound = self.expr(node.value, bound, inside)
            return bound or node.target.id == self.name
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                bound = self.expr(child, bound, inside)
            elif isinstance(child, ast.keyword):
                bound = self.expr(child.value, bound, inside)
        return bound


def _binds(name: str, target: ast.expr) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target))


def _kernel_uses(fn: Function, resolver: Resolver, via: Tuple[MacroHop, ...] = ()) -> Iterator[KernelUse]:
    for use in fn.uses:
        yield KernelUse(use, via)
    if len(via) >= _MAX_MACRO_DEPTH:
        return
    seen = {hop.macro for hop in via} | {fn}
    owner = resolver.owner_of(fn)
    for call in fn.local_calls:
        targets = owner.functions_for(call.func, fn)
        if not targets:
            callee, kernel = _callee_in_kernel(call, fn, via)
            if callee is not None:
                for target in _called_macros(callee, kernel, resolver.owner_of(kernel)):
                    if target not in seen:
                        yield from _kernel_uses(target, resolver, via + (MacroHop(target, call, fn, callee, kernel),))
            continue
        # several defs of the name (`if fast:` / `else:` versions of a macro, one
        # redefined, a method a subclass overrides: `self.epilogue(x)` in a base
        # class's kernel): which one the call reaches is settled per compile site from the
        # value the kernel read when it was parsed (see settle_use); from inside a
        # macro it is not told (its uses are `maybe`)
        ambiguous = len(targets) > 1 or (isinstance(call.func, ast.Attribute)
                                         and owner.method_defs(call.func.attr) > 1)
        for target in targets:
            if target.is_macro and target not in seen:
                hop = MacroHop(target, call, fn, call.func, fn if fn.is_prim_func else None) if ambiguous \
                    else MacroHop(target, call, fn)
                yield from _kernel_uses(target, resolver, via + (hop,))
            elif id(call) in fn.stmt_calls and not target.is_prim_func and target.jit is None \
                    and target not in seen:
                # a plain helper called as a statement: TVMScript emits the value it
                # returns (`return T.pipe_barrier("all")`), not the calls it discards
                returned = {id(r) for r in target.returns}
                path = via + (MacroHop(target, call, fn, call.func, None) if ambiguous else MacroHop(target, call, fn),)
                for use in target.uses:
                    if id(use.call) in returned:
                        yield KernelUse(use, path)


_DYNAMIC_CALLEES = ("param", "assign", "mutated", "function", "import")


def _callee_in_kernel(call: ast.Call, fn: Function, via) -> Tuple[Optional[ast.expr], Optional[Function]]:
    """The expression of the kernel that names what ``call`` calls, when that
    is a value: the callee itself in the kernel (``body(x)``), or, in a macro
    the kernel calls directly, the argument the kernel passes for the
    macro's parameter it calls (``stage(x, body)`` with ``def stage(buf, f):
    f(buf)``)."""
    if not via:
        return (call.func, fn) if fn.is_prim_func else (None, None)
    func = call.func
    hop = via[-1]
    if len(via) != 1 or not hop.caller.is_prim_func or hop.callee is not None or not isinstance(func, ast.Name) \
            or func.id not in fn.params or func.id in fn.assigns:
        return None, None
    from .calls import bind_arguments

    passed = bind_arguments(fn.node, hop.call).get(func.id)
    return (passed, hop.caller) if passed is not None else (None, None)


def _called_macros(func: ast.expr, fn: Function, owner: Resolver) -> List[Function]:
    """The macros a kernel's call of a value may call (``body(x)`` with a
    factory parameter ``body``, ``BODIES[mode](x)``): what the callee is in
    each frame the kernel was made in, when that is a ``@T.macro``."""
    root = root_name(func)
    if root is None or owner.lookup(root, fn)[0] not in _DYNAMIC_CALLEES:
        return []
    out: List[Function] = []
    for value in _callee_values(func, fn, owner):
        if isinstance(value, MacroV) and value.fn not in out:
            out.append(value.fn)
    return out


def _callee_values(func: ast.expr, fn: Function, owner: Resolver, closure=None) -> list:
    """The value of a kernel's callee in the frame ``closure``, else in every
    frame the kernel was made in (the module's final state when they are not
    all known)."""
    ev = owner.evaluator()
    if ev is None:
        return [UNKNOWN]
    if closure is not None:
        return [ev.value_in(func, fn, closure)]
    frames = ev.kernel_frames.get(id(fn))
    if not frames or None in frames:
        return [ev.value_in(func, fn)]
    return [ev.value_in(func, fn, frame) for frame in frames]
