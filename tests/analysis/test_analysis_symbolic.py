"""analysis/symbolic.py: parameter shapes as expressions over __init__'s arguments, and HY101 on them."""
import libcst as cst

from hylint.analysis import analyze_module
from hylint.lint.engine import Linter
from hylint.selection import select_rules

CONV = '''
class Masked(nn.Conv2D):
    def __init__(self, in_channels, out_channels, kernel_size, groups=1, **kwargs):
        super(Masked, self).__init__(in_channels=in_channels, channels=out_channels, kernel_size=kernel_size,
                                     groups=groups, **kwargs)
{body}
    def hybrid_forward(self, F, x, weight, bias=None, mask=None):
        return super(Masked, self).hybrid_forward(F, x, weight=weight * mask, bias=bias)
'''


def _conv(body):
    return CONV.format(body="".join(f"        {line}\n" for line in body.splitlines()))


def _class(source, name="Masked"):
    return analyze_module(cst.parse_module(source)).classes[name]


def _hy101(source):
    return [d.start[0] for d in Linter(select_rules(("HY101",))).lint_source(source, "m.py").diagnostics]


XDENSENET = ("if isinstance(kernel_size, int):\n    kernel_size = (kernel_size, kernel_size)\n"
             "grouped = in_channels // groups\n"
             "self.mask = self.params.get('mask', shape=(out_channels, grouped, kernel_size[0], kernel_size[1]))")


def test_a_mask_declared_with_the_weights_shape_is_proven_equal():
    info = _class(_conv(XDENSENET))
    assert info.symbolic_params["mask"] == info.symbolic_params["weight"]
    assert info.symbolic_params["weight"] == ("out_channels", "(in_channels // groups)", "as2(kernel_size)[0]",
                                              "as2(kernel_size)[1]")
    assert info.inherited_params == {"weight", "bias"}
    assert _hy101(_conv(XDENSENET)) == []


def test_the_pair_idiom_written_with_a_repetition_is_the_same():
    body = XDENSENET.replace("(kernel_size, kernel_size)", "(kernel_size,) * 2")
    assert _class(_conv(body)).symbolic_params["mask"] == _class(_conv(body)).symbolic_params["weight"]


def test_different_expressions_are_not_proven_equal():
    info = _class(_conv(XDENSENET.replace("in_channels // groups", "in_channels")))
    assert info.symbolic_params["mask"] != info.symbolic_params["weight"]


def test_a_name_rebound_in_a_loop_or_branch_is_unknown():
    body = XDENSENET.replace("grouped = in_channels // groups",
                             "grouped = in_channels // groups\nfor _ in range(2):\n    grouped = grouped * 2")
    assert _class(_conv(body)).symbolic_params["mask"][1] is None
    body = XDENSENET.replace("if isinstance(kernel_size, int):", "if self.wide:")
    assert _class(_conv(body)).symbolic_params["mask"][2] is None


def test_a_mask_with_a_size1_axis_is_still_flagged():
    body = "self.mask = self.params.get('mask', shape=(out_channels, 1, 1, 1))"
    assert _hy101(_conv(body)) == [9]


def test_a_base_class_of_the_module_is_not_the_builtin():
    source = "class Conv2D(HybridBlock):\n    pass\n" + _conv(XDENSENET)
    assert _class(source).inherited_params == set()
