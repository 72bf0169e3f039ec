"""``mxnet.image``: image decoding, resizing and augmentation run OpenCV inside MXNet; the runtime provides
the names (so libraries import) and raises :class:`RuntimeUnsupported` when one is used. The few pure
helpers are real: ``_get_interp_method``, ``scale_down``, ``color_normalize``."""
from . import image  # noqa: F401
from .image import *  # noqa: F401,F403
from .image import _get_interp_method  # noqa: F401
