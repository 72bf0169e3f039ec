"""What HY201 says to write instead of a shape read it cannot rewrite (hylint/rules/_shape_instead.py)."""
from __future__ import annotations

from hylint.lint.engine import Linter
from hylint.selection import select_rules

HEAD = "class Seg(HybridBlock):\n    def hybrid_forward(self, F, img):\n"


def messages(body: str):
    source = HEAD + "".join(f"        {line}\n" for line in body.splitlines())
    # the advice is the help's, the longer explanation the one-line message leaves out
    return [f"{d.message} {d.help}" for d in Linter(select_rules(select=["HY201"])).lint_source(source, "t.py").diagnostics]


def test_a_size_handed_to_a_child_block_says_pass_the_tensor():
    # gluoncv2's CGNet, DABNet, LEDNet: the child (an interpolation in another module) takes the size
    [message] = messages("hw = self.hw if self.fixed else img.shape[2:]\nout = self.head(img)\n"
                         "return self.resize(out, hw)")
    assert "pass the tensor `img` itself to `self.resize`" in message
    assert "F.contrib.BilinearResize2D(y, img, mode='like')" in message


def test_a_size_kept_in_the_block_gets_the_general_advice():
    [message] = messages("hw = img.shape[2:]\nreturn F.relu(img) * hw[0]")
    assert "pass the tensor" not in message and "a size given to `__init__`" in message
