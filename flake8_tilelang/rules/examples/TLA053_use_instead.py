import tilelang
import tilelang.language as T
import tvm

PASS_CONFIGS = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True,
}


def vec_add(M, N, block_M, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel(M // block_M, is_npu=True) as (cid, vid):
            a_ub = T.alloc_ub((block_M // 2, N), dtype)
            b_ub = T.alloc_ub((block_M // 2, N), dtype)
            with T.Scope("V"):
                T.copy(A[cid * block_M + vid * block_M // 2, 0], a_ub)
                T.copy(B[cid * block_M + vid * block_M // 2, 0], b_ub)
                T.tile.add(a_ub, a_ub, b_ub)
                T.copy(a_ub, C[cid * block_M + vid * block_M // 2, 0])

    return main


def build_library(path):
    with tvm.transform.PassContext(opt_level=3, config=PASS_CONFIGS):
        artifact = tilelang.lower(vec_add(1024, 1024, 64))
    artifact.export_library(path)
