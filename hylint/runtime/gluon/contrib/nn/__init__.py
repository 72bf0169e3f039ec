"""``mxnet.gluon.contrib.nn``: Concurrent, HybridConcurrent, Identity, SyncBatchNorm, PixelShuffle1D/2D/3D."""
import warnings

from ...block import Block, HybridBlock
from ...nn.basic_layers import BatchNorm, HybridSequential, Sequential

__all__ = ["Concurrent", "HybridConcurrent", "Identity", "SyncBatchNorm", "PixelShuffle1D", "PixelShuffle2D",
           "PixelShuffle3D"]


class Concurrent(Sequential):
    """Runs every child on the same input and concatenates the outputs along ``axis``."""

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def forward(self, x):
        from .... import ndarray as nd
        return nd.concat(*[block(x) for block in self._children.values()], dim=self.axis)


class HybridConcurrent(HybridSequential):
    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def hybrid_forward(self, F, x):
        return F.concat(*[block(x) for block in self._children.values()], dim=self.axis)


class Identity(HybridBlock):
    def hybrid_forward(self, F, x):
        return x


class SyncBatchNorm(BatchNorm):
    """Batch normalisation synchronised across devices; on one CPU device it is ``BatchNorm`` over axis 1,
    computed by MXNet's ``contrib.SyncBatchNorm`` operator (same parameters, same node name)."""

    def __init__(self, in_channels=0, num_devices=None, momentum=0.9, epsilon=1e-5, center=True, scale=True,
                 use_global_stats=False, beta_initializer="zeros", gamma_initializer="ones",
                 running_mean_initializer="zeros", running_variance_initializer="ones", **kwargs):
        super().__init__(axis=1, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
                         use_global_stats=use_global_stats, beta_initializer=beta_initializer,
                         gamma_initializer=gamma_initializer, running_mean_initializer=running_mean_initializer,
                         running_variance_initializer=running_variance_initializer, in_channels=in_channels, **kwargs)
        if num_devices is None:  # MXNet warns and counts GPUs (none here: one device)
            warnings.warn("Caution using SyncBatchNorm: if not using all the GPUs, please mannually set num_devices",
                          UserWarning)
            num_devices = 1
        self._kwargs = {"eps": epsilon, "momentum": momentum, "fix_gamma": not scale,
                        "use_global_stats": use_global_stats, "ndev": num_devices, "key": self.prefix}

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        return F.contrib.SyncBatchNorm(x, gamma, beta, running_mean, running_var, name="fwd", **self._kwargs)


class _PixelShuffle(HybridBlock):
    """Moves groups of ``prod(factors)`` channels into a block of pixels: (N, C*f1*..*fk, D1..Dk) ->
    (N, C, D1*f1, ..., Dk*fk). Built from reshape/transpose, as MXNet builds it, so both graphs agree."""

    _rank = 0

    def __init__(self, factor):
        super().__init__()
        if isinstance(factor, (tuple, list)):
            self._factors = tuple(int(f) for f in factor)
            assert len(self._factors) == self._rank, "wrong length {}".format(len(self._factors))
        else:
            self._factors = (int(factor),) * self._rank

    def hybrid_forward(self, F, x):
        k = self._rank
        x = F.reshape(x, (0, -4, -1, int(_prod(self._factors))) + (0,) * k)      # (N, C, f1*..*fk, D1..Dk)
        if k > 1:
            x = F.reshape(x, (0, 0, -4) + self._factors + (0,) * k)           # (N, C, f1, .., fk, D1..Dk)
        # interleave: (N, C, D1, f1, D2, f2, ...)
        axes = (0, 1) + tuple(a for i in range(k) for a in (2 + k + i, 2 + i))
        x = F.transpose(x, axes)
        return F.reshape(x, (0, 0) + (-3,) * k)

    def __repr__(self):
        return "{}({})".format(self.__class__.__name__, self._factors[0] if self._rank == 1 else self._factors)


def _prod(values):
    out = 1
    for v in values:
        out *= v
    return out


class PixelShuffle1D(_PixelShuffle):
    _rank = 1


class PixelShuffle2D(_PixelShuffle):
    _rank = 2


class PixelShuffle3D(_PixelShuffle):
    _rank = 3


for _cls in (Concurrent, HybridConcurrent, Identity, SyncBatchNorm, PixelShuffle1D, PixelShuffle2D, PixelShuffle3D):
    _cls.__module__ = "mxnet.gluon.contrib.nn.basic_layers"
del Block
