"""Trace reach: which code of a package runs while MXNet traces a HybridBlock's ``hybrid_forward``.

Given the parsed modules of one package (CPython ``ast``: this analysis needs names, calls and assignments,
not positions or comments, and ``ast.parse`` is about ten times faster than libcst), ``analyze_package``
starts from the ``hybrid_forward`` of every HybridBlock class of the package and follows what runs during the
trace, across the package's modules:

* helpers called with or without F (a parameter that receives F, or a tensor, is recorded as such);
* objects that hold F: ``self.F = F``, ``self.F = F if F else getF(x)`` where ``getF`` is an accessor (a
  function that returns ``mx.nd`` or ``mx.sym``), and the methods that read ``F = self.F``;
* nested functions, and lambdas, functions or methods handed to a call the package does not define
  (``HybridLambda(lambda F, x: ...)``, ``HybridLambda(self._inner)``, ``F.contrib.foreach(self._step, ...)``):
  they run in the trace with the parameter named F bound to F, a method's ``self`` to its object, and the
  others to tensors when MXNet is the one calling them (an ``F.`` operator, a name imported from
  ``mxnet``; what ``map`` or another library passes is not known);
* classes constructed in the trace: their ``__init__`` runs, and ``super().<method>`` calls of their bases;
* property getters, when the property is read (gluonts' ``F = self.F`` is ``getF(self.mu)``);
* calls of child blocks (``self.body(x)``, an object built from a block class of the package): their
  ``hybrid_forward`` (with F) or ``forward`` (without);
* objects given to a block's ``__init__`` through a parameter annotated with a non-block class of the package
  and kept on self (``distr_output: DistributionOutput``, ``self.distr_output = distr_output``): the attribute
  holds an object of that class or of any of its package subclasses, and a method called on it is followed
  for each (the caller may pass any of them); classes assigned in a class body (``distr_cls: type =
  GenPareto``), built by ``self.distr_cls(...)``;
* branches on ``isinstance(x, mx.nd.NDArray)`` / ``isinstance(x, mx.sym.Symbol)`` (and their negation), on
  ``F is nd`` (or an attribute that holds F: gluonts' ``self.F is mx.nd``), ``F.__name__ == 'mxnet.ndarray'``
  and on a guard helper of the package (a function whose body is ``return <one of these tests of its
  parameter>``: autogluon's ``mxnet_is_ndarray(F)``), alone or in an ``and`` (``x is not None and F is nd``
  is true only eagerly): only the branch that runs with Symbols is followed, so a call under an eager-only
  guard reaches nothing (``elif method == "iter" and self.F is mx.nd: jitter_cholesky(...)``); after a guard true only in a trace whose branch ends in
  ``raise`` or ``return`` (``if F is mx.sym: raise ValueError(...)``, ``if F is not nd: return ...``), the
  rest of the block runs eagerly only and is not followed;
* the path a constructor switch declares eager-only is not followed either: with ``self.hybridizable``
  (a switch named so, kept on self) and the options ``__init__`` asserts with it (``assert (use_nms or
  not hybridizable)``), ``if self.hybridizable: return y`` ends the block, and the ``else`` of ``if
  self.use_nms:`` is skipped (gluoncv2's superpointnet);
* methods called on an object of a known class, and, when the class of the receiver is not known
  (``self.distr_output.distribution(args)`` with ``distr_output`` a constructor argument), every method of
  that name defined by a non-block class of the package, marked ``certain=False`` ("by name"); what such a
  guess calls, constructs or hands over is as uncertain;
* imports within the package, absolute and relative (``from .distribution import getF``), through
  re-exports of ``__init__`` modules.

A value that came from F (``F.op(...)``, an operator method of a tensor, arithmetic on a tensor) is a tensor
wherever it flows: through assignments, tuples, returns, attributes set on ``self`` and arguments.

For each reached function ``Reached`` says which parameters hold F and which hold tensors, whether the reach
is certain, and the first call chain that reached it (``reached from Model.hybrid_forward via
distr.log_prob``), breadth first, so the chain is a shortest one.

What it does NOT follow (each is a place where the reach may miss code; it adds code that does not run only
through the by-name methods above and through the merging described under call-site sensitivity):

* code outside the package (another installed library, MXNet itself): calls into it are opaque, except that
  functions handed to them are reached;
* classes chosen at run time (``self.distr_cls(*args)``, ``getattr(module, name)``), decorators other than
  ``property`` (a property's getter is followed when it is read), property setters, metaclasses,
  ``exec``/``eval``;
* classes nested in functions, star-imports, modules imported inside functions, conditional imports beyond
  the first binding;
* the values inside containers (a list or dict of tensors is known to hold tensors, not which index does);
  loop bodies are read once with the loop variable bound to what the iterable yields;
* flow sensitivity: a name holds the union of everything assigned to it in the function; branches on the
  training mode are not pruned; an explicit ``mx.nd`` is read as F (a helper called with ``mx.nd`` in the
  trace has its ``F is nd`` branch pruned all the same);
* call-site sensitivity: a method is read once per class of ``self``, any other function once for all its
  callers, so a helper called with two different functions (``_sample_multiple(sample_func)``) calls both
  from each call (a nested function or lambda stays as certain as the function that defines it);
* class-level attributes other than classes; attributes set on ``self`` outside ``__init__``
  and outside reached code; a block's ``__init__`` is read only for what it stores on ``self``.

The package, one job a module (each module's docstring says what it reads and what it answers), from the
bottom up:

* ``atoms``: what a name may hold (values as sets of atoms) and the keys naming functions and classes;
* ``syntax``: helpers reading CPython ``ast`` (a function's statements and parameters, a label's text);
* ``guards``: which tests of F or ``isinstance`` are true only eagerly or only in a trace, and which
  tests of self a class's ``__init__`` declares true only for a block built not to be hybridized;
* ``modules``: module names, parsing a package folder, the records of a module and of a class;
* ``stored``: what a class stores on self before any trace (a base of the package index);
* ``package``: the package index, loading modules lazily, resolving names, classes and their methods;
* ``results``: what the analysis answers (``Reached``, ``PackageReach``);
* ``reaching``: reaching a function (its state per context, binding a call's arguments, handed functions);
* ``calls``: what a call in a reached body runs and returns (with the by-name guesses, uncertain);
* ``body``: one reading of a reached function's body (statements, expressions, guarded branches);
* ``lambdas``: the names of reached lambdas in the summary;
* ``bindings``: per module, the names bound to guard helpers and resizers of the package;
* ``analyze``: the roots, the fixpoint, the result (``analyze_package``, ``analyze_sources``);
* ``summary``: the per-file summary the linter reads and the cache keeps (``FileReach``, ``summarize``).
"""
from __future__ import annotations

from hylint.analysis.reach.analyze import analyze_package, analyze_sources
from hylint.analysis.reach.atoms import FunctionKey
from hylint.analysis.reach.modules import module_name, parse_package
from hylint.analysis.reach.results import PackageReach, Reached
from hylint.analysis.reach.summary import FileReach, ReachedFunction, summarize
from hylint.analysis.reach.syntax import _statements  # noqa: F401  (tests/analysis/test_reach.py reads it)

__all__ = ["FunctionKey", "Reached", "PackageReach", "ReachedFunction", "FileReach", "analyze_package", "analyze_sources",
           "parse_package", "module_name", "summarize"]
