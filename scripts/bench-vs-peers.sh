#!/usr/bin/env bash
# Whole-process comparison of `flametui --export folded` with inferno-collapse-perf on a
# large real `perf script` (wall time, CPU time, peak RSS, output equality).
#
#   scripts/bench-vs-peers.sh [SIZE_MB]      (default 190)
#   DISTINCT=250000 scripts/bench-vs-peers.sh
#
# The input is made here, never committed: a system-wide `perf record -a -g` of a cargo
# build, `perf script`, and copies concatenated up to SIZE_MB (few distinct stacks).
# Without perf, the real capture from ../shared/corpus is used instead. With DISTINCT=N,
# the input is instead N samples of nearly distinct stacks from scripts/gen-distinct-perf.py
# (long, DWARF and system-wide recordings look like that). inferno (and flamelens, for the
# time-to-first-frame comparison) are installed into a temporary root when not on PATH.
# Needs: perf (optional), /usr/bin/time, cargo, tmux (for time to first frame).
set -euo pipefail
cd "$(dirname "$0")/.."
size_mb=${1:-190}
runs=${RUNS:-3}
# The input lives in memory when it can (scripts/workdir.sh).
. scripts/workdir.sh
work=$(work_dir bench)
trap 'rm -rf "$work"' EXIT

cargo build --release --quiet
ft=target/release/flametui

if command -v inferno-collapse-perf >/dev/null 2>&1; then
  inferno=$(command -v inferno-collapse-perf)
else
  echo "installing inferno into $work/inferno ..." >&2
  cargo install --quiet inferno --root "$work/inferno" >&2
  inferno="$work/inferno/bin/inferno-collapse-perf"
fi

one="$work/one.perf.txt"
big="$work/big.perf.txt"
if [ -n "${DISTINCT:-}" ]; then
  echo "generating $DISTINCT samples of distinct stacks ..." >&2
  python3 scripts/gen-distinct-perf.py "$DISTINCT" > "$big"
  head -c 2000000 "$big" > "$one"
elif command -v perf >/dev/null 2>&1 && perf record -o "$work/probe.data" -- true >/dev/null 2>&1; then
  echo "recording a cargo build with perf record -a -g ..." >&2
  mkdir -p "$work/proj" && cp -r Cargo.toml Cargo.lock src benches "$work/proj/"
  (cd "$work/proj" && timeout 40 perf record -a -g -F 499 -o "$work/rec.data" -- \
      cargo build --release --quiet >/dev/null 2>&1 || true)
  perf script -i "$work/rec.data" > "$one" 2>/dev/null
else
  corpus=../shared/corpus/perf/local-cargo-build-fp.txt.gz
  [ -f "$corpus" ] || { echo "no perf and no corpus: cannot make an input" >&2; exit 1; }
  echo "perf unavailable: using $corpus" >&2
  zcat "$corpus" > "$one"
fi
if [ -z "${DISTINCT:-}" ]; then
  : > "$big"
  while [ "$(stat -c %s "$big")" -lt $((size_mb * 1024 * 1024)) ]; do cat "$one" >> "$big"; done
fi
bytes=$(stat -c %s "$big")

measure() { # name, command...
  local name=$1; shift
  for i in $(seq "$runs"); do
    /usr/bin/time -f "%e %U %S %M" -o "$work/t.$name.$i" "$@" > "$work/out.$name" 2>/dev/null
  done
  # median wall time of the runs
  sort -n "$work"/t."$name".* | awk -v n="$runs" 'NR == int((n + 1) / 2)'
}

ft_t=$(measure flametui "$ft" --export folded "$big")
inf_t=$(measure inferno "$inferno" "$big")
# The deliberate deviations (docs/semantics.md) undone, as the conformance test does: inferno drops
# samples of exited tasks (`:-1`), frames whose symbol starts with `(` (C++ anonymous
# namespaces) and samples without a stack line.
as_inferno() {
  grep -v '^:-1;' "$1" | awk '{
      i = match($0, / [0-9]+$/); stack = substr($0, 1, i - 1); w = substr($0, i + 1)
      n = split(stack, f, ";"); key = f[1]; kept = 0
      for (j = 2; j <= n; j++) if (substr(f[j], 1, 1) != "(") { key = key ";" f[j]; kept++ }
      if (kept > 0) sum[key] += w
    } END { for (k in sum) printf "%s %.0f\n", k, sum[k] }' | LC_ALL=C sort
}
if cmp -s "$work/out.flametui" "$work/out.inferno"; then
  same=identical
