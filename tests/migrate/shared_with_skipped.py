# Skips are decided first: `with_sync_all` is skipped (T.sync_all), so CFG, which it reads,
# is never edited; `gemm_like` gets a kernel-local `{**CFG, ...}` and `with_sync_all` stays
# byte for byte as it was.
import tilelang
import tilelang.language as T

CFG = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: False,
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: False,
}


@tilelang.jit(out_idx=[-1], pass_configs=CFG)
def with_sync_all(M, N, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(M // 64, is_npu=True) as (cid, vid):
            a_ub = T.alloc_ub((32, N), dtype)
            with T.Scope("V"):
                T.copy(A[cid * 64 + vid * 32, 0], a_ub)
                T.sync_all()
                T.copy(a_ub, B[cid * 64 + vid * 32, 0])

    return main


@tilelang.jit(out_idx=[-1], pass_configs=CFG)
def gemm_like(M, N, K, dtype="float16", accum_dtype="float"):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel(M // 64, is_npu=True) as (cid, vid):
            a_l1 = T.alloc_L1((64, K), dtype)
            b_l1 = T.alloc_L1((K, N), dtype)
            c_l0c = T.alloc_L0C((64, N), accum_dtype)
            with T.Scope("C"):
                T.copy(A[cid * 64, 0], a_l1)
                T.copy(B[0, 0], b_l1)
                T.barrier_all()
                T.gemm_v0(a_l1, b_l1, c_l0c, init=True)
                T.barrier_all()
                T.copy(c_l0c, C[cid * 64, 0])

    return main
