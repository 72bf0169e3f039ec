"""Where a zoo model's outputs on the NumPy runtime leave MXNet's: node by node, each fed MXNet's own inputs.

Two steps, two interpreters (run both with verify_zoo's OMP_NUM_THREADS=1: oneDNN's and OpenBLAS's sums
depend on the thread count):

    # 1. with MXNet: build the model as verify_zoo does (seeded parameters, seeded input), export its graph,
    #    and save every internal output of MXNet's graph executor (operators one by one, as Gluon runs them)
    OMP_NUM_THREADS=1 PYTHONPATH=. /work/main/.venv/bin/python benchmarks/zoo/verify_nodes.py record gluoncv \
        i3d_nl10_resnet50_v1_kinetics400 /tmp/i3d
    # 2. on the runtime (any numpy): every operator node of that graph runs on MXNet's own input arrays; its
    #    output is compared with MXNet's (the node's own error), and the whole graph runs on the runtime alone
    #    (the error carried from the input); a crc32 of each own output tells two numpys apart
    OMP_NUM_THREADS=1 PYTHONPATH=. python benchmarks/zoo/verify_nodes.py compare /tmp/i3d [--top 30]

Where a library traces another graph on the runtime than on MXNet (gluoncv tests `F.contrib.__dict__` for
operators; the runtime lacked `contrib.box_decode` until 28 Nov), `runtime-graph` saves the runtime's graph
first and `record --graph` runs that one on MXNet.

A node whose own error is far above its float32 rounding (a few units in the last place of its largest value)
is an operator that computes something else than MXNet's; nodes whose own errors are all at rounding level,
while the carried error grows, mean the model amplifies float32 rounding.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
import zlib
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def _seeded_model(mx, library: str, name: str, inputs: list):
    """(the model as verify_zoo builds it, with verify's seeded parameters; its input specs; its eager
    outputs), then hybridized and called once (its graph traced)."""
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(ROOT))
    from models import build
    from hylint.verify.harness import set_parameters, structural_parameters
    from hylint.verify.inputs import make_inputs, parse_inputs
    from verify_zoo import input_texts, load_labels

    label = next(item for item in load_labels()[library] if item["name"] == name)
    specs = parse_inputs(inputs or input_texts(label))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        net = build(library, name)[0]
        net.initialize()
        if any(p.shape is None or 0 in tuple(p.shape) for p in structural_parameters(net).values()):
            net(*make_inputs(mx, specs, 0))
        set_parameters(mx, net, 0)
        eager = net(*make_inputs(mx, specs, 0))
        net.hybridize()
        net(*make_inputs(mx, specs, 0))
    return net, specs, _flat([eager])


def record(library: str, name: str, out: Path, inputs: list, graph_file: Path = None) -> None:
    # the graph executor's default fuses oneDNN subgraphs (convolution + BatchNorm + ReLU); Gluon's eager and
    # hybridized calls run the operators one by one, so this does too
    os.environ["MXNET_SUBGRAPH_BACKEND"] = "NONE"
    import mxnet as mx
    from hylint.verify.inputs import make_inputs

    out.mkdir(parents=True, exist_ok=True)
    net, specs, eager = _seeded_model(mx, library, name, inputs)
    net.export(str(out / "model"))
    # a block used twice (gluoncv's shared ReLU) names two nodes alike: number the repeats, on both sides
    graph = json.loads((graph_file or out / "model-symbol.json").read_text())
    seen = {}
    for node in graph["nodes"]:
        count = seen[node["name"]] = seen.get(node["name"], 0) + 1
        if count > 1 and node["op"] != "null":
            node["name"] = f"{node['name']}__{count}"
    (out / "model-symbol.json").write_text(json.dumps(graph))
    sym = mx.sym.load(str(out / "model-symbol.json"))
    saved = mx.nd.load(str(out / "model-0000.params"))
    args = {key[4:]: value for key, value in saved.items() if key.startswith("arg:")}
    aux = {key[4:]: value for key, value in saved.items() if key.startswith("aux:")}
    data_names = [n for n in sym.list_arguments() if n not in args]
    for data_name, array in zip(data_names, _flat(make_inputs(mx, specs, 0))):  # RNN states: nested lists
        args[data_name] = array
    internals = sym.get_internals()
    names = [n for n in internals.list_outputs() if n not in args and n not in aux]
    group = mx.sym.Group([internals[n] for n in names])
    executor = group.bind(mx.cpu(), args=[args[n] for n in group.list_arguments()],
                          aux_states=[aux[n] for n in group.list_auxiliary_states()], grad_req="null")
    values = executor.forward(is_train=False)
    arrays = {n: v.asnumpy() for n, v in zip(names, values)}
    arrays.update({n: v.asnumpy() for n, v in args.items()})
    arrays.update({n: v.asnumpy() for n, v in aux.items()})
    for index, value in enumerate(eager):
        arrays[f"__eager__/{index}"] = value.asnumpy()
    np.savez(out / "values.npz", **arrays)
    print(f"{len(names)} internal outputs of {name} saved in {out / 'values.npz'}")


def runtime_graph(library: str, name: str, out: Path, inputs: list) -> None:
    """The graph the runtime traces for the model (gluoncv picks other branches where the runtime lacks an
    operator MXNet has): ``out/runtime-symbol.json``, for ``record --graph``."""
    sys.path.insert(0, str(ROOT))
    from hylint.runtime import activate
    with activate() as mx:
        net = _seeded_model(mx, library, name, inputs)[0]
        out.mkdir(parents=True, exist_ok=True)
        net._cached_graph[1].save(str(out / "runtime-symbol.json"))
    print(f"the runtime's graph of {name} saved in {out / 'runtime-symbol.json'}")


def _flat(items):
    return [leaf for item in items for leaf in (_flat(item) if isinstance(item, (list, tuple)) else [item])]


def _gap(mine: np.ndarray, theirs: np.ndarray):
    """(max |d|, max |mxnet|, how many values differ, max |d| in units of float32 spacing at max |mxnet|)."""
    if mine.shape != theirs.shape:
        return None
    a, b = mine.astype(np.float64), theirs.astype(np.float64)
    finite = np.isfinite(a) & np.isfinite(b)
    d = np.abs(a - b)[finite]
    scale = float(np.max(np.abs(b[finite]))) if finite.any() else 0.0
    largest = float(d.max()) if d.size else 0.0
    spacing = float(np.spacing(np.float32(scale))) if scale else 1.0
    return largest, scale, int(np.count_nonzero(d)), largest / spacing


def _key(names: set, node, index: int) -> str:
    """The saved name of a node's output: MXNet numbers the outputs of an operator with hidden ones
    (``box_nms``: ``..._output0``) where the runtime's node has one, and the reverse (``RNN``)."""
    key = node.output_name(index)
    if key in names or node.is_variable:
        return key
    if index == 0 and f"{node.name}_output" in names:
        return f"{node.name}_output"
    # the quantized operators name their ranges: `_sg_mkldnn_conv` ``..._output_min``, quantized_pooling
    # ``..._min_output``
    for suffixes in (("_output", "_output_min", "_output_max"), ("_output", "_min_output", "_max_output")):
        if index < len(suffixes) and node.name + suffixes[index] in names:
            return node.name + suffixes[index]
    return f"{node.name}_output{index}"


