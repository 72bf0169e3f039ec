"""`hylint verify PATH`: every HybridBlock subclass under a file or folder, built, fed and verified in its own
process (hylint/verify/discover.py, construct.py, feed.py, survey.py)."""
import ast
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from verifyrun import BACKENDS, as_json, verify

ROOT = Path(__file__).resolve().parents[2]


PROGRAMS = '''import mxnet as mx
from mxnet import gluon
from mxnet.gluon import nn


class Good(gluon.HybridBlock):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.dense = nn.Dense(units, in_units=6)

    def hybrid_forward(self, F, x):
        return F.relu(self.dense(x))


class Stack(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        return F.stack(*[F.relu(x)] * 2) + sum([x])


class Asnumpy(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        return x * x.asnumpy().shape[0]


class Length(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        return x * len(x)


class Helper:
    """not a block: never reported"""


class Chain(nn.HybridSequential):
    """an empty container: not run"""


USED = Good(5)
'''


@pytest.fixture
def programs(project):
    (project / "pkg").mkdir()
    (project / "pkg" / "__init__.py").write_text("")
    (project / "pkg" / "blocks.py").write_text(PROGRAMS)
    return project


def lines_of(result):
    return {line.split("  ")[0].split("::")[1]: line for line in result.stdout.splitlines() if "::" in line}


# -- building ----------------------------------------------------------------------------------------------
def test_building_takes_defaults_then_call_sites_then_guesses(tmp_path):
    from hylint.verify import construct
    from hylint.verify.discover import discover

    (tmp_path / "m.py").write_text(textwrap.dedent('''
        from mxnet.gluon import nn

        class Defaults(nn.HybridBlock):
            def __init__(self, units=3, **kwargs):
                super().__init__(**kwargs)

        class Called(nn.HybridBlock):
            def __init__(self, units, act, **kwargs):
                super().__init__(**kwargs)

        class Guessed(nn.HybridBlock):
            def __init__(self, in_channels, activation, use_bias, prefix, strides, layers, mode, dropout, **kwargs):
                super().__init__(**kwargs)
                for n in layers:
                    pass
                if mode == "lstm":
                    pass

        BLOCK = Called(7, act=some_function)
        OTHER = Called(units=9, act="tanh")
    '''))
    jobs = {job.name: job for job in discover(tmp_path)}
    assert set(jobs) == {"Defaults", "Called", "Guessed"}

    class Defaults:
        def __init__(self, units=3, **kwargs):
            pass

    class Called:
        def __init__(self, units, act, **kwargs):
            pass

    assert construct.candidates(Defaults, jobs["Defaults"].calls) == [{}]
    found = construct.candidates(Called, jobs["Called"].calls)
    # both literal calls, the one giving every required parameter first; the guesses alone last
    assert found[0] == {"units": 9, "act": "tanh"}
    assert found[1] == {"units": 7, "act": "relu"}  # `act=some_function` is no literal: guessed
    assert found[2] == {"units": 4, "act": "relu"}
    guessed = {"in_channels": 4, "activation": "relu", "use_bias": False, "prefix": None, "strides": 1,
               "layers": [4, 4], "mode": "lstm", "dropout": 0.0, "growth_rate": 4, "version": "1.0",
               "bn_use_global_stats": False, "bn_cudnn_off": False, "cell": "gru"}
    found = construct.candidates(Guessed)
    assert found[0] == guessed
    # then nested configurations: what the body iterates as lists of lists, plural names as lists, both
    assert found[1] == {**guessed, "layers": [[4, 4], [4, 4]]}
    assert found[2] == {**guessed, "in_channels": [4, 4], "strides": [4, 4]}
    assert found[3] == {**guessed, "in_channels": [4, 4], "strides": [4, 4], "layers": [[4, 4], [4, 4]]}
    assert found[4] == {**guessed, "in_channels": 16, "growth_rate": 16, "layers": [16, 16]}
    assert len(found) == 5


def _make_cell(kind, size):
    if kind == "gru":
        return size


