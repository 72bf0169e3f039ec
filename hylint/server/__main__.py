"""``python -m hylint.server``: the language server over stdio (``hylint server`` runs the same)."""
from hylint.server import run

run()
