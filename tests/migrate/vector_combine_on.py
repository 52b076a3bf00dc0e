# A pure Vector kernel whose config already turns COMBINE on: the target is AUTO_SYNC +
# MEMORY_PLANNING (the guide's §2.2), COMBINE stays, so its `T.Scope("V")` goes (TLA001), and
# AUTO_CV_SYNC is never added: there is nothing to synchronise, and TLA052 would remove it again.
import tilelang
import tilelang.language as T

CFG = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: True,
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: False,
}


@tilelang.jit(out_idx=[-1], pass_configs=CFG)
def rms_scale(M, N, block_M=32, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(M // block_M, is_npu=True) as (cid, vid):
            a_ub = T.alloc_ub((block_M, N), dtype)
            with T.Scope("V"):
                T.copy(A[cid * block_M, 0], a_ub)
                T.pipe_barrier("v")
                T.tile.mul(a_ub, a_ub, 0.5)
                T.copy(a_ub, B[cid * block_M, 0])

    return main
