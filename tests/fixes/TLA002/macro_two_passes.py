# A macro with two syncs, called twice, inside nested scopes: the fix takes two passes, and each
# finding is counted once (the count agrees with what `check` found).
import tilelang
import tilelang.language as T

CFG = {tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True, tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: True}


@T.macro
def sync_copy(src, dst):
    T.copy(src, dst)
    T.barrier_all()
    T.barrier_all()


@tilelang.jit(out_idx=[-1], pass_configs=CFG)
def two_calls(M, N, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(M // 64, threads=2, is_npu=True) as cid:
            a_ub = T.alloc_shared((64, N), dtype)
            with T.Scope("V"):
                with T.Scope("V"):
                    sync_copy(A[cid * 64, 0], a_ub)
                    sync_copy(a_ub, B[cid * 64, 0])
                    T.barrier_all()

    return main
