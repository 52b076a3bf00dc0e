"""Edits you can trust (issue #18): a safe fix keeps the meaning, a fix or a
migration never edits what another module (or a kernel left as it is) reads,
comment edits touch comment tokens only, and migrate keeps every byte outside
its edits. Each test names the point of the issue it covers."""
import io
import json
import os
import shutil
import textwrap
import tokenize

from flake8_tilelang.cli import main
from flake8_tilelang.diagnostic import DISPLAY_ONLY, SAFE, UNSAFE
from flake8_tilelang.noqa_add import add_noqa
from flake8_tilelang.pipeline import lint_source
from flake8_tilelang.source import SourceFile
from test_fixes import all_codes

HERE = os.path.dirname(os.path.abspath(__file__))


def findings(path, code):
    with open(path, "rb") as f:
        data = f.read()
    return [f for f in lint_source(str(path), data, all_codes()).findings if f.code == code]


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def project(tmp_path, files):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return tmp_path


# -- point 1: TLA050 ------------------------------------------------------------------

def test_tla050_renames_only_known_slips_and_never_safely():
    fixes = {(f.line, f.fix.applicability if f.fix else None, bool(f.fix and f.fix.edits))
             for f in findings(os.path.join(HERE, "fixes", "TLA050", "config_key.py"), "TLA050")}
    # the three slips: unsafe edits; the misspellings and the duplicate: shown, never applied
    assert fixes == {(9, UNSAFE, True), (10, UNSAFE, True), (11, UNSAFE, True),
                     (15, DISPLAY_ONLY, False), (16, DISPLAY_ONLY, False), (17, DISPLAY_ONLY, False),
                     (22, DISPLAY_ONLY, False)}


def test_tla050_names_every_close_key_when_several_are():
    text = next(f for f in findings(os.path.join(HERE, "fixes", "TLA050", "config_key.py"), "TLA050")
                if f.line == 15).help
    assert "TL_ASCEND_AUTO_CV_COMBINE" in text and "TL_ASCEND_AUTO_CV_SYNC" in text


def test_quickstart_slip_becomes_the_cross_core_key_not_auto_sync(tmp_path):
    path = tmp_path / "q.py"
    shutil.copy(os.path.join(HERE, "..", "fixtures", "example", "quickstart_gemm_exp.py"), path)
    (f,) = findings(path, "TLA050")
    assert f.fix.applicability == UNSAFE and f.fix.edits[0].text == '"tl.ascend_auto_cross_core_sync"'


# -- points 2 and 3: TLA033, TLA030 -----------------------------------------------------

def test_tla033_fixes_only_a_pipe_with_one_candidate_within_reach():
    got = {(f.line, f.fix.applicability if f.fix else None)
           for f in findings(os.path.join(HERE, "fixes", "TLA033", "pipe_name.py"), "TLA033")}
    assert got == {(18, UNSAFE), (19, UNSAFE), (20, DISPLAY_ONLY), (21, DISPLAY_ONLY), (22, DISPLAY_ONLY)}


def test_tla030_fix_is_unsafe():
    got = [f.fix.applicability for f in findings(os.path.join(HERE, "fixes", "TLA030", "scope_letter.py"),
                                                 "TLA030") if f.fix and f.fix.edits]
    assert got and set(got) == {UNSAFE}


# -- point 4: TLA005 and importers ------------------------------------------------------

CFG_MODULE = """
    import tilelang
    import tilelang.language as T

    CFG = {
        tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_SYNC: True,
        tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: False,
    }


    @tilelang.jit(out_idx=[-1], workspace_idx=[2], pass_configs=CFG)
    def fused(M, N, dtype="float16"):
        @T.prim_func
        def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype), workspace: T.Tensor((M, N), dtype)):
            with T.Kernel(M // 64, is_npu=True) as (cid, vid):
                a_l1 = T.alloc_L1((64, N), dtype)
                a_ub = T.alloc_ub((32, N), dtype)
                with T.Scope("C"):
                    T.copy(A[cid * 64, 0], a_l1)
                    T.copy(a_l1, workspace[cid * 64, 0])
                    T.set_cross_flag("MTE3", 0)
                with T.Scope("V"):
                    T.wait_cross_flag(0)
                    T.copy(workspace[cid * 64 + vid * 32, 0], a_ub)
                    T.copy(a_ub, B[cid * 64 + vid * 32, 0])

        return main
"""

IMPORTER = """
    import tilelang
    from cfgmod import CFG

    COMBINED = {**CFG, tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: True}
"""


