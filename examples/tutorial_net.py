"""The LeNet-style `Net` of MXNet's hybridize tutorial, with three bugs that only show after hybridize().

    hylint verify examples/tutorial_net.py::Net --input 4x1x28x28
"""
from mxnet import gluon
from mxnet.gluon import nn


class Net(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super(Net, self).__init__(**kwargs)
        with self.name_scope():
            self.conv1 = nn.Conv2D(6, kernel_size=5)
            self.pool1 = nn.MaxPool2D(pool_size=2)
            self.conv2 = nn.Conv2D(16, kernel_size=5)
            self.pool2 = nn.MaxPool2D(pool_size=2)
            self.fc1 = nn.Dense(120)
            self.fc2 = nn.Dense(84)
            # the last layer by hand: a weight and a bias parameter
            self.fc3_weight = self.params.get('fc3_weight', shape=(10, 84))
            self.fc3_bias = self.params.get('fc3_bias', shape=(10,))

    def hybrid_forward(self, F, x, fc3_weight, fc3_bias):
        x = self.pool1(F.relu(self.conv1(x)))
        x = self.pool2(F.relu(self.conv2(x)))
        x = x.reshape((x.shape[0], -1))          # bug 1: a Symbol has no .shape
        x = x - x.mean(axis=1, keepdims=True)    # bug 2: (N, 256) - (N, 1) broadcasts only eagerly
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = F.dot(x, fc3_weight, transpose_b=True)
        return x + fc3_bias                      # bug 3: (N, 10) + (10,) broadcasts only eagerly
