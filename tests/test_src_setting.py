"""Ruff's `src` setting (issue #19, form 1): first-party roots for
`from compiler.x import y`, in check, the flake8 plugin and the server's settings."""
import os
import subprocess
import sys

import pytest

from flake8_tilelang.settings import ConfigError, read_config

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROJ = os.path.join(ROOT, "fixtures", "crossmod", "src_roots")
KERNEL = os.path.join("kernels", "row_softmax_exp.py")


def test_src_is_relative_to_the_config_and_stays_inside(tmp_path):
    cfg = tmp_path / "pyproject.toml"
    (tmp_path / "python").mkdir()
    cfg.write_text('[tool.flake8-tilelang]\nsrc = ["python", "compiler/"]\n')
    assert read_config(str(cfg), [])["src"] == (str(tmp_path / "python"), str(tmp_path / "compiler"))
    for bad, why in [('["../elsewhere"]', "outside the project folder"), ('["/usr/lib"]', "is absolute"),
                     ('[""]', "is not a folder name"), ('"python"', "expected a list")]:
        cfg.write_text("[tool.flake8-tilelang]\nsrc = %s\n" % bad)
        with pytest.raises(ConfigError, match=why):
            read_config(str(cfg), [])


def test_src_through_a_symlink_out_of_the_project_is_refused(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    proj = tmp_path / "proj"
    proj.mkdir()
    os.symlink(str(outside), str(proj / "python"))
    cfg = proj / "pyproject.toml"
    cfg.write_text('[tool.flake8-tilelang]\nsrc = ["python"]\n')
    with pytest.raises(ConfigError, match="outside the project folder .* once symlinks are resolved"):
        read_config(str(cfg), [])


def test_check_reads_src_from_the_pyproject(monkeypatch, capsys):
    from flake8_tilelang.cli import main

    monkeypatch.chdir(PROJ)
    assert main(["check", "--no-cache", "--output-format", "concise", KERNEL]) == 1
    out = capsys.readouterr().out
    assert ":18:18: TLA001" in out and ":20:17: TLA002" in out and "python/compiler/tl_ops/flags.py:7" in out
    # without the setting two `compiler` packages exist: unknown, silent
    assert main(["check", "--no-cache", "--isolated", KERNEL]) == 0
    capsys.readouterr()
    assert main(["config", "--output-format", "json"]) == 0
    assert '"src": [\n    "%s"' % os.path.join(PROJ, "python") in capsys.readouterr().out


def test_the_loader_never_searches_a_src_folder_outside_the_project(tmp_path):
    import ast

    from flake8_tilelang.engine import check_tree

    path = os.path.join(PROJ, KERNEL)
    with open(path) as f:
        source = f.read()
    lines = source.splitlines(True)
    wanted = {"TLA001", "TLA002"}.__contains__
    inside = check_tree(ast.parse(source), lines, path, wanted=wanted, src=[os.path.join(PROJ, "python")])
    assert sorted(d.code for d in inside) == ["TLA001", "TLA002"]
    # the same package copied outside the project root is not first-party
    import shutil

    shutil.copytree(os.path.join(PROJ, "python"), str(tmp_path / "python"))
    assert check_tree(ast.parse(source), lines, path, wanted=wanted, src=[str(tmp_path / "python")]) == []


def test_flake8_plugin_option_tilelang_src():
    env = dict(os.environ, PYTHONPATH=ROOT)
    cmd = [sys.executable, "-m", "flake8", "--isolated", "--select", "TLA", KERNEL]
    plain = subprocess.run(cmd, cwd=PROJ, env=env, capture_output=True, text=True)
    assert plain.stdout == ""
    found = subprocess.run(cmd + ["--tilelang-src", "python"], cwd=PROJ, env=env, capture_output=True, text=True)
    assert "TLA001" in found.stdout and "TLA002" in found.stdout, found.stderr
    npuir = subprocess.run(cmd + ["--tilelang-src", "python", "--tilelang-target", "npuir"], cwd=PROJ, env=env,
                           capture_output=True, text=True)
    # no site names a target: the setting makes them npuir, where no Ascend C rule judges them and
    # the kernel's `T.Scope("V")` is the Cube core (TLA034, the AscendNPU IR rule)
    codes = {line.split()[1] for line in npuir.stdout.splitlines()}
    assert codes == {"TLA034"}, npuir.stdout
