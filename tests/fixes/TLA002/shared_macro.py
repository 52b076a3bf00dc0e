# A sync inside a @T.macro that a kernel with AUTO_SYNC off also calls gets no fix:
# deleting it would break the manual kernel. The direct sync in the auto kernel is fixed.
import tilelang
import tilelang.language as T

AUTO = {tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True}
MANUAL = {tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: False}


@T.macro
def wait_load(event_id):
    T.set_flag("mte2", "v", event_id)
    T.wait_flag("mte2", "v", event_id)


@tilelang.jit(pass_configs=AUTO)
def auto_exp(M, N, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype)):
        with T.Kernel(M, is_npu=True) as (cid, vid):
            a_ub = T.alloc_ub((1, N), dtype)
            T.copy(A[cid, 0], a_ub)
            wait_load(0)
            T.barrier_all()
            T.tile.exp(a_ub, a_ub)

    return main


@tilelang.jit(pass_configs=MANUAL)
def manual_exp(M, N, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype)):
        with T.Kernel(M, is_npu=True) as (cid, vid):
            a_ub = T.alloc_ub((1, N), dtype)
            T.copy(A[cid, 0], a_ub)
            wait_load(0)
            T.tile.exp(a_ub, a_ub)

    return main
