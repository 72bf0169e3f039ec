"""Labels a few HybridBlocks of releases hylint was never tuned on, on real MXNet 1.9.1 (issue 43).

    python benchmarks/unseen_label.py [SOURCES]      # SOURCES: where the releases are unpacked
                                                     # (default benchmarks/.unseen/src2, git-ignored)

The releases (pinned, from PyPI, never committed) and the by-hand read of hylint's diagnostics on them are in
benchmarks/UNSEEN_READ.md. Each block is built small, called eagerly, then hybridized and called twice; the
verdict follows benchmarks/zoo/label.py: OK, TRACE_FAIL (raised while tracing with Symbols), GRAPH_FAIL (raised
after the trace), DIFF (outputs differ) or EAGER_FAIL. Packages are entered without running their
`__init__.py` (which loads pretrained files or optional dependencies): each package folder becomes a bare
package whose submodules import as usual.
"""
from __future__ import annotations

import argparse
import sys
import traceback
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
ATOL, RTOL = 1e-4, 1e-3


def _bare_package(name: str, folder: Path) -> None:
    module = types.ModuleType(name)
    module.__path__ = [str(folder)]
    sys.modules[name] = module


def _class_from(path: Path, name: str, **namespace):
    """The class `name` of the file at `path`, its source executed alone in `namespace`."""
    import ast
    tree = ast.parse(path.read_text())
    node = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)
    exec(compile(ast.Module(body=[node], type_ignores=[]), str(path), "exec"), namespace)  # noqa: S102
    return namespace[name]


