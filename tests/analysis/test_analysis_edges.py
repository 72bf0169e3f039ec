"""analysis: shape facts and output kinds found by hand on real code (issue 23 item 9), each measured on
MXNet 1.9.1 (the fixtures HY101_5, HY301_5 and HY807_3 run them on MXNet and on the reference runtime)."""
from hylint.lint.engine import Linter
from hylint.selection import select_rules


def _codes(source, select=None):
    rules = select_rules(select or (), named_retired=True)  # HY102, retired, still shows the analysis's shapes
    return [(d.start[0], d.code) for d in Linter(rules).lint_source(source, "m.py").diagnostics]


PARAM = ("class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
         "        self.w = self.params.get('w', shape={shape})\n\n    def hybrid_forward(self, F, x, w):\n{body}")


def _lint(source, select=None):
    rules = select_rules(select or (), named_retired=True)
    return Linter(rules).lint_source(source, "m.py").diagnostics


def test_a_parameter_against_an_input_of_unknown_rank_is_an_assumption_stated():
    """Issue 41 item 3. `w * x`, `w` of shape=30 and `x` of (30,), hybridizes: the input's batch axis is an
    assumption. Reported all the same (a layer norm's `normed * gamma` fails hybridized), saying so, with an
    unsafe fix whose why_unsafe names the assumption."""
    found = _lint(PARAM.format(shape="30", body="        return w * x\n"))
    assert [(d.start[0], d.code) for d in found] == [(7, "HY101")]
    assert "Parameter `w` declared with shape=(30,); if `x` has a batch axis (rank above 1), the shapes differ" \
        in found[0].help
    fix = found[0].fix
    assert fix.applicability.value == "unsafe"
    assert "`x` may have no batch axis: its rank is unknown" in fix.why_unsafe
    assert ("x", "rank above 1", False) in [(c.expression, c.fact, c.proven) for c in fix.relies_on]
    assert _codes(PARAM.format(shape="(30,)", body="        return x + w\n")) == [(7, "HY101")]
    # a rank known to differ is a fact: a (N, 30) Dense output against a (30,) parameter
    dense = PARAM.format(shape="(30,)", body="        h = F.FullyConnected(x, num_hidden=30).reshape((-1, 30))\n"
                                             "        return h * w\n")
    assert _codes(dense) == [(8, "HY101")]
    assert " if " not in _lint(dense)[0].message
    # a rank known to equal the parameter's is no question: (N, 30) against (4, 30)
    same = PARAM.format(shape="(4, 30)", body="        h = x.reshape((-1, 30))\n        return h * w\n")
    assert _codes(same) == []
    # a parameter with a size-1 axis is a fact too
    assert _codes(PARAM.format(shape="(1, 30)", body="        return w * x\n")) == [(7, "HY101")]


LAYER_NORM = ("import mxnet as mx\nfrom mxnet import nd\nfrom mxnet.gluon import HybridBlock\n\n\n"
              "class N(HybridBlock):\n    def __init__(self, units=4, **kwargs):\n        super().__init__(**kwargs)\n"
              "        self.gamma = self.params.get('gamma', shape=(units,))\n\n"
              "    def hybrid_forward(self, F, x, gamma):\n        mean = F.mean(x, axis=-1, keepdims=True)\n"
              "        var = F.mean(F.square(F.broadcast_sub(x, mean)), axis=-1, keepdims=True)\n"
              "        normed = F.broadcast_div(F.broadcast_sub(x, mean), F.sqrt(var + 1e-5))\n"
              "        return normed * gamma\n{calls}")


