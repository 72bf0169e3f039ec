"""Run one hybrid_forward pattern on an MXNet-like module (real MXNet 1.9.1 or hylint.runtime) and
describe what happened: construction, imperative call, two hybridized calls.

The same code drives both implementations, so an :class:`Outcome` from the runtime can be compared
field by field with one from MXNet (live, or recorded in ``runtime_truth.json``).

Recording the MXNet side (needs MXNet 1.9.1)::

    python tests/runtime/runtime_harness.py --record
"""
import contextlib
import re
import io
import json
import math
import os
import sys
import textwrap
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TRUTH_FILE = os.path.join(HERE, "runtime_truth.json")
ATOL = 1e-5


# ------------------------------------------------------------------------------------------------
# implementations
# ------------------------------------------------------------------------------------------------
def runtime_mx():
    sys.path.insert(0, os.path.dirname(HERE)) if os.path.dirname(HERE) not in sys.path else None
    from hylint.runtime import runtime_modules
    return runtime_modules()["mxnet"]


def real_mx():
    """Real MXNet, or None where it does not import."""
    try:
        import mxnet
    except Exception:  # noqa: BLE001 - any import failure means "not available"
        return None
    if getattr(mxnet, "__hylint_runtime__", False):
        return None
    return mxnet


# ------------------------------------------------------------------------------------------------
# helpers shared by both implementations
# ------------------------------------------------------------------------------------------------
def pattern_initializer(mx):
    """A deterministic, RNG-free initializer so both implementations get identical parameters."""

    class Pattern(mx.init.Initializer):
        def _values(self, arr):
            n = int(np.prod(arr.shape))
            fan_in = int(np.prod(arr.shape[1:])) if len(arr.shape) > 1 else 1
            vals = np.cos(np.arange(n, dtype=np.float64) * 0.37 + 0.2) * 0.4 / np.sqrt(fan_in)
            return mx.nd.array(vals.reshape(arr.shape), dtype=arr.dtype)

        def _init_weight(self, _, arr):
            arr[:] = self._values(arr)

        def _init_bias(self, _, arr):
            arr[:] = self._values(arr)

        def _init_default(self, _, arr):
            arr[:] = self._values(arr)

    return Pattern()


def case_globals(mx):
    gluon = mx.gluon

    class PlainChild(gluon.Block):
        def forward(self, x):
            return x * 2

    class HybridChild(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return x * 2

    init = pattern_initializer(mx)
    env = dict(mx=mx, nd=mx.nd, np=np, gluon=gluon, nn=gluon.nn, autograd=mx.autograd, math=math, sym=mx.sym,
               PlainChild=PlainChild, HybridChild=HybridChild, PatternInit=lambda: init)
    if hasattr(gluon, "rnn"):
        env["rnn"] = gluon.rnn
    return env


def block_source(sig, body, init=None, base="HybridBlock"):
    src = "class CaseNet(gluon.%s):\n" % base
    src += "    def __init__(self, **kw):\n"
    src += "        super(CaseNet, self).__init__(**kw)\n"
    src += "        with self.name_scope():\n"
    src += "            pass\n"
    if init:
        src += textwrap.indent(textwrap.dedent(init).strip("\n"), " " * 12) + "\n"
    method = "hybrid_forward(self, F, %s)" % sig if base == "HybridBlock" else "forward(self, %s)" % sig
    src += "    def %s:\n" % method
    src += textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8) + "\n"
    return src


def make_inputs(mx, inputs):
    """Arrays from (values, dtype) pairs; a list of pairs is a Python list input of arrays."""
    def one(item):
        if isinstance(item, list):
            return [one(part) for part in item]
        values, dtype = item
        return mx.nd.array(np.array(values, dtype=dtype), dtype=dtype)
    return [one(item) for item in inputs]


def exc_name(err):
    cls = type(err)
    return cls.__name__ if cls.__module__ == "builtins" else "%s.%s" % (cls.__module__, cls.__name__)


_NOISE = re.compile(r"\[\d\d:\d\d:\d\d\] |\S+\.(?:cc|h|cpp):\d+: ")


def exc_head(err):
    """The meaningful first line of an exception message (MXNet's C++ location/timestamp noise removed)."""
    lines = [line.strip() for line in _NOISE.sub("", str(err)).splitlines() if line.strip()]
    if not lines:
        return ""
    head = lines[0]
    if head.startswith("Traceback"):
        errors = [line for line in lines if re.match(r"^[\w.]*(Error|Exception): ", line)]
        head = errors[-1] if errors else lines[-1]
    if head.startswith("MXNetError: "):
        head = head[len("MXNetError: "):]
    return head[:200]


