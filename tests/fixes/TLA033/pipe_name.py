# TLA033's fix writes the valid pipe when exactly one is within reach (one letter added,
# dropped, changed or swapped), keeping upper case (unsafe); "mte" (mte1, mte2 or mte3?) and
# "x" (m, v or s?) reach several, and "zzz" none: the advice only, never a guess.
import tilelang
import tilelang.language as T

EXPERT = {tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True}


@tilelang.jit(pass_configs=EXPERT)
def vec_exp(M, N, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype)):
        with T.Kernel(M, is_npu=True) as (cid, vid):
            a_ub = T.alloc_ub((1, N), dtype)
            with T.Scope("V"):
                T.copy(A[cid, 0], a_ub)
                T.set_flag("mte22", "v", 0)
                T.wait_flag('MTE2', "vv", 0)
                T.pipe_barrier("zzz")
                T.set_flag("mte", "v", 1)
                T.wait_flag("mte2", "x", 1)
                T.tile.exp(a_ub, a_ub)

    return main
