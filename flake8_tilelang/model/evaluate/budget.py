"""The evaluator's budgets: how much work one module may cost."""
from __future__ import annotations

MAX_STEPS = 10000  # statements + calls per module
MAX_DEPTH = 10  # nested calls
MAX_UNROLL = 64  # loop iterations / comprehension items
MAX_LEN = 256  # container and string sizes built by arithmetic


class Budget(Exception):
    pass

