from collections import defaultdict
from typing import Dict, FrozenSet, List, Optional, Set, Tuple, Union

import libcst as cst

from hylint.analysis.module import ClassInfo, class_family, is_hybrid_class
from hylint.rule import Invalid, LintRule, Valid
from hylint.rules._hazards import names_in, tests_around
from hylint.syntax.nodes import dotted_name, param_names
from hylint.syntax.walk import skipped_types, walk, walk_types

STRUCTURE_ERROR = ("ValueError: The argument structure of HybridBlock does not match the cached version")
SAME_STRUCTURE = ("one argument structure on every call: always a tensor for that input (a placeholder such as "
                  "`F.zeros_like(x)` and a flag the block reads), or one child per structure")


class OptionalInputSometimesNone(LintRule):
    CODE = "HY708"
    NAME = "optional-input-sometimes-none"
    MESSAGE = "A HybridBlock is called with None for an input on some calls and a tensor on others"
    HYBRID_ONLY = False
    METHODS = ("forward",)  # ctx.cls.methods["forward"] is the node, or nothing is reported
    DOC = """
## What it does
Flags, in the `forward` of a block (code that runs eagerly, outside any trace) and in the methods of
its class that `forward` calls on `self`, at any depth (and no trace runs), a call of a child HybridBlock of the module whose
argument at one position can be `None` on some calls and a tensor on others:
- a conditional expression with one `None` branch whose test reads a local name or a parameter of
  `forward` (`self.step(x, ids if lexicon else None)`, with `lexicon` an argument);
- a parameter of that method that defaults to `None`, passed on as it is (`def forward(self, x, ids=None):
  return self.step(x, ids)`), outside any `if` that tests it;
- two calls of the same child there, one passing `None` (or fewer arguments) where the other passes
  a value;
- a local bound to `None` and, before the call, to a value, where one of the two bindings runs only
  when an `if` testing a local name or a parameter passes (`ids = None`, then `if lexicon: ids =
  lookup(x)`, then `self.step(x, ids)`: sockeye 2.3.17's greedy search, `beam_search.py:606`), and that
  `if` does not also hold the call;
- a local bound to `None` before a loop and to a value after the call inside it, so the loop's first
  pass passes `None` and the next ones a value (`state = None`, then `for t in ...: state =
  self.cell(x[t], state)`), unless each pass binds it before the call.

The value need not be proven a tensor: its structure differs from `None`'s whatever it is, and a
hybridized block given something that is neither `None` nor tensors (nested in lists) raises on that
call anyway (measured: a number, a list of numbers or a string gives `ValueError: When hybridized, the
input of HybridBlock input must be (nested) list of Symbol or NDArray`).

A child whose class overrides `forward` (it may take the `None` call eagerly) is not flagged. A test
on the block's configuration only (`ids if self.lexicon else None`) chooses one structure for the
life of the block and is not flagged, nor are calls inside a `hybrid_forward` (traced: the child is part
of its parent's graph, which keeps the parent's own arguments).

## Why is this bad?
A hybridized block caches its graph with the structure of the arguments of its first call: which
are `None` and which are tensors. A later call with another structure raises. Measured on MXNet 1.9.1,
with `Step.hybrid_forward(self, F, x, ids=None)` branching on `ids is None` and a plain `Block` calling
`self.step(x, ids if lexicon else None)`, after `net.hybridize()`: `lexicon=True` then `False` raises
`ValueError: The argument structure of HybridBlock does not match the cached version. Stored format =
[0, -1], input format = [0, 0]` (and `False` then `True`: `Stored format = [0, 0], input format = [0, -1]`);
two calls with one structure, or the same calls eagerly, run. The same with `ids = None` then `if lexicon:
ids = nd.array(...)` before the call, with `hybridize()` or `hybridize(static_alloc=True)` (as sockeye's
`get_search_algorithm` does). Omitting the input on the first call and passing it on the second raises
the same error (`Stored format = [0, 0], input format = [0]`), and so does a plain Block's loop
`state = None; for t in range(3): state = self.cell(x[t], state)` on the second pass (`Stored format =
[0, 0], input format = [0, -1]`: MXNet 1.9.1 names the new call's structure "stored" and the cached one
"input"). A hybridized `HybridBlock` parent making the same call runs (its trace passes Symbols; the branch it took is frozen in its graph instead).

## Example
```python
class Decoder(nn.Block):
    def forward(self, x, ids, lexicon):
        return self.step(x, ids if lexicon else None)
```

## Use instead
One structure per child: pass a tensor that means "nothing" (a mask of ones, zeros) instead of `None`,
or keep one child block per structure:
```python
class Decoder(nn.Block):
    def forward(self, x, ids, lexicon):
        return self.step_with_ids(x, ids) if lexicon else self.step(x)
```

## Fix safety
No fix: which tensor stands for "nothing" is the author's decision.
"""
    _STEP = ("class Step(HybridBlock):\n    def hybrid_forward(self, F, x, ids=None):\n        return x\n\n\n"
             "class D(Block):\n    def __init__(self):\n        super().__init__()\n        self.step = Step()\n\n")
    VALID = [
        Valid(_STEP + "    def forward(self, x, ids):\n        return self.decode(x, ids)\n\n"
                      "    def decode(self, x, ids):\n        return self.step(x, ids if self.lexicon else None)\n"),
        Valid(_STEP + "    def forward(self, x, ids):\n        return self.step(x, ids if self.lexicon else None)\n"),
        Valid(_STEP + "    def forward(self, x, ids=None):\n        if ids is None:\n            ids = x * 0\n"
                      "        return self.step(x, ids)\n"),
        Valid(_STEP + "    def forward(self, x, ids):\n        return self.step(x, ids) + self.step(x * 2, ids)\n"),
        Valid(_STEP.replace("class D(Block)", "class D(HybridBlock)")
              + "    def hybrid_forward(self, F, x, ids=None):\n        return self.step(x, ids)\n"),
        Valid(_STEP + "    def forward(self, x, ids=None):\n        if ids is not None:\n"
                      "            return self.step(x, ids)\n        return x\n"),
        Valid(_STEP + "    def forward(self, x, ids):\n        if self.lexicon:\n            return self.step(x, ids)\n"
                      "        return self.step(x)\n"),
        Valid(_STEP + "    def forward(self, x, lexicon):\n        ids = None\n        if self.lexicon:\n"
                      "            ids = x * 2\n        return self.step(x, ids)\n"),
        Valid(_STEP + "    def forward(self, x, lexicon):\n        ids = None\n        if lexicon:\n"
                      "            ids = x * 2\n            return self.step(x, ids)\n        return x\n"),
        Valid(_STEP + "    def forward(self, x, lexicon):\n        ids = None\n        out = self.step(x, ids)\n"
                      "        if lexicon:\n            ids = x * 2\n        return out\n"),
        Valid(_STEP.replace("        return x\n", "        return x\n\n    def forward(self, x, ids=None):\n"
                                                "        return x if ids is None else x + ids\n")
              + "    def forward(self, x, ids, lexicon):\n        return self.step(x, ids if lexicon else None)\n"),
        Valid(_STEP + "    def forward(self, x):\n        ids = None\n        for t in range(3):\n"
                      "            ids = x * t\n            out = self.step(x, ids)\n            ids = out\n"
                      "        return out\n"),
        Valid(_STEP + "    def forward(self, x):\n        ids = None\n        for t in range(3):\n"
                      "            out = self.step(x, ids)\n        ids = out\n        return out\n"),
        Valid(_STEP.replace("class Step(HybridBlock)", "class Step(Block)")
              + "    def forward(self, x, ids, lexicon):\n        return self.step(x, ids if lexicon else None)\n"),
    ]
    INVALID = [
        Invalid(_STEP + "    def forward(self, x, ids, lexicon):\n        return self.step(x, ids if lexicon else None)\n"),
        Invalid(_STEP + "    def forward(self, x, ids, lexicon):\n        return self.decode(x, ids if lexicon else None)\n\n"
                        "    def decode(self, x, ids=None):\n        return self.step(x, ids)\n"),
        Invalid(_STEP + "    def forward(self, x, ids, lexicon):\n        return self.decode(x, ids, lexicon)\n\n"
                        "    def decode(self, x, ids, lexicon):\n        return self.one_step(x, ids, lexicon)\n\n"
                        "    def one_step(self, x, ids, lexicon):\n        return self.step(x, ids if lexicon else None)\n"),
        Invalid(_STEP + "    def forward(self, x, ids=None):\n        return self.step(x, ids)\n"),
        Invalid(_STEP + "    def forward(self, x, ids):\n        return self.step(x, None) + self.step(x, ids)\n"),
        Invalid(_STEP + "    def forward(self, x, ids):\n        return self.step(x) + self.step(x, ids)\n"),
        Invalid(_STEP + "    def forward(self, x, lexicon):\n        ids = None\n        if lexicon:\n"
                        "            ids, _ = x * 2, x\n        return self.step(x, ids)\n"),
        Invalid(_STEP + "    def forward(self, x, lexicon):\n        ids = x * 2\n        if not lexicon:\n"
                        "            ids = None\n        return self.step(x, ids)\n"),
        Invalid(_STEP + "    def forward(self, x):\n        ids = None\n        for t in range(3):\n"
                        "            ids = self.step(x, ids)\n        return ids\n"),
        Invalid(_STEP + "    def forward(self, x):\n        ids = None\n        while x.sum() > 0:\n"
                        "            out = self.step(x, ids)\n            ids = out * 2\n        return ids\n"),
        Invalid(_STEP + "    def forward(self, x, ids=None):\n        if ids is None:\n            return self.step(x)\n"
                        "        return self.step(x, ids)\n"),
    ]

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx) -> None:
        cls = ctx.cls
        if node.name.value != "forward" or cls is None or cls.methods.get("forward") is not node:
            return
        classes = ctx.module_info.classes
        reported: Set[int] = set()
        by_child: Dict[str, List[cst.Call]] = defaultdict(list)
        for fn in [node] + _helpers_called(node, cls, ctx):
            calls = _child_calls(fn, cls, classes)
            if not calls:
                continue
            assigned = _assigned(fn)
            locals_ = {p.name.value for p in _params(fn)} | assigned  # what may differ from call to call
            optional = _none_default_params(fn, assigned)
            tests = tests_around(fn, cst.Call)
            bindings = _Bindings(fn)
            for attr, call in calls:
                for position, arg in enumerate(_positional(call)):
                    tested = set().union(*tests.get(id(call), []))
                    why = _sometimes_none(arg.value, locals_, optional, tested, fn, ctx) or \
                        _rebound_from_none(arg.value, call, bindings, locals_, tests.get(id(call), []))
                    if why is not None and id(call) not in reported:
                        reported.add(id(call))
                        ctx.report(arg.value, _message(attr, position), instead=SAME_STRUCTURE, help=_help(why))
                # calls that one block may make on different calls: every test deciding whether they run reads
                # something of the call (a test on `self.<config>` alone picks one of them for good)
                if all(names & locals_ for names in tests.get(id(call), [])):
                    by_child[attr].append(call)
        for attr, sites in by_child.items():
            if len(sites) < 2:
                continue
            for call in sites:
                if id(call) in reported:
                    continue
                position = _structure_clash(call, sites)
                if position is not None:
                    reported.add(id(call))
                    ctx.report(call, _message(attr, position), instead=SAME_STRUCTURE,
                               help=_help("`None` (or no argument) on one of its calls and a value on another"))
                    break


