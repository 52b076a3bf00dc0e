"""`flake8-tilelang migrate`: Expert kernels -> Developer text, byte for byte
(tests/migrate/<case>.py -> <case>.py.migrated), report, skips, idempotence."""
import glob
import json
import os
import shutil

import pytest

from flake8_tilelang.cli import main

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "migrate")
CASES = sorted(os.path.basename(p) for p in glob.glob(os.path.join(HERE, "*.py")))


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def args_of(path):
    with open(path, encoding="utf-8") as f:
        first = f.readline()
    return first.split("migrate-args:", 1)[1].split() if "migrate-args:" in first else []


@pytest.mark.parametrize("case", CASES)
def test_migration_matches_the_expected_text(case, tmp_path, capsys, monkeypatch):
    shutil.copy(os.path.join(HERE, case), tmp_path / case)
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(["migrate"] + args_of(case) + [case], capsys)
    assert code == 0, out
    with open(os.path.join(HERE, case + ".migrated"), "rb") as f:
        expected = f.read()
    assert (tmp_path / case).read_bytes() == expected
    # a second run changes nothing
    code, out, err = run(["migrate", "--diff"] + args_of(case) + [case], capsys)
    assert code == 0 and out == "" and "0 kernels to migrate" in err


@pytest.mark.parametrize("case", CASES)
def test_migrated_kernels_are_developer_and_clean(case, tmp_path, capsys, monkeypatch):
    # the kernels migrate reports as migrated to a Developer target (the guide's §2.2 row for
    # their kind) are Developer afterwards; a Mixed target stays Mixed, a skipped kernel Expert
    shutil.copy(os.path.join(HERE, case), tmp_path / case)
    monkeypatch.chdir(tmp_path)
    _, out, _ = run(["migrate", "--output-format", "json"] + args_of(case) + [case], capsys)
    planned = {k["kernel"]: k for f in json.loads(out)["files"] for k in f["kernels"]}
    developer = {name for name, k in planned.items()
                 if k["status"] == "migrated" and k["target"].startswith("Developer")}
    shutil.copy(os.path.join(HERE, case + ".migrated"), tmp_path / case)
    _, out, _ = run(["kernels", "--output-format", "json", case], capsys)
    kernels = json.loads(out)["kernels"]
    modes = {"%s.%s" % (k["factory"], k["kernel"]) if k["factory"] else k["kernel"]: k["mode"] for k in kernels}
    assert all(modes[name] == "Developer" for name in developer), (developer, modes)
    mixed = {name for name, k in planned.items() if k["target"] == "Mixed"}
    assert developer or mixed
    assert all(modes[name] == "Mixed" for name in mixed)
    _, out, _ = run(["check", "--no-cache", "--output-format", "concise", case], capsys)
    codes = {line.split()[1] for line in out.splitlines()}
    assert not codes & {"TLA001", "TLA002", "TLA004", "TLA005", "TLA006", "TLA007", "TLA008"}


def test_diff_writes_nothing_and_exits_1(tmp_path, capsys, monkeypatch):
    shutil.copy(os.path.join(HERE, "gemm_expert.py"), tmp_path / "g.py")
    monkeypatch.chdir(tmp_path)
    before = (tmp_path / "g.py").read_bytes()
    code, out, err = run(["migrate", "--diff", "g.py"], capsys)
    assert code == 1 and out.startswith("--- a/g.py\n+++ b/g.py\n")
    assert "-            with T.Scope(\"C\"):  # the cube part" in out
    assert (tmp_path / "g.py").read_bytes() == before
    assert "1 kernel to migrate" in err


def test_crlf_tabs_and_encoding_are_kept(tmp_path, capsys, monkeypatch):
    with open(os.path.join(HERE, "gemm_expert.py"), encoding="utf-8") as f:
        text = f.read()
    with open(os.path.join(HERE, "gemm_expert.py.migrated"), encoding="utf-8") as f:
        expected = f.read()
    head = "# -*- coding: latin-1 -*-\n# caf\xe9\n"
    (tmp_path / "g.py").write_bytes((head + text).replace("\n", "\r\n").encode("latin-1"))
    monkeypatch.chdir(tmp_path)
    assert run(["migrate", "g.py"], capsys)[0] == 0
    assert (tmp_path / "g.py").read_bytes() == (head + expected).replace("\n", "\r\n").encode("latin-1")


