# TLA030's fix writes the scope letter when exactly one is meant (safe); otherwise
# the advice is shown only.
import tilelang
import tilelang.language as T

EXPERT = {tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True}


@tilelang.jit(pass_configs=EXPERT)
def vec_exp(M, N, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype)):
        with T.Kernel(M, is_npu=True) as (cid, vid):
            a_ub = T.alloc_ub((1, N), dtype)
            with T.Scope('Vector'):
                T.copy(A[cid, 0], a_ub)
            with T.Scope("cube"):
                T.copy(A[cid, 0], a_ub)
            with T.Scope("both"):
                T.copy(A[cid, 0], a_ub)

    return main
