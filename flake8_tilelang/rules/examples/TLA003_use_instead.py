import tilelang
import tilelang.language as T

DEVELOPER = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True,
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: True,
}


@tilelang.jit(out_idx=[-1], pass_configs=DEVELOPER)
def gelu_rows(M, N, block_M, dtype="float16"):
    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), Y: T.Tensor((M, N), dtype)):
        # threads=2: the compiler halves the tile and adds each vector core's offset
        with T.Kernel(M // block_M, threads=2, is_npu=True) as cid:
            x = T.alloc_shared((block_M, N), dtype)
            T.copy(X[cid * block_M, 0], x)
            for i, j in T.Parallel(block_M, N):
                x[i, j] = x[i, j] * T.sigmoid(1.702 * x[i, j])
            T.copy(x, Y[cid * block_M, 0])

    return main
