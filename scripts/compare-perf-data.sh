#!/usr/bin/env bash
# Compares flametui reading a perf.data recording directly with the perf script route,
# side by side in one run: the folded export of each, the share of the weight on which
# they agree, and the wall time and peak RSS of both pipelines.
#
# usage: scripts/compare-perf-data.sh [-b FLAMETUI] RECORDING...
#   env: PERF=perf, PERF_SCRIPT_ARGS (more perf script options, e.g. --no-inline),
#   SHOW_DIFF=N (the first N lines of the diff of the two exports)
set -euo pipefail
FLAMETUI=${FLAMETUI:-target/release/flametui}
if [[ "${1:-}" == "-b" ]]; then FLAMETUI=$2; shift 2; fi
PERF=${PERF:-perf}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
measure() { # label, command...: wall seconds and peak RSS (MiB) into $tmp/label.time
    local label=$1; shift
    /usr/bin/time -f '%e %M' -o "$tmp/$label.time" "$@"
}
for f in "$@"; do
    measure direct "$FLAMETUI" "$f" --export folded -o "$tmp/direct.folded" 2>"$tmp/direct.err" \
        || { echo "$f: flametui failed: $(cat "$tmp/direct.err")"; continue; }
    measure script bash -c '"$0" script ${PERF_SCRIPT_ARGS:-} -i "$1" 2>/dev/null | "$2" --export folded - -o "$3"' "$PERF" \
        "$f" "$FLAMETUI" "$tmp/script.folded"
    # Weight on which both agree: per stack, the smaller of the two weights.
    awk '
        FNR == 1 { side++ }
        { n = split($0, a, " "); w = a[n]; s = substr($0, 1, length($0) - length(w) - 1);
          if (side == 1) d[s] += w; else p[s] += w }
        END {
            for (s in d) { td += d[s]; if (s in p) same += (d[s] < p[s] ? d[s] : p[s]) }
            # perf script stacks whose root frame is [unknown]: with DWARF unwinding, where
            # its unwinder gave up (it prints an ffffffffffffffff frame).
            for (s in p) { tp += p[s]; if (s ~ /^[^;]*;\[unknown\]/) { lost += p[s]; if (s in d) lostsame += (d[s] < p[s] ? d[s] : p[s]) } }
            printf "weight: direct %.0f, perf script %.0f, agreeing %.2f%%", td, tp, 100 * same / (tp > td ? tp : td)
            if (lost > 0 && tp > lost)
                printf "; perf script stacks rooted in [unknown] %.2f%%, agreeing on the others %.2f%%", 100 * lost / tp, 100 * (same - lostsame) / (tp - lost)
            printf "\n"
        }' "$tmp/direct.folded" "$tmp/script.folded"
    read -r dw dm < "$tmp/direct.time"
    read -r sw sm < "$tmp/script.time"
    echo "$f: direct ${dw}s ${dm} KiB peak RSS; perf script | flametui ${sw}s ${sm} KiB (perf script's RSS, the larger of the pipe); ratio $(awk -v a="$dw" -v b="$sw" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')"
    if [[ -n "${SHOW_DIFF:-}" ]]; then
        diff <(sort "$tmp/direct.folded") <(sort "$tmp/script.folded") | head -n "${SHOW_DIFF}" || true
    fi
done