def test_the_calls_the_module_shows_drop_or_confirm_the_batch_axis():
    """A call of the block on an NDArray literal of the parameter's rank drops the report (every such call);
    one of another rank confirms it: the message says so without "if", and names the call. `normed` has the
    rank of the input `x` (keepdims reductions and broadcasts of `x` keep it)."""
    assumed = _lint(LAYER_NORM.format(calls=""))
    assert [d.start[0] for d in assumed] == [15] and "if `normed` has a batch axis (rank above 1)" in assumed[0].help
    for calls in ("\n\ndef demo():\n    net = N()\n    net.initialize()\n    return net(mx.nd.ones(4))\n",
                  "\n\nout = N()(nd.array([1.0, 2.0, 3.0, 4.0]))\n",
                  "\n\ndef demo():\n    x = nd.random.uniform(shape=(4,))\n    return N()(x)\n",
                  "\n\nX = mx.nd.arange(4)\nNET = N()\nOUT = NET(X)\n",
                  "\n\nX = mx.nd.arange(4)\n\n\ndef demo():\n    return N()(X)\n"):
        assert _lint(LAYER_NORM.format(calls=calls)) == [], calls
    confirmed = ("\n\ndef demo():\n    net = N()\n    net(nd.ones(4))\n    return net(nd.ones((2, 5, 4)))\n")
    found = _lint(LAYER_NORM.format(calls=confirmed))
    assert [d.start[0] for d in found] == [15]
    message = found[0].help
    assert " if " not in message and "while `normed` has the rank of the input `x`, which is of rank 3 in " \
        "`net(nd.ones((2, 5, 4)))`" in message
    assert found[0].fix.applicability.value == "unsafe"  # one call is no proof for every caller
    # a child's call in hybrid code, on an input whose rank the analysis knows
    parent = ("\n\nclass P(HybridBlock):\n    def __init__(self, **kwargs):\n        super().__init__(**kwargs)\n"
              "        self.norm = N()\n\n    def hybrid_forward(self, F, x):\n"
              "        return self.norm(x.reshape((-1, {rank})))\n")
    assert "of rank 3 in `self.norm(x.reshape((-1, 5, 4)))`" in _lint(LAYER_NORM.format(calls=parent.format(rank="5, 4")))[0].help
    assert _lint(LAYER_NORM.format(calls=parent.format(rank="")).replace("(-1, )", "(-1,)")) == []  # a vector
    # a call of an input of unknown rank says nothing; nor does a function's call of a block it does not name
    for calls in ("\n\ndef demo(x):\n    return N()(x)\n", "\n\nNET = N()\n\n\ndef demo():\n    return NET(nd.ones(4))\n"):
        assert _lint(LAYER_NORM.format(calls=calls))[0].message == assumed[0].message


def _eager_then_hybridized(source, shape):
    """One block ``N`` of ``source``: its output on ones of ``shape`` eagerly, then hybridized."""
    import mxnet as mx
    namespace = {}
    exec(compile(source, "<block>", "exec"), namespace)
    block = namespace["N"]()
    block.initialize()
    eager = block(mx.nd.ones(shape)).asnumpy()
    block.hybridize()
    return eager, block(mx.nd.ones(shape)).asnumpy()


def test_the_batch_axis_decides_on_mxnet():
    """Measured on MXNet 1.9.1: the layer norm on (2, 5, 4) with `gamma` of shape (4,) runs eagerly and fails
    hybridized ("Incompatible attr in node ..._mul0"); on (4,) it hybridizes; `w * x`, `w` of shape=30 and `x`
    of shape (30,), hybridizes with the eager output."""
    mx = __import__("pytest").importorskip("mxnet")
    import numpy as np

    source = LAYER_NORM.format(calls="")
    with __import__("pytest").raises(mx.base.MXNetError, match="Incompatible attr"):
        _eager_then_hybridized(source, (2, 5, 4))
    np.testing.assert_array_equal(*_eager_then_hybridized(source, (4,)))
    vector = "from mxnet.gluon import HybridBlock\n" + PARAM.format(shape="30", body="        return w * x\n")
    np.testing.assert_array_equal(*_eager_then_hybridized(vector, (30,)))


def test_dot_gives_the_rank_of_its_result():
    body = ("        h = F.dot(x.reshape((-1, 30)), F.ones((30, 5)))\n        return h + F.ones((5,))\n")
    assert _codes(PARAM.format(shape="(30,)", body=body)) == [(8, "HY101")]  # (N, 5) + (5,)


def test_a_pool_to_size_one_is_a_size_one_axis():
    pooled = ("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
              "        w = F.contrib.AdaptiveAvgPooling2D(x, output_size={size})\n        return x * F.sigmoid(w)\n")
    assert _codes(pooled.format(size="1")) == [(4, "HY101")]
    assert _codes(pooled.format(size="(1, 1)")) == [(4, "HY101")]
    assert _codes(pooled.format(size="3")) == []  # (N, C, 3, 3): no size-1 axis
    pooling = pooled.replace("F.contrib.AdaptiveAvgPooling2D(x, output_size={size})",
                             "F.Pooling(x, kernel=(1, 1), pool_type='avg', global_pool={size})")
    assert _codes(pooling.format(size="True")) == [(4, "HY101")]
    assert _codes(pooling.format(size="False")) == []


