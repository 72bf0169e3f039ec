"""The trace reach in a lint run: code a trace reaches from elsewhere in the package is checked as hybrid code.

Each package is written from one of issue 22's patterns (an object holding F in another module, a nested
function, a function handed to a HybridLambda, a class built in the trace whose __init__ reads .shape), checked
through the CLI (in process with CliRunner, and once as a real subprocess), and through check_files.
"""
from __future__ import annotations

import ast
import inspect
import json
import os
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from clirun import check as check_subprocess
from hylint.batch.parallel import check_files
from hylint.batch.reach import ReachIndex, package_root
from hylint.cli import main
from hylint.config import Config
from hylint.report import FORMATS
from hylint.selection import RuleSelection

DIST = '''
import mxnet as mx


def getF(var):
    if isinstance(var, mx.nd.NDArray):
        return mx.nd
    return mx.sym


class Categorical:
    def __init__(self, probs, F=None):
        self.F = F if F else getF(probs)
        self.probs = probs
        self.num_cats = probs.shape[-1]

    def log_prob(self, x):
        F = self.F
        if F.sum(x) > 0:
            x = x + 1
        return F.log(F.pick(self.probs, x))

    def entropy(self):
        return self.probs.shape


def not_traced(x):
    return x.shape
'''

MODEL = '''
from mxnet.gluon import HybridBlock, nn

from .dist import Categorical


def act(F, x):
    if F.sum(x) > 0:
        return x
    return -x


class Model(HybridBlock):
    def __init__(self):
        super().__init__()
        self.f = nn.HybridLambda(act)

    def hybrid_forward(self, F, x, y):
        distr = Categorical(F.softmax(x))

        def step(z):
            if z.shape[-1] > 0:
                return z
            return z

        return self.f(step(distr.log_prob(y)))
'''

# a distribution chosen at run time (a constructor argument): its methods are found by name only, a guess
GUESSED = '''
from mxnet.gluon import HybridBlock


class Output:
    def distribution(self, x):
        return x.shape


class Guessed(HybridBlock):
    def __init__(self, output):
        super().__init__()
        self.output = output

    def hybrid_forward(self, F, x):
        return self.output.distribution(x)
'''


def write_package(root: Path, **modules: str) -> Path:
    package = root / "pkg"
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text("")
    for name, source in modules.items():
        (package / f"{name}.py").write_text(textwrap.dedent(source))
    return package


def import_fresh(root: Path, module: str):
    """``module`` of the package ``write_package`` wrote under ``root``, imported anew (another test's
    ``pkg`` may be in sys.modules)."""
    import importlib
    import sys
    for name in [m for m in sys.modules if m == "pkg" or m.startswith("pkg.")]:
        del sys.modules[name]
    sys.path.insert(0, str(root))
    try:
        return importlib.import_module(module)
    finally:
        sys.path.remove(str(root))


def run(args):
    kwargs = {"mix_stderr": False} if "mix_stderr" in inspect.signature(CliRunner.__init__).parameters else {}
    return CliRunner(**kwargs).invoke(main, ["check"] + args, catch_exceptions=False)


def diagnostics(args):
    result = run(["--output-format", "json"] + args)
    return sorted((Path(d["filename"]).name, d["location"]["row"], d["code"], d["message"])
                  for d in json.loads(result.stdout))


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_package(tmp_path, dist=DIST, model=MODEL)
    return tmp_path


def test_reached_code_is_checked_with_the_chain(project):
    found = diagnostics(["--no-cache", "pkg"])
    assert [(name, row, code) for name, row, code, _ in found] == [
        ("dist.py", 15, "HY201"),   # Categorical(...).__init__ reads probs.shape: a class built in the trace
        ("dist.py", 19, "HY802"),   # `F = self.F` in another module's object: if F.sum(x) > 0
        ("model.py", 8, "HY802"),   # a function handed to HybridLambda
        ("model.py", 22, "HY201"),  # a nested function called in the trace
    ]
    messages = {(name, row): message for name, row, _, message in found}
    assert messages[("dist.py", 15)].endswith("(via Categorical)")
    assert messages[("dist.py", 19)].endswith("(via distr.log_prob)")
    assert messages[("model.py", 22)].endswith("(via step)")
    assert "(via self.f)" in messages[("model.py", 8)]
    # the whole chain, from its root, in the help (the full format's help line, the editor's hover)
    helps = {(Path(d["filename"]).name, d["location"]["row"]): d["help"]
             for d in json.loads(run(["--output-format", "json", "--no-cache", "pkg"]).stdout)}
    assert "Reached from Model.hybrid_forward via Categorical." in helps[("dist.py", 15)]
    assert "Reached from Model.hybrid_forward via step." in helps[("model.py", 22)]


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_the_chain_shows_in_every_output_format(project, fmt):
    out = run(["--no-cache", "--output-format", fmt, "pkg"]).stdout
    assert "(via distr.log_prob)" in out
    if fmt in ("full", "json", "json-lines", "sarif", "github", "junit"):  # the formats that show the help
        assert "Reached from Model.hybrid_forward via distr.log_prob" in out


