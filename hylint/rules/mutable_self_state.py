from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set

import libcst as cst

from hylint.rule import Invalid, LintRule, SELF_ATTRIBUTE_METHODS, Valid
from hylint.rules._hazards import self_attr, self_calls
from hylint.syntax.walk import TRIVIA, walk

CLS = ("class N(HybridBlock):\n    def __init__(self):\n        super().__init__()\n        self.scale = 2.0\n"
       "        self.calls = 0\n\n{}")
# HybridBlock's own method that drops the traced graph: the next call traces again
CLEAR_CACHE = "_clear_cached_op"
# recurrent cells: `unroll()` calls `reset()` ("Reset before re-using the cell for another graph") at the
# start of every sequence, so state that reset() clears lives for one sequence, passed between its steps
RECURRENT_CELL_BASES = ("RecurrentCell", "ModifierCell")


# methods that change a list, dict or set in place
MUTATING_METHODS = {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "popitem"}
# methods that run on every call, before hybrid_forward, hybridized too: what they set comes from the
# call's arguments, like a keyword argument of hybrid_forward (which the trace freezes just the same)
PER_CALL_METHODS = {"__call__", "forward"}


def _is_recurrent_cell(cls, classes, seen=None) -> bool:
    seen = seen if seen is not None else set()
    for base in cls.base_names:
        if base.endswith(RECURRENT_CELL_BASES):
            return True
        if base in classes and base not in seen:
            seen.add(base)
            if _is_recurrent_cell(classes[base], classes, seen):
                return True
    return False


