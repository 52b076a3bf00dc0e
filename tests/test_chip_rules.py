"""The on-chip groundwork (values at compile sites, the buffer table, the chip
table, footprints) and what TLA101-TLA131 say, beyond the fixtures' (line, code)."""
import ast
import json
import textwrap

import pytest

from flake8_tilelang.engine import check_tree
from flake8_tilelang.model.buffers import facts
from helpers import model

HEAD = '''\
import sys

import tilelang
import tilelang.language as T

LINEAR = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: False,
}
DEV = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True,
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: True,
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_SYNC: True,
}
'''

UB_KERNEL = HEAD + '''

@tilelang.jit(out_idx=[1], pass_configs=LINEAR)
def scale(M, N, block_M, block_N=1024, dtype="float32"):
    rows = block_M // 2

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(M // block_M, is_npu=True) as (cid, vid):
            half = rows
            a_ub = T.alloc_ub((half, block_N), dtype)
            b_ub = T.alloc_ub((half, block_N), dtype)
            T.copy(A[cid * block_M, 0], a_ub)
            T.tile.exp(b_ub, a_ub)
            T.copy(b_ub, B[cid * block_M, 0])

    return main
'''


def lint(source, codes=("TLA1",), chip=None):
    source = textwrap.dedent(source)
    return check_tree(ast.parse(source), source.splitlines(True), "kernel.py",
                      wanted=lambda c: any(c.startswith(p) for p in codes), chip=chip)


def only(source, code, **kw):
    return [d for d in lint(source, **kw) if d.code == code]


# -- values at compile sites -------------------------------------------------------

def test_sites_come_from_call_sites_with_values_folded_through_the_factory_and_kernel():
    m = model(UB_KERNEL + '\nif __name__ == "__main__":\n    scale(1024, 4096, 64)\n    scale(1024, 4096, 32)\n')
    kf = facts(m, m.kernels[0])
    labels = [s.site.label for s in kf.sites]
    assert labels == ["scale(1024, 4096, 64) (line 35)", "scale(1024, 4096, 32) (line 36)"]
    assert [s.buffers["a_ub"].shape for s in kf.sites] == [(32, 1024), (16, 1024)]
    assert all(not s.site.defaults and s.site.planning() is False for s in kf.sites)


def test_defaults_are_the_fallback_and_the_message_says_so():
    source = UB_KERNEL.replace("def scale(M, N, block_M, block_N=1024", "def scale(M, N, block_M=64, block_N=1024")
    [d] = only(source, "TLA101")
    assert "with scale's defaults (no call site gives its arguments)" in d.message
    assert "UB needs 262,144 B of 196,608 B (A2/A3)" in d.message


def test_a_call_site_with_run_time_arguments_and_no_defaults_stays_silent():
    m = model(UB_KERNEL + '\nscale(1024, 4096, int(sys.argv[1]))\n')
    [site] = facts(m, m.kernels[0]).sites
    assert site.buffers["a_ub"].shape is None and site.footprint("UB").bytes == 0
    assert only(UB_KERNEL + '\nscale(1024, 4096, int(sys.argv[1]))\n', "TLA101") == []


def test_call_site_values_from_a_test_function_name_the_parameters():
    source = UB_KERNEL + '\n\ndef test_big():\n    m, n = 1024, 4096\n    scale(m, n, 128)\n'
    [d] = only(source, "TLA101")
    assert "at scale(M=1024, N=4096, block_M=128) (line 37)" in d.message
    assert "a_ub float32 64x1024 = 262,144 B" in d.message and d.line == 26


# -- buffer table -----------------------------------------------------------------

DEV_GEMM = HEAD + '''

@tilelang.jit(out_idx=[2], pass_configs=DEV)
def mm(M, N, K, bm=64, bn=64, bk=64, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype), C: T.Tensor((M, N), "float32")):
        with T.Kernel(M // bm, is_npu=True, threads=2) as cid:
            a_s = T.alloc_shared((bm, bk), dtype)
            b_s = T.alloc_shared((bk, bn), dtype)
            a_f = T.alloc_fragment((bm, bk), dtype)
            c_f = T.alloc_fragment((bm, bn), "float32")
            v_s = T.alloc_shared((bm, bn), "float32")
            staged = T.alloc_shared((bm, bn), "float32")
            T.copy(A[cid * bm, 0], a_s)
            T.copy(B[0, 0], b_s)
            T.copy(a_s, a_f)
            T.gemm_v0(a_f, b_s, c_f, init=True)
            T.copy(c_f, v_s)
            T.tile.exp(v_s, v_s)
            T.copy(v_s, staged)
            T.copy(staged, C[cid * bm, 0])

    return main
'''


