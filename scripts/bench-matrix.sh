#!/usr/bin/env bash
# `flametui --export folded` against inferno-collapse-perf on every shape of `perf script`
# that scripts/gen-shapes-perf.py writes, plus a real system-wide recording: one row per
# shape, the tools run back to back in each row, so the ratios hold on a busy machine.
#
#   scripts/bench-matrix.sh [SHAPE...]        (default: every shape, then `real`)
#   QUICK=1 scripts/bench-matrix.sh           (rows of about 20 MB instead of 200)
#   env: MB (row size, default 200; QUICK: 20), RUNS (default 3), SEED, INFERNO (its
#        collapse-perf binary), FLAMETUI (default: a release build here), REAL=0 (no
#        real recording), OUT (also write the Markdown tables there)
#
# Per row, each of these RUNS times, round-robin (medians of wall, CPU and peak RSS are
# taken apart):
#   inferno         inferno-collapse-perf FILE            (its default threads)
#   inferno -1      inferno-collapse-perf --nthreads 1 FILE (what flametui --threads 1
#                                                          is measured against)
#   flametui        flametui --export folded FILE         (default threads)
#   flametui -t1    flametui --export folded --threads 1 FILE
#   pipe            cat FILE | flametui --export folded - (CPU includes cat's; RSS is the
#                                                          larger process, flametui)
#   floor           read-split FILE: a 20-line Rust program reading 1 MiB blocks and
#                   splitting them into lines (the least a line parser does), and
#                   wc -l FILE (read and count newlines with memchr), both from the page
#                   cache as the tools read it
#   pipe floor      cat FILE | cat > /dev/null: what moving the file through a pipe costs
#                   alone, the least `cat FILE | flametui -` can take
#   fixed memory    both tools on the row's first 3,000 lines: their peak RSS before the
#                   input counts (code paged in, libraries, thread stacks)
# and the outputs are checked: flametui's equal to inferno's once the deliberate
# deviations are undone (as_inferno below), and the 1-thread and pipe outputs equal to the
# default run's. After the medians, the lowest and highest of each ratio over the runs
# (each run's tools ran one after another): on a shared machine the rows that wait on
# memory move from one hour to the next, and one median hides by how much. The real row is `perf record -a -g` of a cargo build of this repository,
# `perf script`, and copies of it concatenated up to MB (few distinct stacks); without perf
# it is left out. scripts/bench-vs-peers.sh is the older one-input comparison (it adds the
# time to first frame in a terminal).
# After the rows, with perf and a C compiler: a `perf record --call-graph dwarf` of
# testdata/perf-data-tiny.c (DWARF_LOOPS, default 5000), read by flametui directly and
# through `perf script | flametui -`.
# Needs: python3, /usr/bin/time, cargo, rustc; perf and cc (optional).
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.."
if [ -n "${QUICK:-}" ]; then mb=${MB:-20}; else mb=${MB:-200}; fi
runs=${RUNS:-3}
seed=${SEED:-20261201}
# The inputs, outputs and both tools live in memory when they can (scripts/workdir.sh).
. scripts/workdir.sh
work=$(work_dir matrix)
trap 'rm -rf "$work"' EXIT

if [ -n "${FLAMETUI:-}" ]; then
  ft=$FLAMETUI
else
  cargo build --release --locked --quiet
  ft=${CARGO_TARGET_DIR:-target}/release/flametui
fi
if [ -n "${INFERNO:-}" ]; then
  inferno=$INFERNO
elif command -v inferno-collapse-perf >/dev/null 2>&1; then
  inferno=$(command -v inferno-collapse-perf)
else
  echo "installing inferno into $work/inferno ..." >&2
  cargo install --quiet inferno --root "$work/inferno" >&2
  inferno="$work/inferno/bin/inferno-collapse-perf"
fi
# It has no --version: ask cargo, when it installed it.
inferno_version=$(cargo install --list --root "$(dirname "$inferno")/.." 2>/dev/null \
  | awk '$1 == "inferno" { sub(/:$/, "", $2); print $2 }' || true)
# Both tools run from the work directory (see above).
cp "$ft" "$work/flametui" && ft="$work/flametui"
cp "$inferno" "$work/inferno-collapse-perf" && inferno="$work/inferno-collapse-perf"

