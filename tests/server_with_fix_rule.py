"""Test launcher: the real language server plus two extra rules. TLA098's
findings carry fixes of both applicabilities on demand: it reports every
``T.barrier_all()`` with a safe fix (replace it by ``T.pipe_barrier("all")``
-- only for the test) and every ``T.sync_all()`` with an unsafe fix. TLA097
never finishes on a file named ``hang.py`` or with a ``T.barrier_all(test_hang=True)``
(a lint that runs away), and takes a second with ``test_slow=True``.

The lint worker is a ``multiprocessing`` spawn child: it imports this file as
its main module, so the rules are registered there too."""
import sys
import time

from flake8_tilelang.registry import REGISTRY, WARNING, Edit, Fix, Rule, all_rules, report


def _check(model):
    for use in model.all_uses:
        call = use.call
        start = (call.lineno, call.col_offset)
        end = (call.end_lineno, call.end_col_offset)
        if use.prim == "barrier_all":
            yield report(call, "test finding with a safe fix",
                         fix=Fix("Use a pipe barrier", [Edit(start, end, 'T.pipe_barrier("all")')], "safe"))
        elif use.prim == "sync_all":
            yield report(call, "test finding with an unsafe fix",
                         fix=Fix("Drop the sync", [Edit(start, end, "pass")], "unsafe"))


def _hang(model):
    marks = {k.arg for use in model.all_uses for k in use.call.keywords}
    if model.filename.endswith("hang.py") or "test_hang" in marks:
        while True:
            time.sleep(0.05)
    if "test_slow" in marks:
        time.sleep(1.0)
    return iter(())


all_rules()
REGISTRY.add(Rule(code="TLA097", name="test-hang", severity=WARNING, confidence="high",
                  summary="test only", what="test", why="test", fix="test",
                  known_false_positives="none", references="none", check=_hang))
REGISTRY.add(Rule(code="TLA098", name="test-fixable", severity=WARNING, confidence="high",
                  summary="test only", what="test", why="test", fix="test",
                  known_false_positives="none", references="none", check=_check))

if __name__ == "__main__":
    from flake8_tilelang.server import main

    sys.exit(main())