class Guessed:  # the body tells: `layers` is iterated over, `mode` compared with a string, `cell` passed on
    def __init__(self, in_channels, activation, use_bias, prefix, strides, layers, mode, dropout, growth_rate,
                 version, bn_use_global_stats, bn_cudnn_off, cell, **kwargs):
        assert version in ("1.0", "1.1")
        _make_cell(cell, in_channels)
        for n in layers:
            pass
        if mode == "lstm":
            pass


def _make_layer(kind, size):
    if kind == "gru":
        return size
    raise ValueError(kind)


class StoredBase:  # its parameters read through the attributes it stores them in, in methods other than __init__
    def __init__(self, mode, steps, names, **kwargs):
        self._mode, self._steps, self._names = mode, steps, names

    def build(self):
        for _ in range(self._steps):
            pass
        return _make_layer(self._mode, 4), self._names.split(",")


class Stored(StoredBase):  # passes them on to its base by the same names
    def __init__(self, mode, steps, names, dropout, in_size, **kwargs):
        super().__init__(mode, steps, names)
        self._dropout = dropout
        self._in_size = in_size

    def forward(self, x):
        if self._dropout:
            return x
        return x if self._in_size is None else x[self._in_size[0]]


class Encoder:
    def __init__(self, units):
        self._units = units


class Head:  # takes a block: it reads an attribute no str, list, dict or int has, and calls it
    def __init__(self, encoder, classes):
        self.encoder = encoder
        self._size = encoder._units

    def forward(self, x):
        return self.encoder(x)


def test_building_reads_the_whole_class_and_its_bases(tmp_path):
    from hylint.verify import construct

    # mode: compared in the helper the base passes self._mode to; steps: range(); names: a str method;
    # dropout: a rate the code branches on, nonzero so the branch runs
    # in_size: compared with None, so None first (the code handles it), then what its name suggests
    found = construct.candidates(Stored)
    assert found[0] == {"mode": "gru", "steps": 2, "names": "relu", "dropout": 0.1, "in_size": None}
    assert found[1] == {**found[0], "in_size": 4}


def test_building_gives_a_block_argument_the_class_the_package_passes(tmp_path):
    from hylint.verify import construct
    from hylint.verify.discover import discover
    from hylint.verify.harness import BLOCK, SMALL_BLOCK

    (tmp_path / "m.py").write_text(textwrap.dedent('''
        from mxnet.gluon import nn

        class Encoder(nn.HybridBlock):
            pass

        class Head(nn.HybridBlock):
            pass

        def build():
            encoder = Encoder(16)
            return Head(encoder, 3)
    '''))
    jobs = {job.name: job for job in discover(tmp_path)}
    assert jobs["Head"].calls[0].blocks == (("0", "Encoder"),)  # through the name the function assigned
    assert construct.block_parameters(Head) == ["encoder"]
    classes = {"Encoder": Encoder, "Head": Head}
    made = []
    builder = construct.Builder(classes.get, lambda cls, kwargs: made.append(cls(**kwargs)), jobs["Head"].context)
    found = construct.candidates(Head, jobs["Head"].calls, builder=builder)
    # the Encoder the package's call passes, built with its own call's literal arguments
    assert found[0] == {"encoder": {BLOCK: f"{__name__}:Encoder", "kwargs": {"units": 16}}, "classes": 3}
    assert made and isinstance(made[0], Encoder)
    # no call and no class named like the parameter: a small Dense
    alone = construct.Builder(lambda name: None, lambda cls, kwargs: cls(**kwargs), {})
    assert construct.candidates(Head, (), builder=alone)[0] == {"encoder": SMALL_BLOCK, "classes": 4}


def test_discovery_follows_bases_across_the_package_and_skips_plain_classes(tmp_path):
    from hylint.verify.discover import discover

    package = tmp_path / "lib"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "base.py").write_text("from mxnet import gluon\n\nclass Base(gluon.HybridBlock):\n    pass\n")
    (package / "sub.py").write_text("from .base import Base\n\nclass Child(Base):\n    pass\n\n"
                                    "class Plain(object):\n    pass\n")
    jobs = discover(package / "sub.py")
    assert [(job.name, job.module, job.search) for job in jobs] == [("Child", "lib.sub", tmp_path.resolve())]


