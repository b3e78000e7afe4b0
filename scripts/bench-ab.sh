#!/usr/bin/env bash
# Before and after: two builds of flametui timed against each other on the same inputs,
# their runs interleaved (A then B, then B then A, ...) so that a machine whose speed drifts
# from one minute to the next (another process, the memory's state) slows both alike. This
# is how the docs' "medians of N interleaved runs of the commit before and after" are made:
# on the 2-core machines the matrix's single runs move a ratio by ±0.05–0.10, more than most
# single changes are worth.
#
#   scripts/bench-ab.sh [-n RUNS] [-t "THREADS..."] BEFORE AFTER FILE...
#
#   BEFORE, AFTER  two flametui binaries (a commit's: `git worktree add DIR COMMIT`, then
#                  `cargo build --release` there)
#   -n RUNS        runs of each binary per file and thread count (default 8)
#   -t THREADS     the --threads values to run (default "1 2")
#
# Each run is `flametui --threads T --export folded -o OUT FILE`. The outputs of both
# binaries are compared once per file and thread count (a change of speed must not change
# a byte). Printed: per file and thread count, the medians of wall time, CPU time (user +
# sys) and peak RSS of each binary, and AFTER / BEFORE. Keep the inputs in a tmpfs (the
# page cache of a disk may be evicted between runs).
set -euo pipefail
export LC_ALL=C
runs=8
threads="1 2"
while getopts "n:t:" opt; do
  case $opt in
    n) runs=$OPTARG ;;
    t) threads=$OPTARG ;;
    *) sed -n '9,20p' "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [ $# -lt 3 ]; then
  sed -n '9,20p' "$0" >&2
  exit 2
fi
before=$1 after=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One run: "wall cpu rss_kb" appended to $work/t.$1.
run() {
  local name=$1 bin=$2 t=$3 file=$4
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" \
    "$bin" --threads "$t" --export folded -o "$work/out.$name" "$file" 2>"$work/err.$name" \
    || { echo "failed: $bin --threads $t $file" >&2; cat "$work/err.$name" >&2; exit 1; }
  awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$work/time" >> "$work/t.$name"
}

echo "| input | threads | wall before | wall after | after/before | CPU before | CPU after | after/before | RSS MB before | RSS MB after |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for file in "$@"; do
  for t in $threads; do
    rm -f "$work"/t.*
    for i in $(seq "$runs"); do
      if [ $((i % 2)) -eq 1 ]; then
        run a "$before" "$t" "$file"
        run b "$after" "$t" "$file"
      else
        run b "$after" "$t" "$file"
        run a "$before" "$t" "$file"
      fi
    done
    if ! cmp -s "$work/out.a" "$work/out.b"; then
      echo "outputs differ: $file, --threads $t" >&2
      exit 1
    fi
    python3 - "$work/t.a" "$work/t.b" "$(basename "$file")" "$t" <<'EOF'
import statistics, sys
def medians(path):
    rows = [line.split() for line in open(path)]
    return [statistics.median(float(r[i]) for r in rows) for i in range(3)]
a, b = medians(sys.argv[1]), medians(sys.argv[2])
ratio = lambda x, y: f"{y / x:.2f}" if x > 0 else "-"
print(f"| {sys.argv[3]} | {sys.argv[4]} | {a[0]:.3f} | {b[0]:.3f} | {ratio(a[0], b[0])} "
      f"| {a[1]:.3f} | {b[1]:.3f} | {ratio(a[1], b[1])} | {a[2] / 1024:.0f} | {b[2] / 1024:.0f} |")
EOF
  done
done