def test_the_parts_of_a_split_keep_a_size_one_axis_and_one_output_is_a_tensor():
    split = ("class N(HybridBlock):\n    def hybrid_forward(self, F, x, y):\n"
             "        a, b = F.split(x.expand_dims(1), num_outputs=2, axis=2)\n        return a * y\n")
    assert _codes(split) == [(4, "HY101")]
    one = ("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
           "        p = F.split(x, num_outputs=1, axis=1)\n        return p[0]\n")
    assert _codes(one) == [(4, "HY301")]  # one output: a tensor whose `[0]` is a row only eagerly
    two = one.replace("num_outputs=1", "num_outputs=2")
    assert _codes(two) == []


def test_a_sequential_returns_what_its_last_block_returns():
    source = ("class Pair(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return F.relu(x), x\n\n\n"
              "class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
              "        self.body = nn.HybridSequential()\n        self.body.add(nn.Dense(3), {last})\n\n"
              "    def hybrid_forward(self, F, x):\n        preds = self.body(x)\n        return preds[0]\n")
    assert _codes(source.format(last="Pair()")) == []  # a Python tuple of outputs
    assert _codes(source.format(last="nn.Dense(2)")) == [(14, "HY301")]


OPTED = ("from mxnet.gluon import nn\n\n\nclass Eager(nn.HybridBlock):\n    def hybridize(self, active=True, **kwargs):\n"
         "{body}\n\n    def hybrid_forward(self, F, x):\n        y = x.asnumpy()\n        z = x[0] + x.shape[0]\n"
         "        return x * nd.array([1.0])\n")


def test_a_block_whose_hybridize_does_nothing_gets_one_diagnostic_at_the_class():
    """Issue 23 item 8. Measured on MXNet 1.9.1: `hybridize()` overridden with `pass` leaves the block
    eager (it runs when hybridized alone), but a hybridized parent still traces it (asnumpy raises
    NotImplementedForSymbol); one that raises makes the parent's hybridize() raise too."""
    for body in ('        pass', '        """Eager only."""', '        return', '        self.eager = True'):
        found = Linter(select_rules(())).lint_source(OPTED.format(body=body), "m.py").diagnostics
        assert [(d.start, d.code) for d in found] == [((4, 7), "HY401")], body
        assert "`Eager` overrides hybridize() without hybridizing" in found[0].message
        assert "its 5 diagnostics apply" in found[0].help and "`x.asnumpy()`" in found[0].help
        assert found[0].fix is None


def test_a_block_whose_hybridize_raises_gets_none():
    source = OPTED.format(body='        raise NotImplementedError("eager only")')
    assert _codes(source) == []


def test_a_hybridize_that_calls_the_base_class_keeps_every_diagnostic():
    source = OPTED.format(body="        self.eager = False\n        super().hybridize(active, **kwargs)")
    assert len(_codes(source)) == 5
    subclass = OPTED.format(body="        pass") + (
        "\n\nclass Child(Eager):\n    def hybrid_forward(self, F, x):\n        return x[0]\n")
    found = _codes(subclass)
    assert found == [(4, "HY401"), (14, "HY301")]  # a subclass inherits the override: one at each class


def test_the_fold_is_the_same_when_only_part_of_the_file_is_parsed(monkeypatch):
    source = OPTED.format(body="        pass") + "\n\ndef unrelated():\n    return 1\n"
    reduced = _codes(source)
    monkeypatch.setenv("HYLINT_WHOLE_FILE", "1")
    assert _codes(source) == reduced == [(4, "HY401")]


def test_the_output_of_a_block_reached_through_a_name_or_an_index_is_a_child_output():
    source = ("class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
              "        self.blocks = nn.HybridSequential()\n\n    def hybrid_forward(self, F, x):\n"
              "        for blk in self.blocks:\n            x = blk(x)\n        y = self.blocks[0](x)\n"
              "        return x.shape[0] * y.asnumpy()\n")
    assert _codes(source) == [(10, "HY201"), (10, "HY401")]


