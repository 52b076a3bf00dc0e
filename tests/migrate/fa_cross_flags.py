# Expert CV fusion (matmul then exp) with a GM workspace, vid offsets and cross-core flags;
# the config is shared with another, already-Developer kernel.
import tilelang as tl
import tilelang.language as T

SHARED = {
    tl.PassConfigKey.TL_ASCEND_AUTO_SYNC: False,
    tl.PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: False,
}


@tl.jit(out_idx=[2], workspace_idx=[3], pass_configs=SHARED)
def matmul_exp(M, N, K, block_M, block_N, dtype="float16", accum_dtype="float"):
    n_num = N // block_N

    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), dtype),
        workspace: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(M // block_M * n_num, is_npu=True) as (cid, vid):
            bx = cid // n_num
            by = cid % n_num
            A_L1 = T.alloc_L1((block_M, K), dtype)
            B_L1 = T.alloc_L1((K, block_N), dtype)
            C_L0 = T.alloc_L0C((block_M, block_N), accum_dtype)
            c_ub = T.alloc_ub((block_M // 2, block_N), dtype)
            T.annotate_address({A_L1: 0, B_L1: 65536})

            with T.Scope("C"):
                T.copy(A[bx * block_M, 0], A_L1)
                T.copy(B[0, by * block_N], B_L1)
                T.barrier_all()
                T.gemm_v0(A_L1, B_L1, C_L0, init=True)
                T.barrier_all()
                T.copy(C_L0, workspace[bx * block_M, by * block_N])
                T.set_cross_flag("FIX", 0)

            with T.Scope("V"):
                T.wait_cross_flag(0)
                T.copy(workspace[bx * block_M + vid * block_M // 2, by * block_N], c_ub)
                T.barrier_all()
                T.tile.exp(c_ub, c_ub)
                T.barrier_all()
                T.copy(c_ub, C[bx * block_M + vid * block_M // 2, by * block_N])

    return main


@tl.jit(out_idx=[-1], pass_configs=SHARED)
def copy_only(M, N, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(M // 64, is_npu=True) as (cid, vid):
            a_ub = T.alloc_ub((32, N), dtype)
            with T.Scope("V"):
                T.copy(A[cid * 64 + vid * 32, 0], a_ub)
                T.copy(a_ub, B[cid * 64 + vid * 32, 0])

    return main
