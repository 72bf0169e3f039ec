"""hylint.analysis.reach: which functions run while a HybridBlock is traced, across a package.

Each case is a small package written from one of issue 22's patterns (objects that hold F, getF-style
accessors, nested functions, lambdas handed to blocks, classes built in the trace, code in other modules).
"""
from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from hylint.analysis.reach import FunctionKey, analyze_package, analyze_sources, module_name, parse_package, summarize

HEADER = "import mxnet as mx\nfrom mxnet.gluon import HybridBlock, Block, nn\n"


def reach(**sources):
    """analyze_package over modules given as keyword arguments (`pkg__dist` is the module `pkg.dist`); the
    same package read lazily (analyze_sources, as a run reads it) must give the same reach."""
    texts, paths = {}, {}
    for name, source in sources.items():
        dotted = name.replace("__", ".")
        texts[dotted] = (HEADER + textwrap.dedent(source)).encode()
        paths[dotted] = dotted.replace(".", "/") + ".py"
    result = analyze_package({name: ast.parse(text) for name, text in texts.items()}, paths)
    parsed = []

    def parse(name):
        parsed.append(name)
        return ast.parse(texts[name])

    lazy = analyze_sources(texts, paths, [name for name, text in texts.items() if b"hybrid_forward" in text], parse)
    assert described(lazy) == described(result)
    assert summarize(lazy) == summarize(result)
    assert len(parsed) == len(set(parsed))  # each module parsed once
    return result


def described(result):
    return {key: (r.certain, r.f_params, r.tensor_params, r.f_names, r.describe()) for key, r in result.reached.items()}


def get(result, module, qualname):
    return result.reached.get(FunctionKey(module, qualname))


GET_F = """
    def getF(var):
        if isinstance(var, mx.nd.NDArray):
            return mx.nd
        return mx.sym
"""


def test_object_holding_f_built_in_the_trace():
    result = reach(pkg=GET_F + """
    class Dist:
        def __init__(self, probs, F=None):
            self.F = F if F else getF(probs)
            self.probs = probs

        def log_prob(self, x):
            F = self.F
            return F.log(F.pick(self.probs, x))

        def unused(self, x):
            return x

    class Model(HybridBlock):
        def hybrid_forward(self, F, x, y):
            distr = Dist(F.softmax(x))
            return distr.log_prob(y)
    """)
    init = get(result, "pkg", "Dist.__init__")
    assert init.certain and init.tensor_params == {"probs"} and init.describe() == \
        "reached from Model.hybrid_forward via Dist"
    log_prob = get(result, "pkg", "Dist.log_prob")
    assert log_prob.certain
    assert log_prob.tensor_params == {"x"}
    assert "F" in log_prob.f_names  # F = self.F: the attribute holds the namespace getF returned
    assert log_prob.describe() == "reached from Model.hybrid_forward via distr.log_prob"
    assert get(result, "pkg", "getF").certain
    assert get(result, "pkg", "Dist.unused") is None
    assert result.f_attrs[FunctionKey("pkg", "Dist")] == {"F"}
    assert result.tensor_attrs[FunctionKey("pkg", "Dist")] == {"probs"}


def test_object_returned_by_a_child_block():
    result = reach(pkg="""
    class Dist:
        def __init__(self, mu, F):
            self.F = F
            self.mu = mu

        def sample(self):
            return self.F.random.normal(self.mu)

    class Proj(HybridBlock):
        def hybrid_forward(self, F, x):
            return Dist(x, F)

    class Model(HybridBlock):
        def __init__(self):
            super().__init__()
            self.proj = Proj()

        def hybrid_forward(self, F, x):
            distr = self.proj(x)
            return distr.sample()
    """)
    sample = get(result, "pkg", "Dist.sample")
    assert sample.certain and sample.root == FunctionKey("pkg", "Model.hybrid_forward")
    assert sample.describe() == "reached from Model.hybrid_forward via distr.sample"
    assert get(result, "pkg", "Dist.__init__").f_params == {"F"}
    assert get(result, "pkg", "Model.__init__") is None  # built before the trace, not in it


def test_nested_function_of_a_helper():
    result = reach(pkg="""
    def scan(F, x):
        def step(v):
            if v.shape[-1] > 0:
                return F.relu(v)
            return v
        return step(x)

    class Model(HybridBlock):
        def hybrid_forward(self, F, x):
            return scan(F, x)
    """)
    assert get(result, "pkg", "scan").f_params == {"F"}
    step = get(result, "pkg", "scan.<locals>.step")
    assert step.tensor_params == {"v"} and "F" in step.f_names  # F from the enclosing helper
    assert step.describe() == "reached from Model.hybrid_forward via scan -> step"


