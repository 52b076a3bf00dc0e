"""Jupyter notebooks (flake8_tilelang/notebook.py): one model over the code
cells, IPython lines neutralised, positions as cell and line in every
format, ``# noqa`` / ``--add-noqa`` / ``--fix`` / ``--diff`` inside cells
with every byte outside the edited sources kept, bad notebooks as E902, the
cache, discovery, stdin and the language server."""
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from flake8_tilelang import notebook
from flake8_tilelang.cli import main
from flake8_tilelang.pipeline import Finding, lint_source
from flake8_tilelang.settings import build_settings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOTEBOOKS = os.path.join(ROOT, "fixtures", "notebooks")
GOLDEN = os.path.join(NOTEBOOKS, "check.golden.txt")
EXPECT_RE = re.compile(r"#\s*expect:\s*([A-Z]{3}\d{3}(?:\s*,\s*[A-Z]{3}\d{3})*)")


def fixture(name):
    with open(os.path.join(NOTEBOOKS, name), "rb") as f:
        return f.read()


def settings(**kw):
    import argparse

    return build_settings(argparse.Namespace(**kw), cwd=ROOT)


def run(argv, capsys):
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def copy(tmp_path, name, to=None):
    dest = tmp_path / (to or name)
    shutil.copyfile(os.path.join(NOTEBOOKS, name), dest)
    return dest


# -- the model ---------------------------------------------------------------------

def test_code_cells_are_one_program_with_ipython_lines_neutralised():
    nb = notebook.parse(fixture("combine_scope.ipynb"))
    kinds = [(c.number, c.kind, c.skipped is None) for c in nb.cells]
    assert kinds[0] == (1, "markdown", True) and kinds[-1] == (10, "raw", True)
    assert [c.number for c in nb.code_cells] == [2, 3, 5, 6, 8, 9]  # %%bash (cell 7) is skipped
    assert "not Python" in nb.by_number[7].skipped
    for cell in nb.code_cells:  # the same line count as the cell: positions need no shifting
        assert cell.code.count("\n") == len(cell.text.split("\n")) - (1 if cell.ended else 0)
    imports = nb.by_number[2].code.split("\n")
    assert imports[0].startswith("pass  # flake8-tilelang") and imports[2] == "import tilelang"
    assert nb.by_number[5].code.startswith("pass  # ")  # `!npu-smi info`
    assert nb.by_number[6].code.startswith("pass  # ") and "kernel = vec_exp" in nb.by_number[6].code
    assert nb.by_number[8].code.startswith("pass  # ")  # `vec_exp?`
    assert "raw cells are not code" not in nb.text and "Prototype" not in nb.text
    # the virtual text parses and splits back into exactly the cells
    compile(nb.text, "nb", "exec")
    assert nb.split(nb.text) == {c.number: c.text for c in nb.code_cells}
    assert nb.rebuild(nb.text) == fixture("combine_scope.ipynb")


def test_indented_magics_keep_the_block_and_their_indentation():
    nb = notebook.parse(fixture("magics_and_kernel.ipynb"))
    loop = nb.by_number[3].code.split("\n")
    # `%time stmt` runs the statement (as wide as the magic: its columns stay); a shell line is `pass`
    assert loop[1].startswith("    if 1: vec_add_one(rows, 128, 32)  # flake8-tilelang: IPython line")
    assert loop[2].startswith("    pass  # flake8-tilelang: IPython line")
    compile(nb.text, "nb", "exec")
    # an edit that dedents the loop body keeps the magics, at the new indentation
    edited = nb.text.replace("\n    pass  # flake8-tilelang", "\n  pass  # flake8-tilelang").replace(
        "\n    if 1: ", "\n  if 1: ")
    assert nb.split(edited)[3] == "for rows in (256, 512):\n  %time vec_add_one(rows, 128, 32)\n" \
                                  "  !npu-smi info -t usages\n"


