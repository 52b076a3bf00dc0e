import tilelang
import tilelang.language as T

CONFIGS = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True,
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: True,
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_SYNC: False,
}


@tilelang.jit(out_idx=[2], pass_configs=CONFIGS)
def matmul_rows_exp(M, N, K, block_M, block_N, block_K, dtype="float16", accum_dtype="float32"):
    n_num = N // block_N

    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype), C: T.Tensor((M, N), accum_dtype)):
        with T.Kernel((M // block_M) * n_num, is_npu=True) as (cid, vid):
            bx = cid // n_num
            by = cid % n_num
            a_l1 = T.alloc_L1((block_M, block_K), dtype)
            b_l1 = T.alloc_L1((block_K, block_N), dtype)
            c_l0 = T.alloc_L0C((block_M, block_N), accum_dtype)
            s_ub = T.alloc_ub((block_M // 2, block_N), accum_dtype)
            for k in T.Pipelined(K // block_K, num_stages=2):  # expect: TLA011
                T.copy(A[bx * block_M, k * block_K], a_l1)
                T.copy(B[k * block_K, by * block_N], b_l1)
                T.gemm_v0(a_l1, b_l1, c_l0, init=(k == 0))
                T.copy(C[bx * block_M + vid * block_M // 2, by * block_N], s_ub)
                T.tile.exp(s_ub, s_ub)
            T.copy(s_ub, C[bx * block_M + vid * block_M // 2, by * block_N])

    return main
