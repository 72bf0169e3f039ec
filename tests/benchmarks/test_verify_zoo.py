"""benchmarks/zoo/verify_zoo.py, the runtime-vs-MXNet measurement: which models, which inputs, and how outputs
are judged (no MXNet needed: synthetic saved outputs)."""
import sys
from pathlib import Path

import numpy as np
import pytest

ZOO = Path(__file__).resolve().parents[2] / "benchmarks" / "zoo"
sys.path.insert(0, str(ZOO))

import verify_zoo  # noqa: E402


def _label(library, name, verdict="OK", inputs=((1, 3, 32, 32),)):
    return {"library": library, "name": name, "verdict": verdict, "inputs": [list(s) for s in inputs]}


@pytest.mark.parametrize("label, texts", [
    (_label("gluoncv2", "resnet18"), ["1x3x32x32"]),
    (_label("gluonnlp", "standard_lstm_lm_200", inputs=[[5, 2], [[2, 2, 200], [2, 2, 200]]]),
     ["5x2:float32:0..8:int", "[2x2x200, 2x2x200]"]),
    (_label("gluonnlp", "bert_12_768_12", inputs=[[2, 5], [2, 5], [2], [2, 2]]),
     ["2x5:float32:0..8:int", "2x5:float32:0..1:int", "2:float32:1..6:int", "2x2:float32:0..5:int"]),
    (_label("gluoncv2", "jasper5x3", inputs=[[1, 64, 64], [1]]), ["1x64x64", "1:int32:64..65"]),
    (_label("gluoncv2", "visemenet20", inputs=[[1, 19, 26], [1, 76]]), ["1x19x26", "1x76:float32:3..4:int"]),
    (_label("gluoncv", "x", inputs=[]), None),
])
def test_input_texts_follow_models_build(label, texts):
    assert verify_zoo.input_texts(label) == texts
    if texts:  # every text is a valid --input
        from hylint.verify import parse_inputs
        parse_inputs(texts)


def test_pick_takes_every_failing_label_and_spreads_the_ok_ones():
    labels = [_label("gluoncv2", f"m{i:03d}") for i in range(100)]
    labels += [_label("gluoncv2", "broken", "TRACE_FAIL"), _label("gluoncv2", "slow", "EAGER_FAIL")]
    chosen = verify_zoo.pick(labels, 8)
    assert chosen[0]["name"] == "broken" and "slow" not in [label["name"] for label in chosen]
    ok = [int(label["name"][1:]) for label in chosen[1:]]
    assert sorted(ok) == [0, 12, 25, 37, 50, 62, 75, 87]
    assert ok[:2] == [0, 50] and sorted(ok[:4]) == [0, 25, 50, 75]  # every prefix is spread
    assert verify_zoo.pick(labels, 8) == chosen  # reproducible


def test_train_mode_is_compared_only_where_the_label_has_a_train_verdict():
    assert not verify_zoo.compares_train_mode(_label("gluoncv2", "resnet18"))
    assert verify_zoo.compares_train_mode(dict(_label("gluoncv", "x"), train={"verdict": "OK"}))
    assert verify_zoo.compares_train_mode(dict(_label("gluoncv", "x"), train={"verdict": "DIFF"}))
    died = {"verdict": "EAGER_FAIL", "reason": "the process died in the eager train-mode call"}
    assert not verify_zoo.compares_train_mode(dict(_label("gluoncv2", "shakedropresnet20_svhn"), train=died))


def _save(path, **arrays):
    np.savez(path, **arrays)
    return path


