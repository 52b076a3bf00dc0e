"""TLA000: the checker itself failed on a file."""
from ..registry import ERROR, REGISTRY, WARNING, Rule

REGISTRY.add(Rule(
    code="TLA000",
    since="0.1.0",
    name="internal-error",
    severity=ERROR,
    confidence="high",
    summary="flake8-tilelang failed on this file; the rest of the run goes on",
    what="""
Reported once, on line 1, when flake8-tilelang raises an exception while
analysing a file (a bug, or an input it cannot handle such as an expression
nested too deeply). The message names the failing step (model or rule code)
and the exception. The other files, and the other rules on this file, are
still checked, and flake8's exit code still reflects every finding.
""",
    why="""
A plugin exception would otherwise abort the whole flake8 run for every file
(`PluginExecutionFailed`). This code keeps CI meaningful and tells you where
the checker gave up, so nothing is silently skipped.
""",
    fix="""
Report it to the flake8-tilelang maintainers with the file (or a reduced
version of it). Until it is fixed, silence it for that file only with
`per-file-ignores = path/to/file.py:TLA000`.
""",
    known_false_positives="None: it only reports real failures of the checker.",
    references="flake8 plugin contract: an exception in a plugin ends the run.",
))

REGISTRY.add(Rule(
    code="TLA095",
    autofix="""
Safe: rewrites the comment as flake8 reads it, `# noqa: TLA001,TLA002` (a
missing or spaced colon, `#noqa`, lower-case codes), keeping any text after
the codes. Turning `# flake8: noqa: TLA001` (flake8 skips the whole file)
into `# flake8-tilelang: noqa: TLA001` is unsafe: other plugins' findings in
the file are reported again. An unknown code has no fix.
""",
    name="malformed-noqa",
    severity=WARNING,
    confidence="high",
    summary="a `# noqa` for TLA codes that flake8 reads as a blanket noqa (command line only)",
    what="""
Reported by `flake8-tilelang check` (not by the flake8 plugin, which cannot see
comments flake8 has already consumed) on a `# noqa` comment that names TLA
codes but that flake8 parses differently from what it says: `# noqa : TLA001`
(space before the colon), `# noqa: TLA` (no digits), `# noqa:TLA-001`, or a
malformed `# flake8-tilelang: noqa` file directive.
""",
    why="""
flake8's noqa regex only accepts `# noqa:` followed by codes of letters and
digits. Anything else matches the bare `# noqa` form, which silences **every**
code on the line, so the comment hides more than its author meant.
""",
    fix="Write `# noqa: TLA001` (or `# noqa: TLA001,TLA002`), codes in upper case.",
    known_false_positives="None known.",
    references="flake8 `defaults.NOQA_INLINE_REGEXP`; ecosystem notes on noqa pitfalls.",
))

REGISTRY.add(Rule(
    code="TLA096",
    autofix="""
Safe (Ruff's RUF100): removes the unused TLA codes from the comment; other
tools' codes stay; a comment left with no code is removed (the whole line
when it had its own line, and a reason written after the codes stays as a
comment). A code of a rule not enabled in this run is never removed.
""",
    name="unused-noqa",
    severity=WARNING,
    confidence="high",
    summary="a TLA code in a `# noqa` that suppresses nothing (command line, opt-in)",
    what="""
Reported by `flake8-tilelang check --report-unused-noqa` (or when TLA096 is
selected) for a TLA code listed in a `# noqa` comment on a line where that
code is not reported. Other tools' codes in the same comment are left alone.
""",
    why="Stale suppressions hide the next real finding on that line and mislead readers.",
    fix="Remove the code from the comment (or the whole comment if nothing is left).",
    known_false_positives="A code that fires only under another configuration (for example only when "
                          "an opt-in rule is selected).",
    references="Ruff RUF100; flake8-noqa NQA102.",
    default_enabled=False,
))
