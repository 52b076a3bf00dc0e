"""How much flake8-tilelang adds to flake8, as ratios measured in one run.

    python benchmarks/bench.py                       # the four headline figures, then the details
    python benchmarks/bench.py --real PATH           # the plugin share on a real tree (e.g. tilelang-ascend's examples/)
    python benchmarks/bench.py --server-file PATH    # the server on a real big file (default: a synthetic ~900-line one)
    python benchmarks/bench.py --headline            # only the four headline figures
    python benchmarks/bench.py --server-only         # only the language server (needs pygls)

The headline block prints the four speed figures of issue #21, each as a
ratio against a baseline measured in the same run:

1. lint-on-save: one fresh flake8 process on one kernel file, with the plugin
   against the same flake8 without it (paired runs): added ms and ratio;
2. plugin share on a corpus: whole-process CPU with / without the plugin;
3. the language server on a big file: change -> published diagnostics, p50
   and p90, against the bare ``lint_source`` of the same file in one process;
4. memory: peak RSS of flake8 over the corpus with / without the plugin, and
   the server's (its event loop and its lint worker).

Before measuring, the benchmark compiles the bytecode of the package and of
flake8 (what ``pip install`` does) and says so, and it prints the Python
flags and ``PYTHON*`` variables it runs with. Children run without
``PYTHONDONTWRITEBYTECODE`` (a machine that sets it would charge every run a
recompile of the whole project and skew whole-process ratios).

The baseline is the same flake8 command without the plugin: flake8 runs every
installed plugin whatever ``--select`` says, so users of other codes pay for
ours too. Both sides start the same launcher; the baseline tells flake8's
plugin finder to skip the flake8-tilelang distribution. Runs are paired and
interleaved (plugin, baseline, plugin, ...) and each line prints the median
ratio of whole-process times with the min-max over the pairs.

The synthetic corpus is deterministic: kernel files written from the
fixture kernels (every form the model handles) and as many plain Python files
that never import tilelang. It is written to a temporary folder.
"""
from __future__ import annotations

import argparse
import glob
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Measure what users run: byte-compiled modules (pip writes .pyc at install;
# an environment that forbids writing them would charge every run a recompile).
ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "FLAKE8_TILELANG_STRICT")}
# Children run in an empty folder: `python -c` and `-m` put the working
# directory first on sys.path, and a checkout there would shadow the package
# PYTHONPATH (or the install) names.
NEUTRAL = tempfile.mkdtemp(prefix="tla-bench-cwd-")


def env_with(package_root: str) -> dict:
    """ENV importing flake8_tilelang from ``package_root`` (another version)."""
    env = dict(ENV)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (os.path.abspath(package_root), ENV.get("PYTHONPATH")) if p)
    return env
LAUNCH = textwrap.dedent("""\
    import sys
    if sys.argv[1] == "baseline":
        import flake8.plugins.finder as finder
        finder.BANNED_PLUGINS["flake8-tilelang"] = "never"
    if sys.argv[1] == "self":
        # time spent inside the plugin (its lazy imports included) against
        # the whole process, in one run: no noise between two processes
        import time, atexit, resource
        from flake8_tilelang import plugin
        spent = [0.0]
        original = plugin.Plugin.run
        def timed(self):
            t0 = time.process_time()
            found = list(original(self))
            spent[0] += time.process_time() - t0
            return iter(found)
        plugin.Plugin.run = timed
        def report():
            ru = resource.getrusage(resource.RUSAGE_SELF)
            sys.stderr.write("SELF %f %f\\n" % (spent[0], ru.ru_utime + ru.ru_stime))
        atexit.register(report)
    import resource, atexit
    if sys.argv[2] != "-":
        atexit.register(lambda: sys.stderr.write(
            "MAXRSS %d\\n" % resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))
    sys.argv = ["flake8"] + sys.argv[3:]
    from flake8.main.cli import main
    main()
""")


# -- corpus ----------------------------------------------------------------

