# TLA032's fix (unsafe) writes "FIX" for a Vector pipe in T.Scope("C"); in
# T.Scope("V") two pipes are valid and the advice is shown only.
import tilelang
import tilelang.language as T

EXPERT = {tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True}


@tilelang.jit(pass_configs=EXPERT)
def mm(M, N, K, dtype="float16", accum_dtype="float"):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype), W: T.Tensor((M, N), accum_dtype)):
        with T.Kernel(M // 64, is_npu=True) as (cid, vid):
            A_L1 = T.alloc_L1((64, K), dtype)
            B_L1 = T.alloc_L1((K, N), dtype)
            C_L0 = T.alloc_L0C((64, N), accum_dtype)
            c_ub = T.alloc_ub((32, N), accum_dtype)
            with T.Scope("C"):
                T.copy(A[cid * 64, 0], A_L1)
                T.copy(B[0, 0], B_L1)
                T.gemm_v0(A_L1, B_L1, C_L0, init=True)
                T.copy(C_L0, W[cid * 64, 0])
                T.set_cross_flag("mte3", 0)
            with T.Scope("V"):
                T.wait_cross_flag(0)
                T.copy(W[cid * 64 + vid * 32, 0], c_ub)
                T.set_cross_flag("FIX", 1)
            with T.Scope("C"):
                T.wait_cross_flag(1)

    return main
