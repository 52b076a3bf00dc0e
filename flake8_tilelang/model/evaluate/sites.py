"""Values at compile sites: what a kernel's Python-level names hold where it
is compiled.

A TileLang kernel is built by a factory (``def matmul(M, N, K, block_M, ...)``
returning a ``@T.prim_func``); its allocation shapes and dtypes are the
factory's arguments folded through the factory body. The evaluator already
runs the module with the arguments each call passes (module code,
``if __name__ == "__main__":`` blocks, test functions): every prim_func it
produces is a ``KernelV`` carrying the frame its ``def`` ran in. This module
turns those frames into *sites*, one per call that gives the factory its
arguments, falls back to the factory's defaults when no call does (and says
so), and folds the kernel's own straight-line assignments
(``sub_M = block_M // 2``) on top. Nothing here reads values itself: every
expression goes through the evaluator. Unknown stays unknown.
"""
from __future__ import annotations

import ast
from typing import Dict, List, Optional

from ... import constants as C
from .budget import MAX_STEPS
from .frames import Frame
from .values import (
    UNKNOWN, ClassV, DictV, FuncV, ImportV, InstanceV, JitV, KernelV, LibV, ListV, export, kernel_values, record_items,
)

MAX_SITES = 8  # compile sites judged per kernel (the first ones): a cost bound
_STEPS = 2000  # evaluator steps per question (a factory body and its helpers)


class SiteValues:
    """One way a kernel is compiled: the frame its prim_func was defined in,
    the kernel's own folded locals, and the config of that compile site."""

    __slots__ = ("kernel", "ev", "closure", "frame", "label", "line", "defaults", "config", "_cache", "_done")

    def __init__(self, kernel, ev, closure: Frame, label: str, line: Optional[int], defaults: bool, config):
        self.kernel = kernel
        self.ev = ev
        self.closure = closure
        self.label = label  # "matmul(1024, 1024, 128) (line 88)" / "matmul's defaults"
        self.line = line
        self.defaults = defaults  # no call site gave the arguments: the factory's defaults
        self.config = config  # the PassConfig compiling it here, or None when not known
        self._cache: Dict[int, object] = {}
        # The prim_func's own frame: names it binds are unknown, except a name
        # assigned once by a plain assignment (``sub = block_M // 2``), which
        # holds what the evaluator makes of its value (``Evaluator.fold_once``,
        # folded when first needed).
        fn = kernel.func
        self.frame = Frame("function", closure, closure.module, fn, set(fn.bound) | set(fn.params) | set(fn.assigns))
        self._done: set = set()

    def __repr__(self) -> str:
        return "<SiteValues %s>" % self.label

    def where(self) -> str:
        """How a finding names this site: ``at matmul(1024, 1024, 128) (line
        88)``, ``with matmul's defaults (no call site gives its arguments)``."""
        if self.defaults:
            return "with %s (no call site gives its arguments)" % self.label
        if self.label == "module constants":
            return "with the module's constants"
        return "at %s" % self.label

    def planning(self) -> Optional[bool]:
        """TL_ASCEND_MEMORY_PLANNING at this site: True, False, or None (unknown)."""
        if self.config is None:
            return None
        return self.config.state(C.MEMORY_PLANNING)

    def value(self, expr: Optional[ast.expr]):
        """An expression of the kernel body, evaluated here (``UNKNOWN`` if
        it cannot be known)."""
        if expr is None:
            return UNKNOWN
        hit = self._cache.get(id(expr), self)
        if hit is not self:
            return hit
        self.ev.fold_once(expr, self.kernel.func, self.frame, self._done)
        result = _quiet_eval(self.ev, expr, self.frame)
        self._cache[id(expr)] = result
        return result


def names_read(expr: ast.expr, wanted) -> tuple:
    """The names in ``wanted`` that ``expr`` reads (a plain walk: shape
    expressions are small, ``ast.walk``'s generic machinery is not)."""
    out: list = []
    stack = [expr]
    while stack:
        node = stack.pop()
        t = type(node)
        if t is ast.Name:
            if node.id in wanted and node.id not in out:  # type: ignore[attr-defined]
                out.append(node.id)  # type: ignore[attr-defined]
        elif t is ast.Constant:
            continue
        elif t is ast.BinOp:
            stack.append(node.right)  # type: ignore[attr-defined]
            stack.append(node.left)  # type: ignore[attr-defined]
        elif t in (ast.Tuple, ast.List):
            stack.extend(node.elts)  # type: ignore[attr-defined]
        else:
            stack.extend(ast.iter_child_nodes(node))
    return tuple(out)


def _quiet_eval(ev, expr: ast.expr, frame: Frame):
    """The evaluator's own question for a kernel expression, in our frame."""
    return ev.eval_static(expr, frame)


