import tilelang
import tilelang.language as T

PLANNED = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True,
}


@tilelang.jit(out_idx=[1], pass_configs=PLANNED)
def row_sum(M, N, block_M, dtype="float32"):
    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), S: T.Tensor((M,), dtype)):
        with T.Kernel(M // block_M, is_npu=True) as (cid, vid):
            x_ub = T.alloc_ub((block_M, N), dtype)
            s_ub = T.alloc_ub((block_M,), dtype)  # 1-D: one burst, no row padding
            T.copy(X[cid * block_M, 0], x_ub)
            T.reduce_sum(x_ub, s_ub, dim=-1)
            T.copy(s_ub, S[cid * block_M])

    return main


kernel = row_sum(1024, 256, 32)
