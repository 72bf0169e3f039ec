"""``mxnet.io``: the data-batch records (``DataDesc``, ``DataBatch``, ``DataIter``) are real; MXNet's C++
iterators (``ImageRecordIter``, ``MXDataIter``, ...) decode files and are not provided."""
from collections import namedtuple

from .base import mx_real_t, unsupported, unsupported_class

__all__ = ["DataDesc", "DataBatch", "DataIter", "NDArrayIter", "MXDataIter", "ImageRecordIter", "CSVIter",
           "MNISTIter", "ResizeIter", "PrefetchingIter"]


class DataDesc(namedtuple("DataDesc", ["name", "shape"])):
    """A named shape with a dtype and a layout (``'NCHW'``)."""

    def __new__(cls, name, shape, dtype=mx_real_t, layout="NCHW"):
        ret = super().__new__(cls, name, shape)
        ret.dtype, ret.layout = dtype, layout
        return ret

    def __repr__(self):
        return "DataDesc[%s,%s,%s,%s]" % (self.name, self.shape, self.dtype, self.layout)

    @staticmethod
    def get_batch_axis(layout):
        return 0 if layout is None else layout.find("N")

    @staticmethod
    def get_list(shapes, types):
        if types is not None:
            type_dict = dict(types)
            return [DataDesc(x[0], x[1], type_dict[x[0]]) for x in shapes]
        return [DataDesc(x[0], x[1]) for x in shapes]


class DataBatch:
    def __init__(self, data, label=None, pad=None, index=None, bucket_key=None, provide_data=None,
                 provide_label=None):
        self.data, self.label, self.pad, self.index = data, label, pad, index
        self.bucket_key, self.provide_data, self.provide_label = bucket_key, provide_data, provide_label

    def __str__(self):
        shapes = lambda arrays: [a.shape for a in arrays] if arrays is not None else None  # noqa: E731
        return "{}: data shapes: {} label shapes: {}".format(self.__class__.__name__, shapes(self.data),
                                                             shapes(self.label))


class DataIter:
    """Base iterator: ``next()`` builds a DataBatch from ``getdata``/``getlabel``/``getpad``/``getindex``."""

    def __init__(self, batch_size=0):
        self.batch_size = batch_size

    def __iter__(self):
        return self

    def reset(self):
        pass

    def next(self):
        if self.iter_next():
            return DataBatch(data=self.getdata(), label=self.getlabel(), pad=self.getpad(), index=self.getindex())
        raise StopIteration

    def __next__(self):
        return self.next()

    def iter_next(self):
        pass

    def getdata(self):
        pass

    def getlabel(self):
        pass

    def getindex(self):
        return None

    def getpad(self):
        pass


NDArrayIter = unsupported_class("mxnet.io.NDArrayIter", (DataIter,))
MXDataIter = unsupported_class("mxnet.io.MXDataIter", (DataIter,))
ResizeIter = unsupported_class("mxnet.io.ResizeIter", (DataIter,))
PrefetchingIter = unsupported_class("mxnet.io.PrefetchingIter", (DataIter,))
ImageRecordIter = unsupported("mxnet.io.ImageRecordIter")
CSVIter = unsupported("mxnet.io.CSVIter")
MNISTIter = unsupported("mxnet.io.MNISTIter")
