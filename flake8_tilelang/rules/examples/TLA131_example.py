import tilelang
import tilelang.language as T

PLANNED = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True,
}


@tilelang.jit(out_idx=[1], pass_configs=PLANNED)
def butterfly(N, dtype="float16"):
    @T.prim_func
    def main(X: T.Tensor((N,), dtype), Y: T.Tensor((N,), dtype)):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            data_ub = T.alloc_ub((N,), dtype)
            T.copy(X[0], data_ub)
            for i in T.serial(N // 2):
                a_val = data_ub[2 * i]
                b_val = data_ub[2 * i + 1]
                data_ub[2 * i] = a_val + b_val  # expect: TLA131
                data_ub[2 * i + 1] = a_val - b_val  # expect: TLA131
            T.copy(data_ub, Y[0])

    return main
