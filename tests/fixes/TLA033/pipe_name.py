# TLA033's fix writes the nearest valid pipe, keeping upper case (safe); a name with
# no close pipe keeps the advice only.
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
                T.tile.exp(a_ub, a_ub)

    return main
