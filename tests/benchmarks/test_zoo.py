"""The zoo check (benchmarks/zoo): the committed labels, the scorer's join, and a CI slice re-labelled on MXNet."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ZOO = ROOT / "benchmarks" / "zoo"
sys.path.insert(0, str(ZOO))

import label as zoo_label  # noqa: E402  (benchmarks/zoo/label.py: imports MXNet only in its workers)
import score  # noqa: E402  (benchmarks/zoo/score.py: no MXNet needed)

LIBRARIES = {prefix.split("/")[0] for prefix in zoo_label.TRACED_PREFIXES}  # the packages a trace is read in

VERDICTS = {"OK", "TRACE_FAIL", "GRAPH_FAIL", "DIFF", "EAGER_FAIL"}
# The CI slice: quick models of every library, OK and failing ones. Re-labelled on MXNet, they must give
# their committed labels back.
SLICE = {
    "gluoncv2": ["lednet_cityscapes", "resnet20_cifar10", "preresnet20_cifar10", "resdropresnet20_cifar10",
                 "shakedropresnet20_cifar10", "densenet40_k12_cifar10"],
    "mxnet": ["squeezenet1.1", "mobilenet0.25"],
    "gluonnlp": ["standard_lstm_lm_200"],
    "gluoncv": ["cifar_resnet20_v1", "cifar_resnet20_v2"],
}
LEDNET_ROOT_CAUSE = ("gluoncv2/models/lednet.py", 375)  # `x.shape[2:]` in hybrid_forward: TRACE_FAIL


def committed():
    return score.read_labels(ZOO / "labels")


# ------------------------------------------------------------------------------------------ without MXNet

def test_committed_labels_are_measurements_with_their_evidence():
    labels = committed()
    assert labels, "no committed labels in benchmarks/zoo/labels"
    for library, items in labels.items():
        for label in items:
            where = f"{library}/{label['name']}"
            assert label["verdict"] in VERDICTS, where
            assert label["library"] == library, where
            if label["verdict"] == "EAGER_FAIL":
                assert label["error"]["type"] and label["error"]["message"] is not None, where
                continue
            assert label["versions"]["mxnet"] == "1.9.1", where
            assert label["fingerprint"] and label["eager_files"], where
            if label["verdict"] in ("TRACE_FAIL", "GRAPH_FAIL"):
                assert label["error"]["type"], where
            if label["verdict"] == "OK":
                # an OK model ran library code in its trace; gluoncv's *_int8 models are graphs loaded as
                # SymbolBlocks (model_zoo/quantized/quantized.py): no library hybrid_forward runs, measured
                loaded_graph = "gluoncv/model_zoo/quantized/quantized.py" in label["eager_files"]
                assert label["trace_lines"] or (loaded_graph and label["name"].endswith("_int8")), where
            for path in list(label.get("trace_lines") or ()) + [f[0] for f in label.get("error", {}).get("frames", [])]:
                assert not path.startswith("/") and path.split("/")[0] in LIBRARIES, where


def test_sockeye_is_labelled_model_by_model_with_its_root_cause():
    """sockeye's models are listed without MXNet (models.py), each has its label, and the one that fails is the
    search called with a lexicon, then without: the argument structure of GreedyTop1 at beam_search.py:606."""
    import models
    names = models.model_names("sockeye")
    assert json.loads((ZOO / "labels" / "model_lists.json").read_text())["sockeye"] == names
    labels = {label["name"]: label for label in committed()["sockeye"]}
    assert sorted(labels) == names
    failing = {name: label for name, label in labels.items() if label["verdict"] != "OK"}
    assert list(failing) == ["search:greedy_lexicon_then_none"]
    error = failing["search:greedy_lexicon_then_none"]["error"]
    assert error["type"] == "ValueError" and "argument structure" in error["message"]
    assert error["frames"][-1][:2] == ["sockeye/beam_search.py", 606]
    assert labels["search:greedy_lexicon"]["verdict"] == labels["search:greedy"]["verdict"] == "OK"


def _tree(tmp_path):
    source = tmp_path / "lib"
    (source / "pkg").mkdir(parents=True)
    (source / "pkg" / "m.py").write_text(
        "class A:\n"                                     # 1
        "    def hybrid_forward(self, F, x):\n"          # 2
        "        y = F.relu(x)\n"                        # 3
        "        n = (x.shape[0] +\n"                    # 4
        "             1)\n"                              # 5
        "        return y\n"                             # 6
        "\n"                                             # 7
        "class B:\n"                                     # 8
        "    def hybrid_forward(self, F, x):\n"          # 9
        "        if x.shape[0]:\n"                       # 10
        "            return x\n"                         # 11
        "        return x * 2\n"                         # 12
        "\n"                                             # 13
        "def unused(F, x):\n"                            # 14
        "    return x.asnumpy()\n")                      # 15
    return source


def test_scorer_join_classifies_root_causes_false_alarms_failing_lines_and_unknown(tmp_path):
    source = _tree(tmp_path)
    labels = [
        {"name": "ok", "verdict": "OK", "trace_lines": {"pkg/m.py": [3, 6]}},
        # the tracer reports line 5 of the statement that starts on line 4: the statement is the join key
        {"name": "broken", "verdict": "TRACE_FAIL", "trace_lines": {"pkg/m.py": [3, 5]},
         "error": {"type": "AttributeError", "message": "no shape", "frames": [["pkg/m.py", 5, "hybrid_forward"]]}},
        {"name": "differs", "verdict": "DIFF", "trace_lines": {"pkg/m.py": [10, 11]},
         "diff": {"mode": "predict", "detail": "d", "blocks": [{"block": "net", "class": "B", "path": "pkg/m.py",
                                                                "line": 9}]}},
    ]
    default = [("HY201", "pkg/m.py", 4, "x.shape"),      # on the root cause of `broken`
               ("HY101", "pkg/m.py", 3, "relu"),         # ran in `ok`: a false alarm
               ("HY802", "pkg/m.py", 10, "truth value"),  # inside the differing block B: its root cause
               ("HY804", "pkg/m.py", 15, "asnumpy")]     # never ran: unknown
    result = score.score_library("lib", labels, default, default, score.Statements(source))
    rules = result["default"]
    assert rules["HY201"] == {"true": 1, "total": 1}
    assert rules["HY101"] == {"false": 1, "total": 1}
    assert rules["HY802"] == {"true": 1, "total": 1}
    assert rules["HY804"] == {"unknown": 1, "total": 1}
    causes = {(c["kind"], c["path"], c["line"]): c for c in result["root_causes"]}
    assert causes[("line", "pkg/m.py", 5)]["default"] == ["HY201"]
    assert causes[("block", "pkg/m.py", 9)]["default"] == ["HY802"]
    assert [a["code"] for a in result["false_alarms"]] == ["HY101"]


def test_scorer_counts_a_shared_root_cause_once_and_misses_are_listed(tmp_path):
    source = _tree(tmp_path)
    failing = {"verdict": "TRACE_FAIL", "trace_lines": {"pkg/m.py": [3, 4]},
               "error": {"type": "AttributeError", "message": "m", "frames": [["pkg/m.py", 4, "hybrid_forward"]]}}
    labels = [dict(failing, name="a"), dict(failing, name="b")]
    result = score.score_library("lib", labels, [], [], score.Statements(source))
    assert len(result["root_causes"]) == 1
    (cause,) = result["root_causes"]
    assert cause["models"] == 2 and cause["default"] == [] and cause["all"] == []


def test_a_failure_inside_a_called_function_is_flagged_at_its_call_site_too(tmp_path):
    """`Binarize()(w)` in hybrid_forward fails inside `Binarize.forward`: a diagnostic on the call (the
    frame just outside the innermost one) flags the root cause; one elsewhere in the caller does not."""
    source = _tree(tmp_path)
    label = {"name": "m", "verdict": "TRACE_FAIL", "trace_lines": {"pkg/m.py": [3, 6, 15]},
             "error": {"type": "AttributeError", "message": "m",
                       "frames": [["pkg/m.py", 3, "hybrid_forward"], ["pkg/m.py", 15, "unused"]]}}
    at_call = [("HY809", "pkg/m.py", 3, "autograd.Function")]
    (cause,) = score.score_library("lib", [label], at_call, at_call, score.Statements(source))["root_causes"]
    assert (cause["line"], cause["default"]) == (15, ["HY809"])
    elsewhere = [("HY101", "pkg/m.py", 6, "other")]
    (cause,) = score.score_library("lib", [label], elsewhere, elsewhere, score.Statements(source))["root_causes"]
    assert cause["default"] == []


def test_a_whole_model_block_is_flagged_in_code_only_its_own_models_traced(tmp_path):
    """A GRAPH_FAIL with no library frame is the whole model's block; a diagnostic in a helper its trace ran
    (`unused`, line 15) flags it when no other model ran that line; one on a line an OK model ran does not."""
    source = _tree(tmp_path)
    failing = {"name": "whole", "verdict": "GRAPH_FAIL", "trace_lines": {"pkg/m.py": [10, 12, 15, 3]},
               "error": {"type": "MXNetError", "message": "shape", "frames": []},
               "blocks": [{"block": "net", "class": "B", "path": "pkg/m.py", "line": 9}]}
    ok = {"name": "ok", "verdict": "OK", "trace_lines": {"pkg/m.py": [3, 6]}}
    in_helper = [("HY101", "pkg/m.py", 15, "helper")]
    (cause,) = score.score_library("lib", [failing, ok], in_helper, in_helper, score.Statements(source))["root_causes"]
    assert cause["default"] == ["HY101"]
    shared = [("HY101", "pkg/m.py", 3, "ran in ok too")]
    result = score.score_library("lib", [failing, ok], shared, shared, score.Statements(source))
    assert result["root_causes"][0]["default"] == [] and [a["line"] for a in result["false_alarms"]] == [3]
    # an inner block (not the whole model) is flagged only inside its own method
    inner = dict(failing, blocks=[{"block": "net.body", "class": "B", "path": "pkg/m.py", "line": 9}])
    (cause,) = score.score_library("lib", [inner, ok], in_helper, in_helper, score.Statements(source))["root_causes"]
    assert cause["default"] == []


def test_trace_state_rules_are_judged_by_the_train_mode_call(tmp_path):
    source = _tree(tmp_path)
    labels = [{"name": "same", "verdict": "OK", "trace_lines": {"pkg/m.py": [3]}, "train": {"verdict": "OK"}},
              {"name": "frozen", "verdict": "DIFF", "trace_lines": {"pkg/m.py": [6]},
               "train": {"verdict": "DIFF"}, "diff": {"mode": "train", "blocks": []}}]
    diagnostics = [("HY806", "pkg/m.py", 3, "is_training"), ("HY806", "pkg/m.py", 6, "is_training"),
                   ("HY806", "pkg/m.py", 12, "is_training")]
    rules = score.score_library("lib", labels, diagnostics, diagnostics, score.Statements(source))["default"]
    assert rules["HY806"] == {"false": 1, "true": 1, "unknown": 1, "total": 3}
    # a hybridized train-mode call that fails counts as true too; one the labeller could not run is unknown
    labels = [{"name": "fails", "verdict": "DIFF", "trace_lines": {"pkg/m.py": [3]}, "train": {"verdict": "GRAPH_FAIL"},
               "diff": {"mode": "train", "blocks": []}},
              {"name": "died", "verdict": "OK", "trace_lines": {"pkg/m.py": [6]}, "train": {"verdict": "EAGER_FAIL"}}]
    diagnostics = [("HY810", "pkg/m.py", 3, "traced"), ("HY810", "pkg/m.py", 6, "traced")]
    rules = score.score_library("lib", labels, diagnostics, diagnostics, score.Statements(source))["default"]
    assert rules["HY810"] == {"true": 1, "unknown": 1, "total": 2}


def _fallback_tree(tmp_path):
    source = tmp_path / "site"
    (source / "pkg").mkdir(parents=True)
    (source / "pkg" / "f.py").write_text(
        "def hybrid_forward(self, F, x):\n"
        "    size = self.size if self.size is not None else x.shape[2:]\n"
        "    return F.relu(x)\n")
    return source


def _shape_extent():
    line = "    size = self.size if self.size is not None else x.shape[2:]"
    col = line.index("x.shape")
    return (2, col, 2, col + len("x.shape"))


def test_a_fallback_expression_that_never_ran_is_unknown_not_false(tmp_path):
    """The line ran in OK models; spans.py measured which instructions of it ran. A diagnostic whose own range
    did not run in any of them is unknown; one that did run, or with an OK model not measured, stays false."""
    source = _fallback_tree(tmp_path)
    labels = [{"name": "a", "verdict": "OK", "trace_lines": {"pkg/f.py": [2, 3]}},
              {"name": "b", "verdict": "OK", "trace_lines": {"pkg/f.py": [2, 3]}}]
    extent = _shape_extent()
    diagnostics = [("HY201", "pkg/f.py", 2, "x.shape", extent)]
    test_only = [[2, 11, 2, 20], [2, 24, 2, 33], [2, 24, 2, 45]]   # `self.size`, the test; never `x`, `x.shape`
    spans = {"pkg/f.py:2-2": {"models": ["a", "b"], "positions": test_only, "failed": {}}}
    result = score.score_library("lib", labels, diagnostics, diagnostics, score.Statements(source), spans)
    assert result["default"]["HY201"] == {"unknown": 1, "total": 1}
    assert [a["line"] for a in result["expression_not_run"]] == [2] and result["false_alarms"] == []

    ran = {"pkg/f.py:2-2": {"models": ["a", "b"], "positions": test_only + [list(extent)], "failed": {}}}
    result = score.score_library("lib", labels, diagnostics, diagnostics, score.Statements(source), ran)
    assert result["default"]["HY201"] == {"false": 1, "total": 1}

    partly = {"pkg/f.py:2-2": {"models": ["a"], "positions": test_only, "failed": {"b": "over 300 s"}}}
    result = score.score_library("lib", labels, diagnostics, diagnostics, score.Statements(source), partly)
    assert result["default"]["HY201"] == {"false": 1, "total": 1}


def test_spans_recorder_sees_which_branch_of_a_line_ran(tmp_path):
    """The opcode recorder of spans.py on real CPython frames: the fallback's `x.shape` runs only without a size."""
    import spans
    source = _fallback_tree(tmp_path)
    filename = str(source / "pkg" / "f.py")
    namespace = {}
    exec(compile((source / "pkg" / "f.py").read_text(), filename, "exec"), namespace)

    class Holder:
        shape = (1, 3, 8, 8)

    def run(size):
        block = type("Block", (), {"size": size})()
        recorder = spans._PositionRecorder({filename: {2: "k"}})
        with recorder:
            namespace["hybrid_forward"](block, type("F", (), {"relu": staticmethod(lambda v: v)}), Holder())
        return recorder.positions["k"]

    row, col, end_row, end_col = _shape_extent()

    def inside(positions):
        return any((row, col) <= (p[0], p[1]) and (p[2], p[3]) <= (end_row, end_col) for p in positions)
    assert not inside(run((8, 8)))
    assert inside(run(None))