def test_lambdas_and_functions_handed_to_blocks():
    result = reach(pkg="""
    def act(F, x):
        return F.tanh(x)

    class Model(HybridBlock):
        def __init__(self):
            super().__init__()
            self.act = nn.HybridLambda(act)
            self.proj = nn.HybridLambda(lambda F, x: F.dot(x, x))

        def hybrid_forward(self, F, x):
            y = F.contrib.foreach(lambda d, s: (d * 2, s), x, [])
            return self.proj(self.act(y))
    """)
    assert get(result, "pkg", "act").f_params == {"F"} and get(result, "pkg", "act").tensor_params == {"x"}
    lambdas = [r for k, r in result.reached.items() if "<lambda" in k.qualname]
    assert len(lambdas) == 2
    # foreach's states given as a list (`[]`) reach the body as a Python list, not a tensor (MXNet 1.9.1)
    assert {frozenset(r.tensor_params) for r in lambdas} == {frozenset({"x"}), frozenset({"d"})}


def test_foreach_body_given_lists_receives_lists():
    """``F.contrib.foreach(self.step, [a, b], [h])``: MXNet 1.9.1 hands ``step`` its data and states as
    Python lists of slices (eagerly and hybridized), so ``data[0]`` indexes a list; given one tensor, the
    body receives a tensor."""
    result = reach(pkg="""
    class Model(HybridBlock):
        def step(self, data, states):
            return data[0] + data[1], states

        def single(self, data, states):
            return data * 2, states

        def hybrid_forward(self, F, a, b, h):
            out, _ = F.contrib.foreach(self.step, [a, b], init_states=[h])
            more, _ = F.contrib.foreach(self.single, a, h)
            return out + more
    """)
    assert get(result, "pkg", "Model.step").tensor_params == set()
    assert get(result, "pkg", "Model.single").tensor_params == {"data", "states"}


def test_code_in_other_modules_of_the_package():
    result = reach(
        pkg="from .dist import Gaussian\n",
        pkg__util=GET_F,
        pkg__dist="""
    from pkg.util import getF

    class Base:
        def __init__(self, mu):
            self.F = getF(mu)

    class Gaussian(Base):
        def __init__(self, mu, sigma):
            super().__init__(mu)
            self.mu, self.sigma = mu, sigma

        def log_prob(self, x):
            F = self.F
            return -F.square((x - self.mu) / self.sigma)
    """,
        pkg__models__net="""
    from .. import Gaussian
    from ..util import getF as get_namespace

    def loss(distr, y):
        return distr.log_prob(y)

    class Model(HybridBlock):
        def hybrid_forward(self, F, x, y):
            return loss(Gaussian(x, F.exp(x)), y)
    """)
    base_init = get(result, "pkg.dist", "Base.__init__")
    assert base_init.tensor_params == {"mu"}
    assert base_init.describe() == "reached from Model.hybrid_forward via Gaussian -> super().__init__"
    log_prob = get(result, "pkg.dist", "Gaussian.log_prob")
    assert log_prob.tensor_params == {"x"} and "F" in log_prob.f_names
    assert log_prob.describe() == "reached from Model.hybrid_forward via loss -> distr.log_prob"
    assert get(result, "pkg.models.net", "loss").tensor_params == {"y"}
    assert result.depends_on("pkg.dist") == {"pkg.models.net"}
    assert result.depends_on("pkg.models.net") == set()


def test_helper_without_f_and_values_from_f_flow_as_tensors():
    result = reach(pkg="""
    def normalize(v, eps):
        return v / (v.sum() + eps)

    def shape_of(v):
        return v.shape

    class Model(HybridBlock):
        def hybrid_forward(self, F, x):
            h = F.relu(x) * 2
            pair = (h, 1.0)
            first, _ = pair
            return normalize(first, 1e-6), shape_of(h)
    """)
    normalize = get(result, "pkg", "normalize")
    assert normalize.f_params == set() and normalize.tensor_params == {"v"}
    assert get(result, "pkg", "shape_of").tensor_params == {"v"}
    assert {"h", "first"} <= get(result, "pkg", "Model.hybrid_forward").tensor_names