def plain_module(i: int) -> str:
    """A plain ~150-line module: classes, loops, comprehensions, no tilelang."""
    parts = ['"""Module %d: bookkeeping helpers."""' % i, "import collections", "import os", ""]
    for j in range(8):
        parts.append(textwrap.dedent('''
            class Ledger{i}_{j}:
                """Keeps running totals for account group {j}."""

                def __init__(self, names):
                    self.totals = collections.Counter()
                    self.names = list(names)

                def add(self, name, amount):
                    if name not in self.names:
                        raise KeyError(name)
                    self.totals[name] += amount
                    return self.totals[name]

                def report(self):
                    rows = [(n, self.totals[n]) for n in sorted(self.names)]
                    width = max((len(n) for n, _ in rows), default=0)
                    return os.linesep.join("%s %d" % (n.ljust(width), v) for n, v in rows)
            ''').format(i=i, j=j))
    return "\n".join(parts)


def build_corpus(directory: str, kernels: int, plain: int) -> tuple:
    templates = sorted(glob.glob(os.path.join(ROOT, "fixtures", "kernels", "*.py")))
    templates += sorted(glob.glob(os.path.join(ROOT, "fixtures", "rules", "*", "*.py")))
    kdir = os.path.join(directory, "kernels")
    pdir = os.path.join(directory, "plain")
    os.makedirs(kdir)
    os.makedirs(pdir)
    for i in range(kernels):
        with open(templates[i % len(templates)], encoding="utf-8") as f:
            text = f.read()
        with open(os.path.join(kdir, "kernel_%03d.py" % i), "w", encoding="utf-8") as f:
            f.write("# synthetic kernel %d\n" % i + text)
    for i in range(plain):
        with open(os.path.join(pdir, "module_%03d.py" % i), "w", encoding="utf-8") as f:
            f.write(plain_module(i))
    return kdir, pdir


def big_kernel_file(path: str, lines: int) -> None:
    """One long file of many kernels (like the largest real test files)."""
    with open(os.path.join(ROOT, "fixtures", "kernels", "compile_run_functions_testing_style.py"),
              encoding="utf-8") as f:
        template = f.read()
    header, _, body = template.partition("\n\n\n")
    chunks = [header]
    i = 0
    while sum(c.count("\n") for c in chunks) < lines:
        chunks.append(body.replace("def ", "def v%d_" % i).replace("(vec_", "(v%d_vec_" % i))
        i += 1
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n\n\n".join(chunks))


# -- measuring ---------------------------------------------------------------

def run(side: str, args: list, memory: bool = False, env: dict = None) -> tuple:
    """(wall seconds, CPU seconds of the process tree, max RSS KiB or 0)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", LAUNCH, "plugin" if side == "before" else side,
                           "mem" if memory else "-"] + args,
                          capture_output=True, text=True, env=env or ENV, cwd=NEUTRAL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    rss = 0
    for line in proc.stderr.splitlines():
        if line.startswith("MAXRSS "):
            rss = int(line.split()[1])
    if proc.returncode not in (0, 1):
        raise SystemExit("flake8 failed (%s): %s" % (side, proc.stderr[-2000:]))
    return wall, cpu, rss


HOST = textwrap.dedent("""\
    import contextlib, io, statistics, sys, time
    side, path, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if side == "baseline":
        import flake8.plugins.finder as finder
        finder.BANNED_PLUGINS["flake8-tilelang"] = "never"
    from flake8.main.application import Application
    def once():
        with contextlib.redirect_stdout(io.TextIOWrapper(io.BytesIO())):  # flake8 writes to .buffer
            Application().run(["--jobs=1", path])
    once(); once()  # imports and first-use caches: paid once per editor session
    spent = []
    for _ in range(runs):
        t0 = time.process_time()
        once()
        spent.append(time.process_time() - t0)
    print(statistics.median(spent) * 1000)
