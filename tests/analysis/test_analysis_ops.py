"""analysis/ops.py: one table read for both call forms; table-driven cases."""
import libcst as cst
import pytest

from hylint.analysis import analyze_module, ops
from hylint.analysis.values import Kind

HEAD = "class N(HybridBlock):\n    def hybrid_forward(self, F, x, y):\n"


def value_of(expression: str, setup: str = ""):
    """The value the interpreter gives `expression` in a hybrid_forward whose x, y are tensors."""
    body = "".join(f"        {line}\n" for line in setup.splitlines() if line) + f"        r = {expression}\n        return r\n"
    info = analyze_module(cst.parse_module(HEAD + body))
    (ctx,) = info.contexts.values()
    return ctx._env["r"]


# (F form, method form, kind, number of outputs or None, rank, dims, unit axis)
BOTH_FORMS = [
    ("F.sum(x)", "x.sum()", Kind.TENSOR, None, 1, (1,), True),
    ("F.sum(x, axis=1, keepdims=True)", "x.sum(axis=1, keepdims=True)", Kind.TENSOR, None, None, None, True),
    ("F.mean(F.ones((2, 3, 4)), axis=(0, 2))", "F.ones((2, 3, 4)).mean(axis=(0, 2))", Kind.TENSOR, None, 1, (3,), False),
    ("F.max(F.ones((2, 3)), 1)", "F.ones((2, 3)).max(1)", Kind.TENSOR, None, 1, (2,), False),
    ("F.norm(x, 2)", "x.norm(2)", Kind.TENSOR, None, 1, (1,), True),  # ord, not axis
    ("F.split(x, 3)", "x.split(3)", Kind.MULTI, 3, None, None, False),
    ("F.split(x, num_outputs=2, axis=1)", "x.split(num_outputs=2, axis=1)", Kind.MULTI, 2, None, None, False),
    ("F.topk(x, ret_typ='both')", "x.topk(ret_typ='both')", Kind.MULTI, 2, None, None, False),
    ("F.topk(x)", "x.topk()", Kind.TENSOR, None, None, None, False),
    ("F.expand_dims(x, 1)", "x.expand_dims(1)", Kind.TENSOR, None, None, None, True),
    ("F.reshape(x, (1, -1))", "x.reshape((1, -1))", Kind.TENSOR, None, 2, (1, None), True),
    ("F.reshape(x, shape=(2, 0))", "x.reshape(shape=(2, 0))", Kind.TENSOR, None, 2, (2, None), False),
    ("F.broadcast_to(F.ones((1, 3)), shape=(4, 0))", "F.ones((1, 3)).broadcast_to((4, 0))", Kind.TENSOR, None, 2,
     (4, None), False),
    ("F.broadcast_like(F.ones((1, 3)), F.ones((4, 3)))", "F.ones((1, 3)).broadcast_like(F.ones((4, 3)))",
     Kind.TENSOR, None, 2, (4, 3), False),
    ("F.relu(F.ones((2, 1)))", "F.ones((2, 1)).relu()", Kind.TENSOR, None, 2, (2, 1), True),
    # measured on MXNet 1.9.1 (list_outputs / infer_shape, and eagerly)
    ("F.moments(x, axes=(1,))", "x.moments(axes=(1,))", Kind.MULTI, 2, None, None, False),
    ("F.repeat(F.ones((2, 1, 1)), repeats=3, axis=1)", "F.ones((2, 1, 1)).repeat(repeats=3, axis=1)", Kind.TENSOR,
     None, 3, (2, 3, 1), True),
    ("F.repeat(F.ones((2, 1)), 3, -1)", "F.ones((2, 1)).repeat(3, -1)", Kind.TENSOR, None, 2, (2, 3), False),
    ("F.repeat(F.ones((2, 1)), 3)", "F.ones((2, 1)).repeat(3)", Kind.TENSOR, None, 1, None, False),
]


@pytest.mark.parametrize("function_form, method_form, kind, outputs, rank, dims, unit", BOTH_FORMS,
                         ids=[case[1] for case in BOTH_FORMS])
def test_both_forms_read_the_same_table_entry(function_form, method_form, kind, outputs, rank, dims, unit):
    for expression in (function_form, method_form):
        value = value_of(expression)
        assert value.kind is kind, expression
        if outputs is not None:
            assert len(value.elements) == outputs, expression
        if kind is Kind.TENSOR:
            assert (value.shape.rank, value.shape.dims, value.shape.unit_axis) == (rank, dims, unit), expression


