"""analysis: values along the flow (branches, guards, helpers) and one diagnostic per root cause."""
import libcst as cst

from hylint.analysis import analyze_module
from hylint.analysis.values import Kind
from hylint.lint.engine import Linter
from hylint.selection import select_rules


def _context(source, name="hybrid_forward"):
    info = analyze_module(cst.parse_module(source))
    return {fn.name.value: ctx for fn, ctx in info.contexts.items()}[name]


def _diagnostics(source, select=None):
    rules = select_rules(select or (), named_retired=True)  # HY102, retired, still checks the analysis's shapes
    return [(d.start[0], d.code) for d in Linter(rules).lint_source(source, "m.py").diagnostics]


def _forward(body, args="x"):
    lines = "".join(f"        {line}\n" for line in body.splitlines())
    return f"class N(HybridBlock):\n    def hybrid_forward(self, F, {args}):\n{lines}"


def test_a_name_that_is_a_list_in_one_branch_and_a_tensor_in_the_other_is_unknown():
    ctx = _context(_forward("if self.a:\n    f = [x, x]\nelse:\n    f = x\nreturn f"))
    assert ctx._env["f"].kind is Kind.UNKNOWN
    ctx = _context(_forward("if self.a:\n    f = F.relu(x)\nelse:\n    f = F.tanh(x)\nreturn f"))
    assert ctx._env["f"].kind is Kind.TENSOR and ctx._env["f"].certain


def test_a_branch_that_returns_does_not_reach_the_code_after_it():
    ctx = _context(_forward("f = [x]\nif self.a:\n    f = x\n    return f\nreturn f"))
    assert ctx._env["f"].kind is Kind.SEQ


def test_a_mode_guard_leaves_the_hybridized_branch():
    ctx = _context(_forward("if F is nd:\n    e = F.array([1.0])\nelse:\n    e = F.ones((1, 1))\nreturn e"))
    assert ctx._env["e"].shape.dims == (1, 1)


def test_a_mode_guard_in_a_conditional_expression_leaves_the_traced_side():
    """`x.reshape(y.shape) if F is nd else F.reshape_like(x, y)`: the shape is read eagerly only."""
    source = _forward("z = x.reshape(y.shape) if F is nd else F.reshape_like(x, y)\nreturn z + x", args="x, y")
    assert _diagnostics(source) == []
    flipped = _forward("z = F.reshape_like(x, y) if F is not nd else x.reshape(y.shape)\nreturn z", args="x, y")
    assert _diagnostics(flipped) == []
    assert _diagnostics(_forward("z = x.reshape(y.shape) if self.a else F.reshape_like(x, y)\nreturn z",
                                 args="x, y")) == [(3, "HY201")]


def test_isinstance_narrows_to_a_python_container():
    source = _forward("if isinstance(x, (list, tuple)):\n    return [F.relu(v) for v in x]\nreturn F.relu(x)")
    assert _diagnostics(source) == []  # no HY801 for the loop over the list


def test_a_list_of_feature_maps_read_by_a_loop_counter_is_a_list():
    ctx = _context(_forward("y = maps[-1]\nfor i in range(3):\n    y = F.concat(*([y] + [maps[i]]), dim=1)\nreturn y",
                            args="maps"))
    assert ctx.params["maps"].kind is Kind.SEQ
    assert _context(_forward("return x[0] + x[:, 1]")).params["x"].assumed is False  # a tuple index proves it


def test_one_diagnostic_where_the_function_leaves_the_graph():
    """What reads the NumPy result (`w = nd.array(v)`) follows from the root and is folded into it."""
    source = _forward("v = x.asnumpy()\nw = nd.array(v)\nreturn x * F.broadcast_mul(w, w)")
    found = _diagnostics(source)
    assert found == [(3, "HY401")]  # nd.array(v) follows from it: `v` is NumPy
    message = Linter(select_rules()).lint_source(source, "m.py").diagnostics[0].help
    assert "cannot hybridize" in message and "1 later diagnostic follows" in message
    # an accidental x.shape is no exit: each hazard after it is reported
    assert _diagnostics(_forward("n = x.shape[0]\nreturn x[1:] * n")) == [(3, "HY201"), (4, "HY301")]