def test_naming_one_file_gives_what_the_whole_package_gives(project):
    whole = [d for d in diagnostics(["--no-cache", "pkg"]) if d[0] == "dist.py"]
    alone = diagnostics(["--no-cache", "pkg/dist.py"])
    assert alone == whole and alone


@pytest.mark.parametrize("cache", [["--no-cache"], []])
def test_stdin_named_as_a_module_gives_what_the_file_gives(project, cache):
    """An editor piping its buffer (`--stdin-filename pkg/dist.py -`) gets the package's reach, read from the
    files on disk, as a run over the folder does; stdin without a name stays a lone module."""
    whole = [d[1:] for d in diagnostics(["--no-cache", "pkg"]) if d[0] == "dist.py"]
    source = (project / "pkg" / "dist.py").read_text()
    kwargs = {"mix_stderr": False} if "mix_stderr" in inspect.signature(CliRunner.__init__).parameters else {}
    named = CliRunner(**kwargs).invoke(main, ["check", "--output-format", "json", *cache, "--stdin-filename",
                                              "pkg/dist.py", "-"], input=source, catch_exceptions=False)
    assert sorted((d["location"]["row"], d["code"], d["message"]) for d in json.loads(named.stdout)) == whole
    assert len(whole) == 2
    unnamed = CliRunner(**kwargs).invoke(main, ["check", "--output-format", "json", "--no-cache", "-"],
                                         input=source, catch_exceptions=False)
    assert json.loads(unnamed.stdout) == []


def test_code_not_reached_and_guessed_reach_raise_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_package(tmp_path, dist=DIST, guessed=GUESSED)
    # nothing builds Categorical in a trace here; Output.distribution is reached by its name only
    assert diagnostics(["--no-cache", "pkg"]) == []


def test_fixes_in_reached_code_use_the_functions_own_f(project):
    """Issue 42: a fix in code the trace reaches writes the name the function gives F (`act(F, x)` handed to a
    HybridLambda); where no name holds F at the line (`__init__(self, probs, F=None)`), there is no fix."""
    result = run(["--no-cache", "--output-format", "json", "--select", "ALL", "pkg"])
    reached = [d for d in json.loads(result.stdout) if "(via " in d["message"]]
    fixed = {(Path(d["filename"]).name, d["location"]["row"]): d["fix"] for d in reached if d["fix"]}
    assert ("model.py", 8) in fixed and fixed[("model.py", 8)]["edits"][0]["content"].startswith("return F.where(")
    assert not any(name == "dist.py" and row == 15 for name, row in fixed)  # `F=None` in __init__: no F to use
    assert all(fix["applicability"] == "unsafe" for fix in fixed.values())


def test_subprocess_and_check_files(project):
    process = check_subprocess(["pkg"], "--no-cache", "--output-format", "concise", cwd=project)
    assert process.code == 1
    assert "pkg/dist.py:19:12: HY802" in process.out and "via distr.log_prob" in process.out
    files = sorted((project / "pkg").glob("*.py"))
    config = Config()
    selection = RuleSelection(config.select, config.extend_select, config.ignore, config.per_file_ignores, project)
    outcomes = check_files(files, "lint", False, selection.linter, jobs=2,
                           reach_for=ReachIndex().for_file)
    assert sorted((Path(o.filename).name, d.start[0]) for o in outcomes for d in o.diagnostics) == [
        ("dist.py", 15), ("dist.py", 19), ("model.py", 8), ("model.py", 22)]


def age(path: Path, seconds: float = 10) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns - int(seconds * 1e9)))


def test_editing_another_file_rechecks_the_file_it_reaches(project):
    for path in (project / "pkg").glob("*.py"):
        age(path)
    cold = diagnostics(["pkg"])
    assert any(name == "dist.py" and row == 19 for name, row, _, _ in cold)
    assert list((project / ".hylint_cache").rglob("*.reach"))  # the package's reach, kept for warm runs
    assert diagnostics(["pkg"]) == cold  # warm
    # model.py no longer calls log_prob: dist.py did not change, its diagnostics do
    model = project / "pkg" / "model.py"
    model.write_text(model.read_text().replace("step(distr.log_prob(y))", "step(y)"))
    age(model)
    warm = diagnostics(["pkg"])
    assert [(n, r) for n, r, _, _ in warm if n == "dist.py"] == [("dist.py", 15)]
    assert warm == diagnostics(["--no-cache", "pkg"])


