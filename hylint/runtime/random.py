"""``mxnet.random``: seeding and the eager samplers."""
from .rng import seed  # noqa: F401
from .ndarray import random as _nd_random

uniform = _nd_random.uniform
normal = _nd_random.normal
randn = _nd_random.randn
multinomial = _nd_random.multinomial
