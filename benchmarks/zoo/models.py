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
LIBRARIES = ("gluoncv2", "mxnet", "gluonnlp", "gluoncv", "gluonts", "gluonfr", "sockeye")

# Packages whose source the scorer lints, per library (paths relative to site-packages).
# For "mxnet" only the Gluon layers and the model zoo: the rest of MXNet is the framework, not model code.
LINT_ROOTS = {
    "gluoncv2": ("gluoncv2",),
    "mxnet": ("mxnet/gluon/model_zoo", "mxnet/gluon/nn", "mxnet/gluon/rnn", "mxnet/gluon/contrib"),
    "gluonnlp": ("gluonnlp",),
    "gluoncv": ("gluoncv",),
    "gluonts": ("gluonts",),
    "gluonfr": ("gluonfr",),
    "sockeye": ("sockeye",),
}
# The PyPI distributions that hold each library's source (pinned: the labels were measured on these).
DISTRIBUTIONS = {"gluoncv2": "gluoncv2==0.0.64", "mxnet": "mxnet==1.9.1",
                 "gluonnlp": "gluonnlp==0.10.0", "gluoncv": "gluoncv==0.10.5.post0",
                 "gluonts": "gluonts==0.8.1", "gluonfr": "gluonfr==1.0.2",
                 "sockeye": "sockeye==2.3.17"}

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
    if library == "gluonts":
        return sorted([f"{estimator}:{network}" for estimator in GLUONTS_ESTIMATORS for network in ("train", "predict")]
                      + [f"block:{block}" for block in GLUONTS_BLOCKS])
    if library == "gluonfr":
        from gluonfr.model_zoo import get_model_list
        return sorted(get_model_list()) + sorted(f"loss:{name}" for name in GLUONFR_LOSSES)
    if library == "sockeye":
        return sorted([f"model:{name}" for name in SOCKEYE_MODELS] + [f"search:{name}" for name in SOCKEYE_SEARCHES]
                      + [f"loss:{name}" for name in SOCKEYE_LOSSES] + [f"scorer:{name}" for name in SOCKEYE_SCORERS]
                      + [f"block:{name}" for name in SOCKEYE_BLOCKS])
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
    elif library == "gluonts":
        _import_gluonts()
    elif library == "gluonfr":
        import gluonfr.loss  # noqa: F401
        import gluonfr.model_zoo  # noqa: F401
    elif library == "sockeye":
        import sockeye.beam_search  # noqa: F401
        import sockeye.lexicon  # noqa: F401
        import sockeye.loss  # noqa: F401
        import sockeye.model  # noqa: F401
        import sockeye.scoring  # noqa: F401


def build(library: str, name: str):
    """Return (net, inputs): the model, not yet initialized, and the list of NDArray inputs of one call."""
    return {"gluoncv2": _build_gluoncv2, "mxnet": _build_vision, "gluonnlp": _build_nlp,
            "gluoncv": _build_gluoncv, "gluonts": _build_gluonts,
            "gluonfr": _build_gluonfr, "sockeye": _build_sockeye}[library](name)


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


# ---- gluonts -------------------------------------------------------------------------------------------------
# A model is the training or the prediction network (a HybridBlock) of an estimator, built by the estimator's
# own create_training_network() / create_predictor() with small hyperparameters, and called on one batch of a
# small synthetic dataset made by the estimator's own transformation and data loader (what training and
# prediction feed the network). Names are "<estimator>:train" and "<estimator>:predict".

_GLUONTS_FREQ, _GLUONTS_PREDICTION, _GLUONTS_LENGTH, _GLUONTS_DIM = "H", 4, 48, 3

