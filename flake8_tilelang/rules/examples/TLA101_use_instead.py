import tilelang
import tilelang.language as T

LINEAR = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: False,
}


@tilelang.jit(out_idx=[2], pass_configs=LINEAR)
def add_cast(M, N, block_M, block_N, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype), C: T.Tensor((M, N), "float32")):
        with T.Kernel(M // block_M, is_npu=True) as (cid, vid):
            a_ub = T.alloc_ub((block_M, block_N), dtype)
            b_ub = T.alloc_ub((block_M, block_N), dtype)
            c_ub = T.alloc_ub((block_M, block_N), "float32")
            for j in T.serial(N // block_N):
                T.copy(A[cid * block_M, j * block_N], a_ub)
                T.copy(B[cid * block_M, j * block_N], b_ub)
                T.tile.add(a_ub, a_ub, b_ub)
                T.tile.cast(c_ub, a_ub, "CAST_NONE", block_M * block_N)
                T.copy(c_ub, C[cid * block_M, j * block_N])

    return main


kernel = add_cast(4096, 4096, 64, 256)  # 32 + 32 + 64 KiB of UB
