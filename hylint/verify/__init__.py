"""``hylint verify``: run a Gluon block eagerly and hybridized, on the NumPy reference runtime or on MXNet,
compare the outputs, fix the source in memory and prove the fix by running it.

One module per job, imports pointing down the list:

- ``outcomes``: what a run gave (ok, error, different) and :class:`VerifyError`;
- ``sandbox``: importing the user's code (scopes, in-memory sources, the user's traceback frames);
- ``locate``: the user line a failure comes from;
- ``backends``: MXNet or the reference runtime, and the parts of MXNet the runtime lacks;
- ``compare``: outputs and the tolerance rule;
- ``inputs``: the ``--input`` language and the input arrays;
- ``phases``: time and memory per phase;
- ``openblas``: the restart with the right ``OPENBLAS_CORETYPE`` where numpy's OpenBLAS runs a generic kernel;
- ``harness``: the one eager/hybridized harness (also used by the fixture tests);
- ``examples``: modules naming their blocks in ``EXAMPLES`` (the fixtures);
- ``targets``: command-line and ``[[tool.hylint.verify]]`` targets, and the factory of a target's block;
- ``results``: a target's verdict, fixes and outcomes, and their JSON;
- ``prove``: fixes applied in memory and proven by running;
- ``run``: one target start to end;
- ``render``: the human-readable report;
- ``discover``, ``construct``, ``feed``, ``survey``: ``hylint verify PATH``, every HybridBlock under a path:
  finding the classes, building them, feeding them, and running each in its own process.

MXNet is imported only when a block runs, never at import time. This package re-exports what the CLI and
the tests use.
"""
from hylint.verify.backends import BACKENDS, RuntimeGap, backend
from hylint.verify.compare import difference, flatten_outputs
from hylint.verify.examples import build, compare_files, examples
from hylint.verify.harness import set_parameters
from hylint.verify.inputs import Named, make_inputs, parse_input, parse_inputs
from hylint.verify.outcomes import DIFFERENT, ERROR, OK, Outcome, VerifyError, first_line
from hylint.verify.prove import can_write
from hylint.verify.render import render_full, survey_line, survey_summary
from hylint.verify.results import EAGER_ERROR, FAILS, FIXED, NOT_HYBRID, OK_AS_IS, TargetReport, save_outputs
from hylint.verify.run import verify_target
from hylint.verify.sandbox import ImportFailure, load_module, quiet, user_import_scope
from hylint.verify.targets import Target, parse_target, targets_from_config

__all__ = [
    "BACKENDS", "DIFFERENT", "EAGER_ERROR", "ERROR", "FAILS", "FIXED", "ImportFailure", "Named", "NOT_HYBRID",
    "OK", "OK_AS_IS", "Outcome", "RuntimeGap", "Target", "TargetReport", "VerifyError", "backend", "build",
    "can_write", "compare_files", "difference", "examples", "first_line", "flatten_outputs", "load_module",
    "make_inputs", "parse_input", "parse_inputs", "parse_target", "quiet", "render_full", "save_outputs",
    "set_parameters", "survey_line", "survey_summary", "targets_from_config", "user_import_scope", "verify_target",
]