# More distributions of DeepAR: (name suffix, (module of gluonts.mx.distribution, output class, kwargs))
_DEEPAR_MORE_DISTRIBUTIONS = (
    ("beta", ("beta", "BetaOutput")), ("poisson", ("poisson", "PoissonOutput")), ("binned", ("binned", "BinnedOutput")),
    ("categorical", ("categorical", "CategoricalOutput", {"num_cats": 8})),
    ("genpareto", ("genpareto", "GenParetoOutput")), ("logitnormal", ("logit_normal", "LogitNormalOutput")),
    ("uniform", ("uniform", "UniformOutput")), ("nanmixture", ("nan_mixture", "NanMixtureOutput")),
    ("inflatedbeta", ("inflated_beta", "ZeroAndOneInflatedBetaOutput")),
    # the other zero/one-inflated outputs: mixtures (MixtureDistributionOutput) of a point mass and a distribution
    ("zeroinflatedbeta", ("inflated_beta", "ZeroInflatedBetaOutput")),
    ("oneinflatedbeta", ("inflated_beta", "OneInflatedBetaOutput")),
    ("zeroinflatedpoisson", ("poisson", "ZeroInflatedPoissonOutput")),
    ("zeroinflatednegbin", ("neg_binomial", "ZeroInflatedNegativeBinomialOutput")),
)
# name -> (module, estimator class, keyword arguments beyond freq/prediction_length/trainer, multivariate)
# The distribution variants of DeepAR exercise the distribution classes, which hold F and run in the trace.
GLUONTS_ESTIMATORS = {
    "deepar": ("gluonts.model.deepar", "DeepAREstimator", {"num_cells": 4, "num_layers": 1}, False),
    "deepar-gaussian": ("gluonts.model.deepar", "DeepAREstimator",
                        {"num_cells": 4, "num_layers": 1, "distr_output": ("gaussian", "GaussianOutput")}, False),
    "deepar-negbin": ("gluonts.model.deepar", "DeepAREstimator",
                      {"num_cells": 4, "num_layers": 1, "distr_output": ("neg_binomial", "NegativeBinomialOutput")},
                      False),
    "deepar-gamma": ("gluonts.model.deepar", "DeepAREstimator",
                     {"num_cells": 4, "num_layers": 1, "distr_output": ("gamma", "GammaOutput")}, False),
    "deepar-laplace": ("gluonts.model.deepar", "DeepAREstimator",
                       {"num_cells": 4, "num_layers": 1, "distr_output": ("laplace", "LaplaceOutput")}, False),
    "deepar-piecewise": ("gluonts.model.deepar", "DeepAREstimator",
                         {"num_cells": 4, "num_layers": 1,
                          "distr_output": ("piecewise_linear", "PiecewiseLinearOutput", {"num_pieces": 3})}, False),
    "deepar-mixture": ("gluonts.model.deepar", "DeepAREstimator",
                       {"num_cells": 4, "num_layers": 1, "distr_output": ("mixture", "MixtureDistributionOutput",
                                                                           "gaussian+studentT")}, False),
    **{f"deepar-{short}": ("gluonts.model.deepar", "DeepAREstimator",
                            {"num_cells": 4, "num_layers": 1, "distr_output": spec}, False)
       for short, spec in _DEEPAR_MORE_DISTRIBUTIONS},
    "deepvar-gaussian": ("gluonts.model.deepvar", "DeepVAREstimator",
                         {"target_dim": _GLUONTS_DIM, "num_cells": 4, "num_layers": 1, "lags_seq": [1, 2],
                          "distr_output": ("multivariate_gaussian", "MultivariateGaussianOutput",
                                           {"dim": _GLUONTS_DIM})}, True),
    "nbeats-interpretable": ("gluonts.model.n_beats", "NBEATSEstimator",
                             {"num_stacks": 2, "widths": [8], "num_blocks": [1], "num_block_layers": [1],
                              "sharing": [False], "stack_types": ["T", "S"], "expansion_coefficient_lengths": [2, 2]},
                             False),
    "gp_forecaster-periodic": ("gluonts.model.gp_forecaster", "GaussianProcessEstimator",
                               {"cardinality": 1, "kernel_output": "periodic"}, False),
    "deepstate-static": ("gluonts.model.deepstate", "DeepStateEstimator",
                         {"past_length": 24, "num_cells": 4, "num_layers": 1, "cardinality": [2],
                          "use_feat_static_cat": True}, False),
    "simple_feedforward": ("gluonts.model.simple_feedforward", "SimpleFeedForwardEstimator",
                           {"num_hidden_dimensions": [4]}, False),
    "mqcnn": ("gluonts.model.seq2seq", "MQCNNEstimator", {"quantiles": [0.1, 0.5, 0.9]}, False),
    "mqrnn": ("gluonts.model.seq2seq", "MQRNNEstimator", {"quantiles": [0.1, 0.5, 0.9]}, False),
    "transformer": ("gluonts.model.transformer", "TransformerEstimator",
                    {"model_dim": 8, "inner_ff_dim_scale": 1, "num_heads": 2}, False),
    "wavenet": ("gluonts.model.wavenet", "WaveNetEstimator", {"num_stacks": 1, "num_residual_channels": 4,
                                                             "num_skip_channels": 4, "num_bins": 16}, False),
    "deepstate": ("gluonts.model.deepstate", "DeepStateEstimator",
                  {"past_length": 24, "num_cells": 4, "num_layers": 1, "cardinality": [1],
                   "use_feat_static_cat": False}, False),
    "deep_factor": ("gluonts.model.deep_factor", "DeepFactorEstimator",
                    {"num_hidden_global": 4, "num_factors": 2, "num_hidden_local": 2, "cardinality": [1]}, False),
    "gp_forecaster": ("gluonts.model.gp_forecaster", "GaussianProcessEstimator", {"cardinality": 1}, False),
    "lstnet": ("gluonts.model.lstnet", "LSTNetEstimator",
               {"num_series": _GLUONTS_DIM, "skip_size": 2, "ar_window": 2, "channels": 4, "context_length": 8,
                "rnn_num_hidden": 4, "skip_rnn_num_hidden": 2}, True),
    "nbeats": ("gluonts.model.n_beats", "NBEATSEstimator", {"num_stacks": 2, "widths": [8], "num_blocks": [1],
                                                           "num_block_layers": [1], "sharing": [False]}, False),
    "canonical_rnn": ("gluonts.model.canonical", "CanonicalRNNEstimator", {"num_cells": 4, "context_length": 8},
                      False),
    "deepvar": ("gluonts.model.deepvar", "DeepVAREstimator",
                {"target_dim": _GLUONTS_DIM, "num_cells": 4, "num_layers": 1, "rank": 2, "lags_seq": [1, 2]}, True),
    "gpvar": ("gluonts.model.gpvar", "GPVAREstimator",
              {"target_dim": _GLUONTS_DIM, "num_cells": 4, "num_layers": 1, "rank": 2, "lags_seq": [1, 2]}, True),
    "tft": ("gluonts.model.tft", "TemporalFusionTransformerEstimator", {"hidden_dim": 8, "num_heads": 2}, False),
    # use_feat_dynamic_real defaults to True and reads a field the synthetic series lack; use_feat_static_cat
    # (default True) needs the cardinalities of feat_static_cat (the series have one category, 0)
    "san": ("gluonts.model.san", "SelfAttentionEstimator",
            {"model_dim": 8, "ffn_dim_multiplier": 1, "num_heads": 4, "use_feat_dynamic_real": False,
             "cardinalities": [1]}, False),
    "renewal": ("gluonts.model.renewal", "DeepRenewalProcessEstimator",
                {"num_cells": 4, "num_layers": 1, "context_length": 8}, False),
}


