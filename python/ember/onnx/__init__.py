"""ember.onnx: present so that scripts importing torch.onnx run; exporting a
model to ONNX is not supported by Ember, and says so when called."""


class OnnxExporterError(RuntimeError):
    pass


def _unsupported(*args, **kwargs):
    raise OnnxExporterError("ember.onnx.export: exporting to ONNX is not supported by Ember")


export = _unsupported
dynamo_export = _unsupported


def is_in_onnx_export():
    return False
