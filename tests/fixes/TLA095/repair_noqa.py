# TLA095's fix spells the comment so that flake8 reads what it says (safe); an
# unknown code is left as it is. The repaired noqa silences the sync it names. Only
# comment tokens are judged and edited: the same text in a string or a docstring is text.
import tilelang
import tilelang.language as T

AUTO = {tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True}


USAGE = "write `# noqa : TLA002` after the line"


@tilelang.jit(pass_configs=AUTO)
def vec_exp(M, N, dtype="float16"):
    """Syncs: `#noqa:tla002` is how not to silence one.
    # noqa : TLA002
    """
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype)):
        with T.Kernel(M, is_npu=True) as (cid, vid):
            a_ub = T.alloc_ub((1, N), dtype)
            T.copy(A[cid, 0], a_ub)
            T.barrier_all()  # noqa : TLA002
            T.barrier_all()  # noqa TLA002 kept by design
            T.barrier_all()  #noqa:tla002
            T.barrier_all()  # NOQA: tla002, E501
            T.barrier_all()  # noqa: TLA999
            T.barrier_all(); note = "#noqa:tla002"

    return main
