# The TensorFlow import oracle, run by a real Windows CPython under Wine
# (tests/integration/oracle_import_windows/tensorflow.rs): `import tensorflow`, then
# tf.config.list_physical_devices("GPU"), which registers the GPU devices: TensorFlow asks the
# CUDA driver (nvcuda.dll) for its GPUs, then loads its CUDA and cuDNN libraries
# (DsoLoader::MaybeTryDlopenGPULibraries, LoadLibraryExW on each bare name) and lists the GPU
# only when every one loaded. TensorFlow logs each load itself on stderr ("Successfully opened
# dynamic library X" at VLOG level 1 of dso_loader, "Could not load dynamic library 'X'"
# otherwise). With --profile DIR it then starts and stops TensorFlow's profiler, whose GPU
# tracer loads CUPTI the same way. Prints one JSON line: TensorFlow's version and the GPUs it
# lists, or the import's error.
import json
import sys

result = {}
try:
    import tensorflow as tf
except Exception as e:
    result["import_error"] = "%s: %s" % (type(e).__name__, e)
else:
    result["version"] = tf.__version__
    result["gpus"] = [d.name for d in tf.config.list_physical_devices("GPU")]
    if "--profile" in sys.argv:
        tf.profiler.experimental.start(sys.argv[sys.argv.index("--profile") + 1])
        tf.profiler.experimental.stop()
        result["profiled"] = True
print(json.dumps(result), flush=True)