# The floor: reading the file and finding its lines, nothing else.
cat > "$work/read_split.rs" <<'EOF'
use std::io::Read;
fn main() {
    let path = std::env::args().nth(1).expect("a file");
    let mut f = std::fs::File::open(path).expect("readable");
    let mut buf = vec![0u8; 1 << 20];
    let (mut lines, mut longest, mut carry) = (0u64, 0usize, 0usize);
    loop {
        let n = f.read(&mut buf).expect("read");
        if n == 0 { break; }
        let mut pieces = buf[..n].split(|&b| b == b'\n').peekable();
        while let Some(piece) = pieces.next() {
            if pieces.peek().is_none() { carry += piece.len(); break; }
            lines += 1;
            longest = longest.max(carry + piece.len());
            carry = 0;
        }
    }
    println!("{lines} lines, longest {longest}");
}
EOF
rustc -O -o "$work/read_split" "$work/read_split.rs"

# The deliberate deviations (docs/semantics.md) undone, as the conformance test does: inferno drops
# samples of exited tasks (`:-1`), frames whose symbol starts with `(` (C++ anonymous
# namespaces) and samples without a stack line, and cuts an unknown symbol in a deleted
# memfd (`[unknown] (/memfd:sealed-91… (deleted))`) at the inner parenthesis, into a frame
# `[unknown] ` where flametui names it after its file.
as_inferno() {
  grep -v '^:-1;' "$1" | awk '{
      gsub(/\[memfd:[^];]* \(deleted\)\]/, "[unknown] ")
      i = match($0, / [0-9]+$/); stack = substr($0, 1, i - 1); w = substr($0, i + 1)
      n = split(stack, f, ";"); key = f[1]; kept = 0
      for (j = 2; j <= n; j++) if (substr(f[j], 1, 1) != "(") { key = key ";" f[j]; kept++ }
      if (kept > 0) sum[key] += w
    } END { for (k in sum) printf "%s %.0f\n", k, sum[k] }' | LC_ALL=C sort
}

