# Expert GEMM: L1/L0 allocations, a Cube scope, hand-written syncs; its own config dict.
import tilelang
import tilelang.language as T

GEMM_CONFIGS = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: False,
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: False,
}


@tilelang.jit(out_idx=[-1], pass_configs=GEMM_CONFIGS)
def gemm(M, N, K, block_M, block_N, block_K, dtype="float16", accum_dtype="float"):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, block_M) * T.ceildiv(N, block_N), is_npu=True) as (cid, _):
            bx = cid // T.ceildiv(N, block_N)
            by = cid % T.ceildiv(N, block_N)
            A_L1 = T.alloc_L1((block_M, block_K), dtype)
            B_L1 = T.alloc_L1((block_K, block_N), dtype)
            C_L0 = T.alloc_L0C((block_M, block_N), accum_dtype)
            A_L0 = T.alloc_L0A((block_M, block_K), dtype)  # unused: gemm_v0 handles L0A

            with T.Scope("C"):  # the cube part
                for k in T.serial(T.ceildiv(K, block_K)):
                    T.copy(A[bx * block_M, k * block_K], A_L1)
                    T.copy(B[k * block_K, by * block_N], B_L1)
                    T.barrier_all()
                    T.gemm_v0(A_L1, B_L1, C_L0, init=(k == 0))
                    T.barrier_all()
                # write back
                T.copy(C_L0, C[bx * block_M, by * block_N])

    return main