def test_developer_allocations_are_placed_as_ascend_infer_buffer_scope_does():
    m = model(DEV_GEMM)
    kf = facts(m, m.kernels[0])
    assert kf.memory == {"a_s": None, "b_s": "L1", "a_f": "L0A", "c_f": "L0C", "v_s": "UB", "staged": None}
    [site] = kf.sites
    assert site.site.defaults and site.threads == 2
    assert site.buffers["v_s"].shape == (32, 64)  # threads=2 halves dim 0 of UB buffers
    assert site.buffers["c_f"].shape == (64, 64) and site.buffers["c_f"].bytes == 16384
    assert site.buffers["b_s"].first is not None and site.buffers["b_s"].first < site.buffers["b_s"].last


def test_footprint_linear_with_annotations_and_peak_with_planning():
    source = UB_KERNEL.replace("T.copy(A[cid * block_M, 0], a_ub)",
                               "T.annotate_address({a_ub: 0, b_ub: 0})\n            T.copy(A[cid * block_M, 0], a_ub)")
    m = model(source + "\nscale(1024, 4096, 64)\n")
    fp = facts(m, m.kernels[0]).sites[0].footprint("UB")
    assert (fp.bytes, fp.method) == (131072, "linear")  # aliased: one tile, not two
    assert only(source + "\nscale(1024, 4096, 64)\n", "TLA101") == []
    planned = UB_KERNEL.replace("pass_configs=LINEAR", "pass_configs=DEV")
    m = model(planned + "\nscale(1024, 4096, 64)\n")
    fp = facts(m, m.kernels[0]).sites[0].footprint("UB")
    assert (fp.bytes, fp.method) == (262144, "peak")  # a_ub and b_ub both live at T.tile.exp


# -- the chip ------------------------------------------------------------------------

def test_target_chip_a5_has_a_larger_ub_and_the_message_names_the_chip():
    source = UB_KERNEL + "\nscale(1024, 1024, 50)\n"  # 2 x 25 x 1024 x 4 = 204,800 B
    [d] = only(source, "TLA101")
    assert "UB needs 204,800 B of 196,608 B (A2/A3)" in d.message
    assert only(source, "TLA101", chip="A5") == []
    [d] = only(source, "TLA101", chip="A2")
    assert "(A2)" in d.message


def test_target_chip_setting_is_validated_and_normalised(tmp_path):
    from flake8_tilelang.settings import ConfigError, read_config

    cfg = tmp_path / "pyproject.toml"
    cfg.write_text('[tool.flake8-tilelang]\ntarget-chip = "a5"\n')
    assert read_config(str(cfg), ["TLA101"])["target-chip"] == "A5"
    cfg.write_text('[tool.flake8-tilelang]\ntarget-chip = "910C"\n')
    with pytest.raises(ConfigError, match="unknown chip '910C'; choose one of A2, A3, A5"):
        read_config(str(cfg), ["TLA101"])


def test_chip_table_gives_every_number_a_source():
    from flake8_tilelang.model.chip import CHIPS, MEMORIES

    for chip in CHIPS.values():
        for memory in MEMORIES:
            assert chip.capacity[memory].value > 0 and chip.capacity[memory].source
        assert chip.event_ids.value == (0, 7) and chip.event_ids.source
    assert CHIPS["A2/A3"].bytes("UB") == 196608 and CHIPS["A5"].bytes("UB") == 262144


# -- the other rules' decisions -----------------------------------------------------

GEMM = HEAD + '''

@tilelang.jit(out_idx=[2], pass_configs=LINEAR)
def mm(M, N, K, dtype="float16", accum_dtype="float32", b_dtype=None, tb=False):
    b_dtype = b_dtype or dtype

    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), b_dtype), C: T.Tensor((M, N), accum_dtype)):
        with T.Kernel(M // 64, is_npu=True) as (cid, vid):
            a_l1 = T.alloc_L1((64, K), dtype)
            b_l1 = T.alloc_L1((K, 64), b_dtype)
            c_l0 = T.alloc_L0C((64, 64), accum_dtype)
            with T.Scope("C"):
                T.copy(A[cid * 64, 0], a_l1)
                T.copy(B[0, 0], b_l1)
                T.gemm_v0(a_l1, b_l1, c_l0, transpose_B=tb, init=True)
                T.copy(c_l0, C[cid * 64, 0])

    return main
'''


@pytest.mark.parametrize("call, words", [
    ('mm(256, 256, 64, accum_dtype="float16")', "the accumulator `c_l0` is float16"),
    ('mm(256, 256, 64, dtype="bfloat16", b_dtype="float16")', "A `a_l1` is bfloat16 but B `b_l1` is float16"),
    ('mm(256, 256, 64, dtype="float32")', "float32 with transpose_B=False"),
    ('mm(256, 256, 64, dtype="int8")', "int8 A/B need an int32 accumulator"),
    ('mm(256, 256, 64, dtype="float32", tb=True)', None),
    ('mm(256, 256, 64, dtype="int8", accum_dtype="int32")', None),
    ('mm(256, 256, 64, dtype=sys.argv[1])', None),
])
def test_cube_dtype_forms(call, words):
    found = only(GEMM + "\n" + call + "\n", "TLA130")
    if words is None:
        assert found == []
    else:
        [d] = found
        assert words in d.message and "(line 36)" in d.message