def leaves_of(mx, out):
    """Flatten (nested) outputs into numpy arrays (numpy object arrays of NDArrays become float arrays)."""
    if isinstance(out, (list, tuple)):
        res = []
        for item in out:
            res.extend(leaves_of(mx, item))
        return res
    if isinstance(out, mx.nd.NDArray):
        return [out.asnumpy()]
    if isinstance(out, np.ndarray) and out.dtype == object:
        conv = np.vectorize(lambda e: float(e.asscalar()) if isinstance(e, mx.nd.NDArray) else float(e),
                            otypes=[np.float64])
        return [conv(out)]
    return [re.sub(r"0x[0-9a-fA-F]+", "0x..", repr(out))]


@contextlib.contextmanager
def quiet():
    buf = io.StringIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.redirect_stdout(buf):
            yield buf


# ------------------------------------------------------------------------------------------------
# one run
# ------------------------------------------------------------------------------------------------
def _call(fn, mx=None):
    """{'kind': 'ok'|'error', 'etype', 'message', 'leaves', 'printed'}; MXNet reports some errors only when the
    result is read, so the outputs are converted to numpy inside the same guard."""
    with quiet() as buf:
        try:
            out = fn()
            result = {"kind": "ok", "out": out}
            if mx is not None:
                result["numpy"] = leaves_of(mx, out)
        except Exception as err:  # noqa: BLE001 - recording what the implementation raised
            result = {"kind": "error", "etype": exc_name(err), "message": exc_head(err)}
    result["printed"] = bool(buf.getvalue().strip())
    return result


def run_pattern(mx, sig, body, inputs, init=None, base="HybridBlock", prefix="casenet_", extra_globals=()):
    """Run a pattern imperatively and hybridized (two calls) on ``mx``; return a JSON-able outcome."""
    env = case_globals(mx)
    src = block_source(sig, body, init, base)
    outcome = {}
    with quiet():
        try:
            exec(compile(src, "<pattern>", "exec"), env)
            net = env["CaseNet"](prefix=prefix)
            net.initialize(env["PatternInit"]())
        except Exception as err:  # noqa: BLE001
            outcome["construct"] = {"kind": "error", "etype": exc_name(err), "message": exc_head(err)}
            return outcome
    outcome["construct"] = {"kind": "ok"}

    imp = _call(lambda: net(*make_inputs(mx, inputs)), mx)
    net.hybridize()
    hyb = _call(lambda: net(*make_inputs(mx, inputs)), mx)
    if hyb["kind"] == "error":
        hyb["kind"] = "graph_error" if net._cached_graph else "trace_error"
    hyb2 = _call(lambda: net(*make_inputs(mx, inputs)), mx)
    if hyb2["kind"] == "error":
        hyb2["kind"] = "graph_error" if net._cached_graph else "trace_error"
    for name, res in (("imp", imp), ("hyb", hyb), ("hyb2", hyb2)):
        if res["kind"] == "ok":
            res.pop("out")
            leaves = res.pop("numpy")
            res["leaves"] = [leaf.tolist() if isinstance(leaf, np.ndarray) else leaf for leaf in leaves]
            res["shapes"] = [list(np.shape(leaf)) if isinstance(leaf, np.ndarray) else None for leaf in leaves]
            res["dtypes"] = [str(leaf.dtype) if isinstance(leaf, np.ndarray) else None for leaf in leaves]
        outcome[name] = res
    return outcome


# ------------------------------------------------------------------------------------------------
# comparison
# ------------------------------------------------------------------------------------------------
def _leaves_equal(a, b, mode):
    if len(a["leaves"]) != len(b["leaves"]):
        return "number of outputs %d vs %d" % (len(a["leaves"]), len(b["leaves"]))
    for i, (x, y, sx, sy) in enumerate(zip(a["leaves"], b["leaves"], a["shapes"], b["shapes"])):
        if sx is None or sy is None:
            if x != y:
                return "output %d: %r vs %r" % (i, x, y)
            continue
        if mode == "values":
            x, y = np.asarray(x, dtype=np.float64).reshape(-1), np.asarray(y, dtype=np.float64).reshape(-1)
        elif sx != sy:
            return "output %d: shape %s vs %s" % (i, tuple(sx), tuple(sy))
        if mode == "shape":
            continue
        x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
        if x.shape != y.shape:
            return "output %d: size %s vs %s" % (i, x.shape, y.shape)
        if x.size and not np.allclose(x, y, atol=ATOL, rtol=1e-5, equal_nan=True):
            return "output %d: values differ (max |d| = %.3g)" % (i, np.nanmax(np.abs(x - y)))
    return None