""")


def host_added_ms(path: str, runs: int = 40, env: dict = None) -> tuple:
    """Lint-on-save in a long-lived flake8 host: VS Code's Flake8 extension
    runs flake8 inside its language server's process (``runpy``, the same
    interpreter) or a long-lived JSON-RPC runner, so each save is one more
    ``Application().run`` with every module already imported. Median CPU ms
    per run with the plugin and without it, in two processes."""
    got = {}
    for side in ("plugin", "baseline"):
        out = subprocess.run([sys.executable, "-c", HOST, side, path, str(runs)], capture_output=True,
                             text=True, env=env or ENV, cwd=NEUTRAL)
        got[side] = float(out.stdout.strip().splitlines()[-1]) if out.returncode == 0 else float("nan")
    return got["plugin"], got["baseline"]


def self_share(args: list, runs: int, env: dict = None) -> str:
    """Median share of the plugin in a serial flake8 run's CPU time."""
    shares, spent = [], []
    for _ in range(runs):
        proc = subprocess.run([sys.executable, "-c", LAUNCH, "self", "-", "--jobs=1"] + args,
                              capture_output=True, text=True, env=env or ENV, cwd=NEUTRAL)
        for line in proc.stderr.splitlines():
            if line.startswith("SELF "):
                plugin, total = map(float, line.split()[1:])
                shares.append(plugin / (total - plugin))
                spent.append(plugin * 1000)
    if not shares:
        return "(not measured)"
    return "%5.3fx  (min %5.3f, max %5.3f)   plugin %.1f ms CPU (its imports included)" % (
        1 + statistics.median(shares), 1 + min(shares), 1 + max(shares), statistics.median(spent))


def paired(args: list, pairs: int, memory: bool = False, before_env: dict = None) -> dict:
    """Interleaved runs: plugin, [the other version's plugin,] baseline."""
    plugin, base, other = [], [], []
    run("plugin", args)  # warm the file cache once
    for _ in range(pairs):
        plugin.append(run("plugin", args, memory))
        if before_env is not None:
            other.append(run("before", args, memory, env=before_env))
        base.append(run("baseline", args, memory))
    return {"plugin": plugin, "baseline": base, "before": other}


def ratio_line(label: str, result: dict, index: int, unit: str = "", side: str = "plugin") -> str:
    ratios = [p[index] / b[index] for p, b in zip(result[side], result["baseline"]) if b[index]]
    med_p = statistics.median(p[index] for p in result[side])
    med_b = statistics.median(b[index] for b in result["baseline"])
    return "%-44s %5.3fx  (min %5.3f, max %5.3f)   plugin %7.1f ms, baseline %7.1f ms" % (
        label, statistics.median(ratios), min(ratios), max(ratios), med_p * 1000, med_b * 1000)


def added_ms_line(label: str, result: dict, index: int = 0, side: str = "plugin") -> str:
    """Median of the paired differences (0: wall, 1: CPU of the process)."""
    diffs = [(p[index] - b[index]) * 1000 for p, b in zip(result[side], result["baseline"])]
    return "%-44s %+6.1f ms %s (min %+.1f, max %+.1f)" % (
        label, statistics.median(diffs), "CPU" if index else "wall", min(diffs), max(diffs))


def import_cost_ms() -> float:
    """What importing the plugin adds to a flake8 process (median of 7)."""
    code = ("import time, flake8.main.cli, flake8.checker, flake8.style_guide\n"
            "t = time.perf_counter(); import flake8_tilelang.plugin\n"
            "print((time.perf_counter() - t) * 1000)")
    runs = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV,
                                 cwd=NEUTRAL).stdout)
            for _ in range(7)]
    return statistics.median(runs)


def cli_line(label: str, path: str, pairs: int) -> list:
    """flake8-tilelang check vs flake8 (with the plugin) on the same tree."""
    try:
        import flake8_tilelang.cli  # noqa: F401
    except ImportError:
        return ["%-44s (no CLI installed)" % label]
    lines = []
    cache_dir = tempfile.mkdtemp()

    def cli(*extra):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "flake8_tilelang", "check", "--exit-zero", "--select=TLA",
                        "--output-format", "concise"] + list(extra) + [path],
                       capture_output=True, text=True, cwd=cache_dir, env=ENV)
        return time.perf_counter() - t0

    cold, warm, f8 = [], [], []
    for _ in range(pairs):
        f8.append(run("plugin", ["--select=TLA", path])[0])
        cold.append(cli("--no-cache"))
        warm.append(cli())
    lines.append("%-44s %5.1fx faster  (flake8 %.0f ms, check %.0f ms)" % (
        label + " (no cache)", statistics.median(f8) / statistics.median(cold),
        statistics.median(f8) * 1000, statistics.median(cold) * 1000))
    lines.append("%-44s %5.1fx faster  (check, warm cache: %.0f ms)" % (
        label + " (warm cache)", statistics.median(f8) / statistics.median(warm), statistics.median(warm) * 1000))
    ruff = shutil.which("ruff")
    if ruff:
        t = []
        for _ in range(pairs):
            t0 = time.perf_counter()
            subprocess.run([ruff, "check", "--no-cache", "--exit-zero", "-q", path], capture_output=True)
            t.append(time.perf_counter() - t0)
        lines.append("%-44s %.0f ms" % ("ruff check on the same tree (reference)", statistics.median(t) * 1000))
    shutil.rmtree(cache_dir, ignore_errors=True)
    return lines