def test_rules_that_do_not_run_build_no_facts(monkeypatch):
    import flake8_tilelang.model.buffers as buffers

    def boom(*a, **k):
        raise AssertionError("facts built")

    monkeypatch.setattr(buffers, "KernelFacts", boom)
    assert "TLA101" not in [d.code for d in lint(UB_KERNEL + "\nscale(1024, 4096, 128)\n", codes=("TLA0",))]
    with pytest.raises(AssertionError, match="facts built"):
        lint(UB_KERNEL + "\nscale(1024, 4096, 128)\n", codes=("TLA101",))


def test_kernels_json_carries_the_footprint_per_site(tmp_path, monkeypatch, capsys):
    from flake8_tilelang.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.py").write_text(UB_KERNEL + "\nscale(1024, 4096, 128)\nscale(1024, 4096, 16)\n")
    assert main(["kernels", "--isolated", "--output-format", "json", "."]) == 0
    [entry] = json.loads(capsys.readouterr().out)["kernels"]
    fp = entry["footprint"]
    assert fp["chip"] == "A2/A3"
    assert [s["memories"]["UB"]["bytes"] for s in fp["sites"]] == [524288, 65536]
    assert fp["sites"][0]["memories"]["UB"] == {"bytes": 524288, "capacity": 196608, "method": "linear",
                                                "buffers": 2, "complete": True}
    assert main(["kernels", "--isolated", "--target-chip", "A5", "."]) == 0
    out = capsys.readouterr().out
    assert "UB 512K/256K!" in out and "against the A5 capacity" in out


def test_a_copy_in_a_branch_is_judged_only_at_the_sites_that_compile_it():
    source = HEAD + '''

@tilelang.jit(out_idx=[1], pass_configs=LINEAR)
def k(M, N, narrow=False, dtype="float32"):
    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), Y: T.Tensor((M, N), dtype)):
        with T.Kernel(M // 64, is_npu=True) as (cid, vid):
            x_ub = T.alloc_ub((64, 4), dtype)
            y_ub = T.alloc_ub((64, 8), dtype)
            if narrow:
                T.copy(X[cid * 64, 0], x_ub)
            T.copy(X[cid * 64, 0], y_ub)
            T.copy(y_ub, Y[cid * 64, 0])

    return main
'''
    assert only(source + "\nk(1024, 1024)\n", "TLA110") == []
    [d] = only(source + "\nk(1024, 1024, narrow=True)\n", "TLA110")
    assert "`x_ub` (float32 64x4)" in d.message and "narrow=True" in d.message


@pytest.mark.parametrize("options, built, reported", [
    (["--select=TLA001"], False, False),
    (["--select=E,TLA00"], False, False),
    (["--extend-ignore=TLA1"], False, False),
    (["--select=E,F"], False, False),
    (["--select=TLA101"], True, True),
    ([], True, True),
])
def test_flake8_builds_no_footprint_for_a_selection_without_on_chip_rules(tmp_path, monkeypatch, capsys, options,
                                                                          built, reported):
    """The plugin runs only the rules flake8 would report: `--select=TLA001` never
    builds a buffer table (the plugin's share of a flake8 run stays in budget)."""
    from flake8.main.application import Application

    import flake8_tilelang.model.buffers as buffers

    made = []
    real = buffers.KernelFacts

    def counting(*args):
        made.append(args[1])
        return real(*args)

    monkeypatch.setattr(buffers, "KernelFacts", counting)
    path = tmp_path / "k.py"
    path.write_text(UB_KERNEL + "\nscale(1024, 4096, 128)\n")
    Application().run(["--isolated", "-j1"] + options + [str(path)])
    assert bool(made) is built
    assert ("TLA101" in capsys.readouterr().out) is reported


