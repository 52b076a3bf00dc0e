"""Every fixture kernel produces exactly the diagnostics its `# expect:` markers name."""
import glob
import os

import pytest

from helpers import expected_in, lint_file

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The rule docs examples are run by test_registry.py, with every rule on.
FILES = sorted(glob.glob(os.path.join(ROOT, "fixtures", "**", "*.py"), recursive=True))


def test_there_are_fixtures():
    assert len(FILES) >= 20


@pytest.mark.parametrize("path", FILES, ids=lambda p: os.path.relpath(p, ROOT))
def test_fixture(path):
    got = lint_file(path)
    found = {(d.line, d.code) for d in got}
    expected = expected_in(path)
    missing = sorted(expected - found)
    unexpected = sorted((d.line, d.code, d.message) for d in got if (d.line, d.code) not in expected)
    assert not missing and not unexpected, "missing %r\nunexpected %r" % (missing, unexpected)