def _notebook(*cells):
    return json.dumps({"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                                  "source": c} for c in cells],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1).encode()


TIMED = _notebook(
    "import tilelang\nimport tilelang.language as T\nDEV = {tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True}",
    "def rows(M):\n    @T.prim_func\n    def main(X: T.Tensor((M, 64), 'float16')):\n"
    "        with T.Kernel(M // 64, is_npu=True) as (cid, vid):\n            x = T.alloc_ub((32, 64), 'float16')\n"
    "            T.copy(X[cid * 64 + vid * 32, 0], x)\n            T.barrier_all()\n"
    "            T.copy(x, X[cid * 64 + vid * 32, 0])\n    return main",
    "%time kernel = tilelang.compile(rows(1024), pass_configs=DEV)\n%timeit -n 3 kernel(x)\n"
    "%time for _ in range(2): kernel(x)\n%time print('#', 'shapes')  # kept: a comment follows")


def test_a_timed_statement_runs_and_writes_back_as_it_was():
    nb = notebook.parse(TIMED)
    timed = nb.by_number[3].code.split("\n")
    assert timed[0].startswith("if 1: kernel = tilelang.compile(rows(1024), pass_configs=DEV)  # flake8-tilelang")
    # `%timeit` runs in a namespace of its own; `if 1:` cannot carry a `for` on its line
    assert timed[1].startswith("pass  # ") and timed[2].startswith("pass  # ")
    assert timed[3].startswith("if 1: print('#', 'shapes')  # kept: a comment follows  # flake8-tilelang: IPython")
    findings = lint_source("t.ipynb", TIMED, settings()).findings
    assert [(f.cell, f.line, f.code) for f in findings] == [(2, 7, "TLA002")]  # compiled behind %time
    # an edit of the statement, and a comment an edit appends after the marker, are written back after `%time`
    edited = nb.text.replace(timed[0], timed[0].replace("rows(1024)", "rows(2048)") + "  # noqa: TLA002")
    assert nb.split(edited)[3].split("\n")[0] == \
        "%time kernel = tilelang.compile(rows(2048), pass_configs=DEV)  # noqa: TLA002"
    assert nb.rebuild(nb.text) == TIMED
    spaced = _notebook("import tilelang\n%time x = 1  \t\n")  # trailing blanks come back as they were
    assert notebook.parse(spaced).split(notebook.parse(spaced).text)[1] == "import tilelang\n%time x = 1  \t\n"


def _line_strategy():
    from hypothesis import strategies as st

    text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"), max_size=12)
    magic = st.sampled_from(["%time x", "%time y = f(x)  ", "!ls -la", "x = !pwd", "obj?", "??obj", "%%time",
                             "%%bash", "%load_ext a"])
    return st.one_of(text, magic, st.sampled_from(["import tilelang", "    pass", "if x:", '"\\u00e9"']))


def test_any_notebook_round_trips_and_an_edit_stays_in_its_cell():
    pytest.importorskip("hypothesis")
    from hypothesis import given, settings as hsettings, strategies as st

    cell = st.tuples(st.sampled_from(["code", "code", "markdown", "raw"]),
                     st.lists(_line_strategy(), max_size=5), st.booleans(), st.booleans())

    @hsettings(max_examples=150, deadline=None)
    @given(st.lists(cell, min_size=1, max_size=5), st.sampled_from([1, 2]), st.booleans(), st.booleans(),
           st.booleans())
    def check(cells, indent, ascii_only, final_newline, crlf):
        doc = {"cells": [], "metadata": {"k": "\u00e9t\u00e9"}, "nbformat": 4, "nbformat_minor": 5}
        for kind, lines, listed, ended in cells:
            text = "\n".join(lines) + ("\n" if ended and lines else "")
            entry = {"cell_type": kind, "metadata": {}, "source": text.splitlines(True) if listed else text}
            if kind == "code":
                entry.update(outputs=[{"output_type": "stream", "name": "stdout", "text": ["\u2192 ok\n"]}],
                             execution_count=1)
            doc["cells"].append(entry)
        raw = json.dumps(doc, indent=indent, ensure_ascii=ascii_only) + ("\n" if final_newline else "")
        if crlf:
            raw = raw.replace("\n", "\r\n")
        data = raw.encode("utf-8")
        nb = notebook.parse(data)
        assert nb.rebuild(nb.text) == data
        if not nb.code_cells:
            return
        target = nb.code_cells[0]
        sep = notebook.SEPARATOR % target.number
        edited = nb.text.replace(sep, "y = 1\n" + sep, 1)
        new = nb.rebuild(edited)
        after = json.loads(new)
        for i, (a, b) in enumerate(zip(doc["cells"], after["cells"]), 1):
            if i != target.number:
                assert a == b
        source = after["cells"][target.number - 1]["source"]
        joined = "".join(source) if isinstance(source, list) else source
        expected = (target.text if target.ended else target.text + "\n") + "y = 1" + (
            "\n" if target.ended else "")
        assert joined == expected
        a, b = target.span
        prefix, suffix = nb.raw[:a].encode("utf-8"), nb.raw[b:].encode("utf-8")
        assert new.startswith(prefix) and new.endswith(suffix)
        if crlf:
            assert new.count(b"\n") == new.count(b"\r\n")

    check()


def test_an_edit_across_cells_is_refused():
    nb = notebook.parse(fixture("combine_scope.ipynb"))
    with pytest.raises(notebook.NotebookError):
        nb.split(nb.text.replace(notebook.SEPARATOR % 3, ""))


def test_every_finding_is_where_the_fixture_says():
    for name in ("combine_scope.ipynb", "magics_and_kernel.ipynb", "clean_near_miss.ipynb"):
        nb = notebook.parse(fixture(name))
        expected = set()
        for cell in nb.code_cells:
            for n, line in enumerate(cell.text.split("\n"), 1):
                m = EXPECT_RE.search(line)
                if m:
                    expected.update((cell.number, n, c.strip()) for c in m.group(1).split(","))
        got = {(f.cell, f.line, f.code) for f in lint_source(name, fixture(name), settings()).findings}
        if name == "combine_scope.ipynb":  # written without markers (it is also the round-trip file)
            expected = {(5, 8, "TLA001"), (5, 7, "TLA101")}
        assert got == expected, name


def test_the_near_miss_is_clean_and_the_noqa_in_a_cell_is_honoured():
    assert lint_source("n.ipynb", fixture("clean_near_miss.ipynb"), settings()).findings == []
    data = fixture("combine_scope.ipynb")
    assert not [f for f in lint_source("n.ipynb", data, settings()).findings if f.cell == 9]
    without = data.replace(b"  # noqa: TLA001 - kept while the combine pass is validated", b"")
    found = [(f.cell, f.line, f.code) for f in lint_source("n.ipynb", without, settings()).findings if f.cell == 9]
    assert found == [(9, 7, "TLA001")]


def test_messages_name_cells_not_lines_of_the_joined_text():
    f = [f for f in lint_source("n.ipynb", fixture("combine_scope.ipynb"), settings()).findings
         if f.code == "TLA001"][0]
    assert "(set at cell 3, line 4)" in f.message  # the config dict's cell
    assert f.source == '            with T.Scope("V"):' and f.noqa_row == 8


def test_a_finding_row_keeps_its_cell_through_the_cache_format():
    f = lint_source("n.ipynb", fixture("combine_scope.ipynb"), settings()).findings[0]
    assert f.cell == 5 and f.raw is not None
    back = Finding.from_row(json.loads(json.dumps(f.to_row())))
    assert back == f
    row = f.to_row()
    row[14] = [1, 2, "x", 4]
    with pytest.raises((TypeError, ValueError)):
        Finding.from_row(row)


# -- the formats -------------------------------------------------------------------

def test_positions_in_every_format(tmp_path, monkeypatch, capsys):
    copy(tmp_path, "combine_scope.ipynb", "nb.ipynb")
    monkeypatch.chdir(tmp_path)
    raw_lines = (tmp_path / "nb.ipynb").read_text(encoding="utf-8").split("\n")
    scope_row = next(i for i, x in enumerate(raw_lines, 1) if 'with T.Scope(\\"V\\"):\\n"' in x)
    scope_col = raw_lines[scope_row - 1].index("T.Scope") + 1
    base = ["check", "--no-cache", "--select", "TLA001", "nb.ipynb", "--output-format"]

    _, out, _ = run(base + ["concise"], capsys)
    assert out.startswith("nb.ipynb:cell 5:8:18: TLA001 ")
    _, out, _ = run(base + ["full"], capsys)
    assert out.startswith("nb.ipynb:cell 5:8:18: TLA001 [warning] ")
    assert '8 |             with T.Scope("V"):' in out
    _, out, _ = run(base + ["json"], capsys)
    (obj,) = json.loads(out)
    assert obj["cell"] == 5 and obj["location"] == {"row": 8, "column": 18}
    assert obj["end_location"] == {"row": 8, "column": 30} and obj["noqa_row"] == 8
    assert obj["fix"]["edits"][0]["location"]["row"] == 8  # edits are cell-relative too
    _, out, _ = run(base + ["json-lines"], capsys)
    assert json.loads(out.splitlines()[0])["cell"] == 5
    _, out, _ = run(base + ["github"], capsys)
    assert out.startswith("::warning file=nb.ipynb,line=%d,col=%d,endLine=%d,endColumn=%d," % (
        scope_row, scope_col, scope_row, scope_col + len('T.Scope(\\"V\\")')))
    assert "::nb.ipynb:cell 5:8:18: TLA001 " in out
    _, out, _ = run(base + ["gitlab"], capsys)
    (issue,) = json.loads(out)
    assert issue["location"]["lines"] == {"begin": scope_row, "end": scope_row}
    assert issue["description"].startswith("TLA001 cell 5, line 8: ")
    _, out, _ = run(base + ["sarif"], capsys)
    (result,) = json.loads(out)["runs"][0]["results"]
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (scope_row, scope_col)
    assert result["message"]["text"].startswith("cell 5, line 8: ")
    assert "fixes" not in result  # cell edits are not edits of the JSON file


def test_golden_output_of_the_fixture_folder(monkeypatch, capsys):
    """``python tests/test_notebooks.py --update`` rewrites the golden file."""
    monkeypatch.chdir(ROOT)
    _, out, err = run(["check", "--no-cache", "--output-format", "concise", "fixtures/notebooks"], capsys)
    with open(GOLDEN, encoding="utf-8") as f:
        assert out == f.read()
    assert "files of 7 checked" in err


# -- writing back ------------------------------------------------------------------

@pytest.mark.parametrize("name", ["combine_scope.ipynb", "combine_scope_two_spaces.ipynb"])
def test_fix_changes_only_the_edited_cell_source(tmp_path, monkeypatch, capsys, name):
    path = copy(tmp_path, name)
    before = path.read_bytes()
    monkeypatch.chdir(tmp_path)
    code, out, err = run(["check", "--no-cache", "--fix", "--unsafe-fixes", "--output-format", "concise", name],
                         capsys)
    after = path.read_bytes()
    assert "(1 fixed, 1 remaining)" in err and "cell 5:7:20: TLA101" in out and "cell 6, line 2" in out
    old, new = json.loads(before), json.loads(after)
    assert new["cells"][4]["source"][7] == "            T.copy(A[cid * block_M, 0], a_ub)\n"
    for i, (a, b) in enumerate(zip(old["cells"], new["cells"])):
        assert a == b or i == 4
        assert list(a) == list(b)  # key order
    # byte-identical outside the source value of cell 5
    raw = before.decode("utf-8")
    nb = notebook.parse(before)
    start, end = nb.by_number[5].span
    prefix, suffix = raw[:start].encode("utf-8"), raw[end:].encode("utf-8")
    assert after.startswith(prefix) and after.endswith(suffix)
    assert b"\\u5411" in after if name.endswith("two_spaces.ipynb") else "向量".encode("utf-8") in after
    assert after.endswith(b"}\n") == before.endswith(b"}\n")
    # the outputs and execution counts are there, untouched
    assert new["cells"][4]["outputs"] == old["cells"][4]["outputs"] and new["cells"][4]["execution_count"] == 3
    # nothing left to fix
    code, _, err = run(["check", "--no-cache", "--fix", "--unsafe-fixes", name], capsys)
    assert path.read_bytes() == after


def test_diff_shows_cells_and_writes_nothing(tmp_path, monkeypatch, capsys):
    path = copy(tmp_path, "magics_and_kernel.ipynb", "nb.ipynb")
    before = path.read_bytes()
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(["check", "--no-cache", "--diff", "--unsafe-fixes", "nb.ipynb"], capsys)
    assert code == 1 and path.read_bytes() == before
    assert out.startswith("--- nb.ipynb:cell 2\n+++ nb.ipynb:cell 2\n")
    assert '-            with T.Scope("V"):  # expect: TLA001\n' in out
    # --fix puts the magics back exactly
    run(["check", "--no-cache", "--fix", "--unsafe-fixes", "nb.ipynb"], capsys)
    cells = json.loads(path.read_bytes())["cells"]
    assert cells[1]["source"][0] == "%%capture build_log\n"
    assert cells[2]["source"] == json.loads(before)["cells"][2]["source"]
    assert cells[0]["source"][2] == "%env ASCEND_RT_VISIBLE_DEVICES=0"


def test_add_noqa_edits_the_cell_source(tmp_path, monkeypatch, capsys):
    path = copy(tmp_path, "combine_scope.ipynb", "nb.ipynb")
    monkeypatch.chdir(tmp_path)
    code, _, err = run(["check", "--no-cache", "--add-noqa", "nb.ipynb"], capsys)
    assert "Added 2 noqa directives in 1 file" in err
    source = json.loads(path.read_bytes())["cells"][4]["source"]
    assert source[7] == '            with T.Scope("V"):  # noqa: TLA001\n'
    assert source[6].endswith("dtype)  # noqa: TLA101\n")
    code, _, err = run(["check", "--no-cache", "nb.ipynb"], capsys)
    assert code == 0 and "All checks passed" in err


def test_crlf_notebook_stays_crlf(tmp_path, monkeypatch, capsys):
    data = fixture("magics_and_kernel.ipynb").replace(b"\n", b"\r\n")
    path = tmp_path / "nb.ipynb"
    path.write_bytes(data)
    monkeypatch.chdir(tmp_path)
    run(["check", "--no-cache", "--fix", "--unsafe-fixes", "nb.ipynb"], capsys)
    after = path.read_bytes()
    assert after != data and after.count(b"\n") == after.count(b"\r\n")
    json.loads(after)


def test_stdin_filename_checks_and_fixes_a_notebook(monkeypatch, capsys):
    import io

    data = fixture("magics_and_kernel.ipynb")

    class Stdin:
        buffer = io.BytesIO(data)

    monkeypatch.setattr(sys, "stdin", Stdin)
    code, out, _ = run(["check", "--no-cache", "--output-format", "concise", "--stdin-filename", "x.ipynb", "-"],
                       capsys)
    assert code == 1 and out.startswith("x.ipynb:cell 2:8:18: TLA001 ")
    Stdin.buffer = io.BytesIO(data)
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(io.BytesIO(), encoding="utf-8"))
    captured = {}
    monkeypatch.setattr("flake8_tilelang.cli.fixing.write_stdout_bytes", lambda b: captured.setdefault("out", b))
    try:
        main(["check", "--no-cache", "--fix", "--unsafe-fixes", "--stdin-filename", "x.ipynb", "-"])
    except SystemExit:
        pass
    source = "".join(json.loads(captured["out"])["cells"][1]["source"])
    assert "T.Scope" not in source and "\n            T.copy(A[cid * block_M, 0], a_ub)\n" in source


def test_migrate_writes_only_the_edited_cells_and_reports_cells(tmp_path, monkeypatch, capsys):
    path = copy(tmp_path, "combine_scope.ipynb", "nb.ipynb")
    before = path.read_bytes()
    monkeypatch.chdir(tmp_path)
    code, out, err = run(["migrate", "--diff", "nb.ipynb"], capsys)
    assert path.read_bytes() == before and "--- nb.ipynb:cell 3\n" in out and "--- nb.ipynb:cell 5\n" in out
    assert "nb.ipynb:cell 5:5: vec_exp.main (Mixed): migrated" in err
    code, out, err = run(["migrate", "nb.ipynb"], capsys)
    assert code == 0
    old, new = json.loads(before), json.loads(path.read_bytes())
    changed = [i + 1 for i, (a, b) in enumerate(zip(old["cells"], new["cells"])) if a != b]
    assert changed == [3, 5, 9]
    assert all(old["cells"][i - 1]["outputs"] == new["cells"][i - 1]["outputs"] for i in changed)
    assert new["metadata"] == old["metadata"]
    assert "TL_ASCEND_MEMORY_PLANNING: True" in "".join(new["cells"][2]["source"])
    code, out, err = run(["migrate", "--output-format", "json", "nb.ipynb"], capsys)
    kernels = json.loads(out)["files"][0]["kernels"]
    assert [(k["cell"], k["line"], k["status"]) for k in kernels] == [(5, 5, "unchanged"), (9, 4, "unchanged")]


# -- bad notebooks -----------------------------------------------------------------

@pytest.mark.parametrize("name,text", [
    ("invalid_json.ipynb", "invalid JSON: Expecting value"),
    ("nbformat3.ipynb", "nbformat 3; only nbformat 4"),
])
def test_a_bad_notebook_is_an_e902_not_a_crash(tmp_path, monkeypatch, capsys, name, text):
    copy(tmp_path, name)
    monkeypatch.chdir(tmp_path)
    code, out, err = run(["check", "--no-cache", "--output-format", "concise", name], capsys)
    assert code == 1 and "E902" in out and text in out and "Traceback" not in err


@pytest.mark.parametrize("data", [
    b'["tilelang"]', b'{"nbformat": 4, "cells": "tilelang"}', b"\xff\xfe tilelang",
    b'{"nbformat": 4, "cells": [{"cell_type": "code", "source": 7}], "x": "tilelang"}',
    b'{"nbformat": 4, "cells": [' + b"[" * 100000 + b"]" * 100000 + b'], "x": "tilelang"}',
])
def test_odd_json_never_crashes(data):
    findings = lint_source("odd.ipynb", data, settings()).findings
    assert all(f.code == "E902" for f in findings)


def test_a_huge_notebook_is_refused_before_reading(tmp_path, monkeypatch, capsys):
    from flake8_tilelang.cli import run as run_module

    copy(tmp_path, "combine_scope.ipynb", "nb.ipynb")
    monkeypatch.setattr(run_module, "MAX_FILE_BYTES", 1000)
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(["check", "--no-cache", "--output-format", "concise", "nb.ipynb"], capsys)
    assert code == 1 and "E902" in out and "above the" in out


# -- discovery, cache ----------------------------------------------------------------

def test_folders_include_notebooks_but_not_checkpoints(tmp_path, monkeypatch, capsys):
    copy(tmp_path, "magics_and_kernel.ipynb", "nb.ipynb")
    (tmp_path / ".ipynb_checkpoints").mkdir()
    copy(tmp_path, "magics_and_kernel.ipynb", ".ipynb_checkpoints/nb-checkpoint.ipynb")
    monkeypatch.chdir(tmp_path)
    code, out, err = run(["check", "--no-cache", "--output-format", "concise", "."], capsys)
    assert out.startswith("./nb.ipynb:cell 2:8:18: TLA001") and "checkpoint" not in out
    code, out, err = run(["check", "--no-cache", "--extend-exclude", "*.ipynb", "."], capsys)
    assert code == 0 and "All checks passed (0 files checked)" in err


def test_the_cache_returns_cells(tmp_path, monkeypatch, capsys):
    copy(tmp_path, "combine_scope.ipynb", "nb.ipynb")
    monkeypatch.chdir(tmp_path)
    argv = ["check", "--cache-dir", str(tmp_path / "cache"), "--output-format", "json", "nb.ipynb"]
    _, first, _ = run(argv, capsys)
    from flake8_tilelang.cli import run as run_module

    calls = []
    real = run_module.lint_source
    monkeypatch.setattr(run_module, "lint_source", lambda *a, **k: calls.append(a) or real(*a, **k))
    _, second, _ = run(argv, capsys)
    assert second == first and calls == []  # from the cache, cells and all
    assert json.loads(second)[0]["cell"] == 5


# -- kernels ---------------------------------------------------------------------------

def test_kernels_lists_a_notebooks_kernels_by_cell(tmp_path, monkeypatch, capsys):
    copy(tmp_path, "combine_scope.ipynb", "nb.ipynb")
    (tmp_path / "broken.ipynb").write_text(json.dumps({"cells": [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
         "source": "import tilelang\n"},
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": "def f(:\n"}],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(["kernels", "--output-format", "json", "nb.ipynb", "broken.ipynb"], capsys)
    data = json.loads(out)
    got = [(k["cell"], k["line"], k["kernel"], k["factory"]) for k in data["kernels"]]
    assert got == [(5, 5, "main", "vec_exp"), (9, 4, "main", "vec_relu")]
    sync = data["kernels"][0]["sites"][0]["switches"]["TL_ASCEND_AUTO_SYNC"]
    assert (sync["state"], sync["cell"], sync["line"], sync["where"]) == ("on", 3, 3, "set at cell 3, line 3")
    diags = sorted((d["code"], d["cell"], d["line"]) for d in data["kernels"][0]["diagnostics"])
    assert diags == [("TLA001", 5, 8), ("TLA101", 5, 7)]
    (error,) = data["errors"]
    assert error["file"] == "broken.ipynb" and error["code"] == "E999" and error["message"].startswith("cell 2, line 1: ")
    code, out, _ = run(["kernels", "nb.ipynb"], capsys)
    assert "nb.ipynb:cell 5:5 " in out and "on@c3:3" in out and "cell 3, line 4 of the notebook" in out


# -- flake8 through nbQA ----------------------------------------------------------------

def test_the_plugin_works_on_an_nbqa_style_temporary_file(tmp_path):
    """nbQA writes the code cells to a temporary .py file (magics commented
    out, cells separated by ``# %%``) and runs flake8 on it; the plugin sees
    plain Python and reports there."""
    nb = notebook.parse(fixture("magics_and_kernel.ipynb"))
    parts = []
    for cell in nb.code_cells:
        lines = ["# CELL MAGIC %s" % x[2:] if x.lstrip().startswith("%%") else
                 (re.sub(r"^(\s*)[%!].*", r"\1pass  # magic", x)) for x in cell.text.split("\n")]
        parts.append("# %%\n" + "\n".join(lines).rstrip("\n") + "\n")
    temp = tmp_path / "magics_and_kernel.py"
    temp.write_text("\n".join(parts), encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "flake8", "--select", "TLA", str(temp)], capture_output=True,
                         text=True, env=dict(os.environ, PYTHONPATH=ROOT), cwd=str(tmp_path))
    assert "TLA001" in out.stdout, out.stdout + out.stderr


# -- the language server ------------------------------------------------------------------

def test_document_findings_point_into_the_json():
    from flake8_tilelang.source import SourceFile

    data = fixture("combine_scope.ipynb")
    doc = SourceFile.from_text(data.decode("utf-8"))
    (f,) = notebook.document_findings(
        [f for f in lint_source("nb.ipynb", data, settings()).findings if f.code == "TLA001"], doc)
    assert doc.line_text(f.line)[f.col:f.end_col] == 'T.Scope(\\"V\\")'
    assert f.message.startswith("cell 5, line 8: ") and f.fix is None and f.cell == 5


def test_the_server_lints_a_notebook_document_without_crashing(tmp_path):
    pytest.importorskip("pygls")
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from lsp_harness import Client, run as run_async

    path = tmp_path / "nb.ipynb"
    path.write_bytes(fixture("combine_scope.ipynb"))
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    text = path.read_text(encoding="utf-8")

    async def scenario():
        c = Client()
        await c.start(str(tmp_path))
        uri = c.open(str(path))
        diags = await c.diagnostics(uri)
        line = text.split("\n")[diags[0].range.start.line] if diags else ""
        actions = await c.code_actions(uri, (0, 0), (len(text.split("\n")), 0))
        broken = c.open(str(tmp_path / "bad.ipynb"), text='{"cells": [ "tilelang"')
        bad = await c.diagnostics(broken)
        messages = list(c.messages)
        await c.stop()
        return diags, line, actions, bad, messages

    diags, line, actions, bad, messages = run_async(scenario())
    codes = sorted(d.code for d in diags)
    assert codes == ["TLA001", "TLA101"]
    scope = [d for d in diags if d.code == "TLA001"][0]
    assert scope.message.startswith("cell 5, line 8: ")
    assert "T.Scope" in text.split("\n")[scope.range.start.line]
    assert not actions  # no edit of the JSON text
    assert [d.code for d in bad] == ["E902"]
    assert not [m for m in messages if "error" in str(m).lower() and "worker" in str(m).lower()]



def _harness():
    """(Client, run) of tests/lsp_harness.py, and lsprotocol's types; skips
    without pygls."""
    pytest.importorskip("pygls")
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from lsprotocol import types
    from lsp_harness import Client, run

    return Client, run, types


def _lsp_notebook(path):
    """The LSP notebook document an editor sends for a .ipynb file: every
    cell in order, a text document for each code cell only (markdown and raw
    cells are not synced: the server's selector asks for Python cells)."""
    from lsprotocol import types

    data = json.loads(path.read_text(encoding="utf-8"))
    uri = "file://" + str(path)
    cells, docs = [], []
    for i, cell in enumerate(data["cells"]):
        cell_uri = "vscode-notebook-cell:%s#W%dsZmlsZQ%%3D%%3D" % (str(path), i)
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        kind = types.NotebookCellKind.Code if cell["cell_type"] == "code" else types.NotebookCellKind.Markup
        cells.append(types.NotebookCell(kind=kind, document=cell_uri))
        if kind == types.NotebookCellKind.Code:
            docs.append(types.TextDocumentItem(uri=cell_uri, language_id="python", version=1, text=source))
    return uri, cells, docs


def test_the_server_lints_an_lsp_notebook_document_per_cell(tmp_path):
    """VS Code's and JupyterLab's notebook editors send notebook documents
    (notebookDocument/didOpen, cells as their own text documents): the cells
    are one module, each cell gets its own findings on its own lines, with
    hover and a noqa action there; an edit of a cell re-lints; closing the
    notebook clears every cell."""
    Client, run_async, types = _harness()

    path = tmp_path / "nb.ipynb"
    path.write_bytes(fixture("combine_scope.ipynb"))
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    uri, cells, docs = _lsp_notebook(path)
    kernel_cell = cells[4].document  # cell 5: the kernel with `with T.Scope("V")`
    config_cell = cells[2].document  # cell 3: the COMBINED dict the kernel's jit names
    kernel_text = [d.text for d in docs if d.uri == kernel_cell][0]

    async def scenario():
        c = Client()
        init = await c.start(str(tmp_path), notebooks=True)
        c.open_notebook(uri, cells, docs)
        first = await c.diagnostics(kernel_cell)
        config = c.published.get(config_cell, [])  # a clean cell: nothing published
        scope = [d for d in first if d.code == "TLA001"][0]
        hover = await c.hover(kernel_cell, scope.range.start.line, scope.range.start.character + 1)
        actions = await c.code_actions(kernel_cell, (scope.range.start.line, 0), (scope.range.start.line, 80))
        config_diag = [d for d in first if d.code == "TLA101"]
        # the user deletes the scope line in cell 5 (and dedents its body)
        fixed = kernel_text.replace('            with T.Scope("V"):\n', "").replace(
            "                T.", "            T.")
        seen = c.seen(kernel_cell)
        c.lsp.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(version=2, uri=uri),
            change=types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(text_content=[
                types.NotebookDocumentCellContentChanges(
                    document=types.VersionedTextDocumentIdentifier(uri=kernel_cell, version=2),
                    changes=[types.TextDocumentContentChangeWholeDocument(text=fixed)])]))))
        after = await c.diagnostics(kernel_cell, since=seen)
        seen = c.seen(kernel_cell)
        c.lsp.notebook_document_did_close(types.DidCloseNotebookDocumentParams(
            notebook_document=types.NotebookDocumentIdentifier(uri=uri),
            cell_text_documents=[types.TextDocumentIdentifier(uri=d.uri) for d in docs]))
        closed = await c.diagnostics(kernel_cell, since=seen)
        await c.stop()
        return init, first, config, scope, hover, actions, after, closed

    init, first, config, scope, hover, actions, after, closed = run_async(scenario())
    assert init.capabilities.notebook_document_sync is not None
    assert sorted(d.code for d in first) == ["TLA001", "TLA101"]
    assert kernel_text.split("\n")[scope.range.start.line].strip().startswith('with T.Scope("V")')
    assert "(set at cell 3, line " in scope.message, scope.message  # the switch is set in another cell
    assert config == []
    assert "TLA001" in hover.contents.value
    titles = [a.title for a in actions]
    assert titles == ["Disable TLA001 for this line"], titles  # TLA001's fix is unsafe: not offered by default
    (edit,) = actions[0].edit.changes[kernel_cell]
    assert edit.range.start.line == scope.range.start.line and "noqa: TLA001" in edit.new_text
    assert [d.code for d in after if d.code == "TLA001"] == []
    assert closed == []



def test_the_server_survives_odd_notebook_documents(tmp_path):
    """A change of a notebook it never opened, a cell that does not parse,
    a notebook with an unusual URI: each answered, none stops the server."""
    Client, run_async, types = _harness()

    kernel = "import tilelang\nimport tilelang.language as T\n"
    broken = "def f(:\n    pass\n"
    cell_a, cell_b = "vscode-notebook-cell:/x/untitled#A", "vscode-notebook-cell:/x/untitled#B"

    async def scenario():
        c = Client()
        await c.start(str(tmp_path), notebooks=True)
        c.lsp.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(version=2, uri="untitled:never-opened"),
            change=types.NotebookDocumentChangeEvent()))
        c.open_notebook("untitled:Untitled-1", [
            types.NotebookCell(kind=types.NotebookCellKind.Code, document=cell_a),
            types.NotebookCell(kind=types.NotebookCellKind.Code, document=cell_b)], [
            types.TextDocumentItem(uri=cell_a, language_id="python", version=1, text=kernel),
            types.TextDocumentItem(uri=cell_b, language_id="python", version=1, text=broken)],
            notebook_type="interactive")
        bad = await c.diagnostics(cell_b)
        hover = await c.hover(cell_a, 0, 3)
        actions = await c.code_actions(cell_b, (0, 0), (1, 0), only=[types.CodeActionKind.SourceFixAll])
        code = await c.stop()
        return bad, hover, actions, code

    bad, hover, actions, code = run_async(scenario())
    assert [d.code for d in bad] == ["E999"] and bad[0].range.start.line == 0
    assert hover is None and actions is None
    assert code == 0


