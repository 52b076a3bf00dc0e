"""The NPUIR target (issue #19, form 2): the dialect of each compile site, the
`target` setting, and the Ascend C rules staying out of npuir kernels."""
import ast
import json
import os
import textwrap

import pytest

from flake8_tilelang.engine import check_tree
from helpers import model

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

HEAD = '''
import os
import tilelang
import tilelang.language as T


def vec(M, N, block_M, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(M // block_M, is_npu=True) as (cid, vid):
            a = T.alloc_ub((block_M // 2, N), dtype)
            with T.Scope("SCOPE"):
                T.copy(A[cid * block_M + vid * block_M // 2, 0], a)
                T.copy(a, B[cid * block_M + vid * block_M // 2, 0])

    return main
'''


def findings(source, target=None, select=("TLA030",), scope="Vector"):
    source = textwrap.dedent(source).replace('"SCOPE"', '"%s"' % scope)
    found = check_tree(ast.parse(source), source.splitlines(True), "k.py",
                       wanted=lambda code: code in select, target=target)
    return [(d.line, d.code) for d in found]


def targets(source):
    m = model(source)
    return [(k.targets, k.dialect) for k in m.kernels]


@pytest.mark.parametrize("call, expected", [
    ('tilelang.compile(vec(1024, 64, 64), target="npuir")', ("npuir",)),
    ('tilelang.compile(vec(1024, 64, 64), out_idx=[-1], target="pto")', ("ascendc",)),
    ('tilelang.compile(vec(1024, 64, 64), target="ascendc")', ("ascendc",)),
    ('tilelang.compile(vec(1024, 64, 64), target="auto")', ("ascendc",)),  # the setting
    ('tilelang.compile(vec(1024, 64, 64))', ("ascendc",)),
    ('tilelang.compile(vec(1024, 64, 64), target=TARGET)', ("npuir",)),
    # the 4th positional is `target` on npuir, `execution_backend` on ascendc_pto: unknown
    ('tilelang.compile(vec(1024, 64, 64), [-1], None, "npuir")', (None,)),
    ('tilelang.compile(vec(1024, 64, 64), **OPTS)', (None,)),
    ('tilelang.compile(vec(1024, 64, 64), target=os.environ["T"])', (None,)),
    ('tilelang.compile(vec(1024, 64, 64), target="cuda")', (None,)),
    ('tilelang.lower(vec(1024, 64, 64), "npuir")', ("npuir",)),
    ('tilelang.engine.lower(vec(1024, 64, 64), target="npuir")', ("npuir",)),
])
def test_each_compile_site_has_a_target(call, expected):
    source = HEAD + 'TARGET = "npuir"\nOPTS = dict(target="npuir", out_idx=[-1], **globals())\n' + call + "\n"
    [(found, dialect)] = targets(source)
    assert found == expected
    assert dialect == expected[0]


def test_jit_decorator_target_and_sites_that_disagree():
    source = HEAD + '''
@tilelang.jit(out_idx=[-1], target="npuir")
def npu_vec(M, N):
    return vec(M, N, 64)


def both(M, N):
    return vec(M, N, 64)


npu_vec(1024, 64)
tilelang.compile(both(256, 64), target="npuir")
tilelang.compile(both(512, 64), target="pto")
'''
    m = model(source)
    by_factory = {k.func.parent.name: k for k in m.kernels}
    assert by_factory["vec"].targets == ("npuir", "ascendc")
    assert by_factory["vec"].dialect is None  # one prim_func, compiled both ways


def test_npuir_kernel_gets_no_tla030_and_the_ascendc_near_miss_does():
    assert findings(HEAD + 'tilelang.compile(vec(1024, 64, 64), target="npuir")\n') == []
    assert findings(HEAD + 'tilelang.compile(vec(1024, 64, 64), target="npuir")\n', scope="Cube") == []
    # the same kernel for Ascend C: "Vector" silently means Cube there
    assert findings(HEAD + 'tilelang.compile(vec(1024, 64, 64), target="ascendc")\n') == [(12, "TLA030")]
    # no target and no `target` setting: Ascend C when the kernel shows it (a TL_ASCEND switch,
    # T.tile.*, T.gemm_v0, ...), else written in npuir's spelling only: not told, no finding
    # (the npuir branch's own jit/compile default to target="npuir")
    assert findings(HEAD + 'tilelang.compile(vec(1024, 64, 64))\n') == []
    ascend = 'tilelang.compile(vec(1024, 64, 64), pass_configs={"tl.ascend_auto_sync": True})\n'
    assert findings(HEAD + ascend) == [(12, "TLA030")]
    tiled = HEAD.replace("T.copy(a, B[", "T.tile.exp(a, a)\n                T.copy(a, B[")
    assert findings(tiled + 'tilelang.compile(vec(1024, 64, 64))\n') == [(12, "TLA030")]
    assert findings(HEAD + 'tilelang.compile(vec(1024, 64, 64))\n', target="ascendc") == [(12, "TLA030")]


