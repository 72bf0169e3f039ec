import os
import sys

import hylint

# `python -m hylint` puts the current folder first on sys.path (an empty PYTHONPATH entry adds it too): a module
# there named like one of the standard library's (gluonts ships a `json.py`) would hide it from hylint. hylint
# reads the files it checks, it never imports them, so those entries go, unless hylint itself was found there
# (a checkout run without installing).
_here = os.path.abspath(os.curdir)
if os.path.dirname(os.path.dirname(os.path.abspath(hylint.__file__))) != _here:
    sys.path[:] = [entry for entry in sys.path if os.path.abspath(entry or os.curdir) != _here]

from hylint.cli import main  # noqa: E402  (after the search path is settled)

main()