# HybridBlocks of gluonts that no estimator builds, each called on its own (names "block:<class>"): the
# spectral-norm layers (SNDense, and SNMLPBlock of SNDense and LipSwish layers, the network of the iResNet flow)
# and the input representations of gluonts.mx.representation, called as an estimator would call them:
# (data, observed_indicator, scale=None, rep_params=[]) on a (series, time) batch of the synthetic counts.
GLUONTS_BLOCKS = ("SNDense", "SNMLPBlock", "LipSwish", "CustomBinning", "GlobalRelativeBinning",
                  "LocalAbsoluteBinning", "MeanScaling", "RepresentationChain", "HybridRepresentation")
_GLUONTS_BINS, _GLUONTS_UNITS = 8, 3


def _import_gluonts():
    import importlib
    import gluonts.mx  # noqa: F401
    import gluonts.mx.distribution  # noqa: F401
    import gluonts.mx.block.snmlp  # noqa: F401
    import gluonts.mx.representation  # noqa: F401
    for module, *_ in GLUONTS_ESTIMATORS.values():
        importlib.import_module(module)


def _gluonts_dataset(multivariate):
    import numpy as np
    from gluonts.dataset.common import ListDataset
    rng = np.random.RandomState(0)
    shape = (_GLUONTS_DIM, _GLUONTS_LENGTH) if multivariate else (_GLUONTS_LENGTH,)
    # positive counts: every distribution's support (negative binomial, gamma) holds them
    series = [{"start": "2021-01-01 00:00", "target": rng.poisson(5.0, size=shape).astype("float32") + 1.0,
               "feat_static_cat": [0]} for _ in range(4)]
    return ListDataset(series, freq=_GLUONTS_FREQ, one_dim_target=not multivariate)


