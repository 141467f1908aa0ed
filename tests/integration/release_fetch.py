# Fetches chosen members of one PyPI wheel with HTTP Range requests (used by release_files.rs).
# argv[1]: JSON {dist, version, platform: windows|linux, members: [regex], list: [regex],
#                index_cache: folder}; argv[2]: the folder to fill (a site-packages tree).
import io, json, os, re, sys, time, urllib.request, zipfile

if __name__ == "__main__":
    spec = json.loads(sys.argv[1])
    dest = sys.argv[2]
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


def pick(dist, version, platform):
    stem = re.sub(r"[-_.]+", "_", dist).lower() + "-" + version + "-"
    files = [f for f in index(dist)["files"]
             if f["filename"].lower().startswith(stem) and f["filename"].endswith(".whl")]
    if platform == "windows":
        files = [f for f in files if f["filename"].endswith("win_amd64.whl")]
    else:
        files = [f for f in files if "linux" in f["filename"] and "x86_64" in f["filename"]]
    files += [f for f in index(dist)["files"]
              if f["filename"].lower().startswith(stem) and f["filename"].endswith("-none-any.whl")]
    if not files:
        sys.exit("no %s wheel of %s %s in the simple index" % (platform, dist, version))
    return sorted(files, key=lambda f: f["filename"])[-1]


class RangeFile(io.RawIOBase):
    """A read-only, seekable view of a remote file that fetches what is read, in 256 KiB blocks."""

    def __init__(self, url):
        self.url, self.pos, self.blocks = url, 0, {}
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

    def block(self, n):
        if n not in self.blocks:
            start = n << 18
            end = min(self.size, start + (1 << 18)) - 1
            _, _, body = get(self.url, {"Range": "bytes=%d-%d" % (start, end)})
            self.blocks[n] = body
        return self.blocks[n]

    def readinto(self, b):
        n = min(len(b), self.size - self.pos)
        got = 0
        while got < n:
            blk = self.block((self.pos + got) >> 18)
            off = (self.pos + got) & ((1 << 18) - 1)
            chunk = blk[off:off + n - got]
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


if __name__ == "__main__":
    main()