def test_a_parameter_reached_through_kwargs_carries_its_declared_shape():
    source = ("class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
              "        self.gamma = self.params.get('gamma', shape=(1, 3))\n\n"
              "    def hybrid_forward(self, F, x, **kwargs):\n        h = F.relu(x)\n        return h * kwargs{get}\n")
    assert _codes(source.format(get="['gamma']")) == [(8, "HY101")]
    assert _codes(source.format(get=".get('gamma')")) == [(8, "HY101")]
    assert _codes(source.format(get="['other']")) == []  # no declared shape: no evidence


def test_the_fix_loop_reports_the_broadcast_a_subscript_fix_exposes():
    """Issue 23 item 9: `x.expand_dims(0)[0]` is (2, 3) and `x.expand_dims(0)[:, 0]` is (1, 3); once
    HY301 rewrites both into `F.squeeze(F.slice_axis(...))`, the analysis knows where the size-1 axes
    are (expand_dims, slice_axis of one element, squeeze), so the re-lint of the fix loop sees the `+`
    that broadcasts and HY101 rewrites it. Measured on MXNet 1.9.1: the fixed block hybridizes and
    computes the eager output of the original; the `+` alone fails hybridized."""
    import numpy as np

    source = ("class N(HybridBlock):\n    def hybrid_forward(self, F, x, y):\n"
              "        return ((x.expand_dims(0))[0] + (x.expand_dims(0))[:, 0])\n")
    linter = Linter(select_rules(["ALL"]))
    fixed = linter.fix_source(source, "m.py").source
    assert "F.broadcast_add(F.squeeze(F.slice_axis(" in fixed
    assert linter.lint_source(fixed, "m.py").diagnostics == []
    half = source.replace("(x.expand_dims(0))[0]", "F.squeeze(F.slice_axis((x.expand_dims(0)), axis=0, begin=0, end=1), axis=0)")
    half = half.replace("(x.expand_dims(0))[:, 0]", "F.squeeze(F.slice_axis((x.expand_dims(0)), axis=1, begin=0, end=1), axis=1)")
    assert [d.code for d in linter.lint_source(half, "m.py").diagnostics] == ["HY101"]
    mx = __import__("pytest").importorskip("mxnet")
    from mxeval import evaluate

    x = mx.nd.array(np.arange(6, dtype="float32").reshape(2, 3))
    original = evaluate(source, x, x, hybridize=False)
    np.testing.assert_allclose(evaluate(fixed, x, x, hybridize=True), original)
    with __import__("pytest").raises(mx.base.MXNetError):
        evaluate(half, x, x, hybridize=True)


def test_slice_axis_and_squeeze_track_the_size_one_axes():
    body = ("class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        a = {a}\n        return x * a\n")
    assert _codes(body.format(a="F.slice_axis(x, axis=1, begin=0, end=1)")) == [(4, "HY101")]  # (N, 1) against x
    assert _codes(body.format(a="F.slice_axis(x.expand_dims(1), axis=1, begin=0, end=1)")) == [(4, "HY101")]
    assert _codes(body.format(a="F.squeeze(x.expand_dims(1), axis=1)")) == []  # the size-1 axis is gone
    assert _codes(body.format(a="F.squeeze(x.expand_dims(0).expand_dims(2), axis=0)")) == [(4, "HY101")]


def test_a_tensor_of_ones_broadcasts_to_the_shape_of_the_other_operand():
    """`F.broadcast_mul(gamma, out)` with `gamma` of shape (1,) has `out`'s shape: `+ out` is no
    unproven broadcast (gluoncv's self-attention, `gamma` reached through **kwargs)."""
    source = ("class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
              "        self.gamma = self.params.get('gamma', shape=(1,))\n\n"
              "    def hybrid_forward(self, F, x, **kwargs):\n"
              "        return F.broadcast_mul(kwargs['gamma'], x) + x\n")
    assert _codes(source, ["ALL", "HY102"]) == []
    assert _codes(source.replace("shape=(1,)", "shape=(1, 1)"), ["ALL", "HY102"]) == [(7, "HY102")]  # x may be 1-D


def test_a_hybridize_that_raises_when_asked_to_hybridize_opts_out():
    """gluonts's DeepTPP: `if active: raise NotImplementedError(...)`; a subclass inherits it."""
    source = OPTED.format(body='        if active:\n            raise NotImplementedError("no hybridization")')
    assert _codes(source + "\n\nclass Child(Eager):\n    def hybrid_forward(self, F, x):\n        return x[0]\n") == []
