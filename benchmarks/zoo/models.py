"""The zoo's models: for each library, the model names and how to build each one with its natural input.

Runs only inside the labeller's worker (it imports MXNet and the libraries lazily). Every model is built with
`pretrained=False` (and `pretrained_base=False` where the constructor accepts it), default arguments, and a
small input the model accepts: its `in_size` / `in_channels` where it declares them, else a size known for its
family. A model whose build or eager call fails anyway is labelled EAGER_FAIL with the reason; nothing is
silently dropped.
"""
from __future__ import annotations

import re

# The libraries, in labelling order (gluoncv2 first: it is the largest and the most varied).
LIBRARIES = ("gluoncv2", "mxnet", "gluonnlp", "gluoncv")

# Packages whose source the scorer lints, per library (paths relative to site-packages).
# For "mxnet" only the Gluon layers and the model zoo: the rest of MXNet is the framework, not model code.
LINT_ROOTS = {
    "gluoncv2": ("gluoncv2",),
    "mxnet": ("mxnet/gluon/model_zoo", "mxnet/gluon/nn", "mxnet/gluon/rnn", "mxnet/gluon/contrib"),
    "gluonnlp": ("gluonnlp",),
    "gluoncv": ("gluoncv",),
}
# The PyPI distributions that hold each library's source (pinned: the labels were measured on these).
DISTRIBUTIONS = {"gluoncv2": "gluoncv2==0.0.64", "mxnet": "mxnet==1.9.1",
                 "gluonnlp": "gluonnlp==0.10.0", "gluoncv": "gluoncv==0.10.5.post0"}

# A cap on the input size: cityscapes-sized inputs (1024x2048) take minutes on one CPU core.
MAX_PIXELS = 512 * 512


def model_names(library: str) -> list[str]:
    if library == "gluoncv2":
        from gluoncv2.model_provider import _models
        return sorted(_models)
    if library == "mxnet":
        from mxnet.gluon.model_zoo import vision
        try:
            vision.get_model("__list_the_names__")
        except ValueError as error:  # the only public listing: the error message of an unknown name
            return sorted(line.strip() for line in str(error).splitlines()[1:] if line.strip())
        raise RuntimeError("mxnet.gluon.model_zoo.vision accepted an unknown name")
    if library == "gluonnlp":
        return sorted(NLP_MODELS)
    if library == "gluoncv":
        import gluoncv
        return sorted(gluoncv.model_zoo.get_model_list())
    raise ValueError(f"unknown library {library!r}; known: {', '.join(LIBRARIES)}")


def import_library(library: str) -> None:
    """Import everything a model of `library` may need, so that no import happens while a model is recorded."""
    import mxnet  # noqa: F401
    from mxnet.gluon.model_zoo import vision  # noqa: F401
    if library == "gluoncv2":
        import gluoncv2.model_provider  # noqa: F401
    elif library == "gluonnlp":
        import gluonnlp  # noqa: F401
    elif library == "gluoncv":
        import gluoncv  # noqa: F401


def build(library: str, name: str):
    """Return (net, inputs): the model, not yet initialized, and the list of NDArray inputs of one call."""
    return {"gluoncv2": _build_gluoncv2, "mxnet": _build_vision, "gluonnlp": _build_nlp,
            "gluoncv": _build_gluoncv}[library](name)


def _normal(shape):
    import mxnet as mx
    return mx.nd.random.normal(shape=shape)


def _image(channels, size, batch=1):
    return [_normal((batch, channels) + tuple(size))]


def _shrink(size, multiple=32):
    """A smaller size of the same aspect ratio, for inputs above MAX_PIXELS."""
    h, w = size
    while h * w > MAX_PIXELS and h > multiple and w > multiple:
        h, w = h // 2, w // 2
    return (max(multiple, h - h % multiple), max(multiple, w - w % multiple))


def _call_with(factory, **kwargs):
    """Call factory(**kwargs), dropping keyword arguments the factory does not accept."""
    while True:
        try:
            return factory(**kwargs)
        except TypeError as error:
            unexpected = re.search(r"unexpected keyword argument '(\w+)'", str(error))
            if not unexpected or unexpected.group(1) not in kwargs:
                raise
            kwargs.pop(unexpected.group(1))


# ---- gluoncv2 (imgclsmob) ------------------------------------------------------------------------------------

_GLUONCV2_AUDIO = re.compile(r"^(jasper|jasperdr|quartznet)")


def _build_gluoncv2(name):
    import mxnet as mx
    from gluoncv2.model_provider import get_model
    if _GLUONCV2_AUDIO.match(name):  # from_audio=False: mel features in, so librosa is not needed
        net = get_model(name, pretrained=False, from_audio=False)
    else:
        net = get_model(name, pretrained=False)
    size = getattr(net, "in_size", (224, 224))
    size = tuple(size) if isinstance(size, (tuple, list)) else (size,)
    channels = getattr(net, "in_channels", 3)
    if _GLUONCV2_AUDIO.match(name):  # (batch, features, time) and the valid lengths
        length = 64  # 64 mel features, 64 frames
        return net, [_normal((1, 64, length)), mx.nd.array([length], dtype="int32")]
    if name.startswith(("voca", "nvpattexp")):  # audio windows and a person id
        audio = (1, 1) if name.startswith("voca") else (1, getattr(net, "seq_len", 1))
        return net, [_normal(audio + (16, 29)), mx.nd.array([3])]
    if name.startswith("visemenet"):
        return net, [_normal((1, 19, 26)), mx.nd.full((1, 76), 3)]
    if len(size) == 2 and size[0] * size[1] > MAX_PIXELS:
        smaller = _shrink(size)
        try:  # models with a fixed-size head take in_size; the others accept any size
            net = get_model(name, pretrained=False, in_size=smaller)
        except TypeError:
            net = get_model(name, pretrained=False)
        size = smaller
    return net, _image(channels, size)