def _gluonts_distribution(spec):
    import importlib
    if spec[0] == "binned":
        import mxnet as mx
        from gluonts.mx.distribution import BinnedOutput
        return BinnedOutput(bin_centers=mx.nd.array([0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0]))
    if spec[0] == "nan_mixture":
        from gluonts.mx.distribution import GaussianOutput
        from gluonts.mx.distribution.nan_mixture import NanMixtureOutput
        return NanMixtureOutput(GaussianOutput())
    if spec[0] == "mixture":
        from gluonts.mx.distribution import GaussianOutput, MixtureDistributionOutput, StudentTOutput
        return MixtureDistributionOutput([GaussianOutput(), StudentTOutput()])
    module = importlib.import_module(f"gluonts.mx.distribution.{spec[0]}")
    return getattr(module, spec[1])(**(spec[2] if len(spec) > 2 else {}))


def _build_gluonts(name):
    import importlib
    from functools import partial
    import mxnet as mx
    from gluonts.mx.batchify import batchify
    from gluonts.mx.trainer import Trainer
    from gluonts.dataset.loader import InferenceDataLoader
    estimator_name, _, network = name.partition(":")
    if estimator_name == "block":
        return _build_gluonts_block(network)
    module, cls, kwargs, multivariate = GLUONTS_ESTIMATORS[estimator_name]
    kwargs = dict(kwargs)
    if "distr_output" in kwargs:
        kwargs["distr_output"] = _gluonts_distribution(kwargs["distr_output"])
    if kwargs.get("kernel_output") == "periodic":
        from gluonts.mx.kernels import PeriodicKernelOutput
        kwargs["kernel_output"] = PeriodicKernelOutput()
    estimator_cls = getattr(importlib.import_module(module), cls)
    estimator = _call_with(estimator_cls, freq=_GLUONTS_FREQ, prediction_length=_GLUONTS_PREDICTION,
                           trainer=Trainer(epochs=1, num_batches_per_epoch=1, hybridize=False), batch_size=2,
                           num_parallel_samples=5, **kwargs)
    data = _gluonts_dataset(multivariate)
    transformation = estimator.create_transformation()
    training_net = estimator.create_training_network()
    from gluonts.mx.util import get_hybrid_forward_input_names
    # the block's own parameters (DeepRenewal's alpha biases) are passed by MXNet, not fed from the batch
    names = [key for key in get_hybrid_forward_input_names(type(training_net))
             if key not in training_net._reg_params]
    loader = estimator.create_training_data_loader(transformation.apply(data, is_train=True),
                                                   num_batches_per_epoch=1)
    batch = next(iter(loader))
    training_inputs = [batch[key] for key in names]
    if network == "train":
        return training_net, training_inputs
    # the predictor copies the trained network's parameters: initialize them as one training step would
    training_net.initialize()
    training_net(*training_inputs)
    predictor = estimator.create_predictor(transformation, training_net)
    loader = InferenceDataLoader(data, transform=predictor.input_transform, batch_size=2,
                                 stack_fn=partial(batchify, ctx=mx.cpu(), dtype=estimator.dtype))
    batch = next(iter(loader))
    return predictor.prediction_net, [batch[key] for key in predictor.input_names]


