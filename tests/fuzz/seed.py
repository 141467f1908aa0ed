#!/usr/bin/env python3
"""Fills tests/fuzz/corpus/<target>/ (gitignored) with seeds: real files from the caches the tests
already fill (tests/.cache: the NVIDIA .so files of the knowledge fetch, the framework release
files, the torch venv) and the fixtures (machine files, golden reports, the error corpus).

Targets that take several files read one input cut at SEPARATOR lines; seeds for them are the real
files joined the same way. Missing caches are skipped (run the tests once to fill them).

    python3 tests/fuzz/seed.py [--cache DIR]
"""
import argparse
import hashlib
import pathlib
import struct
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[2]
FUZZ = ROOT / "tests" / "fuzz"
FIXTURES = ROOT / "tests" / "fixtures"
SEPARATOR = b"\n--8<--\n"  # keep in step with SEPARATOR in src/lib.rs
MAX_SEED = 1 << 20  # libFuzzer's -max_len in run-all.sh
# Real PE files beside the caches: Wine's own DLLs (CI installs wine64 for the loader oracle).
WINE_DIRS = ["/usr/lib/x86_64-linux-gnu/wine/x86_64-windows", "/usr/lib/x86_64-linux-gnu/wine/i386-windows",
             "/usr/lib/wine/x86_64-windows", "/usr/lib/wine/i386-windows"]
WINE_DLLS = ["comctl32.dll", "kernel32.dll", "msvcrt.dll", "version.dll", "mscoree.dll", "user32.dll",
             "advapi32.dll", "shell32.dll", "dbghelp.dll", "msvcp140.dll", "ucrtbase.dll", "winhttp.dll"]


def put(target, data, name=None):
    if not data or len(data) > MAX_SEED:
        return
    d = FUZZ / "corpus" / target
    d.mkdir(parents=True, exist_ok=True)
    name = name or hashlib.sha1(data).hexdigest()[:16]
    (d / name).write_bytes(data)


def files(base, pattern, limit=60, max_size=MAX_SEED):
    """Up to `limit` non-empty files under `base` matching `pattern`, one per name and size."""
    seen, out = set(), []
    if not base.is_dir():
        return out
    for p in sorted(base.rglob(pattern)):
        try:
            size = p.stat().st_size
        except OSError:
            continue
        if p.is_file() and not p.is_symlink() and 0 < size <= max_size and (p.name, size) not in seen:
            seen.add((p.name, size))
            out.append(p)
            if len(out) >= limit:
                break
    return out


def read(p):
    try:
        return pathlib.Path(p).read_bytes()
    except OSError:
        return b""


def first(paths):
    return read(paths[0]) if paths else b""


def joined(*parts):
    return SEPARATOR.join(parts)


