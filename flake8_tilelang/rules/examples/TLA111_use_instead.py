import tilelang
import tilelang.language as T

PLANNED = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True,
}


@tilelang.jit(out_idx=[2], pass_configs=PLANNED)
def linear(BS, IN, OUT, block_K=64, dtype="float16"):
    @T.prim_func
    def main(X: T.Tensor((BS, IN), dtype), W: T.Tensor((OUT, IN), dtype), Y: T.Tensor((BS, OUT), "float32")):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            x_l1 = T.alloc_L1((BS, block_K), dtype)
            w_l1 = T.alloc_L1((OUT, block_K), dtype)
            y_l0 = T.alloc_L0C((BS, OUT), "float32")
            with T.Scope("C"):
                for bk in T.serial(IN // block_K):
                    T.copy(X[0, bk * block_K], x_l1)
                    T.copy(W[0, bk * block_K], w_l1)  # start point; the extent comes from w_l1
                    T.gemm_v0(x_l1, w_l1, y_l0, transpose_B=True, init=(bk == 0))
                T.copy(y_l0, Y[0, 0])

    return main
