"""Every fixture kernel produces exactly the diagnostics its `# expect:` markers name."""
import glob
import os

import pytest

from helpers import expected_in, lint_file, xfails_in

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The rule docs examples are run by test_registry.py, with every rule on.
FILES = sorted(glob.glob(os.path.join(ROOT, "fixtures", "**", "*.py"), recursive=True))


def test_there_are_fixtures():
    assert len(FILES) >= 20


def _compare(path, known_missed=frozenset(), known_wrong=frozenset()):
    got = lint_file(path)
    found = {(d.line, d.code) for d in got}
    expected = expected_in(path)
    missing = sorted(expected - found - set(known_missed))
    unexpected = sorted((d.line, d.code, d.message) for d in got
                        if (d.line, d.code) not in expected and (d.line, d.code) not in known_wrong)
    assert not missing and not unexpected, "missing %r\nunexpected %r" % (missing, unexpected)


@pytest.mark.parametrize("path", FILES, ids=lambda p: os.path.relpath(p, ROOT))
def test_fixture(path):
    # exact, except the lines an xfail marker names (checked by test_fixture_xfail)
    missed, wrong, _ = xfails_in(path)
    _compare(path, missed, wrong)


XFAIL_FILES = [(p, xfails_in(p)[2]) for p in FILES if xfails_in(p)[2]]


@pytest.mark.parametrize("path", [
    pytest.param(p, marks=pytest.mark.xfail(strict=True, raises=AssertionError, reason="; ".join(reasons)))
    for p, reasons in XFAIL_FILES], ids=lambda p: os.path.relpath(p, ROOT))
def test_fixture_xfail(path):
    """The whole truth of a fixture with xfail markers: fails until the engine
    is fixed (then remove the markers)."""
    _compare(path)