def _helpers_called(forward: cst.FunctionDef, cls: ClassInfo, ctx) -> List[cst.FunctionDef]:
    """The methods of the class that ``forward`` calls on ``self``, and those they call on ``self`` in turn,
    that no trace runs (they are not analysed as hybrid code): they run eagerly, as ``forward`` does."""
    family = class_family(cls, ctx.module_info.classes)
    found: List[cst.FunctionDef] = []

    class _Calls(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            callee = dotted_name(node.func) or ""
            name = callee[5:] if callee.startswith("self.") and callee.count(".") == 1 else None
            if name is None or name in ("forward", "hybrid_forward", "__init__"):
                return
            method = next((owner.methods[name] for owner in family if name in owner.methods), None)
            if method is not None and method is not forward and method not in found and \
                    method not in ctx.module_info.contexts:
                found.append(method)

    calls = _Calls()
    walk(forward.body, calls)
    for method in found:  # grows as it goes: the methods those call, to any depth, each once
        walk(method.body, calls)
    return found


def _message(attr: str, position: int) -> str:
    return f"input {position + 1} of `self.{attr}` is sometimes `None`: hybridized, a call with the other fails"


def _help(why: str) -> str:
    return (f"The input is {why}: a hybridized block keeps the argument structure of its first call, and a call "
            f"with the other raises {STRUCTURE_ERROR}")


def _positional(call: cst.Call) -> List[cst.Arg]:
    args = []
    for arg in call.args:
        if arg.keyword is not None or arg.star:
            break
        args.append(arg)
    return args


def _is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def _structure_clash(call: cst.Call, sites: List[cst.Call]) -> Optional[int]:
    """The first position where ``call`` passes None (or nothing) and another call of the child a value."""
    if any(arg.star or arg.keyword is not None for site in sites for arg in site.args):
        return None
    mine = [None if _is_none(a.value) else a for a in _positional(call)]
    for other in sites:
        if other is call:
            continue
        theirs = [None if _is_none(a.value) else a for a in _positional(other)]
        for position in range(max(len(mine), len(theirs))):
            here = mine[position] if position < len(mine) else None
            there = theirs[position] if position < len(theirs) else None
            if (here is None) != (there is None):
                return position
    return None


def _sometimes_none(value: cst.BaseExpression, locals_: Set[str], optional: Set[str], tested: Set[str],
                    fn: cst.FunctionDef, ctx) -> Optional[str]:
    if isinstance(value, cst.IfExp) and _is_none(value.body) != _is_none(value.orelse):
        names = names_in(value.test)
        if names & locals_:
            return f"`{ctx.code(value).strip()}`, `None` or a value as `{ctx.code(value.test).strip()}` varies per call"
        return None
    if isinstance(value, cst.Name) and value.value in optional and value.value not in tested:
        return f"`{value.value}`, an argument of `{fn.name.value}` that defaults to `None`"
    return None


class _Bindings:
    """Where ``fn`` binds each plain name (``n = ...``, ``n, m = ...``): the binding's order among the
    statements and calls of ``fn`` (an assignment counts once its value is computed: after the calls in
    it), whether it binds ``None``, the tests deciding whether it runs and the loops around it."""

    def __init__(self, fn: cst.FunctionDef) -> None:
        self.order: Dict[int, int] = {}  # id(Assign or Call) -> its place in the order things happen
        self.loops: Dict[int, FrozenSet[int]] = {}  # id(Assign or Call) -> the loops (ids) around it
        self.of: Dict[str, List[Tuple[cst.Assign, bool]]] = defaultdict(list)
        self.tests = tests_around(fn, cst.Assign)
        around: List[int] = []

        def place(node: cst.CSTNode) -> None:
            self.order[id(node)] = len(self.order)
            self.loops[id(node)] = frozenset(around)

        def assign(node: cst.Assign) -> None:
            place(node)
            for target in node.targets:
                single = isinstance(target.target, cst.Name)
                for name in names_in(target.target):
                    self.of[name].append((node, single and _is_none(node.value)))

        walk_types(fn.body, {cst.Call: place, cst.For: lambda node: around.append(id(node)),
                             cst.While: lambda node: around.append(id(node))},
                   {cst.Assign: assign, cst.For: lambda node: around.pop(), cst.While: lambda node: around.pop()},
                   _BINDINGS_SKIP)

    def before(self, node: cst.CSTNode, other: cst.CSTNode) -> bool:
        return self.order.get(id(node), -1) < self.order.get(id(other), -1)


_BINDINGS_SKIP = skipped_types(frozenset({"Assign", "Call", "For", "While"}))


def _rebound_from_none(value: cst.BaseExpression, call: cst.Call, bindings: _Bindings, locals_: Set[str],
                       call_tests: List[Set[str]]) -> Optional[str]:
    """A local bound to ``None`` and to a value before the call, where one of the two bindings runs only
    on some calls (an ``if`` testing a parameter or a local, one that does not also decide the call):
    ``ids = None`` then ``if lexicon: ids = lookup(x)``, then ``self.step(x, ids)``; or bound to ``None``
    before a loop and to a value after the call in the loop, so the loop's first pass passes ``None`` and
    the next ones a value: ``state = None`` then ``for t in ...: state = self.cell(x[t], state)``."""
    if not isinstance(value, cst.Name):
        return None
    name = value.value
    if any(name in names for names in call_tests):
        return None  # the call itself runs for one outcome of a test on the name (`if ids is not None:`)
    bound = bindings.of.get(name, [])
    before = [(node, none) for node, none in bound if bindings.before(node, call)]
    if any(none for _, none in before) and not all(none for _, none in before):
        for node, _ in before:
            per_call = [names for names in bindings.tests.get(id(node), [])
                        if names & locals_ and names not in call_tests]
            if per_call:
                test = ", ".join(f"`{n}`" for n in sorted(per_call[0] & locals_))
                return f"`{name}`, bound to `None` or to a value as a test of {test} decides per call"
    loops = bindings.loops.get(id(call), frozenset())
    for node, none in bound:
        shared = bindings.loops.get(id(node), frozenset()) & loops  # a loop around the binding and the call
        if none or not shared or bindings.before(node, call):
            continue
        rebound_first = any(bindings.loops.get(id(other), frozenset()) & shared and bindings.before(other, call)
                            for other, _ in bound)  # each pass binds the name before the call
        if not rebound_first and any(other_none and bindings.before(other, call) and
                                     not bindings.loops.get(id(other), frozenset()) & shared for other, other_none in bound):
            return f"`{name}`, `None` on the first pass of the loop and a value, bound after the call, on the next"
    return None


def _child_calls(fn: cst.FunctionDef, cls: ClassInfo, classes: Dict[str, ClassInfo]) -> List[Tuple[str, cst.Call]]:
    """``self.<attr>(...)`` calls of children whose class is a HybridBlock class of the module that does not
    override ``forward`` (its own ``forward`` may take the ``None`` call eagerly: sockeye's OutputLayer)."""
    children = {}
    for owner in class_family(cls, classes):
        for attr, constructor in owner.children.items():
            child = classes.get(constructor.rsplit(".", 1)[-1])
            if attr not in children and child is not None and is_hybrid_class(child, classes) \
                    and child.hybrid_forward is not None \
                    and not any("forward" in owner.methods for owner in class_family(child, classes)):
                children[attr] = child
    found: List[Tuple[str, cst.Call]] = []

    class _Calls(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is fn  # nested functions: not followed

        def visit_Call(self, node: cst.Call) -> None:
            callee = dotted_name(node.func) or ""
            if callee.startswith("self.") and callee.count(".") == 1 and callee[5:] in children:
                found.append((callee[5:], node))

    walk(fn, _Calls())
    return found


def _assigned(fn: cst.FunctionDef) -> Set[str]:
    """The names ``fn``'s body binds: assignment, augmented assignment and loop targets."""
    names: Set[str] = set()

    def bound(node: Union[cst.AssignTarget, cst.AugAssign, cst.For]) -> None:
        names.update(names_in(node.target))

    walk_types(fn.body, {cst.AssignTarget: bound, cst.AugAssign: bound, cst.For: bound}, {}, _ASSIGNED_SKIP)
    return names


_ASSIGNED_SKIP = skipped_types(frozenset({"AssignTarget", "AugAssign", "For"}))


def _params(fn: cst.FunctionDef) -> List[cst.Param]:
    return param_names(fn)[1:] + list(fn.params.kwonly_params)  # without self


def _none_default_params(fn: cst.FunctionDef, assigned: Set[str]) -> Set[str]:
    """Parameters defaulting to None that ``fn`` never rebinds."""
    return {p.name.value for p in _params(fn) if p.default is not None and _is_none(p.default)} - assigned
