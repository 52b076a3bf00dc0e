"""``flake8-tilelang server``: a language server over stdio.

pygls is an optional dependency (the ``server`` extra: ``pip install '.[server]'``);
it is imported only when the server starts, never by the flake8 plugin or
the other commands.
"""
from __future__ import annotations

import sys
from typing import List, Optional

# the `server` extra is only pygls: this works however flake8-tilelang was
# installed (a checkout, a git URL, a wheel)
INSTALL_HINT = "pip install 'pygls>=2,<3' (the `server` extra)"


def main(argv: Optional[List[str]] = None) -> int:
    try:
        import lsprotocol  # noqa: F401
        import pygls  # noqa: F401
    except ImportError as exc:
        sys.stderr.write("flake8-tilelang: error: the language server needs pygls (%s); install it "
                         "with: %s\n" % (exc, INSTALL_HINT))
        return 2
    from .lsp import serve

    return serve()
