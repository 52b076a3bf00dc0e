import tilelang
import tilelang.language as T

PLANNED = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: False,
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: False,
}


@tilelang.jit(out_idx=[2], pass_configs=PLANNED)
def matmul(M, N, K, block_M, block_N, block_K, dtype="float16", accum_dtype="float32"):
    n_num = N // block_N

    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype), C: T.Tensor((M, N), accum_dtype)):
        with T.Kernel((M // block_M) * n_num, is_npu=True) as (cid, vid):
            bx = cid // n_num
            by = cid % n_num
            a_l1 = T.alloc_L1((block_M, block_K), dtype)
            b_l1 = T.alloc_L1((block_K, block_N), dtype)
            c_l0 = T.alloc_L0C((block_M, block_N), accum_dtype)
            T.annotate_address({a_l1: 0, b_l1: block_M * block_K * 2, c_l0: 0})
            with T.Scope("C"):
                for k in T.serial(K // block_K):
                    T.copy(A[bx * block_M, k * block_K], a_l1)
                    T.copy(B[k * block_K, by * block_N], b_l1)
                    T.barrier_all()
                    T.gemm_v0(a_l1, b_l1, c_l0, init=(k == 0))
                    T.barrier_all()
                T.copy(c_l0, C[bx * block_M, by * block_N])

    return main