def test_tla005_inert_entry_is_safe_only_when_no_module_imports_the_dict(tmp_path):
    root = project(tmp_path, {"cfgmod.py": CFG_MODULE})
    got = {f.fix.applicability for f in findings(root / "cfgmod.py", "TLA005")}
    assert got == {SAFE}
    (root / "user.py").write_text(textwrap.dedent(IMPORTER))
    got = {f.fix.applicability for f in findings(root / "cfgmod.py", "TLA005")}
    assert got == {UNSAFE}


# -- point 5: comment tokens only ------------------------------------------------------

NOQA_IN_STRINGS = '''
    import tilelang
    import tilelang.language as T

    HOWTO = "silence one line with `# noqa : TLA002`"


    @tilelang.jit(pass_configs={tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True})
    def k(M, N, dtype="float16"):
        """`#noqa:tla002` does not work; see below.
        # noqa: TLA001
        """
        @T.prim_func
        def main(A: T.Tensor((M, N), dtype)):
            with T.Kernel(M, is_npu=True) as (cid, vid):
                a_ub = T.alloc_ub((1, N), dtype)
                T.copy(A[cid, 0], a_ub)
                T.barrier_all(); why = "# noqa: TLA005"
                T.barrier_all()

        return main
'''


def _strings(text):
    return [t.string for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.STRING]


def test_noqa_text_in_strings_is_never_judged_nor_edited(tmp_path, capsys):
    path = tmp_path / "k.py"
    path.write_text(textwrap.dedent(NOQA_IN_STRINGS))
    before = path.read_text()
    lines = {(f.line, f.code) for f in lint_source(str(path), before.encode(), all_codes()).findings}
    assert not {c for _, c in lines} & {"TLA095", "TLA096"}
    run(["check", "--isolated", "--no-cache", "--extend-select", "TLA096", "--add-noqa", str(path)], capsys)
    after = path.read_text()
    assert _strings(after) == _strings(before)  # every string token as it was
    # the line whose first noqa is string text cannot get a comment flake8 would read: left alone
    assert 'why = "# noqa: TLA005"\n' in after
    assert "T.barrier_all()  # noqa: TLA002\n" in after


def test_add_noqa_touches_comment_tokens_only(tmp_path):
    text = textwrap.dedent(NOQA_IN_STRINGS)
    source = SourceFile.from_text(text)
    result = lint_source("k.py", text.encode(), all_codes())
    new, _, _ = add_noqa(source, result.findings)

    def code_tokens(t):
        return [(x.type, x.string) for x in tokenize.generate_tokens(io.StringIO(t).readline)
                if x.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE)]
    assert new is not None and code_tokens(new) == code_tokens(text)


# -- point 6: the vector-core id whatever its name -------------------------------------

def test_launch_vector_id_name_is_the_second_target():
    from helpers import model

    m = model('''
        import tilelang
        import tilelang.language as T

        @tilelang.jit
        def k(M):
            @T.prim_func
            def main(A: T.Tensor((M,), "float16")):
                with T.Kernel(M, is_npu=True) as (bx, by):
                    T.copy(A[bx * 2 + by], A[0])
                with T.Kernel(M, threads=2, is_npu=True) as cid:
                    T.copy(A[cid], A[0])
            return main
    ''')
    first, second = m.kernels[0].launches
    assert first.vid_name == "by" and [n.lineno for n in first.vid_reads()] == [10]
    assert second.vid_name == "vid" and second.vid_reads() == []


# -- points 7 and 8: shared anywhere in the project ------------------------------------

KERNELS = """
    import tilelang
    import tilelang.language as T

    CFG = {tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: False}


    @T.macro
    def load(src, dst):
        T.copy(src, dst)
        T.barrier_all()


    @tilelang.jit(out_idx=[-1], pass_configs=CFG)
    def vec(M, N, dtype="float16"):
        @T.prim_func
        def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
            with T.Kernel(M // 64, is_npu=True) as (cid, vid):
                a_ub = T.alloc_ub((64, N), dtype)
                with T.Scope("V"):
                    T.copy(A[cid * 64, 0], a_ub)
                    T.barrier_all()
                    T.copy(a_ub, B[cid * 64, 0])

        return main


    @tilelang.jit(out_idx=[-1], pass_configs={tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True})
    def vec_auto(M, N, dtype="float16"):
        @T.prim_func
        def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
            with T.Kernel(M // 64, is_npu=True) as (cid, vid):
                a_ub = T.alloc_ub((64, N), dtype)
                with T.Scope("V"):
                    load(A[cid * 64, 0], a_ub)
                    T.copy(a_ub, B[cid * 64, 0])

        return main
"""


