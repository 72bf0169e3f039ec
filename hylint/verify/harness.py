"""The one eager/hybridized harness: build a block with deterministic parameters, call it eagerly, then a
fresh hybridized instance twice (trace, cached graph) and optionally in train mode, each call compared
with the reference output. ``hylint verify`` and the fixture tests (``tests/rules/test_fixtures.py``) both use it."""
from __future__ import annotations

import sys
import warnings
import zlib
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from hylint.verify.backends import check_runtime_gap
from hylint.verify.compare import difference, flatten_outputs, judge
from hylint.verify.inputs import call_arguments, make_inputs
from hylint.verify.locate import failure, node_origins
from hylint.verify.outcomes import BlockResult, DIFFERENT, ERROR, OK, Outcome, TRAIN_PHASE, VerifyError, first_line
from hylint.verify.phases import Phases


def structural_parameters(block: Any) -> Dict[str, Any]:
    """``attribute.path.name -> Parameter`` (gluon's ``_collect_params_with_prefix``); where a block lacks it,
    the global names with the block's prefix removed."""
    collect = getattr(block, "_collect_params_with_prefix", None)
    if collect is not None:
        return dict(collect())
    prefix = getattr(block, "prefix", "") or ""
    return {name[len(prefix):] if name.startswith(prefix) else name: param
            for name, param in block.collect_params().items()}


def set_parameters(mx: Any, block: Any, seed: int = 0) -> None:
    """Deterministic values for every non-constant parameter, keyed by its structural name under the block
    (``body.0.weight``: the same in every instance, unlike ``hybridsequential3_dense0_weight``)."""
    constant = getattr(getattr(mx.gluon, "parameter", None), "Constant", None)
    for key, param in sorted(structural_parameters(block).items()):
        if constant is not None and isinstance(param, constant):
            continue
        rng = np.random.RandomState((seed + zlib.crc32(key.encode())) % (2 ** 32))
        shape = tuple(param.shape)
        if key.endswith(("var", "gamma")):
            values = rng.uniform(0.5, 1.5, size=shape)
        elif len(shape) >= 2:
            # a weight: scaled by its fan-in (variance 1 / fan_in), so deep models keep their outputs near
            # unit scale; with uniform(-1, 1) a ResNet's outputs reach 1e21, where float32 rounding alone
            # makes the eager and hybridized outputs differ beyond the tolerance
            bound = float(np.sqrt(3.0 / max(1, int(np.prod(shape[1:])))))
            values = rng.uniform(-bound, bound, size=shape)
        else:
            values = rng.uniform(-1.0, 1.0, size=shape)
        param.set_data(mx.nd.array(values, dtype=param.dtype))


@dataclass
class Call:
    """One call of a block: its outcome, the value it returned (None when it raised first), the exception it
    raised, and for a recorded call the gradients of its inputs (an outcome whose outputs are the gradients)."""
    outcome: Outcome
    value: Any = None
    error: Optional[BaseException] = None
    gradients: Optional[Outcome] = None


def call(mx: Any, block: Any, specs: Sequence[Any], seed: int, phase: str = "eager",
         origins: Optional[Dict[str, Tuple[str, int]]] = None, random_seed: Optional[int] = None,
         seed_random: bool = True, record: bool = False) -> Call:
    """Call ``block`` once on fresh inputs made from ``specs``. ``seed_random``: seed the backend's random
    operators first (``random_seed``, default ``seed``); ``record``: call under ``autograd.record()`` and
    run backward from the floating-point outputs, giving the inputs' gradients."""
    inputs = make_inputs(mx, specs, seed)
    random = getattr(mx, "random", None)
    if seed_random and random is not None and hasattr(random, "seed"):
        # random operators draw the same numbers on every call where the backend can
        random.seed(seed if random_seed is None else random_seed)
    value = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            arguments = call_arguments(block, inputs)
            if record:
                for array in arguments:
                    array.attach_grad()
                with mx.autograd.record():
                    value = block(*arguments)
            else:
                value = block(*arguments)
            outputs = flatten_outputs(value)
    except VerifyError:
        raise
    except Exception as error:
        check_runtime_gap(mx, error)
        return Call(failure(error, phase, origins), value, error)
    result = Call(Outcome(OK, outputs=outputs, phase=phase), value)
    if record:
        result.gradients = input_gradients(mx, value, arguments)
    return result


