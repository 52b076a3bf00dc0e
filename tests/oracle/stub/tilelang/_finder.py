"""Makes every `tilelang.*` / `tvm.*` submodule the stub does not spell out
an inert module (attribute access gives `Anything`)."""
import importlib.abc
import importlib.machinery
import sys
import types

from ._record import Anything

ROOTS = ("tilelang", "tvm")
# Third-party packages kernel files import next to tilelang (test scripts
# import torch); inert when not installed. The driver sets this for fixtures.
EXTRA_ROOTS = set()


class _InertModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Anything("%s.%s" % (self.__name__, name))


class _Loader(importlib.abc.Loader):
    def create_module(self, spec):
        return _InertModule(spec.name)

    def exec_module(self, module):
        module.__path__ = []  # a package: its own submodules are inert too


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        root = fullname.split(".")[0]
        if root in EXTRA_ROOTS:
            pass
        elif root not in ROOTS or "." not in fullname:
            return None
        # the stub's real files first (the normal path finder runs after us)
        for finder in sys.meta_path:
            if isinstance(finder, _Finder) or type(finder).__name__ == "_Finder" \
                    or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                return spec
        return importlib.machinery.ModuleSpec(fullname, _Loader(), is_package=True)


_FINDER = _Finder()


def install():
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)


def uninstall():
    while _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
