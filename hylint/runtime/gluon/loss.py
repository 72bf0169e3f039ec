"""A few Gluon losses (``mxnet.gluon.loss``): L2, L1, softmax cross-entropy, sigmoid binary cross-entropy."""
from .. import ndarray as _nd
from ..base import numeric_types
from .block import HybridBlock

__all__ = ["Loss", "L2Loss", "L1Loss", "SoftmaxCrossEntropyLoss", "SoftmaxCELoss", "SigmoidBinaryCrossEntropyLoss",
           "SigmoidBCELoss"]


def _apply_weighting(F, loss, weight=None, sample_weight=None):
    """``loss * sample_weight`` (broadcast) ``* weight`` (a number): MXNet's helper, which libraries import."""
    if sample_weight is not None:
        loss = F.broadcast_mul(loss, sample_weight)
    if weight is not None:
        assert isinstance(weight, numeric_types), "weight must be a number"
        loss = loss * weight
    return loss


def _reshape_like(F, x, y):
    """``x`` reshaped to ``y``'s shape (eagerly by ``reshape``, in a graph by ``reshape_like``)."""
    if F is _nd:
        return x.reshape(y.shape)
    return F.reshape_like(x, y)


class Loss(HybridBlock):
    def __init__(self, weight, batch_axis, **kwargs):
        super().__init__(**kwargs)
        self._weight = weight
        self._batch_axis = batch_axis

    def __repr__(self):
        return "{name}(batch_axis={_batch_axis}, w={_weight})".format(name=self.__class__.__name__, **self.__dict__)

    def _reduce(self, F, loss):
        return F.mean(loss, axis=self._batch_axis, exclude=True)


class L2Loss(Loss):
    def __init__(self, weight=1.0, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = F.reshape_like(label, pred)
        loss = F.square(label - pred)
        return self._reduce(F, _apply_weighting(F, loss, self._weight / 2, sample_weight))


class L1Loss(Loss):
    def __init__(self, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = F.reshape_like(label, pred)
        return self._reduce(F, _apply_weighting(F, F.abs(label - pred), self._weight, sample_weight))


class SoftmaxCrossEntropyLoss(Loss):
    def __init__(self, axis=-1, sparse_label=True, from_logits=False, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._axis, self._sparse_label, self._from_logits = axis, sparse_label, from_logits

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = F.log_softmax(pred, axis=self._axis)
        if self._sparse_label:
            loss = -F.pick(pred, label, axis=self._axis, keepdims=True)
        else:
            loss = -F.sum(pred * F.reshape_like(label, pred), axis=self._axis, keepdims=True)
        return self._reduce(F, _apply_weighting(F, loss, self._weight, sample_weight))


SoftmaxCELoss = SoftmaxCrossEntropyLoss


class SigmoidBinaryCrossEntropyLoss(Loss):
    def __init__(self, from_sigmoid=False, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_sigmoid = from_sigmoid

    def hybrid_forward(self, F, pred, label, sample_weight=None, pos_weight=None):
        label = F.reshape_like(label, pred)
        if not self._from_sigmoid:
            loss = F.relu(pred) - pred * label + F.Activation(-F.abs(pred), act_type="softrelu")
        else:
            eps = 1e-12
            loss = -(F.log(pred + eps) * label + F.log(1.0 - pred + eps) * (1.0 - label))
        return self._reduce(F, _apply_weighting(F, loss, self._weight, sample_weight))


SigmoidBCELoss = SigmoidBinaryCrossEntropyLoss

for _cls in (Loss, L2Loss, L1Loss, SoftmaxCrossEntropyLoss, SigmoidBinaryCrossEntropyLoss):
    _cls.__module__ = "mxnet.gluon.loss"
