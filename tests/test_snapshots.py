"""Golden output: every fixture folder's findings rendered with start, end,
code and the flake8 text (message, tier tag and advice), compared with
``tests/snapshots/<folder>.txt``. The fixture tests check which (line, code)
fire; this one catches a moved column, a lost range or a changed message.

After an intended change, regenerate and review the diff:
``python tests/test_snapshots.py --update``.
"""
import glob
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from helpers import lint_file  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SNAPSHOTS = os.path.join(ROOT, "tests", "snapshots")


def folders():
    out = set()
    for path in glob.glob(os.path.join(ROOT, "fixtures", "**", "*.py"), recursive=True):
        rel = os.path.relpath(os.path.dirname(path), os.path.join(ROOT, "fixtures"))
        out.add(rel.split(os.sep)[0] if rel.startswith("crossmod") else rel)
    return sorted(out)


def render(folder: str) -> str:
    from flake8_tilelang.registry import all_rules

    registry = all_rules()
    base = os.path.join(ROOT, "fixtures", folder)
    lines = []
    for path in sorted(glob.glob(os.path.join(base, "**", "*.py"), recursive=True)):
        rel = os.path.relpath(path, base).replace(os.sep, "/")
        for d in lint_file(path):
            rule = registry.get(d.code)
            lines.append("%s:%d:%d-%d:%d: %s" % (rel, d.line, d.col + 1, d.end_line, d.end_col + 1,
                                                 d.flake8_text(rule.severity if rule else None)))
    return "\n".join(lines) + "\n"


def snapshot_path(folder: str) -> str:
    return os.path.join(SNAPSHOTS, folder.replace(os.sep, "__").replace("/", "__") + ".txt")


def test_every_folder_has_a_snapshot():
    assert len(folders()) >= 20
    missing = [f for f in folders() if not os.path.exists(snapshot_path(f))]
    assert not missing, "run python tests/test_snapshots.py --update: %s" % missing


@pytest.mark.parametrize("folder", folders())
def test_snapshot(folder):
    path = snapshot_path(folder)
    if not os.path.exists(path):
        pytest.fail("no snapshot for %s" % folder)
    with open(path, encoding="utf-8") as f:
        expected = f.read()
    assert render(folder) == expected


if __name__ == "__main__":
    if "--update" not in sys.argv:
        sys.exit("usage: python tests/test_snapshots.py --update")
    os.environ.setdefault("FLAKE8_TILELANG_STRICT", "1")
    os.makedirs(SNAPSHOTS, exist_ok=True)
    for name in os.listdir(SNAPSHOTS):
        os.remove(os.path.join(SNAPSHOTS, name))
    for folder in folders():
        with open(snapshot_path(folder), "w", encoding="utf-8") as f:
            f.write(render(folder))
    print("wrote %d snapshots to %s" % (len(folders()), os.path.relpath(SNAPSHOTS, ROOT)))
