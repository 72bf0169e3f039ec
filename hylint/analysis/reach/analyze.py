"""The reach of a package: its roots (the ``hybrid_forward`` of every block class, with ``self`` of each
subclass), the fixpoint that reads the reached bodies again until nothing they hold grows, then guesses
by method name and settles again, and the tables of the result.

Reads a package as parsed modules (``analyze_package``) or as text, parsing only the modules a trace can go
to (``analyze_sources``); answers a ``PackageReach``.
"""
from __future__ import annotations

import ast
from typing import Callable, Dict, Iterable, List, Mapping, Optional, Set, Tuple

from hylint.analysis.reach.atoms import F, TENSOR, ClassKey, FunctionKey, Value
from hylint.analysis.reach.bindings import _guards, _resizers
from hylint.analysis.reach.body import _Function
from hylint.analysis.reach.lambdas import _lambda_names
from hylint.analysis.reach.package import _Package
from hylint.analysis.reach.reaching import _Analysis
from hylint.analysis.reach.results import PackageReach
from hylint.analysis.reach.syntax import _all_param_names, _listlike_attrs, _params

_MAX_ROUNDS = 30  # the fixpoint converges in a few rounds; a bound so a pathological package cannot hang


def analyze_package(modules: Mapping[str, ast.Module], paths: Optional[Mapping[str, Optional[str]]] = None
                    ) -> PackageReach:
    """The reach of every HybridBlock ``hybrid_forward`` of the package made of `modules` (dotted name ->
    parsed module; `paths` gives each module's file, for the results)."""
    package = _Package(modules, modules.get, paths or {})
    package.load(modules)
    return _analyze(package, None)


def analyze_sources(sources: Mapping[str, bytes], paths: Mapping[str, Optional[str]], start: Iterable[str],
                    parse: Callable[[str], Optional[ast.Module]]) -> PackageReach:
    """The same for a package given as text (module -> bytes): only the modules a trace can go to are parsed.

    `start` (the modules that mention ``hybrid_forward``) are loaded first, then the modules defining a class
    whose base is named like one of their blocks; the others when the analysis resolves a name into them or
    searches their text (``_Package``)."""
    start = list(start)
    package = _Package(sources, parse, paths, texts=sources)
    package.load(start)
    package.load_block_subclasses()
    return _analyze(package, set(start))


def _analyze(package: _Package, hybrid_modules: Optional[Set[str]]) -> PackageReach:
    """`hybrid_modules`: the modules whose resizers the linter can read (None: every loaded module)."""
    roots: List[Tuple[FunctionKey, ClassKey]] = []
    for key in package.blocks:
        # an inherited hybrid_forward runs with `self` of each subclass (their __init__ set what it calls)
        method = package.method(key, "hybrid_forward")
        if method is not None:
            roots.append((method, key))
    analysis = _Analysis(package)
    _run(analysis, sorted(roots))
    f_attrs: Dict[ClassKey, Set[str]] = {}
    tensor_attrs: Dict[ClassKey, Set[str]] = {}
    for key, cls in package.classes.items():
        for name, value in cls.attrs.items():
            if F in value:
                f_attrs.setdefault(key, set()).add(name)
            if TENSOR in value:
                tensor_attrs.setdefault(key, set()).add(name)
    related: Dict[ClassKey, Set[ClassKey]] = {key: set() for key in package.classes}
    for key in list(package.classes):
        for base in package.mro(key):
            related[key].add(base.key)
            related[base.key].add(key)
    self_attrs = {}
    listlike: Dict[ClassKey, Set[str]] = {}  # read only for the classes whose attributes hold tensors
    for key, others in related.items():
        fs = set().union(*(f_attrs.get(other, ()) for other in others))
        ts = set().union(*(tensor_attrs.get(other, ()) for other in others))
        if ts:
            for other in others:
                if other not in listlike:
                    listlike[other] = _listlike_attrs(package.classes[other].node)
                ts -= listlike[other]
        if fs or ts:
            self_attrs[key] = (tuple(sorted(fs)), tuple(sorted(ts - fs)))
    if hybrid_modules is not None:
        # the linter reads resizers in hybrid code only: the modules mentioning hybrid_forward and those a
        # trace reaches
        hybrid_modules = hybrid_modules | {reached.key.module for reached in analysis.reached.values()}
    resizers = _resizers(package, hybrid_modules)
    return PackageReach(dict(analysis.reached), dict(package.paths), f_attrs, tensor_attrs, dict(package.owner),
                        package.blocks, self_attrs, resizers, _lambda_names(package, analysis.reached.values()),
                        _guards(package, hybrid_modules))


def _run(analysis: _Analysis, roots: List[Tuple[FunctionKey, ClassKey]]) -> None:
    """Reach the roots (``self`` an object of the block, F, tensors), settle, then settle again guessing
    methods of unknown receivers by name."""
    for key, cls in roots:
        node = analysis.package.functions[key]
        params = [p.arg for p in _params(node)]
        bound: Dict[str, Value] = {}
        if len(params) >= 2:
            bound[params[0]] = frozenset({("obj", cls)})
            bound[params[1]] = frozenset({F})
            for name in _all_param_names(node)[2:]:
                bound[name] = frozenset({TENSOR})
        analysis.reach(key, bound, None, "", True, owner=analysis.package.owner.get(key, cls))
    _settle(analysis)
    analysis.guessing = True
    analysis.touch(analysis.order)
    _settle(analysis)


def _settle(analysis: _Analysis) -> None:
    """Read every function whose inputs grew again, until none did (at most ``_MAX_ROUNDS`` rounds)."""
    for _ in range(_MAX_ROUNDS):
        dirty = [ctx for ctx in analysis.order if analysis.entries[ctx].dirty]
        if not dirty:
            break
        for ctx in dirty:
            entry = analysis.entries[ctx]
            entry.dirty = False
            _Function(analysis, ctx, entry).run()
