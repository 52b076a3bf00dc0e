import tilelang
import tilelang.language as T

PASS_CONFIGS = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True,
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: True,
}


@tilelang.jit(out_idx=[-1], pass_configs=PASS_CONFIGS)
def silu(M, N, block_M, dtype="float32"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(M // block_M, threads=2, is_npu=True) as cid:
            a = T.alloc_shared((block_M, N), dtype)
            T.copy(A[cid * block_M, 0], a)
            for i, j in T.Parallel(block_M, N):
                a[i, j] = a[i, j] * T.sigmoid(a[i, j])
            T.copy(a, B[cid * block_M, 0])

    return main