def _build_gluonts_block(name):
    import mxnet as mx
    import numpy as np
    from gluonts.mx.activation import LipSwish
    from gluonts.mx.block.sndense import SNDense
    from gluonts.mx.block.snmlp import SNMLPBlock
    from gluonts.mx import representation as rep
    if name in ("SNDense", "SNMLPBlock", "LipSwish"):
        net = {"SNDense": lambda: SNDense(units=4, in_units=_GLUONTS_UNITS),
               "SNMLPBlock": lambda: SNMLPBlock(_GLUONTS_UNITS, 4, _GLUONTS_UNITS, num_hidden_layers=1),
               "LipSwish": LipSwish}[name]()
        # SNDense flattens its input by default (as nn.Dense); the others act on the last axis
        return net, [_normal((2, _GLUONTS_UNITS) if name == "SNDense" else (2, 5, _GLUONTS_UNITS))]
    data = np.stack([entry["target"][:12] for entry in _gluonts_dataset(False)])
    observed = np.ones_like(data)
    observed[0, :2] = 0.0  # a series whose first values are missing
    centers = np.linspace(0.0, 14.0, _GLUONTS_BINS)
    net = {"CustomBinning": lambda: rep.CustomBinning(bin_centers=centers),
           "GlobalRelativeBinning": lambda: rep.GlobalRelativeBinning(num_bins=_GLUONTS_BINS),
           "LocalAbsoluteBinning": lambda: rep.LocalAbsoluteBinning(num_bins=_GLUONTS_BINS),
           "MeanScaling": rep.MeanScaling,
           # a binning feeding an embedding of its bins, the use the embedding is written for
           "RepresentationChain": lambda: rep.RepresentationChain(
               chain=[rep.GlobalRelativeBinning(num_bins=_GLUONTS_BINS),
                      rep.Embedding(num_bins=_GLUONTS_BINS, size=2)]),
           "HybridRepresentation": lambda: rep.HybridRepresentation(representations=[
               rep.RepresentationChain(chain=[rep.MeanScaling(), rep.DimExpansion()]),
               rep.RepresentationChain(chain=[rep.CustomBinning(bin_centers=centers),
                                              rep.Embedding(num_bins=_GLUONTS_BINS, size=2)])])}[name]()
    # the bins a model learns from its training data (a no-op for representations without any)
    net.initialize_from_array(data.reshape(-1).astype("float64"))
    return net, [mx.nd.array(data), mx.nd.array(observed), None, []]


# ---- gluonfr -------------------------------------------------------------------------------------------------
# The face-recognition models of gluonfr.model_zoo (an embedding network with a classifier head: 112x112 faces,
# 10 identities) and its losses, which are HybridBlocks too (a margin-softmax loss traces its helpers with F).
# A loss is called on a batch of 4 with the inputs its hybrid_forward names, 10 classes, embeddings of 8.

_FR_CLASSES, _FR_EMBEDDING, _FR_BATCH = 10, 8, 4

# loss class -> (constructor keyword arguments, the inputs of one call: "logits", "labels" or "embeddings")
GLUONFR_LOSSES = {
    "L2Softmax": ({"classes": _FR_CLASSES, "alpha": 16}, ("logits", "labels")),
    "CosLoss": ({"classes": _FR_CLASSES, "m": 0.35, "s": 30}, ("logits", "labels")),
    "ArcLoss": ({"classes": _FR_CLASSES}, ("logits", "labels")),
    "TripletLoss": ({}, ("embeddings", "embeddings", "embeddings")),
    "ContrastiveLoss": ({}, ("embeddings", "embeddings", "labels")),
    "RingLoss": ({"lamda": 0.01}, ("logits", "labels", "embeddings")),
    "ASoftmax": ({"classes": _FR_CLASSES, "m": 4, "s": 30}, ("logits", "labels")),
    "CenterLoss": ({"classes": _FR_CLASSES, "embedding_size": _FR_EMBEDDING, "lamda": 0.01},
                   ("logits", "labels", "embeddings")),
    "LGMLoss": ({"num_classes": _FR_CLASSES, "embedding_size": _FR_EMBEDDING, "alpha": 0.1, "lamda": 0.01,
                 "lr_mult": 1}, ("embeddings", "labels")),
    "RangeLoss": ({"alpha": 0.5, "beta": 0.5, "top_k": 2, "num_class": 2, "num_in_class": 2,
                   "feature_dim": _FR_EMBEDDING, "margin": 1.0}, ("embeddings", "pairs")),
    "MPSLoss": ({"m": 1.0}, ("embeddings", "embeddings")),
    "GitLoss": ({"classes": _FR_CLASSES, "embedding_size": _FR_EMBEDDING, "lamda_c": 0.01, "lamda_g": 0.01,
                 "batch_size_per_gpu": _FR_BATCH}, ("logits", "labels", "embeddings")),
    "COCOLoss": ({"classes": _FR_CLASSES, "embedding_size": _FR_EMBEDDING, "alpha": 6.25}, ("embeddings", "labels")),
    "SVXSoftmax": ({"classes": _FR_CLASSES, "s": 30}, ("logits", "labels")),
}


