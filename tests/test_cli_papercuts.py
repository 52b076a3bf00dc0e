"""Issue #21 points 10-12: fix titles say what their edit does and every
count of a fix run adds up; one source for severities (the registry) and
flake8's own wording under flake8; `check --watch`, `--no-fix` /
`--no-unsafe-fixes`, the `--statistics` fixable column, `kernels` within the
terminal's width, a command's own usage on a usage error."""
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import pytest

from flake8_tilelang.cli import main
from flake8_tilelang.registry import all_rules

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASE = ["check", "--no-cache", "--isolated", "--extend-select", "TLA0,TLA1,TLA096", "--output-format", "concise"]


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def leaf_folders():
    """Every folder of fixture kernels (a cross-module project as a whole)."""
    out = set()
    for path in glob.glob(os.path.join(ROOT, "fixtures", "**", "*.py"), recursive=True) + \
            glob.glob(os.path.join(ROOT, "tests", "fixes", "**", "*.py"), recursive=True):
        rel = os.path.relpath(os.path.dirname(path), ROOT)
        parts = rel.split(os.sep)
        if parts[:2] == ["fixtures", "crossmod"]:
            rel = os.sep.join(parts[:3])
        out.add(rel)
    return sorted(out)


def _copy(folder, tmp_path):
    dst = tmp_path / "p"
    shutil.copytree(os.path.join(ROOT, folder), dst,
                    ignore=shutil.ignore_patterns("*.fixed", "*.migrated", "__pycache__"))
    return dst


def _int(pattern, text, default=0):
    m = re.search(pattern, text)
    return int(m.group(1)) if m else default


def _found(err):
    """(total, fixed, resolved, remaining, new) from `check --fix`'s summary, or None."""
    m = re.search(r"Found (\d+) diagnostics? \((\d+) fixed, (?:(\d+) resolved by the fixes, )?(\d+) remaining\)",
                  err)
    if m is None:
        return None
    return (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0), int(m.group(4)),
            _int(r"has (\d+) new diagnostic", err))


# -- point 10: the counts add up ------------------------------------------------------

@pytest.mark.parametrize("folder", leaf_folders())
def test_fix_counts_add_up(folder, tmp_path, capsys, monkeypatch):
    """check's findings and "[*] N fixable", --diff's "Would fix", --fix's
    "Found N (M fixed, K remaining)", --show-fixes and --statistics agree,
    with and without --unsafe-fixes."""
    for unsafe in ([], ["--unsafe-fixes"]):
        work = _copy(folder, tmp_path / ("u" if unsafe else "s"))
        monkeypatch.chdir(work)
        _, out, err = run(BASE + unsafe + ["."], capsys)
        total = len(out.splitlines())
        fixable = _int(r"\[\*\] (\d+) fixable", err)
        hidden = _int(r"(\d+) hidden fix", err)
        _, stats, _ = run(BASE + unsafe + ["--statistics", "."], capsys)
        rows = json.loads(run(BASE[:-1] + ["json"] + unsafe + ["--statistics", "."], capsys)[1])
        assert sum(int(line.split()[0]) for line in stats.splitlines()) == total == sum(r["count"] for r in rows)
        assert sum(r["fixable_count"] for r in rows) == fixable
        assert sum(1 for line in stats.splitlines() if line.split()[2] == "[*]") == sum(
            1 for r in rows if r["fixable"])
        _, diff, err = run(BASE + unsafe + ["--diff", "--show-fixes", "."], capsys)
        would = _int(r"Would fix (\d+) diagnostic", err)
        assert would == _int(r"Would fix (\d+) diagnostics?:", err)  # --show-fixes' header
        assert would == fixable, err  # every fix check counted, and only those
        assert bool(diff) == bool(would)
        _, out, err = run(BASE + unsafe + ["--fix", "--show-fixes", "."], capsys)
        found = _found(err)
        if not fixable:
            assert found is None and len(out.splitlines()) == total
            continue
        n, fixed, resolved, remaining, new = found
        assert n == total, err  # the findings check reported, each counted once
        assert n == fixed + resolved + remaining
        assert fixed == would == fixable
        shown = [line for line in out.splitlines() if re.match(r"^\S+:\d+:\d+: ", line)]
        assert len(shown) == remaining + new, (err, out)
        assert _int(r"Fixed (\d+) diagnostics?:", out) == fixed  # --show-fixes
        if not unsafe:
            assert hidden >= 0


