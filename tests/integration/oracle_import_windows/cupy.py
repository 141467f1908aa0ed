# The CuPy import oracle, run by a real Windows CPython under Wine
# (tests/integration/oracle_import_windows/cupy.rs): `import cupy` (which runs
# cupy/_environment.py's _setup_win32_dll_directory: os.add_dll_directory(<CUDA path>\bin)),
# then each CUDA module named on the command line, as cupy.linalg, cupy.fft and cupy.random
# import them on first use, and NVRTC (--nvrtc NAME), which the kernel compiler opens on first
# use. Prints one JSON line: CuPy's version, per module None or the ImportError's text ("DLL load
# failed while importing cublas: The specified module could not be found."), and "loaded" or
# CuPy's error for NVRTC ("CuPy failed to load nvrtc64_112_0.dll: FileNotFoundError: ...").
import importlib
import json
import sys
import warnings

args = sys.argv[1:]
nvrtc_name = None
if "--nvrtc" in args:
    i = args.index("--nvrtc")
    nvrtc_name = args[i + 1]
    del args[i:i + 2]
result = {"warnings": []}
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        import cupy
    except Exception as e:
        result["import_error"] = "%s: %s" % (type(e).__name__, e)
    else:
        result["version"] = cupy.__version__
        modules = {}
        for name in args:
            try:
                importlib.import_module(name)
                modules[name] = None
            except ImportError as e:
                modules[name] = str(e)
        result["modules"] = modules
        # NVRTC is imported by no module CuPy needs: its kernel compiler opens it through
        # cupy_backends.cuda._softlink.SoftLink (ctypes.CDLL(name)) with the name
        # cupy_backends/cuda/libs/nvrtc.pyx's _get_softlink picks for the CUDA runtime's major.
        # That runtime major needs a driver, which the prefix lacks, so the name comes from the
        # caller (--nvrtc NAME) and the load is CuPy's own.
        if nvrtc_name:
            from cupy_backends.cuda._softlink import SoftLink
            try:
                SoftLink(nvrtc_name, "nvrtc", mandatory=True)
                result["nvrtc"] = "loaded"
            except Exception as e:
                result["nvrtc_error"] = "%s: %s" % (type(e).__name__, e)
    result["warnings"] = [str(w.message) for w in caught]
sys.stderr.flush()
print(json.dumps(result), flush=True)
