# TLA051's fix writes the boolean a value spells (safe): "True" -> True,
# 'false' -> False, 0.0 -> False; None has no single meaning and is left.
import tilelang
import tilelang.language as T

CONFIGS = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: "True",
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: 'false',
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: 0.0,
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_SYNC: None,
}


@tilelang.jit(pass_configs=CONFIGS)
def vec_exp(M, N, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype)):
        with T.Kernel(M, is_npu=True) as (cid, vid):
            a_ub = T.alloc_ub((1, N), dtype)
            T.copy(A[cid, 0], a_ub)

    return main
