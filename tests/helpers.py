"""Shared test helpers: run the engine on source text or a fixture file."""
import ast
import os
import re
import textwrap

from flake8_tilelang.engine import check_tree
from flake8_tilelang.model import build_model

EXPECT_RE = re.compile(r"#\s*expect:\s*([A-Z]{3}\d{3}(?:\s*,\s*[A-Z]{3}\d{3})*)")


def lint(source, filename="kernel.py"):
    source = textwrap.dedent(source)
    lines = source.splitlines(keepends=True)
    return check_tree(ast.parse(source), lines, filename)


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


def lint_file(path):
    with open(path, encoding="utf-8") as f:
        source = f.read()
    lines = source.splitlines(keepends=True)
    return check_tree(ast.parse(source, path), lines, os.path.basename(path))