def test_hazards_that_do_not_follow_from_the_root_cause_are_reported():
    """Issue 23 item 1: after `v = x.asnumpy()` only what derives from `v` (or from a row of a loop over
    a tensor, or from `len(x)`) is a cascade; an independent constant, shape read, subscript or in-place
    add would fail hybridized all the same once the asnumpy is fixed, so each is reported."""
    source = _forward("v = x.asnumpy()\nc = nd.array([1.0, 2.0])\na = F.relu(x)\na += x\nn = x.shape[0]\n"
                      "w = nd.array(v)\nreturn x[1:] * n + a * c + w")
    assert _diagnostics(source) == [(3, "HY401"), (4, "HY402"), (6, "HY501"), (7, "HY201"), (9, "HY301")]
    message = Linter(select_rules()).lint_source(source, "m.py").diagnostics[0].help
    assert "(1 later diagnostic follows from it, not shown)" in message  # nd.array(v)
    # a loop counter bounded by len(h) derives from it; a subscript of an argument in the loop does not
    looped = _forward("h = F.relu(x)\nn = len(h)\nout = h\nfor i in range(n):\n    out = out + nd.array([i]) + h[0]\nreturn out")
    assert _diagnostics(looped) == [(4, "HY201"), (7, "HY301")]


def test_a_helper_called_only_with_values_from_the_root_cause_is_part_of_the_cascade():
    helper = "def _first(F, r):\n    return r[0]\n\n"
    looped = "h = F.relu(x)\nouts = []\nfor row in h:\n    outs.append(_first(F, row))\nreturn F.stack(*outs)"
    assert [code for _, code in _diagnostics(helper + _forward(looped))] == ["HY801"]  # r[0] is a row's
    # called with a tensor of the graph too, the helper's subscript is a hazard of its own
    both = looped.replace("F.stack(*outs)", "F.stack(*outs) + _first(F, h)")
    assert sorted(code for _, code in _diagnostics(helper + _forward(both))) == ["HY301", "HY801"]
    # a helper reading the shape of a tensor the graph holds is not a consequence of `len(h)`
    source = ("def _rows(v):\n    return v.shape[0]\n\n" + _forward("h = F.relu(x)\nn = len(h)\nreturn h * _rows(h) * n"))
    assert [code for _, code in _diagnostics(source)] == ["HY201", "HY201"]


def test_a_helper_without_f_is_analysed_and_gets_no_fix():
    source = "def _first(v):\n    return v[:, 0]\n\n" + _forward("return _first(F.relu(x))")
    result = Linter(select_rules()).lint_source(source, "m.py")
    assert [(d.start[0], d.code) for d in result.diagnostics] == [(2, "HY301")]
    assert result.diagnostics[0].fix is None  # an `F.` rewrite would name nothing in `_first`
    assert Linter(select_rules()).fix_source(source, "m.py", unsafe=True).source == source


def test_a_helper_without_f_written_against_nd_gets_one_diagnostic_naming_f():
    """A helper without F that calls mx.nd on a tensor fails at its first nd call once hybridized; the
    calls after it follow from that one, and the message names the F the helper should be given."""
    source = ("def _norm(w):\n    m = nd.reshape(w, (0, -1))\n    n = nd.dot(m, m.T)\n    return nd.sum(n)\n\n"
              + _forward("return x * _norm(F.relu(x))"))
    found = Linter(select_rules()).lint_source(source, "m.py").diagnostics
    assert [(d.start[0], d.code) for d in found] == [(2, "HY403")]
    assert "use `F.reshape`" in found[0].message and "__hylint" not in found[0].message
    assert "`_norm` leaves the graph here" in found[0].help and "3 later diagnostics" in found[0].help  # nd.dot, m.T, nd.sum


def test_a_numpy_style_sequence_argument_is_a_list_of_tensors():
    """`F.np.concatenate(features)` takes one sequence (the legacy `F.concat(*features)` separate tensors):
    the argument is a list, and `len()` of it is no hazard."""
    source = _forward("if len(proj) == 1:\n    return proj[0]\nreturn F.np.concatenate(proj, axis=-1)", args="proj")
    assert _context(source).params["proj"].kind is Kind.SEQ
    assert _diagnostics(source) == []
    assert _context(_forward("return F.np.mean(x, axis=0)")).params["x"].kind is Kind.TENSOR