@pytest.mark.parametrize("varargs, single", [
    ("x.reshape(self.n, 1, -1)", "x.reshape((self.n, 1, -1))"),
    ("x.reshape(1, -1, 1)", "x.reshape((1, -1, 1))"),
    ("x.reshape(n, 2)", "x.reshape((n, 2))"),
])
def test_reshape_sizes_as_separate_arguments_read_as_the_tuple(varargs, single):
    # a size that is not a literal leaves the rank known: else `check` missed the HY101 that `--fix` found
    # once HY902 wrote the tuple (gluoncv's monodepthv2 layers.py: 59 errors, then 60 with --fix)
    a, b = value_of(varargs).shape, value_of(single).shape
    assert (a.rank, a.dims, a.unit_axis) == (b.rank, b.dims, b.unit_axis) and a.rank is not None


def test_reshape_with_a_starred_size_is_unknown():
    assert value_of("x.reshape(*s, 1)").shape.rank is None


@pytest.mark.parametrize("expression, kind", [
    ("x.asnumpy()", Kind.NUMPY),
    ("x.asscalar()", Kind.PY),
    ("F.foreach(body, x, [])", Kind.PY),  # a (outputs, states) pair
    ("F.BatchNorm(x, x, x, x, x, output_mean_var=True)", Kind.MULTI),
    ("F.RNN(x, x, x, state_outputs=True)", Kind.MULTI),
    ("F.contrib.box_encode(x, x, x, x, x, x)", Kind.MULTI),
    ("F.broadcast_add(x, y)", Kind.TENSOR),
    ("F.asnumpy(x)", Kind.TENSOR),  # no such operator: F.<op> is at most a tensor
])
def test_result_kinds(expression, kind):
    assert value_of(expression).kind is kind


def test_method_results_inherit_how_certain_the_receiver_is():
    # `s` is a parameter called `states` (a list by its name): its elements are only possible tensors
    source = "class N(HybridBlock):\n    def hybrid_forward(self, F, x, states):\n        r = states[0].sum()\n        return r\n"
    (ctx,) = analyze_module(cst.parse_module(source)).contexts.values()
    assert ctx._env["r"].kind is Kind.TENSOR and not ctx._env["r"].certain
    assert value_of("F.sum(x)").certain


def test_derived_sets_come_from_the_table():
    assert {"relu", "BatchNorm", "where"} <= ops.SHAPE_PRESERVING
    assert {"reshape", "sum", "split"} <= ops.TENSOR_METHODS
    assert {"asnumpy", "asscalar"} <= ops.NDARRAY_ONLY_METHODS and not ops.NDARRAY_ONLY_METHODS & ops.TENSOR_METHODS
    assert ops.CREATION_OPS == {"ones", "zeros", "full", "empty", "arange", "eye", "linspace", "array"}
    assert ops.is_data_position("concat", 3) and ops.is_data_position("broadcast_add", 1)
    assert not ops.is_data_position("sum", 1) and not ops.is_data_position("random.normal", 0)
    for name, op in ops.OPS.items():
        assert not (op.result is not None and (op.shape or op.outputs)), f"{name}: a fixed result has no shape rule"


# the decompositions' outputs: (operator, input shape, the outputs' shapes measured on MXNet 1.9.1)
DECOMPOSITIONS = [
    ("slogdet", (3, 3), [(1,), (1,)]),
    ("slogdet", (4, 3, 3), [(4,), (4,)]),
    ("slogdet", (2, 4, 3, 3), [(2, 4), (2, 4)]),
    ("syevd", (4, 3, 3), [(4, 3, 3), (4, 3)]),
    ("gelqf", (2, 3), [(2, 3), (2, 2)]),
    ("gelqf", (4, 2, 3), [(4, 2, 3), (4, 2, 2)]),
]


@pytest.mark.parametrize("op, shape, outputs", DECOMPOSITIONS, ids=[f"{c[0]}{c[1]}" for c in DECOMPOSITIONS])
def test_decomposition_outputs_have_the_shapes_mxnet_gives(op, shape, outputs):
    value = value_of(f"F.linalg.{op}(F.ones({shape}))")
    assert value.kind is Kind.MULTI
    assert [(e.shape.rank, e.shape.dims) for e in value.elements] == [(len(s), s) for s in outputs]
    # an input of unknown rank: two outputs of unknown shape; `[1]` of a known rank is a rank
    assert [e.shape.rank for e in value_of(f"F.linalg.{op}(x)").elements] == [None, None]
    setup = f"k = F.ones({shape})\ns, logabs = F.linalg.{op}(k)"
    assert value_of("logabs", setup).shape.rank == len(outputs[1])