def test_scorer_flags_lednets_root_cause_on_the_committed_label():
    """The committed lednet label, joined with hylint's diagnostics on the real lednet.py (installed gluoncv2)."""
    label = next((item for item in committed().get("gluoncv2", []) if item["name"] == "lednet_cityscapes"), None)
    assert label is not None and label["verdict"] == "TRACE_FAIL"
    assert label["error"]["frames"][-1][:2] == list(LEDNET_ROOT_CAUSE)
    spec = importlib.util.find_spec("gluoncv2")
    if spec is None:
        pytest.skip("gluoncv2 is not installed: its source is needed")
    site = Path(list(spec.submodule_search_locations)[0]).parent
    lednet = site / LEDNET_ROOT_CAUSE[0]
    done = subprocess.run([sys.executable, "-m", "hylint", "check", "--output-format", "json", "--exit-zero",
                           "--no-cache", str(lednet)], cwd=ROOT, capture_output=True, text=True, check=True)
    diagnostics = [(d["code"], LEDNET_ROOT_CAUSE[0], d["location"]["row"], d["message"])
                   for d in json.loads(done.stdout)]
    result = score.score_library("gluoncv2", [label], diagnostics, diagnostics, score.Statements(site))
    (cause,) = result["root_causes"]
    assert cause["default"], "hylint no longer flags lednet's `x.shape[2:]`, a known TRACE_FAIL"