def test_migrate_wraps_a_dict_another_module_imports(tmp_path, capsys, monkeypatch):
    root = project(tmp_path, {"kern.py": KERNELS, "other.py": "from kern import CFG\nimport tilelang\n"})
    monkeypatch.chdir(root)
    run(["migrate", "--kernel", "vec", "kern.py"], capsys)
    text = (root / "kern.py").read_text()
    assert "CFG = {tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: False}\n" in text  # the importer's view kept
    assert "**CFG," in text or "{**CFG" in text


def test_migrate_edits_a_dict_in_place_when_nothing_else_reads_it(tmp_path, capsys, monkeypatch):
    root = project(tmp_path, {"kern.py": KERNELS})
    monkeypatch.chdir(root)
    run(["migrate", "--kernel", "vec", "kern.py"], capsys)
    text = (root / "kern.py").read_text()
    assert "**CFG" not in text and "TL_ASCEND_AUTO_SYNC: True" in text.split("@T.macro")[0]


def test_a_macro_another_module_imports_is_never_edited(tmp_path, capsys, monkeypatch):
    root = project(tmp_path, {"kern.py": KERNELS, "expert.py": "import tilelang\nfrom kern import load\n"})
    monkeypatch.chdir(root)
    before = (root / "kern.py").read_text()
    # TLA002's unsafe fix: no deletion in the shared macro
    (f,) = [f for f in findings(root / "kern.py", "TLA002") if "macro" in f.message]
    assert f.fix is None or not f.fix.edits
    # migrate: the kernel that reaches it is skipped, the macro untouched
    _, out, _ = run(["migrate", "--kernel", "vec_auto", "--output-format", "json", "kern.py"], capsys)
    (k,) = json.loads(out)["files"][0]["kernels"]
    assert k["status"] == "skipped" and "imported by" in k["reason"] and "expert.py" in k["reason"]
    assert (root / "kern.py").read_text() == before
    os.remove(root / "expert.py")
    (f,) = [f for f in findings(root / "kern.py", "TLA002") if "macro" in f.message]
    assert f.fix is not None and f.fix.edits and f.fix.applicability == UNSAFE


def test_skipped_kernels_are_byte_identical(tmp_path, capsys, monkeypatch):
    case = "shared_with_skipped.py"
    shutil.copy(os.path.join(HERE, "migrate", case), tmp_path / case)
    monkeypatch.chdir(tmp_path)
    before = (tmp_path / case).read_text()
    run(["migrate", case], capsys)
    after = (tmp_path / case).read_text()
    head = before.split("@tilelang.jit(out_idx=[-1], pass_configs=CFG)\ndef gemm_like")[0]
    assert after.startswith(head)  # CFG and `with_sync_all` byte for byte


# -- point 12: line endings -------------------------------------------------------------

def test_migrate_keeps_mixed_line_endings(tmp_path, capsys, monkeypatch):
    with open(os.path.join(HERE, "migrate", "halved_tiles.py"), "rb") as f:
        lines = f.read().split(b"\n")
    # every other line ends in CRLF
    data = b"".join(line + (b"\r\n" if i % 2 else b"\n") for i, line in enumerate(lines[:-1]))
    (tmp_path / "k.py").write_bytes(data)
    monkeypatch.chdir(tmp_path)
    run(["migrate", "k.py"], capsys)
    out = (tmp_path / "k.py").read_bytes()
    assert out != data and b"\r\n" in out and out.count(b"\n") != out.count(b"\r\n")
    with open(os.path.join(HERE, "migrate", "halved_tiles.py.migrated"), "rb") as f:
        assert out.replace(b"\r\n", b"\n") == f.read()
    # the lines the migration did not touch keep their own ending
    kept = [line for line in data.split(b"\n") if line.startswith(b"def one_row")]
    assert kept and kept[0] + b"\n" in out


# -- point 11: one fixed point between migrate and every fix ------------------------------

def test_migrate_and_every_fix_agree(tmp_path, capsys, monkeypatch):
    cases = sorted(p for p in os.listdir(os.path.join(HERE, "migrate")) if p.endswith(".py"))
    for case in cases:
        shutil.copy(os.path.join(HERE, "migrate", case + ".migrated"), tmp_path / case)
    monkeypatch.chdir(tmp_path)
    before = {c: (tmp_path / c).read_bytes() for c in cases}
    run(["check", "--isolated", "--no-cache", "--select", "TLA0", "--extend-select", "TLA052,TLA013",
         "--fix", "--unsafe-fixes"] + cases, capsys)
    assert {c: (tmp_path / c).read_bytes() for c in cases} == before
    for case in cases:
        with open(os.path.join(HERE, "migrate", case), encoding="utf-8") as f:
            first = f.readline()
        args = first.split("migrate-args:", 1)[1].split() if "migrate-args:" in first else []
        code, out, err = run(["migrate", "--diff"] + args + [case], capsys)
        assert out == "" and "0 kernels to migrate" in err, case


