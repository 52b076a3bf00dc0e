"""The one list of rules. The flake8 plugin, the engine, the docs and (later)
the CLI all read it; a rule module registers itself with ``@rule(...)``.
"""
from __future__ import annotations

import os
from typing import Callable, Dict, Iterable, List, Optional

from .diagnostic import (  # noqa: F401 - re-exported: rules and tests import them from here
    ERROR, INFO, SEVERITIES, WARNING, Diagnostic, Edit, Fix, report,
)

_KEBAB_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


def valid_code(code: str) -> bool:
    """``TLA`` and three ASCII digits (string tests: importing the registry
    compiles no regular expression)."""
    return len(code) == 6 and code.startswith("TLA") and code[3:].isdigit() and code.isascii()


def kebab_case(name: str) -> bool:
    """Lower-case ASCII letters and digits in words joined by single hyphens."""
    return all(part and all(c in _KEBAB_CHARS for c in part) for part in name.split("-"))
DOC_SECTIONS = ("what", "why", "known_false_positives", "references")

EXAMPLES_DIR = os.path.join(os.path.dirname(__file__), "rules", "examples")


class Rule:
    """A rule's metadata, documentation and check function. Keyword-only, so
    every field is named where a rule is declared."""

    def __init__(self, *, code: str, name: str, severity: str, confidence: str, summary: str, what: str,
                 why: str, fix: str, known_false_positives: str, references: str,
                 check: Optional[Callable] = None, default_enabled: bool = True, preview: bool = False,
                 since: str = "0.2.0", yields_to: tuple = (), autofix: str = "", tiers: tuple = (),
                 dialects: tuple = ("ascendc",)):
        self.code = code
        self.name = name  # kebab-case
        self.severity = severity  # error / warning / info: the default tier
        # Other severities a finding of this rule may have, each with when:
        # ((WARNING, "when TL_ASCEND_AUTO_CV_COMBINE is off"),). The one
        # source of every severity a front end prints: ``run`` refuses a
        # finding whose severity is not declared here.
        self.tiers = tuple(tiers)
        self.confidence = confidence  # "high" or "medium"
        self.summary = summary
        self.what = what
        self.why = why
        self.fix = fix
        self.known_false_positives = known_false_positives
        self.references = references
        self.check = check  # check(model) -> Iterable[Diagnostic]; None for codes reported elsewhere
        self.default_enabled = default_enabled
        self.preview = preview
        self.since = since
        # Codes that already explain the same line: this rule stays quiet
        # there (no cascade of diagnostics from one mistake).
        self.yields_to = yields_to
        # What ``check --fix`` does for this rule and how safe it is (the
        # docs' "Fix" section); empty when the rule has no fix.
        self.autofix = autofix
        # The TileLang-Ascend dialects whose kernels this rule judges ("ascendc":
        # the Ascend C / PTO route, "npuir": AscendNPU IR). The engine hands the
        # rule the model's view of those kernels only (``FileModel.for_dialects``).
        self.dialects = tuple(dialects)

    def __repr__(self) -> str:
        return "Rule(%s %s)" % (self.code, self.name)

    @property
    def severities(self) -> tuple:
        """Every severity a finding of this rule may have, the default first."""
        return (self.severity,) + tuple(s for s, _ in self.tiers if s != self.severity)

    def severity_text(self) -> str:
        """``error`` or ``error (warning when ...)``: the docs' and
        ``rules``' spelling of the tiers."""
        if not self.tiers:
            return self.severity
        return "%s (%s)" % (self.severity, "; ".join("%s %s" % (s, when) for s, when in self.tiers))

    def run(self, model) -> List[Diagnostic]:
        """The check's findings as Diagnostics with this rule's code and
        default severity (a rule yields ``report(...)`` drafts); a severity
        the registry does not declare for this rule is a bug (TLA000)."""
        if hasattr(model, "for_dialects"):
            model = model.for_dialects(self.dialects)
        out = [found.finish(self.code, self.severity) for found in self.check(model)]  # type: ignore[misc]
        for d in out:
            if d.severity not in self.severities:
                raise ValueError("%s reported severity %r, not declared in the registry (%s)" % (
                    self.code, d.severity, "/".join(self.severities)))
        return out

    @property
    def example_path(self) -> str:
        return os.path.join(EXAMPLES_DIR, "%s_example.py" % self.code)

    @property
    def use_instead_path(self) -> str:
        return os.path.join(EXAMPLES_DIR, "%s_use_instead.py" % self.code)

    def docs(self) -> str:
        """The rule's documentation, as Markdown, in fixed sections."""
        def snippet(path: str) -> list:
            try:
                with open(path, encoding="utf-8") as f:
                    return ["```python", f.read().rstrip(), "```", ""]
            except OSError:  # codes reported outside the rules (TLA000, noqa codes) have none
                return []

        state = "on by default" if self.default_enabled else "opt-in (select it explicitly)"
        shown = {"ascendc": "Ascend C / PTO", "npuir": "AscendNPU IR"}
        parts = [
            "# %s %s" % (self.code, self.name),
            "",
            "Severity: %s. Confidence: %s. %s%s. Since %s." % (
                self.severity_text(), self.confidence, state[0].upper() + state[1:],
                ", preview" if self.preview else "", self.since),
            "",
        ]
        if self.check is not None:
            parts += ["Dialects: %s kernels (`target=` of the compile site, or the `target` setting; "
                      "see the README, *Targets*)." % " and ".join(shown.get(d, d) for d in self.dialects), ""]
        parts += [
            "## What it does", "", self.what.strip(), "",
            "## Why is this bad", "", self.why.strip(), "",
        ]
        example = snippet(self.example_path)
        if example:
            parts += ["## Example", ""] + example
        parts += ["## Use instead", "", self.fix.strip(), ""] + snippet(self.use_instead_path)
        if self.autofix.strip():
            parts += ["## Fix", "", self.autofix.strip(), ""]
        parts += [
            "## Known false positives", "", self.known_false_positives.strip(), "",
            "## References", "", self.references.strip(), "",
        ]
        return "\n".join(parts)


class Registry:
    def __init__(self) -> None:
        self._rules: Dict[str, Rule] = {}

    def add(self, rule: Rule) -> None:
        if not valid_code(rule.code):
            raise ValueError("bad rule code %r" % rule.code)
        if not kebab_case(rule.name):
            raise ValueError("rule name must be kebab-case: %r" % rule.name)
        if rule.severity not in SEVERITIES or any(s not in SEVERITIES for s, _ in rule.tiers):
            raise ValueError("bad severity %r" % ((rule.severity,) + rule.tiers,))
        if rule.code in self._rules:
            raise ValueError("duplicate rule code %s" % rule.code)
        if any(r.name == rule.name for r in self._rules.values()):
            raise ValueError("duplicate rule name %s" % rule.name)
        self._rules[rule.code] = rule

    def __iter__(self):
        return iter(sorted(self._rules.values(), key=lambda r: r.code))

    def __len__(self) -> int:
        return len(self._rules)

    def get(self, code: str) -> Optional[Rule]:
        return self._rules.get(code)

    def checks(self) -> List[Rule]:
        return [r for r in self if r.check is not None]


REGISTRY = Registry()


def rule(**meta) -> Callable:
    """Register the decorated ``check(model) -> Iterable[Diagnostic]``."""
    def decorate(check: Callable[..., Iterable[Diagnostic]]) -> Callable:
        REGISTRY.add(Rule(check=check, **meta))
        return check
    return decorate


def all_rules() -> Registry:
    """The registry with every rule module loaded."""
    from . import rules  # noqa: F401  (registers on import)
    return REGISTRY
