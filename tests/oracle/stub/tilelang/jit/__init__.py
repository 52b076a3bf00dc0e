"""Stub of tilelang.jit: `jit` stores pass_configs by reference and reads it
when the wrapper compiles (like the real _JitImplementation); `compile`
records at once."""
import functools

from .. import _record


class JITKernel(_record.KernelStub):
    pass


def compile(func=None, out_idx=None, workspace_idx=None, execution_backend="cython", target="auto",
            target_host=None, platform="auto", verbose=False, pass_configs=None):
    return _record.record("compile", func, pass_configs, _record.caller_span(1), target)


class _JitImplementation:
    def __init__(self, span, out_idx=None, workspace_idx=None, target="auto", target_host=None,
                 platform="auto", execution_backend="cython", verbose=False, pass_configs=None,
                 debug_root_path=None):
        self.span = span
        self.out_idx = out_idx
        self.target = target
        self.pass_configs = pass_configs
        self._kernel_cache = {}

    def __call__(self, func):
        impl = self

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            kwargs.pop("__tune_params", None)
            key = (args, tuple(sorted(kwargs.items())))
            try:
                hash(key)
            except TypeError:
                key = None
            if key is None or key not in impl._kernel_cache:
                program = func(*args, **kwargs)
                kernel = _record.record("jit", program, impl.pass_configs, impl.span, impl.target)
                if key is None:
                    return kernel
                impl._kernel_cache[key] = kernel
            return impl._kernel_cache[key]

        wrapper.__jit_impl__ = impl
        wrapper.__oracle_called__ = lambda: bool(impl._kernel_cache)
        self.func = func
        self.wrapper = wrapper
        _record.JIT_WRAPPERS.append(wrapper)
        return wrapper


def jit(func=None, *, out_idx=None, workspace_idx=None, target="auto", target_host=None, platform="auto",
        execution_backend="cython", verbose=False, pass_configs=None, debug_root_path=None):
    span = _record.caller_span(1)
    impl = _JitImplementation(span, out_idx=out_idx, workspace_idx=workspace_idx, target=target,
                              target_host=target_host, platform=platform,
                              execution_backend=execution_backend, verbose=verbose,
                              pass_configs=pass_configs, debug_root_path=debug_root_path)
    if callable(func):
        return impl(func)
    if isinstance(func, _record.PrimFuncStub):
        raise ValueError("Use tilelang.jit to decorate prim_func is not supported yet.")
    return impl