def differences(runtime, truth, mode="allclose"):
    """Why two outcomes disagree (empty list = same outcome class, exception types and numbers)."""
    diffs = []
    for step in ("construct", "imp", "hyb", "hyb2"):
        a, b = runtime.get(step), truth.get(step)
        if a is None and b is None:
            continue
        if a is None or b is None:
            diffs.append("%s: ran on one side only" % step)
            continue
        if a["kind"] != b["kind"]:
            diffs.append("%s: %s (%s) vs MXNet %s (%s)" % (step, a["kind"], a.get("etype", ""), b["kind"],
                                                           b.get("etype", "")))
            continue
        if a["kind"] != "ok" and a["etype"] != b["etype"]:
            diffs.append("%s: raises %s vs MXNet %s" % (step, a["etype"], b["etype"]))
        if a["kind"] == "ok" and step != "construct":
            why = _leaves_equal(a, b, mode)
            if why:
                diffs.append("%s: %s" % (step, why))
        if step != "construct" and a.get("printed") != b.get("printed"):
            diffs.append("%s: printed %s vs MXNet %s" % (step, a.get("printed"), b.get("printed")))
    return diffs


def message_differences(runtime, truth):
    out = []
    for step in ("construct", "imp", "hyb", "hyb2"):
        a, b = runtime.get(step) or {}, truth.get(step) or {}
        if a.get("message") is not None and b.get("message") is not None and a["message"] != b["message"]:
            out.append("%s: %r vs MXNet %r" % (step, a["message"], b["message"]))
    return out


# ------------------------------------------------------------------------------------------------
# the variants to run: every row's pattern and its candidate rewrites, plus fluent-method rows
# ------------------------------------------------------------------------------------------------
X23 = ([[1.5, -2.0, 3.0], [4.0, 5.5, -6.0]], "float32")

#: drv_fluent.*: fluent methods measured one by one (input x (2,3) float32)
FLUENT_EXPRESSIONS = [
    "x.sum(axis=1)", "x.sum(1)", "x.mean(1)", "x.max()", "x.min(axis=0)", "x.prod()", "x.nansum()",
    "x.argmax(axis=1)", "x.argmin(1)", "x.argsort()", "x.topk(k=2)", "x.topk(k=2, ret_typ='both')[1]",
    "x.clip(0, 1)", "x.exp()", "x.log()", "x.sqrt()", "x.square()", "x.abs()", "x.sign()", "x.round()",
    "x.floor()", "x.relu()", "x.sigmoid()", "x.softmax()", "x.log_softmax(axis=0)", "x.flatten()",
    "x.expand_dims(1)", "x.squeeze()", "x.reshape((3, 2))", "x.reshape(shape=(3, 2))", "x.reshape_like(x)",
    "x.transpose()", "x.transpose((1, 0))", "x.swapaxes(0, 1)", "x.flip(0)", "x.tile((2, 1))", "x.repeat(2)",
    "x.broadcast_like(x)", "x.split(3, axis=1)[0]", "x.slice(begin=(0, 0), end=(1, 2))",
    "x.slice_axis(axis=1, begin=0, end=2)", "x.slice_like(x)", "x.one_hot(3)", "x.astype('float64')",
    "x.astype(np.float16)", "x.astype('int32')", "x.zeros_like()", "x.ones_like()", "x.norm()", "x.diag()",
    "x.shape_array()", "x.size_array()", "x.as_nd_ndarray()", "x.pick(F.zeros((2,)))", "x.take(F.zeros((1,)))",
    "x.clip(a_min=0, a_max=1)", "x.nanprod()", "x.rsqrt()", "x.reciprocal()", "x.max(axis=1, keepdims=True)",
    "x.sum(axis=(0, 1))", "x.log1p()", "x.tanh()", "x.softmin()",
    # drv_fluent.2+: the ones that differ
    "x.sort()", "x.broadcast_to((2, 2, 3))", "x.tostype('default')", "x.where(x, x)", "x.cast('float64')",
    "x.depth_to_space(1)", "x.__copy__()", "x.copy()", "x.detach()", "x.asnumpy()", "x.asscalar()",
    "x.as_in_context(mx.cpu())", "x.T", "x.astype('float32', copy=False)", "x.to_dlpack_for_read()",
    "x.backward()",
]