# -- feeding -----------------------------------------------------------------------------------------------
FEEDING = '''
from mxnet import gluon
from mxnet.gluon import nn, rnn


class Dense(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.body = nn.Dense(3, in_units=7)

    def hybrid_forward(self, F, x):
        return self.body(x)


class Conv(gluon.HybridBlock):
    def __init__(self, rank=2, **kwargs):
        super().__init__(**kwargs)
        self.body = [nn.Conv1D, nn.Conv2D, nn.Conv3D][rank - 1](4, 3, in_channels=5)
        self.register_child(self.body)

    def hybrid_forward(self, F, x):
        return self.body(x)


class Embed(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.body = nn.Embedding(11, 4)

    def hybrid_forward(self, F, x):
        return self.body(x)


class Recurrent(gluon.HybridBlock):
    def __init__(self, layout="TNC", **kwargs):
        super().__init__(**kwargs)
        self.body = rnn.LSTM(4, layout=layout, input_size=6)

    def hybrid_forward(self, F, x):
        return self.body(x)


class Lengths(gluon.HybridBlock):
    def hybrid_forward(self, F, x, valid_length, mask, steps):
        return F.SequenceMask(x, sequence_length=steps, use_sequence_length=True) * mask.sum() + valid_length.sum()


class Tokens(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.proj = nn.Dense(3, in_units=6, flatten=False)
        self.types = nn.Embedding(7, 6)

    def hybrid_forward(self, F, x, token_types):
        return self._mix(x, token_types)

    def _mix(self, x, types):
        return self.proj(x) + self.proj(self.types(types))


class Deferred(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.body = nn.Dense(3, flatten=False)
        self._units = 12

    def hybrid_forward(self, F, x, y):
        return self.body(x) + y.sum()
'''


@pytest.fixture
def feeding(tmp_path):
    from hylint.verify.backends import backend
    from hylint.verify.sandbox import load_source

    path = tmp_path / "feeding.py"
    path.write_text(FEEDING)
    with backend("numpy") as mx:
        yield mx, load_source(FEEDING, str(path), path)


def first(module, name, **kwargs):
    from hylint.verify import feed

    block = getattr(module, name)(**kwargs)
    block.initialize()
    return feed.candidates(block, kwargs)[0]


def test_feeding_a_dense_a_convolution_of_each_rank_and_an_embedding(feeding):
    mx, module = feeding
    assert first(module, "Dense") == [(2, 7)]
    assert first(module, "Conv", rank=1) == [(2, 5, 16)]
    assert first(module, "Conv", rank=2) == [(2, 5, 16, 16)]
    assert first(module, "Conv", rank=3) == [(2, 5, 8, 8, 8)]
    embed = first(module, "Embed")[0]
    assert embed["integers"] and (embed["low"], embed["high"]) == (0, 11) and embed["shape"] == (2, 5)


def test_feeding_rnn_layouts(feeding):
    mx, module = feeding
    assert first(module, "Recurrent", layout="TNC") == [(5, 2, 6)]
    assert first(module, "Recurrent", layout="NTC") == [(2, 5, 6)]


def test_lengths_and_masks_are_integers_by_name_or_by_operator(feeding):
    from hylint.verify import feed

    mx, module = feeding
    block = module.Lengths()
    assert feed.integer_roles(block) == {"valid_length": "length", "mask": "mask", "steps": "length"}
    x, valid_length, mask, steps = feed.candidates(block)[0]
    assert valid_length["integers"] and valid_length["shape"] == (x[0],) and valid_length["low"] >= 1
    assert valid_length["high"] <= x[1] + 1
    assert mask["integers"] and (mask["low"], mask["high"]) == (0, 2)
    assert steps["integers"]


def test_each_input_from_the_child_it_is_handed_to(feeding):
    mx, module = feeding
    # x goes to a Dense(in_units=6, flatten=False), token_types through a method to an Embedding(7, ...)
    x, types = first(module, "Tokens")
    assert x == (2, 5, 6)
    assert types["integers"] and (types["low"], types["high"]) == (0, 7) and types["shape"] == (2, 5)


def test_inputs_after_the_first_and_deferred_sizes(feeding):
    mx, module = feeding
    # a deferred Dense(flatten=False): the block's own size, a sequence; the second input like the first
    assert first(module, "Deferred") == [(2, 5, 12), (2, 5, 12)]


