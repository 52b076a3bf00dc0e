"""Stub of tilelang.language (T): `prim_func` records the function without
running its body (the real decorator parses it as TVMScript); `macro` returns
an inert callable; everything else (Kernel, Tensor, Scope, alloc_*, dtypes,
copy, ...) is an inert value."""
from .. import _record


def prim_func(func=None, **kwargs):
    if func is None:
        return lambda f: _record.PrimFuncStub(f)
    return _record.PrimFuncStub(func)


class _Macro:
    def __init__(self, func):
        self.func = func
        self.__name__ = getattr(func, "__name__", "macro")

    def __call__(self, *args, **kwargs):
        return _record.Anything("macro " + self.__name__)


def macro(func=None, **kwargs):
    if func is None:
        return lambda f: _Macro(f)
    return _Macro(func)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _record.Anything("T." + name)
