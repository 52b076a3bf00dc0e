# Second set (written as a kernel engineer ports a paged attention): the vector id is `by`, read
# only as a macro argument, and the score tile goes Cube -> GM `ws_buf` -> Vector behind cross
# flags. `ws_buf` is not named *workspace*, so the flags and scopes stay (Mixed) and the report
# names the handoff lines; the launch stays Expert (its vector id is read).
import tilelang
import tilelang.language as T

MANUAL = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: False,
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: False,
}


@T.macro
def softmax_half(src, dst, row0, half):
    T.copy(src[row0 + half * 32, 0], dst)
    T.tile.exp(dst, dst)


@tilelang.jit(out_idx=[3], pass_configs=MANUAL)
def paged_scores(B, S, D, dtype="float16", accum_dtype="float"):
    @T.prim_func
    def main(Q: T.Tensor((B * 64, D), dtype), K: T.Tensor((S, D), dtype),
             ws_buf: T.Tensor((B * 64, S), accum_dtype), P: T.Tensor((B * 64, S), accum_dtype)):
        with T.Kernel(B, is_npu=True) as (bx, by):
            q_l1 = T.alloc_L1((64, D), dtype)
            k_l1 = T.alloc_L1((S, D), dtype)
            s_l0c = T.alloc_L0C((64, S), accum_dtype)
            p_ub = T.alloc_ub((32, S), accum_dtype)
            with T.Scope("C"):
                T.copy(Q[bx * 64, 0], q_l1)
                T.copy(K[0, 0], k_l1)
                T.barrier_all()
                T.gemm_v0(q_l1, k_l1, s_l0c, transpose_B=True, init=True)
                T.barrier_all()
                T.copy(s_l0c, ws_buf[bx * 64, 0])
                T.set_cross_flag("FIX", 2)
            with T.Scope("V"):
                T.wait_cross_flag(2)
                softmax_half(ws_buf, p_ub, bx * 64, by)
                T.barrier_all()
                T.copy(p_ub, P[bx * 64 + by * 32, 0])

    return main