# -- the report, through the command line --------------------------------------------------------------------
def test_report_text_finds_the_failing_block_and_never_calls_the_good_one_failing(programs):
    result = verify(["pkg", "--no-cache", "-j", "2"])
    lines = lines_of(result)
    assert result.exit_code == 1, result.output
    assert set(lines) == {"Good", "Stack", "Asnumpy", "Length", "Chain"}
    assert lines["Chain"] == ("pkg/blocks.py::Chain  NOT RUN: could not build: built with no arguments, it is an "
                              "empty container (the code using it adds its children)")
    assert lines["Good"].startswith("pkg/blocks.py::Good  HYBRIDIZES") and "units=5" in lines["Good"]
    assert "FAILS at pkg/blocks.py:18 (graph): MXNetError" in lines["Stack"]
    assert lines["Stack"].count("found by running only")
    assert "FAILS at pkg/blocks.py:23 (trace): NotImplementedForSymbol" in lines["Asnumpy"]
    assert "confirmed by running (HY401 reported there by hylint check)" in lines["Asnumpy"]
    assert "  DIFFERS by max |d| = " in lines["Length"]
    assert result.stdout.splitlines()[-1].startswith("1 of 5 hybridize; 0 fixed, 2 fail, 1 differ, 1 not run (1 could not build)")


@pytest.mark.parametrize("backend", BACKENDS)
def test_both_backends_give_the_same_verdicts(programs, backend):
    result, data = as_json(["pkg", "--no-cache", "-j", "2", "--backend", backend])
    verdicts = {entry["target"].split("::")[1]: (entry["verdict"], (entry.get("hybridized") or {}).get("status"))
                for entry in data}
    assert verdicts == {"Good": ("hybridizes", "ok"), "Stack": ("fails", "error"), "Asnumpy": ("fails", "error"),
                        "Length": ("fails", "different"), "Chain": ("not-run", None)}
    assert {entry["backend"] for entry in data if entry["verdict"] != "not-run"} == {backend}


def test_report_json_keeps_the_entry_and_adds_not_run(programs):
    (programs / "pkg" / "broken.py").write_text(textwrap.dedent('''
        from mxnet import gluon

        class NeedsObject(gluon.HybridBlock):
            def __init__(self, encoder, **kwargs):
                super().__init__(**kwargs)
                self.units = encoder.units

            def hybrid_forward(self, F, x):
                return x
    '''))
    result, data = as_json(["pkg", "--no-cache", "-j", "2"])
    by_name = {entry["target"].split("::")[1]: entry for entry in data}
    assert by_name["NeedsObject"]["verdict"] == "not-run"
    # an object argument with no class of the package to build for it: a small Dense, which lacks `units`
    assert by_name["NeedsObject"]["reason"].startswith(
        "could not build: encoder=Dense(units=4, flatten=False): AttributeError: 'Dense' object has no attribute")
    good = by_name["Good"]
    assert good["verdict"] == "hybridizes" and good["kwargs"] == {"units": 5} and good["inputs"] == [[2, 6]]
    for key in ("eager", "hybridized", "fixes", "fixed", "remaining", "phases", "exit_code"):
        assert key in good  # today's entry of a target
    assert by_name["Asnumpy"]["check_codes"] == ["HY401"] and by_name["Stack"]["check_codes"] == []
    assert result.exit_code == 1


def test_examples_win_and_gate_entries_keep_their_meaning(project):
    (project / "fx.py").write_text("from mxnet.gluon import nn\n\nclass A(nn.HybridBlock):\n"
                                   "    def hybrid_forward(self, F, x):\n        return x.reshape((x.shape[0], -1))\n\n"
                                   "class B(nn.HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x\n\n"
                                   "EXAMPLES = {'A': [(3, 2, 2)]}\n")
    (project / "gated.py").write_text("from mxnet.gluon import nn\n\nclass G(nn.HybridBlock):\n"
                                      "    def hybrid_forward(self, F, x):\n        return x.reshape((x.shape[0], -1))\n")
    (project / "pyproject.toml").write_text('[tool.hylint]\n\n[[tool.hylint.verify]]\ntarget = "gated.py::G"\n'
                                            'inputs = ["4x3x2"]\n')
    result, data = as_json([".", "--no-cache", "-j", "1"])
    by_name = {entry["target"].split("::")[1]: entry for entry in data}
    assert set(by_name) == {"A", "G"}  # B: its module's EXAMPLES does not name it
    assert by_name["A"]["inputs"] == [[3, 2, 2]] and by_name["A"]["how"] == "its module's EXAMPLES"
    assert by_name["G"]["inputs"] == [[4, 3, 2]] and by_name["G"]["verdict"] == "fixed"
    assert by_name["G"]["gate_failure"]  # the gate's meaning: a block that hybridizes only once fixed fails it
    assert result.exit_code == 1


