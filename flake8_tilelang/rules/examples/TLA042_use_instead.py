import tilelang
import tilelang.language as T

EXPERT = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: False,
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: False,
}


@tilelang.jit(out_idx=[-1], pass_configs=EXPERT)
def count_positive(M, N, block_M, dtype="float32"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M,), "int32")):
        with T.Kernel(M // block_M, is_npu=True) as (cid, vid):
            a_ub = T.alloc_ub((block_M // 2, N), dtype)
            total = T.alloc_ub((1,), "int32")
            with T.Scope("V"):
                T.copy(A[cid * block_M + vid * block_M // 2, 0], a_ub)
                T.barrier_all()
                for i in T.serial(block_M // 2):
                    total[0] = 0
                    for j in T.serial(N):
                        if a_ub[i, j] > 0:
                            total[0] = total[0] + 1
                    B[cid * block_M + vid * block_M // 2 + i] = total[0]

    return main
