# The Cube->Vector handoff goes through `C`, a GM buffer not named *workspace*: CombineCV only
# synchronises workspace buffers, so removing the cross-core flags would race. The kernel becomes
# Mixed (AUTO_SYNC + MEMORY_PLANNING, scopes and cross flags kept, intra-core syncs gone) and the
# report names the §3.1.1 on-chip copy with its lines.
import tilelang
import tilelang.language as T

EXPERT = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: False,
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: False,
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: False,
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_SYNC: False,
}


@tilelang.jit(out_idx=[-1], pass_configs=EXPERT)
def matmul_add(M, N, K, dtype="float16", accum_dtype="float"):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype), C: T.Tensor((M, N), accum_dtype),
             D: T.Tensor((M, N), accum_dtype), E: T.Tensor((M, N), accum_dtype)):
        with T.Kernel(M // 64, is_npu=True) as (cid, vid):
            a_l1 = T.alloc_L1((64, K), dtype)
            b_l1 = T.alloc_L1((K, N), dtype)
            c_l0c = T.alloc_L0C((64, N), accum_dtype)
            c_ub = T.alloc_ub((32, N), accum_dtype)
            d_ub = T.alloc_ub((32, N), accum_dtype)
            with T.Scope("C"):
                T.copy(A[cid * 64, 0], a_l1)
                T.copy(B[0, 0], b_l1)
                T.barrier_all()
                T.gemm_v0(a_l1, b_l1, c_l0c, init=True)
                T.barrier_all()
                T.copy(c_l0c, C[cid * 64, 0])
                T.set_cross_flag("FIX", 0)
            with T.Scope("V"):
                T.wait_cross_flag(0)
                T.copy(C[cid * 64 + vid * 32, 0], c_ub)
                T.copy(D[cid * 64 + vid * 32, 0], d_ub)
                T.barrier_all()
                T.tile.add(c_ub, c_ub, d_ub)
                T.barrier_all()
                T.copy(c_ub, E[cid * 64 + vid * 32, 0])

    return main