def test_usage_errors_are_exit_2(programs):
    assert verify(["pkg", "--input", "2x3"]).exit_code == 2
    assert verify(["pkg", "--fix"]).exit_code == 2


def test_results_are_cached_by_source(programs):
    first_run = verify(["pkg", "-j", "2"])
    again = verify(["pkg", "-j", "2"])
    assert "5 from the cache" in again.stdout.splitlines()[-1]
    assert [line for line in again.stdout.splitlines()[:-1]] == first_run.stdout.splitlines()[:-1]
    (programs / "pkg" / "blocks.py").write_text(PROGRAMS.replace("* 2) + sum([x])", "* 2) + 0"))
    changed = verify(["pkg", "-j", "2"])
    assert "from the cache" not in changed.stdout.splitlines()[-1]
    assert "Stack  HYBRIDIZES" in changed.stdout


# -- time limits and processes -------------------------------------------------------------------------------
SLEEPY = '''import os, time
from mxnet import gluon


class Sleepy(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        with open(os.path.join({folder!r}, "pid-%d" % os.getpid()), "w"):
            pass
        time.sleep(120)
        return x


class Quick(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        return x + 1
'''


def test_a_block_over_the_time_limit_is_not_run(project):
    (project / "sleepy.py").write_text(SLEEPY.format(folder=str(project)))
    start = time.monotonic()
    result = verify(["sleepy.py", "--no-cache", "--timeout", "3", "-j", "2"])
    lines = lines_of(result)
    assert time.monotonic() - start < 60
    assert lines["Sleepy"] == "sleepy.py::Sleepy  NOT RUN: timed out after 3 s"
    assert "Quick  HYBRIDIZES" in lines["Quick"]
    assert result.exit_code == 0  # a block not run is no failure
    pids = [int(p.name[4:]) for p in project.glob("pid-*")]
    assert pids and not any(_alive(pid) for pid in pids)


def _alive(pid):
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


