"""Message text: values copied from the source stay on one line, advice is help text."""
from helpers import lint

NPU = '''
import tilelang
import tilelang.language as T

@tilelang.jit(pass_configs={%s: True})
def build():
    @T.prim_func
    def main(A: T.Tensor((64,), "float16")):
        with T.Kernel(8, is_npu=True) as (cid, vid):
            with T.Scope(%s):
                T.barrier_all()
    return main
'''


def _one_line(d):
    text = d.flake8_text()
    assert "\n" not in text and "\r" not in text, text
    assert not any(ord(ch) < 32 or ord(ch) == 127 for ch in text), text
    return text


def test_key_with_newline_is_quoted():
    found = [d for d in lint(NPU % (r'"tl.ascend_auto_sync\n::error::x"', '"V"')) if d.code == "TLA050"]
    assert len(found) == 1
    text = _one_line(found[0])
    assert found[0].message.startswith("pass config key 'tl.ascend_auto_sync\\n::error::x' is not registered")
    assert text.startswith("TLA050 pass config key 'tl.ascend_auto_sync\\n::error::x'")


def test_enum_name_from_a_string_is_quoted():
    source = NPU % ('getattr(tilelang.PassConfigKey, "TL_ASCEND_AUTO\\nSYNC")', '"V"')
    found = [d for d in lint(source) if d.code == "TLA050"]
    assert len(found) == 1
    _one_line(found[0])
    assert found[0].message.startswith("PassConfigKey member 'TL_ASCEND_AUTO\\nSYNC' does not exist")


def test_scope_name_with_escape_is_quoted():
    found = [d for d in lint(NPU % ('"tl.ascend_auto_sync"', r'"V\x1b[31m"')) if d.code == "TLA030"]
    assert len(found) == 1
    text = _one_line(found[0])
    assert found[0].message == ("`T.Scope('V\\x1b[31m')` silently selects the Cube core: only the exact "
                                'string "V" selects Vector')
    assert found[0].help == 'Use `T.Scope("V")`'
    assert text.endswith('; use `T.Scope("V")` [*unsafe] fixable: flake8-tilelang check --fix --unsafe-fixes')  # the block would move to the Vector core (#18)


def test_pipe_name_with_newline_is_quoted():
    source = NPU.replace("T.barrier_all()", r'T.pipe_barrier("mte2\nx")') % ('"tl.ascend_auto_sync"', '"V"')
    found = [d for d in lint(source) if d.code == "TLA033"]
    assert len(found) == 1
    _one_line(found[0])
    assert "uses invalid pipe 'mte2\\nx':" in found[0].message


def _every_finding():
    """Every rule's findings over the fixtures and the docs examples, all codes on."""
    import ast
    import glob
    import os

    from flake8_tilelang.engine import check_tree

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    paths = sorted(glob.glob(os.path.join(root, "fixtures", "**", "*.py"), recursive=True))
    paths += sorted(glob.glob(os.path.join(root, "flake8_tilelang", "rules", "examples", "*.py")))
    for path in paths:
        with open(path, encoding="utf-8") as f:
            source = f.read()
        for d in check_tree(ast.parse(source), source.splitlines(True), path, wanted=lambda code: True):
            yield path, d


def test_every_finding_is_a_short_finding_plus_help():
    import statistics

    seen, lengths = set(), []
    for path, d in _every_finding():
        where = "%s:%d %s" % (path, d.line, d.code)
        seen.add(d.code)
        lengths.append(len(d.message))
        # the message states the finding; what to do is the help text, an imperative
        # sentence: capitalised, no trailing period
        assert d.help, where
        assert d.help[0].isupper() and not d.help.endswith("."), (where, d.help)
        assert not d.message.endswith("."), (where, d.message)
        assert d.help.lower() not in d.message.lower(), (where, d.message)
        assert (d.end_line, d.end_col) > (d.line, d.col), where
        _one_line(d)
    assert len(seen) >= 30
    assert statistics.median(lengths) <= 140, statistics.median(lengths)


def test_launch_finding_stays_on_the_with_line_and_ends_at_the_call():
    source = NPU.replace("        with T.Kernel(8, is_npu=True) as (cid, vid):\n",
                         "        with (\n            T.Kernel(8, 2, threads=128, is_npu=True) as cid,\n        ):\n")
    source = source % ('"tl.ascend_auto_sync"', '"V"')
    found = [d for d in lint(source) if d.code == "TLA021"]
    assert len(found) == 1
    d = found[0]
    # the statement's first line (where `# noqa` goes), the call's column, the call's end
    assert (d.line, d.col, d.end_line, d.end_col) == (9, 12, 10, 52)
    assert d.message == ("invalid NPU launch, 2 grid arguments (an NPU launch takes exactly one) and "
                         "threads=128 (must be 1 or 2 on the NPU): building the kernel fails with an assertion")


def test_site_of_an_inline_jitted_factory_is_named_by_its_arguments():
    source = '''
import tilelang
import tilelang.language as T

def gemm(M, N, K, bm=128, bn=128, dtype="float16", acc="float"):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype), C: T.Tensor((M, N), acc)):
        with T.Kernel((M // bm) * (N // bn), is_npu=True) as (cid, vid):
            c_l0 = T.alloc_L0C((bm, bn), acc)
            T.clear(c_l0)
    return main

jit = tilelang.jit(out_idx=[-1], pass_configs={"tl.ascend_memory_planning": True})
k = jit(gemm)(1024, 1024, 1024, bm=256, bn=256)
'''
    found = [d for d in lint(source) if d.code == "TLA101"]
    assert len(found) == 1
    assert "at jit(gemm)(1024, 1024, 1024, bm=256, bn=256) (line 14)" in found[0].message, found[0].message


def test_site_of_a_method_is_named_by_its_class_and_the_arguments_after_self():
    source = '''
import tilelang
import tilelang.language as T

class Gemm:
    acc = "float"
    bn = 128

    def build(self, M, N, bm, bn):
        acc = self.acc

        @T.prim_func
        def main(C: T.Tensor((M, N), acc)):
            with T.Kernel((M // bm) * (N // bn), is_npu=True) as (cid, vid):
                c_l0 = T.alloc_L0C((bm, bn), acc)
                T.clear(c_l0)
        return main

class Wide(Gemm):
    bn = 256

size, block = 1024, 256
for cls in (Gemm, Wide):
    tilelang.compile(cls().build(size, size, block, cls.bn), pass_configs={"tl.ascend_memory_planning": True})
'''
    found = [d for d in lint(source) if d.code == "TLA101"]
    assert len(found) == 1
    assert "at Wide.build(M=1024, N=1024, bm=256, bn=256) (line 24)" in found[0].message, found[0].message
