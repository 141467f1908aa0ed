# Fetches members of one PyPI wheel with HTTP Range requests, so no whole wheel is stored (a
# wheel is a zip: its central directory, then only the members wanted). Three uses:
# - release_files.rs: argv[1] JSON {dist, version, platform, members: [regex], list: [regex],
#   index_cache}; argv[2]: the folder to fill, as installed under site-packages.
# - wheels.rs (mode "member"): the one member whose path ends with `suffix`, written to `out`.
# - wine_python.rs (mode "unpack"): every member but import libraries and headers, written
#   under `dest` by its path in the wheel (what the Windows loader and Python read).
# platform: windows | linux | linux_aarch64; python ("3.11", optional): the CPython minor whose
# wheel is taken (its cpXY tag first, then abi3, then pure-Python wheels).
import io, json, os, re, shutil, sys, time, urllib.request, zipfile

if __name__ == "__main__":
    spec = json.loads(sys.argv[1])
    dest = sys.argv[2] if len(sys.argv) > 2 else None  # the "member" and "unpack" modes name theirs
else:  # imported by knowledge_fetch.py, which sets spec["index_cache"]
    spec = {}


def get(url, headers=None, tries=3):
    for i in range(tries):
        try:
            req = urllib.request.Request(url, headers=headers or {})
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, r.headers, r.read()
        except Exception as e:  # network hiccup: retry, then report
            if i == tries - 1:
                sys.exit("GET %s failed: %s" % (url, e))
            time.sleep(1 + i)


def index(dist):
    os.makedirs(spec["index_cache"], exist_ok=True)
    path = os.path.join(spec["index_cache"], dist + ".json")
    if not os.path.exists(path):
        _, _, body = get("https://pypi.org/simple/%s/" % dist,
                         {"Accept": "application/vnd.pypi.simple.v1+json"})
        tmp = "%s.tmp-%d" % (path, os.getpid())
        with open(tmp, "wb") as f:
            f.write(body)
        os.replace(tmp, path)
    with open(path) as f:
        return json.load(f)


def python_rank(filename, python):
    """How well a wheel's tags fit CPython `python`: 3 its own cpXY, 2 abi3, 1 pure Python, 0 not."""
    pys, abis = [t.split(".") for t in filename[:-len(".whl")].split("-")[-3:-1]]
    cp = "cp" + python.replace(".", "")
    if cp in pys and cp in abis:
        return 3
    if "abi3" in abis and any(p.startswith("cp3") and int(p[2:]) <= int(cp[2:]) for p in pys):
        return 2
    if "none" in abis and any(p in ("py3", "py2.py3") or p == "py" + cp[2:] for p in pys):
        return 1
    return 0


def pick(dist, version, platform, python=None):
    stem = re.sub(r"[-_.]+", "_", dist).lower() + "-" + version + "-"
    files = [f for f in index(dist)["files"]
             if f["filename"].lower().startswith(stem) and f["filename"].endswith(".whl")]
    if platform == "windows":
        files = [f for f in files if f["filename"].endswith("win_amd64.whl")]
    elif platform == "linux_aarch64":
        files = [f for f in files if "linux" in f["filename"] and "aarch64" in f["filename"]]
    else:
        files = [f for f in files if "linux" in f["filename"] and "x86_64" in f["filename"]]
    files += [f for f in index(dist)["files"]
              if f["filename"].lower().startswith(stem) and f["filename"].endswith("-none-any.whl")]
    if python:
        files = [f for f in files if python_rank(f["filename"], python) > 0]
    if not files:
        sys.exit("no %s wheel of %s %s%s in the simple index"
                 % (platform, dist, version, " for CPython " + python if python else ""))
    rank = (lambda f: python_rank(f["filename"], python)) if python else (lambda f: 0)
    return sorted(files, key=lambda f: (rank(f), f["filename"]))[-1]


