"""The registry: codes are stable, every rule documents itself, examples are real."""
import os
import re

import pytest

from flake8_tilelang.registry import SEVERITIES, all_rules
import ast

from flake8_tilelang.engine import check_tree
from helpers import expected_in

HERE = os.path.dirname(os.path.abspath(__file__))
RULES = list(all_rules())


def lint_all(path, code):
    """The default rules plus the documented one (opt-in or not)."""
    from flake8_tilelang.registry import REGISTRY

    with open(path, encoding="utf-8") as f:
        source = f.read()

    def wanted(c):
        return c == code or REGISTRY.get(c).default_enabled

    return check_tree(ast.parse(source), source.splitlines(True), os.path.basename(path), wanted=wanted)


def golden():
    out = {}
    with open(os.path.join(HERE, "codes.txt"), encoding="utf-8") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                code, name = line.split()[:2]
                out[code] = name
    return out


def test_codes_are_never_renamed_or_reused():
    assert {r.code: r.name for r in RULES} == golden()


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_rule_metadata(rule):
    assert re.match(r"^TLA\d{3}$", rule.code)
    assert rule.severity in SEVERITIES and rule.confidence in ("high", "medium")
    for section in (rule.summary, rule.what, rule.why, rule.fix, rule.known_false_positives, rule.references):
        assert section.strip()


@pytest.mark.parametrize("rule", [r for r in RULES if r.check is not None], ids=lambda r: r.code)
def test_docs_examples_fire_and_fixes_are_clean(rule):
    bad = lint_all(rule.example_path, rule.code)
    assert rule.code in {d.code for d in bad}
    assert {(d.line, d.code) for d in bad} == expected_in(rule.example_path)
    assert lint_all(rule.use_instead_path, rule.code) == []
    docs = rule.docs()
    for heading in ("## What it does", "## Why is this bad", "## Example", "## Use instead",
                    "## Known false positives", "## References"):
        assert heading in docs
    with open(rule.example_path, encoding="utf-8") as f:
        assert f.read().strip() in docs


def test_readme_lists_every_rule():
    with open(os.path.join(os.path.dirname(HERE), "README.md"), encoding="utf-8") as f:
        readme = f.read()
    for rule in RULES:
        assert "| %s | %s |" % (rule.code, rule.name) in readme, rule.code


def test_opt_in_rules_are_exactly_the_documented_ones():
    from flake8_tilelang.constants import OPT_IN_CODES

    assert sorted(r.code for r in RULES if not r.default_enabled) == sorted(OPT_IN_CODES)