def _file_module(path: Path):
    """The module at `path`, run alone (for files that import only MXNet and NumPy)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("unseen_" + path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _flat(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


def label(build, inputs) -> tuple[str, str]:
    import mxnet as mx
    mx.random.seed(1234)
    try:
        block = build()
        block.initialize()
        arguments = inputs()
        eager = [o.asnumpy() for o in _flat(block(*arguments))]
    except Exception as error:  # noqa: BLE001 - the verdict records any failure
        return "EAGER_FAIL", f"{type(error).__name__}: {str(error).splitlines()[0][:160]}"
    block.hybridize()
    try:
        block(*arguments)
    except Exception as error:  # noqa: BLE001
        frames = [frame.name for frame in traceback.extract_tb(error.__traceback__)]
        stage = "TRACE_FAIL" if "hybrid_forward" in frames else "GRAPH_FAIL"
        return stage, f"{type(error).__name__}: {str(error).splitlines()[0][:160]}"
    hybrid = [o.asnumpy() for o in _flat(block(*arguments))]
    for e, h in zip(eager, hybrid):
        if e.shape != h.shape or abs(h - e).max() > ATOL + RTOL * abs(e).max():
            return "DIFF", f"eager {e.shape}, hybridized {h.shape}"
    return "OK", ""


def cases(src: Path):
    import mxnet as mx
    from mxnet import nd
    from mxnet.gluon import nn
    _bare_package("cnstd", src / "cnstd" / "cnstd")
    _bare_package("cnocr", src / "cnocr" / "cnocr")
    _bare_package("donkeycar", src / "mxnet_donkeycar" / "donkeycar")

    def loss_inputs(k=3, b=2, h=8, w=8):
        def make():
            mx.random.seed(7)
            return (nd.random.uniform(shape=(b, h, w)).round(), nd.random.uniform(shape=(b, k - 1, h, w)).round(),
                    nd.random.uniform(shape=(b, k, h, w)), nd.ones((b, h, w)))
        return make

    def dice(name):
        def build():
            from cnstd.model import loss
            return getattr(loss, name)(num_kernels=3)
        return build

    yield "cnstd 0.1.1 model/loss.py DiceLoss", dice("DiceLoss"), loss_inputs()
    yield "cnstd 0.1.1 model/loss.py DiceLoss_with_OHEM", dice("DiceLoss_with_OHEM"), loss_inputs()

    def psenet():
        from cnstd.model.net import PSENet
        return PSENet("mobilenetv3", num_kernels=3)
    yield "cnstd 0.1.1 model/net.py PSENet(mobilenetv3)", psenet, lambda: (nd.random.uniform(shape=(1, 3, 64, 64)),)

    def densenet():
        from cnocr.symbols.densenet import DenseNet
        return DenseNet((32, 64, 128, 256), shorter=False)
    image = lambda: (nd.random.uniform(shape=(2, 1, 32, 64)),)  # noqa: E731
    yield "cnocr 1.2.2 symbols/densenet.py DenseNet(lite)", densenet, image

    def crnn(seq_model_type):
        def build():
            from cnocr.symbols.crnn import CRnn
            from cnocr.symbols.densenet import DenseNet
            hp = types.SimpleNamespace(dropout=0.0, num_hidden=16, num_lstm_layer=1, seq_model_type=seq_model_type)
            return CRnn(hp, DenseNet((32, 64, 128, 256), shorter=False))
        return build
    yield "cnocr 1.2.2 symbols/crnn.py CRnn(DenseNet, lstm)", crnn("lstm"), image
    yield "cnocr 1.2.2 symbols/crnn.py CRnn(DenseNet, gru)", crnn("gru"), image

    def add_block():
        # monk's layers.py star-imports its whole system (GPU probes and more): the class alone, run with nn
        addBlock = _class_from(src / "monk_gluon_cpu" / "monk" / "gluon" / "models" / "layers.py", "addBlock", nn=nn)
        return addBlock([[nn.Dense(4)], [nn.Dense(4), nn.Activation("relu")]])
    yield "monk-gluon-cpu 0.0.1 gluon/models/layers.py addBlock", add_block, lambda: (nd.random.uniform(shape=(2, 5)),)

    def categorical():
        from donkeycar.parts.gluon_model import GluonCategorical
        return GluonCategorical(num_classes=15)
    yield ("mxnet-donkeycar 1.0 parts/gluon_model.py GluonCategorical", categorical,
           lambda: (nd.random.uniform(shape=(2, 3, 80, 160)),))

    def hybrid_loss():
        from donkeycar.parts.gluon_model import GluonCategorical
        return GluonCategorical.loss()
    yield ("mxnet-donkeycar 1.0 parts/gluon_model.py HybridLoss", hybrid_loss,
           lambda: (nd.random.uniform(shape=(2, 15)), nd.random.uniform(shape=(2, 1)), nd.array([1, 3]),
                    nd.random.uniform(shape=(2, 1))))


    toolkits = src / "turicreate" / "turicreate" / "toolkits"

    def flatten_channel_last():
        block = _class_from(toolkits / "sound_classifier" / "_audio_feature_extractor.py", "Flatten_channel_last",
                            mx=mx, nn=nn)
        return block()
    yield ("turicreate 5.4 sound_classifier/_audio_feature_extractor.py Flatten_channel_last", flatten_channel_last,
           lambda: (nd.random.uniform(shape=(2, 3, 4, 5)),))

    def yolo_loss():
        detector = _file_module(toolkits / "object_detector" / "_mx_detector.py")
        parameters = dict(lmb_coord_xy=10.0, lmb_coord_wh=10.0, lmb_obj=100.0, lmb_noobj=5.0, lmb_class=2.0,
                          rescore=True)
        return detector.YOLOLoss(input_shape=(32, 32), output_shape=(2, 2), batch_size=2, num_classes=3,
                                 anchors=[(1.0, 2.0), (2.0, 1.0)], parameters=parameters)

    def yolo_inputs():
        mx.random.seed(11)
        ymap = nd.random.uniform(shape=(2, 2, 2, 2, 8))
        ymap[:, :, :, :, 4] = nd.random.uniform(shape=(2, 2, 2, 2)).round()
        return nd.random.uniform(-1, 1, shape=(2, 2, 2, 2, 8)), ymap
    yield "turicreate 5.4 object_detector/_mx_detector.py YOLOLoss", yolo_loss, yolo_inputs

    def tiny_darknet():
        return _file_module(toolkits / "object_detector" / "_model.py").tiny_darknet(output_size=10)
    yield ("turicreate 5.4 object_detector/_model.py tiny_darknet (with _SpecialCrop)", tiny_darknet,
           lambda: (nd.random.uniform(shape=(1, 3, 64, 64)),))

    def drawing():
        return _file_module(toolkits / "drawing_classifier" / "_model_architecture.py").Model(num_classes=4)
    yield ("turicreate 5.4 drawing_classifier/_model_architecture.py Model", drawing,
           lambda: (nd.random.uniform(shape=(2, 1, 28, 28)),))

    def style(batch_size):
        def build():
            return _file_module(toolkits / "style_transfer" / "_model.py").Transformer(num_styles=3,
                                                                                         batch_size=batch_size)
        return build
    for batch_size in (1, 2):
        yield (f"turicreate 5.4 style_transfer/_model.py Transformer(batch_size={batch_size})", style(batch_size),
               lambda b=batch_size: (nd.random.uniform(shape=(b, 3, 16, 16)), nd.array([2, 0][:b])))

    def vgg():
        return _file_module(toolkits / "style_transfer" / "_model.py").Vgg16()
    yield "turicreate 5.4 style_transfer/_model.py Vgg16", vgg, lambda: (nd.random.uniform(shape=(1, 3, 16, 16)),)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sources", nargs="?", default=str(HERE / ".unseen" / "src2"))
    args = parser.parse_args(argv)
    for name, build, inputs in cases(Path(args.sources).resolve()):
        verdict, why = label(build, inputs)
        print(f"{verdict:11} {name}" + (f"  ({why})" if why else ""), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
