"""Sound fixes (lint/soundness.py): a fix marked safe never changes what working code computes eagerly.
Each rule states the facts its rewrite relies on; only facts the analysis proves keep a fix safe. The two
cases users met are checked on MXNet 1.9.1 where it is installed: the safe fix keeps the eager result,
and --unsafe-fixes still repairs the block where the assumption holds."""
import json

import pytest

from hylint.diagnostic import Applicability
from hylint.lint.engine import Linter
from hylint.selection import select_rules

# gluoncv 0.10.5 loss.py (MixSoftmaxCrossEntropyLoss): `lam` reaches the helper through `*inputs`, and
# mixup scripts pass it as a Python float
MIXUP = '''from mxnet.gluon import nn


class MixLoss(nn.HybridBlock):
    def _mixup_forward(self, F, pred, label1, label2, lam):
        pred = F.log_softmax(pred, -1)
        loss1 = -F.pick(pred, label1, axis=-1, keepdims=True)
        loss2 = -F.pick(pred, label2, axis=-1, keepdims=True)
        loss = lam * loss1 + (1 - lam) * loss2
        return F.mean(loss, axis=0, exclude=True)

    def hybrid_forward(self, F, *inputs):
        return self._mixup_forward(F, *inputs)
'''

# a re-identification model from a user's report: `nd.split` into two parts is a list of NDArrays
SPLIT = '''from mxnet import nd
from mxnet.gluon import nn


class Parts(nn.HybridBlock):
    def __init__(self, **kwargs):
        super(Parts, self).__init__(**kwargs)
        self.pool = nn.GlobalAvgPool2D()

    def hybrid_forward(self, F, x):
        x2 = F.relu(x)
        parts = nd.split(x2, axis=2, num_outputs=2)
        return self.pool(parts[0])
'''


def linter() -> Linter:
    return Linter(select_rules())


def fixes(source: str):
    return [d for d in linter().lint_source(source, "m.py").diagnostics if d.fix is not None]


def test_a_python_number_operand_makes_the_broadcast_fix_unsafe():
    found = [d for d in fixes(MIXUP) if d.code == "HY101"]
    assert len(found) == 2
    for diagnostic in found:
        assert diagnostic.fix.applicability is Applicability.UNSAFE
        assert "`lam`" in diagnostic.fix.why_unsafe or "`(1 - lam)`" in diagnostic.fix.why_unsafe
        facts = {c.expression: c.proven for c in diagnostic.fix.relies_on}
        assert facts["loss1" if "loss1" in facts else "loss2"] is True  # a pick's result is proven
        assert False in facts.values()
    assert linter().fix_source(MIXUP, "m.py").source == MIXUP  # nothing safe to do
    unsafe = linter().fix_source(MIXUP, "m.py", unsafe=True).source
    assert "F.broadcast_mul(lam, loss1) + F.broadcast_mul((1 - lam), loss2)" in unsafe


def test_a_multi_output_ndarray_op_is_a_list_not_a_tensor():
    fixed = linter().fix_source(SPLIT, "m.py").source
    assert "parts = F.split(x2, axis=2, num_outputs=2)" in fixed
    assert "self.pool(parts[0])" in fixed  # an output selected from a list, not a row of a tensor
    assert linter().fix_source(SPLIT, "m.py", unsafe=True).source == fixed


@pytest.mark.parametrize("call, kind", [
    ("nd.split(x, num_outputs=2)", "list"), ("mx.nd.split(x, 2)", "list"), ("nd.SliceChannel(x, 3)", "list"),
    ("nd.topk(x, ret_typ='both')", "list"), ("nd.split(x, num_outputs=1)", "tensor"),
    ("nd.split(x, num_outputs=1, axis=0, squeeze_axis=True)", "tensor"), ("nd.topk(x)", "tensor"),
])
def test_multi_output_facts_hold_in_every_namespace(call, kind):
    """`[0]` of a multi-output result selects an output (no HY301); of one tensor it is a row (HY301)."""
    source = ("import mxnet as mx\nfrom mxnet import nd\nfrom mxnet.gluon import nn\n\n\nclass N(nn.HybridBlock):\n"
              f"    def hybrid_forward(self, F, x):\n        x = F.relu(x)\n        out = {call}\n"
              "        return out[0]\n")
    codes = [d.code for d in linter().lint_source(source, "m.py").diagnostics]
    assert ("HY301" in codes) == (kind == "tensor"), codes


