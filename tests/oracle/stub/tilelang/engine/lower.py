"""Stub of tilelang.engine.lower: compiles under the current PassContext
(the default one, every switch off, outside any `with PassContext`)."""
from .. import _record


def lower(func_or_mod, target="auto", target_host=None, platform="auto", runtime_only=False,
          enable_host_codegen=False, enable_device_compile=False):
    from tvm.ir.transform import PassContext

    ctx = PassContext.current()
    span = ctx.span if ctx.span is not None else _record.caller_span(1)
    return _record.record_switches("lower", func_or_mod, ctx.switches, ctx.valid, span, target)


def is_device_call(*args, **kwargs):
    return False