class _WrittenAttrs(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.names: Set[str] = set()

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        for target in _targets(node.target):
            attr = self_attr(target)
            if attr:
                self.names.add(attr)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        attr = self_attr(node.target)
        if attr:
            self.names.add(attr)

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "setattr" and node.args and \
                isinstance(node.args[0].value, cst.Name) and node.args[0].value.value == "self" and \
                len(node.args) > 1 and isinstance(node.args[1].value, cst.SimpleString):
            self.names.add(node.args[1].value.evaluated_value)


def _written_attrs(fn: cst.FunctionDef) -> Set[str]:
    visitor = _WrittenAttrs()
    walk(fn.body, visitor)
    return visitor.names


def _reset_in_traced_parents(cls, info) -> Set[str]:
    """The attributes a traced parent resets on every call: a hybrid context of another block class
    calls ``self.<child>.<method>()`` on a child of this class, and that method assigns them
    (``self.decoder.cache_reset()`` around the decoding steps it unrolls). Like a recurrent cell's
    ``reset()``, the state then lives for one call of the parent, passed between the steps it unrolls."""
    names: Set[str] = set()
    resetting = {name for name in cls.methods if name not in ("__init__", "__call__", "forward", "hybrid_forward")}
    if not resetting:
        return names
    for parent in info.classes.values():
        owned = {attr for attr, constructor in parent.children.items() if constructor.rsplit(".", 1)[-1] == cls.name}
        if parent is cls or not owned:
            continue
        for method in parent.methods.values():
            if method not in info.contexts:
                continue
            for called in info.memo("child-method-calls", method, lambda fn: _self_calls(fn, dots=2)):
                child, _, name = called.partition(".")
                if child in owned and name in resetting:
                    names |= info.memo("written-attrs", cls.methods[name], _written_attrs)
    return names


def _flow(fn: cst.FunctionDef, skip: Set[cst.CSTNode] = frozenset()) -> "_Flow":
    walker = _FlowWalker(set(skip))
    walker.block(fn.body, set())
    return walker.flow


def _clears_cache(fn: cst.FunctionDef) -> bool:
    """``fn`` calls ``self._clear_cached_op()``, or HybridBlock's ``cast`` (which calls it; measured in
    MXNet 1.9.1's gluon/block.py): the next call of the block traces again."""
    found = [False]

    class _Find(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            func = node.func
            if isinstance(func, cst.Attribute) and (func.attr.value == CLEAR_CACHE or func.attr.value == "cast" and (
                    isinstance(func.value, cst.Name) and func.value.value == "self" or
                    isinstance(func.value, cst.Call) and isinstance(func.value.func, cst.Name)
                    and func.value.func.value == "super")):
                found[0] = True

    walk(fn.body, _Find())
    return found[0]


def _self_calls(fn: cst.FunctionDef, dots: int = 1) -> Set[str]:
    """Names of the methods ``fn`` calls as ``self.<name>(...)`` (with ``dots=2``: ``child.method`` for
    each ``self.<child>.<method>(...)``)."""
    return set(self_calls(fn, dots))


def _construction_methods(methods: Dict[str, cst.FunctionDef]) -> Set[str]:
    """``__init__`` and the methods called only while the block is built (from ``__init__``, directly or
    through other such methods): what they set is the block's structure, not state between calls."""
    calls = {name: _self_calls(method) for name, method in methods.items()}
    building = {"__init__"}
    changed = True
    while changed:
        changed = False
        for name in methods:
            if name in building:
                continue
            callers = {caller for caller, called in calls.items() if name in called}
            if callers and callers <= building:
                building.add(name)
                changed = True
    return building


def _is_scalar_literal(node: Optional[cst.BaseExpression]) -> bool:
    """A number, string, None, True or False: writing it once or on every call leaves the same state."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    return isinstance(node, (cst.Integer, cst.Float, cst.SimpleString)) or \
        isinstance(node, cst.Name) and node.value in ("None", "True", "False")


def _targets(target: cst.BaseExpression) -> List[cst.BaseExpression]:
    if isinstance(target, (cst.Tuple, cst.List)):
        return [t for element in target.elements for t in _targets(element.value)]
    if isinstance(target, cst.StarredElement):
        return _targets(target.value)
    return [target]


@dataclass
class _Flow:
    """Per attribute of ``self``, in one call of a hybrid context, in statement order."""

    first_read: Dict[str, cst.CSTNode] = field(default_factory=dict)     # read before this call set it
    first_write: Dict[str, cst.CSTNode] = field(default_factory=dict)    # first statement writing it
    written: Set[str] = field(default_factory=set)
    varying: Set[str] = field(default_factory=set)  # written with something else than a scalar literal


class _FlowWalker:
    """Which attributes a call reads before it has set them (values carried in from outside the call).

    Statements are followed in order; an attribute is *set* from a plain assignment on. A branch sets
    it only when every branch does; a loop's body may run zero times, so a loop never sets it for what
    follows, and its body starts from what held before the loop. Eager-only guard regions are skipped.
    """

    def __init__(self, skip: Set[cst.CSTNode]) -> None:
        self.skip = skip
        self.flow = _Flow()

    def block(self, body, assigned: Set[str]) -> Set[str]:
        if body in self.skip:
            return assigned
        statements = body.body if isinstance(body, cst.BaseSuite) else body
        if isinstance(body, cst.SimpleStatementSuite):
            statements = [body]
        for stmt in statements:
            assigned = self.statement(stmt, assigned)
        return assigned

    def statement(self, stmt: cst.CSTNode, assigned: Set[str]) -> Set[str]:
        if stmt in self.skip:
            return assigned
        if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            for small in stmt.body:
                assigned = self.small(small, assigned)
            return assigned
        if isinstance(stmt, cst.If):
            self.reads(stmt.test, assigned)
            then = self.block(stmt.body, set(assigned))
            other = self.statement(stmt.orelse, set(assigned)) if isinstance(stmt.orelse, cst.If) else \
                self.block(stmt.orelse.body, set(assigned)) if stmt.orelse is not None and stmt.orelse not in self.skip \
                else set(assigned)
            return assigned | (then & other)
        if isinstance(stmt, (cst.For, cst.While)):
            self.reads(stmt.iter if isinstance(stmt, cst.For) else stmt.test, assigned)
            if isinstance(stmt, cst.For):
                self.writes(stmt.target, stmt)
            self.block(stmt.body, set(assigned))
            if stmt.orelse is not None:
                self.block(stmt.orelse.body, set(assigned))
            return assigned
        if isinstance(stmt, cst.With):
            for item in stmt.items:
                self.reads(item.item, assigned)
            return self.block(stmt.body, assigned)
        if isinstance(stmt, cst.Try):
            self.block(stmt.body, set(assigned))
            for handler in stmt.handlers:
                self.block(handler.body, set(assigned))
            for extra in (stmt.orelse, stmt.finalbody):
                if extra is not None:
                    self.block(extra.body, set(assigned))
            return assigned
        self.reads(stmt, assigned)  # anything else (a nested def, match): every mention is a read
        return assigned

    def small(self, small: cst.CSTNode, assigned: Set[str]) -> Set[str]:
        if isinstance(small, cst.Assign):
            self.reads(small.value, assigned)
            for target in small.targets:
                self.reads(target.target, assigned, as_target=True)
                if isinstance(target.target, cst.Subscript) and self_attr(target.target.value):
                    self.mutate(self_attr(target.target.value), small)  # `self.cache[k] = v`
            for target in small.targets:
                for attr in self.writes(target.target, small):
                    assigned = assigned | {attr}
            return assigned
        if isinstance(small, cst.AnnAssign) and small.value is not None:
            self.reads(small.value, assigned)
            self.reads(small.target, assigned, as_target=True)
            return assigned | set(self.writes(small.target, small))
        if isinstance(small, cst.AugAssign):  # reads the old value, then writes
            self.reads(small.value, assigned)
            self.reads(small.target, assigned)
            self.writes(small.target, small)
            return assigned
        self.reads(small, assigned)
        return assigned

    def writes(self, target: cst.BaseExpression, stmt: cst.CSTNode) -> List[str]:
        attrs = [attr for attr in (self_attr(t) for t in _targets(target)) if attr]
        value = getattr(stmt, "value", None)
        constant = isinstance(stmt, (cst.Assign, cst.AnnAssign)) and len(attrs) == 1 and _is_scalar_literal(value)
        for attr in attrs:
            self.flow.written.add(attr)
            if not constant:
                self.flow.varying.add(attr)
            self.flow.first_write.setdefault(attr, stmt)
        return attrs

    def reads(self, node: cst.CSTNode, assigned: Set[str], as_target: bool = False) -> None:
        whole_targets = set(_targets(node)) if as_target else set()
        if self.skip:
            walk(node, _GuardedReads(self, assigned, whole_targets), TRIVIA)
        else:
            walk(node, _Reads(self, assigned, whole_targets))

    def mutate(self, attr: str, node: cst.CSTNode) -> None:
        self.flow.written.add(attr)
        self.flow.varying.add(attr)
        self.flow.first_write.setdefault(attr, node)


class _Reads(cst.CSTVisitor):
    """The attributes of ``self`` an expression reads (``_FlowWalker.reads``); one class, not one per call.
    Called back by node type (only attributes and calls matter); ``_GuardedReads`` where regions are skipped."""

    def __init__(self, walker: _FlowWalker, assigned: Set[str], whole_targets: Set[cst.CSTNode]) -> None:
        super().__init__()
        self.walker = walker
        self.assigned = assigned
        self.whole_targets = whole_targets

    def visit_Attribute(self, inner: cst.Attribute) -> bool:
        attr = self_attr(inner)
        if attr is not None and self.whole_targets and inner in self.whole_targets:
            return False  # `self.a = ...`: a write, not a read
        if attr is not None and attr not in self.assigned:
            self.walker.flow.first_read.setdefault(attr, inner)
        return True

    def visit_Call(self, inner: cst.Call) -> None:
        if type(inner.func) is cst.Attribute and inner.func.attr.value in MUTATING_METHODS:
            mutated = self_attr(inner.func.value)
            if mutated is not None:  # `self.history.append(x)`: changes the value in place
                self.walker.mutate(mutated, inner)


class _GuardedReads(_Reads):
    """``_Reads`` that leaves out the walker's skipped regions (eager-only code), whatever their node type."""

    def on_visit(self, node: cst.CSTNode) -> bool:
        return node not in self.walker.skip and super().on_visit(node)


def _first_reads(fn: cst.FunctionDef) -> Set[str]:
    return set(_flow(fn).first_read)


class MutableSelfState(LintRule):
    CODE = "HY807"
    READS = frozenset({SELF_ATTRIBUTE_METHODS})  # what the other methods do to the attributes
    # in reached code (a lazily built child behind a property, a naming counter in __call__) a first-call
    # write is a cache the eager block keeps too: 3 of 3 such reports on the corpus were not hazards
    REACHED = False
    NAME = "mutable-self-state"
    MESSAGE = "Python state of `self` carried between calls is frozen at trace time"
    DOC = """
## What it does
Flags, in a hybrid context, an attribute of `self` (not a child block, not a parameter) whose value is
carried from outside the call into the traced graph, or out of it into Python:
- *carried between calls*: the call reads the value that an earlier call wrote (`self.calls += 1`,
  `if self.mask is None: self.mask = ...`), or changes in place a list or dict it did not set itself
  (`self.history.append(x)`, `self.cache[k] = x`);
- *changed by a setter*: another method (not `__init__`) assigns it and does not call
  `self._clear_cached_op()`, and the call reads it before setting it (`x * self.scale` after
  `set_scale()`);
- *read by another method*: the call writes it and another method reads it (`self.last = x`,
  `def get_last(self): return self.last`).

Not flagged, because nothing is carried between calls: an attribute the call sets before it reads it
(`self.outputs = []` at the top, then appended to and returned; state passed between unrolled steps
of one trace), an attribute whose every setter clears the cached graph (`self._clear_cached_op()`, or
HybridBlock's `cast()`, which calls it), a scalar literal written on every call (`self.clip = -1`), an
attribute only `__init__` assigns, and the state of a recurrent cell that its `reset()` clears (`unroll()`
calls `reset()` before every sequence, so the state lives for one sequence; inside a hybridized
parent the whole unroll is one trace), and likewise state that a block class of the same file resets
from its own traced code (`self.decoder.cache_reset()` before or after the decoding steps it unrolls:
measured, the parent gives the eager output on every call). A parent in another file is not seen. Nor an attribute that `__call__` or `forward` sets on every call
from its arguments: like a Python argument of `hybrid_forward`, its value is frozen only for the
calls that differ from the traced one (measured: a hybridized `rnn.LSTM`, whose `__call__` sets
`self.skip_states = states is None`, called first without and then with states returns an NDArray
where eagerly it returns `(output, states)`; inside a hybridized parent that always calls it the same
way it is fine, and the zoo check saw it only there).

## Why is this bad?
After `hybridize()` the body runs once, when the graph is traced: Python values read from `self`
become constants of the graph and Python side effects happen once. Measured on MXNet 1.9.1 (three
calls, eager vs hybridized):
- `self.calls += 1; return x * self.calls` gives 1, 2, 3 eagerly and 1, 1, 1 hybridized; `net.calls`
  is 3 eagerly and 1 hybridized;
- `return x * self.scale` keeps the old scale after a `set_scale(5.0)` that only assigns
  `self.scale` (2, 5, 5 eagerly; 2, 2, 2 hybridized); with `self._clear_cached_op()` in the setter the
  next call traces again and gives 2, 5, 5 in both modes;
- `self.history.append(x)` (a list made in `__init__`): 3 NDArrays after three calls eagerly, one
  Symbol hybridized;
- `self.last = x * 2` read by `get_last()`: eagerly an NDArray of the last call, hybridized the
  Symbol of the trace (`asnumpy()` raises `NotImplementedForSymbol`);
- `self.outputs = []` then appended to and concatenated, and `self.state = x` then updated in an
  unrolled loop, give equal outputs in both modes;
- `rnn.ZoneoutCell` (its previous output kept in `self._prev_output`, cleared by `reset()`) unrolled in
  training inside a hybridized parent gives the eager output; hybridized on its own and unrolled, every
  step sees the zeros of the trace instead of the previous output (a different output). This last case
  is not flagged: cells are normally unrolled inside the model that is hybridized.
No error is raised in any case.

## Example
```python
def set_scale(self, s):
    self.scale = s

def hybrid_forward(self, F, x):
    self.calls += 1
    return x * self.scale
```

## Use instead
A parameter (`self.scale = self.params.get('scale', grad_req='null', ...)` and `set_data`), a setter
that calls `self._clear_cached_op()` before changing the value, side effects outside
`hybrid_forward`, or state set at the top of every call.

## Fix safety
No fix.
"""
    VALID = [
        Valid(CLS.format("    def hybrid_forward(self, F, x):\n        return x * self.scale\n")),
        Valid(CLS.format("    def hybrid_forward(self, F, x):\n        if F is nd:\n            self.calls += 1\n        return x\n")),
        Valid("class N(Block):\n    def forward(self, x):\n        self.calls += 1\n        return x\n"),
        Valid(CLS.format("    def hybrid_forward(self, F, x):\n        self.outputs = []\n        for i in range(3):\n"
                         "            x = x * 2\n            self.outputs.append(x)\n"
                         "        return F.concat(*self.outputs, dim=0)\n")),
        Valid(CLS.format("    def set_scale(self, s):\n        self._clear_cached_op()\n        self.scale = s\n\n"
                         "    def hybrid_forward(self, F, x):\n        return x * self.scale\n")),
        Valid(CLS.format("    def hybrid_forward(self, F, x):\n        self.state = x\n        for _ in range(3):\n"
                         "            self.state = self.state * 2 + 1\n        return self.state\n")),
        Valid(CLS.format("    def hybrid_forward(self, F, x):\n        self.last = x\n        return x * 2\n")),
        Valid(CLS.format("    def predict(self, x):\n        self.feats = [x]\n        return self.feats\n\n"
                         "    def hybrid_forward(self, F, x):\n        self.feats = [x * 2]\n        return self.feats\n")),
        Valid(CLS.format("    def hybrid_forward(self, F, x):\n        if self.clip is None:\n            self.clip = -1\n"
                         "        return F.clip(x, self.clip, 1)\n")),
        Valid("class Cell(HybridRecurrentCell):\n    def reset(self):\n        super().reset()\n        self.mask = None\n\n"
              "    def hybrid_forward(self, F, x, states):\n        if self.mask is None:\n"
              "            self.mask = F.Dropout(F.ones_like(x), p=0.5)\n        return x * self.mask, states\n"),
        Valid(CLS.format("    def __call__(self, x, states=None):\n        self.skip = states is None\n"
                         "        return super().__call__(x)\n\n    def hybrid_forward(self, F, x):\n"
                         "        return x if self.skip else x * 2\n")),
        Valid(CLS.format("    def _make_layers(self, n):\n        self.body = nn.Dense(n)\n\n"
                         "    def hybrid_forward(self, F, x):\n        return self.body(x)\n")
              .replace("self.scale = 2.0", "self._make_layers(4)")),
        Valid("class Step(HybridBlock):\n    def __init__(self):\n        super().__init__()\n        self.cache = {}\n\n"
              "    def cache_reset(self):\n        self.cache = {}\n\n    def hybrid_forward(self, F, x):\n"
              "        cache = self.cache.copy()\n        if 'h' in cache:\n            x = x + cache['h']\n"
              "        self.cache = {'h': x}\n        return x\n\n\n"
              "class Sampler(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
              "        self.step = Step()\n\n    def hybrid_forward(self, F, x):\n        self.step.cache_reset()\n"
              "        for _ in range(3):\n            x = self.step(x)\n        return x\n"),
        Valid(CLS.format("    def cast(self, dtype):\n        super().cast(dtype)\n        self.dtype = dtype\n\n"
                         "    def hybrid_forward(self, F, x):\n        return x.astype(self.dtype)\n")),
    ]
    INVALID = [
        Invalid(CLS.format("    def hybrid_forward(self, F, x):\n        self.calls += 1\n        return x * 2\n")),
        Invalid(CLS.format("    def set_scale(self, s):\n        self.scale = s\n\n"
                           "    def hybrid_forward(self, F, x):\n        return x * self.scale\n")),
        Invalid(CLS.format("    def get_last(self):\n        return self.last\n\n"
                           "    def hybrid_forward(self, F, x):\n        self.last = x\n        return x\n")),
        Invalid(CLS.format("    def hybrid_forward(self, F, x):\n        if self.calls == 0:\n            self.mask = x\n"
                           "        self.calls = 1\n        return x * self.mask\n")),
        Invalid(CLS.format("    def reset(self):\n        self.calls = 0\n\n"
                           "    def hybrid_forward(self, F, x):\n        self.calls += 1\n        return x * self.calls\n")),
        Invalid(CLS.format("    def hybrid_forward(self, F, x):\n        self.history.append(x)\n        return x * 2\n")),
        Invalid(CLS.format("    def _make_layers(self, n):\n        self.body = nn.Dense(n)\n\n"
                           "    def grow(self):\n        self._make_layers(8)\n\n"
                           "    def hybrid_forward(self, F, x):\n        return self.body(x)\n")
                .replace("self.scale = 2.0", "self._make_layers(4)")),
        Invalid(CLS.format("    def hybrid_forward(self, F, x):\n        self.cache['last'] = x\n"
                           "        return x + self.cache['first']\n")),
        Invalid(CLS.format("    def hybrid_forward(self, F, x):\n        for _ in range(3):\n"
                           "            x = x + self.prev\n            self.prev = x\n        return x\n")),
    ]

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx) -> None:
        hybrid, cls = ctx.hybrid, ctx.cls
        if cls is None or node is not hybrid.fn:
            return
        flow = _flow(node, hybrid.eager_only)
        if not flow.first_write and not flow.first_read:
            return
        info = ctx.module_info
        contexts = info.contexts
        ignored = set(cls.children) | set(cls.params)
        reset = cls.methods.get("reset")
        if reset is not None and _is_recurrent_cell(cls, info.classes):
            ignored |= info.memo("written-attrs", reset, _written_attrs)  # per-sequence state of the unroll (see RECURRENT_CELL_BASES)
        ignored |= info.memo("reset-by-parents", cls.node, lambda _: _reset_in_traced_parents(cls, info))
        writes = [(attr, write) for attr, write in flow.first_write.items() if attr not in ignored and attr in flow.varying]
        reads = [(attr, read) for attr, read in flow.first_read.items() if attr not in ignored and attr not in flow.written]
        if not writes and not reads:
            return  # the class's other methods are read only for these
        building = info.memo("construction-methods", cls.node, lambda _: _construction_methods(cls.methods))
        others = {name: method for name, method in cls.methods.items()
                  if name not in building and method not in contexts}
        # written by another hybrid context of the class (a helper): reported there, once
        traced_writes = {attr for method in cls.methods.values() if method in contexts and method is not node
                         for attr in info.memo("written-attrs", method, _written_attrs)} if reads else set()
        outside_reads: Optional[Dict[str, Set[str]]] = None
        for attr, write in writes:
            if attr in flow.first_read:
                ctx.report(write, f"`self.{attr}` carries a value between calls: after hybridize() it is frozen in the graph",
                           help="It is read before this call sets it; after hybridize() the body runs once, when the "
                                "graph is traced, so the value is frozen there",
                           instead="the state as an input of hybrid_forward and the new state as an output, or "
                                   "state set at the top of every call")
                continue
            if outside_reads is None:  # attributes each other method reads before setting them
                outside_reads = {name: info.memo("first-reads", method, _first_reads) for name, method in others.items()}
            readers = sorted(name for name, read in outside_reads.items() if attr in read)
            if readers:
                ctx.report(write, f"`self.{attr}` is read by `{readers[0]}()`: after hybridize() it holds the trace's Symbol",
                           help="After hybridize() it holds the Symbol of the trace (written once), not this call's value",
                           instead="return the value as an output of hybrid_forward")
        for attr, read in reads:
            if attr in traced_writes:
                continue
            setters = sorted(name for name, method in others.items() if name not in PER_CALL_METHODS
                             and attr in info.memo("written-attrs", method, _written_attrs)
                             and not info.memo("clears-cache", method, _clears_cache))
            if setters:
                ctx.report(read, f"`self.{attr}` is changed by `{setters[0]}()`, but after hybridize() the graph keeps its "
                                 f"old value",
                           help=f"`{setters[0]}()` does not call `self.{CLEAR_CACHE}()`: after hybridize() the value "
                                f"read when the graph was traced stays baked into it",
                           instead=f"a call of `self.{CLEAR_CACHE}()` in `{setters[0]}()`, so that the next call "
                                   f"traces again, or a parameter (`set_data`) instead of the attribute")