def test_a_notebook_of_many_clean_cells_publishes_only_where_there_are_findings(tmp_path):
    Client, run_async, types = _harness()

    path = tmp_path / "nb.ipynb"
    path.write_bytes(fixture("combine_scope.ipynb"))
    uri, cells, docs = _lsp_notebook(path)
    for i in range(3000):  # clean cells after the kernel's
        cell_uri = "vscode-notebook-cell:%s#X%d" % (path, i)
        cells.append(types.NotebookCell(kind=types.NotebookCellKind.Code, document=cell_uri))
        docs.append(types.TextDocumentItem(uri=cell_uri, language_id="python", version=1, text="x%d = %d\n" % (i, i)))
    kernel_cell = cells[4].document

    async def scenario():
        c = Client()
        await c.start(str(tmp_path), notebooks=True)
        c.open_notebook(uri, cells, docs)
        found = await c.diagnostics(kernel_cell)
        published = dict(c.published)
        await c.stop()
        return found, published

    found, published = run_async(scenario())
    assert found and set(published) == {kernel_cell}


def test_a_cell_quick_fix_edits_the_cell_that_holds_the_config(tmp_path):
    """TLA005 in the kernel's cell (3) is fixed by removing a key of the dict
    in cell 2: the quick fix is an edit of cell 2's document."""
    Client, run_async, types = _harness()

    path = tmp_path / "nb.ipynb"
    path.write_bytes(fixture("cross_cell_fix.ipynb"))
    uri, cells, docs = _lsp_notebook(path)
    config_cell, kernel_cell = cells[1].document, cells[2].document

    async def scenario():
        c = Client()
        await c.start(str(tmp_path), notebooks=True)
        c.open_notebook(uri, cells, docs)
        found = await c.diagnostics(kernel_cell)
        flag = [d for d in found if d.code == "TLA005"][0]
        actions = await c.code_actions(kernel_cell, (flag.range.start.line, 0), (flag.range.start.line, 40))
        fix_all = await c.code_actions(kernel_cell, (0, 0), (0, 0), only=[types.CodeActionKind.SourceFixAll])
        await c.stop()
        return flag, actions, fix_all

    flag, actions, fix_all = run_async(scenario())
    # "fix all" from any cell: the two TLA005 findings share one edit (made once)
    (whole,) = fix_all
    assert [(e.range.start.line, e.range.end.line) for e in whole.edit.changes[config_cell]] == [(2, 3)]
    fixes = [a for a in actions if a.title.startswith("Remove the inert")]
    assert fixes and fixes[0].is_preferred
    (edit,) = fixes[0].edit.changes[config_cell]
    assert (edit.range.start.line, edit.range.end.line, edit.new_text) == (2, 3, "")
    assert kernel_cell not in fixes[0].edit.changes
    # the same result as `check --fix` on the file (the edit oracle judges that path)
    (whole_edit,) = whole.edit.changes[config_cell]
    cell_text = [d.text for d in docs if d.uri == config_cell][0].split("\n")
    fixed_cell = "\n".join(cell_text[:whole_edit.range.start.line] + cell_text[whole_edit.range.end.line:])
    subprocess.run([sys.executable, "-m", "flake8_tilelang", "check", "--no-cache", "--isolated", "--fix", "-q",
                    str(path)], cwd=str(tmp_path), env=dict(os.environ, PYTHONPATH=ROOT), capture_output=True)
    fixed = json.loads(path.read_text(encoding="utf-8"))["cells"][1]["source"]
    assert fixed_cell == (fixed if isinstance(fixed, str) else "".join(fixed))