# ---- mxnet.gluon.model_zoo.vision -----------------------------------------------------------------------------

def _build_vision(name):
    from mxnet.gluon.model_zoo import vision
    net = vision.get_model(name, pretrained=False)
    return net, _image(3, (299, 299) if name.startswith("inception") else (224, 224))


# ---- gluonnlp ------------------------------------------------------------------------------------------------

NLP_MODELS = ("standard_lstm_lm_200", "standard_lstm_lm_650", "standard_lstm_lm_1500", "awd_lstm_lm_1150",
              "awd_lstm_lm_600", "big_rnn_lm_2048_512", "elmo_2x1024_128_2048cnn_1xhighway",
              "elmo_2x2048_256_2048cnn_1xhighway", "elmo_2x4096_512_2048cnn_2xhighway", "transformer_en_de_512",
              "bert_12_768_12", "bert_24_1024_16", "distilbert_6_768_12", "roberta_12_768_12",
              "roberta_24_1024_16", "ernie_12_768_12")


def _small_vocab():
    import gluonnlp
    return gluonnlp.Vocab(gluonnlp.data.count_tokens(list("abcdefgh")))


def _tokens(shape, high):
    import mxnet as mx
    return mx.nd.random.randint(0, high, shape=shape).astype("float32")


def _build_nlp(name):
    import mxnet as mx
    import gluonnlp
    vocab = _small_vocab()
    batch, length = 2, 5
    if name.startswith("transformer"):
        # dataset_name only names the (unused) vocabulary files: the constructor needs a string
        net, _, _ = gluonnlp.model.get_model(name, dataset_name="WMT2014", src_vocab=vocab, tgt_vocab=vocab,
                                             pretrained=False)
        valid = mx.nd.array([length, length - 2])
        return net, [_tokens((batch, length), len(vocab)), _tokens((batch, length), len(vocab)), valid, valid]
    if name.startswith("elmo"):
        net = gluonnlp.model.get_model(name, dataset_name=None, pretrained=False)
        net = net[0] if isinstance(net, tuple) else net
        chars = _tokens((batch, length, 50), 262)
        return net, [chars, net.begin_state(mx.nd.zeros, batch_size=batch), mx.nd.ones((batch, length))]
    if name.startswith(("bert", "ernie", "roberta", "distilbert")):
        net, _ = gluonnlp.model.get_model(name, dataset_name=None, vocab=vocab, pretrained=False)
        tokens = _tokens((batch, length), len(vocab))
        valid = mx.nd.array([length, length - 2])
        if name.startswith("distilbert"):
            return net, [tokens, valid]
        masked = mx.nd.array([[0, 1], [1, 2]])  # the default model has a masked-LM decoder: it needs positions
        if name.startswith("roberta"):
            return net, [tokens, valid, masked]
        return net, [tokens, mx.nd.zeros((batch, length)), valid, masked]
    net, _ = gluonnlp.model.get_model(name, dataset_name=None, vocab=vocab, pretrained=False)
    return net, [_tokens((length, batch), len(vocab)), net.begin_state(batch_size=batch)]


# ---- gluoncv -------------------------------------------------------------------------------------------------

# Natural input sizes by name (first match wins); the default is a 224x224 image.
_GLUONCV_SIZES = (
    (r"cifar", (32, 32)), (r"^ssd_300", (300, 300)), (r"^ssd_512", (512, 512)), (r"^yolo3", (320, 320)),
    (r"rcnn", (256, 256)), (r"^center_net", (512, 512)), (r"pose", (256, 192)), (r"monodepth2", (192, 640)),
    (r"inceptionv3", (299, 299)), (r"^(fcn|psp|deeplab|icnet|fastscnn|danet)", (480, 480)), (r"_s$", (256, 256)),
)
_GLUONCV_VIDEO = re.compile(r"^(i3d|slowfast|r2plus1d|p3d|c3d)")


def _build_gluoncv(name):
    import gluoncv
    net = _call_with(gluoncv.model_zoo.get_model, name=name, pretrained=False, pretrained_base=False)
    if name.startswith("siamrpn"):
        return net, [_normal((1, 3, 127, 127)), _normal((1, 3, 255, 255))]
    if _GLUONCV_VIDEO.match(name):
        frames = {"slowfast": 32, "c3d": 16}.get(name.split("_")[0], 8)
        return net, [_normal((1, 3, frames, 112, 112))]
    size = next((size for pattern, size in _GLUONCV_SIZES if re.search(pattern, name)), (224, 224))
    channels = 6 if "posenet" in name else 3
    return net, _image(channels, size)
