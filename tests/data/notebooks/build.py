"""Writes the notebooks of this folder (nbformat 4, in nbformat's own JSON layout: sorted keys, indent 1,
a final newline), from the two seed pages: MXNet's hybridize tutorial and d2l's hybridize chapter, their
code carrying the tutorial's six documented patterns. Run it after changing a cell:

    python tests/data/notebooks/build.py
"""
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent


def lines(text):
    return text.strip("\n").splitlines(keepends=True)


def md(text):
    return {"cell_type": "markdown", "metadata": {}, "source": lines(text)}


def code(text, count=None, outputs=(), metadata=None):
    return {"cell_type": "code", "execution_count": count, "metadata": metadata or {}, "outputs": list(outputs),
            "source": lines(text)}


def stream(text):
    return {"name": "stdout", "output_type": "stream", "text": lines(text)}


def result(count, text):
    return {"data": {"text/plain": lines(text)}, "execution_count": count, "metadata": {},
            "output_type": "execute_result"}


METADATA = {
    "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
    "language_info": {"name": "python", "version": "3.11.7"},
}

TUTORIAL = [
    md("""
# Hybrid - Faster training and easy deployment

`HybridBlock` seamlessly combines declarative programming and imperative programming to offer the
benefit of both. (From MXNet's hybridize tutorial; the code below carries the six patterns the
tutorial documents as not working with hybridize.)
"""),
    code("""
%matplotlib inline
import mxnet as mx
from mxnet import gluon, nd
from mxnet.gluon import nn
mx.random.seed(42)
""", 1),
    md("""
## HybridBlock

To use hybrid support, we subclass the `HybridBlock`:
"""),
    code("""
class Net(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super(Net, self).__init__(**kwargs)
        with self.name_scope():
            # layers created in name_scope will inherit name space
            # from parent layer.
            self.conv1 = nn.Conv2D(6, kernel_size=5)
            self.pool1 = nn.MaxPool2D(pool_size=2)
            self.conv2 = nn.Conv2D(16, kernel_size=5)
            self.pool2 = nn.MaxPool2D(pool_size=2)
            self.fc1 = nn.Dense(120)
            self.fc2 = nn.Dense(84)
            # You can use a Dense layer for fc3 but we do dot product manually
            # here for illustration purposes.
            self.fc3_weight = self.params.get('fc3_weight', shape=(10, 84))

    def hybrid_forward(self, F, x, fc3_weight):
        x = self.pool1(F.relu(self.conv1(x)))
        x = self.pool2(F.relu(self.conv2(x)))
        # Shape: a Symbol has no shape attribute
        x = x.reshape((x.shape[0], -1))
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = F.dot(x, fc3_weight, transpose_b=True)
        # Element-wise operators broadcast only on NDArrays
        return x + nd.ones((1, 10))
""", 2),
    md("""
## Hybridize

By default, `HybridBlock` runs just like a standard `Block`.
"""),
    code("""
net = Net()
net.initialize()
x = mx.nd.random_normal(shape=(16, 1, 28, 28))
eager = net(x)
eager.shape
""", 3, [result(3, "(16, 10)")]),
    code("""
net.hybridize()
hybridized = net(x)
print('Net', (eager - hybridized).abs().max().asscalar())
""", 4, [stream("Net 0.0\n")]),
    md("""
## Operators that do not work with hybridize

### Element-wise Operators
"""),
    code("""
class AddOnes(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        # avoid writing: return x + F.ones((1, 1))
        return x + F.ones((1, 1))
""", 5),
    md("""
### Slice

`[]` in NDArray is used to get a slice from the array. However, `[]` in Symbol is used to get an
output from a grouped symbol.
"""),
    code("""
class FirstRow(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        return x[:, 0]
""", 6),
    md("""
#### Array creation APIs

`mx.nd.array()` is used a lot, but Symbol does not have the `array` API.
"""),
    code("""
class Shift(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        return F.broadcast_add(x, nd.array([[1, 1, 1]]))
""", 7),
    md("""
#### In-Place Arithmetic Operators
"""),
    code("""
class Scale(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        y = F.relu(x)
        y *= 2
        return y
""", 8),
    md("""
#### NDArray.asnumpy

Symbol does not support the `asnumpy` function.
"""),
    code("""
class Inspect(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        if x.asnumpy().max() > 100:
            x = F.clip(x, -100, 100)
        return F.relu(x)
""", 9),
    code("""
%%time
net(x).wait_to_read()
""", 10, [stream("CPU times: user 1.2 ms, sys: 0 ns, total: 1.2 ms\n")]),
    code("""
!echo comparing eager and hybridized outputs
for block in [AddOnes(), FirstRow(), Shift(), Scale()]:
    block.initialize()
    data = nd.random.normal(shape=(2, 3))
    eager = block(data)
    block.hybridize()
    print(type(block).__name__, (block(data) - eager).abs().max().asscalar())
""", 11),
]

D2L = [
    md("""
# Hybrid Programming

(From the d2l chapter on hybrid programming.) In hybrid programming, we can build models using either
the HybridBlock or the HybridSequential classes.
"""),
    code("""
from mxnet import nd, sym
from mxnet.gluon import nn
import time

def get_net():
    net = nn.HybridSequential()  # Here we use the class HybridSequential.
    net.add(nn.Dense(256, activation='relu'),
            nn.Dense(128, activation='relu'),
            nn.Dense(2))
    net.initialize()
    return net

x = nd.random.normal(shape=(1, 512))
net = get_net()
net(x)
""", 7, [result(7, "\n[[0.08827581 0.00505182]]\n<NDArray 1x2 @cpu(0)>")]),
    code("""
net.hybridize()
%timeit -n 10 -r 1 net(x).wait_to_read()
""", 10),
    md("""
## Constructing Models Using the HybridBlock Class

The `print` statements in `hybrid_forward` run only while the graph is traced; in-place operations
like `a += b` and `a[:] = a + b` must be rewritten as `a = a + b`, and functions not supported by
Symbol (like `asnumpy`) cannot be used.
"""),
    code("""
class HybridNet(nn.HybridBlock):
    def __init__(self, **kwargs):
        super(HybridNet, self).__init__(**kwargs)
        self.hidden = nn.Dense(10)
        self.output = nn.Dense(2)

    def hybrid_forward(self, F, x):
        print('F: ', F)
        print('x: ', x)
        x = F.relu(self.hidden(x))
        print('hidden: ', x)
        return self.output(x)
""", 15),
    code("""
class Residual(nn.HybridBlock):
    def __init__(self, **kwargs):
        super(Residual, self).__init__(**kwargs)
        self.hidden = nn.Dense(4)

    def hybrid_forward(self, F, x):
        a = F.relu(self.hidden(x))
        b = self.hidden(x)
        a += b
        return a - b.mean(axis=1, keepdims=True)
""", 16),
    code("""
net = Residual()
net.initialize()
x = nd.random.normal(shape=(3, 5))
eager = net(x)
net.hybridize()
print('Residual', (net(x) - eager).abs().max().asscalar())
""", 19),
]


def write(name, cells):
    document = {"cells": cells, "metadata": METADATA, "nbformat": 4, "nbformat_minor": 5}
    for number, cell in enumerate(cells):
        cell["id"] = f"{name[:3]}-{number:02d}"
    text = json.dumps(document, sort_keys=True, indent=1, ensure_ascii=False) + "\n"
    (HERE / f"{name}.ipynb").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    write("hybridize_tutorial", TUTORIAL)
    write("d2l_hybridize", D2L)