def test_unknown_target_is_silent_only_for_a_scope_name_legal_in_npuir():
    unknown = 'tilelang.compile(vec(1024, 64, 64), target=os.environ.get("T", "npuir"))\n'
    assert findings(HEAD + unknown, scope="Vector") == []
    assert findings(HEAD + unknown, scope="Cube") == []
    # "vec" is no npuir scope: an unknown target counts as Ascend C
    assert findings(HEAD + unknown, scope="vec") == [(12, "TLA030")]


def test_the_target_setting_is_the_dialect_of_sites_that_name_none():
    source = HEAD + 'tilelang.compile(vec(1024, 64, 64))\n'
    assert findings(source, target="npuir") == []
    assert findings(source, target="ascendc") == [(12, "TLA030")]
    # a site that names its target keeps it whatever the setting
    named = HEAD + 'tilelang.compile(vec(1024, 64, 64), target="ascendc")\n'
    assert findings(named, target="npuir") == [(12, "TLA030")]


def test_scope_in_a_macro_only_an_npuir_kernel_reaches_is_not_judged():
    source = '''
import tilelang
import tilelang.language as T


@T.macro
def tail(a, B, row):
    with T.Scope("Vector"):
        T.copy(a, B[row, 0])


@T.macro
def unused_tail(a, B, row):
    with T.Scope("Vector"):
        T.copy(a, B[row, 0])


@tilelang.jit(target="npuir")
def k(M, N):
    @T.prim_func
    def main(A: T.Tensor((M, N), "float16"), B: T.Tensor((M, N), "float16")):
        with T.Kernel(M // 64, is_npu=True) as (cid, _):
            a = T.alloc_ub((64, N), "float16")
            tail(a, B, cid * 64)

    return main
'''
    # the file's only kernel is npuir: its macros, and the file's other uses, are npuir too
    assert findings(source) == []
    assert findings(source.replace('target="npuir"', 'target="pto"')) == [(8, "TLA030"), (14, "TLA030")]


def test_a_config_only_module_follows_the_setting():
    source = '''
import tilelang

CFG = {tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNCC: True}
'''
    assert findings(source, select=("TLA050",)) == [(4, "TLA050")]
    assert findings(source, target="npuir", select=("TLA050",)) == []


def test_every_rule_declares_its_dialects_and_the_docs_say_so():
    from flake8_tilelang.registry import all_rules

    npuir = {"TLA034"}  # the AscendNPU IR rules; every other rule is Ascend C's
    for rule in all_rules().checks():
        if rule.code in npuir:
            assert rule.dialects == ("npuir",), rule.code
            assert "Dialects: AscendNPU IR kernels" in rule.docs()
        else:
            assert rule.dialects == ("ascendc",), rule.code
            assert "Dialects: Ascend C / PTO kernels" in rule.docs()


def test_npuir_scope_name_judges_known_npuir_kernels_only():
    def tla034(tail, target=None, scope="V"):
        return findings(HEAD + tail, target=target, select=("TLA034",), scope=scope)

    assert tla034('tilelang.compile(vec(1024, 64, 64), target="npuir")\n') == [(12, "TLA034")]
    assert tla034('tilelang.compile(vec(1024, 64, 64), target="npuir")\n', scope="vector") == [(12, "TLA034")]
    assert tla034('tilelang.compile(vec(1024, 64, 64), target="npuir")\n', scope="Vector") == []
    assert tla034('tilelang.compile(vec(1024, 64, 64), target="npuir")\n', scope="C") == []
    assert tla034('tilelang.compile(vec(1024, 64, 64), target="ascendc")\n') == []
    assert tla034('tilelang.compile(vec(1024, 64, 64))\n') == []  # the target setting: Ascend C
    assert tla034('tilelang.compile(vec(1024, 64, 64))\n', target="npuir") == [(12, "TLA034")]
    # unknown (an environment variable), or both routes: not judged
    assert tla034('tilelang.compile(vec(1024, 64, 64), target=os.environ["T"])\n', target="npuir") == []
    both = 'k = vec(1024, 64, 64)\na = tilelang.compile(k, target="npuir")\nb = tilelang.compile(k)\n'
    assert tla034(both) == []