def input_gradients(mx: Any, value: Any, inputs: Sequence[Any]) -> Outcome:
    """Backward from the floating-point outputs in ``value`` (recorded): the gradients of ``inputs``."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            heads = [head for head in _leaves(value) if np.dtype(head.dtype).kind == "f"]
            mx.autograd.backward(heads)
            return Outcome(OK, outputs=[array.grad.asnumpy() for array in inputs])
    except Exception as error:
        return Outcome(ERROR, type(error).__name__, first_line(error))


def _leaves(value: Any) -> List[Any]:
    return [leaf for item in value for leaf in _leaves(item)] if isinstance(value, (list, tuple)) else [value]


def call_block(mx: Any, block: Any, specs: Sequence[Any], seed: int, phase: str = "eager",
               origins: Optional[Dict[str, Tuple[str, int]]] = None, random_seed: Optional[int] = None) -> Outcome:
    """The outcome of one :func:`call` (random operators seeded)."""
    return call(mx, block, specs, seed, phase, origins, random_seed).outcome


# a constructor argument that is a block: {BLOCK: "module:Name", "kwargs": {...}}, built afresh for every
# construction (``hylint verify PATH`` gives one where the constructor takes a block; see construct.py)
BLOCK = "__block__"
SMALL_BLOCK = {BLOCK: "mxnet.gluon.nn:Dense", "kwargs": {"units": 4, "flatten": False}}


def materialize(mx: Any, value: Any, home: Any = None) -> Any:
    """``value`` with every :data:`BLOCK` spec in it replaced by a new block (a class of MXNet's from the
    backend ``mx``, any other imported by its module's name; a module loaded from a file alone, which has
    no importable name, is ``home``: the module of the block being built)."""
    if isinstance(value, dict) and BLOCK in value:
        module_name, _, name = str(value[BLOCK]).partition(":")
        if module_name == "mxnet" or module_name.startswith("mxnet."):
            owner = mx
            for part in module_name.split(".")[1:]:
                owner = getattr(owner, part)
        else:
            import importlib

            owner = sys.modules.get(module_name)
            if owner is None:
                try:
                    owner = importlib.import_module(module_name)
                except ImportError:
                    if home is None:
                        raise
                    owner = home
        for part in name.split("."):
            owner = getattr(owner, part)
        return owner(**materialize(mx, value.get("kwargs") or {}, home))
    if isinstance(value, dict):
        return {key: materialize(mx, item, home) for key, item in value.items()}
    return value


def argument_text(value: Any) -> str:
    """A constructor argument as the report shows it: a :data:`BLOCK` spec as the call that builds it
    (``Encoder(units=16)``), anything else by its ``repr``."""
    if isinstance(value, dict) and BLOCK in value:
        inner = ", ".join(f"{k}={argument_text(v)}" for k, v in (value.get("kwargs") or {}).items())
        return f"{str(value[BLOCK]).rpartition(':')[2]}({inner})"
    return repr(value)


def build_block(mx: Any, factory: Any, specs: Sequence[Any], seed: int = 0,
                kwargs: Optional[Dict[str, Any]] = None) -> Tuple[Any, Outcome]:
    """Construct (``factory(**kwargs)``), initialise, run once eagerly when a parameter's shape is deferred
    (to complete it) and set the deterministic parameters. Raises VerifyError when the factory does not give
    a Block. Without deferred shapes there is no warm-up call, so the caller's call is the block's first (a
    block that can run only once, e.g. one holding an ``autograd.Function`` instance, runs as the user's)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            block = factory(**materialize(mx, kwargs or {}, sys.modules.get(getattr(factory, "__module__", ""))))
            if not isinstance(block, mx.gluon.Block):
                raise VerifyError(f"{getattr(factory, '__name__', factory)}() returned a "
                                  f"{type(block).__name__}, not a gluon Block")
            block.initialize()
    except VerifyError:
        raise
    except Exception as error:
        check_runtime_gap(mx, error)
        outcome = failure(error, "construct")
        outcome.message = "constructing: " + outcome.message
        return None, outcome
    if any(not _known_shape(param) for param in structural_parameters(block).values()):
        first = call_block(mx, block, specs, seed)  # completes deferred initialisation
        if first.status != OK:
            return block, first
    set_parameters(mx, block, seed)
    return block, Outcome(OK)


def _known_shape(param: Any) -> bool:
    """Whether a parameter's shape is complete (Gluon 1.x marks an unknown dimension with 0)."""
    shape = getattr(param, "shape", None)
    return shape is not None and all(d > 0 for d in shape)


def run_hybridized(mx: Any, factory: Any, specs: Sequence[Any], expected: Sequence[np.ndarray], seed: int = 0,
                   kwargs: Optional[Dict[str, Any]] = None, phases: Optional["Phases"] = None,
                   train_expected: Optional[Sequence[np.ndarray]] = None,
                   notes: Optional[List[str]] = None) -> List[Outcome]:
    """A fresh build with the same (name-seeded) parameters, hybridized and called twice: the trace,
    then the cached graph; each call compared with ``expected``. With ``train_expected`` (the eager
    train-mode output), a third call in train mode follows (see :func:`train_mode_call`)."""
    phases = phases or Phases(record=False)
    with phases("hybrid build"):
        block, built = build_block(mx, factory, specs, seed, kwargs)
    if built.status != OK:
        return [built]
    outcomes: List[Outcome] = []
    with node_origins(mx) as origins:
        try:
            block.hybridize()
        except Exception as error:
            check_runtime_gap(mx, error)
            outcome = failure(error, "hybridize", origins)
            outcome.message = "hybridize(): " + outcome.message
            return [outcome]
        for index in range(2):
            traced = index == 0 or outcomes[0].status == ERROR  # nothing is cached after a failed trace
            with phases("hybridize and trace" if index == 0 else "hybridized call"):
                outcome = call_block(mx, block, specs, seed, "trace" if traced else "cached graph", origins)
            outcomes.append(judge(outcome, expected))
        if train_expected is not None and all(o.status == OK for o in outcomes):
            with phases("train-mode call"):
                outcome = train_mode_call(mx, block, specs, seed, train_expected, origins, notes)
            outcomes.append(outcome)
    return outcomes


def in_train_mode(mx: Any, block: Any, specs: Sequence[Any], seed: int, phase: str = "eager",
                  origins: Optional[Dict[str, Tuple[str, int]]] = None, random_seed: Optional[int] = None) -> Outcome:
    """One call inside ``autograd.train_mode()`` (what ``autograd.record()`` sets for training, without
    recording): Python branches on ``autograd.is_training()`` and train-mode operators (BatchNorm's batch
    statistics, Dropout) take their training path."""
    with mx.autograd.train_mode():
        return call_block(mx, block, specs, seed, phase, origins, random_seed)


def train_mode_call(mx: Any, block: Any, specs: Sequence[Any], seed: int, expected: Sequence[np.ndarray],
                    origins: Optional[Dict[str, Tuple[str, int]]] = None,
                    notes: Optional[List[str]] = None) -> Outcome:
    """The hybridized ``block`` (traced in predict mode) called in train mode, compared with the eager
    train-mode output ``expected``: a branch on the training mode is frozen at trace time. When they differ
    and the hybridized train-mode output follows the seed (random operators such as Dropout: eager and
    cached-graph draws differ for one seed), nothing can be compared: the outcome is OK with a note."""
    outcome = judge(in_train_mode(mx, block, specs, seed, TRAIN_PHASE, origins), expected)
    if outcome.status != DIFFERENT:
        return outcome
    again = in_train_mode(mx, block, specs, seed, TRAIN_PHASE, origins, random_seed=seed + 1)  # same inputs
    if again.status == OK and difference(outcome.outputs, again.outputs) is not None:
        if notes is not None:
            notes.append("train mode: the hybridized output follows the seed (random operators), so it is not "
                         "compared with the eager one")
        return Outcome(OK, outputs=outcome.outputs, phase=TRAIN_PHASE)
    outcome.message = "in train mode (the graph was traced in predict mode): " + outcome.message
    return outcome


def run_factory(mx: Any, factory: Any, specs: Sequence[Any], seed: int = 0, kwargs: Optional[Dict[str, Any]] = None,
                reference: Optional[Sequence[np.ndarray]] = None, name: str = "", train: bool = False) -> BlockResult:
    """Build and run eagerly (compared with ``reference`` when given), then :func:`run_hybridized` against
    ``reference`` (default: the eager output); with ``train``, also the train-mode call against this
    block's own eager train-mode output."""
    block, built = build_block(mx, factory, specs, seed, kwargs)
    if built.status != OK:
        return BlockResult(name, built, [])
    eager = call_block(mx, block, specs, seed)
    if eager.status != OK:
        return BlockResult(name, eager, [])
    expected = list(reference) if reference is not None else eager.outputs
    if reference is not None:
        eager = judge(eager, expected)
    train_expected = None
    if train:
        train_eager = in_train_mode(mx, block, specs, seed)
        train_expected = train_eager.outputs if train_eager.status == OK else None
    return BlockResult(name, eager, run_hybridized(mx, factory, specs, expected, seed, kwargs,
                                                   train_expected=train_expected))

