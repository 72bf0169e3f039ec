"""``mxnet.metric``: evaluation metrics (running sums over ``update(labels, preds)`` calls).

Real: ``EvalMetric``, ``CompositeEvalMetric``, ``Accuracy``, ``TopKAccuracy``, ``MAE``, ``MSE``, ``RMSE``,
``CrossEntropy``, ``Loss``, ``CustomMetric``, ``np``, ``create``. ``F1``, ``MCC``, ``Perplexity``,
``NegativeLogLikelihood``, ``PearsonCorrelation``, ``PCC`` import and raise :class:`RuntimeUnsupported`
when constructed."""
import math

import numpy as _np

from . import ndarray as _nd
from . import ndarray  # noqa: F401  (MXNet's metric module exposes it: gluonts imports `from mxnet.metric import ndarray`)
from . import registry
from .base import RuntimeUnsupported

__all__ = ["EvalMetric", "CompositeEvalMetric", "Accuracy", "TopKAccuracy", "MAE", "MSE", "RMSE", "CrossEntropy",
           "Loss", "CustomMetric", "check_label_shapes", "create", "register", "alias", "np", "F1", "MCC",
           "Perplexity", "NegativeLogLikelihood", "PearsonCorrelation", "PCC"]


def check_label_shapes(labels, preds, wrap=False, shape=False):
    """Labels and predictions must agree in length (or in shape with ``shape=True``); ``wrap`` makes lone
    NDArrays lists."""
    label_shape, pred_shape = (labels.shape, preds.shape) if shape else (len(labels), len(preds))
    if label_shape != pred_shape:
        raise ValueError("Shape of labels {} does not match shape of predictions {}".format(label_shape, pred_shape))
    if wrap:
        labels = [labels] if isinstance(labels, _nd.NDArray) else labels
        preds = [preds] if isinstance(preds, _nd.NDArray) else preds
    return labels, preds


def _numpy(x):
    return x.asnumpy() if isinstance(x, _nd.NDArray) else _np.asarray(x)


class EvalMetric:
    """Base class: keeps ``sum_metric``/``num_inst`` (reset by ``reset_local``) and global twins."""

    def __init__(self, name, output_names=None, label_names=None, **kwargs):
        self.name = str(name)
        self.output_names, self.label_names = output_names, label_names
        self._has_global_stats = kwargs.pop("has_global_stats", False)
        self._kwargs = kwargs
        self.reset()

    def __str__(self):
        return "EvalMetric: {}".format(dict(self.get_name_value()))

    def get_config(self):
        config = dict(self._kwargs)
        config.update({"metric": self.__class__.__name__, "name": self.name, "output_names": self.output_names,
                       "label_names": self.label_names})
        return config

    def update_dict(self, label, pred):
        preds = [pred[n] for n in self.output_names] if self.output_names is not None else list(pred.values())
        labels = [label[n] for n in self.label_names] if self.label_names is not None else list(label.values())
        self.update(labels, preds)

    def update(self, labels, preds):
        raise NotImplementedError()

    def _add(self, value, count):
        self.sum_metric += value
        self.global_sum_metric += value
        self.num_inst += count
        self.global_num_inst += count

    def reset(self):
        self.num_inst = self.global_num_inst = 0
        self.sum_metric = self.global_sum_metric = 0.0

    def reset_local(self):
        self.num_inst = 0
        self.sum_metric = 0.0

    def get(self):
        return (self.name, float("nan") if self.num_inst == 0 else self.sum_metric / self.num_inst)

    def get_global(self):
        if not self._has_global_stats:
            return self.get()
        return (self.name, float("nan") if self.global_num_inst == 0
                else self.global_sum_metric / self.global_num_inst)

    def get_name_value(self):
        name, value = self.get()
        name, value = (name, value) if isinstance(name, list) else ([name], [value])
        return list(zip(name, value))

    def get_global_name_value(self):
        name, value = self.get_global()
        name, value = (name, value) if isinstance(name, list) else ([name], [value])
        return list(zip(name, value))


register = registry.get_register_func(EvalMetric, "metric")
alias = registry.get_alias_func(EvalMetric, "metric")
_create = registry.get_create_func(EvalMetric, "metric")


def create(metric, *args, **kwargs):
    if callable(metric):
        return CustomMetric(metric, *args, **kwargs)
    if isinstance(metric, list):
        composite = CompositeEvalMetric()
        for child in metric:
            composite.add(create(child, *args, **kwargs))
        return composite
    return _create(metric, *args, **kwargs)


@register
@alias("composite")
class CompositeEvalMetric(EvalMetric):
    def __init__(self, metrics=None, name="composite", output_names=None, label_names=None):
        self.metrics = [create(m) for m in metrics or []]
        super().__init__(name, output_names=output_names, label_names=label_names, has_global_stats=True)

    def add(self, metric):
        self.metrics.append(create(metric))

    def get_metric(self, index):
        try:
            return self.metrics[index]
        except IndexError:
            return ValueError("Metric index {} is out of range 0 and {}".format(index, len(self.metrics)))

    def update(self, labels, preds):
        for metric in self.metrics:
            metric.update(labels, preds)

    def reset(self):
        for metric in getattr(self, "metrics", []):
            metric.reset()

    def reset_local(self):
        for metric in self.metrics:
            metric.reset_local()

    def _collect(self, getter):
        names, values = [], []
        for metric in self.metrics:
            name, value = getter(metric)
            names.extend(name if isinstance(name, list) else [name])
            values.extend(value if isinstance(value, list) else [value])
        return names, values

    def get(self):
        return self._collect(lambda m: m.get())

    def get_global(self):
        return self._collect(lambda m: m.get_global())


