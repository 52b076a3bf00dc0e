# A flag is deleted only together with every other flag of its kernel: here the
# wait sits in a macro a manual kernel shares, so deleting the kernel's own
# `T.set_flag` would leave a wait that hangs. Neither gets a fix; the barrier does.
import tilelang
import tilelang.language as T

AUTO = {tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True}
MANUAL = {tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: False}


@T.macro
def wait_load(event_id):
    T.wait_flag("mte2", "v", event_id)


@tilelang.jit(pass_configs=AUTO)
def auto_exp(M, N, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype)):
        with T.Kernel(M, is_npu=True) as (cid, vid):
            a_ub = T.alloc_ub((1, N), dtype)
            T.copy(A[cid, 0], a_ub)
            T.set_flag("mte2", "v", 0)
            wait_load(0)
            T.tile.exp(a_ub, a_ub)
            T.barrier_all()

    return main


@tilelang.jit(pass_configs=MANUAL)
def manual_exp(M, N, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype)):
        with T.Kernel(M, is_npu=True) as (cid, vid):
            a_ub = T.alloc_ub((1, N), dtype)
            T.copy(A[cid, 0], a_ub)
            T.set_flag("mte2", "v", 0)
            wait_load(0)
            T.tile.exp(a_ub, a_ub)

    return main