# -- point 13: the report ----------------------------------------------------------------

def test_report_leads_with_what_needs_a_human(tmp_path, capsys, monkeypatch):
    for case in ("halved_tiles.py", "shared_with_skipped.py", "vector_macro.py"):
        shutil.copy(os.path.join(HERE, "migrate", case), tmp_path / case)
    monkeypatch.chdir(tmp_path)
    _, out, _ = run(["migrate", "halved_tiles.py", "shared_with_skipped.py", "vector_macro.py"], capsys)
    lines = out.splitlines()
    heads = [line for line in lines if ".main (" in line and not line.startswith("  ")]
    human = [i for i, line in enumerate(heads) if ": skipped:" in line or "hand_halved" in line or "one_row" in line]
    clean = [i for i, line in enumerate(heads) if "splits.main" in line or "relu.main" in line]
    assert human and clean and max(human) < min(clean)
    assert "T.tile.relu" not in out and "1 optional `T.tile.*` rewrite" in out
    step = next(line for line in lines if "hand_halved" not in line and "line 16" in line)
    assert "(lines 15, 16)" in step
    _, out, _ = run(["migrate", "--diff", "--show-optional", "vector_macro.py"], capsys)


VECTOR_CFG = """
    import tilelang
    import tilelang.language as T

    CFG = {
        tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
        tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True,
        tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: True,
        tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_SYNC: True,
    }


    @tilelang.jit(out_idx=[-1], pass_configs=CFG)
    def vec(M, N, dtype="float16"):
        @T.prim_func
        def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
            with T.Kernel(M // 64, threads=2, is_npu=True) as cid:
                a = T.alloc_shared((64, N), dtype)
                T.copy(A[cid * 64, 0], a)
                T.tile.exp(a, a)
                T.copy(a, B[cid * 64, 0])

        return main
"""


def test_tla052_keeps_cv_sync_of_a_dict_another_module_imports(tmp_path):
    # point 4 for the other inert-key fix: the importer may compile a Cube kernel with it
    root = project(tmp_path, {"vec.py": VECTOR_CFG})
    (f,) = [f for f in findings(root / "vec.py", "TLA052")]
    assert f.fix.edits and f.fix.applicability == UNSAFE
    (root / "gemm.py").write_text("import tilelang\nfrom vec import CFG\n")
    (f,) = [f for f in findings(root / "vec.py", "TLA052")]
    assert not f.fix.edits


def test_fix_counts_agree_with_findings_across_passes():
    # point 12: a macro's fix reported at two calls and finished on a second pass counts once each
    from flake8_tilelang.fixes import fix_file

    path = os.path.join(HERE, "fixes", "TLA002", "macro_two_passes.py")
    with open(path, "rb") as f:
        data = f.read()
    found = lint_source(path, data, all_codes()).findings
    result = fix_file(path, data, all_codes(), unsafe=True)
    assert result.iterations > 1 and not result.remaining
    assert len(result.fixed) == len(found) == 5


def test_readers_are_importers_not_files_that_mention_the_name(tmp_path):
    from flake8_tilelang.sharing import readers

    root = project(tmp_path, {
        "cfg.py": "CFG = {}\n",
        "a.py": "from cfg import CFG\n",
        "b.py": "from pkg.cfg import *\n",
        "c.py": "import cfg\nx = cfg.CFG\n",
        "d.py": "import torch\nCFG = {}  # its own CFG; mentions cfg in a comment\ny = 2 * 3\n",
        "e.py": "from other import CFG\n",
    })
    got = sorted(os.path.basename(p) for p in readers(str(root / "cfg.py"), ["CFG"]))
    assert got == ["a.py", "b.py", "c.py"]


def test_readers_skip_the_file_itself_under_another_name(tmp_path):
    # a link in the tree naming the defining file is that file, not an importer of it
    from flake8_tilelang.sharing import readers

    root = project(tmp_path, {
        "cfg.py": "import cfg  # reads itself\nCFG = {}\n",
        "a.py": "from cfg import CFG\n",
    })
    os.symlink(str(root / "cfg.py"), str(root / "cfg_link.py"))
    got = sorted(os.path.basename(p) for p in readers(str(root / "cfg.py"), ["CFG"]))
    assert got == ["a.py"]
