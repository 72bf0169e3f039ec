"""Where a zoo model's outputs on the NumPy runtime leave MXNet's: node by node, each fed MXNet's own inputs.

Two steps, two interpreters:

    # 1. with MXNet: build the model as verify_zoo does (seeded parameters, seeded input), export its graph,
    #    and save every internal output of MXNet's graph executor
    PYTHONPATH=. /work/main/.venv/bin/python benchmarks/zoo/verify_nodes.py record gluoncv \
        i3d_nl10_resnet50_v1_kinetics400 /tmp/i3d
    # 2. on the runtime (any numpy): every operator node of that graph runs on MXNet's own input arrays; its
    #    output is compared with MXNet's (the node's own error), and the whole graph runs on the runtime alone
    #    (the error carried from the input)
    PYTHONPATH=. python benchmarks/zoo/verify_nodes.py compare /tmp/i3d [--top 30]

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
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def record(library: str, name: str, out: Path, inputs: list) -> None:
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(ROOT))
    # the graph executor's default fuses oneDNN subgraphs (convolution + BatchNorm + ReLU); Gluon's eager and
    # hybridized calls run the operators one by one, so this does too
    os.environ["MXNET_SUBGRAPH_BACKEND"] = "NONE"
    import mxnet as mx
    from models import build
    from hylint.verify.harness import set_parameters, structural_parameters
    from hylint.verify.inputs import make_inputs, parse_inputs
    from verify_zoo import input_texts, load_labels

    label = next(item for item in load_labels()[library] if item["name"] == name)
    specs = parse_inputs(inputs or input_texts(label))
    out.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        net = build(library, name)[0]
        net.initialize()
        if any(0 in tuple(p.shape or (0,)) or p.shape is None for p in structural_parameters(net).values()):
            net(*make_inputs(mx, specs, 0))
        set_parameters(mx, net, 0)
        eager = net(*make_inputs(mx, specs, 0))
        net.hybridize()
        net(*make_inputs(mx, specs, 0))
        net.export(str(out / "model"))
    eager = eager if isinstance(eager, (list, tuple)) else [eager]
    # a block used twice (gluoncv's shared ReLU) names two nodes alike: number the repeats, on both sides
    graph = json.loads((out / "model-symbol.json").read_text())
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
    for data_name, array in zip(data_names, make_inputs(mx, specs, 0)):
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


def compare(folder: Path, top: int) -> None:
    sys.path.insert(0, str(ROOT))
    from hylint.runtime.executor import evaluate
    from hylint.runtime.graph import topo_order
    from hylint.runtime.symbol import load

    sym = load(str(folder / "model-symbol.json"))
    heads = sym._outputs
    order = topo_order(heads)
    rows = []
    with np.load(folder / "values.npz") as stored:
        values = {key: stored[key] for key in stored.files}
    variables = {node.name: values[node.name] for node in order if node.is_variable}
    # the whole graph on the runtime, every output kept
    every = [(node, k) for node in order if not node.is_variable for k in range(node.n_outputs)]
    carried = dict(zip([(id(n), k) for n, k in every], evaluate(every, variables)))
    for node in order:
        if node.is_variable:
            continue
        inputs = [values[child.output_name(k)] for child, k in node.inputs]
        out = node.op.kernel(inputs, dict(node.attrs, __eager__=False))
        out = out if isinstance(out, tuple) else (out,)
        for k in range(node.n_outputs):
            key = node.output_name(k)
            if key not in values:
                continue
            own = _gap(np.asarray(out[k]), values[key])
            chain = _gap(carried[(id(node), k)], values[key])
            rows.append((node.name, node.op.name, key, own, chain))
    print("node | op | own max|d| | max|mxnet| | values differing | own in float32 steps at max | carried max|d| (relative)")
    for name, op, key, own, chain in rows:
        if own is None:
            print(f"{name} | {op} | shape differs")
            continue
        carried_text = f"{chain[0]:.3g} ({chain[0] / max(chain[1], 1e-30):.2g})" if chain else "shape differs"
        print(f"{name} | {op} | {own[0]:.3g} | {own[1]:.3g} | {own[2]} | {own[3]:.1f} | {carried_text}")
    print()
    print(f"the {top} largest own errors, in float32 steps at the node's largest value:")
    for name, op, key, own, chain in sorted((r for r in rows if r[3]), key=lambda r: -r[3][3])[:top]:
        print(f"  {name} ({op}): {own[3]:.1f} steps, max |d| {own[0]:.3g} of {own[1]:.3g}, {own[2]} values differ")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("library")
    rec.add_argument("name")
    rec.add_argument("out", type=Path)
    rec.add_argument("--input", action="append", default=[], help="verify's --input texts (default: the label's)")
    cmp_ = sub.add_parser("compare")
    cmp_.add_argument("folder", type=Path)
    cmp_.add_argument("--top", type=int, default=30)
    args = parser.parse_args(argv)
    if args.command == "record":
        record(args.library, args.name, args.out, args.input)
    else:
        compare(args.folder, args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
