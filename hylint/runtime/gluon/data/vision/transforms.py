"""``mxnet.gluon.data.vision.transforms``.

Real: ``Compose``, ``HybridCompose``, ``Cast``, ``ToTensor``, ``Normalize`` (on the ``image.to_tensor`` and
``image.normalize`` operators, as in MXNet). The resizing, cropping and random augmentations decode or
resample images, which the runtime does not do: they build, and calling one raises
:class:`RuntimeUnsupported` naming it.
"""
from ....base import RuntimeUnsupported
from ...block import Block, HybridBlock
from ...nn import HybridSequential, Sequential

__all__ = ["Compose", "HybridCompose", "Cast", "ToTensor", "Normalize", "RandomResizedCrop", "CropResize",
           "CenterCrop", "Resize", "RandomFlipLeftRight", "RandomFlipTopBottom", "RandomBrightness",
           "RandomContrast", "RandomSaturation", "RandomHue", "RandomColorJitter", "RandomLighting", "RandomGray",
           "RandomRotation", "RandomApply", "HybridRandomApply"]


class Compose(Sequential):
    """Applies transforms in order; runs of consecutive HybridBlocks are grouped into one hybridized
    ``HybridSequential`` (a lone one is added as is), as MXNet groups them."""

    def __init__(self, transforms):
        super().__init__()
        run = []
        for t in list(transforms) + [None]:
            if isinstance(t, HybridBlock):
                run.append(t)
                continue
            if len(run) == 1:
                self.add(run[0])
            elif run:
                group = HybridSequential()
                group.add(*run)
                group.hybridize()
                self.add(group)
            run = []
            if t is not None:
                self.add(t)


class HybridCompose(HybridSequential):
    def __init__(self, transforms):
        super().__init__()
        for t in transforms:
            if not isinstance(t, HybridBlock):
                raise ValueError("{} is not a HybridBlock, try use `Compose` instead".format(t))
            self.add(t)
        self.hybridize()


class Cast(HybridBlock):
    def __init__(self, dtype="float32"):
        super().__init__()
        self._dtype = dtype

    def hybrid_forward(self, F, x):
        return F.cast(x, self._dtype)


class ToTensor(HybridBlock):
    """(H, W, C) or (N, H, W, C) values in [0, 255] -> float32 (C, H, W) / (N, C, H, W) in [0, 1]."""

    def hybrid_forward(self, F, x):
        return F.image.to_tensor(x)


class Normalize(HybridBlock):
    """``(x - mean) / std`` per channel of a (C, H, W) or (N, C, H, W) tensor."""

    def __init__(self, mean=0.0, std=1.0):
        super().__init__()
        self._mean, self._std = mean, std

    def hybrid_forward(self, F, x):
        return F.image.normalize(x, self._mean, self._std)


def _augmentation(name, base=HybridBlock):
    """A transform class that resamples or decodes images: it builds, and says it is unsupported when called."""
    def __init__(self, *args, **kwargs):
        base.__init__(self)
        self._args, self._kwargs = args, kwargs

    def forward(self, *args):
        raise RuntimeUnsupported("mxnet.gluon.data.vision.transforms.%s (image resampling)" % name)
    return type(name, (base,), {"__init__": __init__, "forward": forward,
                                "__module__": "mxnet.gluon.data.vision.transforms"})


for _name in __all__[5:]:
    globals()[_name] = _augmentation(_name, Block if _name == "RandomApply" else HybridBlock)