# One run of a tool: "wall user sys maxrss_kb" appended to $work/t.NAME. The wall time
# is the shell's clock (microseconds; /usr/bin/time's %e has 10 ms steps).
run() { # name, command...
  local name=$1 start end; shift
  start=$EPOCHREALTIME
  /usr/bin/time -f "%U %S %M" -o "$work/t1" "$@" > "$work/out.$name" 2>"$work/err.$name" \
    || { echo "$name failed: $(head -3 "$work/err.$name")" >&2; return 1; }
  end=$EPOCHREALTIME
  awk -v s="$start" -v e="$end" '{ printf "%.4f %s\n", e - s, $0 }' "$work/t1" >> "$work/t.$name"
}
# Median of column K of $work/t.NAME.
med() { # name, column
  awk -v k="$2" '{ print $k }' "$work/t.$1" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

make_input() { # shape, file
  if [ "$1" = real ]; then
    local one="$work/real.one.txt"
    if [ ! -s "$one" ]; then
      echo "recording a cargo build with perf record -a -g ..." >&2
      mkdir -p "$work/proj" && cp -r Cargo.toml Cargo.lock src benches "$work/proj/"
      (cd "$work/proj" && env -u CARGO_TARGET_DIR timeout 40 perf record -a -g -F 499 \
          -o "$work/rec.data" -- cargo build --release --quiet >/dev/null 2>&1 || true)
      perf script -i "$work/rec.data" > "$one" 2>/dev/null
      rm -rf "$work/proj" "$work/rec.data"
    fi
    : > "$2"
    while [ "$(stat -c %s "$2")" -lt $((mb * 1024 * 1024)) ]; do cat "$one" >> "$2"; done
  else
    python3 scripts/gen-shapes-perf.py "$1" --seed "$seed" --mb "$mb" > "$2"
  fi
}

shapes=("$@")
if [ ${#shapes[@]} -eq 0 ]; then
  mapfile -t shapes < <(python3 scripts/gen-shapes-perf.py --list)
  if [ "${REAL:-1}" != 0 ] && command -v perf >/dev/null 2>&1 \
      && perf record -a -o "$work/probe.data" -- true >/dev/null 2>&1; then
    shapes+=(real)
  fi
  rm -f "$work/probe.data"
fi

tools=(inferno i1 flametui t1 pipe floor wc catcat fixf fixi)
rows_a=() rows_b=() rows_c=()
for shape in "${shapes[@]}"; do
  file="$work/in.txt"
  echo "== $shape: generating ..." >&2
  make_input "$shape" "$file"
  bytes=$(stat -c %s "$file")
  samples=$(grep -c '^$' "$file" || true)
  rm -f "$work"/t.* "$work"/out.*
  cat "$file" > /dev/null # into the page cache for every tool alike
  for _ in $(seq "$runs"); do
    run inferno "$inferno" "$file"
    run i1 "$inferno" --nthreads 1 "$file"
    run flametui "$ft" --export folded "$file"
    run t1 "$ft" --export folded --threads 1 "$file"
    run pipe bash -c 'cat "$1" | "$2" --export folded -' _ "$file" "$ft"
    run floor "$work/read_split" "$file"
    run wc wc -l "$file"
    run catcat bash -c 'cat "$1" | cat > /dev/null' _ "$file"
  done
  head -n 3000 "$file" > "$work/head.txt"
  for _ in $(seq "$runs"); do
    run fixf "$ft" --export folded "$work/head.txt"
    run fixi "$inferno" "$work/head.txt"
  done
  declare -A W C M
  for t in "${tools[@]}"; do
    W[$t]=$(med "$t" 1)
    C[$t]=$(awk '{ print $2 + $3 }' "$work/t.$t" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    M[$t]=$(med "$t" 4)
  done
  if cmp -s "$work/out.flametui" "$work/out.inferno"; then
    same="identical"
  elif cmp -s <(as_inferno "$work/out.flametui") <(LC_ALL=C sort "$work/out.inferno"); then
    same="identical once deviations are undone"
  else
    same="DIFFERENT"
    diff <(as_inferno "$work/out.flametui") <(LC_ALL=C sort "$work/out.inferno") | head -5 >&2 || true
  fi
  for t in t1 pipe; do
    cmp -s "$work/out.$t" "$work/out.flametui" || same="$same; $t output DIFFERENT"
  done
  # The spread of a ratio run by run: the tools of one run ran one after another, so the
  # pairs are as near in time as the script can make them. "min–max" of A's column K over
  # B's (K 0: user + sys).
  spread() { # a, b, k
    paste -d ' ' "$work/t.$1" "$work/t.$2" | awk -v k="$3" '{
        n = NF / 2; a = (k ? $k : $2 + $3); b = (k ? $(k + n) : $(2 + n) + $(3 + n))
        r = a / (b > 0.01 ? b : 0.01); if (NR == 1 || r < lo) lo = r; if (NR == 1 || r > hi) hi = r
      } END { printf "%.2f–%.2f", lo, hi }'
  }
  rows_c+=("$(printf '| %s | %s | %s | %s | %s |' "$shape" "$(spread flametui inferno 1)" \
    "$(spread t1 i1 1)" "$(spread t1 i1 0)" "$(spread pipe flametui 1)")")
  cell() { # tool: "wall s / CPU s / RSS MB"
    awk -v w="${W[$1]}" -v c="${C[$1]}" -v m="${M[$1]}" \
      'BEGIN { printf "%.2f / %.2f / %d", w, c, m / 1024 }'
  }
  rows_a+=("$(printf '| %s | %d | %d | %s | %s | %s | %s | %s |' "$shape" "$((bytes / 1048576))" \
    "$samples" "$(cell inferno)" "$(cell flametui)" "$(cell i1)" "$(cell t1)" "$(cell pipe)")")
  rows_b+=("$(awk -v s="$shape" -v b="$bytes" -v same="$same" \
    -v fw="${W[flametui]}" -v fc="${C[flametui]}" -v fm="${M[flametui]}" \
    -v iw="${W[inferno]}" -v ic="${C[inferno]}" -v im="${M[inferno]}" \
    -v tw="${W[t1]}" -v tc="${C[t1]}" -v tm="${M[t1]}" -v pw="${W[pipe]}" -v pm="${M[pipe]}" \
    -v jw="${W[i1]}" -v jc="${C[i1]}" -v jm="${M[i1]}" \
    -v lw="${W[floor]}" -v cw="${W[wc]}" -v qw="${W[catcat]}" -v xf="${M[fixf]}" -v xi="${M[fixi]}" 'BEGIN {
      mbs = b / 1048576; d = 0.01
      printf "| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.0f / %.0f | %.0f / %.0f | %.0f | %.0f | %.0f | %.0f | %.2f | %s |", s,
        fw / iw, fc / (ic > d ? ic : d), fm / im, tw / jw, tc / (jc > d ? jc : d), tm / jm, pw / fw, pw / (qw > fw ? qw : fw), pm / fm,
        xf / 1024, xi / 1024, (fm - xf) / 1024, (im - xi) / 1024,
        mbs / cw, mbs / lw, mbs / fw, mbs / tw, lw / tw, same }')")
  printf '%s\n%s\n' "${rows_a[-1]}" "${rows_b[-1]}" >&2
  unset W C M
  rm -f "$file"
done

{
  printf '%s MB rows, %s runs each (medians), %s cores; inferno-collapse-perf %s\n\n' \
    "$mb" "$runs" "$(nproc)" "$inferno_version"
  echo "Wall s / CPU (user+sys) s / peak RSS MB:"
  echo
  echo "| shape | MB | samples | inferno | flametui | inferno --nthreads 1 | flametui --threads 1 | cat \| flametui - |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
  printf '%s\n' "${rows_a[@]}"
  echo
  echo "Ratios (flametui/inferno, each on its default threads, then both on one thread;"
  echo "pipe/file, and pipe against the larger of the file's time and \`cat | cat\`'s), fixed"
  echo "memory (peak RSS on the first 3,000 lines) and the memory above it, flametui / inferno"
  echo "in MB, throughput in MB/s, output check:"
  echo
  echo "| shape | wall | CPU | RSS | 1-thread wall | 1-thread CPU | 1-thread RSS | pipe/file wall | pipe/floor wall | pipe/file RSS | fixed RSS | RSS above fixed | wc -l MB/s | read+split MB/s | flametui MB/s | 1-thread MB/s | floor/1-thread | output |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
  printf '%s\n' "${rows_b[@]}"
  echo
  echo "The same ratios run by run (lowest–highest of the $runs runs): how far one hour's"
  echo "machine moves them. Rows of distinct stacks wait on memory, so another tenant's"
  echo "memory traffic slows flametui more than inferno:"
  echo
  echo "| shape | wall | 1-thread wall | 1-thread CPU | pipe/file wall |"
  echo "|---|---:|---:|---:|---:|"
  printf '%s\n' "${rows_c[@]}"
} | tee "${OUT:-/dev/null}"

# --- perf.data with a DWARF call graph: flametui reading it against the perf script route.
if [ "${REAL:-1}" = 0 ] || ! command -v perf >/dev/null 2>&1 || ! command -v cc >/dev/null 2>&1 \
    || ! perf record -o "$work/probe.data" -- true >/dev/null 2>&1; then
  exit 0
fi
echo "recording testdata/perf-data-tiny.c with --call-graph dwarf ..." >&2
cc -O2 -g -o "$work/tiny" testdata/perf-data-tiny.c
perf record --call-graph dwarf -F 999 -o "$work/dwarf.data" -- "$work/tiny" "${DWARF_LOOPS:-5000}" \
  >/dev/null 2>&1
rm -f "$work"/t.* "$work"/out.*
for _ in $(seq "$runs"); do
  run direct "$ft" "$work/dwarf.data" --export folded
  run script bash -c 'perf script -i "$1" 2>/dev/null | "$2" --export folded -' _ "$work/dwarf.data" "$ft"
done
{
  printf '\nperf.data, --call-graph dwarf, %d MB, %s runs (medians); wall s / CPU s / peak RSS MB\n\n' \
    "$(($(stat -c %s "$work/dwarf.data") / 1048576))" "$runs"
  echo "| route | wall | CPU | RSS |"
  echo "|---|---:|---:|---:|"
  for t in direct script; do
    cpu=$(awk '{ print $2 + $3 }' "$work/t.$t" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    awk -v t="$t" -v w="$(med "$t" 1)" -v c="$cpu" -v m="$(med "$t" 4)" 'BEGIN {
      printf "| %s | %.2f | %.2f | %d |\n", (t == "direct" ? "flametui F --export folded" : "perf script -i F \\| flametui --export folded -"), w, c, m / 1024 }'
  done
  echo
  echo "(RSS of the perf script route: the larger process of the pipe.)"
} | tee -a "${OUT:-/dev/null}"