def test_outputs_are_judged_by_1e_4_of_their_scale(tmp_path):
    mxnet = _save(tmp_path / "m.npz", **{"eager/0": np.array([0.5, 300.0]), "hybridized/0": np.array([0.5, 0.2])})
    close = _save(tmp_path / "a.npz", **{"eager/0": np.array([0.5, 300.02]), "hybridized/0": np.array([0.50009, 0.2])})
    result = verify_zoo.compare_outputs(close, mxnet)
    assert result["eager"]["equal"] and result["hybridized"]["equal"]
    assert result["eager"]["max_abs"] == pytest.approx(0.02) and result["eager"]["max_rel"] == pytest.approx(0.02 / 300)
    far = _save(tmp_path / "b.npz", **{"eager/0": np.array([0.5, 300.0]), "hybridized/0": np.array([0.5002, 0.2])})
    result = verify_zoo.compare_outputs(far, mxnet)
    assert result["eager"]["equal"] and not result["hybridized"]["equal"]
    assert "max |d| 0.0002" in result["hybridized"]["why"]
    shape = _save(tmp_path / "c.npz", **{"eager/0": np.array([0.5]), "hybridized/0": np.array([0.5, 0.2])})
    assert "shape (1,) instead of (2,)" in verify_zoo.compare_outputs(shape, mxnet)["eager"]["why"]


def test_train_mode_values_are_reported_apart():
    row = {"outputs": {"eager": {"equal": True}, "hybridized": {"equal": True},
                       "train_eager": {"equal": False}, "train_hybridized": {"equal": True}}}
    assert verify_zoo.outputs_equal(row) == (True, False)
    assert verify_zoo.outputs_equal({"outputs": {"eager": {"equal": True}}}) == (True, None)
    assert verify_zoo.outputs_equal({"outputs": {}}) == (False, None)


def test_boxes_in_another_order_are_named(tmp_path):
    boxes = np.array([[[1.0, 2, 3, 4], [5, 6, 7, 8], [0, 0, 1, 1]]])
    mxnet = _save(tmp_path / "m.npz", **{"eager/0": boxes})
    swapped = _save(tmp_path / "a.npz", **{"eager/0": boxes[:, [1, 0, 2]]})
    why = verify_zoo.compare_outputs(swapped, mxnet)["eager"]["why"]
    assert why.endswith("equal as rows in another order")
    moved = _save(tmp_path / "b.npz", **{"eager/0": boxes[:, [1, 0, 2]] + [[[0, 0, 0, 0.5]]]})
    assert "another order" not in verify_zoo.compare_outputs(moved, mxnet)["eager"]["why"]


def test_a_miss_is_unsettled_only_where_mxnet_departs_from_itself_on_every_missed_output():
    def row(ours, native, gap=1.0, native_gap=1.0):
        return {"outputs": {kind: {"equal": equal, "max_abs": 0.0 if equal else gap} for kind, equal in ours.items()},
                "mxnet_native": None if native is None else
                {"outputs": {kind: {"equal": equal, "why": None if equal else "x", "max_abs": 0.0 if equal else native_gap}
                             for kind, equal in native.items()}}}
    # MXNet's oneDNN and native outputs are apart where the runtime missed: float32 rounding decides them
    assert verify_zoo.unsettled(row({"eager": False, "hybridized": True}, {"eager": False, "hybridized": True}))
    # MXNet agrees with itself on an output the runtime missed: a real miss
    assert not verify_zoo.unsettled(row({"eager": False, "hybridized": False}, {"eager": False, "hybridized": True}))
    # not probed, or nothing missed (train-mode values do not count as predict-mode misses)
    assert not verify_zoo.unsettled(row({"eager": False}, None))
    assert not verify_zoo.unsettled(row({"eager": True, "train_eager": False}, {"eager": False, "train_eager": False}))
    # MXNet is apart from itself, but the runtime is much further off: the runtime's own miss
    assert verify_zoo.unsettled(row({"eager": False}, {"eager": False}, gap=3.0, native_gap=1.0))
    assert not verify_zoo.unsettled(row({"eager": False}, {"eager": False}, gap=300.0, native_gap=1.0))
    assert "**unsettled**: eager: x" in verify_zoo.native_cell(row({"eager": False}, {"eager": False}))


