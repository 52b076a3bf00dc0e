"""The command line: discovery, selection, suppression, config, exit codes,
rule docs, inventory, cache. In-process through ``main(argv)``; a subprocess
only where the process itself is the point (imports, stdin, the parity test
is in test_cli_output.py)."""
import io
import json
import os
import subprocess
import sys
import textwrap

import pytest

from flake8_tilelang import suppress
from flake8_tilelang.cli import main
from flake8_tilelang.registry import all_rules

KERNEL = textwrap.dedent('''\
    import tilelang
    import tilelang.language as T

    CFG = {
        tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
        tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: True,
    }


    @tilelang.jit(out_idx=[-1], pass_configs=CFG)
    def vec_exp(M, N, block_M, dtype="float16"):
        @T.prim_func
        def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
            with T.Kernel(M // block_M, is_npu=True) as (cid, vid):
                a_ub = T.alloc_ub((block_M // 2, N), dtype)
                with T.Scope("V"):{scope}
                    T.copy(A[cid * block_M + vid * block_M // 2, 0], a_ub)
                    T.barrier_all(){sync}
                    T.tile.exp(a_ub, a_ub)
                    T.copy(a_ub, B[cid * block_M + vid * block_M // 2, 0])

        return main
    ''')
SCOPE_LINE, SYNC_LINE = 16, 18  # TLA001 (warning), TLA002 (warning)

# TLA053 (info, opt-in): lower() outside any PassContext.
LOWER = textwrap.dedent('''\
    import tilelang
    import tilelang.language as T


    def vec_copy(M, N, dtype="float16"):
        @T.prim_func
        def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
            with T.Kernel(M, is_npu=True) as (cid, vid):
                T.copy(A[cid, 0], B[cid, 0])

        return main


    def build():
        return tilelang.lower(vec_copy(64, 64))
    ''')
LOWER_LINE = 15


def kernel(scope="", sync=""):
    return KERNEL.replace("{scope}", scope).replace("{sync}", sync)