def test_unknown_receiver_resolved_by_method_name_is_uncertain():
    result = reach(pkg="""
    class GaussianOutput:
        def distribution(self, args):
            return args

    class Block2(HybridBlock):
        def distribution(self, args):
            return args

    class Model(HybridBlock):
        def __init__(self, distr_output):
            super().__init__()
            self.distr_output = distr_output

        def hybrid_forward(self, F, x):
            return self.distr_output.distribution(x)
    """)
    found = get(result, "pkg", "GaussianOutput.distribution")
    assert found is not None and not found.certain and found.tensor_params == {"args"}
    assert get(result, "pkg", "Block2.distribution") is None  # blocks are not guessed receivers


def test_child_block_forward_and_eager_code_not_reached():
    result = reach(pkg="""
    def build_basis(n):
        return mx.nd.arange(n)

    class Inner(Block):
        def forward(self, x):
            return x + 1

    class Model(HybridBlock):
        def __init__(self):
            super().__init__()
            self.inner = Inner()
            self.basis = build_basis(4)

        def hybrid_forward(self, F, x):
            return self.inner(x)

    def train(net, data):
        return net(data)
    """)
    assert get(result, "pkg", "Inner.forward").tensor_params == {"x"}
    assert get(result, "pkg", "build_basis") is None
    assert get(result, "pkg", "train") is None
    roots = [r.key.qualname for r in result.reached.values() if r.is_root]
    assert roots == ["Model.hybrid_forward"]


def test_recursion_and_cycles_terminate():
    result = reach(pkg="""
    def a(F, x, n):
        return b(F, x, n - 1) if n else x

    def b(F, x, n):
        return a(F, F.relu(x), n)

    class Model(HybridBlock):
        def hybrid_forward(self, F, x):
            return a(F, x, 3)
    """)
    assert get(result, "pkg", "a").f_params == {"F"} and get(result, "pkg", "b").tensor_params == {"x"}


def test_parse_package_names_modules_from_the_root(tmp_path):
    root = tmp_path / "lib"
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "sub" / "__init__.py").write_text("from .m import Model\n")
    (root / "sub" / "m.py").write_text(HEADER + "class Model(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
                                       "        return F.relu(x)\n")
    (root / "broken.py").write_text("def (:\n")
    modules, paths = parse_package(root)
    assert sorted(modules) == ["lib", "lib.sub", "lib.sub.m"]
    assert module_name(root, root / "sub" / "m.py") == "lib.sub.m"
    result = analyze_package(modules, paths)
    assert [r.path for r in result.reached.values()] == [str(root / "sub" / "m.py")]


def test_a_base_method_is_read_for_the_class_of_self_only():
    result = reach(pkg="""
    class Gaussian:
        def __init__(self, mu):
            self.mu = mu

        def log_prob(self, x):
            return x - self.mu

    class StudentT(Gaussian):
        def log_prob(self, x):
            return (x - self.mu) * 2

    class Output:
        def distribution(self, args):
            return self.build(args)

    class GaussianOutput(Output):
        def build(self, args):
            return Gaussian(args)

    class StudentTOutput(Output):
        def build(self, args):
            return StudentT(args)

    class Model(HybridBlock):
        def __init__(self):
            super().__init__()
            self.out = GaussianOutput()

        def hybrid_forward(self, F, x):
            distr = self.out.distribution(x)
            return distr.log_prob(x)
    """)
    assert get(result, "pkg", "Gaussian.log_prob").certain
    assert get(result, "pkg", "GaussianOutput.build").describe() == \
        "reached from Model.hybrid_forward via self.out.distribution -> self.build"
    assert get(result, "pkg", "StudentTOutput.build") is None
    assert get(result, "pkg", "StudentT.log_prob") is None


def test_property_getters_and_starred_arguments():
    result = reach(pkg=GET_F + """
    def sample_many(fn, *args):
        return fn(*args)

    class Mixture:
        def __init__(self, probs, loc):
            self.probs, self.loc = probs, loc

        @property
        def F(self):
            return getF(self.probs)

        def sample(self):
            F = self.F
            def draw(p, loc):
                return F.random.multinomial(p) + loc
            return sample_many(draw, self.probs, self.loc)

    class Model(HybridBlock):
        def hybrid_forward(self, F, x):
            return Mixture(F.softmax(x), x).sample()
    """)
    assert get(result, "pkg", "Mixture.F").describe() == \
        "reached from Model.hybrid_forward via Mixture(F.softmax(x), x).sample -> self.F"
    assert "F" in get(result, "pkg", "Mixture.sample").f_names
    draw = get(result, "pkg", "Mixture.sample.<locals>.draw")
    assert draw.tensor_params == {"p", "loc"} and "F" in draw.f_names


