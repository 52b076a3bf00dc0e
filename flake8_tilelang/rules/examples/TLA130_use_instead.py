import tilelang
import tilelang.language as T

PLANNED = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True,
}


@tilelang.jit(out_idx=[2], pass_configs=PLANNED)
def matmul(M, N, K, block_M=64, block_N=64, block_K=64, dtype="float16", accum_dtype="float32"):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype), C: T.Tensor((M, N), accum_dtype)):
        with T.Kernel((M // block_M) * (N // block_N), is_npu=True) as (cid, vid):
            bx = cid // (N // block_N)
            by = cid % (N // block_N)
            a_l1 = T.alloc_L1((block_M, block_K), dtype)
            b_l1 = T.alloc_L1((block_K, block_N), dtype)
            c_l0 = T.alloc_L0C((block_M, block_N), accum_dtype)
            with T.Scope("C"):
                for k in T.serial(K // block_K):
                    T.copy(A[bx * block_M, k * block_K], a_l1)
                    T.copy(B[k * block_K, by * block_N], b_l1)
                    T.gemm_v0(a_l1, b_l1, c_l0, init=(k == 0))
                T.copy(c_l0, C[bx * block_M, by * block_N])

    return main


kernel = matmul(1024, 1024, 1024)  # float16 A/B, float32 accumulator
