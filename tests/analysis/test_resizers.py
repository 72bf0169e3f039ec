"""analysis/resizers.py: which `hybrid_forward`s resize their input to the size a caller gives."""
from __future__ import annotations

import ast
import textwrap

import pytest

from hylint.analysis.resizers import resize_position


def position(source: str):
    return resize_position(ast.parse(textwrap.dedent(source)).body[0])


@pytest.mark.parametrize("source, expected", [
    # gluoncv2's InterpolationBlock: a test the given size decides, a conditional expression
    ("""
     def hybrid_forward(self, F, x, size=None):
         if self.bilinear or (size is not None):
             out_size = self.calc_out_size(x) if size is None else size
             return F.contrib.BilinearResize2D(x, height=out_size[0], width=out_size[1])
         else:
             return F.UpSampling(x, scale=self.scale_factor, sample_type="nearest")
     """, (1, "")),
    # other names, an early return for no size, the literal align_corners kept
    ("""
     def hybrid_forward(self, G, feat, skip, hw=None):
         '''Doc.'''
         if hw is None:
             return G.UpSampling(feat, scale=2, sample_type="nearest")
         target = hw
         return G.contrib.BilinearResize2D(feat, height=target[0], width=target[1], align_corners=False)
     """, (2, "align_corners=False")),
    ("""
     def hybrid_forward(self, F, x, size):
         if not size is None and self.on:
             return F.contrib.BilinearResize2D(x, height=size[0], width=size[1])
         return x
     """, None),  # `self.on` decides, not the size
    ("""
     def hybrid_forward(self, F, x, size):
         return F.contrib.BilinearResize2D(x, height=size[1], width=size[0])
     """, None),  # the axes swapped
    ("""
     def hybrid_forward(self, F, x, size):
         return F.contrib.BilinearResize2D(x, height=size[0] * 2, width=size[1])
     """, None),
    ("""
     def hybrid_forward(self, F, x, size):
         x = F.relu(x)
         return F.contrib.BilinearResize2D(x, height=size[0], width=size[1])
     """, None),  # the input rebound
    ("""
     def hybrid_forward(self, F, x, size):
         print(size)
         return F.contrib.BilinearResize2D(x, height=size[0], width=size[1])
     """, None),  # something else runs
    ("""
     def hybrid_forward(self, F, x, size):
         return F.contrib.BilinearResize2D(x, height=size[0], width=size[1], align_corners=self.corners)
     """, None),  # align_corners not a literal
    ("""
     def hybrid_forward(self, F, x, size):
         return F.contrib.BilinearResize2D(x, height=size[0], width=size[1], mode="size")
     """, None),
])
def test_resize_position(source, expected):
    assert position(source) == expected