def _row(name, seconds=(5.0, 5.0), verdict=True, outputs=True, library="gluoncv2", **extra):
    return dict({"library": library, "name": name, "numpy": {"seconds": seconds[0]}, "mxnet": {"seconds": seconds[1]},
                 "same_verdict": verdict, "outputs_equal": outputs}, **extra)


def test_recheck_samples_the_quick_rows_the_same_way_each_time():
    rows = [_row(f"m{i}", seconds=(i, i)) for i in range(40)] + [_row("stopped", seconds=(None, 3.0)),
                                                              _row("arcface", library="gluonfr")]
    chosen = verify_zoo.recheck_sample(rows, 5, 30.0, {})
    assert len(chosen) == 5 and len({row["name"] for row in chosen}) == 5
    # only rows whose two runs took at most 30 s together; a stopped run has no time; gluonfr needs its interpreter
    assert all(row["numpy"]["seconds"] + row["mxnet"]["seconds"] <= 30 for row in chosen)
    assert [row["name"] for row in verify_zoo.recheck_sample(list(reversed(rows)), 5, 30.0, {})] == \
        [row["name"] for row in chosen]
    assert len(verify_zoo.recheck_sample(rows, 100, 30.0, {})) == 16


def test_recheck_paragraph_counts_the_rows_that_kept_their_results(tmp_path, monkeypatch):
    import json
    rows = [_row("a"), _row("b", outputs=False), _row("c")]
    again = [_row("a", code="abc1234"), _row("b", outputs=True, code="abc1234"), _row("gone", code="abc1234")]
    monkeypatch.setattr(verify_zoo, "RECHECK", tmp_path / "recheck.jsonl")
    assert verify_zoo.recheck_paragraph(rows) == []
    (tmp_path / "recheck.jsonl").write_text("".join(json.dumps(row) + "\n" for row in again))
    text = " ".join(verify_zoo.recheck_paragraph(rows))
    assert "code of abc1234): of 2, 1 kept their verdict and output equality" in text
    assert "changed: b (verdict same, outputs missed -> verdict same, outputs equal)" in text


def test_mxnet_native_misses_only_where_a_predict_mode_output_is_apart():
    def row(native):
        return {"mxnet_native": None if native is None else {"outputs": {
            kind: {"equal": equal} for kind, equal in native.items()}}}
    assert verify_zoo.mxnet_native_misses(row({"eager": True, "hybridized": False}))
    assert not verify_zoo.mxnet_native_misses(row({"eager": True, "hybridized": True}))
    # train mode draws from each path's own generator; a model never probed counts as no miss (an upper bound)
    assert not verify_zoo.mxnet_native_misses(row({"eager": True, "train_eager": False}))
    assert not verify_zoo.mxnet_native_misses(row(None))


def test_runtime_env_reaches_the_runtime_run_only(tmp_path, monkeypatch):
    seen = {}

    def fake_verify(python, driver, backend, texts, train_mode, saved, env, timeout):
        seen[backend] = env.get("OPENBLAS_CORETYPE")
        return None, "stopped", 0.0
    monkeypatch.setattr(verify_zoo, "_verify", fake_verify)
    monkeypatch.setattr(verify_zoo, "_driver", lambda library, name: (tmp_path, name, tmp_path / f"{name}.py"))
    monkeypatch.delenv("OPENBLAS_CORETYPE", raising=False)
    row = verify_zoo.verify_one(_label("gluoncv2", "resnet18"), "py", "py", 5, {"OPENBLAS_CORETYPE": "SkylakeX"})
    # MXNet's own OpenBLAS reads the variable too: its reference run must not see it
    assert seen == {"numpy": "SkylakeX", "mxnet": None}
    assert row["numpy"]["env"] == {"OPENBLAS_CORETYPE": "SkylakeX"} and "env" not in row["mxnet"]
