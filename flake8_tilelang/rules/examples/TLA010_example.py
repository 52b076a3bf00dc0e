import tilelang
import tilelang.language as T

CONFIGS = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True,
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: True,
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_SYNC: True,
}


@tilelang.jit(out_idx=[2], workspace_idx=[3], pass_configs=CONFIGS)
def matmul_gelu(M, N, K, block_M, block_N, dtype="float16", accum_dtype="float32"):
    n_num = N // block_N

    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), accum_dtype),
        partial: T.Tensor((M, N), accum_dtype),
    ):
        with T.Kernel((M // block_M) * n_num, is_npu=True) as (cid, vid):
            bx = cid // n_num
            by = cid % n_num
            a_l1 = T.alloc_L1((block_M, K), dtype)
            b_l1 = T.alloc_L1((K, block_N), dtype)
            c_l0 = T.alloc_L0C((block_M, block_N), accum_dtype)
            c_ub = T.alloc_ub((block_M // 2, block_N), accum_dtype)
            T.copy(A[bx * block_M, 0], a_l1)
            T.copy(B[0, by * block_N], b_l1)
            T.gemm_v0(a_l1, b_l1, c_l0, init=True)
            T.copy(c_l0, partial[bx * block_M, by * block_N])  # expect: TLA010
            T.copy(partial[bx * block_M + vid * block_M // 2, by * block_N], c_ub)
            T.tile.gelu(c_ub, c_ub)
            T.copy(c_ub, C[bx * block_M + vid * block_M // 2, by * block_N])

    return main