def _call_label(call: ast.AST, closure: Frame) -> str:
    """``matmul(1024, 1024, 128) (line 88)`` when the call writes its
    arguments as literals; else ``matmul(M=1024, N=1024, dtype='float16')
    (line 88)`` from what the parameters hold there (``?``: unknown)."""
    line = getattr(call, "lineno", 0)
    literal = isinstance(call, ast.Call) and _dotted(call.func) and all(
        _is_literal(a) for a in list(call.args) + [k.value for k in call.keywords])
    if literal:
        try:
            text = ast.unparse(call)  # type: ignore[attr-defined]
        except Exception:  # Python 3.8 or an odd node
            text = ""
    else:
        text = ""
    fn = closure.fn
    if not text and fn is not None and isinstance(getattr(fn, "node", None), (ast.FunctionDef,
                                                                              ast.AsyncFunctionDef)):
        a = fn.node.args  # type: ignore[attr-defined]
        params = list(a.posonlyargs) + list(a.args) + list(a.kwonlyargs)
        given: dict = {}  # parameter -> the argument's expression at the call
        owner = ""
        if params and isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute):
            bound = closure.vars.get(params[0].arg)
            cls = bound.cls if type(bound) is InstanceV else bound if type(bound) is ClassV else None
            if cls is not None:  # `op.build(4096, 256)`: the instance (or class) is the first parameter
                owner = cls.scope.name + "." if cls.scope is not None else ""
                params = params[1:]
        if isinstance(call, ast.Call) and not any(isinstance(x, ast.Starred) for x in call.args) \
                and all(k.arg is not None for k in call.keywords):
            given = {p.arg: x for p, x in zip(params, call.args)}
            given.update((k.arg, k.value) for k in call.keywords)
            params = [p for p in params if p.arg in given]
        parts = []
        for p in params:
            value = export(closure.vars.get(p.arg, UNKNOWN))
            record = _shown_record(closure.vars.get(p.arg))
            if value is not UNKNOWN:
                shown = repr(value)
            elif isinstance(given.get(p.arg), (ast.Name, ast.Attribute)) \
                    and ast.unparse(given[p.arg]) != p.arg:
                shown = ast.unparse(given[p.arg])  # `pass_configs=EXPERT`: a dict, named as the call names it
            elif record is not None:
                shown = record  # `tile=Tile(64, 256, 'float16')`
            else:
                shown = _shown_dict(closure.vars.get(p.arg)) or "?"  # `tile={'rows': 128, 'cols': 1024}`
            parts.append("%s=%s" % (p.arg, shown))
        text = "%s%s(%s)" % (owner, fn.name, ", ".join(parts))
    text = " ".join((text or "a call").split())
    if len(text) > 96:
        text = text[:93] + "..."
    return "%s (line %d)" % (text, line)


def _dotted(node) -> bool:
    """``matmul``, ``ops.matmul``, ``jit(gemm)``: a callee whose text names
    it (not ``cls().build``, a method of an object made there, which may be
    of a different class from call to call)."""
    if isinstance(node, ast.Call):
        node = node.func  # `jit(gemm)(1024, ...)`: the factory a wrapper was given
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _shown_dict(value) -> Optional[str]:
    """A small dict of plain keys and values, as its repr."""
    if type(value) is not DictV or not value.exact() or len(value.entries) > 8:
        return None
    items = [(k, export(e[0])) for k, e in value.entries.items()]
    if any(v is UNKNOWN or not isinstance(k, (str, int)) for k, v in items):
        return None
    return "{%s}" % ", ".join("%r: %r" % (str(k) if isinstance(k, str) else k, v) for k, v in items)


_FINGERPRINT_NODES = 512


def _fingerprint(closure: Frame, loaded) -> tuple:
    """What a compile site's values are, for telling sites apart: the
    factory frames' names and the module names the kernel reads, each value
    by what it holds (constants, containers and instances by their contents,
    anything else by identity). Frozen frames copy containers, so two
    compiles with equal arguments have equal fingerprints."""
    budget = [_FINGERPRINT_NODES]

    def fp(v, depth):
        budget[0] -= 1
        t = type(v)
        if v is None or t in (bool, int, float, str, complex, bytes):
            return (t.__name__, v)
        if budget[0] <= 0 or depth > 6:
            return ("id", id(v))
        if isinstance(v, str):
            return ("s", str(v))
        if t is tuple or t is ListV:
            return ("t" if t is tuple else "l", getattr(v, "spoiled", False)) + tuple(fp(x, depth + 1) for x in v)
        if t is DictV:
            return ("d", v.complete, tuple(sorted(map(repr, v.loose))) if v.loose else ()) + tuple(
                (repr(k), fp(e[0], depth + 1)) for k, e in v.entries.items())
        if t is InstanceV:
            return ("i", id(v.cls), v.opaque) + tuple((k, fp(x, depth + 1)) for k, x in v.attrs.items())
        if t is LibV or t is ImportV:
            return ("q", v.q)  # made afresh at each read
        return ("id", id(v))

    parts = []
    frame: Optional[Frame] = closure
    while frame is not None and frame.kind != "module":
        parts.append(tuple((name, fp(value, 0)) for name, value in frame.vars.items()))
        frame = frame.parent
    module = closure.module
    if module is not None:
        parts.append(tuple((name, fp(module.vars[name], 0)) for name in sorted(loaded) if name in module.vars))
    return tuple(parts)


