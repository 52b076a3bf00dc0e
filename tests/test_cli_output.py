"""Output formats (full, concise, json, json-lines, sarif, github, gitlab,
statistics), the flake8 report plugins, and the proof that the flake8
plugin and the command line report the same diagnostics."""
import json
import os
import subprocess
import sys

import pytest

from flake8_tilelang.output import machine
from flake8_tilelang.registry import all_rules
from flake8_tilelang.settings import known_rules
from test_cli import LOWER, kernel, run

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A git checkout with kernels in a sub-directory, run from that directory."""
    (tmp_path / ".git").mkdir()
    sub = tmp_path / "src" / "kern"
    sub.mkdir(parents=True)
    (sub / "k.py").write_text(kernel())
    (sub / "lower.py").write_text(LOWER)
    bad = kernel().replace("T.Kernel(M // block_M, is_npu=True)", "T.Kernel(M // block_M, threads=2, is_npu=True)")
    (sub / "err.py").write_text(bad)
    monkeypatch.chdir(sub)
    return sub


def fmt(argv, capsys, output_format):
    return run(["check", "--no-cache", "--extend-select", "TLA053", "--output-format", output_format]
               + argv, capsys)


# -- text -------------------------------------------------------------------------------

def test_full_shows_source_and_caret(repo, capsys):
    code, out, err = fmt(["k.py"], capsys, "full")
    assert code == 1
    block = out.split("\n\n")[0].splitlines()
    assert block[0].startswith('k.py:16:18: TLA001 [warning] `T.Scope("V")` is ignored')
    assert block[1:] == [
        "   |",
        '16 |             with T.Scope("V"):',
        "   |                  ^^^^^^^^^^^^ TLA001",
        "   |",
        # the advice (with its alternative) is help; the fix line says what the edit does
        "   = help: Remove the `with T.Scope` block, or set TL_ASCEND_AUTO_CV_COMBINE False and "
        "scope every op by hand",
        "   = unsafe fix: Unwrap the `with T.Scope` block (its body stays, dedented)",
    ]
    assert "\033[" not in out  # no colour when not a terminal
    assert err.strip() == ("Found 2 diagnostics (2 warnings) in 1 file of 1 checked.\n"
                           "No fixes available (2 hidden fixes can be enabled with the "
                           "`--unsafe-fixes` option).")


def test_concise_is_flake8s_default_line(repo, capsys):
    _, out, _ = fmt(["k.py"], capsys, "concise")
    first = out.splitlines()[0]
    path, row, col, rest = first.split(":", 3)
    assert (path, row, col) == ("k.py", "16", "18") and rest.startswith(" TLA001 `T.Scope")
    assert run(["check", "--no-cache", "--format", "concise", "k.py"], capsys)[1] == out  # alias


def test_statistics(repo, capsys):
    code, out, err = fmt([], capsys, "concise")
    _, stats, _ = run(["check", "--no-cache", "--extend-select", "TLA053", "--statistics",
                       "--output-format", "concise"], capsys)
    assert code == 1
    rows = [line.split() for line in stats.splitlines()]
    assert rows[0][:4] == ["2", "TLA001", "scope-under-auto-cv-combine", "warning"]  # count, then code
    assert {r[1]: int(r[0]) for r in rows} == {"TLA001": 2, "TLA002": 2, "TLA003": 1, "TLA053": 1}
    data = json.loads(run(["check", "--no-cache", "--statistics", "--output-format", "json"], capsys)[1])
    assert data[0] == {"code": "TLA001", "name": "scope-under-auto-cv-combine", "count": 2,
                       "severity": "warning", "fixable": False, "fixable_count": 0}
    # Ruff's fixable column: `[*]` on the codes --fix (here with --unsafe-fixes) fixes, and how many
    _, stats, _ = run(["check", "--no-cache", "--extend-select", "TLA053", "--statistics", "--unsafe-fixes",
                       "--output-format", "concise"], capsys)
    lines = {line.split()[1]: line for line in stats.splitlines()}
    assert lines["TLA001"].split()[:4] == ["2", "TLA001", "[*]", "scope-under-auto-cv-combine"]
    assert lines["TLA053"].split()[2] != "[*]" and lines["TLA053"].split()[2] == "lower-without-pass-context"
    data = json.loads(run(["check", "--no-cache", "--statistics", "--unsafe-fixes", "--output-format", "json"],
                          capsys)[1])
    assert {d["code"]: d["fixable_count"] for d in data if d["fixable"]} == {"TLA001": 2, "TLA002": 2}


def test_summary_goes_to_stderr_for_people_only(repo, capsys):
    for output_format in ("json", "json-lines", "sarif", "github", "gitlab"):
        code, out, err = fmt([], capsys, output_format)
        assert code == 1 and err == "", output_format
    assert fmt(["-q"], capsys, "full")[2] == ""


def test_output_file(repo, capsys, tmp_path):
    target = tmp_path / "out" / "report.sarif"
    code, out, _ = run(["check", "--no-cache", "--output-format", "sarif", "-o", str(target)], capsys)
    assert code == 1 and out == ""
    assert json.loads(target.read_text())["version"] == "2.1.0"


# -- json -------------------------------------------------------------------------------

JSON_KEYS = {"cell", "code", "end_location", "filename", "fix", "help", "location", "message", "noqa_row",
             "severity", "url"}


def test_json_follows_ruffs_schema(repo, capsys):
    (repo / "cont.py").write_text(kernel().replace(
        "                T.barrier_all()\n", "                T.barrier_all(); y = \\\n                    1\n"))
    _, out, _ = fmt([], capsys, "json")
    data = json.loads(out)
    assert all(set(d) == JSON_KEYS for d in data)
    first = [d for d in data if d["filename"].endswith("k.py")][0]
    dedent = [{"content": "", "location": {"row": n, "column": 13}, "end_location": {"row": n, "column": 17}}
              for n in range(17, 21)]
    assert first == {
        "cell": None, "code": "TLA001", "url": None, "severity": "warning",
        "fix": {
            "applicability": "unsafe",
            "message": "Unwrap the `with T.Scope` block (its body stays, dedented)",
            # the header line goes, the body moves 4 columns left (columns 13-16 of each line)
            "edits": [{"content": "", "location": {"row": 16, "column": 1},
                       "end_location": {"row": 17, "column": 1}}] + dedent,
        },
        "filename": str(repo / "k.py"),
        "location": {"row": 16, "column": 18},
        "end_location": {"row": 16, "column": 30},
        "message": first["message"], "noqa_row": 16,
        # the advice names the alternative; the fix's message says what its edits do
        "help": "Remove the `with T.Scope` block, or set TL_ASCEND_AUTO_CV_COMBINE False and scope "
                "every op by hand",
    }
    assert "remove" not in first["message"].lower()  # the advice is not repeated in the message
    sev = {d["code"]: d["severity"] for d in data}
    assert sev == {"TLA001": "warning", "TLA002": "warning", "TLA003": "error", "TLA053": "info"}
    cont = [d for d in data if d["filename"].endswith("cont.py") and d["code"] == "TLA002"][0]
    assert cont["location"]["row"] == 18 and cont["noqa_row"] == 19  # the backslash continues it
    lines = fmt([], capsys, "json-lines")[1].splitlines()
    assert [json.loads(line) for line in lines] == data


# -- sarif ------------------------------------------------------------------------------

LEVELS = {"none", "note", "warning", "error"}
SARIF_SUBSET = {
    "type": "object",
    "required": ["version", "runs", "$schema"],
    "properties": {
        "version": {"const": "2.1.0"},
        "runs": {"type": "array", "minItems": 1, "maxItems": 20, "items": {
            "type": "object", "required": ["tool", "results"],
            "properties": {
                "tool": {"type": "object", "required": ["driver"], "properties": {"driver": {
                    "type": "object", "required": ["name", "rules"],
                    "properties": {
                        "name": {"type": "string", "minLength": 1},
                        "rules": {"type": "array", "maxItems": 25000, "items": {"$ref": "#/definitions/rule"}},
                    }}}},
                "results": {"type": "array", "maxItems": 25000, "items": {"$ref": "#/definitions/result"}},
            }}},
    },
    "definitions": {
        "message": {"type": "object", "required": ["text"], "properties": {"text": {"type": "string", "minLength": 1}}},
        "rule": {
            "type": "object",
            "required": ["id", "name", "shortDescription", "fullDescription", "help", "defaultConfiguration"],
            "properties": {
                "id": {"type": "string", "pattern": "^[A-Z]+[0-9]+$"},
                "shortDescription": {"$ref": "#/definitions/message"},
                "fullDescription": {"$ref": "#/definitions/message"},
                "help": {"type": "object", "required": ["text", "markdown"]},
                "defaultConfiguration": {"type": "object", "required": ["level"],
                                         "properties": {"level": {"enum": sorted(LEVELS)}}},
                "properties": {"type": "object", "properties": {
                    "tags": {"type": "array", "maxItems": 20, "items": {"type": "string"}}}},
            },
        },
        "result": {
            "type": "object",
            "required": ["ruleId", "ruleIndex", "level", "message", "locations"],
            "properties": {
                "level": {"enum": sorted(LEVELS)},
                "ruleIndex": {"type": "integer", "minimum": 0},
                "message": {"$ref": "#/definitions/message"},
                "locations": {"type": "array", "minItems": 1, "items": {
                    "type": "object", "required": ["physicalLocation"],
                    "properties": {"physicalLocation": {
                        "type": "object", "required": ["artifactLocation", "region"],
                        "properties": {
                            "artifactLocation": {"type": "object", "required": ["uri"], "properties": {
                                "uri": {"type": "string", "pattern": "^[^/\\\\:][^\\\\:]*$"}}},
                            "region": {"type": "object", "required": ["startLine"], "properties": {
                                "startLine": {"type": "integer", "minimum": 1},
                                "startColumn": {"type": "integer", "minimum": 1},
                                "endLine": {"type": "integer", "minimum": 1},
                                "endColumn": {"type": "integer", "minimum": 1}}},
                        }}},
                }},
            },
        },
    },
}


def validate_sarif(doc):
    """What GitHub code scanning requires of a SARIF upload (see
    docs/ecosystem.md section 3), checked by hand and, when jsonschema is
    installed, against the schema subset above."""
    try:
        import jsonschema
    except ImportError:
        jsonschema = None
    if jsonschema is not None:
        jsonschema.Draft7Validator(SARIF_SUBSET).validate(doc)
    assert doc["version"] == "2.1.0" and "sarif" in doc["$schema"]
    for run_ in doc["runs"]:
        rules = run_["tool"]["driver"]["rules"]
        ids = [r["id"] for r in rules]
        assert len(ids) == len(set(ids))
        for result in run_["results"]:
            rule = rules[result["ruleIndex"]]
            assert rule["id"] == result["ruleId"]
            assert result["level"] in LEVELS and result["message"]["text"]
            loc = result["locations"][0]["physicalLocation"]
            uri = loc["artifactLocation"]["uri"]
            assert "\\" not in uri and not uri.startswith(("/", "file:")) and ".." not in uri.split("/")
            region = loc["region"]
            assert region["startLine"] >= 1 and region.get("startColumn", 1) >= 1
            if region.get("endLine") == region["startLine"] and "endColumn" in region:
                assert region["endColumn"] > region["startColumn"]


def test_sarif_for_github_code_scanning(repo, capsys):
    code, out, _ = fmt([], capsys, "sarif")
    assert code == 1
    doc = json.loads(out)
    validate_sarif(doc)
    run_ = doc["runs"][0]
    driver = run_["tool"]["driver"]
    assert driver["name"] == "flake8-tilelang" and driver["version"]
    rules = {r["id"]: r for r in driver["rules"]}
    assert set(rules) == {r.code for r in known_rules()}  # the full table, not just what fired
    for rule in all_rules():
        entry = rules[rule.code]
        assert entry["name"] == rule.name
        assert entry["help"]["markdown"] == rule.docs()
        assert entry["shortDescription"]["text"] == rule.summary.strip()
        assert entry["defaultConfiguration"]["level"] == {"error": "error", "warning": "warning",
                                                           "info": "note"}[rule.severity]
    results = run_["results"]
    assert {r["artifactLocation"]["uri"] for r in (x["locations"][0]["physicalLocation"] for x in results)} \
        == {"src/kern/err.py", "src/kern/k.py", "src/kern/lower.py"}  # relative to the repository
    levels = {r["ruleId"]: r["level"] for r in results}
    assert levels == {"TLA001": "warning", "TLA002": "warning", "TLA003": "error", "TLA053": "note"}
    first = [r for r in results if r["ruleId"] == "TLA001"][0]
    assert first["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 16, "startColumn": 18, "endLine": 16, "endColumn": 30}
    assert run_["originalUriBaseIds"]["%SRCROOT%"]["uri"].startswith("file:///")


# -- github -----------------------------------------------------------------------------

def test_github_escaping():
    assert machine.escape_data("100% done\r\nnext") == "100%25 done%0D%0Anext"
    assert machine.escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    assert machine.escape_data("a:b,c") == "a:b,c"  # only properties escape : and ,


def test_github_annotations(repo, capsys, tmp_path):
    odd = repo / "we,ird:100%.py"
    odd.write_text(kernel())
    code, out, err = fmt([str(odd.name), "k.py", "lower.py", "err.py"], capsys, "github")
    lines = out.splitlines()
    assert code == 1 and err == ""
    assert lines[0].startswith("::error file=src/kern/err.py,line=14,col=14,")  # sorted by path
    k_line = next(line for line in lines if "file=src/kern/k.py,line=16," in line)
    assert k_line.startswith(
        "::warning file=src/kern/k.py,line=16,col=18,endLine=16,endColumn=30,"
        "title=flake8-tilelang (TLA001)::src/kern/k.py:16:18: TLA001 `T.Scope(\"V\")` is ignored")
    odd_lines = [line for line in lines if "we%2Cird%3A100%25.py" in line]
    assert odd_lines and odd_lines[0].startswith("::warning file=src/kern/we%2Cird%3A100%25.py,line=16,")
    assert "::src/kern/we,ird:100%25.py:16:18: TLA001" in odd_lines[0]  # data: only %, CR, LF
    assert any(line.startswith("::notice file=src/kern/lower.py,line=15,") for line in lines)
    assert lines[-1] == ("flake8-tilelang: 8 diagnostics: 1 error, 6 warnings, 1 notice "
                         "(4 files checked).")


def test_github_message_newlines_and_summary_over_ten(repo):
    class F:
        path, line, char_col, end_line, char_end_col = "a.py", 3, 2, 3, 5
        code, severity, message = "TLA002", "warning", "line one\nline two: 50%, done"

    text = machine.to_github([F()] * 11, lambda p: p, files=1)
    first, *_, last = text.splitlines()
    assert first == ("::warning file=a.py,line=3,col=2,endLine=3,endColumn=5,title=flake8-tilelang "
                     "(TLA002)::a.py:3:2: TLA002 line one%0Aline two: 50%25, done")
    assert "11 diagnostics: 11 warnings" in last and "only the first 10" in last


# -- gitlab -----------------------------------------------------------------------------

def test_gitlab_code_quality(repo, capsys):
    _, out, _ = fmt([], capsys, "gitlab")
    data = json.loads(out)
    assert all(set(d) == {"check_name", "description", "fingerprint", "severity", "location"} for d in data)
    assert {d["check_name"]: d["severity"] for d in data} == {
        "TLA001": "minor", "TLA002": "minor", "TLA003": "major", "TLA053": "info"}
    assert len({d["fingerprint"] for d in data}) == len(data)
    assert data[0]["location"]["path"].startswith("src/kern/")
    assert isinstance(data[0]["location"]["lines"]["begin"], int)
    # fingerprints survive unrelated lines moving
    before = {d["fingerprint"] for d in data if d["location"]["path"].endswith("k.py")}
    (repo / "k.py").write_text("# a new comment on top\n" + kernel())
    after = {d["fingerprint"] for d in json.loads(fmt([], capsys, "gitlab")[1])
             if d["location"]["path"].endswith("k.py")}
    assert before == after


# -- the flake8 report plugins ----------------------------------------------------

def test_flake8_report_plugins(repo, tmp_path, capsys):
    from flake8.main.cli import main as flake8_main

    sarif = tmp_path / "f.sarif"
    code = flake8_main(["--isolated", "--select=TLA", "--format=tla-sarif", "--output-file", str(sarif), "."])
    assert code == 1
    doc = json.loads(sarif.read_text())
    validate_sarif(doc)
    results = doc["runs"][0]["results"]
    assert sorted((r["ruleId"], r["level"]) for r in results) == [
        ("TLA001", "warning"), ("TLA001", "warning"), ("TLA002", "warning"), ("TLA002", "warning"),
        ("TLA003", "error")]
    assert results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].startswith("src/kern/")

    gh = tmp_path / "gh.txt"
    code = flake8_main(["--isolated", "--select=TLA", "--format=tla-github", "--output-file", str(gh), "k.py"])
    lines = gh.read_text().splitlines()
    assert lines[0].startswith("::warning file=src/kern/k.py,line=16,col=18,")
    assert lines[0].endswith("title=flake8-tilelang (TLA001)::src/kern/k.py:16:18: TLA001 " + lines[0].split(
        " TLA001 ", 1)[1])
    assert lines[-1] == "flake8-tilelang: 2 diagnostics: 2 warnings."
    capsys.readouterr()


# -- plugin and command line agree -----------------------------------------------

NOQA_CASES = {
    "n_specific.py": kernel("  # noqa: TLA001", "  # noqa:TLA002"),
    "n_prefix.py": kernel("  # noqa: TLA00", ""),
    "n_blanket.py": kernel("  # noqa", "  # NoQA"),
    "n_other.py": kernel("  # noqa: E501", "  # noqa: TLA001"),
    "n_lower.py": kernel("  # noqa: tla001", "  # noqa: Tla002"),
    "n_space.py": kernel("  # noqa : TLA001", "  # noqa:  TLA002"),
    "n_digits.py": kernel("  # noqa: TLA", "  # noqa:TLA-002"),
    "n_nocolon.py": kernel("  # noqa TLA001", "  #noqa: TLA002"),
    "n_tail.py": kernel("  # noqa: TLA001, TLA-2", "  # noqa: TLA0021"),
    "n_backslash.py": kernel().replace(
        "                T.barrier_all()\n", "                T.barrier_all(); y = \\\n                    1  # noqa: TLA002\n"),
    "n_string.py": kernel().replace(
        "                T.barrier_all()\n", "                T.barrier_all(); y = '''\n                '''  # noqa: TLA002\n"),
    "n_brackets.py": kernel().replace(
        "                T.barrier_all()\n", "                T.barrier_all(); y = (\n                    1)  # noqa: TLA002\n"),
    # a backslash joins a comment-only line, or a line of another statement, to the sync's token run
    "n_backslash_comment.py": kernel().replace(
        "                T.barrier_all()\n", "                T.barrier_all()  \\\n                    # noqa: TLA002\n"),
    "n_backslash_next_stmt.py": kernel().replace(
        "                T.barrier_all()\n", "                T.barrier_all() \\\n                ; z = 3  # noqa:TLA002\n"),
    "n_directive_case.py": "# FLAKE8-TILELANG: NOQA: TLA002\n" + kernel(),
    "n_file.py": "# flake8: noqa\n" + kernel(),
    "n_file_codes.py": "# flake8: noqa: TLA001\n" + kernel(),
    "n_file_code_line.py": "x = 1  # flake8: noqa\n" + kernel(),
}


def test_plugin_and_cli_report_the_same(tmp_path, capsys, monkeypatch, fixtures_dir):
    cases = tmp_path / "noqa_cases"
    cases.mkdir()
    for name, text in NOQA_CASES.items():
        (cases / name).write_text(text)
    opt_in = [r.code for r in all_rules() if not r.default_enabled and r.check is not None]  # not the CLI-only TLA096
    env = dict(os.environ)
    env.pop("FLAKE8_TILELANG_STRICT", None)  # the plugin as users run it
    # Every fixture under the default selection; the opt-in rules' own
    # fixtures (and the noqa cases) with the opt-in codes selected too.
    opt_in_dirs = [os.path.join("fixtures", "rules", c) for c in opt_in
                   if os.path.isdir(os.path.join(ROOT, "fixtures", "rules", c))]
    runs = ((["--select=TLA"], ["fixtures", str(cases)]),
            (["--select=TLA," + ",".join(opt_in)], opt_in_dirs + [str(cases)]))
    # the `src` setting the CLI reads from fixtures/crossmod/src_roots/pyproject.toml, given to flake8
    src = ["--tilelang-src", os.path.join("fixtures", "crossmod", "src_roots", "python")]
    procs = [subprocess.Popen([sys.executable, "-m", "flake8", "--isolated"] + src + sel + paths,
                              cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for sel, paths in runs]
    monkeypatch.chdir(ROOT)
    outputs = []
    for (sel, paths), proc in zip(runs, procs):
        flake8_out, flake8_err = proc.communicate(timeout=300)
        assert "Traceback" not in flake8_err, flake8_err
        # flake8 reads no notebooks (nbQA feeds it their cells): leave fixtures/notebooks out
        code, out, _ = run(["check", "--no-cache", "--output-format", "concise", "--extend-ignore", "TLA095",
                            "--extend-exclude", "*.ipynb"] + sel + paths, capsys)
        # the same lines, but flake8 cannot fix: its marker names the command that does
        from flake8_tilelang.diagnostic import CLI_MARKERS, FLAKE8_MARKERS

        assert flake8_out.count(FLAKE8_MARKERS["unsafe"]) == out.count(CLI_MARKERS["unsafe"]) > 0
        for kind in ("safe", "unsafe"):
            flake8_out = flake8_out.replace(FLAKE8_MARKERS[kind] + "\n", CLI_MARKERS[kind] + "\n")
        assert out == flake8_out
        assert code == proc.returncode == 1
        assert str(cases) in out
        outputs.append(out)
    assert outputs[0].count("\n") > 100
    fired = {line.split()[1] for line in outputs[1].splitlines()}
    assert fired & set(opt_in) or not opt_in_dirs
