# TLA096's fix (RUF100's) takes the unused TLA codes out of a noqa; other tools'
# codes stay, a comment left empty goes, a reason after it stays a comment. A `# noqa`
# inside a string or a docstring is text, never judged nor edited.
import tilelang
import tilelang.language as T

AUTO = {tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True}


@tilelang.jit(pass_configs=AUTO)
def vec_exp(M, N, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype)):
        with T.Kernel(M, is_npu=True) as (cid, vid):
            a_ub = T.alloc_ub((1, N), dtype)  # noqa: TLA001, E501
            T.copy(A[cid, 0], a_ub)  # noqa: TLA001
            T.barrier_all()  # noqa: TLA002, TLA001
            T.tile.exp(a_ub, a_ub)  # noqa: TLA003 - reviewed in #12
            # noqa: TLA001
            doc = """
            # noqa: TLA001
            """
            T.copy(a_ub, A[cid, 0], "# noqa: TLA005")

    return main
