"""``python -m hylint.server``: the language server over stdio (``hylint server`` runs the same)."""
import sys

try:
    from hylint.server.protocol import main
except ImportError as error:  # pygls is an optional dependency
    if error.name not in ("pygls", "lsprotocol") and not str(error.name).startswith(("pygls.", "lsprotocol.")):
        raise
    sys.stderr.write(f"hylint: error: the language server needs pygls ({error}); "
                     f"install it with: pip install 'hylint[server]'\n")
    sys.exit(2)

main()
