"""docs/rules/<CODE>.md are generated from the registry and must stay current.

Regenerate with: python tests/test_docs.py
"""
import os
import sys

from flake8_tilelang.registry import all_rules

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs", "rules")


def expected():
    out = {}
    for rule in all_rules():
        out["%s.md" % rule.code] = rule.docs()
    index = ["# flake8-tilelang rules", "", "Generated from the registry by `python tests/test_docs.py`; "
             "`flake8-tilelang rule CODE` prints the same text.", "",
             "| Code | Name | Severity | Default |", "|---|---|---|---|"]
    for rule in all_rules():
        state = "on" if rule.default_enabled else ("opt-in, preview" if rule.preview else "opt-in")
        index.append("| [%s](%s.md) | %s | %s | %s |" % (rule.code, rule.code, rule.name, rule.severity, state))
    out["README.md"] = "\n".join(index) + "\n"
    return out


def test_rule_docs_are_generated_and_current():
    for name, text in expected().items():
        path = os.path.join(DOCS, name)
        assert os.path.exists(path), "run: python tests/test_docs.py"
        with open(path, encoding="utf-8") as f:
            assert f.read() == text, "%s is stale; run: python tests/test_docs.py" % name
    stale = set(os.listdir(DOCS)) - set(expected())
    assert not stale, "no rule for %s" % sorted(stale)


if __name__ == "__main__":
    sys.path.insert(0, ROOT)
    os.makedirs(DOCS, exist_ok=True)
    for name, text in expected().items():
        with open(os.path.join(DOCS, name), "w", encoding="utf-8") as f:
            f.write(text)
    print("wrote %d files to %s" % (len(expected()), DOCS))
