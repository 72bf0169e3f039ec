"""Write hylint/facts/mxnet_names.json: the attribute names of MXNet 1.9.1's modules that hylint's runtime stands in
for (measured with `dir()` on real MXNet). `hylint verify` reads it to tell a name the runtime lacks (exit 2,
"run with --backend mxnet") from a name MXNet lacks as well (the user's error, a verdict).

    /work/venv-mx/bin/python benchmarks/mxnet_names.py
"""
import importlib
import json
import re
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# generated copies of the operator namespaces (gen_op, op), the NumPy-style API and test helpers: not what
# Gluon 1.x code calls through F
SKIPPED = re.compile(r"\.(gen_\w+|op|numpy\w*|_symbol|test_utils)(\.|$)")
sys.path.insert(0, str(ROOT))


def main() -> int:
    import mxnet

    from hylint.runtime import runtime_modules

    modules = {}
    for module_name in sorted(runtime_modules()):
        try:
            modules[module_name] = importlib.import_module(module_name)
        except ImportError:
            continue  # MXNet has no such module: every name in it is missing on MXNet too
    for module in list(modules.values()):  # and their submodules (nd.linalg, sym.sparse, ...): one level
        for value in vars(module).values():
            if isinstance(value, types.ModuleType) and value.__name__.startswith("mxnet.") \
                    and not SKIPPED.search(value.__name__):
                modules.setdefault(value.__name__, value)
    names = {name: sorted(attr for attr in dir(module) if not attr.startswith("__"))
             for name, module in sorted(modules.items())}
    out = {"mxnet": mxnet.__version__, "modules": names}
    (ROOT / "hylint" / "facts" / "mxnet_names.json").write_text(json.dumps(out, indent=0, sort_keys=True) + "\n")
    print(f"{len(names)} modules, {sum(len(v) for v in names.values())} names")
    return 0


if __name__ == "__main__":
    sys.exit(main())
