"""What the runtime works out once instead of on every call: a hybridized block's graph compiled into a plan
per input signature (executor.compile_plan / run_plan), and an eager call's attribute strings parsed once per
operator and attribute set (ops.attrs.parse_attrs). Each must give what the uncached path gives, and stay
out of the way where its inputs change."""
import numpy as np
import pytest

from hylint.runtime import executor, gluon
from hylint.runtime import ndarray as nd
from hylint.runtime import symbol as sym
from hylint.runtime.base import MXNetError
from hylint.runtime.ops import OPS, attrs as attrs_module

RNG = np.random.RandomState(5)


def _net():
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Conv2D(6, 3, padding=1), gluon.nn.BatchNorm(), gluon.nn.Activation("relu"),
            gluon.nn.Conv2D(4, 1), gluon.nn.GlobalAvgPool2D(), gluon.nn.Dense(3))
    net.initialize()
    return net


def _cached_op(net):
    assert net._cached_op is not None, "a hybridized call leaves its cached graph on the block"
    return net._cached_op


def test_hybridized_calls_reuse_one_plan_per_signature_and_equal_eager():
    net = _net()
    x = nd.array(RNG.standard_normal((2, 5, 8, 8)).astype(np.float32))
    eager = net(x).asnumpy()
    net.hybridize()
    first = net(x).asnumpy()
    cached = _cached_op(net)
    plans = dict(cached._plans)
    assert len(plans) == 1
    second = net(x).asnumpy()
    assert dict(cached._plans) == plans  # the same Plan object, not compiled again
    np.testing.assert_array_equal(first, second)
    np.testing.assert_allclose(first, eager, rtol=1e-5, atol=1e-6)
    other = nd.array(RNG.standard_normal((1, 5, 6, 6)).astype(np.float32))
    net(other)
    assert len(cached._plans) == 2  # a new input shape compiles its own plan


def test_run_plan_frees_intermediates_but_keeps_heads_and_given():
    x = sym.var("x")
    hidden = sym.relu(x * 2)
    out = sym.Group([hidden + 1, hidden * 3])
    plan = executor.compile_plan(out._outputs)
    values = {"x": np.array([[-1.0, 2.0]], np.float32)}
    a, b = executor.run_plan(plan, values)
    np.testing.assert_array_equal(a, [[1.0, 5.0]])
    np.testing.assert_array_equal(b, [[0.0, 12.0]])
    # the same plan on other values: nothing of the first call is left over
    a2, _ = executor.run_plan(plan, {"x": np.array([[3.0, -4.0]], np.float32)})
    np.testing.assert_array_equal(a2, [[7.0, 1.0]])
    with pytest.raises(MXNetError, match="Cannot find variable x"):
        executor.run_plan(plan, {})


def test_parse_attrs_hands_out_a_fresh_dict_each_call():
    op = OPS["Convolution"]
    strs = {"kernel": "(3, 3)", "num_filter": "8", "pad": "(1, 1)"}
    first = attrs_module.parse_attrs(op, strs)
    first["num_filter"] = 99
    first["__eager__"] = True
    second = attrs_module.parse_attrs(op, strs)
    assert second["num_filter"] == 8 and "__eager__" not in second
    assert second["kernel"] == (3, 3) and second["stride"] == ()


def test_parse_attrs_raises_on_every_call_and_keys_on_the_strings():
    op = OPS["Convolution"]
    bad = {"kernel": "(3, 3)", "num_filter": "eight"}
    for _ in range(2):  # a failed parse is not remembered as a success
        with pytest.raises(MXNetError, match="Invalid Parameter format for num_filter"):
            attrs_module.parse_attrs(op, bad)
    assert attrs_module.parse_attrs(op, {"kernel": "(3, 3)", "num_filter": "4"})["num_filter"] == 4
    assert attrs_module.parse_attrs(op, {"kernel": "(5, 5)", "num_filter": "4"})["kernel"] == (5, 5)


