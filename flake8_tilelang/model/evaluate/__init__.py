"""A small abstract interpreter for the user's own module code.

The module's statements run in order, abstractly: values are Python
constants, dicts (``DictV``), tuples/lists, functions (``FuncV``, closures with
their defaults), partials, classes, instances, modules and TileLang objects
(``LibV``: ``tilelang.jit``, ``T.prim_func``, ``PassConfigKey``), prim_funcs
(``KernelV``, with the frame they were defined in), or ``UNKNOWN``. Nothing is
imported or executed for real.

- Branches on known values take one side; on unknown values both sides run
  and the results are joined (a value both sides agree on survives, anything
  else becomes unknown). A mutation made where it is not certain to happen
  makes the mutated key unknown instead of setting it.
- Functions run when they are called with the arguments of the call; a
  function nothing in the module calls runs once with unknown arguments, so
  compile sites inside it are seen too -- unless it is inert (it reads only
  its own names, builtins and foreign libraries such as torch: a reference
  implementation, also through other inert functions of its module), which
  cannot change anything a kernel sees.
- A function of another module of the project runs at its call, with the
  state of that moment (it may change the dict it is given or one its module
  exports), unless it cannot change anything here: given only immutable
  values and inert; such a call is made when its value is needed, if ever.
- A loop whose iterations cannot be told makes what it assigns and mutates
  unknown, then runs its body once in a branch of its own, and a second time
  only when the first run changed something beyond its frame's names (a store
  into a container or attribute, a global, a call of another module or of a
  library function with effects: ``self.effects`` counts them where they
  happen), so a value one iteration leaves for the next is seen.
- Code run from a string (``exec``, and ``eval`` of anything but a plain
  expression or a ``"torch." + dtype`` name lookup) and writes through a namespace dict (``globals()["CFG"] = ...``,
  ``vars().update(...)``, ``register(globals())``) are not read: after them
  every name of the module is unknown and every container the running frames
  hold is spoiled. Reading ``globals()`` changes nothing. So is a write
  through ``sys.modules[...]`` (``setattr(sys.modules[__name__], ...)``).
- A function handed to ``map``, ``sorted`` (``key=``) or another library
  call that calls back runs once with unknown arguments, in a branch of its
  own: what it may change is unknown afterwards.
- Calling a generator function or an ``async def`` runs nothing but the
  binding of its arguments. A generator's body runs a step at a time, up to
  the next ``yield``, when its consumer asks for the next item (a ``for``
  loop, a comprehension, ``list``, ``next``): what the consumer does between
  items, the generator sees, and the other way round; a consumer that stops
  part way leaves the rest for the next one. A coroutine's body runs where it
  is awaited or handed to ``asyncio.run``, once, with the state of that
  moment. Never consumed, neither runs.
- A list looped over is read by index as the loop goes (what the body
  appends is reached), as CPython's list iterator reads it.
- ``tilelang.compile`` reads its config where it is called; a jit decorator
  keeps the dict object and reads it when the kernel is compiled (after the
  module has run).
- Bounded: statements executed, call depth, loop unrolling, container
  sizes. When the budget runs out the evaluator stops answering and the
  model falls back to its static answers.

Uncertain is silent: ``UNKNOWN`` never makes a rule fire.
"""
from .budget import MAX_DEPTH, MAX_LEN, MAX_STEPS, MAX_UNROLL
from .evaluator import Evaluator
from .library import Event
from .values import UNKNOWN, DictV, KernelV, Module, export, join, kernel_values, plain, spread_keywords, truth

__all__ = [
    "DictV", "Evaluator", "Event", "KernelV", "MAX_DEPTH", "MAX_LEN", "MAX_STEPS", "MAX_UNROLL", "Module",
    "UNKNOWN", "export", "join", "kernel_values", "plain", "spread_keywords", "truth",
]
