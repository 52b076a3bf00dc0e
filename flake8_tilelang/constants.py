"""Every name table the checker knows about TileLang-Ascend, in one place.

Facts are from tile-ai/tilelang-ascend at commit 95acbd7f (see the rule docs
for file:line references).
"""
import sys

# The four Ascend switches: enum member name -> the string key TVM's
# PassContext sees. Note AUTO_CV_SYNC's string differs from its enum name.
AUTO_SYNC = "tl.ascend_auto_sync"
MEMORY_PLANNING = "tl.ascend_memory_planning"
AUTO_CV_COMBINE = "tl.ascend_auto_cv_combine"
AUTO_CV_SYNC = "tl.ascend_auto_cross_core_sync"

SWITCH_ENUM = {
    AUTO_SYNC: "TL_ASCEND_AUTO_SYNC",
    MEMORY_PLANNING: "TL_ASCEND_MEMORY_PLANNING",
    AUTO_CV_COMBINE: "TL_ASCEND_AUTO_CV_COMBINE",
    AUTO_CV_SYNC: "TL_ASCEND_AUTO_CV_SYNC",
}
SWITCHES = tuple(SWITCH_ENUM)

# tilelang.PassConfigKey members (tilelang/transform/pass_config.py) and
# their string keys. Used to normalise `PassConfigKey.X` spellings.
PASS_CONFIG_ENUM = {
    "TL_ASCEND_AUTO_SYNC": AUTO_SYNC,
    "TL_ASCEND_MEMORY_PLANNING": MEMORY_PLANNING,
    "TL_ASCEND_AUTO_CV_COMBINE": AUTO_CV_COMBINE,
    "TL_ASCEND_AUTO_CV_SYNC": AUTO_CV_SYNC,
    "TL_SIMPLIFY": "tl.Simplify",
    "TL_DYNAMIC_ALIGNMENT": "tl.dynamic_alignment",
    "TL_DISABLE_DYNAMIC_TAIL_SPLIT": "tl.disable_dynamic_tail_split",
    "TL_DISABLE_WARP_SPECIALIZED": "tl.disable_warp_specialized",
    "TL_CONFIG_INDEX_BITWIDTH": "tl.config_index_bitwidth",
    "TL_DISABLE_TMA_LOWER": "tl.disable_tma_lower",
    "TL_DISABLE_SAFE_MEMORY_ACCESS": "tl.disable_safe_memory_legalize",
    "TL_DEBUG_MERGE_SHARED_MEMORY_ALLOCATIONS": "tl.debug_merge_shared_memory_allocations",
    "TIR_MERGE_STATIC_SMEM": "tir.merge_static_smem",
    "TIR_DISABLE_VECTORIZE": "tir.disable_vectorize",
    "TIR_SIMPLIFY": "tir.Simplify",
    "TIR_ENABLE_EQUIV_TERMS_IN_CSE": "tir.enable_equiv_terms_in_cse_tir",
    "TIR_DISABLE_CSE": "tir.disable_cse_tir",
    "TIR_DISABLE_STORAGE_REWRITE": "tir.disable_storage_rewrite",
    "TIR_USE_ASYNC_COPY": "tir.use_async_copy",
    "TIR_ENABLE_DEBUG": "tir.enable_debug",
    "TIR_ADD_LOWER_PASS": "tir.add_lower_pass",
    "TIR_NOALIAS": "tir.noalias",
    "CUDA_KERNELS_OUTPUT_DIR": "cuda.kernels_output_dir",
}

# Qualified names (after alias resolution) of the things the model looks for.
PASS_CONFIG_KEY_CLASSES = frozenset({
    "tilelang.PassConfigKey",
    "tilelang.transform.PassConfigKey",
    "tilelang.transform.pass_config.PassConfigKey",
})
JIT_NAMES = frozenset({"tilelang.jit", "tilelang.jit.jit"})
AUTOTUNE_NAMES = frozenset({"tilelang.autotune", "tilelang.autotuner.autotune"})
# `tilelang.cached(func, out_idx, workspace_idx, *args, target=..., pass_configs=...)`
# (tilelang/cache/__init__.py) compiles at once too, through the kernel cache.
COMPILE_NAMES = frozenset({"tilelang.compile", "tilelang.jit.compile", "tilelang.cached", "tilelang.cache.cached"})
CACHED_NAMES = frozenset({"tilelang.cached", "tilelang.cache.cached"})
LOWER_NAMES = frozenset({"tilelang.lower", "tilelang.engine.lower", "tilelang.engine.lower.lower"})
# Compile targets (``target=`` of jit / compile / lower), by dialect: tile-ai/tilelang-ascend
# ascendc_pto `tilelang/utils/target.py` maps "ascendc" and "pto" to its Ascend C route and
# "auto" (the default) to it when an NPU is present; the npuir branch's jit/compile default
# to "npuir" (`tilelang/jit/__init__.py`), so "auto" / no target is the installed branch's
# default: the `target` setting. Any other value: unknown.
ASCENDC, NPUIR = "ascendc", "npuir"
DIALECTS = (ASCENDC, NPUIR)
DEFAULT_TARGET = "default"
TARGET_DIALECTS = {"ascendc": ASCENDC, "pto": ASCENDC, "npuir": NPUIR, "auto": DEFAULT_TARGET}
PASS_CONTEXT_NAMES = frozenset({
    "tvm.transform.PassContext",
    "tvm.ir.transform.PassContext",
    "tilelang.transform.PassContext",
    "tilelang.tvm.transform.PassContext",
    "tilelang.tvm.ir.transform.PassContext",
})

