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