def _build_gluonfr(name):
    import mxnet as mx
    if name.startswith("loss:"):
        from gluonfr import loss
        kwargs, kinds = GLUONFR_LOSSES[name[5:]]
        net = getattr(loss, name[5:])(**kwargs)
        inputs = {"logits": lambda: mx.nd.random.uniform(-1, 1, shape=(_FR_BATCH, _FR_CLASSES)),
                  "labels": lambda: mx.nd.array([0, 1, 2, 1]),
                  "pairs": lambda: mx.nd.array([0, 0, 1, 1]),  # RangeLoss: num_class x num_in_class rows
                  "embeddings": lambda: _normal((_FR_BATCH, _FR_EMBEDDING))}
        return net, [inputs[kind]() for kind in kinds]
    from gluonfr.model_zoo import get_model
    net = _call_with(get_model, name=name, classes=_FR_CLASSES, pretrained=False)
    return net, _image(3, (112, 112))


# ---- sockeye -------------------------------------------------------------------------------------------------
# sockeye 2.3.17's translation model (SockeyeModel: a Block whose embeddings, encoder, decoder and output layer
# are HybridBlocks) with a tiny transformer configuration (model size 8, 2 heads, 1 layer, vocabularies of 12),
# called as in training on a batch of 2 (source, source lengths, target, target lengths); its search algorithms
# (sockeye.beam_search.get_search_algorithm on such a model, which sockeye's translator builds and hybridizes)
# on the inputs the translator gives them; its losses, HybridBlocks called on the model's outputs and labels; and
# its BatchScorer (sockeye.score) on logits, labels and lengths; and the layers no transformer builds, alone.
# sockeye 2.3.17 pins mxnet==1.8.0.post0: it is labelled in a venv of its own, installed with --no-deps beside
# mxnet==1.9.1, numpy==1.23.5, pyyaml, portalocker and sacrebleu==1.4.14 (benchmarks/zoo/README.md).

_SK_VOCAB, _SK_SIZE, _SK_LENGTH = 12, 8, 10

# model name -> (decoder type, lhuc, a length-ratio task)
SOCKEYE_MODELS = {"transformer": ("transformer", False, False), "ssru_transformer": ("ssru_transformer", False, False),
                  "lhuc": ("transformer", True, False), "length_ratio": ("transformer", False, True)}
# search name -> (greedy, beam size, the lexicon of each call: "none" or "topk"); a search's forward takes
# `restrict_lexicon: Optional[TopKLexicon]` per call (sockeye's own translator passes one kind per translator)
SOCKEYE_SEARCHES = {"greedy": (True, 1, ("none",)), "greedy_lexicon": (True, 1, ("topk",)),
                    "greedy_lexicon_then_none": (True, 1, ("topk", "none")),
                    "beam": (False, 2, ("none",)), "beam_lexicon": (False, 2, ("topk",)),
                    "beam_lexicon_then_none": (False, 2, ("topk", "none"))}
