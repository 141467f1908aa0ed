# Fetches the NVIDIA artefacts the knowledge generator reads (used by knowledge_generated.rs):
# for every CUDA release of PyPI's `cuda-toolkit` meta-package (the newest patch of each
# minor), the component wheels it pins; and the newest release of each minor of the libraries
# outside the toolkit (cuDNN, NCCL, cuSPARSELt, cuTENSOR, cuDSS, TensorRT). Of each wheel it
# keeps the file list (Linux x86-64 and Windows x64) and, from the Linux wheel, the headers
# that declare status enums, cuda.h, the CUDA runtime library and ptxas. Only the bytes needed
# are downloaded (HTTP Range requests, release_fetch.py's RangeFile).
# argv[1]: the cache folder. Writes <cache>/manifest.json last; a present manifest means done.
import io, json, os, re, shutil, subprocess, sys, tempfile, threading, zipfile
from concurrent.futures import ThreadPoolExecutor

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import release_fetch as rf  # noqa: E402

cache = sys.argv[1]
rf.spec["index_cache"] = os.path.join(cache, "simple-index")
_index, _lock = rf.index, threading.Lock()

# What PyPI held at this moment is the input: files uploaded later are not seen, so the same
# tables come out of a fetch made today or next year. Move it forward to take newer releases,
# then regenerate (CUDA_TRIAGE_REGENERATE=1).
SNAPSHOT = "2026-11-25T18:00:00"


def file_version(dist, filename):
    """The version in a distribution file's name (wheel or sdist), or None."""
    stem = re.sub(r"[-_.]+", "[-_.]", re.escape(dist).replace("\\-", "-"))
    m = re.match(r"(?i)" + re.sub(r"\[-_\.\]", "[-_.]", stem) + r"-([0-9][^-]*?)(?:-|\.tar\.gz$|\.zip$)", filename)
    return m.group(1) if m else None


def _locked_index(dist):
    with _lock:
        raw = _index(dist)
    files = [f for f in raw["files"] if (f.get("upload-time") or "")[:19] <= SNAPSHOT]
    def norm(v):  # cuda-toolkit 12.9.2 is cuda_toolkit-12.9.2.0
        return re.sub(r"(\.0)+$", "", v or "")
    seen = {norm(file_version(dist, f["filename"])) for f in files}
    return dict(raw, files=files, versions=[v for v in raw.get("versions", []) if norm(v) in seen])


rf.index = _locked_index

# Component wheels whose files are listed; the headers named are fetched from the Linux wheel.
HEADERS = {
    "cuda-runtime": [r"include/cuda\.h$", r"include/driver_types\.h$", r"include/cudaTypedefs\.h$",
                     r"include/cuda_runtime_api\.h$", r"lib/libcudart\.so\.\d+$"],
    "cublas": [r"include/cublas_api\.h$"],
    "cuda-cupti": [r"include/cupti_result\.h$"],
    "cuda-nvrtc": [r"include/nvrtc\.h$"],
    "nvjitlink": [r"include/nvJitLink\.h$"],
    "cufft": [r"include/cufft\.h$"],
    "curand": [r"include/curand\.h$"],
    "cusolver": [r"include/cusolver_common\.h$"],
    "cusparse": [r"include/cusparse\.h$"],
    "cuda-nvcc": [r"bin/ptxas$"],
    "cudnn": [r"include/cudnn_graph\.h$", r"include/cudnn_ops_infer\.h$"],
    "nccl": [r"include/nccl\.h$"],
    "nvml-dev": [r"include/nvml\.h$"],
    "nvjpeg": [r"include/nvjpeg\.h$"],
    "npp": [r"include/nppdefs\.h$"],
    "cuda-opencl": [r"include/CL/cl\.h$", r"include/CL/cl_ext\.h$"],
    "cutensor": [r"include/cutensor/types\.h$"],
    "cudss": [r"include/cudss_data_types\.h$"],
    "cufile": [r"include/cufile\.h$"],
}
# Headers NVIDIA ships outside PyPI, from Debian's packages at a pinned version (apt-get download;
# .ci/run installs the package too, which leaves apt's package lists in place): the Video Codec
# SDK's nvEncodeAPI.h, as FFmpeg's nv-codec-headers carry it (NVENCSTATUS); and Windows' NTSTATUS
# values (the exit codes of a crashed Windows process) from mingw-w64's ntstatus.h.
DEBIAN = {"libffmpeg-nvenc-dev": ("11.1.5.2-1", ["usr/include/ffnvcodec/nvEncodeAPI.h"]),
          "mingw-w64-common": ("10.0.0-3", ["usr/share/mingw-w64/include/ntstatus.h"])}
