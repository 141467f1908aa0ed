#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 60), JOBS at a time (default 2), under
# `nice -n 19`, each on its corpus (tests/fuzz/corpus/<target>, filled by seed.py) with a
# 10-second per-input timeout. Logs go to tests/fuzz/logs/<target>.log, crashes, hangs and leaks
# to tests/fuzz/artifacts/<target>/. Prints each target's final `#N` line and `Done` line; exits 1
# when any target found something.
#   tests/fuzz/run-all.sh 600 2          # the 10-minute runs
#   TARGETS="elf pe" tests/fuzz/run-all.sh 30
# Needs cargo-fuzz (`cargo install cargo-fuzz --locked`); RUSTC_BOOTSTRAP=1 lets it pass its
# flags to the stable toolchain. No sanitizer (the engine is safe Rust: what we look for is
# panics, overflows — debug assertions are on — hangs and runaway memory).
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${1:-60}"
jobs="${2:-2}"
fuzz=tests/fuzz
all=$(sed -n 's/^name = "\(.*\)"$/\1/p' "$fuzz/Cargo.toml" | grep -v '^cuda-triage-fuzz$')
targets="${TARGETS:-$all}"

[ -d "$fuzz/corpus" ] || python3 "$fuzz/seed.py"
RUSTC_BOOTSTRAP=1 cargo fuzz build --fuzz-dir "$fuzz" -s none -a
bin="$fuzz/target/$(rustc -vV | sed -n 's/^host: //p')/release"
mkdir -p "$fuzz/logs"

run_one() {
  local t=$1
  mkdir -p "$fuzz/corpus/$t" "$fuzz/artifacts/$t"
  nice -n 19 "$bin/$t" "$fuzz/corpus/$t" -max_total_time="$seconds" -timeout=10 \
    -max_len=1048576 -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix="$fuzz/artifacts/$t/" >"$fuzz/logs/$t.log" 2>&1
}

failed=0
pids=()
names=()
for t in $targets; do
  run_one "$t" &
  pids+=($!)
  names+=("$t")
  if [ "${#pids[@]}" -ge "$jobs" ]; then
    wait "${pids[0]}" || { echo "${names[0]}: exit $?"; failed=1; }
    pids=("${pids[@]:1}")
    names=("${names[@]:1}")
  fi
done
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || { echo "${names[$i]}: exit $?"; failed=1; }
done

for t in $targets; do
  log="$fuzz/logs/$t.log"
  last=$(grep -aE '^#[0-9]+' "$log" | tail -1 || true)
  done_line=$(grep -a '^Done ' "$log" | tail -1 || true)
  found=$(ls "$fuzz/artifacts/$t" 2>/dev/null | wc -l)
  printf '%-16s %s | %s | artifacts: %s\n' "$t" "${last:-no progress line}" "${done_line:-no Done line}" "$found"
  [ "$found" -eq 0 ] || failed=1
done
exit "$failed"