class _Lsp:
    """A minimal synchronous LSP client over the server's stdio (no library
    between the clock and the pipe)."""

    def __init__(self, cwd: str, env: dict = None):
        self.t0 = time.perf_counter()
        # cwd is only where the server runs; the workspace root is sent in initialize
        self.proc = subprocess.Popen([sys.executable, "-m", "flake8_tilelang", "server"], cwd=NEUTRAL, env=env or ENV,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.next_id = 0

    def send(self, method: str, params, request: bool = False):
        import json

        msg = {"jsonrpc": "2.0", "method": method, "params": params}
        if request:
            self.next_id += 1
            msg["id"] = self.next_id
        body = json.dumps(msg).encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()
        return msg.get("id")

    def read(self) -> dict:
        import json

        length = 0
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("the server exited")
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode("ascii").partition(":")
            if name.lower() == "content-length":
                length = int(value)
        return json.loads(self.proc.stdout.read(length))

    def until(self, pred) -> dict:
        while True:
            msg = self.read()
            if pred(msg):
                return msg

    def cpu_seconds(self) -> float:
        with open("/proc/%d/stat" % self.proc.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_kib(self) -> int:
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def close(self) -> None:
        rid = self.send("shutdown", None, request=True)
        self.until(lambda m: m.get("id") == rid)
        self.send("exit", None)
        self.proc.wait(timeout=30)


def server_lines(edits: int = 1000, starts: int = 5) -> list:
    """The language server: start (spawn to the initialize answer), change
    to published diagnostics in a warm server (median over ``edits`` full-text
    changes of a typical kernel file, debounce included), and resident memory
    over those edits."""
    try:
        import pygls  # noqa: F401
    except ImportError:
        return ["%-44s (pygls not installed: pip install '.[server]')" % "language server"]
    path = os.path.join(ROOT, "fixtures", "example", "quickstart_gemm_exp.py")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    uri = "file://" + path
    init = {"processId": os.getpid(), "rootUri": "file://" + ROOT, "capabilities": {}}
    start, start_cpu = [], []
    for _ in range(starts):
        c = _Lsp(ROOT)
        rid = c.send("initialize", init, request=True)
        c.until(lambda m: m.get("id") == rid)
        start.append(time.perf_counter() - c.t0)
        start_cpu.append(c.cpu_seconds())
        c.close()
    c = _Lsp(ROOT)
    rid = c.send("initialize", init, request=True)
    c.until(lambda m: m.get("id") == rid)
    c.send("initialized", {})
    c.send("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                     "text": text}})
    lines = text.split("\n")
    at = next(i for i, line in enumerate(lines) if "T.barrier_all()" in line)

    def published(version):
        return lambda m: (m.get("method") == "textDocument/publishDiagnostics"
                          and m["params"]["uri"] == uri and m["params"].get("version") == version)

    c.until(published(1))
    latency, rss = [], {}
    version = 1
    for i in range(edits + 50):
        version += 1
        edited = list(lines)
        edited[at] = lines[at] + "  # edit %d" % i  # a keystroke's worth of change; same findings
        c.send("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                          "contentChanges": [{"text": "\n".join(edited)}]})
        t0 = time.perf_counter()
        found = c.until(published(version))
        if i >= 50:  # warm-up first
            latency.append(time.perf_counter() - t0)
        assert len(found["params"]["diagnostics"]) == 5
        if i - 50 + 1 in (100, edits // 2, edits):
            rss[i - 50 + 1] = c.rss_kib()
    c.close()
    nlines = len(lines)
    return [
        "%-44s %6.0f ms wall (min %.0f, max %.0f), %.0f ms CPU" % (
            "language server start, to the initialize answer", statistics.median(start) * 1000,
            min(start) * 1000, max(start) * 1000, statistics.median(start_cpu) * 1000),
        "%-44s %6.1f ms median (p90 %.1f) over %d edits, %d-line kernel" % (
            "change -> published diagnostics (warm)", statistics.median(latency) * 1000,
            sorted(latency)[int(len(latency) * 0.9)] * 1000, len(latency), nlines),
        "%-44s %.1f MiB after 100 edits, %.1f after %d, %.1f after %d" % (
            "server memory (RSS)", rss[100] / 1024.0, rss[edits // 2] / 1024.0, edits // 2,
            rss[edits] / 1024.0, edits),
    ]


# -- the setting -----------------------------------------------------------------

def python_setting() -> str:
    """The interpreter and the flags every measured child runs with."""
    probe = ("import sys, json; f = sys.flags; "
             "print(json.dumps([sys.version.split()[0], sys.executable, "
             "{n: getattr(f, n) for n in dir(f) if not n.startswith(('_', 'n_')) and n not in ('count', 'index') "
             "and getattr(f, n) != {'hash_randomization': 1, 'int_max_str_digits': -1}.get(n, 0)}, "
             "sys._xoptions, sys.dont_write_bytecode]))")
    import json

    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=ENV, cwd=NEUTRAL)
    version, exe, flags, xopts, nowrite = json.loads(out.stdout)
    env = {k: v for k, v in ENV.items() if k.startswith("PYTHON")}
    dropped = [k for k in ("PYTHONDONTWRITEBYTECODE",) if k in os.environ]
    return ("python %s (%s); sys.flags other than the defaults: %s; -X: %s; dont_write_bytecode=%s\n"
            "PYTHON* in the children's environment: %s%s" % (
                version, exe, flags or "none", xopts or "none", nowrite,
                env or "none", ("; removed for the children: %s" % ", ".join(dropped)) if dropped else ""))


def compile_bytecode(env: dict = None) -> str:
    """Byte-compile what the children import (this package as the children
    see it, flake8 and its plugins, the server's libraries), as pip does at
    install time."""
    import compileall

    probe = ("import importlib.util, os\n"
             "for name in ('flake8_tilelang', 'flake8', 'pyflakes', 'pycodestyle', 'mccabe', 'pygls', "
             "'lsprotocol', 'cattrs', 'attr', 'astroid'):\n"
             "    spec = importlib.util.find_spec(name)\n"
             "    if spec and spec.submodule_search_locations:\n"
             "        print(list(spec.submodule_search_locations)[0])\n"
             "    elif spec and spec.origin:\n"
             "        print(spec.origin)\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env or ENV,
                         cwd=NEUTRAL)
    places = [p for p in out.stdout.splitlines() if p.strip()]
    done, failed = [], []
    for place in places:
        try:
            if os.path.isdir(place):
                ok = compileall.compile_dir(place, quiet=2, workers=1)
            else:
                ok = compileall.compile_file(place, quiet=2)
        except OSError:
            ok = False
        (done if ok else failed).append(place)
    ours = next((p for p in places if p.rstrip("/").endswith("flake8_tilelang")), "?")
    return "bytecode compiled first (as pip install does): %d packages, flake8_tilelang from %s%s" % (
        len(done), ours, ("; could not compile: %s" % ", ".join(failed)) if failed else "")


def lint_floor_ms(path: str, runs: int = 15, env: dict = None) -> float:
    """The bare ``lint_source`` of ``path`` in one warm process (median ms):
    the server's baseline, everything but the transport and the worker."""
    code = textwrap.dedent("""\
        import argparse, statistics, sys, time
        from flake8_tilelang.pipeline import lint_source
        from flake8_tilelang.settings import build_settings
        from flake8_tilelang.source import SourceFile
        path, runs = sys.argv[1], int(sys.argv[2])
        text = open(path, encoding="utf-8").read()
        settings = build_settings(argparse.Namespace(isolated=True), ".")
        times = []
        for _ in range(runs + 3):
            src = SourceFile.from_text(text)
            t0 = time.perf_counter()
            lint_source(path, src.raw, settings, source=src)
            times.append(time.perf_counter() - t0)
        print(statistics.median(times[3:]) * 1000)
    """)
    out = subprocess.run([sys.executable, "-c", code, path, str(runs)], capture_output=True, text=True,
                         env=env or ENV, cwd=NEUTRAL)
    try:
        return float(out.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return float("nan")


def _children_rss_kib(pid: int) -> int:
    total = 0
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            kids = [int(k) for k in f.read().split()]
    except OSError:
        return 0
    for kid in kids:
        try:
            with open("/proc/%d/status" % kid) as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total


def server_big_file(path: str, edits: int, env: dict = None) -> dict:
    """Change -> published diagnostics on ``path`` (each change adds a
    comment line at the end: the findings stay the same), in a warm server."""
    text = open(path, encoding="utf-8").read()
    uri = "file://" + os.path.abspath(path)
    c = _Lsp(ROOT, env)
    rid = c.send("initialize", {"processId": os.getpid(), "rootUri": "file://" + ROOT, "capabilities": {}},
                 request=True)
    c.until(lambda m: m.get("id") == rid)
    c.send("initialized", {})
    c.send("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                     "text": text}})

    def published(version):
        return lambda m: (m.get("method") == "textDocument/publishDiagnostics"
                          and m["params"]["uri"] == uri and m["params"].get("version") == version)

    first = c.until(published(1))
    count = len(first["params"]["diagnostics"])
    latency = []
    warm = 10
    for i in range(edits + warm):
        version = i + 2
        c.send("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                          "contentChanges": [{"text": text + "# edit %d\n" % i}]})
        t0 = time.perf_counter()
        found = c.until(published(version))
        if i >= warm:
            latency.append(time.perf_counter() - t0)
        assert len(found["params"]["diagnostics"]) == count
    rss, worker = c.rss_kib(), _children_rss_kib(c.proc.pid)
    c.close()
    latency.sort()
    return {"p50": statistics.median(latency) * 1000, "p90": latency[int(len(latency) * 0.9)] * 1000,
            "findings": count, "lines": text.count("\n") + 1, "rss": rss, "worker_rss": worker,
            "edits": len(latency), "latency": [x * 1000 for x in latency]}


def synthetic_server_file(path: str) -> None:
    """About 900 lines of kernels with many findings (the fixture kernels
    that have some, repeated)."""
    chosen = []
    for name in sorted(glob.glob(os.path.join(ROOT, "fixtures", "rules", "*", "*.py"))):
        with open(name, encoding="utf-8") as f:
            text = f.read()
        if "# expect:" in text and "__future__" not in text:
            chosen.append(text)
    body, i = [], 0
    while sum(t.count("\n") for t in body) < 880 and chosen:
        t = chosen[i % len(chosen)]
        body.append(t.replace("def ", "def s%d_" % i))
        i += 1
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n\n".join(body))


def headline(opts, work: str, kdir: str) -> None:
    """The four figures, each against its baseline, in this one run; with
    ``--before ROOT`` also for another version of the package (interleaved
    with this one, so both see the same machine)."""
    before = env_with(opts.before) if opts.before else None
    sides = [("plugin", "", ENV)] + ([("before", " [before]", before)] if before else [])
    print("== headline (issue #21): each figure against its baseline, measured in this run ==")
    if before:
        print("   [before] = flake8_tilelang from %s, interleaved with this version" % opts.before)
    # 1. lint-on-save
    single = opts.save_file or os.path.join(ROOT, "fixtures", "example", "quickstart_gemm_exp.py")
    r = paired(["--jobs=1", single], opts.save_pairs, before_env=before)
    for side, tag, env in sides:
        print(added_ms_line("1. lint-on-save, one flake8 process" + tag, r, 1, side=side))
        print(ratio_line("   same, whole-process CPU ratio" + tag, r, 1, side=side))
        print(added_ms_line("   same, wall (noisier on a busy machine)" + tag, r, 0, side=side))
    for side, tag, env in sides:
        print("%-44s %s" % ("   plugin CPU inside the process / rest" + tag, self_share([single], opts.pairs, env)))
    for side, tag, env in sides:
        plugin_ms, base_ms = host_added_ms(single, env=env)
        print("%-44s %+6.1f ms CPU per run (plugin %.1f ms, baseline %.1f ms per flake8 run)" % (
            "   same, in a long-lived host (VS Code)" + tag, plugin_ms - base_ms, plugin_ms, base_ms))
    # 2. plugin share on a corpus
    corpus = opts.real[0] if opts.real else kdir
    name = os.path.basename(corpus.rstrip("/")) if opts.real else "synthetic kernel corpus"
    r = paired(["--jobs=2", corpus], opts.pairs, before_env=before)
    for side, tag, env in sides:
        print(ratio_line("2. plugin share, %s, CPU (--jobs=2)%s" % (name, tag), r, 1, side=side))
    for side, tag, env in sides:
        print("%-44s %s" % ("   plugin CPU / rest, serial" + tag, self_share([corpus], opts.pairs, env)))
    # 4 (flake8 part). memory
    r = paired(["--jobs=1", corpus], max(3, opts.pairs // 2), memory=True, before_env=before)
    for side, tag, env in sides:
        ratios = [p[2] / b[2] for p, b in zip(r[side], r["baseline"]) if b[2]]
        if ratios:
            print("%-44s %5.3fx  (min %5.3f, max %5.3f)   plugin %6.1f MiB, baseline %6.1f MiB" % (
                "4. peak RSS, flake8 --jobs=1 over that corpus" + tag, statistics.median(ratios), min(ratios),
                max(ratios), statistics.median(p[2] for p in r[side]) / 1024.0,
                statistics.median(b[2] for b in r["baseline"]) / 1024.0))
    # 3. the server
    try:
        import pygls  # noqa: F401
    except ImportError:
        print("3. language server: not measured (pip install '.[server]')")
        return
    big = opts.server_file
    if not big:
        big = os.path.join(work, "server_big.py")
        synthetic_server_file(big)
    rounds = 2 if before else 1
    got = {side: [] for side, _, _ in sides}
    floors = {side: [] for side, _, _ in sides}
    for _ in range(rounds):  # alternate the versions
        for side, tag, env in sides:
            floors[side].append(lint_floor_ms(big, env=env))
            got[side].append(server_big_file(big, max(10, opts.server_edits // rounds), env=env))
    for side, tag, env in sides:
        runs = got[side]
        lat = sorted(x for s_ in runs for x in s_["latency"])
        p50, p90 = statistics.median(lat), lat[int(len(lat) * 0.9)]
        floor = statistics.median(floors[side])
        s0 = runs[-1]
        print("%-44s p50 %5.1f ms (%.2fx), p90 %5.1f ms (%.2fx) of the bare lint, %.1f ms; %d lines, %d findings, "
              "%d edits" % ("3. server change -> diagnostics, big file" + tag, p50, p50 / floor, p90, p90 / floor,
                            floor, s0["lines"], s0["findings"], len(lat)))
        print("%-44s %.1f MiB event loop + %.1f MiB in its children (lint worker, resource tracker)" % (
            "4. server memory (RSS) after those edits" + tag, s0["rss"] / 1024.0, s0["worker_rss"] / 1024.0))
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--kernels", type=int, default=300)
    parser.add_argument("--plain", type=int, default=300)
    parser.add_argument("--real", action="append", default=[], help="another tree to measure")
    parser.add_argument("--big", help="the largest real file (default: a synthetic 5,000-line one)")
    parser.add_argument("--server-only", action="store_true", help="only the language server numbers")
    parser.add_argument("--edits", type=int, default=1000, help="edits sent to the language server")
    parser.add_argument("--server-file", help="the big file for the server figure (default: synthetic, ~900 lines)")
    parser.add_argument("--server-edits", type=int, default=100, help="edits of the big file")
    parser.add_argument("--save-file", help="the kernel file of the lint-on-save figure (default: the example)")
    parser.add_argument("--save-pairs", type=int, default=15, help="pairs for the lint-on-save figure")
    parser.add_argument("--headline", action="store_true", help="only the four headline figures")
    parser.add_argument("--no-compile", action="store_true", help="do not byte-compile first (not what users run)")
    parser.add_argument("--before", help="a folder holding another version's flake8_tilelang package: the headline "
                                         "figures for it too, interleaved with this one")
    opts = parser.parse_args()
    print(python_setting())
    print(compile_bytecode() if not opts.no_compile else "bytecode NOT compiled first (--no-compile)")
    if opts.before and not opts.no_compile:
        print(compile_bytecode(env_with(opts.before)))
    print()
    if opts.server_only:
        for line in server_lines(opts.edits):
            print(line)
        return
    if opts.pairs < 5:
        parser.error("at least 5 pairs")
    work = tempfile.mkdtemp(prefix="tla-bench-")
    try:
        kdir, pdir = build_corpus(work, opts.kernels, opts.plain)
        headline(opts, work, kdir)
        if opts.headline:
            return
        big = opts.big or os.path.join(work, "big_kernels.py")
        if not opts.big:
            big_kernel_file(big, 5000)
        single = os.path.join(kdir, "kernel_%03d.py" % 3)
        empty = os.path.join(work, "empty.py")
        open(empty, "w").close()
        print("flake8-tilelang benchmark: %d pairs, %d kernel files, %d plain files, python %s"
              % (opts.pairs, opts.kernels, opts.plain, sys.version.split()[0]))
        print("ratios are plugin / baseline (same flake8 without flake8-tilelang); lower is better.\n"
              "'plugin CPU / rest' times the plugin inside one flake8 process (exact, no noise between\n"
              "processes); the paired whole-process ratios include this VM's run-to-run noise (see min-max).\n")
        print("%-44s %s" % ("kernel corpus, plugin CPU / rest of flake8", self_share([kdir], opts.pairs)))
        print("%-44s %s" % ("largest file, plugin CPU / rest of flake8", self_share([big], opts.pairs)))
        r = paired(["--jobs=2", kdir], opts.pairs)
        print(ratio_line("kernel corpus, CPU (--jobs=2)", r, 1))
        print(ratio_line("kernel corpus, wall (--jobs=2)", r, 0))
        r = paired(["--jobs=2", pdir], opts.pairs)
        print(ratio_line("plain files (no tilelang), CPU", r, 1))
        r = paired(["--jobs=1", single], opts.pairs)
        print(added_ms_line("one kernel file on save (%d lines)" % sum(1 for _ in open(single)), r))
        r = paired(["--jobs=1", empty], opts.pairs)
        print(added_ms_line("flake8 on an empty file", r))
        print("%-44s %6.1f ms" % ("import of flake8_tilelang.plugin", import_cost_ms()))
        r = paired(["--jobs=1", big], opts.pairs)
        print(ratio_line("largest file (%d lines), wall" % sum(1 for _ in open(big)), r, 0))
        r = paired(["--jobs=1", kdir], opts.pairs, memory=True)
        mem = [(p[2] - b[2]) / 1024.0 for p, b in zip(r["plugin"], r["baseline"])]
        print("%-44s %+6.1f MiB (min %+.1f, max %+.1f)" % (
            "peak memory, one process over the corpus", statistics.median(mem), min(mem), max(mem)))
        for line in cli_line("flake8-tilelang check vs flake8, kernels", kdir, opts.pairs):
            print(line)
        for path in opts.real:
            print("%-44s %s" % ("real tree %s, plugin CPU / rest" % os.path.basename(path.rstrip("/")),
                                self_share([path], opts.pairs)))
            r = paired(["--jobs=2", path], opts.pairs)
            print(ratio_line("real tree %s, CPU" % os.path.basename(path.rstrip("/")), r, 1))
            for line in cli_line("flake8-tilelang check vs flake8, %s" % os.path.basename(path.rstrip("/")),
                                 path, opts.pairs):
                print(line)
        for line in server_lines(opts.edits):
            print(line)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
