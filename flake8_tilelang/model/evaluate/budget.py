"""The evaluator's budgets: how much work one module may cost.

Counts (statements and calls, call depth, loop iterations) and one budget on
the size of values: every operation that can grow a value checks the size
its result would have *before* computing it, and a value over budget is
unknown. Sizes are in bytes, roughly: an int counts its bytes, a string its
characters, a tuple/list/dict one per slot plus what it holds.
"""
from __future__ import annotations

import re
from typing import Optional

MAX_STEPS = 10000  # statements + calls per module, plus STEPS_PER_LINE for each of its lines
STEPS_PER_LINE = 2
MAX_DEPTH = 10  # nested calls
MAX_UNROLL = 64  # loop iterations / comprehension items
MAX_WHILE = 16  # iterations of a while loop run one by one (block-size searches halve a few times)
MAX_LEN = 256  # container and string sizes built by arithmetic
MAX_SIZE = 4096  # the size of any one value (see size_of)
MAX_INT_BITS = 8 * MAX_SIZE
_MAX_NESTING = 32


class Budget(Exception):
    pass


class Interleaved(Budget):
    """A ``for`` loop's iterator consumed (or possibly consumed) in the
    loop's own body: the loop's items are not what the evaluator read at its
    start. Rare; the module is then not evaluated (as over budget)."""


def int_bits(value) -> int:
    return value.bit_length() if type(value) in (int, bool) else 0


def int_result_fits(op: str, a, b) -> bool:
    """Whether ``a <op> b`` on ints (or bools) stays within the budget,
    judged from the operands' sizes alone (nothing is computed)."""
    x, y = int_bits(a), int_bits(b)
    if op in ("add", "sub"):
        bits = max(x, y) + 1
    elif op == "mul":
        bits = x + y
    elif op == "pow":
        if b < 0 or a in (0, 1, -1):
            return b > -MAX_INT_BITS
        bits = x * b
    elif op == "lshift":
        if b < 0:
            return True  # ValueError
        bits = x + b
    else:  # floordiv, mod, div, and, or, xor, rshift: no larger than the operands
        bits = max(x, y)
    return bits <= MAX_INT_BITS


# compiled on first use (``re`` caches it): most modules never format with %
_PERCENT = r"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?"


def format_fits(fmt) -> bool:
    """``fmt % args``: every width and precision the format names is within
    the string budget (``*`` takes them from the arguments: unknown)."""
    for m in re.finditer(_PERCENT, fmt):
        for n in m.groups():
            if n is not None and (n == "*" or len(n) > 4 or int(n) > MAX_LEN):
                return False
    return True


def size_of(value, memo: Optional[dict] = None, depth: int = 0) -> int:
    """The size of a value, counted up to just over ``MAX_SIZE`` (a larger
    value costs no more to measure). Tuples are remembered in ``memo``."""
    t = type(value)
    if t is int or t is bool:
        return value.bit_length() // 8 + 1
    if t is str or t is bytes:
        return len(value) + 1
    if depth > _MAX_NESTING:
        return MAX_SIZE + 1
    if isinstance(value, (tuple, list)):
        if t is tuple and memo is not None:
            hit = memo.get(id(value))
            if hit is not None and hit[0] is value:
                return hit[1]
        total = 1
        for item in value:
            total += size_of(item, memo, depth + 1)
            if total > MAX_SIZE:
                break
        if t is tuple and memo is not None:
            memo[id(value)] = (value, total)
        return total
    entries = getattr(value, "entries", None)
    if isinstance(entries, dict):  # a DictV
        total = 1
        for key, entry in entries.items():
            total += size_of(key, memo, depth + 1) + size_of(entry[0], memo, depth + 1)
            if total > MAX_SIZE:
                break
        return total
    return 1
