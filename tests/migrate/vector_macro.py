# Expert vector kernel whose syncs live in a macro; the jit has no pass_configs at all.
import tilelang
import tilelang.language as T


@T.macro
def load(src, dst):
    T.copy(src, dst)
    T.set_flag("mte2", "v", 0)
    T.wait_flag("mte2", "v", 0)


@T.macro
def only_sync():
    T.pipe_barrier("ALL")


@tilelang.jit(out_idx=[-1])
def relu(M, N, block_M, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(M // block_M, is_npu=True) as (cid, vid):
            a_ub = T.alloc_ub((block_M, N), dtype)
            with T.Scope("V"):
                load(A[cid * block_M, 0], a_ub)
                T.tile.relu(a_ub, a_ub)
                only_sync()
                if M > 1024:
                    T.barrier_all()
                doc = """
    keep this text
        exactly as it is
"""
                T.copy(a_ub, B[cid * block_M, 0])

    return main