# HybridBlocks of sockeye.layers that no transformer model above builds, called on their own
SOCKEYE_BLOCKS = ("PlainDotAttention", "ProjectedDotAttention", "WeightNormalization", "LHUC")
SOCKEYE_LOSSES = ("CrossEntropyLoss", "CrossEntropyLossWithoutSoftmaxOutput", "PoissonLoss", "MSELoss")
# sockeye's scoring (`sockeye.score` hybridizes a BatchScorer): name -> (its keyword arguments, CandidateScorer's
# length penalty alpha, beta and brevity penalty weight)
SOCKEYE_SCORERS = {"default": ({}, (1.0, 0.0, 0.0)), "neglogprob": ({"score_type": "neglogprob"}, (1.0, 0.0, 0.0)),
                   "constant_length_ratio": ({"constant_length_ratio": 1.0}, (1.0, 0.0, 0.0)),
                   "temperature": ({"softmax_temperature": 2.0}, (1.0, 0.0, 0.0)),
                   "penalties": ({}, (1.0, 1.0, 0.5))}


def _sockeye_config(decoder_type="transformer", lhuc=False, length_task=False):
    from sockeye import constants as C, data_io, encoder, layers, model, transformer

    def transformer_config(**kwargs):
        return transformer.TransformerConfig(use_lhuc=lhuc,
            model_size=_SK_SIZE, attention_heads=2, feed_forward_num_hidden=2 * _SK_SIZE, act_type="relu",
            num_layers=1, dropout_attention=0.0, dropout_act=0.0, dropout_prepost=0.0,
            positional_embedding_type=C.FIXED_POSITIONAL_EMBEDDING, preprocess_sequence="n",
            postprocess_sequence="r", max_seq_len_source=_SK_LENGTH, max_seq_len_target=_SK_LENGTH, **kwargs)
    statistics = data_io.DataStatistics(
        num_sents=0, num_discarded=0, num_tokens_source=0, num_tokens_target=0, num_unks_source=0,
        num_unks_target=0, max_observed_len_source=_SK_LENGTH, max_observed_len_target=_SK_LENGTH,
        size_vocab_source=_SK_VOCAB, size_vocab_target=_SK_VOCAB, length_ratio_mean=1.0, length_ratio_std=0.1,
        buckets=[], num_sents_per_bucket=[], average_len_target_per_bucket=[], length_ratio_stats_per_bucket=None)
    data = data_io.DataConfig(data_statistics=statistics, max_seq_len_source=_SK_LENGTH,
                              max_seq_len_target=_SK_LENGTH, num_source_factors=1, num_target_factors=1)
    return model.ModelConfig(
        config_data=data, vocab_source_size=_SK_VOCAB, vocab_target_size=_SK_VOCAB,
        config_embed_source=encoder.EmbeddingConfig(vocab_size=_SK_VOCAB, num_embed=_SK_SIZE, dropout=0.0),
        config_embed_target=encoder.EmbeddingConfig(vocab_size=_SK_VOCAB, num_embed=_SK_SIZE, dropout=0.0),
        config_encoder=transformer_config(), config_decoder=transformer_config(decoder_type=decoder_type),
        config_length_task=layers.LengthRatioConfig(num_layers=1, weight=1.0) if length_task else None,
        weight_tying_type=C.WEIGHT_TYING_NONE, lhuc=lhuc)


def _sockeye_vocab():
    from sockeye import constants as C
    words = C.VOCAB_SYMBOLS + [f"w{index}" for index in range(_SK_VOCAB - len(C.VOCAB_SYMBOLS))]
    return {word: index for index, word in enumerate(words)}


def _sockeye_lexicon():
    """A top-4 lexicon mapping every source word to the target words 4..7."""
    import numpy as np
    from sockeye.lexicon import TopKLexicon
    vocab = _sockeye_vocab()
    lexicon = TopKLexicon(vocab, vocab)
    lexicon.lex = np.tile(np.arange(4, 8, dtype="int32"), (_SK_VOCAB, 1))
    return lexicon