@pytest.mark.mxnet
@pytest.mark.parametrize("call, kind", [
    ("mx.nd.split(x, num_outputs=2)", "list"), ("mx.nd.SliceChannel(x, 3)", "list"),
    ("mx.nd.topk(x, ret_typ='both')", "list"), ("mx.nd.split(x, num_outputs=1)", "tensor"),
    ("mx.nd.split(x, num_outputs=1, axis=0, squeeze_axis=True)", "tensor"), ("mx.nd.topk(x)", "tensor"),
])
def test_multi_output_facts_measured(call, kind):
    mx = pytest.importorskip("mxnet")
    x = mx.nd.arange(6).reshape((1, 6))
    out = eval(call, {"mx": mx, "x": x})
    assert (kind == "list") == isinstance(out, list)


@pytest.mark.mxnet
def test_the_fixed_mixup_loss_keeps_its_eager_result_on_mxnet():
    mx = pytest.importorskip("mxnet")
    pred = mx.nd.array([[0.1, 0.5, 0.2], [0.3, 0.3, 0.9]])
    label1, label2 = mx.nd.array([0, 2]), mx.nd.array([1, 1])

    def run(source, lam, hybridize=False):
        namespace = {}
        exec(compile(source, "m.py", "exec"), namespace)
        block = namespace["MixLoss"]()
        if hybridize:
            block.hybridize()
        return block(pred, label1, label2, lam).asnumpy()

    original = run(MIXUP, 0.3)
    safe = linter().fix_source(MIXUP, "m.py").source
    assert (run(safe, 0.3) == original).all()  # a Python float still works
    # --unsafe-fixes repairs it where the assumption holds: `lam` a tensor, hybridized equal to eager
    unsafe = linter().fix_source(MIXUP, "m.py", unsafe=True).source
    lam = mx.nd.array([0.3])
    eager = run(unsafe, lam)
    assert abs(eager - original).max() < 1e-6
    assert abs(run(unsafe, lam, hybridize=True) - eager).max() < 1e-6
    with pytest.raises(Exception):  # the original does not hybridize (`*` needs equal shapes)
        run(MIXUP, lam, hybridize=True)


@pytest.mark.mxnet
def test_the_fixed_split_keeps_its_eager_result_and_hybridizes_on_mxnet():
    mx = pytest.importorskip("mxnet")
    x = mx.nd.arange(2 * 3 * 4 * 4).reshape((2, 3, 4, 4)) - 40

    def run(source, hybridize):
        namespace = {}
        exec(compile(source, "m.py", "exec"), namespace)
        block = namespace["Parts"]()
        block.initialize()
        if hybridize:
            block.hybridize()
        return block(x).asnumpy()

    fixed = linter().fix_source(SPLIT, "m.py").source
    assert (run(fixed, False) == run(SPLIT, False)).all()
    assert (run(fixed, True) == run(SPLIT, False)).all()


def test_json_states_the_facts_and_why_unsafe(tmp_path):
    from click.testing import CliRunner

    from hylint.cli import main

    path = tmp_path / "m.py"
    path.write_text(MIXUP)
    result = CliRunner().invoke(main, ["check", str(path), "--output-format", "json", "--no-cache"])
    entries = [e for e in json.loads(result.output) if e["code"] == "HY101"]
    assert entries and all(e["fix"]["applicability"] == "unsafe" for e in entries)
    first = entries[0]["fix"]
    assert {"expression": "loss1", "fact": "tensor", "proven": True} == \
        {k: v for k, v in first["relies_on"][1].items() if k != "evidence"}
    assert first["relies_on"][0]["expression"] == "lam" and first["relies_on"][0]["proven"] is False
    assert "`lam` may not be a tensor" in first["why_unsafe"]


def test_a_built_in_layer_input_is_a_proven_tensor():
    """`self.fc(x)` with `nn.Dense`: the layer refuses a Python number or a list (measured: ValueError or
    AssertionError on MXNet 1.9.1), so `x` is a tensor and the broadcast fix is safe."""
    source = ('from mxnet.gluon import nn\n\n\nclass N(nn.HybridBlock):\n    def __init__(self, **kwargs):\n'
              '        super(N, self).__init__(**kwargs)\n        self.pool = nn.GlobalAvgPool2D()\n\n'
              '    def hybrid_forward(self, F, x):\n        return x * F.sigmoid(self.pool(x))\n')
    [diagnostic] = fixes(source)
    assert diagnostic.fix.applicability is Applicability.SAFE
    assert all(check.proven for check in diagnostic.fix.relies_on)


