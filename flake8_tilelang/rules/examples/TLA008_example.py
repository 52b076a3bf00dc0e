import tilelang
import tilelang.language as T

DEVELOPER = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True,
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: True,
}


@tilelang.jit(out_idx=[-1], pass_configs=DEVELOPER)
def two_phase_norm(M, N, block_M, dtype="float32"):
    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), Y: T.Tensor((M, N), dtype)):
        with T.Kernel(M // block_M, is_npu=True) as (cid, vid):
            x = T.alloc_shared((block_M // 2, N), dtype)
            T.copy(X[cid * block_M + vid * block_M // 2, 0], x)
            T.sync_all()  # expect: TLA008
            for i, j in T.Parallel(block_M // 2, N):
                x[i, j] = x[i, j] * 0.5
            T.copy(x, Y[cid * block_M + vid * block_M // 2, 0])

    return main