@register
@alias("acc")
class Accuracy(EvalMetric):
    """Share of predictions equal to the label; predictions with more dims than labels are argmax-ed on ``axis``."""

    def __init__(self, axis=1, name="accuracy", output_names=None, label_names=None):
        super().__init__(name, axis=axis, output_names=output_names, label_names=label_names, has_global_stats=True)
        self.axis = axis

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            pred, label = _numpy(pred), _numpy(label)
            if pred.shape != label.shape:
                pred = _np.argmax(pred, axis=self.axis)
            pred, label = pred.astype("int32").flat, label.astype("int32").flat
            pred, label = _np.array(pred), _np.array(label)
            check_label_shapes(label, pred)
            self._add(int((pred == label).sum()), len(pred))


@register
@alias("top_k_accuracy", "top_k_acc")
class TopKAccuracy(EvalMetric):
    def __init__(self, top_k=1, name="top_k_accuracy", output_names=None, label_names=None):
        super().__init__(name, top_k=top_k, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.top_k = top_k
        assert self.top_k > 1, "Please use Accuracy if top_k is no more than 1"
        self.name += "_%d" % self.top_k

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            assert len(pred.shape) <= 2, "Predictions should be no more than 2 dims"
            pred = _np.argpartition(_numpy(pred).astype("float32"), -self.top_k)
            label = _numpy(label).astype("int32")
            check_label_shapes(label, pred)
            n = pred.shape[0]
            if len(pred.shape) == 1:
                correct = int((pred.flat == label.flat).sum())
            else:
                k = min(pred.shape[1], self.top_k)
                correct = sum(int((pred[:, pred.shape[1] - 1 - j].flat == label.flat).sum()) for j in range(k))
            self._add(correct, n)


class _Regression(EvalMetric):
    """One value per (label, pred) pair, averaged over the pairs."""

    def __init__(self, name, output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names, has_global_stats=True)

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label, pred = _numpy(label), _numpy(pred)
            label = label.reshape(label.shape[0], 1) if label.ndim == 1 else label
            pred = pred.reshape(pred.shape[0], 1) if pred.ndim == 1 else pred
            self._add(self._score(label, pred), 1)


@register
class MAE(_Regression):
    def __init__(self, name="mae", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    @staticmethod
    def _score(label, pred):
        return float(_np.abs(label - pred).mean())


@register
class MSE(_Regression):
    def __init__(self, name="mse", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    @staticmethod
    def _score(label, pred):
        return float(((label - pred) ** 2.0).mean())


@register
class RMSE(_Regression):
    def __init__(self, name="rmse", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    @staticmethod
    def _score(label, pred):
        return math.sqrt(float(((label - pred) ** 2.0).mean()))


@register
@alias("ce")
class CrossEntropy(EvalMetric):
    def __init__(self, eps=1e-12, name="cross-entropy", output_names=None, label_names=None):
        super().__init__(name, eps=eps, output_names=output_names, label_names=label_names, has_global_stats=True)
        self.eps = eps

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label, pred = _numpy(label).ravel(), _numpy(pred)
            assert label.shape[0] == pred.shape[0]
            prob = pred[_np.arange(label.shape[0]), _np.int64(label)]
            self._add(float((-_np.log(prob + self.eps)).sum()), label.shape[0])


@register
class Loss(EvalMetric):
    """The mean of the given loss values (labels are ignored)."""

    def __init__(self, name="loss", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names, has_global_stats=True)

    def update(self, _, preds):
        for pred in [preds] if isinstance(preds, _nd.NDArray) else preds:
            self._add(float(_numpy(pred).sum()), int(_np.prod(pred.shape)))


@register
class CustomMetric(EvalMetric):
    """``feval(label, pred)`` on numpy arrays; it may return a value or ``(sum, count)``."""

    def __init__(self, feval, name=None, allow_extra_outputs=False, output_names=None, label_names=None):
        if name is None:
            name = feval.__name__
            if name.find("<") != -1:
                name = "custom(%s)" % name
        super().__init__(name, feval=feval, allow_extra_outputs=allow_extra_outputs, output_names=output_names,
                         label_names=label_names, has_global_stats=True)
        self._feval, self._allow_extra_outputs = feval, allow_extra_outputs

    def update(self, labels, preds):
        if not self._allow_extra_outputs:
            labels, preds = check_label_shapes(labels, preds, True)
        for pred, label in zip(preds, labels):
            value = self._feval(_numpy(label), _numpy(pred))
            if isinstance(value, tuple):
                self._add(*value)
            else:
                self._add(value, 1)


def np(numpy_feval, name=None, allow_extra_outputs=False):  # noqa: F811 - MXNet's name for it
    """A CustomMetric from a function of numpy arrays."""
    def feval(label, pred):
        return numpy_feval(label, pred)
    feval.__name__ = numpy_feval.__name__
    return CustomMetric(feval, name, allow_extra_outputs)


def _metric_stand_in(name):
    """A metric the runtime does not compute: it can be imported and subclassed; constructing it raises."""
    def __init__(self, *args, **kwargs):
        raise RuntimeUnsupported("mxnet.metric.%s" % name)
    return type(name, (EvalMetric,), {"__init__": __init__, "__module__": "mxnet.metric"})


F1, MCC, Perplexity, NegativeLogLikelihood, PearsonCorrelation, PCC, Torch, Caffe = (
    _metric_stand_in(n) for n in ("F1", "MCC", "Perplexity", "NegativeLogLikelihood", "PearsonCorrelation", "PCC",
                                  "Torch", "Caffe"))