def test_parse_attrs_does_not_keep_mutable_values(monkeypatch):
    """A value parsed to a list (an 'any' attribute) is parsed again each call, so no caller sees another's edits."""
    monkeypatch.setattr(attrs_module, "_PARSED", {})
    op = next(o for o in OPS.values() if any(p.kind == "any" for p in o.params) and not o.keeps_attributes)
    name = next(p.name for p in op.params if p.kind == "any")
    parsed = attrs_module.parse_attrs(op, {name: "[1, 2]"})
    assert parsed[name] == [1, 2]
    assert not attrs_module._PARSED
    assert attrs_module.parse_attrs(op, {name: "7"})[name] == 7
    assert len(attrs_module._PARSED) == 1


def test_eager_results_unchanged_with_the_parse_cache_full(monkeypatch):
    """Past PARSED_CACHE_SIZE entries nothing more is kept, and the results stay the same."""
    x = nd.array(RNG.standard_normal((1, 2, 5, 5)).astype(np.float32))
    w = nd.array(RNG.standard_normal((3, 2, 3, 3)).astype(np.float32))
    before = nd.Convolution(x, w, kernel=(3, 3), num_filter=3, no_bias=True).asnumpy()
    monkeypatch.setattr(attrs_module, "PARSED_CACHE_SIZE", 0)
    monkeypatch.setattr(attrs_module, "_PARSED", {})
    after = nd.Convolution(x, w, kernel=(3, 3), num_filter=3, no_bias=True).asnumpy()
    assert not attrs_module._PARSED
    np.testing.assert_array_equal(before, after)


def test_a_text_that_is_not_a_literal_parses_the_same_every_time(monkeypatch):
    """``layout="NCHW"`` (an 'any' attribute, not a Python literal) gives "NCHW" on every parse: the literal cache
    once handed its "not a literal" marker back as the value from the second parse on (a Convolution's layout
    became that marker and its parse was never kept); both caches emptied, then the same strings twice."""
    monkeypatch.setattr(attrs_module, "_PARSED", {})
    monkeypatch.setattr(attrs_module, "_LITERALS", {})
    op = OPS["Convolution"]
    strs = {"kernel": "(3, 3)", "num_filter": "8", "no_bias": "True", "layout": "NCHW"}
    assert attrs_module.parse_attrs(op, strs)["layout"] == "NCHW"
    monkeypatch.setattr(attrs_module, "_PARSED", {})  # parsed again: the literal cache answers this time
    assert attrs_module.parse_attrs(op, strs)["layout"] == "NCHW"
    assert len(attrs_module._PARSED) == 1
    calls = []
    monkeypatch.setattr(attrs_module, "_parse_attrs", lambda *args: calls.append(args))
    assert attrs_module.parse_attrs(op, strs)["layout"] == "NCHW" and not calls
    with pytest.raises(ValueError):
        attrs_module._literal("NCHW")


@pytest.mark.parametrize("value, text", [
    (3, "3"), (True, "True"), (0.1, "0.1"), ("NCHW", "NCHW"), ((3, 3), "(3, 3)"), ((), "()"),
    (np.float32(0.1), "0.10000000149011612"), (np.int64(7), "7"), ((np.int64(1), 2), "(1, 2)"),
    ((True, 1), "(True, 1)"), ([1, 2], "[1, 2]"), (np.float32, "float32")])
def test_stringify_fast_path_gives_what_the_general_one_does(value, text):
    """The plain values take a shortcut to ``str()``; numpy scalars, dtypes and tuples holding them do not."""
    assert attrs_module.stringify(value) == text


def test_positional_slots_built_once_per_operator_and_namespace():
    from hylint.runtime.ops import binding

    x = nd.array(np.ones((1, 2, 4, 4), np.float32))
    w = nd.array(np.ones((3, 2, 3, 3), np.float32))
    first = nd.Convolution(x, w, None, (3, 3), num_filter=3, no_bias=True).asnumpy()
    slots = binding._SLOTS[(OPS["Convolution"], "nd")]
    assert slots[:3] == ("data", "weight", "bias") and slots[3] == "kernel" and slots[-2:] == ("out", "name")
    np.testing.assert_array_equal(first, nd.Convolution(x, w, None, (3, 3), num_filter=3, no_bias=True).asnumpy())
    assert binding._SLOTS[(OPS["Convolution"], "nd")] is slots
    with pytest.raises(TypeError, match=r"Convolution\(\) takes at most %d positional arguments" % len(slots)):
        nd.Convolution(*([x] * (len(slots) + 1)))
