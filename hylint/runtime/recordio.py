"""``mxnet.recordio``: MXNet's record files hold encoded images; the runtime reads none of them."""
from .base import unsupported, unsupported_class

MXRecordIO = unsupported_class("mxnet.recordio.MXRecordIO")
MXIndexedRecordIO = unsupported_class("mxnet.recordio.MXIndexedRecordIO", (MXRecordIO,))
pack = unsupported("mxnet.recordio.pack")
unpack = unsupported("mxnet.recordio.unpack")
pack_img = unsupported("mxnet.recordio.pack_img")
unpack_img = unsupported("mxnet.recordio.unpack_img")
