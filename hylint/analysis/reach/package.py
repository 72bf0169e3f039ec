"""The package index: its modules, parsed when the analysis first needs them, their functions and classes,
and what names resolve to.

Reads the package's module names, a parser for each and, for a lazy load, their text (searched for the
modules that may define a method or subclass a class); answers what a global name or a dotted member is
(``resolve``, ``member``), a class's package bases (``mro``), whether it is a block, its methods and
attributes (``method``, ``attr``, with what it stores before a trace: stored.py), which non-block classes
define a method of a name, and whether a function is a property or a guard helper (a function whose body
is ``return <a mode test of its first parameter>``, guards.py).
"""
from __future__ import annotations

import ast
import re
from typing import Callable, Dict, Iterable, List, Mapping, Optional, Set, Tuple, Union

from hylint.analysis.reach.atoms import F, NOTHING, ClassKey, FunctionKey, Value, _F_NAMESPACES
from hylint.analysis.reach.guards import _static_mode
from hylint.analysis.reach.modules import _Class, _Module, _top_level
from hylint.analysis.reach.stored import _StoredAttrs
from hylint.analysis.reach.syntax import _params

# the base lists of a module's class statements, the words in them (``class Net(nn.HybridBlock):``), and
# the names of indented (method) definitions; each starts with a literal (ten times faster than ``\b`` or
# ``^`` first), and what else they match, in a comment or a string, only loads a module more
_CLASS_BASES = re.compile(rb"class\s+\w+\s*\(([^)]*)\)")
_WORDS = re.compile(rb"\w+")
_METHODS_DEFINED = (re.compile(rb" def\s+(\w+)"), re.compile(rb"\tdef\s+(\w+)"))  # indented: a method


