import tilelang
import tilelang.language as T

EXPERT = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: False,
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: False,
}


@tilelang.jit(out_idx=[-1], pass_configs=EXPERT)
def vec_relu(M, N, block_M, dtype="float16"):
    n_blocks = M // block_M

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(n_blocks, is_npu=True) as cid:  # expect: TLA020
            a_ub = T.alloc_ub((block_M // 2, N), dtype)
            with T.Scope("V"):
                T.copy(A[cid * block_M, 0], a_ub)
                T.barrier_all()
                T.tile.relu(a_ub, a_ub)
                T.barrier_all()
                T.copy(a_ub, B[cid * block_M, 0])

    return main