def _build_sockeye(name):
    import mxnet as mx
    kind, _, rest = name.partition(":")
    source = mx.nd.array([[[1], [2], [3], [4], [0]], [[5], [6], [7], [0], [0]]])
    source_length = mx.nd.array([4, 3])
    if kind == "model":
        from sockeye.model import SockeyeModel
        net = SockeyeModel(_sockeye_config(*SOCKEYE_MODELS[rest]))
        target = mx.nd.array([[[2], [3], [4], [0]], [[6], [7], [0], [0]]])
        return net, [source, source_length, target, mx.nd.array([3, 2])]
    if kind == "loss":
        from sockeye import constants as C, loss
        if rest in ("PoissonLoss", "MSELoss"):
            outputs = {C.LENRATIO_NAME: mx.nd.array([1.5, 0.5])}
            labels = {C.LENRATIO_LABEL_NAME: mx.nd.array([1.0, 2.0])}
        else:
            outputs = {C.LOGITS_NAME: _normal((2, 4, _SK_VOCAB))}
            labels = {C.TARGET_LABEL_NAME: mx.nd.array([[2, 3, 4, 0], [6, 7, 0, 0]])}
        return getattr(loss, rest)(), [outputs, labels]
    if kind == "block":
        from sockeye import layers
        # attention: queries (length 3, batch 2, depth 8), a memory of length 5 (keys and values interleaved:
        # depth 16 for the plain one), the valid memory length per batch row and query position (int32)
        queries, memory = _normal((3, 2, _SK_SIZE)), _normal((5, 2, 2 * _SK_SIZE))
        lengths = mx.nd.array([[5, 5, 5], [3, 3, 3]], dtype="int32")
        return {"PlainDotAttention": lambda: (layers.PlainDotAttention(), [queries, memory, lengths]),
                "ProjectedDotAttention": lambda: (layers.ProjectedDotAttention("att_", _SK_SIZE, "float32"),
                                                  [queries, memory, lengths]),
                "WeightNormalization": lambda: (layers.WeightNormalization(4), [_normal((4, 3))]),
                "LHUC": lambda: (layers.LHUC(_SK_SIZE), [_normal((2, 4, _SK_SIZE))])}[rest]()
    if kind == "scorer":
        from sockeye.beam_search import CandidateScorer
        from sockeye.scoring import BatchScorer
        kwargs, penalties = SOCKEYE_SCORERS[rest]
        net = BatchScorer(CandidateScorer(*penalties), **kwargs)
        labels = mx.nd.array([[2, 3, 4, 0], [6, 7, 0, 0]])
        return net, [_normal((2, 4, _SK_VOCAB)), labels, mx.nd.array([1.0, 1.2]), source_length, mx.nd.array([3, 2])]
    greedy, beam_size, lexicons = SOCKEYE_SEARCHES[rest]
    return _sockeye_search_block()(greedy, beam_size, lexicons), [source, source_length, mx.nd.array([6, 6], dtype="int32")]


def _sockeye_search_block():
    """The block class calling a sockeye search as its translator does (defined lazily: MXNet is imported
    in the worker only)."""
    import mxnet as mx

    class SockeyeSearch(mx.gluon.Block):
        """A search of sockeye.beam_search on a tiny SockeyeModel. The model is a child (the translator
        initializes and hybridizes its models itself); one call runs the search once per lexicon of
        ``lexicons`` (one batch each) and returns the word indices of each as NDArrays."""

        def __init__(self, greedy, beam_size, lexicons):
            super().__init__()
            from sockeye.beam_search import CandidateScorer, get_search_algorithm
            from sockeye.model import SockeyeModel
            self.model = SockeyeModel(_sockeye_config(), inference_only=True)
            self.search = get_search_algorithm(
                [self.model], beam_size=beam_size, context=mx.cpu(), vocab_target=_sockeye_vocab(),
                output_scores=False, scorer=CandidateScorer(1.0, 0.0, 0.0),
                constant_length_ratio=-1.0 if greedy else 0.0, hybridize=False, greedy=greedy)
            self.lexicons = [None if kind == "none" else _sockeye_lexicon() for kind in lexicons]
            self.batch = 1 if greedy else None  # greedy search translates one sentence at a time

        def forward(self, source, source_length, max_output_lengths):
            batch = self.batch or source.shape[0]
            outputs = []
            for lexicon in self.lexicons:
                result = self.search(source[:batch], source_length[:batch], lexicon, [None] * batch,
                                     [None] * batch, max_output_lengths[:batch])
                outputs.append(mx.nd.array(result[1]))
            return outputs

    return SockeyeSearch
