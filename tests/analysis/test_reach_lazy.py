"""A package's reach parses only the modules a trace can go to (analyze_sources), and finds what the
analysis looks for by text in the others: methods called on an object of unknown class, subclasses of an
annotated class, subclasses of a block (which inherit its hybrid_forward). tests/analysis/test_reach.py runs
every one of its packages both ways and compares them; these cases are about what is parsed."""
from __future__ import annotations

import ast
import textwrap

from hylint.analysis.reach import FunctionKey, analyze_sources

from test_reach import HEADER, get, reach


def lazily(**sources):
    """(result, the modules parsed, in order) of analyze_sources over keyword-argument modules."""
    texts = {name.replace("__", "."): (HEADER + textwrap.dedent(source)).encode() for name, source in sources.items()}
    parsed = []

    def parse(name):
        parsed.append(name)
        try:
            return ast.parse(texts[name])
        except SyntaxError:  # as hylint/batch/reach.py's parse
            return None

    result = analyze_sources(texts, {name: name.replace(".", "/") + ".py" for name in texts},
                             [name for name, text in texts.items() if b"hybrid_forward" in text], parse)
    return result, parsed


MODEL = """
    from .helpers import scale

    class Model(HybridBlock):
        def hybrid_forward(self, F, x):
            return scale(F, x)
"""
HELPERS = """
    from .unused import Big

    def scale(F, x):
        return F.relu(x) * 2
"""
UNUSED = """
    class Big:
        def method(self):
            return 1
""" + "\n".join(f"    def function_{i}(a):\n        return a + {i}\n" for i in range(50))


def test_only_the_modules_a_trace_needs_are_parsed():
    result, parsed = lazily(pkg__model=MODEL, pkg__helpers=HELPERS, pkg__unused=UNUSED, pkg__other="x = 1\n")
    assert parsed == ["pkg.model", "pkg.helpers"]
    assert get(result, "pkg.helpers", "scale").f_params == {"F"}
    reach(pkg__model=MODEL, pkg__helpers=HELPERS, pkg__unused=UNUSED, pkg__other="x = 1\n")  # as when all are parsed


def test_a_method_called_on_an_unknown_object_is_looked_for_in_every_module():
    sources = dict(pkg__model="""
    class Model(HybridBlock):
        def __init__(self, head, **kwargs):
            super().__init__(**kwargs)
            self.head = head

        def hybrid_forward(self, F, x):
            return self.head.project(F, x)
    """, pkg__heads="""
    class Linear:
        def project(self, F, x):
            return F.dot(x, x)
    """, pkg__plain="""
    def project(a):
        return a
    """)
    result, parsed = lazily(**sources)
    assert "pkg.heads" in parsed and "pkg.plain" not in parsed  # a module-level def is not a method
    assert get(result, "pkg.heads", "Linear.project").certain is False
    reach(**sources)


def test_a_subclass_of_a_block_in_a_module_without_hybrid_forward_is_a_root():
    sources = dict(pkg__base="""
    class Base(HybridBlock):
        def hybrid_forward(self, F, x):
            return self.body.run(F, x)
    """, pkg__variant="""
    from .base import Base
    from .bodies import Body

    class Variant(Base):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.body = Body()
    """, pkg__bodies="""
    class Body:
        def run(self, F, x):
            return F.relu(x)
    """)
    result, parsed = lazily(**sources)
    assert "pkg.variant" in parsed
    run = get(result, "pkg.bodies", "Body.run")
    assert run.certain and run.f_params == {"F"}
    reach(**sources)


def test_subclasses_of_an_annotated_class_are_found_in_modules_nothing_imports():
    sources = dict(pkg__model="""
    from .output import Output

    class Model(HybridBlock):
        def __init__(self, output: Output, **kwargs):
            super().__init__(**kwargs)
            self.output = output

        def hybrid_forward(self, F, x):
            return self.output.distribution(F, x)
    """, pkg__output="""
    class Output:
        def distribution(self, F, x):
            return x
    """, pkg__gaussian="""
    from .output import Output

    class GaussianOutput(Output):
        def distribution(self, F, x):
            return F.exp(x)
    """)
    result, parsed = lazily(**sources)
    assert "pkg.gaussian" in parsed
    assert get(result, "pkg.gaussian", "GaussianOutput.distribution").certain
    reach(**sources)


def test_a_module_that_does_not_parse_is_left_out():
    result, parsed = lazily(pkg__model=MODEL, pkg__helpers="def scale(F, x:\n")
    assert "pkg.helpers" in parsed
    assert result.reached.get(FunctionKey("pkg.helpers", "scale")) is None