# Libraries outside the toolkit meta-package: distribution stems and their CUDA suffixes.
OUTSIDE = {
    "nvidia-cudnn": ["-cu11", "-cu12", "-cu13"],
    "nvidia-nccl": ["-cu11", "-cu12", "-cu13"],
    "nvidia-cusparselt": ["-cu12", "-cu13"],
    "cutensor": ["-cu11", "-cu12", "-cu13"],
    "nvidia-cudss": ["-cu12", "-cu13"],
    "nvidia-tensorrt": [""],
    "tensorrt-lean": ["-cu11-libs", "-cu12-libs", "-cu13-libs"],
}
# TensorRT 10+ ships its libraries on NVIDIA's own index, not PyPI; its Python bindings (on
# PyPI) import them by name: the newest bindings of each major are fetched on both platforms.
BINDINGS = ["tensorrt-cu11-bindings", "tensorrt-cu12-bindings", "tensorrt-cu13-bindings"]
BINDING_MEMBER = r"tensorrt_bindings/tensorrt[^/]*\.(so|pyd)$"
# Packages a fix may name, besides every wheel above: their releases and the platforms each has
# files for come from PyPI's index (the generated package_releases.toml).
PACKAGES = [
    "tensorflow", "tensorflow-gpu", "tensorflow-cpu", "tensorflow-intel", "torch", "jax", "jaxlib",
    "jax-cuda11-plugin", "jax-cuda12-plugin", "jax-cuda13-plugin", "jax-cuda11-pjrt", "jax-cuda12-pjrt",
    "jax-cuda13-pjrt", "cupy-cuda11x", "cupy-cuda12x", "cupy-cuda13x", "cupy-cuda102", "cupy-cuda110",
    "cupy-cuda111", "cupy-cuda112", "cupy-cuda113", "cupy-cuda114", "cupy-cuda115", "cupy-cuda116",
    "cupy-cuda117", "onnxruntime", "onnxruntime-gpu", "tensorrt", "tensorrt-cu11", "tensorrt-cu12",
    "tensorrt-cu13", "nvidia-cuda-nvcc-cu11", "nvidia-cuda-nvcc-cu12", "nvidia-cuda-nvcc",
    "nvidia-cudnn-cu11", "nvidia-cudnn-cu12", "nvidia-cudnn-cu13", "nvidia-cuda-runtime-cu11",
    "nvidia-cuda-runtime-cu12", "nvidia-cuda-runtime", "nvidia-cuda-cupti-cu11",
    "nvidia-cuda-cupti-cu12", "nvidia-cuda-cupti", "nvidia-cuda-nvrtc-cu11", "nvidia-cuda-nvrtc-cu12",
    "nvidia-cuda-nvrtc", "nvidia-nvjitlink-cu12", "nvidia-nvjitlink", "nvidia-cublas-cu11",
    "nvidia-cublas-cu12", "nvidia-cublas", "nvidia-cufft-cu11", "nvidia-cufft-cu12", "nvidia-cufft",
    "nvidia-curand-cu11", "nvidia-curand-cu12", "nvidia-curand", "nvidia-cusolver-cu11",
    "nvidia-cusolver-cu12", "nvidia-cusolver", "nvidia-cusparse-cu11", "nvidia-cusparse-cu12",
    "nvidia-cusparse", "nvidia-nccl-cu11", "nvidia-nccl-cu12", "nvidia-nccl-cu13", "nvidia-nvtx-cu11",
    "nvidia-nvtx-cu12", "nvidia-nvtx", "nvidia-cusparselt-cu12", "nvidia-cusparselt-cu13",
]
LIBRARY = re.compile(r"(\.so(\.[0-9]+)*|\.dll)$")
RELEASE = re.compile(r"^[0-9]+(\.[0-9]+)+$")


