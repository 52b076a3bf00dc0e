# The same fix in a file indented with tabs and written with CRLF line ends: the
# bytes outside the edits stay as they are.
import tilelang
import tilelang.language as T

AUTO = {tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True}


@tilelang.jit(pass_configs=AUTO)
def vec_exp(M, N, block_M, dtype="float16"):
	@T.prim_func
	def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
		with T.Kernel(M // block_M, is_npu=True) as (cid, vid):
			a_ub = T.alloc_ub((block_M, N), dtype)
			T.copy(A[cid * block_M, 0], a_ub)
			T.barrier_all()  # wait for the load
			T.set_flag("mte2", "v", 0)
			T.wait_flag("mte2", "v", 0)  # noqa: E501
			for i in T.serial(4):
				if i > 0:
					T.pipe_barrier("v")
				T.tile.exp(a_ub, a_ub)
				T.pipe_barrier(
					"v",
				)
			T.copy(a_ub, B[cid * block_M, 0])
			T.barrier_all()

	return main