Y24 = ([[1.0] * 4, [2.0] * 4], "float32")

#: error paths outside mxnet-truth's table: operators given mismatched inputs x (2,3), y (2,4)
#: (left out: ``F.transpose(x, axes=(0, 0))`` crashes MXNet 1.9.1; size-changing reshapes and zero-size results,
#: e.g. ``F.reshape(x, shape=(7, -1))`` or ``F.one_hot(x, 0)``, leave a ``delay_alloc`` error in MXNet's engine
#: that surfaces in later, unrelated calls)
ERROR_PROBES = [
    "return F.concat(x, y, dim=0)", "return F.dot(x, y)",
    "return F.slice_axis(x, axis=1, begin=2, end=1)", "return F.split(x, num_outputs=4, axis=1)[0]",
    "return F.squeeze(x, axis=0)", "return F.broadcast_add(x, y)", "return F.stack(x, y)", "return F.batch_dot(x, y)",
    "return F.FullyConnected(x, y, num_hidden=3, no_bias=True)", "return F.reshape(x, shape=(-1, -1))",
    "return F.sum(x, axis=3)", "return F.softmax(x, axis=2)", "return F.expand_dims(x, axis=4)",
    "return F.slice(x, begin=(0, 0, 0), end=(1, 1, 1))", "return F.tile(x, reps=(0,))", "return F.where(x, x, y)",
    "return F.Embedding(x, y, input_dim=3, output_dim=3)",
    "return F.Pooling(x, kernel=(2, 2), pool_type='max')",
    "return F.Convolution(x, y, kernel=(3,), num_filter=2, no_bias=True)", "return F.LayerNorm(x, y, y)",
    "return F.pick(x, y)", "return F.broadcast_to(x, shape=(4, 3))", "return F.Activation(x, act_type='gelu')",
    "return F.reshape_like(x, y)", "return F.elemwise_mul(x, y)",
    "return F.arange(0, 3) + x", "return F.take(x, y, axis=3)", "return F.sum(x, axis=-3)",
]


def variants():
    """[(variant_id, row_id, spec)] for every pattern row, rewrite and fluent expression."""
    from runtime_case_table import ROWS
    out = []
    for row in ROWS:
        base = {"sig": row["sig"], "inputs": row["inputs"], "init": row.get("init"),
                "base": row.get("base", "HybridBlock"), "compare": row.get("compare", "allclose")}
        out.append((row["id"], row["id"], dict(base, body=row["body"], kind="row")))
        for i, rw in enumerate(row.get("rewrites", [])):
            spec = dict(base, body=rw["body"], kind="rewrite", label=rw["label"],
                        expect_wrong=rw.get("expect_wrong", False))
            for key in ("sig", "init"):
                if key in rw:
                    spec[key] = rw[key]
            out.append(("%s.rw%d" % (row["id"], i + 1), row["id"], spec))
    for body in ERROR_PROBES:
        spec = {"sig": "x, y", "inputs": [X23, Y24], "init": None, "base": "HybridBlock", "compare": "allclose",
                "body": body, "kind": "probe"}
        out.append(("probe:" + body[len("return "):], "error_probes", spec))
    for expr in FLUENT_EXPRESSIONS:
        spec = {"sig": "x", "inputs": [X23], "init": None, "base": "HybridBlock", "compare": "allclose",
                "body": "return " + expr, "kind": "fluent"}
        out.append(("fluent:" + expr, "drv_fluent", spec))
    return out


def run_spec(mx, spec):
    return run_pattern(mx, spec["sig"], spec["body"], spec["inputs"], spec.get("init"), spec.get("base", "HybridBlock"))


def record(path=TRUTH_FILE):
    mx = real_mx()
    assert mx is not None, "recording needs real MXNet"
    truth = {"mxnet": mx.__version__, "numpy": np.__version__, "variants": {}}
    for vid, _, spec in variants():
        truth["variants"][vid] = run_spec(mx, spec)
    with open(path, "w") as handle:
        json.dump(truth, handle, indent=0, sort_keys=True)
    return truth


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    if "--record" in sys.argv:
        result = record()
        print("recorded %d variants with MXNet %s" % (len(result["variants"]), result["mxnet"]))
