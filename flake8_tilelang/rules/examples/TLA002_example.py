import tilelang
import tilelang.language as T


@tilelang.jit(
    out_idx=[-1],
    pass_configs={
        tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
        tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True,
    },
)
def vec_add(M, N, block_M, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel(M // block_M, is_npu=True) as (cid, vid):
            a_ub = T.alloc_ub((block_M // 2, N), dtype)
            b_ub = T.alloc_ub((block_M // 2, N), dtype)
            with T.Scope("V"):
                row = cid * block_M + vid * block_M // 2
                T.copy(A[row, 0], a_ub)
                T.copy(B[row, 0], b_ub)
                T.set_flag("mte2", "v", 0)  # expect: TLA002
                T.wait_flag("mte2", "v", 0)  # expect: TLA002
                T.tile.add(a_ub, a_ub, b_ub)
                T.barrier_all()  # expect: TLA002
                T.copy(a_ub, C[row, 0])

    return main
