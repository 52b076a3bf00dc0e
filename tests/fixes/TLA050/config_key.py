# TLA050's fix writes the registered key (safe): an enum member is renamed, a raw
# key keeps its quotes.
import tilelang
import tilelang.language as T

CONFIGS = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNCC: True,
    "tl.ascend_memory_planing": True,
}


@tilelang.jit(pass_configs=CONFIGS)
def vec_exp(M, N, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype)):
        with T.Kernel(M, is_npu=True) as (cid, vid):
            a_ub = T.alloc_ub((1, N), dtype)
            T.copy(A[cid, 0], a_ub)

    return main
