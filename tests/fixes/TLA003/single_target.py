# TLA003's fix writes `as cid` for a threads= launch (unsafe) when the body never
# names `vid`; a body that reads `vid` keeps the advice only.
import tilelang
import tilelang.language as T

DEV = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True,
}


@tilelang.jit(pass_configs=DEV)
def vec_exp(M, N, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(M, threads=2, is_npu=True) as (cid, vid):
            a_ub = T.alloc_shared((1, N), dtype)
            T.copy(A[cid, 0], a_ub)
            T.copy(a_ub, B[cid, 0])

    return main


@tilelang.jit(pass_configs=DEV)
def vec_exp_split(M, N, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype)):
        with T.Kernel(M, threads=2, is_npu=True) as (cid, vid):
            a_ub = T.alloc_shared((1, N), dtype)
            T.copy(A[cid * 2 + vid, 0], a_ub)

    return main