def test_package_root_is_the_top_of_the_init_chain(tmp_path):
    write_package(tmp_path, dist=DIST)
    (tmp_path / "pkg" / "sub").mkdir()
    (tmp_path / "pkg" / "sub" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "sub" / "m.py").write_text("")
    (tmp_path / "lone.py").write_text("")
    assert package_root(tmp_path / "pkg" / "sub" / "m.py") == (tmp_path / "pkg", True)
    assert package_root(tmp_path / "lone.py") == (tmp_path / "lone.py", False)


LAZY = '''
from mxnet.gluon import HybridBlock, nn


class Lazy(HybridBlock):
    def __init__(self):
        super().__init__()
        self._gen = None

    @property
    def gen(self):
        if self._gen is None:
            self._gen = nn.Dense(2)
        return self._gen

    def hybrid_forward(self, F, x):
        return self.gen(x)
'''


def test_state_rules_do_not_judge_reached_methods(tmp_path, monkeypatch):
    # a child built lazily behind a property: a cache eager runs keep too, not trace state (HY807)
    monkeypatch.chdir(tmp_path)
    write_package(tmp_path, lazy=LAZY)
    assert diagnostics(["--no-cache", "pkg"]) == []


# the same constructor argument, annotated: every output class of the package may be passed, and the class
# each one names in its body (`distr_cls`) is built in the trace (gluonts' DistributionOutput)
TYPED = '''
import numpy as np
from mxnet.gluon import HybridBlock

from .dist import getF


class Normal:
    def __init__(self, mu, sigma):
        self.mu, self.sigma = mu, sigma

    @property
    def F(self):
        return getF(self.mu)

    def log_prob(self, x):
        F = self.F
        return F.log(self.sigma) + F.log(F.sqrt(2 * F.full(1, np.pi)))


class Output:
    distr_cls: type = None

    def distribution(self, args):
        return self.distr_cls(*args)


class NormalOutput(Output):
    distr_cls: type = Normal


class Typed(HybridBlock):
    def __init__(self, output: Output):
        super().__init__()
        self.output = output

    def hybrid_forward(self, F, x, y):
        return self.output.distribution((x, y)).log_prob(x)
'''


