"""Fixes: every before/after pair in tests/fixes byte for byte, the engine
(overlaps, fixed point, a fix that breaks the parse), the command line's
--fix / --unsafe-fixes / --diff / --fix-only / --show-fixes / --add-noqa,
pyproject's fix settings, and the fix in JSON and SARIF.

Regenerate a pair's expected text after a deliberate change with
``python tests/test_fixes.py --update`` and review the diff."""
import argparse
import ast
import glob
import json
import os
import sys

import pytest

from flake8_tilelang.diagnostic import SAFE, UNSAFE, Edit, Fix
from flake8_tilelang.fixes import MAX_ITERATIONS, applicable, fix_file, one_pass
from flake8_tilelang.noqa_add import add_noqa
from flake8_tilelang.pipeline import Finding, lint_source
from flake8_tilelang.settings import build_settings
from flake8_tilelang.source import SourceFile, decode
from test_cli import kernel, run

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAIRS = sorted(glob.glob(os.path.join(ROOT, "tests", "fixes", "*", "*.py")))


def all_codes():
    """Every code, the opt-in ones too (each named: ALL does not enable them)."""
    from flake8_tilelang.settings import known_rules

    codes = ",".join(r.code for r in known_rules() if r.code.startswith("TLA"))
    return build_settings(argparse.Namespace(isolated=True, select=[codes]), cwd=ROOT)


def fixed(path):
    with open(path, "rb") as f:
        data = f.read()
    return data, fix_file(os.path.basename(path), data, all_codes(), unsafe=True)


def test_every_fix_has_a_pair():
    codes = {os.path.basename(os.path.dirname(p)) for p in PAIRS}
    assert codes >= {"TLA001", "TLA002", "TLA003", "TLA005", "TLA030", "TLA032", "TLA033", "TLA050", "TLA051",
                     "TLA052", "TLA095", "TLA096"}
    for path in PAIRS:
        assert os.path.exists(path + ".fixed"), path


@pytest.mark.parametrize("path", PAIRS, ids=lambda p: os.path.relpath(p, os.path.join(ROOT, "tests", "fixes")))
def test_fix_pair(path):
    data, result = fixed(path)
    with open(path + ".fixed", "rb") as f:
        expected = f.read()
    assert result.data == expected
    assert not result.failed
    assert result.iterations < MAX_ITERATIONS
    ast.parse(decode(expected).text)
    # idempotent: the fixed file has nothing left to fix, and the same findings
    again = fix_file(os.path.basename(path), expected, all_codes(), unsafe=True)
    assert again.data == expected and not again.fixed
    assert [f.code for f in again.remaining] == [f.code for f in result.remaining]
    assert not any(applicable(f.fix, True) for f in result.remaining)
    if b"\r\n" in data:
        assert expected.count(b"\n") == expected.count(b"\r\n")  # CRLF kept everywhere


def test_shared_macro_sync_is_reported_without_a_fix():
    path = os.path.join(ROOT, "tests", "fixes", "TLA002", "shared_macro.py")
    data, result = fixed(path)
    left = [f for f in result.remaining if f.code == "TLA002"]
    assert len(left) == 1 and "macro `wait_load`" in left[0].message and left[0].fix is None
    assert left[0].help  # the advice stays


def test_half_of_a_flag_pair_is_never_deleted():
    path = os.path.join(ROOT, "tests", "fixes", "TLA002", "flag_pair.py")
    data, result = fixed(path)
    left = sorted((f.line, f.fix is None) for f in result.remaining if f.code == "TLA002")
    assert left == [(23, True), (24, True)]  # the kernel's set_flag and the macro call
    assert result.data.count(b"T.set_flag(") == 2 and b"T.barrier_all()" not in result.data


def test_unwrapped_scope_keeps_the_string_byte_for_byte():
    path = os.path.join(ROOT, "tests", "fixes", "TLA001", "unwrap_scope.py")
    data, result = fixed(path)
    text = result.data.decode()
    string = '"""\n    kept exactly as written\n        even this line\n"""'
    assert string in data.decode() and string in text
    assert "with T.Scope(\"V\")" not in text and "            # the vector part\n" in text


# -- the engine ---------------------------------------------------------------------

SRC = "import tilelang\nx = 1\ny = 2\n"