def test_fixable_with_unsafe_is_safe_plus_hidden(tmp_path, capsys, monkeypatch):
    work = _copy(os.path.join("tests", "fixes", "TLA095"), tmp_path)
    monkeypatch.chdir(work)
    err = run(BASE + ["."], capsys)[2]
    safe, hidden = _int(r"\[\*\] (\d+) fixable", err), _int(r"(\d+) hidden fix", err)
    assert safe and hidden
    assert _int(r"\[\*\] (\d+) fixable", run(BASE + ["--unsafe-fixes", "."], capsys)[2]) == safe + hidden


def test_a_fix_that_removes_another_finding_is_counted_as_resolved(tmp_path, capsys, monkeypatch):
    """TLA005's fix removes the inert key TLA004 reports: 3 found, 2 fixed,
    1 resolved by the fixes, 0 remaining (not "Found 2")."""
    work = _copy(os.path.join("fixtures", "rules", "TLA005"), tmp_path)
    monkeypatch.chdir(work)
    name = "firing_combine_off_warning.py"
    _, out, err = run(BASE + [name], capsys)
    assert len(out.splitlines()) == 3
    _, out, err = run(BASE + ["--fix", name], capsys)
    assert "Found 3 diagnostics (2 fixed, 1 resolved by the fixes, 0 remaining)." in err


# -- point 10: fix titles say what the edit does ------------------------------------------

