"""TLA000: the checker itself failed on a file."""
from ..registry import ERROR, REGISTRY, Rule

REGISTRY.add(Rule(
    code="TLA000",
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
