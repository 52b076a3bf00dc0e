import os
import sys

import pytest

# Tests see checker bugs as exceptions, not as TLA000 diagnostics.
os.environ["FLAKE8_TILELANG_STRICT"] = "1"

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "fixtures")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def fixtures_dir():
    return FIXTURES


@pytest.fixture(autouse=True, scope="session")
def _user_cache_home(tmp_path_factory):
    """The cache's key lives in the user's cache folder: a private one per test session."""
    home = str(tmp_path_factory.mktemp("xdg-cache"))
    old = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = home
    yield home
    if old is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = old
