"""Shared test helpers: run the engine on source text or a fixture file."""
import ast
import os
import re
import textwrap

from flake8_tilelang.engine import check_tree
from flake8_tilelang.model import build_model

SELECT_RE = re.compile(r"#\s*tla-extend-select:\s*([A-Z0-9, ]+)")
EXPECT_RE = re.compile(r"#\s*expect:\s*([A-Z]{3}\d{3}(?:\s*,\s*[A-Z]{3}\d{3})*)")
# Known engine errors in a fixture, so the fixture states the truth and the suite stays green:
#   `...  # expect: TLA002  # xfail: why the engine misses it`      (a miss)
#   `...  # xfail-unexpected: TLA002 why the engine reports it`     (a wrong finding)
XFAIL_MISS_RE = re.compile(r"#\s*expect:\s*([A-Z]{3}\d{3}(?:\s*,\s*[A-Z]{3}\d{3})*)\s*#\s*xfail:\s*(.+)")
XFAIL_UNEXPECTED_RE = re.compile(r"#\s*xfail-unexpected:\s*([A-Z]{3}\d{3})\s+(.+)")


def lint(source, filename="kernel.py"):
    source = textwrap.dedent(source)
    lines = source.splitlines(keepends=True)
    return check_tree(ast.parse(source), lines, filename, wanted=wanted_for(source))


def codes(source, filename="kernel.py"):
    return [(d.line, d.code) for d in lint(source, filename)]


def model(source, filename="kernel.py"):
    return build_model(ast.parse(textwrap.dedent(source)), filename)


def expected_in(path):
    """{(line, code)} from `# expect: TLA001, TLA002` markers."""
    out = set()
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            m = EXPECT_RE.search(line)
            if m:
                for code in m.group(1).split(","):
                    out.add((lineno, code.strip()))
    return out


def xfails_in(path):
    """({(line, code)} the engine is known to miss, {(line, code)} it is known
    to report wrongly, [reasons]) from the xfail markers."""
    missed, wrong, reasons = set(), set(), []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            m = XFAIL_MISS_RE.search(line)
            if m:
                missed.update((lineno, c.strip()) for c in m.group(1).split(","))
                reasons.append("line %d: %s" % (lineno, m.group(2).strip()))
            m = XFAIL_UNEXPECTED_RE.search(line)
            if m:
                wrong.add((lineno, m.group(1)))
                reasons.append("line %d: %s" % (lineno, m.group(2).strip()))
    return missed, wrong, reasons


def wanted_for(source):
    """Default rules, plus opt-in codes a fixture names in a
    `# tla-extend-select: TLA052, TLA053` comment (like flake8's extend-select)."""
    from flake8_tilelang.registry import REGISTRY

    extra = set()
    for m in SELECT_RE.finditer(source):
        extra.update(c.strip() for c in m.group(1).split(",") if c.strip())

    def wanted(code):
        rule = REGISTRY.get(code)
        return rule is None or rule.default_enabled or any(code.startswith(e) for e in extra)

    return wanted


SRC_RE = re.compile(r"#\s*tla-src:\s*(\S+)")


def lint_file(path):
    """Lint a fixture; a `# tla-src: ../python` comment gives the `src` setting
    (folders relative to the fixture's folder, as its pyproject.toml says)."""
    with open(path, encoding="utf-8") as f:
        source = f.read()
    lines = source.splitlines(keepends=True)
    src = [os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(path)), m.group(1)))
           for m in SRC_RE.finditer(source)]
    return check_tree(ast.parse(source, path), lines, path, wanted=wanted_for(source), src=src or None)
