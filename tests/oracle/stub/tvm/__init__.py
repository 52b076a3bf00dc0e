"""Stub of tvm: `transform.PassContext` (= `ir.transform.PassContext`); the
rest is inert."""
import tilelang._finder as _finder

_finder.install()

from . import ir  # noqa: E402,F401
from . import transform  # noqa: E402,F401
from tilelang._record import Anything as _Anything  # noqa: E402

DataType = _Anything("tvm.DataType")


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _Anything("tvm." + name)