class RangeFile(io.RawIOBase):
    """A read-only, seekable view of a remote file that fetches what is read. A read away from
    what was fetched takes 256 KiB; reading on takes windows that double up to 32 MiB, so a
    member or a whole wheel read in order costs a few requests, not one per block."""

    SMALL, LARGE = 1 << 18, 1 << 25

    def __init__(self, url):
        self.url, self.pos, self.windows = url, 0, []  # [(start, bytes)], newest last
        status, headers, body = get(url, {"Range": "bytes=0-0"})
        if status != 206:
            sys.exit("%s does not answer Range requests (status %s)" % (url, status))
        self.size = int(headers["Content-Range"].rsplit("/", 1)[1])

    def readable(self):
        return True

    def seekable(self):
        return True

    def tell(self):
        return self.pos

    def seek(self, off, whence=0):
        self.pos = [off, self.pos + off, self.size + off][whence]
        return self.pos

    def window(self, pos):
        for start, data in self.windows:
            if start <= pos < start + len(data):
                return start, data
        size = self.SMALL
        if self.windows:
            start, data = self.windows[-1]
            if start + len(data) <= pos < start + len(data) + self.SMALL:  # reading on
                size = min(self.LARGE, 2 * len(data))
        end = min(self.size, pos + size) - 1
        status, _, body = get(self.url, {"Range": "bytes=%d-%d" % (pos, end)})
        if status == 200:  # a server that ignored the range sent the whole file
            body = body[pos:end + 1]
        self.windows = (self.windows + [(pos, body)])[-4:]
        return pos, body

    def readinto(self, b):
        n = min(len(b), self.size - self.pos)
        got = 0
        while got < n:
            start, data = self.window(self.pos + got)
            off = self.pos + got - start
            chunk = data[off:off + n - got]
            if not chunk:
                break
            b[got:got + len(chunk)] = chunk
            got += len(chunk)
        self.pos += got
        return got


def installed(name):
    # <dist>-<ver>.data/purelib/x -> x (what pip installs into site-packages)
    return re.sub(r"^[^/]+\.data/(purelib|platlib)/", "", name)


def main():
    wheel = pick(spec["dist"], spec["version"], spec["platform"])
    z = zipfile.ZipFile(io.BufferedReader(RangeFile(wheel["url"]), 1 << 18))
    wanted = [re.compile(p) for p in spec["members"] + [r"\.dist-info/METADATA$"]]
    listed = [re.compile(p) for p in spec["list"]]
    count = 0
    for info in z.infolist():
        name = info.filename
        if name.endswith("/"):
            continue
        fetch = any(p.search(name) for p in wanted)
        if not fetch and not any(p.search(name) for p in listed):
            continue
        out = os.path.join(dest, *installed(name).split("/"))
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "wb") as f:
            if fetch:
                f.write(z.read(info))
        count += 1
    if count < len(spec["members"]) + 1:
        sys.exit("%s: only %d members matched %s" % (wheel["filename"], count, spec["members"]))
    with open(os.path.join(dest, ".wheel"), "w") as f:
        f.write(wheel["filename"] + "\n")
    open(os.path.join(dest, ".complete"), "w").close()


def open_remote(wheel):
    return zipfile.ZipFile(io.BufferedReader(RangeFile(wheel["url"]), 1 << 18))


def member():
    """The member whose path ends with spec["suffix"] (the shortest such path) into spec["out"]."""
    wheel = pick(spec["dist"], spec["version"], spec["platform"], spec.get("python"))
    z = open_remote(wheel)
    names = [n for n in z.namelist() if n.endswith(spec["suffix"])]
    if not names:
        sys.exit("no member ending with %r in %s" % (spec["suffix"], wheel["filename"]))
    with z.open(sorted(names, key=len)[0]) as src, open(spec["out"], "wb") as out:
        shutil.copyfileobj(src, out, 1 << 20)


# Import libraries (.lib, read by a linker) and headers: nothing a process loads or imports.
NOT_LOADED = re.compile(r"\.lib$|(^|/)include/")


def unpack():
    """Every member but NOT_LOADED into spec["dest"], by its path in the wheel. With
    spec["store"], a member of 1 MiB or more is kept once in that folder by its CRC-32 and size
    (from the zip's directory, before any byte of it is read) and hard-linked from there, so
    the same DLL in the wheels of several Python minors is downloaded and stored once."""
    wheel = pick(spec["dist"], spec["version"], spec["platform"], spec.get("python"))
    z = open_remote(wheel)
    store = spec.get("store")
    if store:
        os.makedirs(store, exist_ok=True)
    members = [i for i in z.infolist() if not i.is_dir() and not NOT_LOADED.search(i.filename)]
    for info in members:  # in the order they lie in the file: one pass of reads
        if not store or info.file_size < 1 << 20:
            z.extract(info, spec["dest"])
            continue
        kept = os.path.join(store, "%08x-%d" % (info.CRC, info.file_size))
        if not os.path.exists(kept):
            tmp = "%s.tmp-%d" % (kept, os.getpid())
            with z.open(info) as src, open(tmp, "wb") as out:  # zipfile checks the CRC
                shutil.copyfileobj(src, out, 1 << 20)
            os.replace(tmp, kept)
        out = os.path.join(spec["dest"], *info.filename.split("/"))
        os.makedirs(os.path.dirname(out), exist_ok=True)
        if os.path.exists(out):
            os.remove(out)
        os.link(kept, out)
    with open(os.path.join(spec["dest"], ".wheel-" + wheel["filename"]), "w") as f:
        f.write("%d members\n" % len(members))


if __name__ == "__main__":
    {"member": member, "unpack": unpack}.get(spec.get("mode"), main)()
