"""``mxnet.optimizer``: optimisers can be defined, registered, created and configured (libraries subclass
``Optimizer`` at import time), but updating weights is training, which the runtime does not do: ``update``
raises :class:`RuntimeUnsupported`."""
from . import registry
from .base import RuntimeUnsupported

__all__ = ["Optimizer", "SGD", "NAG", "Adam", "AdaGrad", "RMSProp", "AdaDelta", "Ftrl", "Adamax", "Nadam", "Signum",
           "FTML", "LARS", "LAMB", "DCASGD", "SGLD", "LBSGD", "Test", "ccSGD", "Updater", "create", "get_updater",
           "register"]


class Optimizer:
    def __init__(self, rescale_grad=1.0, param_idx2name=None, wd=0.0, clip_gradient=None, learning_rate=None,
                 lr_scheduler=None, sym=None, begin_num_update=0, multi_precision=False, param_dict=None,
                 aggregate_num=None, use_fused_step=None, **kwargs):
        self.rescale_grad, self.wd, self.clip_gradient = rescale_grad, wd, clip_gradient
        self.lr_scheduler = lr_scheduler
        self.lr = learning_rate if learning_rate is not None else 0.01
        if lr_scheduler is not None and learning_rate is not None:
            lr_scheduler.base_lr = learning_rate
        self.begin_num_update = self.num_update = begin_num_update
        self.multi_precision = multi_precision
        self.idx2name = dict(param_idx2name or {})
        self.param_dict = param_dict or {}
        self.lr_mult, self.wd_mult = {}, {}
        self._index_update_count = {}
        self.aggregate_num = aggregate_num or 0
        self._kwargs = kwargs

    opt_registry = {}

    @property
    def learning_rate(self):
        return self.lr_scheduler(self.num_update) if self.lr_scheduler is not None else self.lr

    def set_learning_rate(self, lr):
        if self.lr_scheduler is not None:
            raise UserWarning("LRScheduler of the optimizer has already been defined. Note that "
                              "set_learning_rate can mutate the value of the learning rate of the optimizer only "
                              "when the LRScheduler of the optimizer is undefined.")
        self.lr = lr

    def set_lr_mult(self, args_lr_mult):
        self.lr_mult = dict(args_lr_mult)

    def set_wd_mult(self, args_wd_mult):
        self.wd_mult = dict(args_wd_mult)

    def create_state(self, index, weight):
        return None

    def create_state_multi_precision(self, index, weight):
        return self.create_state(index, weight)

    def update(self, index, weight, grad, state):
        raise RuntimeUnsupported("mxnet.optimizer.%s.update (training)" % type(self).__name__)

    def update_multi_precision(self, index, weight, grad, state):
        self.update(index, weight, grad, state)

    def __getstate__(self):
        return dict(self.__dict__)


register = registry.get_register_func(Optimizer, "optimizer")
_create = registry.get_create_func(Optimizer, "optimizer")


def create(name, **kwargs):
    return _create(name, **kwargs)


Optimizer.register = staticmethod(register)
Optimizer.create_optimizer = staticmethod(create)


def _optimizer(name):
    klass = type(name, (Optimizer,), {"__module__": "mxnet.optimizer.optimizer"})
    return register(klass)


for _name in __all__[1:19]:
    globals()[_name] = _optimizer(_name)


class Updater:
    def __init__(self, optimizer):
        self.optimizer = optimizer

    def __call__(self, index, grad, weight):
        raise RuntimeUnsupported("mxnet.optimizer.Updater (training)")


def get_updater(optimizer):
    return Updater(optimizer)