def short(dist):
    """nvidia-cublas-cu12 -> cublas; nvidia-cuda-runtime -> cuda-runtime."""
    s = re.sub(r"^nvidia-", "", dist)
    return re.sub(r"-cu[0-9]+$", "", s)


def newest_per_minor(dist, parts=2):
    try:
        versions = rf.index(dist).get("versions", [])
    except SystemExit:
        return []
    best = {}
    for v in versions:
        if not RELEASE.match(v):
            continue
        key = tuple(int(x) for x in v.split(".")[:parts])
        full = tuple(int(x) for x in v.split("."))
        if key not in best or full > best[key][0]:
            best[key] = (full, v)
    return [best[k][1] for k in sorted(best)]


def open_wheel(dist, version, platform):
    wheel = None
    for spelling in (version, version + ".0"):  # cuda-toolkit 12.9.2 is cuda_toolkit-12.9.2.0
        try:
            wheel = rf.pick(dist, spelling, platform)
            break
        except SystemExit:
            continue
    if wheel is None:
        return None, None
    if not wheel["filename"].endswith(".whl"):
        return None, None
    return wheel, zipfile.ZipFile(io.BufferedReader(rf.RangeFile(wheel["url"]), 1 << 18))


def toolkit_pins(version):
    """The cuda-toolkit release's pins: {dist: version}, from its METADATA."""
    wheel, z = open_wheel("cuda-toolkit", version, "linux")
    if z is None:
        return {}
    meta = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
    text = z.read(meta[0]).decode("utf-8", "replace")
    pins = {}
    for m in re.finditer(r"^Requires-Dist: ([A-Za-z0-9_.\-]+)\s*\(?==\s*([0-9][0-9A-Za-z.]*)", text, re.M):
        pins[m.group(1).lower().replace("_", "-")] = m.group(2).rstrip(".")  # "==12.4.5.8.*"
    return pins


# An unversioned Linux library (nvvm/lib64/libnvvm.so) is loaded by its SONAME (libnvvm.so.4),
# which only the binary says: its dynamic string table, near the start of the file, holds it.
UNVERSIONED = re.compile(r"(?:^|/)(lib[^/]*\.so)$")
SONAME_HEAD = 1 << 18


def sonames(z, files):
    """{member: soname} for the unversioned libraries among `files` whose SONAME adds a version."""
    found = {}
    for name in files:
        m = UNVERSIONED.search(name)
        if not m:
            continue
        with z.open(name) as f:
            head = f.read(SONAME_HEAD)
        if not head.startswith(b"\x7fELF"):
            continue
        own = re.search(rb"\0(" + re.escape(m.group(1).encode()) + rb"(?:\.[0-9]+)+)\0", head)
        if own:
            found[name] = own.group(1).decode()
    return found


def listing(dist, version, platform):
    """Lists one wheel (and fetches the wanted members of a Linux wheel) into the cache."""
    key = "%s-%s-%s" % (dist, version, platform)
    path = os.path.join(cache, "listings", key + ".json")
    patterns = HEADERS.get(short(dist), []) if platform == "linux" else []
    if dist in BINDINGS:
        patterns = [BINDING_MEMBER]
    if os.path.exists(path):
        with open(path) as f:
            cached = json.load(f)
        if cached.get("wanted") == patterns:  # fetched with today's plan
            if "sonames" not in cached:  # listed before SONAMEs were read
                unversioned = [n for n in cached["files"] if UNVERSIONED.search(n)]
                z = open_wheel(dist, version, platform)[1] if unversioned and platform == "linux" else None
                cached["sonames"] = sonames(z, unversioned) if z is not None else {}
                write_json(path, cached)
            return cached
    wheel, z = open_wheel(dist, version, platform)
    record = {"dist": dist, "version": version, "platform": platform, "wanted": patterns,
              "wheel": wheel["filename"] if wheel else None, "files": [], "fetched": []}
    if z is not None:
        wanted = [re.compile(p) for p in patterns]
        for info in z.infolist():
            name = info.filename
            if LIBRARY.search(name) or name.endswith("/ptxas") or name.endswith("/ptxas.exe"):
                record["files"].append(name)
            if any(p.search(name) for p in wanted):
                out = os.path.join(cache, "files", "%s-%s" % (dist, version), *name.split("/"))
                os.makedirs(os.path.dirname(out), exist_ok=True)
                tmp = out + ".tmp"
                with open(tmp, "wb") as f:
                    f.write(z.read(info))
                os.replace(tmp, out)
                record["fetched"].append(os.path.relpath(out, cache))
        if platform == "linux":
            record["sonames"] = sonames(z, record["files"])
    record.setdefault("sonames", {})
    write_json(path, record)
    return record


