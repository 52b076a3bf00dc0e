"""README's GitHub Actions workflow, run the way the runner would.

The ```yaml block of README.md that uploads SARIF is parsed (tests/mini_yaml.py;
no YAML library in the product), its structure checked (permissions, the
steps' order and conditions, the SARIF file the upload reads is the one the
check writes), and its steps executed in a temporary checkout of fixture
kernels: each `run:` through `bash --noprofile --norc -eo pipefail -c` (the
runner's default shell) with this environment's `flake8-tilelang` first on
PATH, each `if:` evaluated from the earlier steps' outcomes, the upload step
replaced by a check that its file exists and is SARIF 2.1.0. The install step
(a git URL at a placeholder commit) is checked for shape, not run; the slow
test in tests/test_release.py installs from a checkout.
"""
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

import mini_yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = shutil.which("flake8-tilelang", path=os.path.dirname(sys.executable))


def _workflow():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    blocks = [b for b in re.findall(r"^```yaml\n(.*?)^```", readme, re.S | re.M) if "upload-sarif" in b]
    assert len(blocks) == 1, "README must hold exactly one workflow that uploads SARIF"
    return blocks[0], mini_yaml.load(blocks[0])


def _steps():
    _, doc = _workflow()
    (job,) = doc["jobs"].values()
    return job["steps"]


def test_mini_yaml_reads_the_workflow_as_pyyaml_does():
    yaml = pytest.importorskip("yaml")
    text, doc = _workflow()
    theirs = yaml.safe_load(text)
    theirs["on"] = theirs.pop(True)  # YAML 1.1 reads the key `on` as a boolean
    assert doc == theirs


def test_workflow_structure():
    _, doc = _workflow()
    assert doc["permissions"] == {"contents": "read", "security-events": "write"}
    (job,) = doc["jobs"].values()
    assert job["runs-on"] == "ubuntu-latest"
    steps = job["steps"]
    uses = [s.get("uses", "").split("@")[0] for s in steps]
    assert uses[:2] == ["actions/checkout", "actions/setup-python"]
    runs = [s["run"] for s in steps if "run" in s]
    install, sarif_run, gate_run = runs
    # not on PyPI: a git URL pinned to a commit, never a bare `pip install flake8-tilelang`
    assert re.search(r'pip install "flake8-tilelang @ git\+https://\S+@<commit>"$', install)
    sarif = next(s for s in steps if s.get("run") == sarif_run)
    gate = next(s for s in steps if s.get("run") == gate_run)
    upload = steps[-1]
    assert upload["uses"] == "github/codeql-action/upload-sarif@v4"  # v3 is deprecated in December 2026
    # the order the conditions rely on: SARIF (never fails on findings), gate, upload
    assert steps.index(sarif) < steps.index(gate) < steps.index(upload)
    assert "--exit-zero" in sarif_run.split() and "--output-format sarif" in sarif_run
    assert "--exit-zero" not in gate_run.split() and "--output-format github" in gate_run
    out = sarif_run.split()[sarif_run.split().index("-o") + 1]
    assert upload["with"]["sarif_file"] == out
    assert upload["with"]["category"] == "flake8-tilelang"
    # the upload runs after the gate failed, only when the SARIF step succeeded
    assert "if" not in sarif and "if" not in gate
    assert sarif["id"] in upload["if"] and "cancelled()" in upload["if"]


# -- running it -------------------------------------------------------------------

def _condition(expr, outcomes, failed):
    """GitHub's `if:` for the forms the snippet uses (no `if:` is success())."""
    if expr is None:
        return not failed
    text = expr.strip()
    if text.startswith("${{") and text.endswith("}}"):
        text = text[3:-2].strip()
    tokens = re.findall(r"steps\.[\w-]+\.outcome|'[^']*'|[a-z]+\(\)|&&|\|\||==|!=|!|\(|\)|\S+", text)
    py = []
    for t in tokens:
        if t.startswith("steps."):
            py.append(repr(outcomes.get(t.split(".")[1], "")))
        elif t.startswith("'"):
            py.append(repr(t[1:-1]))
        elif t in ("always()", "success()", "failure()", "cancelled()"):
            py.append(repr({"always()": True, "success()": not failed, "failure()": failed,
                            "cancelled()": False}[t]))
        elif t in ("&&", "||", "!", "==", "!=", "(", ")"):
            py.append({"&&": "and", "||": "or", "!": "not"}.get(t, t))
        else:
            raise AssertionError("unsupported token %r in if: %r" % (t, expr))
    return bool(eval(" ".join(py), {"__builtins__": {}}, {}))  # noqa: S307 - our own tokens


