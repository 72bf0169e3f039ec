"""``gluon.Trainer``: constructible (model files often build one at import time), but training needs
autograd, which the runtime does not implement."""


class Trainer:
    def __init__(self, params, optimizer, optimizer_params=None, kvstore="device", compression_params=None,
                 update_on_kvstore=None):
        self._params = list(params.values()) if hasattr(params, "values") else list(params)
        self._optimizer = optimizer
        self._optimizer_params = dict(optimizer_params or {})

    @property
    def learning_rate(self):
        return self._optimizer_params.get("learning_rate", 0.01)

    def set_learning_rate(self, lr):
        self._optimizer_params["learning_rate"] = lr

    def step(self, batch_size, ignore_stale_grad=False):
        raise NotImplementedError("hylint.runtime does not implement autograd, so Trainer.step cannot train")

    update = step

    def allreduce_grads(self):
        return None


Trainer.__module__ = "mxnet.gluon.trainer"