def finding(line, col, end_line, end_col, text, applicability=SAFE, code="TLA999"):
    return Finding("f.py", line, col, code, "m", "error", line, col + 1, line, "",
                   None, Fix("t", [Edit((line, col), (end_line, end_col), text)], applicability))


def test_overlapping_fixes_wait_for_the_next_pass_and_unsafe_needs_the_flag():
    source = SourceFile.from_text(SRC)
    a = finding(2, 0, 2, 5, "x = 3")
    b = finding(2, 4, 2, 5, "4")  # inside a: next pass
    c = finding(3, 4, 3, 5, "5", UNSAFE)
    text, done, failed = one_pass(source, [a, b, c], False, set())
    assert text == "import tilelang\nx = 3\ny = 2\n" and done == [a] and not failed
    text, done, _ = one_pass(source, [a, b, c], True, set())
    assert text == "import tilelang\nx = 3\ny = 5\n" and done == [a, c]


def test_a_fix_that_breaks_the_parse_is_not_applied_and_is_reported():
    source = SourceFile.from_text(SRC)
    good = finding(3, 4, 3, 5, "7")
    bad = finding(2, 0, 2, 5, "x = (")
    broken = set()
    text, done, failed = one_pass(source, [bad, good], False, broken)
    assert text == "import tilelang\nx = 1\ny = 7\n" and done == [good]
    assert [f.finding for f in failed] == [bad] and broken
    # never tried again
    assert one_pass(source, [bad], False, broken) == (None, [], [])


def test_a_fix_that_changes_nothing_ends_the_loop():
    source = SourceFile.from_text(SRC)
    assert one_pass(source, [finding(2, 4, 2, 5, "1")], False, set()) == (None, [], [])


def test_identical_edits_of_two_findings_apply_once():
    source = SourceFile.from_text(SRC)
    a, b = finding(2, 4, 2, 5, "9"), finding(2, 4, 2, 5, "9", code="TLA998")
    text, done, _ = one_pass(source, [a, b], False, set())
    assert text == "import tilelang\nx = 9\ny = 2\n" and len(done) == 2


def test_bom_latin1_cookie_and_crlf_survive_a_fix():
    body = kernel().replace("T.barrier_all()", "T.barrier_all()  # caf\u00e9")
    for raw in (b"\xef\xbb\xbf" + body.encode("utf-8"),
                ("# -*- coding: latin-1 -*-\n" + body).replace("\n", "\r\n").encode("latin-1")):
        result = fix_file("k.py", raw, all_codes(), unsafe=True)
        assert result.fixed
        out = result.data
        assert out.startswith(b"\xef\xbb\xbf") == raw.startswith(b"\xef\xbb\xbf")
        if b"\r\n" in raw:
            assert out.count(b"\n") == out.count(b"\r\n")
            assert "# caf\u00e9".encode("latin-1") in out
        else:
            assert "# caf\u00e9".encode("utf-8") in out
        assert "T.barrier_all" not in decode(out).text


def test_unused_noqa_fix_never_removes_codes_of_rules_off_in_this_run():
    source = b"import tilelang\nimport tilelang.language as T\nx = 1  # noqa: TLA001\ny = 2  # noqa: TLA001, TLA002\n"
    settings = build_settings(argparse.Namespace(isolated=True, select=["TLA002,TLA096"]), cwd=ROOT)
    found = lint_source("t.py", source, settings).findings
    assert [(f.line, f.fix is not None) for f in found] == [(3, False), (4, True)]
    assert found[0].help == "Remove it from the comment"  # advice without a fix: the help text
    assert "; remove it from the comment" in found[0].flake8_text()
    result = fix_file("t.py", source, settings, unsafe=False)
    assert result.data == source.replace(b"TLA001, TLA002\n", b"TLA001\n")


# -- the command line ------------------------------------------------------------------

