# The launch's second target is the vector-core id whatever its name (`as (bx, by)`, as in
# tilelang-ascend's HISA examples). `row_split` reads `by`: the launch stays Expert and the
# report names every line that reads it. `no_split` never reads `by`: threads=2, `as bx`.
import tilelang
import tilelang.language as T

EXPERT = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: False,
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: False,
}


@tilelang.jit(out_idx=[-1], pass_configs=EXPERT)
def row_split(M, N, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(M // 64, is_npu=True) as (bx, by):
            a_ub = T.alloc_ub((32, N), dtype)
            with T.Scope("V"):
                T.copy(A[bx * 64 + by * 32, 0], a_ub)
                T.barrier_all()
                T.tile.exp(a_ub, a_ub)
                T.barrier_all()
                T.copy(a_ub, B[bx * 64 + by * 32, 0])

    return main


@tilelang.jit(out_idx=[-1], pass_configs=EXPERT)
def no_split(M, N, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(M // 64, is_npu=True) as (bx, by):
            a_ub = T.alloc_ub((64, N), dtype)
            with T.Scope("V"):
                T.copy(A[bx * 64, 0], a_ub)
                T.barrier_all()
                T.copy(a_ub, B[bx * 64, 0])

    return main
