import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1], target="npuir")
def vec_exp(M, N, block_M, dtype="float32"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(M // block_M, is_npu=True) as (cid, _):
            a_ub = T.alloc_ub((block_M, N), dtype)
            with T.Scope("V"):  # expect: TLA034
                T.copy(A[cid * block_M, 0], a_ub)
                T.npuir_exp(a_ub, a_ub)
                T.copy(a_ub, B[cid * block_M, 0])

    return main
