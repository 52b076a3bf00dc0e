# TLA052's fix removes a key no Ascend pass reads (unsafe: a config shared with
# kernels in other files may need it): the whole line, or the entry and its comma.
import tilelang
import tilelang.language as T

DEV = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
    "tl.disable_tma_lower": True,  # copied from a CUDA kernel
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True,
}
INLINE = {"tl.disable_tma_lower": True, tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True}


@tilelang.jit(pass_configs=DEV)
def vec_exp(M, N, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype)):
        with T.Kernel(M, is_npu=True) as (cid, vid):
            a_ub = T.alloc_ub((1, N), dtype)
            T.copy(A[cid * 2 + vid, 0], a_ub)

    return main


@tilelang.jit(pass_configs=INLINE)
def vec_exp2(M, N, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype)):
        with T.Kernel(M, is_npu=True) as (cid, vid):
            a_ub = T.alloc_ub((1, N), dtype)
            T.copy(A[cid * 2 + vid, 0], a_ub)

    return main