def test_an_annotated_constructor_argument_is_followed_for_each_subclass(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_package(tmp_path, dist=DIST, typed=TYPED)
    found = diagnostics(["--no-cache", "pkg"])
    assert [(name, row, code) for name, row, code, _ in found] == [("typed.py", 18, "HY101")]
    assert found[0][3].endswith("(via self.output.distribution((x, y)).log_prob)")


@pytest.mark.mxnet
def test_an_annotated_constructor_argument_fails_hybridized_on_mxnet(tmp_path):
    """The pattern above on MXNet 1.9.1 (issue 43 item 10, gluonts' distribution outputs): a block given an
    output object whose distribution class adds `(B, T)` and `(1,)` runs eagerly and fails hybridized."""
    mx = pytest.importorskip("mxnet")
    write_package(tmp_path, dist=DIST, typed=TYPED)
    typed = import_fresh(tmp_path, "pkg.typed")
    block = typed.Typed(typed.NormalOutput())
    x, y = mx.nd.array([[0.5, 1.5, 2.0]]), mx.nd.array([[1.0, 2.0, 0.5]])
    assert block(x, y).shape == (1, 3)  # eagerly `(1, 3) + (1,)` broadcasts
    block.hybridize()
    with pytest.raises(mx.base.MXNetError, match="plus"):
        block(x, y)


def test_lone_modules_of_one_folder_stay_packages_of_their_own(tmp_path):
    # the package of a folder is looked up once; a folder without __init__.py holds one package per module
    helper = '''
from mxnet.gluon import HybridBlock


def helper(F, x):
    if x.shape[0] > 1:
        return x
    return x


class Net(HybridBlock):
    def hybrid_forward(self, F, x):
        return helper(F, x)
'''
    write_package(tmp_path, dist=DIST, model=MODEL)
    (tmp_path / "a.py").write_text(helper)
    (tmp_path / "b.py").write_text(helper.replace("helper", "other"))
    index = ReachIndex()
    for path in [tmp_path / "pkg" / "model.py", tmp_path / "a.py", tmp_path / "pkg" / "dist.py", tmp_path / "b.py"]:
        index.for_file(path)
    assert set(index.packages) == {tmp_path / "pkg", tmp_path / "a.py", tmp_path / "b.py"}
    assert [entry[0] for entry in index.for_file(tmp_path / "a.py")] == ["helper"]
    assert [entry[0] for entry in index.for_file(tmp_path / "b.py")] == ["other"]
    assert index.for_file(tmp_path / "pkg" / "dist.py") == ReachIndex().for_file(tmp_path / "pkg" / "dist.py")


def test_the_collector_is_paused_while_a_package_is_analysed_and_restored_after(tmp_path, monkeypatch):
    import gc

    from hylint.batch import reach

    seen = []
    compute = reach._compute
    monkeypatch.setattr(reach, "_compute", lambda *args: seen.append(gc.isenabled()) or compute(*args))
    write_package(tmp_path, dist=DIST, model=MODEL)
    was = gc.isenabled()
    try:
        gc.enable()
        assert ReachIndex().for_file(tmp_path / "pkg" / "dist.py")
        assert seen == [False] and gc.isenabled()
        gc.disable()  # a caller that runs without the collector keeps running without it
        ReachIndex().for_file(tmp_path / "pkg" / "model.py")
        assert seen == [False, False] and not gc.isenabled()
    finally:
        (gc.enable if was else gc.disable)()


# a resizing child in one module, the block handing it a size read from its input in another
RESIZE = '''
from mxnet.gluon import HybridBlock


class Resample(HybridBlock):
    def __init__(self, factor, **kwargs):
        super(Resample, self).__init__(**kwargs)
        self.factor = factor

    def hybrid_forward(self, F, x, size=None):
        if size is not None or self.factor == 1:
            out = self.factor_size(x) if size is None else size
            return F.contrib.BilinearResize2D(x, height=out[0], width=out[1])
        return F.UpSampling(x, scale=self.factor, sample_type="nearest")
'''
SEGMENTER = '''
from mxnet.gluon import HybridBlock, nn

from .layers import Resample as Up


class Segmenter(HybridBlock):
    def __init__(self, **kwargs):
        super(Segmenter, self).__init__(**kwargs)
        self.body = nn.Conv2D(4, 3, strides=2, padding=1)
        self.up = Up(4)

    def hybrid_forward(self, F, img):
        hw = img.shape[2:]
        return self.up(self.body(img), hw)
'''


def test_a_resizing_child_of_another_module_is_read_through_the_reach(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_package(tmp_path, layers=RESIZE, seg=SEGMENTER)
    for path in (tmp_path / "pkg").glob("*.py"):
        age(path)
    assert run(["--no-cache", "--fix", "--unsafe-fixes", "--diff", "pkg/seg.py"]).stdout.count(
        "+        return F.contrib.BilinearResize2D(self.body(img), img, mode='like')") == 1
    assert "hidden fix" in run(["pkg/seg.py"]).stdout  # a cached result, keyed on the reach
    # the child no longer resizes to the size it is given: the cached result of seg.py is not reused
    layers = tmp_path / "pkg" / "layers.py"
    layers.write_text(layers.read_text().replace("height=out[0]", "height=out[0] * 2"))
    age(layers)
    assert "hidden fix" not in run(["pkg/seg.py"]).stdout
    assert "--- a/" not in run(["--no-cache", "--fix", "--unsafe-fixes", "--diff", "pkg/seg.py"]).stdout


def test_packages_computed_at_once_give_what_one_after_another_gives(tmp_path):
    """`ReachIndex.prefetch` computes several packages' reach in forked processes: the same summaries as
    `for_file` computing them one by one, no process left behind, and a lone package left to for_file."""
    import multiprocessing

    files = []
    for name in ("one", "two", "three"):
        package = tmp_path / name / "pkg"
        write_package(tmp_path / name, dist=DIST, model=MODEL, guessed=GUESSED)
        files += sorted(package.glob("*.py"))
    one_by_one = ReachIndex()
    expected = {path: one_by_one.for_file(path) for path in files}
    assert sum(bool(plain) for plain in expected.values()) >= 6  # dist.py and model.py of each package
    prefetched = ReachIndex()
    prefetched.prefetch(files, 2)
    assert len(prefetched.packages) == 3
    assert not multiprocessing.active_children()
    assert {path: prefetched.for_file(path) for path in files} == expected
    alone = ReachIndex()
    alone.prefetch(files[:1], 2)
    assert not alone.packages
    serial = ReachIndex()
    serial.prefetch(files, 1)
    assert not serial.packages


def _preparer(linter, calls):
    """A ``ReachIndex`` preparer factory making the linter's regions (as check.py's, without the cache)."""
    def factory():
        calls.append(os.getpid())

        def prepare(path, raw, tree, reach):
            return linter.prepare(raw.decode("utf-8"), tree, reach)
        return prepare
    return factory


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_reach_parse_gives_the_checked_files_their_regions(tmp_path, monkeypatch, jobs):
    """The files to check get their regions from the tree the reach parsed (computed in this process, or in
    the forked ones of a prefetch): what the linter would make of them itself, so the lint parses no tree
    again and reports the same."""
    from hylint.analysis.reach import FileReach
    from hylint.lint import engine
    from hylint.lint.regions import reduce_source

    files = []
    for name in ("one", "two"):
        write_package(tmp_path / name, dist=DIST, model=MODEL, guessed=GUESSED)
        files += sorted((tmp_path / name / "pkg").glob("*.py"))
    selection = RuleSelection(Config().select, [], [], {}, tmp_path)
    linter, calls = selection.linter(), []
    wanted = [path for path in files if path.name != "guessed.py"]
    index = ReachIndex(None, _preparer(linter, calls))
    index.prefetch(wanted, jobs)
    expected = check_files(files, "lint", False, selection.linter, jobs=1, reach_for=ReachIndex().for_file)
    parsed = []
    monkeypatch.setattr(engine, "python_tree", lambda source: parsed.append(source) or engine.ast.parse(source))
    outcomes = check_files(files, "lint", False, selection.linter, jobs=1, reach_for=index.for_file,
                           prepared_for=index.prepared_for)
    assert calls == [os.getpid()]  # the factory runs once, here (forked processes inherit what it built)
    assert [(o.filename, o.diagnostics) for o in outcomes] == [(o.filename, o.diagnostics) for o in expected]
    assert any(o.diagnostics for o in outcomes)
    # every file to check that the linter reduced had its regions from the reach's parse; guessed.py was
    # not among them (and a file the reach does not parse, as one without hybrid_forward, would not be)
    assert parsed and set(parsed) <= {path.read_text() for path in files if path not in wanted}
    for path in wanted:  # given once: a second lint of the file makes its own
        assert index.prepared_for(path) is None
    again = ReachIndex(None, _preparer(linter, []))
    again.prefetch(wanted, jobs)
    for path in files:
        plain = again.for_file(path)  # as check_files asks: the reach first (serially, it is computed then)
        made = again.prepared_for(path)
        if path.name in ("guessed.py", "__init__.py"):
            assert made is None  # not to be checked / left out by the prefilter
            continue
        source = path.read_text()
        qualnames = [f.qualname for f in FileReach.from_plain(plain or ()).functions]
        assert made == engine.Reduction(engine._digest(source), linter.reads,
                                        reduce_source(source, linter.reads, None, qualnames))


def test_regions_made_for_another_text_are_ignored():
    """A file changed between the reach's parse and its lint: the lint makes its own regions."""
    from hylint.lint.engine import Reduction

    selection = RuleSelection(Config().select, [], [], {}, Path.cwd())
    linter = selection.linter()
    source = "from mxnet.gluon import HybridBlock\n\n\nclass Net(HybridBlock):\n" \
             "    def hybrid_forward(self, F, x):\n        return x.shape[0]\n"
    expected = linter.lint_source(source, "model.py").diagnostics
    assert expected
    made = linter.prepare(source, ast.parse(source))
    assert linter.lint_source(source, "model.py", reduction=made).diagnostics == expected
    wrong = Reduction(b"0" * 16, linter.reads, "")  # would lint nothing at all
    assert linter.lint_source(source, "model.py", reduction=wrong).diagnostics == expected
    # made by a linter whose rules read other regions (per-file-ignores): not this linter's to use
    other = RuleSelection(Config().select, [], ["HY907", "HY908"], {}, Path.cwd()).linter()
    assert other.reads != linter.reads
    assert linter.lint_source(source, "model.py", reduction=other.prepare(source, ast.parse(source))._replace(
        reduced="")).diagnostics == expected


def test_a_package_lists_its_files_as_rglob_would(tmp_path):
    from hylint.batch.reach import _python_files

    package = write_package(tmp_path, model=MODEL)
    (package / "sub").mkdir()
    (package / "sub" / "a.py").write_text("")
    (package / "sub" / ".hidden.py").write_text("")
    (package / "sub" / "notes.txt").write_text("")
    (package / "odd.py").mkdir()  # a folder so named: listed, left to the stat
    (package / "odd.py" / "inner.py").write_text("")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "b.py").write_text("")
    (package / "linked").symlink_to(outside, target_is_directory=True)  # not entered
    (package / "linked.py").symlink_to(outside / "b.py")
    assert _python_files(package) == [str(path) for path in sorted(package.rglob("*.py"))]
    assert str(package / "linked" / "b.py") not in _python_files(package)
    # Path's order is by parts: "a-b.py" sorts after the folder "a" ("a" < "a-b.py"), though "-" < "/"
    (package / "a").mkdir()
    (package / "a" / "x.py").write_text("")
    (package / "a-b.py").write_text("")
    assert _python_files(package) == [str(path) for path in sorted(package.rglob("*.py"))]


def test_an_edited_file_gets_its_regions_from_the_reach_and_the_others_none(project, monkeypatch):
    """A run after one file of a package changed computes the package's reach again: the changed file's regions
    come from that parse; the files whose results are cached for them as they are get none made."""
    from hylint.lint import engine

    for path in (project / "pkg").glob("*.py"):
        age(path)
    diagnostics(["-j", "1", "pkg"])  # cold: results cached
    model = project / "pkg" / "model.py"
    model.write_text(model.read_text().replace("return self.f(step", "y = y + 0\n        return self.f(step"))
    age(model)
    parsed, prepared = [], []
    monkeypatch.setattr(engine, "python_tree", lambda source: parsed.append(source) or engine.ast.parse(source))
    real_prepare = engine.Linter.prepare
    monkeypatch.setattr(engine.Linter, "prepare",
                        lambda self, source, tree, reach=None: prepared.append(source) or real_prepare(self, source, tree, reach))
    warm = diagnostics(["-j", "1", "pkg"])
    assert prepared == [model.read_text()]
    assert not parsed
    assert warm == diagnostics(["--no-cache", "-j", "1", "pkg"])


# methods handed to MXNet by the block itself: a HybridLambda built around one in __init__, the body of a loop
BOUND = '''
import mxnet as mx
from mxnet.gluon import HybridBlock, nn


class Net(HybridBlock):
    def __init__(self):
        super().__init__()
        self.fn = nn.HybridLambda(self._inner)

    def _inner(self, F, x):
        return F.array(x.asnumpy()) if F is mx.nd else x.asnumpy()

    def hybrid_forward(self, F, x):
        return self.fn(x) * 2


class Loop(HybridBlock):
    def _step(self, x, states):
        n = x.shape[0]
        return x * n, states

    def hybrid_forward(self, F, data, state):
        out, _ = F.contrib.foreach(self._step, data, [state])
        return out
'''


def test_methods_handed_to_a_block_or_a_loop_are_reached(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_package(tmp_path, bound=BOUND)
    found = diagnostics(["--no-cache", "pkg"])
    assert [(row, code) for _, row, code, _ in found] == [(12, "HY401"), (20, "HY201")]
    assert found[0][3].endswith("(via self.fn)") and found[1][3].endswith("(via F.contrib.foreach(<_step>))")
    helps = [d["help"] for d in sorted(json.loads(run(["--output-format", "json", "--no-cache", "pkg"]).stdout),
                                       key=lambda d: d["location"]["row"])]
    assert helps[0].endswith("Reached from Net.hybrid_forward via self.fn. `_inner` leaves the graph here, "
                             "so the block cannot hybridize.")
    assert helps[1].endswith("Reached from Loop.hybrid_forward via F.contrib.foreach(<_step>).")


def test_methods_handed_to_a_block_or_a_loop_fail_hybridized_on_mxnet():
    mx = pytest.importorskip("mxnet")
    namespace: dict = {}
    exec(compile(BOUND, "bound.py", "exec"), namespace)
    for block, args, error in ((namespace["Net"](), (mx.nd.ones((2, 3)),), "asnumpy is not implemented"),
                               (namespace["Loop"](), (mx.nd.ones((4, 2, 3)), mx.nd.ones((2, 3))), "shape")):
        block.initialize()
        assert block(*args).shape == args[0].shape  # eagerly it runs
        block.hybridize()
        with pytest.raises(Exception, match=error):
            block(*args)


# lambdas handed to a HybridLambda in __init__: the first reads the input's shape, the second is clean
LAMBDAS = '''
from mxnet.gluon import HybridBlock, nn


class Lam(HybridBlock):
    def __init__(self, k):
        super().__init__()
        self.k = k
        self.act = nn.HybridLambda(lambda F, x: F.reshape(x, (x.shape[0], -1)) * self.k)
        self.other = nn.HybridLambda(lambda F, x: F.relu(x))

    def hybrid_forward(self, F, x):
        return self.act(x) + F.flatten(self.other(x))


class Loop(HybridBlock):
    def hybrid_forward(self, F, x, s):
        out, _ = F.contrib.foreach(lambda d, st: (d * d.shape[0], st), x, [s])
        return out
'''


def test_lambdas_handed_to_a_block_are_checked(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_package(tmp_path, lam=LAMBDAS)
    for selection in ([], ["--select", "ALL"]):
        found = diagnostics(["--no-cache", *selection, "pkg"])
        assert [(row, code) for _, row, code, _ in found] == [(9, "HY201"), (18, "HY201")]
        assert found[0][3].endswith("(via self.act)")
        assert found[1][3].endswith("(via F.contrib.foreach(<lambda>))")
    result = run(["--no-cache", "--output-format", "json", "pkg"])
    for d, code in zip(json.loads(result.stdout), ("x.shape", "d.shape")):
        line = LAMBDAS.splitlines()[d["location"]["row"] - 1]
        assert line[d["location"]["column"] - 1:d["end_location"]["column"] - 1] == code


def test_lambdas_handed_to_a_block_fail_hybridized_on_mxnet():
    mx = pytest.importorskip("mxnet")
    namespace: dict = {}
    exec(compile(LAMBDAS, "lam.py", "exec"), namespace)
    for block, args, shape in ((namespace["Lam"](2), (mx.nd.ones((2, 3, 4)),), (2, 12)),
                               (namespace["Loop"](), (mx.nd.ones((4, 2, 3)), mx.nd.ones((2, 3))), (4, 2, 3))):
        block.initialize()
        assert block(*args).shape == shape  # eagerly it runs
        block.hybridize()
        with pytest.raises(AttributeError, match="'Symbol' object has no attribute 'shape'"):
            block(*args)


# gluonts transformed_distribution_output.py: a lambda handed to Python's map() in reached code gets what map
# passes it (tuples of NumPy integers here), not tensors
MAPPED = '''
import numpy as np
from mxnet.gluon import HybridBlock


def split(args, dims):
    ends = np.cumsum([0] + dims)
    return list(map(lambda ixs: args[ixs[0]:ixs[1]], zip(ends, ends[1:])))


class Net(HybridBlock):
    def hybrid_forward(self, F, x, y):
        first, second = split([x, y], [1, 1])
        return F.concat(*first, *second, dim=0)
'''


def test_a_lambda_handed_to_map_gets_no_tensors(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_package(tmp_path, mapped=MAPPED)
    assert diagnostics(["--no-cache", "--select", "ALL", "pkg"]) == []


def test_a_lambda_handed_to_map_runs_hybridized_on_mxnet():
    mx = pytest.importorskip("mxnet")
    namespace: dict = {}
    exec(compile(MAPPED, "mapped.py", "exec"), namespace)
    block = namespace["Net"]()
    block.initialize()
    x, y = mx.nd.ones((2, 3)), mx.nd.zeros((2, 3))
    eager = block(x, y).asnumpy()
    block.hybridize()
    assert (block(x, y).asnumpy() == eager).all()


# autogluon searcher/bayesopt/gpmxnet: a guard helper of another module, tested with `and`; the branches
# it guards run eagerly only
GUARD_HELPER = '''
def mxnet_is_ndarray(F):
    return F.__name__ == 'mxnet.ndarray'
'''
GUARDED = '''
from mxnet.gluon import HybridBlock

from .helpers import mxnet_is_ndarray


def likelihood(F, pred, record=None):
    if mxnet_is_ndarray(F):
        assert pred.ndim == 2 and pred.shape[1] == 1
    if record is not None and mxnet_is_ndarray(F):
        record['pred'] = pred.asnumpy()
    if F.__name__ != 'mxnet.symbol':
        record = pred.shape
    return F.sum(F.square(pred))


class Net(HybridBlock):
    def hybrid_forward(self, F, x):
        return likelihood(F, x) + (x.shape[0] if not mxnet_is_ndarray(F) else 0)
'''


def test_guard_helpers_of_the_package_mark_eager_only_code(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_package(tmp_path, helpers=GUARD_HELPER, guarded=GUARDED)
    # only the last line's `x.shape`, on the side that runs in the trace, is flagged
    found = diagnostics(["--no-cache", "pkg"])
    assert [(name, row, code) for name, row, code, _ in found] == [("guarded.py", 19, "HY201")]


def test_guard_helpers_tell_the_modes_apart_on_mxnet():
    mx = pytest.importorskip("mxnet")
    namespace: dict = {}
    exec(compile(GUARD_HELPER, "helpers.py", "exec"), namespace)
    assert namespace["mxnet_is_ndarray"](mx.nd) and not namespace["mxnet_is_ndarray"](mx.sym)
    assert (mx.nd.__name__, mx.sym.__name__) == ("mxnet.ndarray", "mxnet.symbol")


# autogluon: a method found by name only (a guess) hands a function to code outside the package; the function
# is as uncertain as the guess (it was made certain, and 51 diagnostics followed it into tabular code)
HANDED_BY_A_GUESS = ("\nimport mxnet as mx\n\n\ndef step(data, states):\n    return data * data.shape[0], states\n"
                     + GUESSED.replace("return x.shape", "return mx.nd.contrib.foreach(step, x, [])[0]"))


def test_a_function_handed_over_by_a_guess_is_a_guess(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_package(tmp_path, guessed=HANDED_BY_A_GUESS)
    assert diagnostics(["--no-cache", "--select", "ALL", "pkg"]) == []


# gluonts' LogitNormal (mx/distribution/logit_normal.py:65, :95): a distribution object holding F, built and
# used in the trace; its log_prob reads `F = self.F`
LOGIT_DIST = '''
import numpy as np
import mxnet as mx


def getF(var):
    return mx.nd if isinstance(var, mx.nd.NDArray) else mx.sym


class LogitNormal:
    def __init__(self, mu, sigma, F=None):
        self.F = F if F else getF(mu)
        self.mu = mu
        self.sigma = sigma

    def log_prob(self, x):
        F = self.F
        x = F.clip(x, 1e-3, 1 - 1e-3)
        log_prob = -1.0 * (
            F.log(self.sigma)
            + F.log(F.sqrt(2 * F.full(1, np.pi)))
            + F.log(x)
        )
        return log_prob

    def spread(self):
        F = self.F
        return self.sigma * F.sqrt(F.full(1, 2))
'''
LOGIT_MODEL = '''
from mxnet.gluon import HybridBlock
from .dist import LogitNormal


class Model(HybridBlock):
    def hybrid_forward(self, F, x, mu, sigma):
        distr = LogitNormal(mu, sigma)
        return F.broadcast_add(distr.log_prob(x), distr.spread())
'''


@pytest.fixture
def logit_project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_package(tmp_path, dist=LOGIT_DIST, model=LOGIT_MODEL)
    return tmp_path


def test_reached_fixes_write_the_functions_f_and_keep_their_lines_indented(logit_project):
    """Issue 42: `F.log(self.sigma) + F.log(...)` in a method the trace reaches is fixed with the method's own
    `F` (safe: both operands are operator results), in the indentation of the lines around it;
    `self.sigma * ...` only with --unsafe-fixes (the object may hold a Python number there)."""
    run(["--no-cache", "--fix", "pkg"])
    fixed = (logit_project / "pkg" / "dist.py").read_text()
    assert ("        log_prob = -1.0 * (\n            F.broadcast_add(F.log(self.sigma),\n"
            "            F.log(F.sqrt(2 * F.full(1, np.pi))))\n            + F.log(x)\n        )") in fixed
    assert "return self.sigma * F.sqrt(F.full(1, 2))" in fixed
    result = run(["--no-cache", "--output-format", "json", "pkg"])
    [left] = [d for d in json.loads(result.stdout) if d["fix"]]
    assert left["fix"]["applicability"] == "unsafe" and "`self.sigma` may not be a tensor" in left["fix"]["why_unsafe"]
    run(["--no-cache", "--fix", "--unsafe-fixes", "pkg"])
    assert "return F.broadcast_mul(self.sigma, F.sqrt(F.full(1, 2)))" in (logit_project / "pkg" / "dist.py").read_text()


@pytest.mark.mxnet
def test_reached_fixes_repair_the_model_on_mxnet(logit_project):
    mx = pytest.importorskip("mxnet")

    def outputs():
        model = import_fresh(logit_project, "pkg.model").Model()
        x, mu, sigma = mx.nd.array([[0.2, 0.7]]), mx.nd.array([[0.1, 0.3]]), mx.nd.array([[0.5, 0.9]])
        eager = model(x, mu, sigma).asnumpy()
        model.hybridize()
        try:
            return eager, model(x, mu, sigma).asnumpy()
        except mx.base.MXNetError:
            return eager, None

    before, hybridized = outputs()
    assert hybridized is None  # `(1, 2) + (1,)` broadcasts only eagerly
    run(["--no-cache", "--fix", "--unsafe-fixes", "pkg"])
    eager, hybridized = outputs()
    assert (eager == before).all() and hybridized is not None and abs(hybridized - eager).max() < 1e-6
