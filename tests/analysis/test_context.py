"""context.py: helpers called with F become hybrid contexts; shape evidence."""
import libcst as cst

from hylint.analysis import analyze_module
from hylint.analysis.values import Kind, shape_difference
from hylint.lint.engine import Linter
from hylint.selection import select_rules

SOURCE = '''
def _attention(G, q, k, scale=1.0):
    s = G.batch_dot(q, k, transpose_b=True)
    return _norm(G, s)

def _norm(H, s):
    return s / s.sum(axis=-1, keepdims=True)

def unrelated(x):
    return x[0]

class N(HybridBlock):
    def __init__(self):
        super().__init__()
        self.bias = self.params.get('bias', shape=(1, 3))

    def hybrid_forward(self, F, x, bias):
        y = self._step(F, x, bias)
        return _attention(F, y, x, scale=2.0)

    def _step(self, F, a, b):
        return a + b
'''


def _contexts(source):
    info = analyze_module(cst.parse_module(source))
    return {fn.name.value: ctx for fn, ctx in info.contexts.items()}


def test_helpers_found_recursively_with_mapped_parameters():
    contexts = _contexts(SOURCE)
    assert set(contexts) == {"hybrid_forward", "_step", "_attention", "_norm"}
    assert contexts["_attention"].f_name == "G" and contexts["_norm"].f_name == "H"
    step = contexts["_step"]
    assert step.is_helper and step.params["a"].kind is Kind.TENSOR
    assert step.params["b"].shape.dims == (1, 3)  # the parameter's declared shape follows the call
    attention = contexts["_attention"]
    assert attention.params["q"].kind is Kind.TENSOR  # the value of `self._step(F, ...)`
    assert attention.params["scale"].kind is Kind.PY  # keyword argument mapped


def test_rules_run_inside_helpers():
    diagnostics = Linter(select_rules()).lint_source(SOURCE, "m.py").diagnostics
    found = {(d.start[0], d.code) for d in diagnostics}
    assert (7, "HY101") in found  # s / s.sum(..., keepdims=True) in _norm, reached through _attention
    assert (22, "HY101") in found  # a + b in the method: b is the (1, 3) parameter
    assert not any(d.start[0] == 10 for d in diagnostics)  # not called with F: not a hybrid context


def test_helper_roots_do_not_meet_local_names():
    source = ('def _f(F, a, x):\n    x = F.relu(x)\n    return a + x\n\n'
              'class N(HybridBlock):\n    def hybrid_forward(self, F, x, y):\n        return _f(F, x, y)\n')
    ctx = _contexts(source)["_f"]
    assert ctx.params["a"].shape.root != "x"


def _shape_of(body, name):
    source = f"class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n{body}"
    ctx = _contexts(source)["hybrid_forward"]
    return ctx._env[name].shape


def test_reduction_evidence():
    assert _shape_of("        m = x.mean()\n        return m\n", "m").dims == (1,)
    assert _shape_of("        m = F.sum(x, axis=1, keepdims=True)\n        return m\n", "m").unit_axis
    s = _shape_of("        m = F.ones((2, 3, 4)).sum(axis=(0, 2))\n        return m\n", "m")
    assert (s.rank, s.dims) == (1, (3,))
    assert _shape_of("        m = F.norm(x, 2)\n        return m\n", "m").dims == (1,)  # ord, not axis
    assert _shape_of("        m = x.sum(axis=1)\n        return m\n", "m").rank is None  # x's rank unknown


def test_broadcast_to_and_split_counts():
    assert _shape_of("        b = F.ones((1, 3)).broadcast_to((4, 0))\n        return b\n", "b").rank == 2
    source = "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        p = F.split(x, num_outputs=3)\n        return p\n"
    assert len(_contexts(source)["hybrid_forward"]._env["p"].elements) == 3


def test_full_reduction_against_same_shape_is_not_evidence():
    a = _shape_of("        m = x.mean()\n        return m\n", "m")
    b = _shape_of("        m = x.sum()\n        return m\n", "m")
    assert shape_difference(a, b) is None