@pytest.mark.slow
def test_a_killed_run_leaves_no_process_behind(project):
    (project / "sleepy.py").write_text(SLEEPY.format(folder=str(project)))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.Popen([sys.executable, "-m", "hylint", "verify", "sleepy.py", "--no-cache", "-j", "2",
                            "--timeout", "100"], cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not list(project.glob("pid-*")) and time.monotonic() < deadline:
        time.sleep(0.2)
    pids = [int(p.name[4:]) for p in project.glob("pid-*")]
    assert pids, "the block never started"
    assert all(_alive(pid) for pid in pids)
    run.send_signal(signal.SIGKILL)
    run.wait()
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(_alive(pid) for pid in pids)
    run.stdout.close()
    run.stderr.close()


@pytest.mark.slow
def test_the_documented_run_on_gluonnlp_stays_true():
    gluonnlp = pytest.importorskip("gluonnlp")
    site = Path(gluonnlp.__file__).resolve().parents[1]
    run = subprocess.run([sys.executable, "-m", "hylint", "verify", "gluonnlp/model/transformer.py", "--no-cache",
                          "-j", "2"], cwd=site, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True,
                         text=True, timeout=600)
    readme = (ROOT / "README.md").read_text()
    shown = [line for line in readme.split("gluonnlp/model/transformer.py -j 2\n", 1)[1].split("```")[0].splitlines()
             if "HYBRIDIZES" in line or "hybridize;" in line]
    assert len(shown) == 3
    lines = run.stdout.splitlines()
    for line in shown:
        if "hybridize;" in line:
            assert lines[-1].startswith(line.rsplit(" (", 1)[0]), run.stdout
        else:
            assert line in lines, run.stdout
    assert run.returncode == 0


def test_arguments_that_construct_but_cannot_be_fed_give_way_to_the_next(project):
    (project / "wide.py").write_text(textwrap.dedent('''
        from mxnet import gluon

        class Squeeze(gluon.HybridBlock):
            def __init__(self, channels, **kwargs):
                super().__init__(**kwargs)
                self.mid = channels // 16  # a reduction by 16: 4 channels leave none

            def hybrid_forward(self, F, x):
                assert self.mid > 0
                return x * self.mid
    '''))
    result = verify(["wide.py", "--no-cache", "-j", "1"])
    assert lines_of(result)["Squeeze"].startswith("wide.py::Squeeze  HYBRIDIZES") and "channels=16" in result.stdout


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_building_reads_a_class_mxnet_itself_defines(backend_name):
    from hylint.verify import construct
    from hylint.verify.backends import backend

    with backend(backend_name) as mx:
        vision = mx.gluon.model_zoo.vision
        # the model zoo's own __init__ counts (MXNet's bases are left out, not the class itself)
        assert construct.candidates(vision.DenseNet)[0]["block_config"] == [4, 4]  # enumerate(block_config)
        assert construct.candidates(vision.SqueezeNet)[0] == {"version": "1.0"}  # version in ['1.0', '1.1']


class Segmenter:  # its default downloads a backbone's weights
    def __init__(self, nclass, backbone="resnet50", pretrained_base=True, pretrained=False):
        pass


def test_building_never_asks_for_pretrained_weights():
    from hylint.verify import construct

    # a default that would download is set to False in every candidate; one already false is left alone
    found = construct.candidates(Segmenter)
    assert found and all(kwargs["pretrained_base"] is False and "pretrained" not in kwargs for kwargs in found)
    assert found[0] == {"nclass": 4, "pretrained_base": False}


# -- inputs that fit what the block was built for ------------------------------------------------------------
SIZED = '''from mxnet import gluon


class Cascade(gluon.HybridBlock):
    """built for crop_size x crop_size images: its low branch is resized to a fixed crop_size // 8"""
    def __init__(self, crop_size=64, **kwargs):
        super().__init__(**kwargs)
        self.side = crop_size // 8

    def hybrid_forward(self, F, x):
        high = F.Pooling(x, kernel=(8, 8), stride=(8, 8), pool_type="avg")
        low = F.contrib.BilinearResize2D(x, height=self.side, width=self.side)
        return low + high


class Fixed(gluon.HybridBlock):
    """the same with the size written in: nothing names it, a larger input shows the small one's failure"""
    def hybrid_forward(self, F, x):
        high = F.Pooling(x, kernel=(8, 8), stride=(8, 8), pool_type="avg")
        low = F.contrib.BilinearResize2D(x, height=8, width=8)
        return low + high


class Pyramid(gluon.HybridBlock):
    """takes a list of feature maps"""
    def hybrid_forward(self, F, features):
        out = features[-1]
        for i in range(len(features) - 1):
            out = out + features[i]
        return out


class ShapeRead(gluon.HybridBlock):
    """fails hybridized at any size"""
    def hybrid_forward(self, F, x):
        high = F.Pooling(x, kernel=(8, 8), stride=(8, 8), pool_type="avg")
        return F.contrib.BilinearResize2D(high, height=x.shape[2], width=x.shape[3])
'''


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_block_fed_what_it_was_built_for_is_never_called_failing(project, backend):
    # at 8x8 the pooled branch is 1x1 and broadcasts against the other eagerly, which a Symbol does not
    # (MXNet 1.9.1 and the runtime alike); each block fits the input it is built for, or a larger one
    (project / "sized.py").write_text(SIZED)
    result, data = as_json(["sized.py", "--no-cache", "-j", "2", "--backend", backend])
    by_name = {entry["target"].split("::")[1]: entry for entry in data}
    assert {name: entry["verdict"] for name, entry in by_name.items()} == {
        "Cascade": "hybridizes", "Fixed": "hybridizes", "Pyramid": "hybridizes", "ShapeRead": "fails"}
    assert by_name["Cascade"]["input_text"] == "2x3x64x64" and "smaller_input" not in by_name["Cascade"]
    assert by_name["Fixed"]["input_text"] == "2x3x64x64"
    assert by_name["Fixed"]["smaller_input"].startswith("2x3x8x8: MXNetError")
    assert by_name["Pyramid"]["input_text"] == "[2x8, 2x8]"
    assert by_name["ShapeRead"]["hybridized"]["location"]["line"] == 37 and "smaller_input" not in by_name["ShapeRead"]
    text = verify(["sized.py", "--no-cache", "-j", "2", "--backend", backend])
    assert "it failed hybridized at the smaller input 2x3x8x8: MXNetError" in lines_of(text)["Fixed"]
    assert result.exit_code == 1


def test_feeding_reads_the_image_size_and_list_inputs():
    from hylint.verify import feed

    assert feed.built_image_size({"crop_size": 480, "base_size": 520, "height": None}) == (480, 480)
    assert feed.built_image_size({"height": 32, "width": 48, "crop_size": 480}) == (32, 48)
    assert feed.built_image_size({"in_size": (224, 224)}, pairs_only=True) == (224, 224)
    assert feed.built_image_size({"in_size": 64}, pairs_only=True) is None  # units, perhaps
    assert feed.built_image_size({"crop_size": 64}, pairs_only=True) == (64, 64)
    assert feed.built_image_size({"crop_size": True, "in_size": None}) is None

    def uses(body):
        return feed._sequence_use(ast.parse(textwrap.dedent(body)).body[0], "x")

    assert uses("def f(self, F, x):\n    return x[-3]") == 3
    assert uses("def f(self, F, x):\n    return [F.relu(f) for f in x]") == 2
    assert uses("def f(self, F, x):\n    y = self.up(x)\n    return y[len(x) - 1]") == 2
    assert uses("def f(self, F, x):\n    return x * len(x)") is None  # an operand: an array
    assert uses("def f(self, F, x):\n    return F.relu(x[0])") == 2  # indexed, never an operand: a list
    assert uses("def f(self, F, x):\n    return F.relu(x) + x[0]") is None
    assert uses("def f(self, F, x):\n    return x.shape[0] + len(x)") is None
    # reassigned: what follows is about another value (a backbone's output list)
    assert uses("def f(self, F, x):\n    x = self.base(x)\n    return x[-1]") is None
    assert uses("def f(self, F, x):\n    y = x[-1]\n    x = self.up(x)\n    return F.relu(x) + y") == 2
    assert feed.enlarged([(2, 3, 8, 8), {"shape": (2,), "integers": True}]) == [(2, 3, 64, 64),
                                                                                {"shape": (2,), "integers": True}]
    assert feed.enlarged([[(2, 4, 8, 8, 8)]]) == [[(2, 4, 16, 64, 64)]]
    assert feed.enlarged([(2, 3, 224, 224)]) is None and feed.enlarged([(2, 8)]) is None


def test_a_first_result_stands_when_the_second_run_is_out_of_time(monkeypatch, tmp_path):
    from hylint.verify import survey
    from hylint.verify.discover import BlockJob

    def slow_second_run(job, options, linter_for, provisional=None):
        provisional({"target": job.label, "verdict": "fails", "notes": []})
        time.sleep(60)
        return {"target": job.label, "verdict": "hybridizes"}

    monkeypatch.setattr(survey, "run_job", slow_second_run)  # the forked children run it
    job = BlockJob(tmp_path / "a.py", "A", 1)
    start = time.monotonic()
    [(index, result)] = list(survey.run_children([job], survey.SurveyOptions(timeout=2), lambda name: None))
    assert time.monotonic() - start < 30
    assert result["verdict"] == "fails" and "provisional" not in result and result["timed_out"]
    assert result["notes"] == ["a second run on a larger input did not finish within 2 s"]


GROUPED = '''from mxnet import gluon


class Grouped(gluon.HybridBlock):
    """its weight's size is deferred by default; the size must divide into its groups"""
    def __init__(self, groups=16, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        assert in_channels % groups == 0
        self.weight = self.params.get("weight", shape=(in_channels,), allow_deferred_init=True)

    def hybrid_forward(self, F, x, weight):
        return F.broadcast_mul(x, weight.reshape((1, -1, 1, 1))) * x.shape[0]
'''


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_deferred_input_size_is_given_when_the_deferred_call_cannot_run(project, backend):
    # MXNet infers a deferred size by tracing the block with Symbols: `x.shape` fails there even on the eager
    # call, so the block is built with its size given (4 does not divide into 16 groups: 16 does)
    from hylint.verify import construct

    (project / "grouped.py").write_text(GROUPED)
    result = verify(["grouped.py", "--no-cache", "-j", "1", "--backend", backend])
    line = lines_of(result)["Grouped"]
    assert line.startswith("grouped.py::Grouped  FAILS at grouped.py:12 (trace): AttributeError"), line
    assert line.endswith("[input 2x16x16x16; in_channels=16]")

    class Sized:
        def __init__(self, units, in_units=0, in_channels=None, use_bias=True):
            pass

    found = construct.candidates(Sized)
    assert found[0] == {"units": 4}
    assert found[-4:] == [{"units": 4, "in_units": size, "in_channels": size} for size in (4, 16, 32, 64)]


ZOO = '''from mxnet import gluon
from mxnet.gluon import nn


class Net(gluon.HybridBlock):
    """a model zoo's network: its configuration no guess builds (three stages of channel lists)"""
    def __init__(self, channels, in_size=(1024, 2048), classes=10, **kwargs):
        super().__init__(**kwargs)
        assert len(channels) == 3 and all(len(stage) == 2 for stage in channels)
        self.in_size = in_size
        self.body = nn.HybridSequential()
        for stage in channels:
            for width in stage:
                self.body.add(nn.Conv2D(width, 3, padding=1))
        self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        y = self.body(x)
        return self.output(y) * x.shape[0]


def get_net(model_name=None, pretrained=False, **kwargs):
    channels = [[4, 4], [8, 8], [8, 16]]
    net = Net(channels=channels, **kwargs)
    if pretrained:
        raise RuntimeError("a download")
    return net


def net_small(pretrained=True, **kwargs):
    return get_net(model_name="net_small", pretrained=pretrained, **kwargs)
'''


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_block_no_guess_builds_is_built_by_the_package_function_that_builds_it(project, backend):
    from hylint.verify import backends, construct, feed

    (project / "zoo").mkdir()
    (project / "zoo" / "__init__.py").write_text("")
    (project / "zoo" / "net.py").write_text(ZOO)
    result = verify(["zoo", "--no-cache", "-j", "1", "--backend", backend])
    line = lines_of(result)["Net"]
    # the zoo's entry first (its pretrained set to False), fed a common image: its in_size is too large to hold
    assert line.startswith("zoo/net.py::Net  FAILS at zoo/net.py:19 (trace): AttributeError"), line
    assert line.endswith("[input 2x3x16x16; built by net_small(pretrained=False)]")
    sys.path.insert(0, str(project))
    try:
        with backends.backend(backend):  # `import mxnet` in zoo/net.py: the runtime where MXNet is not installed
            import zoo.net as module

            assert [(f.__name__, kwargs) for f, kwargs in construct.factories(module.Net, module)] == [
                ("net_small", {"pretrained": False}), ("get_net", {})]
    finally:
        sys.path.remove(str(project))
        sys.modules.pop("zoo.net", None)
        sys.modules.pop("zoo", None)
    # a loose size (in_size) small enough is tried first, the other shapes after it
    assert feed.built_image_size({"in_size": (1024, 2048)}) is None
    assert feed._built_size({"in_size": (64, 64)}) == ((64, 64), False)
    assert feed._built_size({"crop_size": 480}) == ((480, 480), True)


def test_a_size_named_output_is_a_size_not_a_switch():
    from hylint.verify import construct

    # `output_dim=self._in_unit` (gluonnlp's sampled blocks) made `in_unit` a bool, and the weight (10, False)
    assert [construct.guess_by_name(n) for n in ("output_dim", "output_size", "output_units", "output_channels")] \
        == [4, 4, 4, 8]
    assert construct.guess_by_name("output_attention") is False and construct.guess_by_name("output_all") is False