@pytest.fixture
def proj(tmp_path, monkeypatch):
    (tmp_path / "k.py").write_text(kernel())
    (tmp_path / "pyproject.toml").write_text("[tool.flake8-tilelang]\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_fix_applies_only_safe_fixes_without_unsafe_fixes(proj, capsys):
    before = (proj / "k.py").read_bytes()
    code, out, err = run(["check", "--no-cache", "--fix", "k.py"], capsys)
    assert (proj / "k.py").read_bytes() == before  # TLA001/TLA002 fixes are unsafe
    assert code == 1 and "TLA001" in out and "TLA002" in out
    assert "2 hidden fixes can be enabled with the `--unsafe-fixes` option" in err


def test_fix_with_unsafe_fixes_writes_and_reports_what_is_left(proj, capsys):
    code, out, err = run(["check", "--no-cache", "--fix", "--unsafe-fixes", "--show-fixes", "k.py"], capsys)
    text = (proj / "k.py").read_text()
    assert "T.Scope" not in text and "T.barrier_all" not in text
    assert code == 0
    assert "Fixed 2 diagnostics:\n- k.py:\n    1 \u00d7 TLA001 (scope-under-auto-cv-combine)\n" \
           "    1 \u00d7 TLA002 (manual-sync-under-auto-sync)\n" in out
    assert "Found 2 diagnostics (2 fixed, 0 remaining)." in err
    # a second run: nothing left
    code, out, err = run(["check", "--no-cache", "--fix", "--unsafe-fixes", "k.py"], capsys)
    assert code == 0 and out == ""


def test_diff_writes_nothing_and_exits_1_when_there_is_something_to_fix(proj, capsys):
    before = (proj / "k.py").read_bytes()
    code, out, err = run(["check", "--no-cache", "--diff", "--unsafe-fixes", "k.py"], capsys)
    assert code == 1 and (proj / "k.py").read_bytes() == before
    assert out.startswith("--- k.py\n+++ k.py\n@@ ")
    assert '-            with T.Scope("V"):\n' in out and "-                T.barrier_all()\n" in out
    assert "Would fix 2 diagnostics." in err
    code, out, err = run(["check", "--no-cache", "--diff", "k.py"], capsys)  # safe only: nothing
    assert code == 0 and out == ""
    assert "No diagnostics would be fixed (2 additional fixes available with `--unsafe-fixes`)." in err


def test_fix_only_reports_nothing_and_exits_0(proj, capsys):
    code, out, err = run(["check", "--no-cache", "--fix-only", "--unsafe-fixes", "k.py"], capsys)
    assert code == 0 and out == "" and "Fixed 2 diagnostics." in err
    assert "T.barrier_all" not in (proj / "k.py").read_text()


def test_pyproject_fix_and_unsafe_fixes(proj, capsys):
    (proj / "pyproject.toml").write_text("[tool.flake8-tilelang]\nfix = true\nunsafe-fixes = true\n")
    code, _, _ = run(["check", "--no-cache", "k.py"], capsys)
    assert code == 0 and "T.Scope" not in (proj / "k.py").read_text()
    (proj / "k.py").write_text(kernel())
    code, out, _ = run(["check", "--no-cache", "--no-fix", "k.py"], capsys)  # the flag wins
    assert code == 1 and "T.Scope" in (proj / "k.py").read_text()
    (proj / "pyproject.toml").write_text("[tool.flake8-tilelang]\nfix = 1\n")
    code, _, err = run(["check", "--no-cache", "k.py"], capsys)
    assert code == 2 and "fix: expected true or false" in err


def test_nested_pyproject_fix_applies_to_its_own_files(proj, capsys):
    sub = proj / "sub"
    sub.mkdir()
    (sub / "pyproject.toml").write_text("[tool.flake8-tilelang]\nfix = true\nunsafe-fixes = true\n")
    (sub / "k.py").write_text(kernel())
    code, out, err = run(["check", "--no-cache", "--output-format", "concise", "."], capsys)
    assert "T.Scope" not in (sub / "k.py").read_text()  # its own config fixes it
    assert "T.Scope" in (proj / "k.py").read_text()  # the top one does not ask for fixes
    assert code == 1 and {line.split(":")[0] for line in out.splitlines()} == {"./k.py"}


def test_config_shows_the_fix_settings(proj, capsys):
    (proj / "pyproject.toml").write_text("[tool.flake8-tilelang]\nunsafe-fixes = true\n")
    code, out, _ = run(["config"], capsys)
    assert code == 0 and "fix = false\nunsafe-fixes = true\nshow-fixes = false\n" in out
    data = json.loads(run(["config", "--output-format", "json"], capsys)[1])
    assert (data["fix"], data["unsafe-fixes"], data["show-fixes"]) == (False, True, False)


def test_fix_on_stdin_prints_the_fixed_source(proj, capsys, monkeypatch):
    code, out, err = run(["check", "--no-cache", "--fix", "--unsafe-fixes", "--stdin-filename", "k.py", "-"],
                         capsys, stdin=kernel(), monkeypatch=monkeypatch)
    assert "T.barrier_all" not in out and "def main" in out
    assert (proj / "k.py").read_text() == kernel()  # the file on disk is not touched


def test_marks_and_note_without_fix(proj, capsys):
    code, out, err = run(["check", "--no-cache", "--output-format", "concise", "--unsafe-fixes", "k.py"], capsys)
    assert out.count("[*unsafe]") == 2
    assert err.splitlines()[-1] == "[*] 2 fixable with the `--fix --unsafe-fixes` option."


# -- add-noqa ---------------------------------------------------------------------------

def test_add_noqa_then_check_reports_nothing_and_a_second_run_changes_nothing(proj, capsys):
    (proj / "k.py").write_text(kernel().replace("T.barrier_all()", "T.barrier_all()  # noqa: E501"))
    code, out, err = run(["check", "--no-cache", "--add-noqa", "k.py"], capsys)
    assert code == 0 and "Added 2 noqa directives in 1 file." in err
    text = (proj / "k.py").read_text()
    assert 'with T.Scope("V"):  # noqa: TLA001\n' in text
    assert "T.barrier_all()  # noqa: E501, TLA002\n" in text  # merged with the existing comment
    code, out, err = run(["check", "--no-cache", "k.py"], capsys)
    assert code == 0 and out == ""
    run(["check", "--no-cache", "--add-noqa", "k.py"], capsys)
    assert (proj / "k.py").read_text() == text


def test_add_noqa_puts_the_comment_where_flake8_reads_it():
    text = ('import tilelang\nx = f("""\nline\n""", 1)\ny = g(1,\n      2)\nz = h(1)  # why\n'
            'w = k(1)  # noqa: TLA001 - reason\n')
    source = SourceFile.from_text(text.replace("\n", "\r\n"))

    class F:
        def __init__(self, line, code):
            self.line, self.code = line, code

    new, n, skipped = add_noqa(source, [F(2, "TLA001"), F(3, "TLA002"), F(5, "TLA001"), F(7, "TLA003"),
                                        F(8, "TLA002"), F(1, "E999")])
    assert n == 4 and [f.code for f in skipped] == ["E999"]
    assert new == ('import tilelang\nx = f("""\nline\n""", 1)  # noqa: TLA001, TLA002\n'
                   'y = g(1,  # noqa: TLA001\n      2)\nz = h(1)  # why  # noqa: TLA003\n'
                   'w = k(1)  # noqa: TLA001, TLA002 - reason\n')
    assert source.encode(new).count(b"\r\n") == new.count("\n")


# -- machine output -----------------------------------------------------------------------

def test_sarif_carries_fixes(proj, capsys):
    (proj / ".git").mkdir()
    _, out, _ = run(["check", "--no-cache", "--output-format", "sarif", "k.py"], capsys)
    results = json.loads(out)["runs"][0]["results"]
    scope = [r for r in results if r["ruleId"] == "TLA001"][0]
    fix = scope["fixes"][0]
    assert fix["description"]["text"].endswith("(unsafe fix)")
    change = fix["artifactChanges"][0]
    assert change["artifactLocation"] == scope["locations"][0]["physicalLocation"]["artifactLocation"]
    assert change["replacements"][0] == {
        "deletedRegion": {"startLine": 16, "startColumn": 1, "endLine": 17, "endColumn": 1},
        "insertedContent": {"text": ""}}


def test_flake8_plugin_says_a_fix_exists():
    from flake8_tilelang.plugin import Plugin

    lines = kernel().splitlines(True)
    found = list(Plugin(ast.parse("".join(lines)), lines, "k.py").run())
    # flake8 cannot apply it: the marker says which command does
    assert all(text.endswith("[*unsafe] fixable: flake8-tilelang check --fix --unsafe-fixes")
               for _, _, text, _ in found) and len(found) == 2


def _update():
    for path in PAIRS:
        _, result = fixed(path)
        with open(path + ".fixed", "wb") as f:
            f.write(result.data)
        print("wrote", os.path.relpath(path + ".fixed", ROOT))


if __name__ == "__main__":
    sys.path.insert(0, ROOT)
    if "--update" in sys.argv:
        _update()
