"""Training-mode state (``mxnet.autograd``). Gradients are not implemented; ``record``/``pause``
only switch the mode that ``Dropout``/``BatchNorm`` and ``is_training()`` read."""
import contextlib

_state = {"recording": False, "training": False}


def is_recording():
    return _state["recording"]


def is_training():
    return _state["training"]


def set_recording(is_recording):  # noqa: F811 - mirrors mxnet's API
    prev = _state["recording"]
    _state["recording"] = bool(is_recording)
    return prev


def set_training(train_mode):
    prev = _state["training"]
    _state["training"] = bool(train_mode)
    return prev


@contextlib.contextmanager
def _scope(recording, training):
    prev = dict(_state)
    if recording is not None:
        _state["recording"] = recording
    if training is not None:
        _state["training"] = training
    try:
        yield
    finally:
        _state.update(prev)


def record(train_mode=True):
    return _scope(True, train_mode)


def pause(train_mode=False):
    return _scope(False, train_mode)


def train_mode():
    return _scope(None, True)


def predict_mode():
    return _scope(None, False)


def backward(heads, head_grads=None, retain_graph=False, train_mode=True):
    raise NotImplementedError("hylint.runtime does not implement autograd (backward)")


class Function:
    """``mx.autograd.Function``: a user-defined operation with its own ``forward``/``backward``.

    Calling it runs ``forward`` on NDArrays with recording off, as MXNet does; ``backward`` is never called
    because gradients are not implemented. Like MXNet's, an instance can be called only once, and it is
    eager only (a Symbol cannot go through it)."""

    def __init__(self):
        self._saved = ()
        self._used = False

    def save_for_backward(self, *args):
        self._saved = args

    @property
    def saved_tensors(self):
        return self._saved

    def __call__(self, *inputs):
        assert not self._used, "Each Function instance can only be called once. Please create another instance."
        self._used = True
        previous = set_recording(False)
        try:
            return self.forward(*inputs)
        finally:
            set_recording(previous)

    def forward(self, *inputs):
        raise NotImplementedError

    def backward(self, *output_grads):
        raise NotImplementedError
