"""Graph nodes. A node is either a variable (``op is None``) or an operator application.

Nodes are plain records; shape inference and evaluation live in :mod:`hylint.runtime.executor`."""
from . import ops as _ops
from .base import RuntimeUnsupported


class Node:
    __slots__ = ("op", "name", "attr_strs", "attrs", "inputs", "origin", "n_outputs", "var_attrs", "subgraphs")

    def __init__(self, op, name, attr_strs=None, attrs=None, inputs=(), origin=None, n_outputs=1, var_attrs=None,
                 subgraphs=None):
        self.op = op                    # Op or None (variable)
        self.name = name
        self.attr_strs = dict(attr_strs or {})
        self.attrs = attrs if attrs is not None else {}
        self.inputs = list(inputs)      # [(Node, output_index)]
        self.origin = origin            # (filename, lineno) of the user code that created it
        self.n_outputs = n_outputs
        self.var_attrs = dict(var_attrs or {})  # __shape__, __dtype__, ... of variables
        self.subgraphs = subgraphs      # the JSON subgraphs of a fused operator, written back as read

    @property
    def is_variable(self):
        return self.op is None

    def output_name(self, index):
        if self.is_variable:
            return self.name
        if self.n_outputs == 1:
            return self.name + "_output"
        return "%s_output%d" % (self.name, index)

    def __repr__(self):
        return "<Node %s %s>" % (self.op.name if self.op else "var", self.name)


def topo_order(heads):
    """Nodes reachable from ``heads`` ([(Node, index)]), inputs before users, in DFS order."""
    order, seen = [], set()
    stack = [(node, False) for node, _ in reversed(heads)]
    while stack:
        node, expanded = stack.pop()
        if id(node) in seen:
            continue
        if expanded:
            seen.add(id(node))
            order.append(node)
            continue
        stack.append((node, True))
        for child, _ in reversed(node.inputs):
            if id(child) not in seen:
                stack.append((child, False))
    return order


def aux_variable_ids(order):
    """Variables fed into an op's auxiliary-state slot (BatchNorm running statistics)."""
    aux = set()
    for node in order:
        if node.op is None or not node.op.aux:
            continue
        names, _ = _input_slots(node)
        for slot, (child, _) in zip(names, node.inputs):
            if slot in node.op.aux and child.is_variable:
                aux.add(id(child))
    return aux


def _input_slots(node):
    op = node.op
    if op.variadic:
        return ["arg%d" % i for i in range(len(node.inputs))], None
    names = [n for n in op.inputs if not _ops.skip_optional_input(op, n, node.attrs)]
    return names, None


def to_json_dict(heads):
    """MXNet-style graph JSON (nodes / arg_nodes / heads)."""
    order = topo_order(heads)
    index = {id(n): i for i, n in enumerate(order)}
    nodes = []
    for n in order:
        if "__subgraph__" in n.attrs:
            from .base import MXNetError
            raise MXNetError("hylint.runtime cannot serialise control-flow subgraphs (node %s)" % n.name)
        entry = {"op": "null" if n.is_variable else n.op.name, "name": n.name,
                 "inputs": [[index[id(c)], k, 0] for c, k in n.inputs]}
        attrs = dict(n.var_attrs) if n.is_variable else dict(n.attr_strs)
        if attrs:
            entry["attrs"] = attrs
        if n.subgraphs:
            entry["subgraphs"] = n.subgraphs
        nodes.append(entry)
    return {"nodes": nodes,
            "arg_nodes": [i for i, n in enumerate(order) if n.is_variable],
            "node_row_ptr": list(range(len(order) + 1)),
            "heads": [[index[id(n)], k, 0] for n, k in heads],
            "attrs": {"mxnet_version": ["int", 10901]}}


def from_json_dict(data):
    """Rebuild heads from :func:`to_json_dict` output (or an MXNet ``-symbol.json``)."""
    built = []
    for entry in data["nodes"]:
        attrs_src = entry.get("attrs", entry.get("param", {})) or {}
        if entry["op"] == "null":
            node = Node(None, entry["name"], var_attrs=attrs_src)
        else:
            if entry["op"] not in _ops.OPS:  # a quantized graph (``*_int8`` models), a custom operator, ...
                raise RuntimeUnsupported("the operator %s (in the graph of %s)" % (entry["op"], entry["name"]))
            op = _ops.OPS[entry["op"]]
            parsed = _ops.parse_attrs(op, attrs_src)
            if op.reads_subgraphs is not None:
                if not entry.get("subgraphs"):
                    raise RuntimeUnsupported("the operator %s without its subgraph (in the graph of %s)"
                                             % (entry["op"], entry["name"]))
                parsed.update(op.reads_subgraphs(entry["subgraphs"]))
            node = Node(op, entry["name"], attrs_src, parsed, [(built[i], k) for i, k, *_ in entry["inputs"]],
                        n_outputs=op.num_outputs(parsed), subgraphs=entry.get("subgraphs"))
        built.append(node)
    return [(built[i], k) for i, k, *_ in data["heads"]]
