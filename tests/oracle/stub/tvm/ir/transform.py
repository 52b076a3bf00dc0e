"""Stub of tvm.ir.transform.PassContext: TVM converts `config` when the
context is made, so the switches are read at construction; `with` makes it
current; `current()` outside any is the default context (every switch off)."""
from tilelang import _record


class PassContext:
    def __init__(self, opt_level=2, required_pass=None, disabled_pass=None, instruments=None, config=None,
                 trace=None, trace_stack=None, make_traceable=None, num_evals=0, tuning_api_database=None):
        self.opt_level = opt_level
        self.config = dict(config) if isinstance(config, dict) else config
        self.switches, self.valid = _record.effective(config)
        self.span = _record.caller_span(1)

    def __enter__(self):
        _record._CONTEXTS.append(self)
        return self

    def __exit__(self, *exc):
        if self in _record._CONTEXTS:
            _record._CONTEXTS.remove(self)
        return False

    @staticmethod
    def current():
        if _record._CONTEXTS:
            return _record._CONTEXTS[-1]
        return _DEFAULT


class _Default(PassContext):
    def __init__(self):
        self.opt_level = 2
        self.config = {}
        self.switches, self.valid = _record.effective(None)
        self.span = None


_DEFAULT = _Default()