def run(argv, capsys, stdin=None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def check(argv, capsys, **kw):
    return run(["check", "--no-cache", "--output-format", "concise"] + argv, capsys, **kw)


def codes(out):
    found = []
    for line in out.splitlines():
        path, row, _col, rest = line.split(":", 3)
        found.append((os.path.basename(path), int(row), rest.split()[0]))
    return found


@pytest.fixture
def proj(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.py").write_text(kernel())
    return tmp_path


# -- check: files -----------------------------------------------------------------

def test_check_reports_flake8_lines_exit_1_and_summary_on_stderr(proj, capsys):
    code, out, err = check([], capsys)
    assert code == 1
    assert out.splitlines()[0].startswith("./k.py:16:18: TLA001 `T.Scope(\"V\")` is ignored")
    assert codes(out) == [("k.py", SCOPE_LINE, "TLA001"), ("k.py", SYNC_LINE, "TLA002")]
    # the summary, then how many findings an unsafe run would fix (Ruff's note)
    assert err.strip() == ("Found 2 diagnostics (2 warnings) in 1 file of 1 checked.\n"
                           "No fixes available (2 hidden fixes can be enabled with the "
                           "`--unsafe-fixes` option).")


def test_clean_tree_exits_0(proj, capsys):
    (proj / "k.py").write_text("import tilelang\n")
    code, out, err = check(["."], capsys)
    assert (code, out) == (0, "")
    assert "All checks passed (1 file checked)." in err


def test_discovery_skips_vcs_venvs_build_caches_and_excludes(proj, capsys):
    for d in (".git", "build", "dist", "__pycache__", "node_modules", ".tox", "my_env", "pkg/sub",
              "gen", "docs/generated"):
        (proj / d).mkdir(parents=True, exist_ok=True)
        (proj / d / "x.py").write_text(kernel())
    (proj / "my_env" / "pyvenv.cfg").write_text("home = /usr\n")
    (proj / "pkg" / "not_python.txt").write_text(kernel())
    (proj / "pyproject.toml").write_text(
        '[tool.flake8-tilelang]\nextend-exclude = ["gen", "docs/generated"]\n')
    code, out, _ = check([], capsys)
    files = sorted({line.split(":")[0] for line in out.splitlines()})
    assert files == ["./k.py", "./pkg/sub/x.py"]
    # --exclude replaces the defaults: build/ is checked now
    _, out, _ = check(["--exclude", "pkg,gen,docs"], capsys)
    assert "./build/x.py" in {line.split(":")[0] for line in out.splitlines()}
    # a file named explicitly is checked even when excluded, unless --force-exclude
    _, out, _ = check(["gen/x.py"], capsys)
    assert out.startswith("gen/x.py:")
    _, out, _ = check(["--force-exclude", "gen/x.py", "build/x.py"], capsys)
    assert out == ""


def test_output_is_sorted_by_path_line_column_code(proj, capsys):
    for name in ("b.py", "a.py", "c/z.py"):
        os.makedirs(os.path.dirname(str(proj / name)) or ".", exist_ok=True)
        (proj / name).write_text(kernel())
    _, out, _ = check([], capsys)
    keys = [(p, int(r), int(c)) for p, r, c, _ in (line.split(":", 3) for line in out.splitlines())]
    assert keys == sorted(keys)
    assert [k[0] for k in keys][::2] == ["./a.py", "./b.py", "./c/z.py", "./k.py"]


def test_parallel_and_serial_agree(proj, capsys, fixtures_dir):
    _, serial, _ = check(["-j", "1", fixtures_dir], capsys)
    _, parallel, _ = check(["-j", "2", fixtures_dir], capsys)
    assert serial == parallel and serial.count("\n") > 50


def test_stdin_with_filename(proj, capsys, monkeypatch):
    code, out, _ = check(["-", "--stdin-filename", "pkg/k.py"], capsys, stdin=kernel(),
                         monkeypatch=monkeypatch)
    assert code == 1 and out.startswith("pkg/k.py:16:18: TLA001")
    _, out, _ = check(["-", "--stdin-filename", "pkg/k.py", "--per-file-ignores", "pkg/*:TLA001"],
                      capsys, stdin=kernel(), monkeypatch=monkeypatch)
    assert codes(out) == [("k.py", SYNC_LINE, "TLA002")]
    _, out, _ = check(["-"], capsys, stdin=kernel(), monkeypatch=monkeypatch)
    assert out.startswith("stdin:16:18: TLA001")


def test_syntax_error_undecodable_and_missing_files_are_reported(proj, capsys):
    (proj / "bad.py").write_text("import tilelang\nx = (1,\ndef f(:\n")
    (proj / "latin.py").write_bytes(b"import tilelang\nname = '\xe9t\xe9'\n")
    (proj / "other.py").write_text("def f(:\n")  # no tilelang: never parsed
    code, out, _ = check(["bad.py", "latin.py", "other.py", "missing.py"], capsys)
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == "bad.py:3:2: E999 SyntaxError: invalid syntax"  # flake8 prints offset + 1
    assert lines[1].startswith("latin.py:2:9: E902 UnicodeDecodeError: 'utf-8' codec can't decode")
    assert lines[2].startswith("missing.py:0:1: E902 FileNotFoundError")
    assert len(lines) == 3
    # a declared encoding is honoured
    (proj / "latin.py").write_bytes(b"# -*- coding: latin-1 -*-\nimport tilelang\nname = '\xe9'\n")
    assert check(["latin.py"], capsys)[:2] == (0, "")


def test_internal_error_in_a_file_is_tla000_not_a_crash(proj, capsys, monkeypatch):
    from flake8_tilelang import pipeline as analyze

    monkeypatch.delenv("FLAKE8_TILELANG_STRICT")

    def boom(*a, **k):
        raise RuntimeError("kaput")

    monkeypatch.setattr(analyze, "_engine", boom)
    code, out, _ = check([], capsys)
    assert code == 1 and out.startswith("./k.py:1:1: TLA000 flake8-tilelang internal error")


# -- selection ------------------------------------------------------------------

@pytest.fixture
def info_proj(proj):
    (proj / "lower.py").write_text(LOWER)
    return proj


@pytest.mark.parametrize("argv, expected", [
    ([], {"TLA001", "TLA002"}),
    (["--select", "TLA001"], {"TLA001"}),
    (["--select", "TLA00", "--ignore", "TLA002"], {"TLA001"}),
    (["--ignore", "TLA"], set()),
    (["--extend-ignore", "TLA001"], {"TLA002"}),
    (["--select", "ALL"], {"TLA001", "TLA002"}),  # ALL never enables opt-in codes
    (["--select", "TLA"], {"TLA001", "TLA002"}),
    (["--extend-select", "TLA053"], {"TLA001", "TLA002", "TLA053"}),
    (["--extend-select", "TLA05"], {"TLA001", "TLA002", "TLA053"}),  # prefix longer than TLA
    (["--select", "TLA053"], {"TLA053"}),
    (["--ignore", ""], {"TLA001", "TLA002"}),  # an explicit ignore does not enable opt-in codes
    (["--select", "TLA", "--ignore", "TLA0", "--extend-select", "TLA002"], {"TLA002"}),  # explicit wins
    (["--ignore", "ALL", "--extend-select", "TLA001"], {"TLA001"}),
    (["--per-file-ignores", "k.py:TLA001 lower.py:ALL", "--extend-select", "TLA053"], {"TLA002"}),
    (["--select", "TLA001", "--per-file-ignores", "./k.py:TLA001"], set()),  # per-file always wins
])
def test_selection(info_proj, capsys, argv, expected):
    code, out, _ = check(argv, capsys)
    assert {c for _, _, c in codes(out)} == expected


@pytest.mark.parametrize("argv, needle", [
    (["--select", "TLA9"], "--select: unknown rule selector 'TLA9'"),
    (["--extend-select", "tla001"], "codes are upper case: TLA001"),
    (["--ignore", "E501"], "unknown rule selector 'E501'"),
    (["--extend-ignore", "E999"], "E999 is always reported"),
    (["--per-file-ignores", "x.py:TLA1234"], "unknown rule selector 'TLA1234'"),
    (["--per-file-ignores", "x.py"], "is not PATTERN:CODES"),
    (["--jobs", "zero"], "--jobs: expected a number"),
    (["--output-format", "xml"], "invalid choice: 'xml'"),
    (["--no-such-flag"], "unrecognized arguments"),
])
def test_usage_errors_exit_2(proj, capsys, argv, needle):
    code, out, err = check(argv, capsys)
    assert code == 2 and out == "" and needle in err


def test_opt_in_rules_are_the_registry_ones_and_documented_in_help(capsys):
    opt_in = [r.code for r in all_rules() if not r.default_enabled]
    code, out, _ = run(["check", "--help"], capsys)
    assert code == 0
    flat = " ".join(out.split())
    for c in opt_in + ["TLA096"]:
        assert c in flat
    assert "ALL and TLA do not enable them" in flat


# -- exit codes -------------------------------------------------------------------

@pytest.mark.parametrize("argv, expected", [
    ([], 1),
    (["--exit-zero"], 0),
    (["--fail-on", "error"], 0),  # only warnings
    (["--fail-on", "warning"], 1),
    (["--fail-on", "info"], 1),
])
def test_exit_codes_by_severity(proj, capsys, argv, expected):
    assert check(argv, capsys)[0] == expected


def test_info_never_fails_unless_fail_on_info(proj, capsys):
    (proj / "k.py").write_text(LOWER)
    assert check(["--select", "TLA053"], capsys)[:2][0] == 0
    assert check(["--select", "TLA053", "--fail-on", "info"], capsys)[0] == 1
    (proj / "k.py").write_text(kernel().replace("T.Kernel(M // block_M, is_npu=True)",
                                                "T.Kernel(M // block_M, threads=2, is_npu=True)"))
    code, out, _ = check(["--fail-on", "error"], capsys)
    assert code == 1 and "TLA003" in out  # an error


# -- suppression ---------------------------------------------------------------

@pytest.mark.parametrize("scope, sync, expected", [
    ("  # noqa: TLA001", "", ["TLA002"]),
    ("  # noqa:TLA001", "  # NOQA: TLA002", []),
    ("  # noqa: TLA00", "", ["TLA002"]),  # prefix
    ("  # noqa: E501,TLA001", "  # noqa: E501 TLA002", []),
    ("  # noqa", "", ["TLA002"]),  # blanket
    ("  # noqa: TLA002", "", ["TLA001", "TLA002"]),  # another code
    ("  # noqa: tla001", "", ["TLA001", "TLA002", "TLA095"]),  # case-sensitive: silences nothing
    ("  # noqa : TLA002", "", ["TLA002", "TLA095"]),  # blanket for flake8 (space before colon)
    ("  # noqa: TLA", "", ["TLA002", "TLA095"]),  # blanket (no digits)
    ("  # noqa:TLA-001", "", ["TLA002", "TLA095"]),  # blanket
    ("  # noqa TLA001", "", ["TLA002", "TLA095"]),  # blanket (no colon)
    ("  #noqa: TLA001", "", ["TLA001", "TLA002", "TLA095"]),  # not a noqa for flake8
    ("  # noqa: TLA999", "", ["TLA001", "TLA002", "TLA095"]),  # matches no code
    ("  # noqa: TLA001, TLA-2", "", ["TLA002", "TLA095"]),  # flake8 stops before TLA-2
])
def test_inline_noqa_like_flake8(proj, capsys, scope, sync, expected):
    (proj / "k.py").write_text(kernel(scope, sync))
    _, out, _ = check([], capsys)
    assert sorted(c for _, _, c in codes(out)) == sorted(expected)


def test_malformed_noqa_messages_and_position(proj, capsys):
    (proj / "k.py").write_text(kernel("  # noqa : TLA001"))
    _, out, _ = check(["--select", "TLA095"], capsys)
    assert out == ("./k.py:16:33: TLA095 `# noqa : TLA001` is a blanket noqa for flake8 (there is "
                   "a space before the colon): it silences every code on the line, not only TLA001; "
                   "write `# noqa: TLA001` [*]\n")  # [*]: the repair is a safe fix
    assert check(["--extend-ignore", "TLA095"], capsys)[1].count("TLA095") == 0


def test_noqa_on_continuation_and_multiline_string_lines(proj, capsys):
    """flake8 reads the noqa of the whole token run: a backslash continuation
    or a multi-line string shares one comment; bracketed lines do not."""
    src = kernel().replace(
        "                T.barrier_all()\n",
        "                T.barrier_all(); y = \\\n                    1  # noqa: TLA002\n")
    (proj / "k.py").write_text(src)
    assert [c for _, _, c in codes(check([], capsys)[1])] == ["TLA001"]
    src = kernel().replace(
        "                T.barrier_all()\n",
        "                T.barrier_all(); y = '''\n                '''  # noqa: TLA002\n")
    (proj / "k.py").write_text(src)
    assert [c for _, _, c in codes(check([], capsys)[1])] == ["TLA001"]
    src = kernel().replace(
        "                T.barrier_all()\n",
        "                T.barrier_all(); y = (\n                    1)  # noqa: TLA002\n")
    (proj / "k.py").write_text(src)
    assert [c for _, _, c in codes(check([], capsys)[1])] == ["TLA001", "TLA002"]


def test_disable_noqa(proj, capsys):
    (proj / "k.py").write_text("# flake8-tilelang: noqa\n" + kernel("  # noqa", "  # noqa: TLA002"))
    assert check([], capsys)[1] == ""
    assert len(codes(check(["--disable-noqa"], capsys)[1])) == 2


def test_report_unused_noqa(proj, capsys):
    (proj / "k.py").write_text(kernel("  # noqa: TLA001,TLA005,E501", "  # noqa: TLA003"))
    _, out, _ = check([], capsys)
    assert [c for _, _, c in codes(out)] == ["TLA002"]
    _, out, _ = check(["--report-unused-noqa"], capsys)
    assert codes(out) == [("k.py", 16, "TLA096"), ("k.py", 18, "TLA002"), ("k.py", 18, "TLA096")]
    assert "unused `noqa` code TLA005: nothing reports it on this statement" in out
    assert check(["--extend-select", "TLA096"], capsys)[1] == out  # selectable by its code
    assert "TLA096" not in check(["--select", "ALL"], capsys)[1]  # opt-in
    _, out, _ = check(["--report-unused-noqa", "--ignore", "TLA002"], capsys)
    assert "TLA003 (TLA002" not in out and "(TLA003 is not enabled" not in out
    (proj / "k.py").write_text(kernel("  # noqa: TLA001", "  # noqa: TLA002"))
    _, out, _ = check(["--report-unused-noqa", "--extend-ignore", "TLA002"], capsys)
    assert "unused `noqa` code TLA002" in out and "(TLA002 is not enabled in this run)" in out


@pytest.mark.parametrize("header, expected", [
    ("# flake8-tilelang: noqa\n", []),
    ("# flake8-tilelang: noqa: TLA001\n", ["TLA002"]),
    ("# FLAKE8-TILELANG: NOQA: TLA001, TLA002  # legacy kernels\n", []),
    ("#flake8-tilelang:noqa:TLA00\n", []),
    ("# flake8-tilelang: noqa: tla001\n", ["TLA001", "TLA002", "TLA095"]),  # ignored, reported
    ("# flake8-tilelang: noqa: TLA-1\n", ["TLA001", "TLA002", "TLA095"]),
    ("x = 1  # flake8-tilelang: noqa\n", ["TLA001", "TLA002", "TLA095"]),  # must be its own line
    ("# flake8: noqa\n", []),  # flake8 skips the file
    ("# flake8: noqa: TLA001\n", ["TLA095"]),  # ... also with codes, which we warn about
])
def test_file_directives(proj, capsys, header, expected):
    (proj / "k.py").write_text(header + kernel())
    _, out, _ = check([], capsys)
    assert sorted(c for _, _, c in codes(out)) == sorted(expected)


def test_file_directive_function():
    fd = suppress.file_directive
    assert fd(["x = 1\n"]) is None
    assert fd(["# flake8-tilelang: noqa\n"]) == "all"
    assert fd(["# flake8-tilelang: noqa: TLA\n"]) == "all"
    assert fd(["  # flake8-tilelang: noqa: TLA001,TLA05\n", "# flake8-tilelang: noqa: TLA002\n"]) == \
        frozenset({"TLA001", "TLA05", "TLA002"})
    assert fd(["# flake8-tilelang: noqa: tla001\n"]) is None
    assert fd(["y = 2  # flake8-tilelang: noqa\n"]) is None
    d = fd(["# flake8-tilelang: noqa: TLA00\n"])
    assert suppress.suppressed_by_file_directive(d, "TLA001")
    assert not suppress.suppressed_by_file_directive(d, "TLA050")
    assert not suppress.suppressed_by_file_directive(d, "E999")

    class D:
        def __init__(self, code):
            self.code = code

    kept = suppress.apply_file_directive([D("TLA001"), D("TLA050")], ["# flake8-tilelang: noqa: TLA00\n"])
    assert [k.code for k in kept] == ["TLA050"]


def test_plugin_honours_file_directive():
    import ast

    from flake8_tilelang.plugin import Plugin

    src = "# flake8-tilelang: noqa: TLA001\n" + kernel()
    found = [text.split()[0] for _, _, text, _ in
             Plugin(ast.parse(src), src.splitlines(True), "k.py").run()]
    assert found == ["TLA002"]


# -- config -------------------------------------------------------------------------

def test_pyproject_config_is_read_from_the_nearest_file(proj, capsys, monkeypatch):
    (proj / "pyproject.toml").write_text(textwrap.dedent('''\
        [tool.flake8-tilelang]
        select = ["TLA00"]
        extend-select = ["TLA053"]
        ignore = ["TLA003"]
        extend-ignore = ["TLA001"]
        per-file-ignores = {"lower.py" = ["TLA053"], "!k.py" = "TLA002"}
        exclude = ["skipme"]
        extend-exclude = ["also/*.py"]
        output-format = "concise"
        '''))
    (proj / "lower.py").write_text(LOWER)
    (proj / "skipme").mkdir()
    (proj / "skipme" / "x.py").write_text(kernel())
    (proj / "sub").mkdir()
    monkeypatch.chdir(proj / "sub")
    code, out, _ = run(["check", "--no-cache", ".."], capsys)  # output-format from the config
    assert codes(out) == [("k.py", SYNC_LINE, "TLA002")]
    # flags override the config
    _, out, _ = run(["check", "--no-cache", "--select", "TLA", "--output-format", "concise", ".."], capsys)
    assert [c for _, _, c in codes(out)] == ["TLA002"]
    _, out, _ = run(["check", "--no-cache", "--isolated", "--output-format", "concise", ".."], capsys)
    assert len(codes(out)) == 4  # skipme/x.py too, no ignores


@pytest.mark.parametrize("toml, needle", [
    ('[tool.flake8-tilelang]\nselct = ["TLA"]\n', "[tool.flake8-tilelang]: unknown key 'selct' (did you mean 'select'?)"),
    ('[tool.flake8-tilelang]\nextend_select = ["TLA"]\n', "did you mean 'extend-select'? keys use dashes"),
    ('[tool.flake8-tilelang]\nselect = "TLA"\n', "[tool.flake8-tilelang] select: expected a list of strings, got a string"),
    ('[tool.flake8-tilelang]\nexclude = [1]\n', "exclude: expected a list of strings"),
    ('[tool.flake8-tilelang]\noutput-format = "xml"\n', "output-format: unknown output format 'xml'"),
    ('[tool.flake8-tilelang]\noutput-format = 3\n', "output-format: expected a string, got an integer"),
    ('[tool.flake8-tilelang]\nper-file-ignores = ["a"]\n', "per-file-ignores: expected a table"),
    ('[tool.flake8-tilelang]\nper-file-ignores = {"a.py" = ["X1"]}\n', "per-file-ignores 'a.py': unknown rule selector 'X1'"),
    ('[tool.flake8-tilelang]\nignore = ["TLA9"]\n', "[tool.flake8-tilelang] ignore: unknown rule selector 'TLA9'"),
    ('[tool.flake8-tilelang\nselect = ["TLA"]\n', "invalid TOML: "),
    ('[tool]\nflake8-tilelang = 3\n', "[tool.flake8-tilelang] must be a table"),
])
def test_bad_config_is_a_clear_error_exit_2(proj, capsys, toml, needle):
    (proj / "pyproject.toml").write_text(toml)
    for cmd in (["check", "--no-cache"], ["config"], ["kernels"]):
        code, out, err = run(cmd, capsys)
        assert code == 2 and out == ""
        assert err.startswith("flake8-tilelang: error: %s" % (proj / "pyproject.toml"))
        assert needle in err, err


def test_other_pyproject_files_are_skipped(proj, capsys, monkeypatch):
    (proj / "pyproject.toml").write_text('[tool.flake8-tilelang]\nselect = ["TLA001"]\n')
    (proj / "sub").mkdir()
    (proj / "sub" / "pyproject.toml").write_text('[project]\nname = "x"\n')
    monkeypatch.chdir(proj / "sub")
    code, out, _ = run(["config", "--output-format", "json"], capsys)
    data = json.loads(out)
    assert data["config-file"] == str(proj / "pyproject.toml") and data["select"] == ["TLA001"]
    (proj / "sub" / "cfg.toml").write_text('[tool.flake8-tilelang]\nignore = ["TLA002"]\n')
    data = json.loads(run(["config", "--config", "cfg.toml", "--output-format", "json"], capsys)[1])
    assert data["ignore"] == ["TLA002"] and data["select"] == ["TLA"]
    assert run(["config", "--config", "nope.toml"], capsys)[0] == 2


def test_config_command_prints_effective_settings_as_toml(proj, capsys):
    tomllib = pytest.importorskip("tomllib") if sys.version_info >= (3, 11) else pytest.importorskip("tomli")
    (proj / "pyproject.toml").write_text(
        '[tool.flake8-tilelang]\nextend-select = ["TLA052"]\nper-file-ignores = {"tests/*" = ["TLA002"]}\n')
    code, out, _ = run(["config", "--extend-ignore", "TLA001"], capsys)
    assert code == 0
    assert "# config file: %s" % (proj / "pyproject.toml") in out
    parsed = tomllib.loads(out)["tool"]["flake8-tilelang"]
    assert parsed["extend-select"] == ["TLA052"] and parsed["extend-ignore"] == ["TLA001"]
    assert parsed["per-file-ignores"] == {"tests/*": ["TLA002"]}
    assert ".git" in parsed["exclude"]
    enabled = [line for line in out.splitlines() if line.startswith("# enabled")][0]
    assert "TLA052" in enabled and "TLA001" not in enabled and "TLA053" not in enabled


# -- rule, rules, version --------------------------------------------------------

def test_rule_prints_markdown_docs(capsys):
    code, out, _ = run(["rule", "TLA001"], capsys)
    assert code == 0 and out == all_rules().get("TLA001").docs().rstrip("\n") + "\n"
    assert run(["rule", "scope-under-auto-cv-combine"], capsys)[1] == out
    data = json.loads(run(["rule", "TLA095", "--output-format", "json"], capsys)[1])
    assert data["name"] == "malformed-noqa" and "## What it does" in data["docs"]
    code, _, err = run(["rule", "TLA999"], capsys)
    assert code == 2 and "unknown rule 'TLA999'" in err
    assert run(["rule", "--all"], capsys)[1].count("## What it does") == len(all_rules()) + 2  # + E902, E999


def test_rules_lists_every_code(capsys):
    code, out, _ = run(["rules"], capsys)
    assert code == 0
    rows = {line.split()[0]: line.split() for line in out.splitlines()[1:]
            if line[:3] in ("TLA", "E90", "E99")}
    for r in all_rules():
        assert rows[r.code][1] == r.name and rows[r.code][2] == "/".join(r.severities)
        assert rows[r.code][3] == ("on" if r.default_enabled else "opt-in,")[:len(rows[r.code][3])]
    assert rows["TLA096"][3] == "opt-in" and rows["E999"][3] == "always"
    data = json.loads(run(["rules", "--output-format", "json"], capsys)[1])
    assert {d["code"] for d in data} == {r.code for r in all_rules()} | {"TLA095", "TLA096", "E902", "E999"}
    assert all(set(d) >= {"code", "name", "severity", "default_enabled"} for d in data)


def test_version_names_every_component(capsys):
    code, out, _ = run(["--version"], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("flake8-tilelang 0.") and lines[1].startswith("flake8 7.")
    assert lines[2].startswith("astroid ") and lines[3].startswith("Python 3.")
    assert run(["version"], capsys)[1] == out


def test_startup_stays_lazy(tmp_path):
    """A run over files that never mention tilelang imports neither the
    engine nor astroid nor flake8; --version reads metadata without
    importing astroid."""
    (tmp_path / "plain.py").write_text("import os\n")
    script = textwrap.dedent('''\
        import sys
        from flake8_tilelang.cli import main
        rc = main(sys.argv[1:])
        print(rc, "astroid" in sys.modules, "flake8_tilelang.engine" in sys.modules,
              "flake8" in sys.modules)
        ''')
    env = dict(os.environ)
    env.pop("FLAKE8_TILELANG_STRICT", None)
    for argv in (["check", "--no-cache", "-q", "."], ["--version"]):
        proc = subprocess.run([sys.executable, "-c", script] + argv, cwd=str(tmp_path),
                              capture_output=True, text=True, env=env, timeout=60)
        assert proc.stdout.splitlines()[-1] == "0 False False False", proc.stderr


# -- kernels ------------------------------------------------------------------------

def test_kernels_threads_per_compile_site(capsys):
    """A launch whose `threads=` is a factory parameter: the THREADS cell
    gives each site's value (like the switch cells), JSON lists them."""
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "independent",
                        "launch_threads_per_site.py")
    assert main(["kernels", "--isolated", "--output-format", "json", path]) == 0
    entries = {e["factory"]: e for e in json.loads(capsys.readouterr().out)["kernels"]}
    assert entries["rows_copy"]["threads"] is None
    assert [t["threads"] for t in entries["rows_copy"]["site_threads"]] == [1, 2]
    assert [t["threads"] for t in entries["rows_scale"]["site_threads"]] == [1, None]
    assert entries["rows_jit"]["site_threads"] == [{"line": 99, "threads": 1}]
    assert main(["kernels", "--isolated", path]) == 0
    lines = capsys.readouterr().out.splitlines()
    column = lines[0].split().index("THREADS")
    rows = {line.split()[2]: line.split() for line in lines[1:8]}
    assert rows["rows_copy"][column] == "1/2" and rows["rows_scale"][column] == "1/none"


def test_kernels_inventory_table_and_json(proj, capsys):
    (proj / "dev.py").write_text(textwrap.dedent('''\
        import tilelang
        import tilelang.language as T

        DEV = {
            tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
            tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True,
            tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: True,
            tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_SYNC: True,
        }


        @tilelang.jit(pass_configs=DEV)
        def dev(M, N, dtype="float16"):
            @T.prim_func
            def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
                with T.Kernel(M, threads=2, is_npu=True) as cid:
                    T.copy(A[cid, 0], B[cid, 0])

            return main


        @tilelang.jit
        def expert(M, N, dtype="float16"):
            @T.prim_func
            def main(A: T.Tensor((M, N), dtype)):
                with T.Kernel(M, is_npu=True) as (cid, vid):
                    a = T.alloc_ub((N,), dtype)
                    with T.Scope("V"):
                        T.copy(A[cid, 0], a)
                        T.set_flag("mte2", "v", 0)
                        T.wait_flag("mte2", "v", 0)

            return main


        def loose(M):
            @T.prim_func
            def main(A: T.Tensor((M,), "float16")):
                with T.Kernel(M, is_npu=True) as cid:
                    T.copy(A[cid], A[cid])

            return main
        '''))
    code, out, _ = run(["kernels", "--output-format", "json", "."], capsys)
    assert code == 0
    data = json.loads(out)
    by = {(os.path.basename(e["file"]), e["factory"]): e for e in data["kernels"]}
    dev = by[("dev.py", "dev")]
    assert dev["mode"] == "Developer" and dev["threads"] == 2 and dev["kernel"] == "main"
    assert dev["sites"][0]["switches"]["TL_ASCEND_AUTO_SYNC"] == {
        "state": "on", "where": "set at line 5", "file": "dev.py", "line": 5}
    exp = by[("dev.py", "expert")]
    assert exp["mode"] == "Expert"
    assert exp["counts"] == {"scopes": 1, "manual_syncs": 2, "cross_core_flags": 0, "expert_allocs": 1}
    assert by[("dev.py", "loose")]["mode"] == "unknown"
    assert {e["target"] for e in data["kernels"]} == {"ascendc"}  # no target given: the setting's
    k = by[("k.py", "vec_exp")]
    assert k["mode"] == "Mixed"
    assert [(d["code"], d["line"]) for d in k["diagnostics"]] == [("TLA001", 16), ("TLA002", 18)]
    assert data["summary"]["modes"] == {"Developer": 1, "Expert": 1, "Mixed": 1, "unknown": 1}

    code, out, _ = run(["kernels", "."], capsys)
    header, *rows = out.splitlines()
    assert header.split()[:5] == ["LOCATION", "KERNEL", "FACTORY", "TARGET", "MODE"]
    assert any(r.startswith("./dev.py:15") and " Developer " in r and "on@5" in r for r in rows)
    assert any(r.startswith("./k.py:13") and "TLA001 TLA002" in r for r in rows)
    assert "4 kernels in 2 files: 1 Developer, 1 Expert, 1 Mixed, 1 unknown." in out


# -- cache --------------------------------------------------------------------------

def test_cache_hits_and_never_goes_stale(proj, capsys, monkeypatch):
    from flake8_tilelang.cli import cache as cache_mod
    from flake8_tilelang.cli import run as run_mod

    calls = []
    real = run_mod.lint_source

    def counting(display, data, settings):
        calls.append(display)
        return real(display, data, settings)

    monkeypatch.setattr(run_mod, "lint_source", counting)
    (proj / "own.py").write_text("import project_helpers\n" + kernel())  # may depend on another file
    argv = ["check", "--output-format", "concise", "."]
    first = run(argv, capsys)[1]
    assert sorted(calls) == ["./k.py", "./own.py"]
    assert (proj / ".flake8_tilelang_cache" / "CACHEDIR.TAG").read_text().startswith(
        "Signature: 8a477f597d28d172789f06886806bc55")
    assert (proj / ".flake8_tilelang_cache" / ".gitignore").exists()
    calls.clear()
    assert run(argv, capsys)[1] == first
    assert calls == ["./own.py"]  # k.py came from the cache; own.py imports a project module
    # other settings: no stale result
    calls.clear()
    assert "TLA001" not in run(argv + ["--extend-ignore", "TLA001"], capsys)[1]
    assert "./k.py" in calls
    # changed content
    calls.clear()
    (proj / "k.py").write_text(kernel("  # noqa: TLA001"))
    assert run(argv, capsys)[1].count("TLA001") == 1 and "./k.py" in calls  # own.py's only
    # a changed checker (any source file of the package) invalidates everything
    calls.clear()
    monkeypatch.setattr(cache_mod, "_TOOL_HASH", "0" * 64)
    run(argv, capsys)
    assert "./k.py" in calls
    assert len([d for d in os.listdir(str(proj / ".flake8_tilelang_cache"))
                if not d.startswith(".") and d != "CACHEDIR.TAG"]) == 1  # older entries removed
    # --no-cache reads nothing
    calls.clear()
    run(argv + ["--no-cache"], capsys)
    assert "./k.py" in calls


def test_main_module_and_console_script():
    import flake8_tilelang.__main__ as entry  # importable, runs nothing on import

    assert entry.main is main

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    assert 'flake8-tilelang = "flake8_tilelang.cli:main"' in text
    # a flat list of one mapping: read it without a YAML library (none is a test dependency)
    hook = {}
    with open(os.path.join(root, ".pre-commit-hooks.yaml"), encoding="utf-8") as f:
        for line in f:
            line = line.split(" #")[0].rstrip() if not line.lstrip().startswith("#") else ""
            if ":" in line:
                key, _, value = line.lstrip("- ").partition(":")
                hook[key.strip()] = value.strip().strip('"')
    assert hook["id"] == "flake8-tilelang" and hook["language"] == "python"
    assert hook["types_or"] == "[python, jupyter]" and hook["require_serial"] == "true"
    assert hook["entry"].startswith("flake8-tilelang check") and "--force-exclude" in hook["entry"]