# ------------------------------------------------------------------------------------------ with MXNet

@pytest.mark.slow
@pytest.mark.mxnet
@pytest.mark.parametrize("library", sorted(SLICE))
def test_relabelling_the_slice_reproduces_the_committed_labels(library, tmp_path):
    pytest.importorskip("mxnet")
    if library != "mxnet":
        pytest.importorskip(library)
    expected = {label["name"]: label for label in committed()[library]}
    names = SLICE[library]
    assert set(names) <= set(expected), "the CI slice must be labelled in benchmarks/zoo/labels"
    subprocess.run([sys.executable, str(ZOO / "label.py"), "--python", sys.executable, "--library", library,
                    "--out", str(tmp_path), "--timeout", "150", "--names", *names],
                   check=True, capture_output=True, text=True)
    again = {label["name"]: label for label in score.read_labels(tmp_path)[library]}
    assert sorted(again) == sorted(names)
    for name in names:
        assert _comparable(again[name]) == _comparable(expected[name]), name
        assert _close(again[name].get("fingerprint"), expected[name].get("fingerprint")), name


def _comparable(label):
    """A label without what legitimately varies between runs: the time, the versions, the float statistics."""
    skip = {"seconds", "versions", "fingerprint"}
    return {key: value for key, value in label.items() if key not in skip}


