import os
import site
import sys

import hylint

# `python -m hylint` puts the current folder first on sys.path (an empty PYTHONPATH entry adds it too): a module
# there named like one of the standard library's (gluonts ships a `json.py`) would hide it from hylint. hylint
# reads the files it checks, it never imports them, so those entries go, unless hylint itself was found there
# (a checkout run without installing) or the folder is where packages are installed (run from site-packages).
_here = os.path.abspath(os.curdir)
_installed = {os.path.abspath(folder) for folder in site.getsitepackages() + [site.getusersitepackages()]}
if os.path.dirname(os.path.dirname(os.path.abspath(hylint.__file__))) != _here and _here not in _installed:
    sys.path[:] = [entry for entry in sys.path if os.path.abspath(entry or os.curdir) != _here]

from hylint.cli import main  # noqa: E402  (after the search path is settled)

main()
