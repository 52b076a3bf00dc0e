"""The recorder shared by the stub `tilelang` and `tvm` packages (test-only).

Nothing here is the real library: every compile entry point appends a
`Compile` record (which prim_func, the effective TL_ASCEND switches, the
source span of the call that decided the configuration) and returns an inert
object. `reset()` clears the records between programs.
"""
import sys

# The four Ascend switches: raw key -> PassConfigKey member name, written out
# here from tilelang/transform/pass_config.py (tile-ai/tilelang-ascend
# 95acbd7f), independently of the checker's own constants table.
SWITCHES = {
    "tl.ascend_auto_sync": "TL_ASCEND_AUTO_SYNC",
    "tl.ascend_memory_planning": "TL_ASCEND_MEMORY_PLANNING",
    "tl.ascend_auto_cv_combine": "TL_ASCEND_AUTO_CV_COMBINE",
    "tl.ascend_auto_cross_core_sync": "TL_ASCEND_AUTO_CV_SYNC",
}
INDET = "indeterminate"  # a value whose effect the oracle does not claim (e.g. the string "True")

COMPILES = []       # Compile records, in order
JIT_WRAPPERS = []   # every wrapper tilelang.jit made (the driver calls the never-called ones)
PRIM_FUNCS = []     # every T.prim_func made
_CONTEXTS = []      # the PassContext stack


class Compile:
    __slots__ = ("kind", "prim", "switches", "span", "valid", "target")

    def __init__(self, kind, prim, switches, span, valid, target="auto"):
        self.kind = kind          # "jit" | "compile" | "lower"
        self.prim = prim          # the PrimFunc stub (or None when not a prim_func)
        self.switches = switches  # {raw key: True | False | INDET}
        self.span = span          # (filename, first line, last line) of the deciding call
        self.valid = valid        # False: the real PassContext would reject the config
        self.target = target      # the `target` argument as the library received it

    def as_dict(self):
        return {
            "kind": self.kind,
            "kernel": None if self.prim is None else {
                "name": self.prim.name, "file": self.prim.filename, "firstlineno": self.prim.firstlineno},
            "switches": dict(self.switches),
            "span": list(self.span),
            "valid": self.valid,
            "dialect": dialect(self.target),
        }


def reset():
    del COMPILES[:]
    del JIT_WRAPPERS[:]
    del PRIM_FUNCS[:]
    del _CONTEXTS[:]


def caller_span(depth):
    """(file, first line, last line) of the call expression `depth` frames up
    (1 = the caller of the function calling this)."""
    frame = sys._getframe(depth + 1)
    code = frame.f_code
    first = last = frame.f_lineno
    try:
        positions = list(code.co_positions())[frame.f_lasti // 2]
        if positions[0] is not None:
            first, last = positions[0], positions[1] if positions[1] is not None else positions[0]
    except (AttributeError, IndexError):  # Python < 3.11: the line only
        pass
    return (code.co_filename, first, last)


def _valid_keys():
    from tilelang.transform.pass_config import PassConfigKey
    return {m.value for m in PassConfigKey}


def effective(configs):
    """({raw switch key: True | False | INDET}, valid) for a pass_configs value
    as TVM's PassContext would read it: absent or None means off; bool and int
    values are taken by truth; anything else is not claimed."""
    if configs is None:
        return {k: False for k in SWITCHES}, True
    if not isinstance(configs, dict):
        return {k: INDET for k in SWITCHES}, True
    valid_keys = _valid_keys()
    out = {k: False for k in SWITCHES}
    valid = True
    for key, value in configs.items():
        if not isinstance(key, str) or str.__str__(key) not in valid_keys:
            valid = False  # the real PassContext raises on an unknown option
            continue
        raw = str.__str__(key)
        if raw in SWITCHES:
            if isinstance(value, bool):
                out[raw] = value
            elif isinstance(value, int):
                out[raw] = bool(value)
            else:
                out[raw] = INDET
    return out, valid


def dialect(target):
    """The backend route a `target` selects, written out from tile-ai/tilelang-ascend
    (ascendc_pto `tilelang/utils/target.py`: "ascendc" / "pto", and "auto" with an
    NPU; npuir `tilelang/jit/__init__.py`: "npuir"). "auto" is the installed
    branch's default: the oracle runs with the checker's default setting, Ascend C.
    Anything else: "other"."""
    if isinstance(target, str) and not isinstance(target, Anything):
        return {"ascendc": "ascendc", "pto": "ascendc", "auto": "ascendc", "npuir": "npuir"}.get(target, "other")
    return "other"


def record(kind, prim, configs, span, target="auto"):
    switches, valid = effective(configs)
    COMPILES.append(Compile(kind, prim if isinstance(prim, PrimFuncStub) else None, switches, span, valid,
                            target))
    return KernelStub(prim)


def record_switches(kind, prim, switches, valid, span, target="auto"):
    COMPILES.append(Compile(kind, prim if isinstance(prim, PrimFuncStub) else None, dict(switches), span, valid,
                            target))
    return KernelStub(prim)


class Anything:
    """An inert value: every attribute, call, index and operator gives another."""

    def __init__(self, name="<stub>"):
        object.__setattr__(self, "_name", name)

    def __repr__(self):
        return "<stub %s>" % self._name

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return Anything("%s.%s" % (self._name, name))

    def __setattr__(self, name, value):
        pass

    def __call__(self, *args, **kwargs):
        return Anything("%s()" % self._name)

    def __getitem__(self, item):
        return Anything("%s[]" % self._name)

    def __setitem__(self, item, value):
        pass

    def __iter__(self):
        return iter(())

    def __len__(self):
        return 0

    def __bool__(self):
        return True

    def __index__(self):
        return 1

    def __int__(self):
        return 1

    def __float__(self):
        return 1.0

    def __enter__(self):
        return Anything("%s.__enter__()" % self._name)

    def __exit__(self, *exc):
        return False

    def __hash__(self):
        return id(self)

    def __eq__(self, other):
        return self is other

    def _op(self, *other):
        return Anything(self._name)

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _op
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _op
    __pow__ = __rpow__ = __neg__ = __pos__ = __and__ = __rand__ = __or__ = __ror__ = _op
    __lshift__ = __rlshift__ = __rshift__ = __rrshift__ = __xor__ = __rxor__ = __invert__ = _op
    __lt__ = __le__ = __gt__ = __ge__ = __matmul__ = __rmatmul__ = _op


class PrimFuncStub:
    """What `T.prim_func` returns: the Python function, never run (the real
    decorator parses the body as TVMScript)."""

    def __init__(self, func):
        self.func = func
        self.name = func.__name__
        self.filename = func.__code__.co_filename
        self.firstlineno = func.__code__.co_firstlineno
        self.attrs = {"global_symbol": self.name}
        PRIM_FUNCS.append(self)

    def __repr__(self):
        return "<prim_func %s:%d>" % (self.name, self.firstlineno)

    def script(self):
        return ""

    def with_attr(self, *args):
        return self


class KernelStub(Anything):
    """What a compile returns: callable, inert, remembers its prim_func."""

    def __init__(self, prim):
        Anything.__init__(self, "kernel")
        object.__setattr__(self, "prim", prim)

    def get_kernel_source(self):
        return ""
