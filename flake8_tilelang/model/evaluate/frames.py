"""Where names live while code runs (frames) and how a block is left early."""
from __future__ import annotations

from typing import Dict, List, Optional

from ..nodes import Scope

class Abrupt(Exception):
    """return / raise / break / continue leaving a block for certain."""

    def __init__(self, kind: str):
        self.kind = kind


class Undecided(Exception):
    """The next iteration of a comprehension, or the next item of a
    ``map``/``filter``, cannot be told (an unknown iterable or test, past the
    unroll budget)."""


_NONE: frozenset = frozenset()


class Frame:
    __slots__ = ("vars", "parent", "fn", "kind", "locals", "globals", "nonlocals", "module", "returns", "star_unknown",
                 "call", "owner")

    def __init__(self, kind: str, parent: Optional["Frame"], module: Optional["Frame"],
                 fn: Optional[Scope] = None, local_names=None):
        self.kind = kind  # "module", "function", "class"
        self.vars: Dict[str, object] = {}
        self.parent = parent
        self.module = module if module is not None else self
        self.fn = fn
        self.locals = local_names  # names local to a function (unbound reads are unknown)
        self.globals: set = set()
        self.nonlocals = _NONE  # `nonlocal` names: assigned in the enclosing function's frame
        self.returns: List[object] = []
        # a star import of a module that could not be read: any name may be bound
        self.star_unknown = False
        self.call: Optional[object] = None  # a function's frame: the call that ran it (None: no call site)
        # a class body's frame: the class it made; a method's frame: that class (`super()`)
        self.owner: Optional[object] = None