def compare(folder: Path, top: int) -> None:
    sys.path.insert(0, str(ROOT))
    from hylint.runtime.graph import topo_order
    from hylint.runtime.symbol import load

    order = topo_order(load(str(folder / "model-symbol.json"))._outputs)
    last_use = {}
    for position, node in enumerate(order):
        for child, k in node.inputs:
            last_use[(id(child), k)] = position
    rows = []
    carried = {}  # the runtime's own run of the whole graph, each array dropped after its last reader
    with np.load(folder / "values.npz") as values:  # read lazily: a large model's values do not fit twice
        names = set(values.files)
        for position, node in enumerate(order):
            if node.is_variable:
                carried[(id(node), 0)] = values[node.name]
                continue
            attrs = dict(node.attrs, __eager__=False)
            inputs = [values[_key(names, child, k)] for child, k in node.inputs]
            out = node.op.kernel(inputs, attrs)
            out = out if isinstance(out, tuple) else (out,)
            chained = node.op.kernel([carried[(id(child), k)] for child, k in node.inputs], attrs)
            chained = chained if isinstance(chained, tuple) else (chained,)
            for k in range(node.n_outputs):
                carried[(id(node), k)] = np.asarray(chained[k])
                key = _key(names, node, k)
                if key not in names:
                    continue
                mine, theirs = np.asarray(out[k]), values[key]
                digest = zlib.crc32(np.ascontiguousarray(mine).tobytes())
                rows.append((node.name, node.op.name, key, _gap(mine, theirs), _gap(carried[(id(node), k)], theirs),
                             digest))
            for child, k in node.inputs:
                if last_use.get((id(child), k)) == position:
                    carried.pop((id(child), k), None)
    print("node | op | own max|d| | max|mxnet| | values differing | own in float32 steps at max | carried max|d| "
          "(relative) | crc32 of the runtime's own output (to compare two numpys)")
    for name, op, key, own, chain, digest in rows:
        if own is None:
            print(f"{name} | {op} | shape differs | | | | | {digest:08x}")
            continue
        carried_text = f"{chain[0]:.3g} ({chain[0] / max(chain[1], 1e-30):.2g})" if chain else "shape differs"
        print(f"{name} | {op} | {own[0]:.3g} | {own[1]:.3g} | {own[2]} | {own[3]:.1f} | {carried_text} | {digest:08x}")
    print()
    print(f"the {top} largest own errors, in float32 steps at the node's largest value:")
    for name, op, key, own, chain, digest in sorted((r for r in rows if r[3]), key=lambda r: -r[3][3])[:top]:
        print(f"  {name} ({op}): {own[3]:.1f} steps, max |d| {own[0]:.3g} of {own[1]:.3g}, {own[2]} values differ")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("library")
    rec.add_argument("name")
    rec.add_argument("out", type=Path)
    rec.add_argument("--input", action="append", default=[], help="verify's --input texts (default: the label's)")
    rec.add_argument("--graph", type=Path, default=None,
                     help="run this graph (runtime-graph's) on MXNet instead of MXNet's own export")
    own = sub.add_parser("runtime-graph")
    own.add_argument("library")
    own.add_argument("name")
    own.add_argument("out", type=Path)
    own.add_argument("--input", action="append", default=[])
    cmp_ = sub.add_parser("compare")
    cmp_.add_argument("folder", type=Path)
    cmp_.add_argument("--top", type=int, default=30)
    args = parser.parse_args(argv)
    if args.command == "record":
        record(args.library, args.name, args.out, args.input, args.graph)
    elif args.command == "runtime-graph":
        runtime_graph(args.library, args.name, args.out, args.input)
    else:
        compare(args.folder, args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