def _shown_record(value) -> Optional[str]:
    """A NamedTuple or dataclass instance whose fields are plain constants, as
    its repr would start: ``Tile(64, 256, 'float16')``, ``Cfg(bm=64, bn=128)``."""
    if type(value) is not InstanceV or value.opaque:
        return None
    cls = value.cls
    name = cls.scope.name if cls.scope is not None else cls.attrs.get("__name__")
    if not isinstance(name, str):
        return None
    items = record_items(value)
    if items is not None:
        parts = [export(v) for v in items]
        return None if any(v is UNKNOWN for v in parts) else "%s(%s)" % (name, ", ".join(map(repr, parts)))
    if cls.kind == "dataclass" and all(f in value.attrs for f in cls.fields):
        parts = [export(value.attrs[f]) for f in cls.fields]
        if any(v is UNKNOWN for v in parts):
            return None
        return "%s(%s)" % (name, ", ".join("%s=%r" % (f, v) for f, v in zip(cls.fields, parts)))
    return None


def _is_literal(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant):
        return True
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_is_literal(e) for e in node.elts)
    return False


def kernel_sites(kernel, model) -> List[SiteValues]:
    """The sites a kernel is compiled at with known arguments; else one site
    with the factory's defaults; [] when the module cannot be evaluated."""
    resolver = model.resolver
    ev = resolver.evaluator() if resolver is not None else None
    if ev is None:
        return []
    from ..model import _event_config  # the model imports this module

    fn = kernel.func
    sites: List[SiteValues] = []
    seen = set()
    only = getattr(kernel, "compiled_at", None)  # another module's kernel: the one call judged here
    for event in ev.events:
        if only is not None and event.node is not only:
            continue
        found = list(event.kernels) if isinstance(event.kernels, list) else []
        found += [kv for kv in event.called if kv not in found]
        for kv in found:
            if not isinstance(kv, KernelV) or kv.fn is not fn or kv.closure is None:
                continue
            call = _site_call(kv.closure)
            if call is None:
                continue
            label = _call_label(call, kv.closure)
            # the same arguments compiled at the same call (a loop repeating it) are one
            # site; different ones (a loop over tile dicts, `cls().build(...)` over classes)
            # are not, however the label shows them
            key = (id(call), id(event.node), _fingerprint(kv.closure, fn.loaded))
            if key in seen or len(sites) >= MAX_SITES:
                continue
            seen.add(key)
            # this compile's own config (one call in a loop may compile with several)
            config = _event_config(event, model.filename)
            sites.append(SiteValues(kernel, ev, kv.closure, label, getattr(call, "lineno", None), False, config))
    if sites:
        return sites
    factory = fn.parent
    if factory is None or factory.kind == "module":
        # a module-level prim_func: its names are module constants
        if ev.module_frame is None:
            return []
        return [SiteValues(kernel, ev, ev.module_frame, "module constants", None, False, _agreed(kernel))]
    closure = _defaults_frame(factory, ev)
    if closure is None:
        return []
    return [SiteValues(kernel, ev, closure, "%s's defaults" % factory.name, None, True, _agreed(kernel))]


def _site_call(closure: Frame) -> Optional[ast.AST]:
    """The call that ran the factory whose frame this is (None: it ran with
    unknown arguments, or the prim_func is not defined in a function)."""
    return closure.call if closure.kind == "function" else None


def _agreed(kernel):
    """The one config every compile site of the kernel agrees on for
    MEMORY_PLANNING (None when they differ or none is known)."""
    states = {c.state(C.MEMORY_PLANNING) for c in kernel.configs}
    if len(states) == 1 and None not in states and kernel.configs:
        return kernel.configs[0]
    return None


def _defaults_frame(factory, ev) -> Optional[Frame]:
    """Run a module-level factory with no arguments: its defaults bound,
    parameters without one unknown. The prim_func's frame is returned."""
    if factory.parent is None or factory.parent.kind != "module" or ev.module_frame is None:
        return None
    value = ev.module_frame.vars.get(factory.name)
    if isinstance(value, JitV):
        value = value.factory
    if not isinstance(value, FuncV) or value.fn is not factory:
        return None
    saved = (ev.token, ev.steps, ev.quiet)
    ev.token = -1
    ev.steps = MAX_STEPS - _STEPS
    ev.quiet = True
    try:
        result = ev.call_function(value, (), {}, None)
    except Exception:
        return None
    finally:
        ev.token, ev.steps, ev.quiet = saved
    found = kernel_values(result)
    if not found:
        return None
    for kv in found:
        if kv.closure is not None:
            return kv.closure
    return None


def dtype_name(value) -> Optional[str]:
    """``"float16"`` for ``"float16"``, ``T.float16``, ``"half"``...; None otherwise."""
    if isinstance(value, LibV):
        value = value.q.rsplit(".", 1)[-1]
    if not isinstance(value, str):
        return None
    return _DTYPE_ALIASES.get(value, value)


_DTYPE_ALIASES = {"half": "float16", "float": "float32", "bf16": "bfloat16", "fp16": "float16",
                  "fp32": "float32", "double": "float64"}