def test_values_that_left_the_graph_are_not_tensors():
    # gluoncv2 ntsnet: a NumPy helper called on `.asnumpy()` rows in hybrid_forward
    result = reach(pkg="""
    def hard_nms(cdds):
        return cdds

    class Model(HybridBlock):
        def hybrid_forward(self, F, x):
            rows = [hard_nms(y) for y in x.asnumpy()]
            return x
    """)
    assert get(result, "pkg", "hard_nms").tensor_params == set()


def test_annotated_constructor_argument_and_class_level_class_are_certain():
    # gluonts: `distr_output: DistributionOutput` kept on self, `distr_cls: type = Gaussian` in each subclass,
    # `self.distr_cls(*distr_args)` builds the distribution in the trace
    result = reach(pkg="""
    class Gaussian:
        def __init__(self, mu, sigma, label_smoothing: Optional[float] = None):
            self.mu, self.sigma, self.label_smoothing = mu, sigma, label_smoothing

        def log_prob(self, x):
            return x - self.mu

    class Laplace(Gaussian):
        def log_prob(self, x):
            return x + self.mu

    class DistributionOutput:
        distr_cls: type = None

        def distribution(self, distr_args):
            return self.distr_cls(*distr_args)

    class GaussianOutput(DistributionOutput):
        distr_cls: type = Gaussian

    class LaplaceOutput(DistributionOutput):
        distr_cls = Laplace

    class Unrelated:
        def log_prob(self, x):
            return x

    class Model(HybridBlock):
        def __init__(self, distr_output: DistributionOutput, scale: "Optional[float]" = None):
            super().__init__()
            self.distr_output = distr_output

        def hybrid_forward(self, F, x, y):
            distr = self.distr_output.distribution((x, y))
            return distr.log_prob(y)
    """)
    for qualname in ("DistributionOutput.distribution", "Gaussian.__init__", "Gaussian.log_prob", "Laplace.log_prob"):
        assert get(result, "pkg", qualname).certain, qualname
    assert get(result, "pkg", "Unrelated.log_prob") is None  # only the annotated class's family
    # a parameter annotated with a Python scalar type receives no tensor from a starred spread
    assert get(result, "pkg", "Gaussian.__init__").tensor_params == {"mu", "sigma"}


def test_an_eager_only_isinstance_branch_is_not_reached():
    result = reach(pkg="""
    def check_shapes(x):
        return x.shape

    def on_symbols(x):
        return x

    class Model(HybridBlock):
        def hybrid_forward(self, F, x):
            if not isinstance(x, mx.sym.Symbol):
                check_shapes(x)
            if isinstance(x, mx.nd.NDArray):
                check_shapes(x)
            else:
                on_symbols(x)
            return x
    """)
    assert get(result, "pkg", "check_shapes") is None
    assert get(result, "pkg", "on_symbols").certain


def test_nothing_after_a_guard_that_refuses_the_trace_is_reached():
    # measured on MXNet 1.9.1: `if F is mx.sym: raise` raises at the first hybridized call, so the code after
    # it runs eagerly only (HY707 reports the guard)
    result = reach(pkg="""
    from mxnet import nd

    def eager_only(x):
        return x.shape

    def before(x):
        return x

    def keeps_going(x):
        return x

    class Refuses(HybridBlock):
        def hybrid_forward(self, F, x):
            before(x)
            if F is mx.sym:
                raise ValueError("no hybridization")
            return eager_only(x)

    class RefusesToo(HybridBlock):
        def hybrid_forward(self, F, x):
            if F is not nd:
                return x
            return eager_only(x)

    class Warns(HybridBlock):
        def hybrid_forward(self, F, x):
            if F is nd:
                raise ValueError("not reached in a trace")
            return keeps_going(x)
    """)
    assert get(result, "pkg", "eager_only") is None
    assert get(result, "pkg", "before").certain
    assert get(result, "pkg", "keeps_going").certain