def old_format_ld_cache(entries):
    """An `ld.so-1.7.0` cache (what `ldconfig -c old` wrote): header, entries, strings."""
    strings, offsets = b"", []  # offsets count from the end of the entry table
    for name, path in entries:
        k = len(strings)
        strings += name + b"\0"
        v = len(strings)
        strings += path + b"\0"
        offsets.append((k, v))
    out = b"ld.so-1.7.0\0" + struct.pack("<I", len(entries))
    for k, v in offsets:
        out += struct.pack("<iII", 0x0303, k, v)
    return out + strings


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cache", default=str(ROOT / "tests" / ".cache"))
    cache = pathlib.Path(ap.parse_args().cache)
    knowledge, release, venvs = cache / "knowledge", cache / "release-files", cache / "venvs"

    # ELF: the real NVIDIA libraries (libcudart, libnvJitLink, ...) and the venv's .so files.
    elves = files(knowledge, "*.so*", 40) + files(release, "*.so*", 20) + files(venvs, "*.so*", 20, 512 << 10)
    for p in elves:
        data = read(p)
        if data.startswith(b"\x7fELF"):
            put("elf", data)
            put("elf_symbols", data)

    # PE: DLLs/EXEs/PYDs in the caches, and Wine's DLLs (manifests, delay imports, version resources).
    pes = [p for pat in ("*.dll", "*.exe", "*.pyd") for base in (knowledge, release, venvs)
           for p in files(base, pat, 20)]
    for d in WINE_DIRS:
        pes += [pathlib.Path(d) / n for n in WINE_DLLS if (pathlib.Path(d) / n).is_file()]
    manifests = []
    for p in pes:
        data = read(p)
        if data.startswith(b"MZ") and len(data) <= MAX_SEED:
            put("pe", data)
            at = data.find(b"<assembly")
            end = data.find(b"</assembly>", at)
            if at >= 0 and end > at:
                manifests.append(data[at:end + len(b"</assembly>")])
    manifests.append(
        b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        b'<assembly xmlns="urn:schemas-microsoft-com:asm.v1" manifestVersion="1.0">'
        b'<file name="cudart64_12.dll"/><dependency><dependentAssembly>'
        b'<assemblyIdentity type="win32" name="Microsoft.VC90.CRT" version="9.0.21022.8" '
        b'processorArchitecture="amd64" publicKeyToken="1fc8b3b9a1e18e3b"/>'
        b'</dependentAssembly></dependency></assembly>')
    for m in manifests:
        put("pe_manifest", m)
        put("pe_manifest", b"\xff\xfe" + m.decode("utf-8", "replace").encode("utf-16-le"))

    # Embedded names and version strings: the printable runs of a few real libraries, file names.
    for p in elves[:6] + pes[:4]:
        data = read(p)
        put("version_strings", data[: 256 << 10])
    names = sorted({p.name for p in elves + pes})
    put("version_strings", "\n".join(names).encode() +
        b"\nCuda compilation tools, release 12.4, V12.4.131\n6,14,11,12040\ncudnn64_9.dll\n")

    # Wheels and frameworks: METADATA | build_info.py | version.py, and a whole site-packages.
    metadata = files(cache, "METADATA", 40)
    build_info = files(cache, "build_info.py", 5)
    version_py = [p for p in files(cache, "version.py", 40) if p.parent.name in ("torch", "jaxlib")]
    version_info = files(cache, "version_info.py", 5)
    wheel_json = files(cache, "_wheel.json", 5)
    records = files(cache, "RECORD", 5, 256 << 10)
    for i, m in enumerate(metadata):
        put("wheel_text", joined(read(m), first(build_info[i % max(len(build_info), 1):]),
                                 first(version_py[i % max(len(version_py), 1):])))

    def meta(word):
        return first([m for m in metadata if word in m.parent.name.lower()])

    torch_version = first([p for p in version_py if p.parent.name == "torch"])
    jax_version = first([p for p in version_py if p.parent.name == "jaxlib"])
    put("site_packages", joined(meta("tensorflow"), first(build_info), meta("torch"), torch_version,
                                meta("nvidia_cudnn") or meta("nvidia"), first(records), first(wheel_json),
                                first(version_info), jax_version,
                                first(files(venvs, "pyvenv.cfg", 1)) or b"home = /usr/bin\nversion = 3.11.9\n"))

    # ld.so.cache: this machine's (new format), an old-format one, old + new (ldconfig -c compat).
    new = read("/etc/ld.so.cache")
    if len(new) > MAX_SEED:
        new = b""
    old = old_format_ld_cache([(b"libcuda.so.1", b"/usr/lib/x86_64-linux-gnu/libcuda.so.1"),
                               (b"libcudart.so.12", b"/usr/local/cuda/lib64/libcudart.so.12")])
    put("ldcache", new, "this-machine")
    put("ldcache", old, "old-format")
    if new:
        compat = old + b"\0" * (-len(old) % 8) + new
        put("ldcache", compat, "compat")
    for p in files(FIXTURES, "ld.so.cache", 10):
        put("ldcache", read(p))

    # ld.so.conf with includes: this machine's, the fixtures' ld.so.conf.d, WSL's.
    confd = sorted(pathlib.Path("/etc/ld.so.conf.d").glob("*.conf")) + files(FIXTURES, "*.conf", 10)
    put("ldconf", joined(read("/etc/ld.so.conf") or b"include /etc/ld.so.conf.d/*.conf\n",
                         *(read(p) for p in confd[:2]),
                         b"[automount]\nenabled = true\nldconfig = false\n"))
    put("ldconf", joined(b"# multiarch\ninclude ld.so.conf.d/*.conf\n/usr/local/lib\n",
                         b"/usr/local/cuda/lib64\ninclude /etc/ld.so.conf.d/x86*\n",
                         b"/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu=ELF\n", b"[automount]\n"))

    # Machine files (their registry and environment text).
    for p in sorted(FIXTURES.glob("machines/*/machine.toml")):
        put("machine_file", read(p), p.parent.name)

    # Saved reports: the golden JSON reports.
    for p in sorted(FIXTURES.glob("golden/*.json")):
        put("report", read(p), p.stem)

    # Pasted error text: every entry of the error corpus, and the whole file.
    corpus = FIXTURES / "error_corpus.toml"
    if corpus.is_file():
        put("why", read(corpus), "error_corpus")
        for e in tomllib.loads(corpus.read_text()).get("entry", []):
            put("why", e.get("text", "").encode())
    if corpus.is_file():
        put("why_corpus", read(corpus), "error_corpus")
        chunks = read(corpus).split(b"[[entry]]")
        for i in range(1, len(chunks), 3):
            put("why_corpus", b"[[entry]]" + b"[[entry]]".join(chunks[i:i + 3]))
    put("why", b"OSError: libcudnn.so.9: cannot open shared object file: No such file or directory\n"
               + b"x" * 70000 + b"\xff\xfe\xc3(\n")

    for d in sorted((FUZZ / "corpus").iterdir()):
        print(f"{d.name:16} {len(list(d.iterdir()))} seeds")


if __name__ == "__main__":
    main()
