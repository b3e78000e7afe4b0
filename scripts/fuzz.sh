#!/usr/bin/env bash
# Coverage-guided fuzzing of the input parsers and format detection, on stable Rust.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET]      (default 180)
#
# Tool: cargo-fuzz (libFuzzer through libfuzzer-sys) with `--sanitizer none`, which
# builds and runs on the stable toolchain: the SanitizerCoverage instrumentation that
# libFuzzer needs is set with stable `-C` flags, and only the sanitizers (`-Zsanitizer`)
# and `--build-std` need nightly. The crate forbids unsafe code, so AddressSanitizer
# would find nothing that a Rust panic does not already report.
#
# Targets (fuzz/fuzz_targets/): fuzz_folded, fuzz_perf, fuzz_stap, fuzz_bpftrace, fuzz_pprof,
# fuzz_speedscope, fuzz_cpuprofile (the format forced)
# fuzz_inferno (its first byte picks one of inferno's collapsers)
# fuzz_perf_data
# (the format forced)
# fuzz_detect (detection alone, then auto-detection), and fuzz_export (the export path on
# whatever loads: one thread and several, parts and merge, chunk bound). Each loads the bytes on one
# thread and on two threads with a small chunk size, runs the exporters and the report,
# and panics when a line is unaccounted for or the two loads disagree
# (fuzz/src/lib.rs). fuzz_paste reads the bytes as keys and bracketed pastes into the
# viewer's prompts (app::update) and panics when a prompt holds more than 4 KiB. They
# run one after another, one job each.
#
# Seeds: fuzz/seeds/ plus small pieces of testdata/ cut here into a temporary folder.
# New inputs go to fuzz/corpus/TARGET, crashes to fuzz/artifacts/TARGET (both ignored
# by git). Exits non-zero when a target crashed (panic, invariant, timeout, OOM).
#
# Environment: FUZZ_TARGETS (space-separated subset), FUZZ_MAX_LEN (default 8192),
# FUZZ_TARGET_DIR (default fuzz/target), CARGO_BUILD_JOBS (e.g. 1 on a shared machine).
# Needs: cargo, a C++ compiler (libfuzzer-sys builds libFuzzer), gzip, awk.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-180}
max_len=${FUZZ_MAX_LEN:-8192}
targets=${FUZZ_TARGETS:-fuzz_folded fuzz_perf fuzz_stap fuzz_bpftrace fuzz_pprof fuzz_speedscope fuzz_cpuprofile fuzz_inferno fuzz_perf_data fuzz_detect fuzz_export fuzz_paste}

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "installing cargo-fuzz ..." >&2
  cargo install cargo-fuzz --locked
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/flametui-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT

# --- Seeds: the committed tiny ones and pieces of testdata/ (at most ~6 KB each). ---
seeds="$work/seeds"
mkdir -p "$seeds"
cp fuzz/seeds/* "$seeds/"
cp testdata/perf-dd-nosync.txt.gz "$seeds/"          # a whole gzip input (3 KB)
for f in testdata/perf-*.txt.gz; do
  # perf script: records are separated by blank lines; 1, 2 or 4 records per piece.
  base=$(basename "$f" .txt.gz)
  for per in 1 2 4; do
    gzip -dc "$f" | awk -v RS= -v per="$per" -v out="$seeds/$base-$per" '
      { piece = piece $0 "\n\n"; n++ }
      n == per { if (length(piece) <= 6000 && k < 6) { print piece > (out "-" k ".txt"); k++ }
                 piece = ""; n = 0 }'
  done
done
gzip -dc testdata/pprof-cpu.pb.gz > "$seeds/pprof-cpu.pb"   # protobuf, 5 KB each
gzip -dc testdata/pprof-heap.pb.gz > "$seeds/pprof-heap.pb"
# perf.data: the small frame-pointer and pipe-mode recordings (47 and 30 KB), a pipe
# written round by round (16 KB), and two `perf record -z` ones (file and pipe mode, 8
# and 6 KB).
gzip -dc testdata/perf-data-fp.data.gz > "$seeds/perf-data-fp.data"
gzip -dc testdata/perf-data-pipe.data.gz > "$seeds/perf-data-pipe.data"
gzip -dc testdata/perf-data-live.data.gz > "$seeds/perf-data-live.data"
gzip -dc testdata/perf-data-z.data.gz > "$seeds/perf-data-z.data"
gzip -dc testdata/perf-data-zpipe.data.gz > "$seeds/perf-data-zpipe.data"
cp testdata/folded-small.txt "$seeds/"
# JSON: the py-spy speedscope file whole (12 KB) and the committed small ones.
cp testdata/pyspy-speedscope.json "$seeds/"
# inferno's formats: each hand-made file behind the byte that picks its collapser.
i=0
for f in dtrace-ustack.txt sample-macos.txt vtune-topdown.csv vsprof-calltree.csv ghc-kvbench.prof xctrace-time-profile.xml; do
  { printf "\\$(printf '%03o' "$i")"; cat "testdata/$f"; } > "$seeds/inferno-$f"
  i=$((i + 1))
done
head -n 8 testdata/folded-small.txt > "$seeds/folded-head.txt"
# A differential folded file made from the same stacks.
awk '{ print $0, NR % 3 ? $NF : 0 }' "$seeds/folded-head.txt" > "$seeds/folded-head-diff.txt"
# SystemTap: a block ends at its tab-indented count line; pieces of 1 and 3 blocks.
for per in 1 3; do
  awk -v per="$per" -v out="$seeds/stap-$per" '
    { piece = piece $0 "\n" }
    /^\t[0-9]+$/ { n++ }
    n == per { if (length(piece) <= 6000 && k < 6) { printf "%s", piece > (out "-" k ".txt"); k++ }
               piece = ""; n = 0 }' testdata/stap-mysqld-on-off.txt
done
# bpftrace: an entry ends at its `]: N` line; pieces of 1 and 3 entries.
for f in testdata/bpftrace-*.txt.gz; do
  base=$(basename "$f" .txt.gz)
  for per in 1 3; do
    gzip -dc "$f" | awk -v per="$per" -v out="$seeds/$base-$per" '
      { piece = piece $0 "\n" }
      /\]: [0-9]+$/ { n++ }
      n == per { if (length(piece) <= 6000 && k < 6) { printf "%s", piece > (out "-" k ".txt"); k++ }
                 piece = ""; n = 0 }'
  done
done
echo "seeds: $(ls "$seeds" | wc -l) files in $seeds" >&2

# --- Build once, then fuzz each target for $secs seconds (the binaries are run directly,
# so a source change during the run does not rebuild them). ---
target_dir=$(realpath -m "${FUZZ_TARGET_DIR:-fuzz/target}")
cargo fuzz build --sanitizer none --target-dir "$target_dir"
bin_dir="$target_dir/$(rustc -vV | sed -n 's/^host: //p')/release"

status=0
summary="$work/summary"
printf '%-12s %10s %8s %6s %7s %6s  %s\n' target execs exec/s cov ft corpus result > "$summary"
for t in $targets; do
  mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
  log="fuzz/artifacts/$t/last-run.log"
  echo "=== $t: ${secs}s ===" >&2
  rc=0
  "$bin_dir/$t" -artifact_prefix="fuzz/artifacts/$t/" \
    -max_total_time="$secs" -max_len="$max_len" -timeout=20 -rss_limit_mb=2048 \
    -dict=fuzz/flametui.dict -print_final_stats=1 "fuzz/corpus/$t" "$seeds" >"$log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  last=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  corp=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$last")
  if [ "$rc" -eq 0 ]; then
    result=ok
  else
    status=1
    result="CRASH (exit $rc)"
    echo "--- $t crashed: ---" >&2
    grep -E "panicked at|Test unit written|ERROR: libFuzzer|SUMMARY|deadly signal|timeout" "$log" >&2 || true
    echo "full log: $log" >&2
    echo "minimise with: cargo fuzz tmin --sanitizer none $t fuzz/artifacts/$t/<file>" >&2
  fi
  printf '%-12s %10s %8s %6s %7s %6s  %s\n' "$t" "${execs:-?}" "${speed:-?}" "${cov:-?}" \
    "${ft:-?}" "${corp:-?}" "$result" >> "$summary"
done
echo >&2
cat "$summary"
exit "$status"
