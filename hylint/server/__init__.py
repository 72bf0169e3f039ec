"""``hylint server``: a Language Server Protocol server (pygls) that lints, fixes and explains as you type.

protocol.py speaks LSP, convert.py turns hylint's values into LSP's, linting.py is the one place that
calls the linter (settings of the file, rule selection, lint, fix, add noqa). ``run()`` is what
``hylint server`` and ``python -m hylint.server`` call; pygls is imported only then.
"""
import sys


def run() -> None:
    """Serve over stdio until the client sends exit or closes stdin; exit 2 with a hint without pygls."""
    try:
        from hylint.server.protocol import main
    except ImportError as error:  # a dependency of hylint, missing only from an install made without them
        if str(error.name).split(".")[0] not in ("pygls", "lsprotocol", "cattrs"):
            raise
        sys.stderr.write(f"hylint: error: the language server needs pygls ({error}), a dependency of hylint; "
                         f"install it with: pip install 'pygls>=1.3,<2'\n")
        sys.exit(2)
    main()
