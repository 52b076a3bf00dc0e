"""The per-file pipeline, the Diagnostic/SourceFile types, and the bugs issue
#11 fixed (each test fails on the code before the fix)."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from flake8_tilelang.cli import main
from flake8_tilelang.diagnostic import DISPLAY_ONLY, SAFE, UNSAFE, Diagnostic, Edit, Fix, node_range, read_severity_tag
from flake8_tilelang.pipeline import Finding, lint_source
from flake8_tilelang.settings import build_settings
from flake8_tilelang.source import SourceFile, decode

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

KERNEL = textwrap.dedent('''\
    import tilelang
    import tilelang.language as T

    CFG = {
        tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
        tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: True,
    }


    @tilelang.jit(pass_configs=CFG)
    def vec_exp(M, N, block_M, dtype="float16"):
        @T.prim_func
        def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
            with T.Kernel(M // block_M, is_npu=True) as (cid, vid):
                a_ub = T.alloc_ub((block_M // 2, N), dtype)
                with T.Scope("V"):
                    T.copy(A[cid * block_M + vid * block_M // 2, 0], a_ub)
                    T.barrier_all()
                    T.tile.exp(a_ub, a_ub)

        return main
''')


def run(argv, capsys):
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def settings(**kw):
    import argparse

    return build_settings(argparse.Namespace(**kw), cwd=ROOT)


# -- SourceFile ---------------------------------------------------------------------

def test_source_keeps_encoding_bom_and_newlines_and_converts_columns():
    raw = b"\xef\xbb\xbfimport tilelang\r\nname = '\xc3\xa9\xf0\x9f\x98\x80x'\r\n"
    src = decode(raw)
    assert src.bom and src.newline == "\r\n" and src.encoding == "utf-8-sig"
    assert src.lines[1] == "name = '\u00e9\U0001F600x'\n"
    # 'x' is at byte 14 (é = 2 bytes, the emoji 4), character 10, UTF-16 unit 11
    assert src.char_col(2, 14) == 10
    assert src.byte_col(2, 10) == 14
    assert src.utf16_col(2, 14) == 11
    assert src.byte_col_from_utf16(2, 11) == 14
    assert src.encode(src.text) == raw  # byte for byte back
    assert src.offset(2, 14) == src.text.index("x'")


def test_source_latin1_cookie_round_trips():
    raw = b"# -*- coding: latin-1 -*-\nimport tilelang\nname = '\xe9'\n"
    src = decode(raw)
    assert src.encoding == "iso-8859-1" and "\u00e9" in src.text
    assert src.encode(src.text) == raw


# -- Diagnostic ---------------------------------------------------------------------

def test_a_compound_statement_is_reported_up_to_its_header():
    import ast

    tree = ast.parse("with T.Scope('V'):\n    x = 1\n    y = 2\n")
    assert node_range(tree.body[0]) == ((1, 0), (1, 17))


def test_flake8_text_carries_advice_tier_and_fixability():
    d = Diagnostic("TLA001", 3, 4, "scope is ignored", "error", help="Remove it")
    assert d.flake8_text("warning") == "TLA001 [error] scope is ignored; remove it"
    assert d.flake8_text("error") == "TLA001 scope is ignored; remove it"
    assert read_severity_tag("[error] scope is ignored; remove it") == ("error", "scope is ignored; remove it")
    assert read_severity_tag("[PIPE] x") == (None, "[PIPE] x")
    fixed = Diagnostic("TLA050", 1, 0, "unknown key", "error",
                       fix=Fix("Use `tl.ascend_auto_sync`", [Edit((1, 0), (1, 3), "x")], SAFE))
    # flake8 cannot fix: the plugin's marker names the command that does; `concise` keeps Ruff's
    assert fixed.flake8_text("error").endswith(
        "; use `tl.ascend_auto_sync` [*] fixable: flake8-tilelang check --fix")
    finding = Finding("k.py", 1, 0, "TLA050", "unknown key", "error", 1, 3, 1, "abc", None, fixed.fix, "")
    assert finding.flake8_text().endswith("; use `tl.ascend_auto_sync` [*]")
    # the advice is `help` when there is one (alternatives), the fix title says what the edit does
    both = Diagnostic("TLA002", 1, 0, "double sync", "warning", help="Delete it, or set X False",
                      fix=Fix("Delete the hand-written `T.barrier_all`", [Edit((1, 0), (1, 3), "")], UNSAFE))
    assert both.flake8_text("warning") == ("TLA002 double sync; delete it, or set X False [*unsafe] fixable: "
                                           "flake8-tilelang check --fix --unsafe-fixes")
    assert Fix("Look at it", [], UNSAFE).applicability == DISPLAY_ONLY  # no edit: display only


def test_finding_rows_round_trip_and_reject_garbage():
    fix = Fix("Use it", [Edit((2, 1), (2, 4), "abc")], SAFE)
    f = Finding("k.py", 2, 1, "TLA050", "m", "error", 2, 4, 2, "src", None, fix, "")
    assert Finding.from_row(json.loads(json.dumps(f.to_row()))) == f
    for bad in ([], ["k.py"] * 13, [1] * 13, {"a": 1}, f.to_row()[:-1]):
        with pytest.raises((ValueError, TypeError)):
            Finding.from_row(bad)


# -- the pipeline -------------------------------------------------------------------

def test_lint_source_takes_an_editor_buffer_and_real_ranges():
    result = lint_source("k.py", b"", settings(), source=SourceFile.from_text(KERNEL))
    by_code = {f.code: f for f in result.findings}
    scope = by_code["TLA001"]
    line = KERNEL.splitlines()[scope.line - 1]
    assert line[scope.col:scope.end_col] == 'T.Scope("V")'
    sync = by_code["TLA002"]
    assert KERNEL.splitlines()[sync.line - 1][sync.col:sync.end_col] == "T.barrier_all()"
    assert sync.help and "delete" not in sync.message.lower()


@pytest.mark.parametrize("text", [
    "import tilelang\nx = (1,\n",
    "import tilelang\nif True:\nx = 1\n",
    "import tilelang\nif True:\n\tx = 1\n        y = 2\n",
    "import tilelang\n  x = 1\n",
    "import tilelang\ns = '\u00e9\u00e9' +\n",
])
def test_syntax_errors_are_reported_exactly_like_flake8(tmp_path, text, capsys):
    path = tmp_path / "bad.py"
    path.write_text(text, encoding="utf-8")
    flake8 = subprocess.run([sys.executable, "-m", "flake8", "--select=E9", str(path)],
                            capture_output=True, text=True).stdout
    code, out, _ = run(["check", "--no-cache", "--output-format", "concise", str(path)], capsys)
    assert code == 1 and out == flake8 and out.count(":") >= 3


# -- bugs of issue #11 --------------------------------------------------------------

def test_flake8_sarif_carries_each_findings_own_severity(capsys):
    kernels = os.path.join(ROOT, "fixtures", "kernels")
    out = subprocess.run([sys.executable, "-m", "flake8", "--select=TLA", "--format=tla-sarif", kernels],
                         capture_output=True, text=True, cwd=ROOT).stdout
    plugin = {(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].rsplit("/", 1)[-1],
               r["locations"][0]["physicalLocation"]["region"]["startLine"], r["ruleId"]): r["level"]
              for r in json.loads(out)["runs"][0]["results"]}
    _, cli_out, _ = run(["check", "--no-cache", "--output-format", "sarif", kernels], capsys)
    cli = {(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].rsplit("/", 1)[-1],
            r["locations"][0]["physicalLocation"]["region"]["startLine"], r["ruleId"]): r["level"]
           for r in json.loads(cli_out)["runs"][0]["results"]}
    assert plugin == cli
    assert {"error", "warning"} <= set(plugin.values())
    # the tier tag never reaches the SARIF message
    assert "[error]" not in out


URI_OK = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/%")


@pytest.mark.parametrize("name", ["a b.py", "100%.py", "c:d.py", "\u00e9t\u00e9.py", "x#y?.py"])
def test_sarif_uris_are_percent_encoded_relative_references(tmp_path, monkeypatch, capsys, name):
    (tmp_path / ".git").mkdir()
    (tmp_path / name).write_text(KERNEL)
    monkeypatch.chdir(tmp_path)
    _, out, _ = run(["check", "--no-cache", "--output-format", "sarif", "."], capsys)
    doc = json.loads(out)
    locs = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in doc["runs"][0]["results"]]
    assert locs
    for loc in locs:
        assert loc["uriBaseId"] == "%SRCROOT%"
        assert set(loc["uri"]) <= URI_OK, loc["uri"]
        from urllib.parse import unquote

        assert unquote(loc["uri"]) == name


def test_sarif_file_outside_the_root_gets_an_absolute_file_uri(tmp_path, monkeypatch, capsys):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    outside = tmp_path / "out side"
    outside.mkdir()
    (outside / "k.py").write_text(KERNEL)
    monkeypatch.chdir(repo)
    _, out, _ = run(["check", "--no-cache", "--output-format", "sarif", str(outside / "k.py")], capsys)
    loc = json.loads(out)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert "uriBaseId" not in loc
    assert loc["uri"].startswith("file:///") and loc["uri"].endswith("/out%20side/k.py")


def test_config_json_reports_the_configured_output_format(tmp_path, monkeypatch, capsys):
    (tmp_path / "pyproject.toml").write_text('[tool.flake8-tilelang]\noutput-format = "concise"\n')
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(["config", "--output-format", "json"], capsys)
    assert code == 0 and json.loads(out)["output-format"] == "concise"


def test_statistics_never_corrupt_a_sarif_file(tmp_path, monkeypatch, capsys):
    (tmp_path / "k.py").write_text(KERNEL)
    monkeypatch.chdir(tmp_path)
    code, _, err = run(["check", "--no-cache", "--statistics", "--output-format", "sarif", "-o", "x.sarif"],
                       capsys)
    assert code == 1
    doc = json.loads((tmp_path / "x.sarif").read_text())
    assert doc["runs"][0]["results"]
    assert "TLA002" in err  # the table went to stderr


def test_a_named_notebook_is_analysed(tmp_path, monkeypatch, capsys):
    (tmp_path / "nb.ipynb").write_text(json.dumps({"cells": [{"cell_type": "code", "source": KERNEL}],
                                                   "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    monkeypatch.chdir(tmp_path)
    code, out, err = run(["check", "--no-cache", "nb.ipynb"], capsys)
    assert "skipped" not in err and "nb.ipynb:cell 1:" in out  # tests/test_notebooks.py has the rest


def test_a_config_in_another_folder_is_named_by_its_project_path(tmp_path):
    from helpers import lint_file

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "__init__.py").write_text("")
    (tmp_path / "b" / "__init__.py").write_text("")
    (tmp_path / "a" / "configs.py").write_text(
        "import tilelang\nCFG = {tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True}\n")
    (tmp_path / "b" / "configs.py").write_text("CFG = {}\n")
    kernel = KERNEL.replace("CFG = {", "from a.configs import CFG\nUNUSED = {")
    (tmp_path / "b" / "k.py").write_text(kernel)
    found = [d for d in lint_file(str(tmp_path / "b" / "k.py")) if d.code == "TLA002"]
    assert found and "set at a/configs.py:2" in found[0].message


# -- settings per file (Ruff's closest-config rule) ----------------------------------

@pytest.fixture
def nested(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text('[tool.flake8-tilelang]\nextend-ignore = ["TLA001"]\n')
    (tmp_path / "top.py").write_text(KERNEL)
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "pyproject.toml").write_text(
        '[tool.flake8-tilelang]\nignore = ["TLA002"]\nextend-exclude = ["gen"]\n'
        '[tool.flake8-tilelang.per-file-ignores]\n"legacy_*.py" = ["TLA001"]\n')
    (sub / "k.py").write_text(KERNEL)
    (sub / "legacy_k.py").write_text(KERNEL)
    (sub / "gen").mkdir()
    (sub / "gen" / "g.py").write_text(KERNEL)
    plain = tmp_path / "plain"  # a pyproject without our table is skipped
    plain.mkdir()
    (plain / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (plain / "p.py").write_text(KERNEL)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _codes(out):
    return sorted((line.split(":")[0][2:] if line.startswith("./") else line.split(":")[0], line.split()[1])
                  for line in out.splitlines())


def test_each_file_uses_its_closest_configured_pyproject(nested, capsys):
    code, out, _ = run(["check", "--no-cache", "--output-format", "concise", "."], capsys)
    assert _codes(out) == [
        ("plain/p.py", "TLA002"),  # the root config: TLA001 ignored
        ("sub/k.py", "TLA001"),  # sub's config: TLA002 ignored, TLA001 on again
        ("top.py", "TLA002"),
    ]  # sub/legacy_k.py: per-file-ignores relative to sub; sub/gen: sub's exclude


def test_a_named_file_uses_its_own_config_wherever_the_command_runs(nested, capsys, monkeypatch):
    _, out, _ = run(["check", "--no-cache", "--output-format", "concise", "sub/k.py"], capsys)
    assert _codes(out) == [("sub/k.py", "TLA001")]
    monkeypatch.chdir(nested / "plain")
    _, out, _ = run(["check", "--no-cache", "--output-format", "concise", "../sub/k.py", "p.py"], capsys)
    assert _codes(out) == [("../sub/k.py", "TLA001"), ("p.py", "TLA002")]


def test_command_line_flags_override_every_config(nested, capsys):
    _, out, _ = run(["check", "--no-cache", "--output-format", "concise", "--select", "TLA002", "."], capsys)
    # --select replaces every config's `select`; sub's own `ignore` still holds there
    assert _codes(out) == [("plain/p.py", "TLA002"), ("top.py", "TLA002")]
    _, out, _ = run(["check", "--no-cache", "--output-format", "concise", "--ignore", "TLA001", "."], capsys)
    # --ignore replaces every config's `ignore`
    assert _codes(out) == [("plain/p.py", "TLA002"), ("sub/k.py", "TLA002"), ("sub/legacy_k.py", "TLA002"),
                           ("top.py", "TLA002")]
    # --isolated: no config anywhere
    _, out, _ = run(["check", "--no-cache", "--isolated", "--output-format", "concise", "top.py"], capsys)
    assert {c for _, c in _codes(out)} == {"TLA001", "TLA002"}


def test_an_explicit_config_must_be_a_configuration(nested, capsys):
    (nested / "other").mkdir()
    (nested / "other" / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    code, _, err = run(["check", "--no-cache", "--config", "other/pyproject.toml", "top.py"], capsys)
    assert code == 2 and "other/pyproject.toml has no [tool.flake8-tilelang] table" in err
    (nested / "tla.toml").write_text('ignore = ["TLA001", "TLA002"]\n')  # ruff.toml style
    code, out, _ = run(["check", "--no-cache", "--config", "tla.toml", "--output-format", "concise", "."], capsys)
    assert code == 0 and out == ""
    (nested / "typo.toml").write_text('ignor = ["TLA001"]\n')
    code, _, err = run(["check", "--no-cache", "--config", "typo.toml", "top.py"], capsys)
    assert code == 2 and "unknown key 'ignor'" in err and "typo.toml" in err


def test_lint_source_reads_other_modules_through_a_source_provider(tmp_path):
    """An editor's unsaved buffer of an imported module decides the config."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (tmp_path / "configs.py").write_text("import tilelang\nCFG = {}\n")  # on disk: nothing on
    kernel = KERNEL.replace("CFG = {", "from configs import CFG\nUNUSED = {")
    path = str(tmp_path / "k.py")
    (tmp_path / "k.py").write_text(kernel)
    buffers = {str(tmp_path / "configs.py"): "import tilelang\n"
               "CFG = {tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True}\n"}
    plain = lint_source(path, kernel.encode(), settings())
    assert not [f for f in plain.findings if f.code == "TLA002"]
    edited = lint_source(path, kernel.encode(), settings(), source_provider=buffers.get)
    assert [f for f in edited.findings if f.code == "TLA002"]
    again = lint_source(path, kernel.encode(), settings())  # the buffer is not remembered as the disk
    assert not [f for f in again.findings if f.code == "TLA002"]