@pytest.mark.mxnet
@pytest.mark.parametrize("op, shape, outputs", DECOMPOSITIONS, ids=[f"{c[0]}{c[1]}" for c in DECOMPOSITIONS])
def test_decomposition_outputs_on_mxnet(op, shape, outputs):
    mx = pytest.importorskip("mxnet")
    import numpy as np
    matrix = np.random.RandomState(0).rand(*shape).astype("float32") + 2 * np.eye(shape[-1], dtype="float32")[:shape[-2]]
    if op == "syevd":
        matrix = matrix + np.swapaxes(matrix, -1, -2)
    assert [o.shape for o in getattr(mx.nd.linalg, op)(mx.nd.array(matrix))] == outputs
    assert getattr(mx.sym.linalg, op)(mx.sym.var("a")).infer_shape(a=shape)[1] == outputs


# (expression over mx.nd / mx.sym as `M`, the shape hylint derives (None: nothing known), the shape MXNet
# 1.9.1 gives eagerly and by symbolic shape inference; `t` is a (3,) tensor)
DRAWS = [
    ("M.random.normal(scale=0.1, shape=(2, 1, 1, 1))", (2, 1, 1, 1), (2, 1, 1, 1)),
    ("M.random.uniform(0, 1, (2, 3))", (2, 3), (2, 3)),
    ("M.random.uniform(*(0, 1), shape=(2, 3, 1))", (2, 3, 1), (2, 3, 1)),
    ("M.random.randint(0, 5, shape=(4, 1))", (4, 1), (4, 1)),
    ("M.random.normal(scale=0.1, shape=(2, 1, 1, 1)).repeat(repeats=3, axis=1)", (2, 3, 1, 1), (2, 3, 1, 1)),
    ("M.random.normal(loc=t, scale=t, shape=(2,))", None, (3, 2)),  # a tensor argument: drawn per element
]


@pytest.mark.parametrize("expression, derived, measured", DRAWS, ids=[c[0] for c in DRAWS])
def test_random_draws_with_a_literal_shape(expression, derived, measured):
    value = value_of(expression.replace("M.", "F.").replace("=t", "=x"))
    assert value.kind is Kind.TENSOR
    assert value.shape.dims == derived and value.shape.unit_axis == (derived is not None and 1 in derived)


@pytest.mark.mxnet
@pytest.mark.parametrize("expression, derived, measured", DRAWS, ids=[c[0] for c in DRAWS])
def test_random_draws_with_a_literal_shape_on_mxnet(expression, derived, measured):
    mx = pytest.importorskip("mxnet")
    assert eval(expression, {"M": mx.nd, "t": mx.nd.ones(3)}).shape == measured
    symbol = eval(expression, {"M": mx.sym, "t": mx.sym.var("t")})
    assert symbol.infer_shape(**({"t": (3,)} if "=t" in expression else {}))[1] == [measured]


@pytest.mark.parametrize("expression, rank, unit", [
    ("F.max(F.ones((2, 3, 4)), -1, True)", 3, True),  # keepdims given by position (gluoncv's CAM_Module)
    ("F.ones((2, 3, 4)).max(-1, True)", 3, True),
    ("F.ones((2, 3, 4)).sum(1, self.keep)", None, False),  # keepdims not known: nor is the rank
    ("F.squeeze(F.ones((2, 3, 1)), axis=-1)", 2, False),
    ("F.batch_dot(F.ones((4, 2, 3)), F.ones((4, 3, 5)))", 3, False),
    ("F.batch_dot(F.ones((5, 3, 2, 2)), x)", 4, False),  # MXNet requires one rank of both inputs
    ("F.broadcast_like(F.ones((3, 2, 2)).expand_dims(0), x, lhs_axes=(0,), rhs_axes=(0,))", 4, False),
])
def test_ranks_through_reductions_squeeze_batch_dot_and_broadcast_like_with_axes(expression, rank, unit):
    value = value_of(expression)
    assert (value.shape.rank, value.shape.unit_axis) == (rank, unit)