def _all_fixes(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    data = json.loads(run(BASE[:-1] + ["json", "fixtures", os.path.join("tests", "fixes")], capsys)[1])
    return [d for d in data if d["fix"] and d["fix"]["edits"]]


def test_fix_titles_name_one_edit_and_help_keeps_the_alternatives(tmp_path, capsys, monkeypatch):
    found = _all_fixes(tmp_path, capsys, monkeypatch)
    codes = {d["code"] for d in found}
    assert {"TLA001", "TLA002", "TLA003", "TLA005", "TLA030", "TLA050", "TLA052", "TLA095"} <= codes
    for d in found:
        title, edits = d["fix"]["message"], d["fix"]["edits"]
        # one edit, no menu: "X, or Y" belongs to help
        assert not re.search(r",? or ", title), (d["code"], title)
        inserted = "".join(e["content"] for e in edits)
        verb = title.split()[0]
        if title.endswith("from the `noqa`"):  # TLA096 rewrites the comment without those codes
            removed = title[len("Remove "):-len(" from the `noqa`")].split(", ")
            assert not any(code in inserted for code in removed), (title, inserted)
        elif verb in ("Remove", "Delete", "Unwrap"):
            # only deletions, re-indentation, a `pass` for an emptied block and a
            # trailing comment kept on its own line
            kept = [line for line in inserted.splitlines() if line.strip() not in ("", "pass")
                    and not line.strip().startswith("#")]
            assert not kept, (d["code"], title, inserted)
        elif verb in ("Use", "Write"):
            # what the title quotes (`T.Scope("C")` -> "C" too) is what the edit writes
            words = re.findall(r"`([^`]+)`", title) + re.findall(r'"[^"]*"', title)
            # `as cid` writes cid; `PassConfigKey.X` renames the attribute to X
            words = (words or [title.split(None, 1)[1]]) + [w.split()[-1].split(".")[-1] for w in words]
            bare = inserted.replace("'", '"')  # the edit keeps the source's quote style
            assert any(w in inserted or w.replace("'", '"') in bare for w in words), (d["code"], title, inserted)
        else:
            pytest.fail("fix title with an unknown verb: %s %r" % (d["code"], title))
    by_code = {d["code"]: d for d in found}
    # the alternative the old titles carried is still said, as help
    assert "or set TL_ASCEND_AUTO_CV_COMBINE False" in by_code["TLA001"]["help"]
    assert by_code["TLA001"]["fix"]["message"].startswith("Unwrap the `with T.Scope` block")
    assert "or set TL_ASCEND_AUTO_SYNC False" in by_code["TLA002"]["help"]
    assert by_code["TLA002"]["fix"]["message"].startswith("Delete the hand-written `T.")


def test_full_output_shows_help_and_the_fix_line(tmp_path, capsys, monkeypatch):
    work = _copy(os.path.join("fixtures", "example"), tmp_path)
    monkeypatch.chdir(work)
    out = run(["check", "--no-cache", "--isolated", "."], capsys)[1]
    block = [b for b in out.split("\n\n") if b.strip() and " TLA002 " in b.splitlines()[0]][0].splitlines()
    assert block[-2:] == [
        "   = help: Delete it, or set TL_ASCEND_AUTO_SYNC False to keep the hand-written protocol",
        "   = unsafe fix: Delete the hand-written `T.barrier_all`"]


# -- point 11: severities ------------------------------------------------------------

def test_every_reported_severity_is_declared_in_the_registry(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    data = json.loads(run(BASE[:-1] + ["json", "--extend-select", "TLA009", "fixtures"], capsys)[1])
    rules = {r["code"]: r for r in json.loads(run(["rules", "--output-format", "json"], capsys)[1])}
    seen = {}
    for d in data:
        assert d["severity"] in rules[d["code"]]["severities"], d
        seen.setdefault(d["code"], set()).add(d["severity"])
    # the two-tier rules really report both, and `rules` says so
    assert seen["TLA005"] == {"error", "warning"} and seen["TLA001"] == {"error", "warning"}
    assert rules["TLA005"]["severity"] == "error" and rules["TLA005"]["severities"] == ["error", "warning"]
    assert rules["TLA005"]["tiers"][0]["when"].startswith("when TL_ASCEND_AUTO_CV_COMBINE is off")
    text = run(["rules"], capsys)[1]
    assert re.search(r"^TLA005\s+\S+\s+error/warning\s", text, re.M)
    assert "TLA005 is error (warning when TL_ASCEND_AUTO_CV_COMBINE is off" in text
    assert "Severity: error (warning when TL_ASCEND_AUTO_CV_COMBINE is off" in run(["rule", "TLA005"], capsys)[1]


def test_a_rule_cannot_report_an_undeclared_severity():
    import ast

    from flake8_tilelang.diagnostic import report
    from flake8_tilelang.registry import WARNING, Rule

    def check(model):
        yield report((1, 0), "x", severity=WARNING)

    meta = dict(code="TLA999", name="x", confidence="high", summary="", what="", why="", fix="",
                known_false_positives="", references="", check=check)
    with pytest.raises(ValueError, match="not declared in the registry"):
        Rule(severity="error", **meta).run(ast.parse(""))
    assert Rule(severity="error", tiers=(("warning", "when x"),), **meta).run(ast.parse(""))[0].severity == WARNING


def test_flake8_tier_tag_matches_the_registry_and_the_json(capsys, monkeypatch):
    from flake8_tilelang.plugin import Plugin

    path = os.path.join(ROOT, "fixtures", "rules", "TLA005", "firing_combine_off_warning.py")
    with open(path) as f:
        lines = f.readlines()
    import ast

    flake8 = {(line, text.split()[0]): text for line, _, text, _ in Plugin(ast.parse("".join(lines)), lines,
                                                                           path).run()}
    monkeypatch.chdir(ROOT)
    data = json.loads(run(BASE[:-1] + ["json", path], capsys)[1])
    registry = {r.code: r for r in all_rules()}
    for d in data:
        text = flake8[(d["location"]["row"], d["code"])]
        tag = re.match(r"TLA\d+ \[(\w+)\] ", text)
        assert (tag.group(1) if tag else registry[d["code"]].severity) == d["severity"]
        assert d["severity"] in registry[d["code"]].severities
    full = run(["check", "--no-cache", "--isolated", path], capsys)[1]
    assert full.count("TLA005 [warning]") == 2 and full.count("TLA004 [error]") == 1


def test_flake8_output_points_at_the_command_that_fixes_and_flake8s_own_flags(tmp_path):
    env = dict(os.environ)
    env.pop("FLAKE8_TILELANG_STRICT", None)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    (tmp_path / ".git").mkdir()
    shutil.copytree(os.path.join(ROOT, "fixtures", "example"), tmp_path / "k")
    proc = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select=TLA", "k"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=300)
    assert "[*unsafe] fixable: flake8-tilelang check --fix --unsafe-fixes" in proc.stdout
    assert not re.search(r"\[\*(unsafe)?\]$", proc.stdout, re.M)  # never a bare marker under flake8
    # more than 10 annotations of one type: the summary names flake8's SARIF flag, not ours
    shutil.copytree(os.path.join(ROOT, "fixtures", "kernels"), tmp_path / "many")
    proc = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select=TLA", "--format=tla-github",
                           "many"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    summary = proc.stdout.strip().splitlines()[-1]
    assert "GitHub shows only the first 10" in summary, summary
    assert "--format=tla-sarif" in summary and "--output-format" not in summary


# -- point 12: --no-fix, --statistics, kernels width, usage errors ------------------------------

def test_no_fix_and_no_unsafe_fixes_are_documented_and_beat_the_config(tmp_path, capsys, monkeypatch):
    code, out, _ = run(["check", "--help"], capsys)
    assert code == 0
    for flag in ("--no-fix", "--no-unsafe-fixes", "--no-show-fixes", "--watch"):
        assert re.search(r"^\s+(-w, )?%s\s+\S" % flag, out, re.M), flag
    work = _copy(os.path.join("fixtures", "example"), tmp_path)
    (work / "pyproject.toml").write_text("[tool.flake8-tilelang]\nfix = true\nunsafe-fixes = true\n")
    before = (work / "quickstart_gemm_exp.py").read_bytes()
    monkeypatch.chdir(work)
    code, out, err = run(["check", "--no-cache", "--no-fix", "."], capsys)
    assert code == 1 and (work / "quickstart_gemm_exp.py").read_bytes() == before
    assert "[*] 3 fixable with the `--fix --unsafe-fixes` option." in err
    code, out, err = run(["check", "--no-cache", "--no-unsafe-fixes", "."], capsys)
    assert (work / "quickstart_gemm_exp.py").read_bytes() == before  # its fixes are all unsafe
    assert "3 hidden fixes can be enabled" in err
    run(["check", "--no-cache", "."], capsys)
    assert (work / "quickstart_gemm_exp.py").read_bytes() != before  # the config's fix = true


@pytest.mark.parametrize("argv,command", [
    (["check", "--bogus"], "check"),
    (["kernels", "--fix", "."], "kernels"),
    (["rules", "--all"], "rules"),
    (["migrate", "--watch"], "migrate"),
])
def test_usage_error_prints_the_commands_usage(argv, command, capsys):
    code, out, err = run(argv, capsys)
    assert code == 2 and not out
    assert err.startswith("usage: flake8-tilelang %s " % command), err
    assert "flake8-tilelang %s: error: unrecognized arguments: %s" % (command, argv[1]) in err


def _kernels(argv, capsys, monkeypatch, columns):
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", str(columns))
    monkeypatch.chdir(ROOT)
    return run(["kernels", "--isolated"] + argv + ["fixtures/rules/TLA005", "fixtures/kernels"], capsys)[1]


@pytest.mark.parametrize("columns", [70, 100, 160, 240])
def test_kernels_fits_the_terminal(columns, capsys, monkeypatch):
    text = _kernels([], capsys, monkeypatch, columns)
    lines = text.splitlines()
    assert all(len(line) <= columns for line in lines), max(lines, key=len)
    wide = _kernels([], capsys, monkeypatch, None)  # a pipe: every byte of every cell
    full_rows = [line for line in wide.splitlines() if re.match(r"^\S+\.py:\d+\s", line)]
    table = lines[0].startswith("LOCATION")
    if table:  # the columns stay aligned: every row splits like the header
        header = lines[0]
        starts = [m.start() for m in re.finditer(r"\S+", header)]
        for line in lines[1:1 + len(full_rows)]:
            for s in starts[1:]:
                assert line[s - 2:s] == "  ", (line, s)
    else:  # too narrow for the columns: one block per kernel, every field named
        assert sum(1 for line in lines if line.startswith("    KERNEL ")) == len(full_rows)
        assert all(" MODE " in block for block in text.split("\n\n")[:len(full_rows)])
    if table and columns < len(wide.splitlines()[0]):
        assert "\u2026" in text  # something was cut, with an ellipsis
    assert len(wide.splitlines()[1]) > columns or columns >= 240


def test_kernels_json_ignores_the_terminal(capsys, monkeypatch):
    narrow = _kernels(["--output-format", "json"], capsys, monkeypatch, 60)
    assert narrow == _kernels(["--output-format", "json"], capsys, monkeypatch, None)
    assert "\u2026" not in narrow


# -- point 12: --watch ------------------------------------------------------------------------

def _watch_project(tmp_path):
    work = _copy(os.path.join("fixtures", "example"), tmp_path)
    return work, work / "quickstart_gemm_exp.py"


def test_watch_reruns_on_change_add_and_remove(tmp_path, capsys, monkeypatch):
    """The watch loop with an injected clock and sleep: each step changes the
    tree while the loop sleeps; a burst of writes gives one run (debounce)."""
    from flake8_tilelang.cli import _parser
    from flake8_tilelang.cli.watch import watch

    work, kernel = _watch_project(tmp_path)
    monkeypatch.chdir(work)
    args = _parser().parse_args(["check", "--no-cache", "--output-format", "concise", "--watch", "."])
    now = [0.0]
    source = kernel.read_text()

    def stop():
        raise KeyboardInterrupt

    steps = [
        lambda: None,  # poll: nothing changed, no run
        lambda: kernel.write_text(source.replace("T.barrier_all()", "pass")),  # modified
        lambda: None,  # quiet for the debounce: run 2
        lambda: (work / "copy.py").write_text(source),  # added
        lambda: (work / "copy.py").write_text(source + "\n"),  # still being written: the same run
        lambda: None,  # quiet: run 3
        lambda: (work / "copy.py").unlink(),  # removed
        lambda: None,  # quiet: run 4
        lambda: None, lambda: None, stop,  # Ctrl-C
    ]
    reports = []

    def sleep(seconds):
        now[0] += seconds
        steps.pop(0)()

    def run_once(a):
        assert a.watch is False
        code = main(["check", "--no-cache", "--output-format", "concise", "."])
        reports.append(capsys.readouterr().out)
        return code

    # whole seconds: the clock's sums stay exact, one quiet sleep ends a debounce
    assert watch(args, run_once, clock=lambda: now[0], sleep=sleep, poll=1.0, debounce=1.0) == 0
    assert not steps
    count = [len(r.splitlines()) for r in reports]
    assert count == [5, 4, 9, 4]  # one sync deleted; the copy's 5 in one run; the copy gone
    assert "./copy.py:" in reports[2] and "./copy.py:" not in reports[3]
    # max_runs ends the loop too (for callers that embed it)
    assert watch(args, run_once, clock=lambda: now[0], sleep=sleep, max_runs=1) == 0 and len(reports) == 5


def test_watch_sees_a_config_change(tmp_path, capsys, monkeypatch):
    from flake8_tilelang.cli import _parser
    from flake8_tilelang.cli.watch import changes, snapshot

    work, _ = _watch_project(tmp_path)
    monkeypatch.chdir(work)
    args = _parser().parse_args(["check", "--watch", "."])
    before = snapshot(args)
    (work / "pyproject.toml").write_text("[tool.flake8-tilelang]\nextend-ignore = ['TLA003']\n")
    assert changes(before, snapshot(args)) == [str(work / "pyproject.toml")]
    (work / "build").mkdir()
    (work / "build" / "gen.py").write_text("import tilelang\n")  # excluded: not watched
    assert changes(before, snapshot(args)) == [str(work / "pyproject.toml")]


def test_watch_refuses_stdin(capsys):
    code, _, err = run(["check", "--watch", "-"], capsys)
    assert code == 2 and "cannot watch stdin" in err


def test_watch_exits_0_on_ctrl_c(tmp_path):
    work, kernel = _watch_project(tmp_path)
    env = dict(os.environ)
    env.pop("FLAKE8_TILELANG_STRICT", None)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.Popen([sys.executable, "-m", "flake8_tilelang", "check", "--output-format", "concise",
                             "--watch", "."], cwd=work, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        err = ""
        deadline = time.monotonic() + 60
        while "Watching for file changes" not in err and time.monotonic() < deadline:
            err += proc.stderr.readline()
        assert "Watching for file changes" in err
        kernel.write_text(kernel.read_text().replace("T.barrier_all()", "pass"))
        while err.count("Watching for file changes") < 2 and time.monotonic() < deadline:
            err += proc.stderr.readline()
        assert "File change detected" in err
        proc.send_signal(signal.SIGINT)
        out, rest = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, rest
    assert "Traceback" not in rest
    # the first run and the run after the change (with the cache: the default)
    assert out.count("quickstart_gemm_exp.py:") == 5 + 4
