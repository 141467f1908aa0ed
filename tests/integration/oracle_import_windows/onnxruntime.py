# The ONNX Runtime import oracle, run by a real Windows CPython under Wine
# (tests/integration/oracle_import_windows/onnxruntime.rs): `import onnxruntime`, then an InferenceSession
# on a one-node ONNX model (an Identity) that asks for the CUDA execution provider, which makes
# ONNX Runtime load onnxruntime_providers_cuda.dll with its own loader. ONNX Runtime logs what
# LoadLibrary said ("LoadLibrary failed with error 126 ..." on stderr); this prints one JSON line.
# The model is written by hand (protobuf wire format of onnx.proto's ModelProto), so no `onnx`
# package is needed.
import json
import sys


def varint(v):
    out = b""
    while True:
        b, v = v & 0x7F, v >> 7
        out += bytes([b | (0x80 if v else 0)])
        if not v:
            return out


def field(number, payload):
    if isinstance(payload, int):
        return varint(number << 3) + varint(payload)
    return varint((number << 3) | 2) + varint(len(payload)) + payload


def value_info(name):
    # ValueInfoProto{name, type: TypeProto{tensor_type: {elem_type: FLOAT, shape: [1]}}}
    shape = field(1, field(1, 1))
    tensor = field(1, 1) + field(2, shape)
    return field(1, name.encode()) + field(2, field(1, tensor))


node = field(1, b"x") + field(2, b"y") + field(4, b"Identity")
graph = field(1, node) + field(2, b"g") + field(11, value_info("x")) + field(12, value_info("y"))
model = field(1, 7) + field(8, field(2, 13)) + field(7, graph)  # IR 7, opset 13

result = {}
try:
    import onnxruntime
except Exception as e:  # the import itself failed: its message carries the Windows error
    result["import_error"] = "%s: %s" % (type(e).__name__, e)
else:
    result["version"] = onnxruntime.__version__
    try:
        session = onnxruntime.InferenceSession(model, providers=["CUDAExecutionProvider"])
        result["providers"] = session.get_providers()
    except Exception as e:
        result["session_error"] = "%s: %s" % (type(e).__name__, e)
sys.stderr.flush()
print(json.dumps(result), flush=True)