elif cmp -s <(as_inferno "$work/out.flametui") <(LC_ALL=C sort "$work/out.inferno"); then
  same="identical once the README's deviations are undone (:-1 stacks, (anonymous namespace) frames, samples without a stack)"
else
  same=DIFFERENT
  diff "$work/out.inferno" "$work/out.flametui" | head -5 >&2
fi

printf 'input: %s MB of perf script, %s runs each (median wall), output %s\n' \
  "$((bytes / 1024 / 1024))" "$runs" "$same"
printf '%-28s %8s %8s %10s\n' tool "wall s" "cpu s" "peak RSS"
print_row() { # name, "wall user sys rss"
  set -- "$1" $2
  awk -v n="$1" -v w="$2" -v u="$3" -v s="$4" -v m="$5" \
    'BEGIN { printf "%-28s %8.2f %8.2f %7d MB\n", n, w, u + s, m / 1024 }'
}
print_row "inferno-collapse-perf" "$inf_t"
print_row "flametui --export folded" "$ft_t"
awk -v a="$ft_t" -v b="$inf_t" 'BEGIN { split(a, x, " "); split(b, y, " ");
  printf "ratio flametui/inferno: wall %.2f, cpu %.2f\n", x[1] / y[1], (x[2] + x[3]) / (y[2] + y[3]) }'

# --- Time to first frame in a terminal (tmux 200x50, polling the screen every 10 ms). ---
if ! command -v tmux >/dev/null 2>&1; then
  echo "tmux not installed: time to first frame not measured" >&2
  exit 0
fi
if command -v flamelens >/dev/null 2>&1; then
  flamelens=$(command -v flamelens)
else
  echo "installing flamelens into $work/flamelens ..." >&2
  cargo install --quiet flamelens --root "$work/flamelens" >&2
  flamelens="$work/flamelens/bin/flamelens"
fi
ttff() { # marker, command...: seconds until the marker is on screen
  local marker=$1; shift
  local sock="flametui-bench-$$"
  local start end
  start=$(date +%s.%N)
  tmux -L "$sock" -f /dev/null new-session -d -x 200 -y 50 "$*"
  until tmux -L "$sock" capture-pane -p 2>/dev/null | grep -qF -- "$marker"; do
    sleep 0.01
    if awk -v s="$start" -v n="$(date +%s.%N)" 'BEGIN { exit !(n - s > 60) }'; then break; fi
  done
  end=$(date +%s.%N)
  tmux -L "$sock" kill-server 2>/dev/null || true
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f", e - s }'
}
folded="$work/big.folded"
"$ft" --export folded "$one" > "$work/one.folded"
: > "$folded"
while [ "$(stat -c %s "$folded")" -lt $((40 * 1024 * 1024)) ]; do cat "$work/one.folded" >> "$folded"; done
printf '\ntime to first frame (median of %s)\n' "$runs"
median3() { sort -n | awk -v n="$runs" 'NR == int((n + 1) / 2)'; }
t_big=$(for i in $(seq "$runs"); do ttff "icicle" "$ft" "$big"; echo; done | median3)
t_ft=$(for i in $(seq "$runs"); do ttff "icicle" "$ft" "$folded"; echo; done | median3)
t_fl=$(for i in $(seq "$runs"); do ttff "% of all]" "$flamelens" "$folded"; echo; done | median3)
printf '%-44s %8s s\n' "flametui, $((bytes / 1024 / 1024)) MB perf script" "$t_big"
printf '%-44s %8s s\n' "flametui, $(($(stat -c %s "$folded") / 1024 / 1024)) MB folded" "$t_ft"
printf '%-44s %8s s\n' "flamelens, same folded file" "$t_fl"
awk -v a="$t_ft" -v b="$t_fl" 'BEGIN { if (b > 0) printf "ratio flametui/flamelens (folded): %.2f\n", a / b }'
