# The same unwrap with tabs and CRLF line ends; the string's lines stay untouched.
import tilelang
import tilelang.language as T

COMBINED = {
	tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
	tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: True,
}


@tilelang.jit(pass_configs=COMBINED)
def vec_exp(M, N, block_M, dtype="float16"):
	@T.prim_func
	def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
		with T.Kernel(M // block_M, is_npu=True) as (cid, vid):
			a_ub = T.alloc_ub((block_M, N), dtype)
			with T.Scope("V"):  # the vector part
				# load
				T.copy(A[cid * block_M, 0], a_ub)
				note = """
    kept exactly as written
        even this line
"""
				for i in T.serial(4):
					if i > 0:
						T.tile.exp(a_ub,
								a_ub)
				with T.Scope("V"):
					T.copy(a_ub, B[cid * block_M, 0])
			T.tile.exp(a_ub, a_ub)

	return main
