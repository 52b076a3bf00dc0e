import tilelang
import tilelang.language as T

MANUAL = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: False,
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True,
}


@tilelang.jit(out_idx=[1], pass_configs=MANUAL)
def scale(M, N, block_M, dtype="float16"):
    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), Y: T.Tensor((M, N), dtype)):
        with T.Kernel(M // block_M, is_npu=True) as (cid, vid):
            x_ub = T.alloc_ub((block_M, N), dtype)
            with T.Scope("V"):
                T.copy(X[cid * block_M, 0], x_ub)
                T.set_flag("mte2", "v", 1)
                T.wait_flag("mte2", "v", 1)
                T.tile.mul(x_ub, x_ub, 2.0)
                T.set_flag("v", "mte3", 0)
                T.wait_flag("v", "mte3", 0)
                T.copy(x_ub, Y[cid * block_M, 0])

    return main
