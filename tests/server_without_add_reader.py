"""Test launcher: the real language server on an event loop without
``add_reader`` (like Windows' proactor loop): the lint worker's answers come
through a thread instead."""
import asyncio
import sys


def _refuse(self, *args, **kwargs):
    raise NotImplementedError


asyncio.SelectorEventLoop.add_reader = _refuse

if __name__ == "__main__":
    from flake8_tilelang.server import main

    sys.exit(main())
