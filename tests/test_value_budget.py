"""Issue #22 point 4: the evaluator's budget covers the size of values.

Each program below would make a naive evaluator compute a huge value (an int
squared 32 times, a 2 GB formatted string, a tuple doubled 40 times...). The
evaluator judges the size of every result before computing it; over budget
the value is unknown. All of them run at once through the three front ends
(``check``, the flake8 plugin, ``kernels``) under a wall-clock and a memory
limit; on each, the kernel that follows is still read (the rest of the
module is not lost).
"""
import os
import resource
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEMORY = 1 << 30  # address space of the checking process
SECONDS = 120  # wall clock per front end, on a loaded two-core machine

KERNEL = textwrap.dedent("""\
    import tilelang
    import tilelang.language as T

    PASS_CONFIGS = {tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True}

    {body}


    def build(M, N):
        @T.prim_func
        def main(A: T.Tensor((M, N), "float16")):
            with T.Kernel(M // 64, is_npu=True) as (cid, vid):
                a_ub = T.alloc_ub((32, N), "float16")
                with T.Scope("V"):
                    T.copy(A[cid * 64, 0], a_ub)
                    T.barrier_all()  # TLA002 on every program: the module was read past the bomb

        return main


    kernel = tilelang.compile(build(1024, 1024), pass_configs=PASS_CONFIGS)
""")

LOOP32 = "for _ in 'abcdefghijklmnopqrstuvwxyzabcdef':\n"

BOMBS = {
    "square_loop": "x = 3\n" + LOOP32 + "    x = x * x\n",
    "square_unrolled": "x = 3\n" + "x = x * x\n" * 32,
    "square_augmented": "x = 3\n" + LOOP32 + "    x *= x\n",
    "power_chain": "x = 10\n" + "x = x ** 64\n" * 8,
    "power_augmented": "x = 7\n" + LOOP32 + "    x **= 60\n",
    "shift_chain": "x = 1\n" + "x = x << 64\n" * 2000,
    "percent_width": "s = '%02000000000d' % 7\n",
    "percent_precision": "s = '%.2000000000f' % 1.5\n",
    "percent_bytes": "s = b'%02000000000d' % 7\n",
    "percent_named": "s = '%(a)0999999999d' % {'a': 1}\n",
    "string_doubling": "s = 'ab'\n" + LOOP32 + "    s = s + s\n",
    "string_repeat": "s = 'ab' * 100\n" + LOOP32 + "    s = s * 2\n",
    "tuple_doubling": "t = (1,)\n" + LOOP32 + "    t = (t, t)\n",
    "tuple_concat": "t = (1, 2)\n" + LOOP32 + "    t = t + t\n",
    "list_doubling": "l = [1]\n" + LOOP32 + "    l = [l, l]\n",
    "list_append_self": "l = [1]\n" + LOOP32 + "    l.append(list(l))\n",
    "dict_doubling": "d = {}\n" + LOOP32 + "    d = {1: d, 2: d}\n",
    "nested_comprehension": "t = [(i, j) for i in range(64) for j in range(64)]\n"
                            "u = [[t, t] for _ in range(64)]\n",
    "comprehension_of_bombs": "x = 3\n" + LOOP32 + "    x = x * x\n"
                              "t = [x for _ in range(64)]\n",
    "fstring_huge_int": "x = 3\n" + "x = x * x\n" * 14 + "s = f'{x}{x}'\n",
    "str_of_huge_int": "x = 3\n" + "x = x * x\n" * 14 + "s = str(x)\n",
    "zip_doubling": "t = (1, 2)\n" + LOOP32 + "    t = tuple(zip(t, t))\n",
    "huge_range": "r = range(10 ** 30)\nn = len(r)\n",
    "join_repeat": "s = '-'.join(['ab'] * 1000000000)\n",
    "list_repeat": "l = [0] * 1000000000\n",
}


def _write(tmp_path):
    for name, body in BOMBS.items():
        (tmp_path / ("bomb_%s.py" % name)).write_text(KERNEL.replace("{body}", body))


def _limited():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def _run(args, cwd):
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop("FLAKE8_TILELANG_STRICT", None)
    return subprocess.run(args, cwd=str(cwd), capture_output=True, text=True, env=env, timeout=SECONDS,
                          preexec_fn=_limited)


@pytest.mark.parametrize("front", ["check", "flake8", "kernels"])
def test_value_bombs_stay_within_time_and_memory(tmp_path, front):
    _write(tmp_path)
    exe = os.path.dirname(sys.executable)
    if front == "check":
        proc = _run([os.path.join(exe, "flake8-tilelang"), "check", "--no-cache", "--select", "TLA002", "."],
                    tmp_path)
    elif front == "flake8":
        proc = _run([sys.executable, "-m", "flake8", "--isolated", "--jobs=1", "--select=TLA002,TLA000,E9", "."],
                    tmp_path)
    else:
        proc = _run([os.path.join(exe, "flake8-tilelang"), "kernels", "."], tmp_path)
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    if front == "kernels":
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
        for name in BOMBS:
            assert "bomb_%s.py" % name in proc.stdout
        return
    for name in BOMBS:
        lines = [line for line in proc.stdout.splitlines() if "bomb_%s.py" % name in line]
        assert any("TLA002" in line for line in lines), (name, proc.stdout[-3000:], proc.stderr[-2000:])
        assert not any("TLA000" in line or "E999" in line for line in lines), lines


def test_size_is_judged_before_computing():
    from flake8_tilelang.model.evaluate import budget

    assert not budget.int_result_fits("mul", 1 << 20000, 1 << 20000)
    assert budget.int_result_fits("mul", 1 << 100, 1 << 100)
    assert not budget.int_result_fits("pow", 10, 100000)
    assert not budget.int_result_fits("lshift", 1, 1 << 40)
    assert budget.int_result_fits("pow", 2, -3)
    assert not budget.format_fits("%02000000000d")
    assert not budget.format_fits("%*d")
    assert budget.format_fits("%d-%s %5.2f")
    nested = (1,)
    for _ in range(40):
        nested = (nested, nested)
    assert budget.size_of(nested, {}) > budget.MAX_SIZE  # measured without walking 2**40 leaves


def test_values_within_budget_are_still_computed():
    import ast

    from flake8_tilelang.model import build_model as build

    source = KERNEL.replace("{body}", "x = 3\nfor _ in 'abcd':\n    x = x * x\nW = '%05d' % 42\n"
                                      "T2 = (1, 2) + (3,)\n")
    model = build(ast.parse(source), "k.py")
    ev = model.resolver.evaluator()
    assert ev.final("x") == 3 ** 16
    assert ev.final("W") == "00042"
    assert ev.final("T2") == (1, 2, 3)


def test_parametrized_tests_leave_the_module_its_budget():
    """Rows of many parametrized tests run only while half the step budget is
    left: a test file with many of them is still evaluated (its own
    findings kept), the later tests run once with unknown arguments."""
    from helpers import lint

    tests = "\n".join(textwrap.dedent('''
        @pytest.mark.parametrize("n", [64, 128, 256, 512])
        @pytest.mark.parametrize("dtype", ["float16", "float", "int32", "int16"])
        def test_case_%d(n, dtype):
            for _ in range(8):
                tilelang.compile(build(n * 64, n), pass_configs=PASS_CONFIGS)
        ''') % i for i in range(120))
    source = KERNEL.replace("{body}", "import pytest") + "\n" + tests + \
        "\n\ntilelang.compile(build(1024, 64), pass_configs=PASS_CONFIGS)\n"
    found = [d.code for d in lint(source)]
    assert "TLA002" in found, found