class _Package(_StoredAttrs):
    """The package's modules, parsed when the analysis first needs them.

    ``names``: every module of the package; ``parse(name)`` gives its tree (None: it does not parse);
    ``texts``: the modules' bytes, searched (as text, at C speed) for the modules that may define what the
    analysis looks for beyond the names it resolves: methods called on an object of unknown class, package
    subclasses of an annotated class or of a block. Without ``texts`` every module is loaded up
    front (``load(names)``) and nothing needs searching."""

    def __init__(self, names: Iterable[str], parse: Callable[[str], Optional[ast.Module]],
                 paths: Mapping[str, Optional[str]], texts: Optional[Mapping[str, bytes]] = None) -> None:
        self.paths = dict(paths)
        self.names = set(names)
        self._parse = parse
        self._texts = texts
        # the names another module's name starts with, up to a dot (`a` and `a.b` for `a.b.c`)
        self._parents = {other.rsplit(".", depth)[0] for other in self.names for depth in range(1, other.count(".") + 1)}
        self.modules: Dict[str, _Module] = {}
        self._unparsable: Set[str] = set()
        self.functions: Dict[FunctionKey, Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda]] = {}
        self.owner: Dict[FunctionKey, ClassKey] = {}     # method -> its class
        self.classes: Dict[ClassKey, _Class] = {}
        # (nested function, receiver) -> the env of the enclosing function it sees
        self.closures: Dict[Tuple[FunctionKey, Optional[ClassKey]], Dict[str, Value]] = {}
        self._mro: Dict[ClassKey, List[_Class]] = {}
        self._blocks: Dict[ClassKey, bool] = {}
        self._guard_helpers: Dict[FunctionKey, Optional[str]] = {}
        # memos, valid while the number of loaded classes is the one recorded
        self._by_method_name: Dict[str, Tuple[int, List[ClassKey]]] = {}
        self._subclasses_known: Dict[ClassKey, Tuple[int, List[ClassKey]]] = {}
        # searches of the text of the modules not loaded: method name -> the modules that may define it, a
        # word -> the modules whose class statements name it among their bases
        self._definers: Optional[Dict[str, List[str]]] = None
        self._subclassers: Optional[Dict[str, List[str]]] = None

    # -- loading

    def load(self, names: Iterable[str]) -> None:
        """Parse `names` and collect their functions and classes (the modules of their bases first)."""
        for name in names:
            self._load(name)

    def _load(self, name: str) -> None:
        if name in self.modules or name in self._unparsable or name not in self.names:
            return
        tree = self._parse(name)
        if tree is None:
            self._unparsable.add(name)
            return
        path = self.paths.get(name) or ""
        module = self.modules[name] = _Module(name, tree, path.endswith("__init__.py") or name in self._parents)
        new: List[_Class] = []
        self._collect(module.name, tree.body, "", new)
        for cls in new:
            cls.bases = [atom for base in cls.node.bases for atom in self._resolve_expr(cls.key.module, base)]

    def attrs_of(self, cls: _Class) -> Dict[str, Value]:
        """``cls.attrs``, with what the class stores on self before a trace read in first (when first asked:
        what its ``__init__`` names would load modules no trace may need)."""
        if not cls.ready:
            cls.ready = True
            self._constructor_attrs(cls)
            self._class_level_attrs(cls)
            self._typed_constructor_args(cls)
        return cls.attrs

    def module(self, name: str) -> Optional[_Module]:
        if name not in self.modules:
            self.load([name])
        return self.modules.get(name)

    def load_defining(self, name: str) -> None:
        """Load the modules that may define a method `name` (an indented ``def name`` in their text)."""
        if self._texts is None:
            return
        if self._definers is None:
            self._definers = self._index(lambda text: {word for pattern in _METHODS_DEFINED
                                                       for word in pattern.findall(text)})
        self.load(self._definers.pop(name, ()))

    def load_subclassing(self, name: str) -> None:
        """Load the modules that may define a subclass of a class called `name` (a class statement whose base
        list names it: ``class S(Base)``, ``class S(mod.Base)``; a base imported under another name is not
        seen)."""
        if self._texts is None:
            return
        if self._subclassers is None:
            self._subclassers = self._index(lambda text: {word for bases in _CLASS_BASES.findall(text)
                                                          for word in _WORDS.findall(bases)})
        self.load(self._subclassers.pop(name, ()))

    def _index(self, words_of: Callable[[bytes], Iterable[bytes]]) -> Dict[str, List[str]]:
        """word -> the modules not loaded yet whose text gives it (`words_of`), in name order."""
        index: Dict[str, List[str]] = {}
        for module in sorted(self.names - self.modules.keys()):
            for word in words_of(self._texts[module]):
                index.setdefault(word.decode("latin-1"), []).append(module)
        return index

    def load_block_subclasses(self) -> None:
        """Load the modules defining a subclass of a loaded class that is a block with a ``hybrid_forward``
        (it inherits it: a root of its own), until none is left."""
        done: Set[str] = set()
        while True:
            rooted = {key.qualname.rsplit(".", 1)[-1] for key in list(self.classes)
                      if self.is_block(key) and self.method(key, "hybrid_forward") is not None} - done
            if not rooted:
                return
            done |= rooted
            for name in sorted(rooted):
                self.load_subclassing(name)

    def _collect(self, module: str, body: Iterable[ast.stmt], prefix: str, new: List[_Class]) -> None:
        for stmt in _top_level(body):
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions[FunctionKey(module, prefix + stmt.name)] = stmt
            elif isinstance(stmt, ast.ClassDef) and not prefix.endswith(">."):
                key = ClassKey(module, prefix + stmt.name)
                cls = self.classes[key] = _Class(key, stmt)
                new.append(cls)
                for item in stmt.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        method = FunctionKey(module, f"{key.qualname}.{item.name}")
                        self.functions[method] = item
                        self.owner[method] = key
                        cls.methods[item.name] = method
                self._collect(module, [s for s in stmt.body if isinstance(s, ast.ClassDef)], key.qualname + ".", new)

    @property
    def blocks(self) -> Set[ClassKey]:
        """The loaded classes that are blocks."""
        return {key for key in self.classes if self.is_block(key)}

    def by_method_name(self, name: str) -> List[ClassKey]:
        """The classes that are not blocks and define method `name` (for calls on unknown receivers)."""
        self.load_defining(name)
        known = self._by_method_name.get(name)
        if known is None or known[0] != len(self.classes):
            known = self._by_method_name[name] = (len(self.classes), [
                key for key in sorted(self.classes) if name in self.classes[key].methods and not self.is_block(key)])
        return known[1]

    # -- names

    def resolve(self, module: str, name: str, seen: Optional[Set[Tuple[str, str]]] = None) -> Value:
        """What a global `name` of `module` is: a package function, class or module, or an external name."""
        mod = self.module(module)
        if mod is None:
            return NOTHING
        node = mod.defs.get(name)
        if node is not None:
            key = FunctionKey(module, name)
            return frozenset({("class", key) if isinstance(node, ast.ClassDef) else ("fn", key)})
        if name in mod.imports:
            target, attr = mod.imports[name]
            return self._resolve_import(target, attr, seen or set())
        return NOTHING

    def _resolve_import(self, target: str, attr: Optional[str], seen: Set[Tuple[str, str]]) -> Value:
        if attr is None:
            return frozenset({("module", target)}) if self._exists(target) else frozenset({("external", target)})
        if (target, attr) in seen:
            return NOTHING
        seen.add((target, attr))
        if self._exists(f"{target}.{attr}"):
            return frozenset({("module", f"{target}.{attr}")})
        if self._exists(target):
            return self.resolve(target, attr, seen)
        return frozenset({("external", f"{target}.{attr}")})

    def _exists(self, name: str) -> bool:
        """A module of the package (one not loaded yet counts until it fails to parse)."""
        return name in self.names and name not in self._unparsable

    def _resolve_expr(self, module: str, expr: ast.expr) -> Value:
        """A dotted expression at module level (a base class): resolved without any local variable."""
        if isinstance(expr, ast.Name):
            return self.resolve(module, expr.id)
        if isinstance(expr, ast.Attribute):
            return self.member(self._resolve_expr(module, expr.value), expr.attr)
        return NOTHING

    def member(self, value: Value, attr: str) -> Value:
        """`<value>.attr` for module and external atoms (the static part of attribute access)."""
        out: Set[tuple] = set()
        for atom in value:
            if atom[0] == "module":
                sub = f"{atom[1]}.{attr}"
                out |= {("module", sub)} if self._exists(sub) else self.resolve(atom[1], attr)
            elif atom[0] == "external":
                name = f"{atom[1]}.{attr}"
                out.add(F if name in _F_NAMESPACES else ("external", name))
        return frozenset(out)

    # -- classes

    def mro(self, key: ClassKey) -> List[_Class]:
        """The class and its package bases, depth first (no C3: single inheritance is what Gluon code uses)."""
        if key in self._mro:
            return self._mro[key]
        order: List[_Class] = []
        self._mro[key] = order
        stack = [key]
        while stack:
            cls = self.classes.get(stack.pop(0))
            if cls is None or cls in order:
                continue
            order.append(cls)
            stack.extend(atom[1] for atom in cls.bases if atom[0] == "class")
        return order

    def external_bases(self, key: ClassKey) -> List[str]:
        return [atom[1] for cls in self.mro(key) for atom in cls.bases if atom[0] == "external"]

    def is_block(self, key: ClassKey) -> bool:
        known = self._blocks.get(key)
        if known is None:
            known = self._blocks[key] = self._is_block(key)
        return known

    def _is_block(self, key: ClassKey) -> bool:
        if any(cls.methods.get("hybrid_forward") for cls in self.mro(key)):
            return True
        return any(name.rsplit(".", 1)[-1].endswith(("Block", "Sequential", "Concurrent", "HybridLambda"))
                   for name in self.external_bases(key))

    def guard_helper(self, key: FunctionKey) -> Optional[str]:
        """'nd' or 'sym' for a function whose body is ``return <a mode test of its first parameter>``
        (autogluon's ``mxnet_is_ndarray(F)``: ``return F.__name__ == 'mxnet.ndarray'``), else None."""
        if key not in self._guard_helpers:
            node = self.functions.get(key)
            mode = None
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _params(node):
                body = node.body[1:] if ast.get_docstring(node, clean=False) is not None else node.body
                if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None:
                    mode = _static_mode(body[0].value, _params(node)[0].arg)
            self._guard_helpers[key] = mode
        return self._guard_helpers[key]

    def is_property(self, key: FunctionKey) -> bool:
        node = self.functions[key]
        return not isinstance(node, ast.Lambda) and any(
            isinstance(d, ast.Name) and d.id in ("property", "cached_property")
            or isinstance(d, ast.Attribute) and d.attr == "cached_property" for d in node.decorator_list)

    def method(self, key: ClassKey, name: str) -> Optional[FunctionKey]:
        for cls in self.mro(key):
            if name in cls.methods:
                return cls.methods[name]
        return None

    def attr(self, key: ClassKey, name: str) -> Value:
        out: Set[tuple] = set()
        for cls in self.mro(key):
            out |= self.attrs_of(cls).get(name, NOTHING)
        return frozenset(out)