def _valid_sarif(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    assert doc["version"] == "2.1.0" and doc["$schema"].endswith("sarif-2.1.0.json")
    (run,) = doc["runs"]
    assert run["tool"]["driver"]["name"] == "flake8-tilelang"
    ids = {r["id"] for r in run["tool"]["driver"]["rules"]}
    for result in run["results"]:
        assert result["ruleId"] in ids
        loc = result["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert not loc["artifactLocation"]["uri"].startswith("/")
    return run["results"]


def _run_workflow(workdir):
    """Every step in order; returns [(step, exit code or 'skipped'), ...] and
    the job's failure."""
    env = dict(os.environ, PATH=os.path.dirname(SCRIPT) + os.pathsep + os.environ.get("PATH", ""),
               PYTHONPATH=ROOT, FLAKE8_TILELANG_NO_CACHE="")
    env.pop("FLAKE8_TILELANG_NO_CACHE")
    outcomes, failed, log = {}, False, []
    for step in _steps():
        if not _condition(step.get("if"), outcomes, failed):
            log.append((step, "skipped", None))
            outcomes[step.get("id", "")] = "skipped"
            continue
        if "uses" in step:
            if step["uses"].startswith("github/codeql-action/upload-sarif"):
                path = os.path.join(workdir, step["with"]["sarif_file"])
                code = 0 if os.path.isfile(path) else 1
                results = _valid_sarif(path) if code == 0 else None
                log.append((step, code, results))
            else:  # checkout and setup-python: the folder and this Python are ready
                log.append((step, 0, None))
                code = 0
        elif "pip install" in step["run"]:
            log.append((step, 0, None))  # installing is the slow release test's job
            code = 0
        else:
            proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
                                  cwd=workdir, env=env, capture_output=True, text=True, timeout=300)
            code = proc.returncode
            log.append((step, code, proc))
        if step.get("id"):
            outcomes[step["id"]] = "success" if code == 0 else "failure"
        failed = failed or code != 0
    return log, failed


def _checkout(tmp_path, files):
    work = tmp_path / "repo"
    work.mkdir()
    (work / ".git").mkdir()  # what actions/checkout leaves: the repository root
    for name, text in files.items():
        path = work / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return str(work)


def _fixture(name):
    with open(os.path.join(ROOT, "fixtures", "example", name), encoding="utf-8") as f:
        return f.read()


CLEAN_KERNEL = '''\
import tilelang
import tilelang.language as T

PASS_CONFIGS = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True,
}


@tilelang.jit(out_idx=[-1], pass_configs=PASS_CONFIGS)
def vec_add(M, N, block_M, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel(M // block_M, is_npu=True) as (cid, vid):
            a_ub = T.alloc_ub((block_M, N), dtype)
            b_ub = T.alloc_ub((block_M, N), dtype)
            T.copy(A[cid * block_M, 0], a_ub)
            T.copy(B[cid * block_M, 0], b_ub)
            T.tile.add(a_ub, a_ub, b_ub)
            T.copy(a_ub, C[cid * block_M, 0])

    return main
'''

needs_script = pytest.mark.skipif(SCRIPT is None, reason="no flake8-tilelang console script next to this Python")


def _by_name(log):
    return {(s.get("name") or s.get("uses")): (code, extra) for s, code, extra in log}


@needs_script
def test_findings_upload_sarif_and_fail_the_job(tmp_path):
    work = _checkout(tmp_path, {"kernels/quickstart_gemm_exp.py": _fixture("quickstart_gemm_exp.py")})
    log, failed = _run_workflow(work)
    steps = _by_name(log)
    assert failed
    code, proc = steps["flake8-tilelang (SARIF)"]
    assert code == 0, proc.stderr
    code, proc = steps["flake8-tilelang (annotations; fails on findings)"]
    assert code == 1, proc.stderr
    annotations = [line for line in proc.stdout.splitlines() if line.startswith("::")]
    assert len(annotations) == 5
    assert all(",title=flake8-tilelang (TLA" in a for a in annotations)
    assert "file=kernels/quickstart_gemm_exp.py," in annotations[0]
    code, results = steps["Upload SARIF to code scanning"]
    assert code == 0 and len(results) == 5
    assert {r["ruleId"] for r in results} == {"TLA001", "TLA002", "TLA003", "TLA050"}
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results} == {
        "kernels/quickstart_gemm_exp.py"}


@needs_script
def test_clean_tree_passes_and_still_uploads(tmp_path):
    work = _checkout(tmp_path, {"kernels/vec_add.py": CLEAN_KERNEL})
    log, failed = _run_workflow(work)
    assert not failed, [(s.get("name"), c, getattr(p, "stderr", None)) for s, c, p in log]
    code, results = _by_name(log)["Upload SARIF to code scanning"]
    assert code == 0 and results == []


@needs_script
def test_config_error_stops_before_the_upload(tmp_path):
    work = _checkout(tmp_path, {"kernels/vec_add.py": CLEAN_KERNEL,
                                "pyproject.toml": '[tool.flake8-tilelang]\nselectt = ["TLA"]\n'})
    log, failed = _run_workflow(work)
    steps = _by_name(log)
    assert failed
    code, proc = steps["flake8-tilelang (SARIF)"]
    assert code == 2 and "unknown key 'selectt'" in proc.stderr
    assert not os.path.exists(os.path.join(work, "flake8-tilelang.sarif"))
    assert steps["flake8-tilelang (annotations; fails on findings)"][0] == "skipped"
    assert steps["Upload SARIF to code scanning"][0] == "skipped"


def test_condition_evaluator():
    expr = "${{ !cancelled() && steps.sarif.outcome == 'success' }}"
    assert _condition(expr, {"sarif": "success"}, failed=True)
    assert not _condition(expr, {"sarif": "failure"}, failed=True)
    assert not _condition(None, {}, failed=True) and _condition(None, {}, failed=False)
    assert _condition("${{ always() }}", {}, failed=True)