def test_target_setting_is_validated(tmp_path):
    from flake8_tilelang.settings import ConfigError, read_config

    cfg = tmp_path / "pyproject.toml"
    cfg.write_text('[tool.flake8-tilelang]\ntarget = "NPUIR"\n')
    assert read_config(str(cfg), ["TLA030"])["target"] == "npuir"
    cfg.write_text('[tool.flake8-tilelang]\ntarget = "cuda"\n')
    with pytest.raises(ConfigError, match="unknown target 'cuda'; choose one of ascendc, npuir"):
        read_config(str(cfg), ["TLA030"])


def test_cli_target_flag_pyproject_and_inventory(tmp_path, monkeypatch, capsys):
    from flake8_tilelang.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.py").write_text(textwrap.dedent(HEAD).replace("SCOPE", "Vector")
                                   + 'tilelang.compile(vec(1024, 64, 64), pass_configs={"tl.ascend_auto_sync": True})\n')
    assert main(["check", "--isolated", "--no-cache", "--output-format", "concise", "."]) == 1
    assert "TLA030" in capsys.readouterr().out
    assert main(["check", "--isolated", "--no-cache", "--target", "npuir", "."]) == 0
    capsys.readouterr()
    assert main(["check", "--isolated", "--no-cache", "--target", "gpu", "."]) == 2
    assert "--target: unknown target 'gpu'" in capsys.readouterr().err
    (tmp_path / "pyproject.toml").write_text('[tool.flake8-tilelang]\ntarget = "npuir"\n')
    assert main(["check", "--no-cache", "."]) == 0
    capsys.readouterr()
    assert main(["config"]) == 0
    assert 'target = "npuir"' in capsys.readouterr().out
    assert main(["kernels", "--output-format", "json", "."]) == 0
    [entry] = json.loads(capsys.readouterr().out)["kernels"]
    assert (entry["target"], entry["targets"], entry["mode"], entry["footprint"]) == ("npuir", ["npuir"], "unknown",
                                                                                      None)
    assert main(["kernels", "--isolated", "."]) == 0
    table = capsys.readouterr().out
    assert table.splitlines()[0].split()[3] == "TARGET" and " ascendc " in table.splitlines()[1]


def test_server_setting_target_overrides_the_pyproject(tmp_path):
    from flake8_tilelang.server.lsp import client_settings, namespace
    from flake8_tilelang.settings import build_settings

    (tmp_path / "pyproject.toml").write_text('[tool.flake8-tilelang]\ntarget = "ascendc"\n')
    ns = namespace(client_settings({"flake8-tilelang": {"target": "npuir"}}), str(tmp_path))
    assert ns.target == "npuir"
    assert build_settings(ns, str(tmp_path)).target == "npuir"
    ns = namespace(client_settings({}), str(tmp_path))
    assert ns.target is None and build_settings(ns, str(tmp_path)).target == "ascendc"


def test_migrate_leaves_npuir_kernels_alone(tmp_path, monkeypatch, capsys):
    import shutil

    from flake8_tilelang.cli import main

    here = tmp_path / "k.py"
    shutil.copy(os.path.join(ROOT, "fixtures", "kernels", "npuir_target_per_site.py"), str(here))
    monkeypatch.chdir(tmp_path)
    assert main(["migrate", "--isolated", "--diff", "k.py"]) in (0, 1)
    captured = capsys.readouterr()
    out = captured.out + captured.err
    for name in ("gemm_then_exp.main", "tile_add.add", "scaled_copy.copy_scaled"):
        assert "%s (unknown): skipped: an AscendNPU IR kernel" % name in out
    assert 'T.Scope("Cube")' not in "".join(line for line in out.splitlines(True) if line.startswith("-"))
    assert "vector_exp.exp_rows (Expert): migrated" in out
