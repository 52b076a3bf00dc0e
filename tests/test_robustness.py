"""No input breaks the checker: mutated kernels, generated programs, pathological files.

The checker runs in strict mode here (conftest), so any exception inside the
model or a rule fails the test instead of becoming a TLA000 diagnostic.
"""
import ast
import glob
import os
import re
import subprocess
import sys
import sysconfig
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flake8_tilelang.engine import check_tree

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNELS = sorted(glob.glob(os.path.join(ROOT, "fixtures", "**", "*.py"), recursive=True))
SOURCES = [open(p, encoding="utf-8").read() for p in KERNELS]
HEADER = "import tilelang\nimport tilelang.language as T\n"


def lint_source(source, filename="mutant.py"):
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None  # flake8 reports E999; no plugin runs
    t0 = time.perf_counter()
    result = check_tree(tree, source.splitlines(True), filename)
    assert time.perf_counter() - t0 < 5.0
    return result


def _delete(lines, i, j):
    return lines[:i] + lines[i + 1:]


def _duplicate(lines, i, j):
    return lines[:i] + [lines[i]] + lines[i:]


def _swap(lines, i, j):
    lines = list(lines)
    lines[i], lines[j] = lines[j], lines[i]
    return lines


def _truncate(lines, i, j):
    return lines[:i]


def _nest(lines, i, j):
    """Wrap a run of lines into an extra block."""
    lo, hi = sorted((i, j))
    indent = re.match(r"\s*", lines[lo]).group(0) if lines else ""
    block = [indent + "if True:\n"] + ["    " + l if l.strip() else l for l in lines[lo:hi + 1]]
    return lines[:lo] + block + lines[hi + 1:]


MUTATIONS = [_delete, _duplicate, _swap, _truncate, _nest]
IDENTIFIERS = ["T", "tilelang", "main", "cid", "vid", "PASS_CONFIGS", "pass_configs", "Scope", "macro",
               "prim_func", "jit", "Kernel", "threads", "compile"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_kernels_never_crash(data):
    source = data.draw(st.sampled_from(SOURCES))
    lines = source.splitlines(True)
    for _ in range(data.draw(st.integers(1, 4))):
        if not lines:
            break
        i = data.draw(st.integers(0, len(lines) - 1))
        j = data.draw(st.integers(0, len(lines) - 1))
        lines = data.draw(st.sampled_from(MUTATIONS))(lines, i, j)
    text = "".join(lines)
    if data.draw(st.booleans()):
        old = data.draw(st.sampled_from(IDENTIFIERS))
        new = data.draw(st.sampled_from(IDENTIFIERS + ["x", "_", "T2"]))
        text = re.sub(r"\b%s\b" % old, new, text)
    lint_source(text)


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_generated_programs_never_crash(data):
    hypothesmith = pytest.importorskip("hypothesmith")
    program = data.draw(hypothesmith.from_grammar())
    lint_source(HEADER + program)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_generated_statements_inside_a_kernel_never_crash(data):
    hypothesmith = pytest.importorskip("hypothesmith")
    program = data.draw(hypothesmith.from_node())
    body = "".join("            " + l + "\n" for l in program.splitlines())
    source = HEADER + (
        "CFG = {tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True}\n"
        "@tilelang.jit(pass_configs=CFG)\n"
        "def f(M):\n"
        "    @T.prim_func\n"
        "    def main(A: T.Tensor((M,), 'float16')):\n"
        "        with T.Kernel(4, is_npu=True) as (cid, vid):\n"
        "            T.barrier_all()\n" + body + "    return main\n")
    lint_source(source)


# -- pathological inputs -------------------------------------------------------

def test_fifty_thousand_line_file():
    with open(os.path.join(ROOT, "fixtures", "kernels", "compile_run_functions_testing_style.py"),
              encoding="utf-8") as f:
        template = f.read()
    chunks = [template]
    while sum(c.count("\n") for c in chunks) < 50_000:
        chunks.append(re.sub(r"\bvec_", "c%d_vec_" % len(chunks), template))
    source = "\n".join(chunks)
    tree = ast.parse(source)
    # every copy is checked and nothing is lost to a budget; how long it takes is the
    # benchmark's question (`benchmarks/bench.py --big`), never a timed test's
    found = check_tree(tree, source.splitlines(True), "huge.py")
    per_copy = len(lint_source(template))
    assert per_copy > 0 and len(found) == per_copy * len(chunks)


def test_thousand_level_nested_expression():
    # deep enough that a recursive walk over the expression would overflow
    source = HEADER + "x = " + "-" * 1000 + "1\n" + "y = " + "(" * 150 + "1" + ")" * 150 + "\n"
    assert lint_source(source) == []


def test_recursion_error_becomes_internal_error_diagnostic(monkeypatch):
    monkeypatch.delenv("FLAKE8_TILELANG_STRICT")
    import flake8_tilelang.model as model_pkg

    def deep(tree, filename):
        def down(n):
            return down(n + 1)
        return down(0)

    monkeypatch.setattr(model_pkg, "build_model", deep)
    found = check_tree(ast.parse(HEADER), HEADER.splitlines(True), "deep.py")
    assert [d.code for d in found] == ["TLA000"]
    assert "RecursionError" in found[0].message and "report it" in found[0].flake8_text("error")


@pytest.mark.parametrize("content", [
    b"",
    b"import tilelang\n",
    b"import tilelang\r\nimport tilelang.language as T\r\n\r\n@tilelang.jit\r\ndef f(M):\r\n\treturn M\r\n",
    b"# -*- coding: latin-1 -*-\nimport tilelang\nname = '\xe9t\xe9'\n",
    b"import tilelang\nname = '\xe9t\xe9'\n",  # not UTF-8 and no cookie
    b"import tilelang\x00\n",
    b"\xef\xbb\xbfimport tilelang\nimport tilelang.language as T\n",  # UTF-8 BOM
])
def test_odd_files_through_flake8(tmp_path, content):
    from test_flake8 import FLAKE8_CRASHES_ON_NUL

    if b"\x00" in content and FLAKE8_CRASHES_ON_NUL:
        pytest.skip("flake8 itself crashes on NUL bytes with this Python (ast.parse raises ValueError)")
    (tmp_path / "odd.py").write_bytes(content)
    env = dict(os.environ)
    env.pop("FLAKE8_TILELANG_STRICT", None)
    proc = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select=TLA,E9", "odd.py"],
                          cwd=str(tmp_path), capture_output=True, text=True, env=env, timeout=60)
    assert "Traceback" not in proc.stderr and "TLA000" not in proc.stdout
    assert proc.returncode in (0, 1)


@pytest.mark.slow
def test_standard_library_gets_no_tla_diagnostics():
    stdlib = sysconfig.get_paths()["stdlib"]
    env = dict(os.environ)
    env.pop("FLAKE8_TILELANG_STRICT", None)
    proc = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select=TLA", "--exclude=site-packages",
         "--jobs=2", stdlib], capture_output=True, text=True, env=env, timeout=1800)
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert proc.stdout == ""
