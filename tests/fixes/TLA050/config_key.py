# TLA050's fix (unsafe: the switch then takes effect) renames only a known slip: the raw key
# spelt after its enum member, the enum member spelt after its raw key, a key written without
# its `tl.` namespace. A misspelling keeps the advice only (one close key or several: a human
# picks), and so does a rename that would duplicate a key the dict already has.
import tilelang
import tilelang.language as T

SLIPS = {
    "tl.ascend_auto_cv_sync": True,
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CROSS_CORE_SYNC: True,
    "TL_ASCEND_MEMORY_PLANNING": True,
}

TYPOS = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV: True,
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNCC: True,
    "tl.ascend_memory_planing": True,
}

DUPLICATE = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_SYNC: False,
    "tl.ascend_auto_cv_sync": True,
}


@tilelang.jit(pass_configs=SLIPS)
def vec_exp(M, N, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype)):
        with T.Kernel(M, is_npu=True) as (cid, vid):
            a_ub = T.alloc_ub((1, N), dtype)
            T.copy(A[cid, 0], a_ub)

    return main


@tilelang.jit(pass_configs=TYPOS)
def vec_exp_typos(M, N, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype)):
        with T.Kernel(M, is_npu=True) as (cid, vid):
            a_ub = T.alloc_ub((1, N), dtype)
            T.copy(A[cid, 0], a_ub)

    return main


@tilelang.jit(pass_configs=DUPLICATE)
def vec_exp_duplicate(M, N, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype)):
        with T.Kernel(M, is_npu=True) as (cid, vid):
            a_ub = T.alloc_ub((1, N), dtype)
            T.copy(A[cid, 0], a_ub)

    return main
