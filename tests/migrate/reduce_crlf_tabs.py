# Second set, CRLF and tabs: an Expert reduction whose flag macros empty out, an `if` around a
# barrier, a trailing comment on a deleted sync, and a one-line dict that grows past 99 columns.
import tilelang
import tilelang.language as T

EXPERT = {tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: False, "tl.ascend_memory_planning": False}


@T.macro
def arm():
	T.set_flag("mte2", "v", 0)


@T.macro
def disarm():
	T.wait_flag("mte2", "v", 0)


@tilelang.jit(out_idx=[-1], pass_configs=EXPERT)
def row_sum(M, N, block_M=64, dtype="float"):
	@T.prim_func
	def main(A: T.Tensor((M, N), dtype), S: T.Tensor((M,), dtype)):
		with T.Kernel(M // block_M, is_npu=True) as (cid, vid):
			a_ub = T.alloc_ub((block_M, N), dtype)
			s_ub = T.alloc_ub((block_M,), dtype)
			with T.Scope("V"):
				arm()
				T.copy(A[cid * block_M, 0], a_ub)
				disarm()
				if N > 256:
					T.pipe_barrier("v")
				T.reduce_sum(a_ub, s_ub, dim=1)
				T.barrier_all()  # results ready
				T.copy(s_ub, S[cid * block_M])

	return main
