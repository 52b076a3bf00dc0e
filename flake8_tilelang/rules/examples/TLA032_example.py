import tilelang
import tilelang.language as T

EXPERT = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: False,
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: False,
}


@tilelang.jit(out_idx=[2], workspace_idx=[3], pass_configs=EXPERT)
def matmul_exp(M, N, K, block_M, block_N, dtype="float16", accum_dtype="float32"):
    n_num = N // block_N

    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), accum_dtype),
        workspace: T.Tensor((M, N), accum_dtype),
    ):
        with T.Kernel((M // block_M) * n_num, is_npu=True) as (cid, vid):
            bx = cid // n_num
            by = cid % n_num
            a_l1 = T.alloc_L1((block_M, K), dtype)
            b_l1 = T.alloc_L1((K, block_N), dtype)
            c_l0 = T.alloc_L0C((block_M, block_N), accum_dtype)
            c_ub = T.alloc_ub((block_M // 2, block_N), accum_dtype)
            with T.Scope("C"):
                T.copy(A[bx * block_M, 0], a_l1)
                T.copy(B[0, by * block_N], b_l1)
                T.barrier_all()
                T.gemm_v0(a_l1, b_l1, c_l0, init=True)
                T.barrier_all()
                T.copy(c_l0, workspace[bx * block_M, by * block_N])
                T.set_cross_flag("MTE3", 0)  # expect: TLA032
            with T.Scope("V"):
                T.wait_cross_flag(0)
                T.copy(workspace[bx * block_M + vid * block_M // 2, by * block_N], c_ub)
                T.barrier_all()
                T.tile.exp(c_ub, c_ub)
                T.barrier_all()
                T.copy(c_ub, C[bx * block_M + vid * block_M // 2, by * block_N])

    return main
