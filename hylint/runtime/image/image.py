"""``mxnet.image.image`` (and the detection augmenters of ``mxnet.image.detection``): see the package doc."""
import random as _random

from ..base import unsupported, unsupported_class

_FUNCTIONS = ("imread", "imresize", "imdecode", "copyMakeBorder", "resize_short", "fixed_crop", "random_crop",
              "center_crop", "random_size_crop", "imrotate", "random_rotate", "CreateAugmenter",
              "CreateMultiRandCropAugmenter", "CreateDetAugmenter")
_CLASSES = ("Augmenter", "SequentialAug", "ResizeAug", "ForceResizeAug", "RandomCropAug", "RandomSizedCropAug",
            "CenterCropAug", "RandomOrderAug", "BrightnessJitterAug", "ContrastJitterAug", "SaturationJitterAug",
            "HueJitterAug", "ColorJitterAug", "LightingAug", "ColorNormalizeAug", "RandomGrayAug",
            "HorizontalFlipAug", "CastAug", "ImageIter", "DetAugmenter", "DetBorrowAug", "DetRandomSelectAug",
            "DetHorizontalFlipAug", "DetRandomCropAug", "DetRandomPadAug", "ImageDetIter")

__all__ = list(_FUNCTIONS) + list(_CLASSES) + ["scale_down", "color_normalize"]

for _name in _FUNCTIONS:
    globals()[_name] = unsupported("mxnet.image." + _name)
for _name in _CLASSES:
    globals()[_name] = unsupported_class("mxnet.image." + _name)


def scale_down(src_size, size):
    """Shrinks ``size`` (w, h) to fit in ``src_size`` keeping its aspect ratio."""
    w, h = size
    sw, sh = src_size
    if sh < h:
        w, h = float(w * sh) / h, sh
    if sw < w:
        w, h = sw, float(h * sw) / w
    return int(w), int(h)


def color_normalize(src, mean, std=None):
    """``(src - mean) / std``, in place as in MXNet."""
    if mean is not None:
        src -= mean
    if std is not None:
        src /= std
    return src


def _get_interp_method(interp, sizes=()):
    """The OpenCV interpolation code to use: 9 picks by the resize direction (when ``sizes`` =
    (old_h, old_w, new_h, new_w) is given; area otherwise), 10 picks one of 0-4 at random."""
    if interp == 9:
        if not sizes:
            return 2
        assert len(sizes) == 4
        oh, ow, nh, nw = sizes
        if nh > oh and nw > ow:
            return 2
        if nh < oh and nw < ow:
            return 3
        return 1
    if interp == 10:
        return _random.randint(0, 4)
    if interp not in (0, 1, 2, 3, 4):
        raise ValueError("Unknown interp method %d" % interp)
    return interp