def test_statements_walk_yields_the_statements_of_ast_walk_in_its_order():
    # the constructor-attribute scan walks statements only: what it finds, and in which order, is ast.walk's
    from hylint.analysis.reach import _statements

    tree = ast.parse(textwrap.dedent("""
        def __init__(self, x):
            self.a = lambda F, y: F.relu(y)
            if x:
                self.b = 1
            else:
                for i in range(2):
                    self.c = [self.d for _ in ()]
                while x:
                    break
                else:
                    self.e = 2
            try:
                self.f = 3
            except ValueError:
                self.g = 4
            finally:
                self.h = 5
            with open(x) as handle:
                self.i = 6
            match x:
                case 1:
                    self.j = 7
            def nested():
                self.k = 8
            class Inner:
                l = 9
    """))
    expected = [node for node in ast.walk(tree) if isinstance(node, ast.stmt)]
    assert [node for node in _statements(tree) if isinstance(node, ast.stmt)] == expected
    assert len([node for node in expected if isinstance(node, ast.Assign)]) == 11
    # and on real code: every module of the linter itself
    import hylint

    for path in sorted(Path(hylint.__file__).parent.rglob("*.py")):
        tree = ast.parse(path.read_bytes())
        assert [n for n in _statements(tree) if isinstance(n, ast.stmt)] == \
            [n for n in ast.walk(tree) if isinstance(n, ast.stmt)], path


def test_a_call_under_an_eager_only_guard_is_not_reached():
    # gluonts 0.8.1 gaussian_process.py: `elif self.jitter_method == "iter" and self.F is mx.nd: jitter_cholesky(...)`,
    # where `self.F` holds F. Measured on MXNet 1.9.1 (the pattern rebuilt as a block): eager runs, hybridized
    # runs too (the trace takes the else branch); the same call without the guard fails once hybridized
    # (NotImplementedForSymbol: the helper takes a tensor's truth value)
    result = reach(pkg=GET_F + """
    def strict(F, m):
        return m

    def on_symbols(F, m):
        return m

    def plain(F, m):
        return m

    class Factorizer:
        def __init__(self, x, method="iter", F=None):
            self.F = F if F else getF(x)
            self.method = method

        def factor(self, m):
            if self.method == "eig":
                return plain(self.F, m)
            elif self.method == "iter" and self.F is mx.nd:
                return strict(self.F, m)
            elif self.F is not mx.nd:
                return on_symbols(self.F, m)
            return m

    class Model(HybridBlock):
        def hybrid_forward(self, F, x):
            if F is mx.nd:
                strict(F, x)
            return Factorizer(x, F=F).factor(x)
    """)
    assert get(result, "pkg", "strict") is None
    assert get(result, "pkg", "plain").certain
    assert get(result, "pkg", "on_symbols").certain
    assert "factor" in get(result, "pkg", "on_symbols").describe()


def test_an_attribute_that_holds_no_f_is_no_guard():
    # `self.mode is mx.nd` where `self.mode` is a string: no test of F, the branch may run in a trace
    result = reach(pkg="""
    def helper(F, m):
        return m

    class Model(HybridBlock):
        def __init__(self):
            super().__init__()
            self.mode = "nd"

        def hybrid_forward(self, F, x):
            if self.mode is mx.nd:
                return helper(F, x)
            return x
    """)
    assert get(result, "pkg", "helper").certain


def test_the_path_a_constructor_switch_declares_eager_only_is_not_reached():
    # gluoncv2 0.0.64 superpointnet: `hybridizable=True` kept on self, `assert (use_map_resize or not
    # hybridizable)`; `if self.hybridizable: return desc_map`, then eager-only post-processing, and the `else`
    # of `if self.use_map_resize:` calls `interpolate_bilinear`. Measured on MXNet 1.9.1 (the pattern rebuilt
    # as fixtures/HY301_6): built with the defaults it hybridizes with equal output; with hybridizable=False
    # the hybridized call fails, as declared
    result = reach(pkg="""
    def after_switch(x):
        return x

    def in_else(x):
        return x

    def kept(x):
        return x

    def undeclared_rest(x):
        return x

    class Descriptor(HybridBlock):
        def __init__(self, use_resize=True, hybridizable=True):
            super().__init__()
            assert (use_resize or not hybridizable)
            self.use_resize = use_resize
            self.hybridizable = hybridizable

        def hybrid_forward(self, F, x):
            if self.use_resize:
                y = kept(x)
                if self.hybridizable:
                    return y
                return after_switch(y)
            else:
                return in_else(x)

    class Undeclared(HybridBlock):
        def __init__(self, fast=False):
            super().__init__()
            self.fast = fast

        def hybrid_forward(self, F, x):
            if self.fast:
                return x
            return undeclared_rest(x)
    """)
    assert get(result, "pkg", "after_switch") is None
    assert get(result, "pkg", "in_else") is None
    assert get(result, "pkg", "kept").certain
    assert get(result, "pkg", "undeclared_rest").certain  # a switch that says nothing of hybridizing