def _close(a, b):
    if not a or not b:
        return a == b
    return all(x[:2] == y[:2] and all(abs(p - q) <= 1e-3 * max(1.0, abs(q)) for p, q in zip(x[2:], y[2:]))
               for x, y in zip(a, b)) and len(a) == len(b)


@pytest.mark.mxnet
def test_locating_a_failing_block_whose_repr_raises():
    """A block whose repr raises (gluonts' validated repr of an argument it cannot serialize, e.g. LipSwish's
    initializer) is located like any other: hybridize() formats repr(block) in a warning when pre-hooks are set."""
    mx = pytest.importorskip("mxnet")

    class Scaled(mx.gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            with self.name_scope():
                self.beta = self.params.get("beta", shape=(1,), init=mx.init.One())

        def hybrid_forward(self, F, x, beta):
            return x * beta  # eagerly (1,) broadcasts; hybridized, the elementwise product needs equal shapes

        def __repr__(self):
            raise RuntimeError("cannot serialize an argument")

    class Outer(mx.gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            with self.name_scope():
                self.inner = Scaled()

        def hybrid_forward(self, F, x):
            return self.inner(x)

    net = Outer()
    net.initialize()
    x = mx.nd.ones((2, 3))
    net(x)
    recorder = zoo_label._Recorder(zoo_label._package_roots())
    (found,) = zoo_label._differing_blocks(net, [x], "predict", recorder)
    assert (found["block"], found["class"], found["count"]) == ("net.inner", "Scaled", 1)
