# threads=2 only where the tiles split in two: `hand_halved` sizes its tiles `block_M // VEC_NUM`
# and `one_row` has 1-row tiles, so the vid-reduction pass would halve them again (or cannot):
# both keep their Expert launch and the report names the lines. `splits` gets threads=2.
import tilelang
import tilelang.language as T

VEC_NUM = 2
EXPERT = {tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: False}


@tilelang.jit(out_idx=[-1], pass_configs=EXPERT)
def hand_halved(M, N, block_M=64, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(M // block_M, is_npu=True) as (cid, vid):
            a_ub = T.alloc_ub((block_M // VEC_NUM, N), dtype)
            with T.Scope("V"):
                T.copy(A[cid * block_M, 0], a_ub)
                T.barrier_all()
                T.copy(a_ub, B[cid * block_M, 0])

    return main


@tilelang.jit(out_idx=[-1], pass_configs=EXPERT)
def one_row(M, N, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(M, is_npu=True) as (cid, vid):
            a_ub = T.alloc_ub((1, N), dtype)
            with T.Scope("V"):
                T.copy(A[cid, 0], a_ub)
                T.barrier_all()
                T.copy(a_ub, B[cid, 0])

    return main


@tilelang.jit(out_idx=[-1], pass_configs=EXPERT)
def splits(M, N, block_M=64, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(M // block_M, is_npu=True) as (cid, vid):
            a_ub = T.alloc_ub((block_M, N), dtype)
            with T.Scope("V"):
                T.copy(A[cid * block_M, 0], a_ub)
                T.barrier_all()
                T.copy(a_ub, B[cid * block_M, 0])

    return main