@pytest.mark.mxnet
@pytest.mark.parametrize("layer", ["nn.Dense(4)", "nn.Activation('relu')", "nn.GlobalAvgPool2D()", "nn.BatchNorm()",
                                   "nn.Flatten()", "nn.LayerNorm()", "nn.Dropout(0.5)"])
def test_built_in_layers_refuse_a_number_and_a_list(layer):
    mx = pytest.importorskip("mxnet")
    from mxnet.gluon import nn

    block = eval(layer, {"nn": nn})
    block.initialize()
    a = mx.nd.ones((2, 3, 4, 4))
    for value in (0.3, [a, a]):
        with pytest.raises((ValueError, AssertionError, mx.base.MXNetError)):
            block(value)


# gluoncv 0.10.5 nn/gn.py and gluonfr 1.0.2 loss.py, as the fix oracle met them (benchmarks/fix_oracle)
GROUNDS = '''from mxnet.gluon import nn


class Norm(nn.HybridBlock):
    def __init__(self, **kwargs):
        super(Norm, self).__init__(**kwargs)
        self.gamma = self.params.get('gamma', shape=(3,))

    def hybrid_forward(self, F, x, gamma):
        y = F.relu(x).reshape(0, 0, -1)
        d = F.dot(x, x.T)
        z = {expression}
        return z
'''


def test_a_compound_tensor_fact_is_stated_down_to_the_parts_it_rests_on():
    """The fix oracle bound `gamma` to a NumPy array and `dot_product` to a number: the fact stated of
    `y * gamma.reshape(1, -1, 1)` said nothing of them. The proof that a compound is a tensor rests on its
    parts, and those facts are checked and stated too, down to the names it reads."""
    found = [d for d in fixes(GROUNDS.format(expression="y * gamma.reshape(1, -1, 1)")) if d.code == "HY101"]
    assert len(found) == 1 and found[0].fix.applicability is Applicability.SAFE
    stated = {(c.expression, c.fact): c.proven for c in found[0].fix.relies_on}
    assert stated == {("y", "tensor"): True, ("gamma.reshape(1, -1, 1)", "tensor"): True, ("gamma", "tensor"): True}
    found = [d for d in fixes(GROUNDS.format(expression="y.expand_dims(0) - 2.0 * d")) if d.code == "HY101"]
    stated = {(c.expression, c.fact): c.proven for c in found[0].fix.relies_on}
    assert stated[("2.0 * d", "tensor")] and stated[("d", "tensor")] and stated[("y", "tensor")]
    # a part only assumed a tensor (an element of the first argument) leaves the fix unsafe, saying why
    assumed = ("from mxnet.gluon import nn\n\n\nclass N(nn.HybridBlock):\n    def hybrid_forward(self, F, x):\n"
               "        h = x[0]\n        return h.reshape(1, -1) + F.ones((1, 1, 1))\n")
    found = [d for d in fixes(assumed) if d.code == "HY101"]
    stated = {(c.expression, c.fact): c.proven for c in found[0].fix.relies_on}
    assert stated[("h.reshape(1, -1)", "tensor")] is True and stated[("h", "tensor")] is False
    assert found[0].fix.applicability is Applicability.UNSAFE and "`h` may not be a tensor" in found[0].fix.why_unsafe


IN_PLACE = '''from mxnet.gluon import nn


class Loss(nn.HybridBlock):
    def hybrid_forward(self, F, pred, target):
        factor = target * F.log(target) - target
{between}        factor *= target > 1
        return factor
'''


def test_an_in_place_write_states_that_no_alias_sees_it():
    """mxnet 1.9.1 gluon/loss.py (PoissonNLLLoss): `stirling_factor *= target_gt_1` -> a rebinding, exact when
    the name is a tensor or a number (a list or a NumPy array is written in place) and no other name holds the
    array; the reading of the function answers the second, and lint/soundness.py decides."""
    found = [d for d in fixes(IN_PLACE.format(between="")) if d.code == "HY501"]
    assert found[0].fix.applicability is Applicability.SAFE
    assert {(c.expression, c.fact, c.proven) for c in found[0].fix.relies_on} == {
        ("factor", "tensor-or-number", True), ("factor", "unaliased", True)}
    found = [d for d in fixes(IN_PLACE.format(between="        kept = [factor]\n")) if d.code == "HY501"]
    assert found[0].fix.applicability is Applicability.UNSAFE
    assert found[0].fix.why_unsafe == ("`factor` may be aliased: `kept = [factor]` may keep a reference to `factor` "
                                       "before the write")