LANGUAGE = "tilelang.language"
# Submodules of tilelang.language whose members are re-exported as T.<name>;
# `from tilelang.language.ascend import barrier_all` is still T.barrier_all.
LANGUAGE_SUBMODULES = frozenset({
    "ascend", "allocate", "kernel", "warpgroup", "customize", "pipeline",
    "builtin", "copy", "gemm", "reduce", "parallel", "proxy",
})
# T.tile.* lives in tilelang.language.ascend_tile.
TILE_MODULES = frozenset({"tile", "ascend_tile"})

# Intra-core synchronisation written by hand (AscendSyncInsert never sees
# these: IsSyncStatement only accepts its own tl.ascend_auto_* ops).
INTRA_CORE_SYNC = frozenset({
    "barrier_all", "pipe_barrier", "set_flag", "wait_flag", "init_flag", "clear_flag",
})
CROSS_CORE_SYNC = frozenset({"set_cross_flag", "wait_cross_flag"})
EXPERT_ALLOCS = frozenset({"alloc_L1", "alloc_ub", "alloc_L0A", "alloc_L0B", "alloc_L0C"})

# Module names whose import makes a file worth analysing.
MARKER = "tilelang"

# Set to 1 to re-raise internal errors instead of reporting TLA000 (the tests do).
STRICT_ENV = "FLAKE8_TILELANG_STRICT"

# Top-level packages that are never the user's own modules: the cross-module
# loader never looks them up, and a file importing only these (and the
# standard library) depends on its own content alone (the cache may keep it).
THIRD_PARTY_ROOTS = frozenset({
    "tilelang", "tvm", "torch", "torch_npu", "numpy", "scipy", "triton", "jax", "jaxlib",
    "tensorflow", "pandas", "sympy", "transformers", "vllm", "cupy", "numba", "mindspore",
    "pytest", "hypothesis", "setuptools", "pkg_resources", "typing_extensions", "einops",
    "__future__",
})
# The standard library's top-level modules (never the user's own either).
STDLIB_ROOTS = frozenset(getattr(sys, "stdlib_module_names", ())) | frozenset(sys.builtin_module_names)

# Rules that are off unless selected explicitly (tests keep this equal to the
# registry's default_enabled=False rules; the flake8 adapter reads it at
# start-up without importing any rule).
OPT_IN_CODES = ("TLA009", "TLA010", "TLA011", "TLA012", "TLA013", "TLA022", "TLA052", "TLA053",
                "TLA090", "TLA091", "TLA092", "TLA096")

# Keys registered after the 95acbd7f snapshot (PR #1346); accepted so users
# of newer releases get no false TLA050.
POST_SNAPSHOT_KEYS = frozenset({"tl.ascend_auto_sync_vs"})
PASS_CONFIG_ENUM_POST_SNAPSHOT = {"TL_ASCEND_AUTO_SYNC_VS": "tl.ascend_auto_sync_vs"}
PASS_CONFIG_ENUM.update(PASS_CONFIG_ENUM_POST_SNAPSHOT)
KNOWN_KEYS = frozenset(PASS_CONFIG_ENUM.values())
# Keys whose value is not a boolean switch: `tl.Simplify` / `tir.Simplify` take a SimplifyConfig
# (a dict of its fields; src/transform/simplify.cc:208), `tl.config_index_bitwidth` and
# `tl.dynamic_alignment` an Integer (src/op/builtin.cc:26-28).
NON_BOOL_KEYS = frozenset({"tl.config_index_bitwidth", "tl.dynamic_alignment", "tl.Simplify", "tir.Simplify",
                           "cuda.kernels_output_dir", "tir.add_lower_pass"})
# Keys no pass on the Ascend pipeline reads (rules-reference §a.2).
INERT_KEYS = frozenset({
    "tl.Simplify", "tl.dynamic_alignment", "tl.disable_dynamic_tail_split",
    "tl.disable_warp_specialized", "tl.disable_tma_lower", "tl.debug_merge_shared_memory_allocations",
    "tir.enable_equiv_terms_in_cse_tir", "tir.disable_cse_tir", "tir.disable_storage_rewrite",
    "tir.use_async_copy", "tir.enable_debug", "tir.add_lower_pass", "tir.noalias",
    "cuda.kernels_output_dir",
})