def test_helper_results_carry_their_shape_back():
    source = _forward("a = self._col(F, x)\nb = x.sum(axis=1).reshape((-1, 1))\nreturn a * b") + \
        "\n    def _col(self, F, v):\n        return F.sum(v, axis=1).reshape((-1, 1))\n"
    ctx = _context(source)
    assert ctx._env["a"].shape.dims == (None, 1)
    assert _diagnostics(source) == []


def test_a_block_class_defined_inside_a_function_is_analysed():
    source = ("def make():\n    class Inner(HybridBlock):\n        def hybrid_forward(self, F, x):\n"
              "            return x * x.shape[1]\n    return Inner()\n")
    assert _diagnostics(source) == [(4, "HY201")]


def test_built_in_children_and_split_outputs_carry_shapes():
    source = ("class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
              "        self.pool = nn.GlobalAvgPool2D()\n        self.fc = nn.Dense(8)\n"
              "        self.lstm = rnn.LSTM(4)\n"
              "    def hybrid_forward(self, F, x, s):\n        p = self.pool(x)\n        d = self.fc(x)\n"
              "        a, b = F.split(x, 2)\n        o = self.lstm(x)\n        t = self.lstm(x, s)\n"
              "        return p, d, a, b, o, t\n")
    env = _context(source)._env
    assert env["p"].shape.dims == (None, None, 1, 1) and env["d"].shape.dims == (None, 8)
    assert env["a"].shape.root == env["b"].shape.root  # proven equal
    assert env["o"].kind is Kind.TENSOR and env["t"].kind is Kind.SEQ


def test_a_block_of_the_module_returning_a_python_list_gives_a_sequence():
    source = ("class Stages(HybridSequential):\n    def hybrid_forward(self, F, x):\n        outs = []\n"
              "        for block in self._children.values():\n            x = block(x)\n            outs.append(x)\n"
              "        return outs\n\n\nclass N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
              "        self.stages = Stages()\n\n    def hybrid_forward(self, F, x):\n        y = self.stages(x)\n"
              "        return y[0] + F.add_n(*y[1:])\n")
    info = analyze_module(cst.parse_module(source))
    ctx = next(c for fn, c in info.contexts.items() if info.class_of[fn].name == "N")
    assert ctx._env["y"].kind is Kind.SEQ
    assert _diagnostics(source, ["ALL"]) == []


def test_a_later_argument_rebound_to_its_own_element_packs_several_values():
    ctx = _context(_forward("if self.packed:\n    x_len = x_len[0]\nreturn x * x_len.expand_dims(1)", "x, x_len"))
    assert ctx.params["x_len"].kind is Kind.SEQ
    # the first argument keeps HY301's evidence
    assert _diagnostics(_forward("x = x[0]\nreturn x.sum()"), ["HY301"]) == [(3, "HY301")]


def test_a_rank_alone_is_no_shape_fact_of_a_broadcast():
    body = "xs = F.broadcast_mod(i, w) + o.reshape((-1, self.k))\nreturn xs - s.reshape((-1, self.k))"
    assert _diagnostics(_forward(body, "i, w, o, s"), ["HY102"]) == []
    assert _diagnostics(_forward("return i * w", "i, w"), ["HY102"]) == [(3, "HY102")]


def test_the_independent_hazards_after_a_root_cause_reach_every_output_format(tmp_path):
    """The fold is the engine's: SARIF (and every other format) shows what the text output shows."""
    import json

    from tests.clirun import hylint

    path = tmp_path / "m.py"
    path.write_text(_forward("v = x.asnumpy()\nw = nd.array(v)\nc = nd.array([1.0, 2.0])\nreturn x * c"))
    run = hylint("check", "--no-cache", "--output-format", "sarif", str(path))
    results = json.loads(run.out)["runs"][0]["results"]
    assert sorted((r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in results) == [
        ("HY401", 3), ("HY402", 5)]  # nd.array(v) folded into the root; the constant reported
    assert "1 later diagnostic follows" in next(r["message"]["text"] for r in results if r["ruleId"] == "HY401")