def write_json(path, record):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w") as f:
        json.dump(record, f, indent=1)
    os.replace(path + ".tmp", path)


def debian(name, version, members):
    """Extracts `members` of Debian's package `name` at `version` into <cache>/debian/."""
    out = os.path.join(cache, "debian", "%s_%s" % (name, version))
    if all(os.path.exists(os.path.join(out, m)) for m in members):
        return ["debian/%s_%s/%s" % (name, version, m) for m in members]
    with tempfile.TemporaryDirectory() as tmp:
        got = subprocess.run(["apt-get", "download", "%s=%s" % (name, version)], cwd=tmp,
                             capture_output=True, text=True)
        debs = [f for f in os.listdir(tmp) if f.endswith(".deb")]
        if got.returncode != 0 or not debs:
            sys.exit("apt-get download %s=%s failed (a Debian 12 package; run apt-get update): %s"
                     % (name, version, got.stderr.strip()))
        subprocess.run(["dpkg-deb", "-x", os.path.join(tmp, debs[0]), os.path.join(tmp, "x")], check=True)
        for m in members:
            os.makedirs(os.path.dirname(os.path.join(out, m)), exist_ok=True)
            shutil.copyfile(os.path.join(tmp, "x", m), os.path.join(out, m))
    return ["debian/%s_%s/%s" % (name, version, m) for m in members]


def main():
    toolkits = {}
    for v in newest_per_minor("cuda-toolkit"):
        if int(v.split(".")[0]) >= 11:
            toolkits[".".join(v.split(".")[:2])] = {"release": v, "pins": {}}
    with ThreadPoolExecutor(12) as pool:
        for minor, pins in zip(toolkits, pool.map(toolkit_pins, [t["release"] for t in toolkits.values()])):
            toolkits[minor]["pins"] = pins
    jobs = set()
    for t in toolkits.values():
        for dist, version in t["pins"].items():
            if short(dist) in HEADERS or dist.startswith("nvidia-"):
                jobs.add((dist, version))
    outside = {}
    for stem, suffixes in OUTSIDE.items():
        for suffix in suffixes:
            dist = stem + suffix
            versions = newest_per_minor(dist)
            outside[dist] = versions
            jobs.update((dist, v) for v in versions)
    for dist in BINDINGS:
        versions = newest_per_minor(dist, parts=1)
        outside[dist] = versions
        jobs.update((dist, v) for v in versions)
    work = [(d, v, p) for d, v in sorted(jobs) for p in ("linux", "windows")]
    with ThreadPoolExecutor(16) as pool:
        records = list(pool.map(lambda j: listing(*j), work))
    packages = {}
    os.makedirs(os.path.join(cache, "packages"), exist_ok=True)
    for name in sorted(set(PACKAGES) | {d for d, _ in jobs}):
        try:
            # Yanked files count: they stay installable by exact pin, and a later yank must not
            # change what the snapshot regenerates.
            files = [f["filename"] for f in rf.index(name)["files"]]
        except SystemExit:  # not on PyPI: a fix must never name it
            files = None
        packages[name] = files is not None
        with open(os.path.join(cache, "packages", name + ".json"), "w") as f:
            json.dump({"name": name, "files": files or []}, f)
    debian_files = {name: {"version": v, "files": debian(name, v, members)}
                    for name, (v, members) in DEBIAN.items()}
    manifest = {"toolkits": toolkits, "outside": outside, "packages": packages,
                "listings": ["listings/%s-%s-%s.json" % r for r in work], "debian": debian_files}
    with open(os.path.join(cache, "manifest.json.tmp"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
    os.replace(os.path.join(cache, "manifest.json.tmp"), os.path.join(cache, "manifest.json"))
    print("%d toolkit releases, %d wheels listed" % (len(toolkits), sum(1 for r in records if r["wheel"])))


if __name__ == "__main__":
    main()