def test_manual_steps_are_reported_not_guessed(tmp_path, capsys, monkeypatch):
    shutil.copy(os.path.join(HERE, "fa_cross_flags.py"), tmp_path / "fa.py")
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(["migrate", "--output-format", "json", "fa.py"], capsys)
    report = json.loads(out)
    steps = [s for k in report["files"][0]["kernels"] for s in k["manual_steps"]]
    sections = sorted({s["section"] for s in steps})
    assert sections == ["§3.1 step 5", "§3.1.1 steps 1 and 3", "§3.1.1 steps 2 and 4"]
    text = (tmp_path / "fa.py").read_text()
    assert "TODO" not in text and "vid * block_M // 2" in text and "workspace" in text


def test_annotate_writes_todo_comments(tmp_path, capsys, monkeypatch):
    shutil.copy(os.path.join(HERE, "fa_cross_flags.py"), tmp_path / "fa.py")
    monkeypatch.chdir(tmp_path)
    assert run(["migrate", "--annotate", "fa.py"], capsys)[0] == 0
    text = (tmp_path / "fa.py").read_text()
    assert "# TODO(migrate, §3.1.1 steps 2 and 4): replace the GM round trip" in text
    import ast

    ast.parse(text)


SKIPPED = '''\
import tilelang
import tilelang.language as T
import os

CFG = {{tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: os.environ.get("SYNC") == "1"}}


@T.macro
def sync():
    T.barrier_all()


@tilelang.jit(out_idx=[-1], pass_configs={cfg})
def k1(M, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M,), dtype)):
        with T.Kernel(M // 64, is_npu=True) as (cid, vid):
            a = T.alloc_ub((32,), dtype)
            with T.Scope("V"):
                T.copy(A[cid * 64], a)
                {body}

    return main
'''


@pytest.mark.parametrize("cfg,body,reason", [
    ("CFG", "T.barrier_all()", "its pass_configs cannot be resolved"),
    ("{}", "T.sync_all()", "uses T.sync_all"),
])
def test_kernels_the_model_cannot_fully_resolve_are_skipped(tmp_path, capsys, monkeypatch, cfg, body, reason):
    (tmp_path / "k.py").write_text(SKIPPED.format(cfg=cfg, body=body))
    monkeypatch.chdir(tmp_path)
    before = (tmp_path / "k.py").read_bytes()
    code, out, _ = run(["migrate", "k.py"], capsys)
    assert code == 0 and "skipped: " + reason in out
    assert (tmp_path / "k.py").read_bytes() == before


def test_a_macro_shared_with_a_kernel_not_migrated_skips(tmp_path, capsys, monkeypatch):
    text = SKIPPED.format(cfg="{}", body="sync()") + '''

@tilelang.jit(out_idx=[-1], pass_configs={})
def k2(M, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M,), dtype)):
        with T.Kernel(M // 64, is_npu=True) as (cid, vid):
            with T.Scope("V"):
                sync()

    return main
'''
    (tmp_path / "k.py").write_text(text)
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(["migrate", "--kernel", "k1", "k.py"], capsys)
    assert "skipped: macro `sync` is shared with kernels that are not migrated" in out
    code, out, _ = run(["migrate", "k.py"], capsys)  # both together: fine
    assert "2 kernels migrated" in out


def test_a_read_before_write_through_gm_is_reported(tmp_path, capsys, monkeypatch):
    """Flash attention: the Cube scope reads `workspace_p` the Vector scope writes later in the
    source; flags ordered them, so unwrapped the order is wrong and a human must interleave."""
    shutil.copy(os.path.join(HERE, "flash_attention_expert.py"), tmp_path / "fa.py")
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(["migrate", "--diff", "fa.py"], capsys)
    assert code == 1
    _, err = capsys.readouterr()
    code, out, err = run(["migrate", "--output-format", "json", "fa.py"], capsys)
    steps = [s for k in json.loads(out)["files"][0]["kernels"] for s in k["manual_steps"]]
    order = [s for s in steps if s["section"] == "§3.1 step 3"]
    assert len(order) == 1 and "`workspace_p` is read here before it is written at line 67" in order[0]["what"]
    assert order[0]["line"] == 52
