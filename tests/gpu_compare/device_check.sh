#!/usr/bin/env bash
# The GPU test's device check, in one run on a machine with an NVIDIA GPU, PyTorch with CUDA and
# its nvidia-* wheels (not run by CI: it needs the GPU). Every step runs even when one before it
# failed; each result is kept as JSON or text under OUTDIR (default ./gpu-check), with log.txt.
#
#   1. the machine: nvidia-smi, torch's versions, the wheels' and the system's CUDA libraries;
#   2. scan --json and scan --probe of the real install (a healthy install reports no error and no warning);
#   3. gpu-test --json: as the OS finds the libraries, with --framework torch, --quick (timed from
#      start to verdict), and --dir at each library set (pip's nvidia folder, the toolkit's lib64);
#   4. injected faults, each of which must become a finding: a cuDNN whose sub-libraries are of
#      another release (the system's libcudnn.so.9 beside the wheel's others), a cuBLAS that
#      aborts when used (aborting_cublas.c, built here), the test's child process killed mid-run,
#      a time limit too short, and a file that is not the library it is named as;
#   5. compare.py side by side with PyTorch, full sizes and --quick.
#
# Usage: tests/gpu_compare/device_check.sh CUDA_TRIAGE_BINARY ABORTING_CUBLAS_SO [OUTDIR]
set -u
BIN=$(realpath "$1")
ABORTING=$(realpath "$2")
OUTDIR=${3:-gpu-check}
HERE=$(dirname "$(realpath "$0")")
mkdir -p "$OUTDIR"
exec > >(tee "$OUTDIR/log.txt") 2>&1
PY=${PYTHON:-python3}
step() { echo; echo "=== $* ($(date +%T))"; }
# run NAME ARGS...: gpu-test's JSON to NAME.json, stderr to the log, exit code and wall time logged.
run() {
    local name=$1; shift
    local start end
    start=$(date +%s.%N)
    timeout 300 "$BIN" "$@" >"$OUTDIR/$name.json" 2>"$OUTDIR/$name.stderr"
    local rc=$?
    end=$(date +%s.%N)
    echo "$name: exit $rc, wall $(awk "BEGIN{printf \"%.2f\", $end - $start}") s: $*"
    "$PY" - "$OUTDIR/$name.json" <<'EOF'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("  (no JSON:", e, ")"); sys.exit()
g = d.get("gpu") or {}
print("  verdict:", g.get("verdict"), "-", g.get("summary"), "- child:", g.get("child"))
for lib in g.get("libraries", []):
    print("  ", lib.get("role"), lib.get("version"), lib.get("file_version"), lib.get("mapped") or lib.get("requested"))
for f in d.get("findings", []):
    print("   finding", f.get("severity"), f.get("code"), "-", f.get("summary"))
EOF
}

step "machine"
nvidia-smi
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,memory.total,clocks.max.sm,power.limit --format=csv
uname -a
"$PY" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), torch.cuda.get_device_name(0))'
SITE=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "site-packages: $SITE"
ls "$SITE"/nvidia "$SITE"/nvidia/*/lib 2>&1 | head -80
SYS_CUDNN=$(ls /usr/lib/x86_64-linux-gnu/libcudnn.so.9.* /usr/local/cuda/lib64/libcudnn.so.9.* /usr/local/cuda/targets/x86_64-linux/lib/libcudnn.so.9.* 2>/dev/null | head -1)
echo "system cuDNN: ${SYS_CUDNN:-none}"
ls -l /usr/local/cuda/lib64/ 2>&1 | grep -E 'cudart|cublas|cudnn' | head -20

step "scan of the real install"
timeout 300 "$BIN" scan --json >"$OUTDIR/scan.json" 2>"$OUTDIR/scan.stderr"; echo "scan --json: exit $?"
timeout 300 "$BIN" scan --probe --json >"$OUTDIR/scan-probe.json" 2>"$OUTDIR/scan-probe.stderr"; echo "scan --probe --json: exit $?"
timeout 300 "$BIN" scan --probe >"$OUTDIR/scan.txt" 2>&1; echo "scan --probe: exit $?"; tail -40 "$OUTDIR/scan.txt"
timeout 300 "$BIN" gpu-test --sets >"$OUTDIR/sets.txt" 2>&1; cat "$OUTDIR/sets.txt"

step "gpu-test"
run default gpu-test --json
run torch gpu-test --json --framework torch
run quick gpu-test --json --quick
run torch-quick gpu-test --json --quick --framework torch
run dir-pip gpu-test --json --quick --dir "$SITE/nvidia"
[ -d "$SITE/nvidia/cu13/lib" ] && run dir-cu13-lib gpu-test --json --quick --dir "$SITE/nvidia/cu13/lib"
[ -d "$SITE/torch/lib" ] && run dir-torch-lib gpu-test --json --quick --dir "$SITE/torch/lib"
[ -d /usr/local/cuda/lib64 ] && run dir-toolkit gpu-test --json --quick --dir /usr/local/cuda/lib64

step "injected faults"
if [ -n "${SYS_CUDNN:-}" ] && [ -d "$SITE/nvidia/cudnn/lib" ]; then
    mixed=$(mktemp -d)
    cp -a "$SITE"/nvidia/cudnn/lib/. "$mixed"/
    cp "$SYS_CUDNN" "$mixed/libcudnn.so.9"
    run fault-mixed-cudnn gpu-test --json --quick --framework torch --cudnn "$mixed/libcudnn.so.9"
    mixed_graph=$(mktemp -d)
    cp -a "$SITE"/nvidia/cudnn/lib/. "$mixed_graph"/
    sys_graph=$(ls "$(dirname "$SYS_CUDNN")"/libcudnn_graph.so.9.* 2>/dev/null | head -1)
    [ -n "$sys_graph" ] && cp "$sys_graph" "$mixed_graph/libcudnn_graph.so.9" &&
        run fault-mixed-cudnn-graph gpu-test --json --quick --framework torch --cudnn "$mixed_graph/libcudnn.so.9"
fi
run fault-aborting-cublas gpu-test --json --quick --framework torch --cublas "$ABORTING"
run fault-wrong-file gpu-test --json --quick --framework torch --cublas "$(ls "$SITE"/nvidia/cu13/lib/libcublasLt.so.* "$SITE"/nvidia/cublas/lib/libcublasLt.so.* 2>/dev/null | head -1)"
run fault-timeout gpu-test --json --framework torch --timeout-secs 2
(
    sleep 3
    pkill -9 -f 'gpu-test --child' && echo "killed the child"
) &
killer=$!
run fault-killed-child gpu-test --json --framework torch
wait "$killer" # by its PID: a bare `wait` would also wait for the log's tee, which never ends

step "side by side with PyTorch"
"$PY" "$HERE/compare.py" --exe "$BIN" --framework torch 2>&1 | tee "$OUTDIR/compare.txt"
"$PY" "$HERE/compare.py" --exe "$BIN" --framework torch --quick 2>&1 | tee "$OUTDIR/compare-quick.txt"
step "done"
