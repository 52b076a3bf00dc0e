import tilelang
import tilelang.language as T

DEVELOPER = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True,
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: True,
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_SYNC: True,
}


@tilelang.jit(out_idx=[2], pass_configs=DEVELOPER)
def matmul_relu(M, N, K, block_M, block_N, dtype="float16", accum_dtype="float32"):
    n_num = N // block_N

    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), accum_dtype),
    ):
        with T.Kernel((M // block_M) * n_num, threads=2, is_npu=True) as cid:
            bx = cid // n_num
            by = cid % n_num
            a = T.alloc_shared((block_M, K), dtype)
            b = T.alloc_shared((K, block_N), dtype)
            c = T.alloc_fragment((block_M, block_N), accum_dtype)
            c_out = T.alloc_ub((block_M, block_N), accum_dtype)  # expect: TLA092
            T.copy(A[bx * block_M, 0], a)
            T.copy(B[0, by * block_N], b)
            T.gemm_v0(a, b, c, init=True)
            T.copy(c, c_out)
            for i, j in T.Parallel(block_M, block_N):
                c_out[i, j] = T.max(c_out[i, j], 0)
            T.copy(c_out, C[bx * block_M, by * block_N])

    return main