def test_deleting_the_kernel_cell_clears_its_diagnostics(tmp_path):
    Client, run_async, types = _harness()

    path = tmp_path / "nb.ipynb"
    path.write_bytes(fixture("combine_scope.ipynb"))
    uri, cells, docs = _lsp_notebook(path)
    kernel_cell = cells[4].document

    async def scenario():
        c = Client()
        await c.start(str(tmp_path), notebooks=True)
        c.open_notebook(uri, cells, docs)
        first = await c.diagnostics(kernel_cell)
        seen = c.seen(kernel_cell)
        c.lsp.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(version=2, uri=uri),
            change=types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(
                structure=types.NotebookDocumentCellChangeStructure(
                    array=types.NotebookCellArrayChange(start=4, delete_count=1, cells=[]),
                    did_close=[types.TextDocumentIdentifier(uri=kernel_cell)])))))
        after = await c.diagnostics(kernel_cell, since=seen)
        await c.stop()
        return first, after

    first, after = run_async(scenario())
    assert first and after == []

if __name__ == "__main__":
    if "--update" not in sys.argv:
        sys.exit("usage: python tests/test_notebooks.py --update")
    os.chdir(ROOT)
    out = subprocess.run([sys.executable, "-m", "flake8_tilelang", "check", "--no-cache", "--output-format",
                          "concise", "fixtures/notebooks"], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=ROOT)).stdout
    with open(GOLDEN, "w", encoding="utf-8") as f:
        f.write(out)
    print("wrote", os.path.relpath(GOLDEN, ROOT))