def test_pipelined_stages_version_only_gm_copies_read_by_a_later_statement():
    import os

    root = os.path.join(os.path.dirname(__file__), "..", "fixtures", "rules", "TLA101")
    with open(os.path.join(root, "firing_pipelined_stages.py")) as f:
        m = model(f.read())
    [site] = facts(m, m.kernels[1]).sites
    assert (site.buffers["x_ub"].versions, site.buffers["y_ub"].versions) == (2, 1)
    assert site.buffers["x_ub"].describe() == "x_ub float32 24x1024 x2 stages = 196,608 B"
    with open(os.path.join(root, "silent_pipelined_near_misses.py")) as f:
        m = model(f.read())
    carry, mixed = m.kernels[1], m.kernels[2]
    [site] = facts(m, carry).sites
    # x_ub is read before its copy (next iteration), last_ub is also used after the loop
    assert {n: b.versions for n, b in site.buffers.items()} == {"x_ub": 1, "y_ub": 1, "last_ub": 1}
    [site] = facts(m, mixed).sites  # Cube + Vector body: CrossCorePipeline, not modelled
    assert all(b.versions == 1 for b in site.buffers.values())
    sites = facts(m, m.kernels[0]).sites
    assert [max(b.versions for b in s.buffers.values()) for s in sites] == [1, 2, 1]


def test_half_arithmetic_in_a_macro_of_another_module_is_reported_on_the_kernels_call(tmp_path, monkeypatch,
                                                                                      capsys):
    from flake8_tilelang.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "helpers.py").write_text(textwrap.dedent('''\
        import tilelang.language as T


        @T.macro
        def butterfly(data, n):
            for i in T.serial(n // 2):
                lo = data[2 * i]
                hi = data[2 * i + 1]
                data[2 * i] = lo + hi
        '''))
    kernel = textwrap.dedent('''\
        import tilelang
        import tilelang.language as T
        from helpers import butterfly


        @tilelang.jit(out_idx=[1])
        def hadamard(N, dtype="float16"):
            @T.prim_func
            def main(X: T.Tensor((N,), dtype), Y: T.Tensor((N,), dtype)):
                with T.Kernel(1, is_npu=True) as (cid, vid):
                    data_ub = T.alloc_ub((N,), dtype)
                    T.copy(X[0], data_ub)
                    butterfly(data_ub, N)
                    T.copy(data_ub, Y[0])

            return main


        hadamard(1024)
        hadamard(1024, dtype="float32")
        ''')
    (tmp_path / "kern.py").write_text(kernel)
    main(["check", "--isolated", "--no-cache", "--select", "TLA131", "--output-format", "json", "kern.py"])
    [d] = json.loads(capsys.readouterr().out)
    assert d["location"]["row"] == 13
    assert "through macro `butterfly` (the arithmetic is at helpers.py:9) at hadamard(1024) (line 19)" in d["message"]
    (tmp_path / "kern.py").write_text(kernel.replace('hadamard(1024)\n', '', 1))
    main(["check", "--isolated", "--no-cache", "--select", "TLA131", "--output-format", "json", "kern.py"])
    assert json.loads(capsys.readouterr().out) == []  # float32 only


def test_a_gpu_style_launch_gets_no_on_chip_finding():
    """`T.Kernel(n, threads=128)` without `is_npu=True` is a GPU launch frame
    (the upstream tests forks carry): no on-chip memory, Cube or event id to
    judge. The same kernel launched on the NPU is judged."""
    npu = UB_KERNEL + 'kernel = scale(1024, 8192, 64, block_N=8192)\n'
    assert [d.code for d in only(npu, "TLA101")] == ["TLA101"]
    gpu = npu.replace("T.Kernel(M // block_M, is_npu=True) as (cid, vid)", "T.Kernel(M // block_M, threads=128) as bx")
    assert gpu != npu and only(gpu, "TLA101") == []
    explicit = npu.replace("is_npu=True", "is_npu=False")
    assert only(explicit, "TLA101") == []


def test_a_buffer_a_macro_allocates_leaves_the_footprint_partial(tmp_path, monkeypatch, capsys):
    """A UB buffer allocated inside a `T.macro` is not in the buffer table:
    the footprint is a partial sum and says so (`~`, complete False) rather
    than showing the kernel's own buffers as the whole (it read 0.0K, as if
    exact)."""
    from flake8_tilelang.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.py").write_text(textwrap.dedent('''\
        import tilelang
        import tilelang.language as T


        @T.macro
        def scratch_exp(src):
            tmp = T.alloc_ub((64, 1024), "float32")
            T.tile.exp(tmp, src)


        def k(M, N):
            @T.prim_func
            def main(X: T.Tensor((M, N), "float32")):
                with T.Kernel(M // 64, is_npu=True) as (cid, vid):
                    x_ub = T.alloc_ub((64, N), "float32")
                    T.copy(X[cid * 64, 0], x_ub)
                    scratch_exp(x_ub)
                    T.copy(x_ub, X[cid * 64, 0])

            return main


        kernel = tilelang.compile(k(1024, 256), pass_configs={})
        '''))
    assert main(["kernels", "--isolated", "--output-format", "json", "."]) == 0
    [entry] = json.loads(capsys.readouterr().out)["kernels"]
    ub = entry["footprint"]["sites"][0]["memories"]["UB"]
    assert ub["bytes"] == 65536 and ub["complete"] is False
