#!/usr/bin/env bash
# The harness against hyperfine, and the kernels' headline ratios (issue 3).
#
#   app/benches/harness-overhead.sh [ROUNDS]     (default 7 rounds)
#
# 1. Harness overhead: `vernier bench -n 51 -- true` and
#    `hyperfine -N --runs 51 true`, alternated round by round (V H, then H V),
#    each round's median kept; the two sets are compared with Vernier's own
#    S7 verdict. Goal: Vernier's median per trial ≤ hyperfine's (ratio ≤ 1.00),
#    and never above 1.10.
# 2. Kernels: the seq/chase sweep from 4 KiB to 256 MiB, and matmul naive /
#    ikj / blocked at N = 512, each with median and IQR.
#
# Needs hyperfine (Debian package `hyperfine`) and a release build.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-7}
cargo build --release -q -p vernier
v=target/release/vernier
command -v hyperfine >/dev/null || { echo "hyperfine is not installed (apt-get install hyperfine)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median_json() { python3 -c 'import json,sys; print(json.load(sys.stdin)["runs"][0]["median"])'; }
hyperfine_median() { python3 -c 'import json,statistics,sys; print(statistics.median(json.load(open(sys.argv[1]))["results"][0]["times"]))' "$1"; }

vernier_round() { "$v" bench -n 51 --json -- true | median_json >> "$work/vernier.txt"; }
hyperfine_round() {
  hyperfine -N --runs 51 --warmup 3 --style none --export-json "$work/h.json" true >/dev/null 2>&1
  hyperfine_median "$work/h.json" >> "$work/hyperfine.txt"
}

echo "== harness overhead: $rounds rounds of 51 trials of 'true', alternating order"
for r in $(seq "$rounds"); do
  if (( r % 2 )); then vernier_round; hyperfine_round; else hyperfine_round; vernier_round; fi
done
echo "-- Vernier, per-round medians (s):";   "$v" stats "$work/vernier.txt" --unit s | head -1
echo "-- hyperfine, per-round medians (s):"; "$v" stats "$work/hyperfine.txt" --unit s | head -1
"$v" compare "$work/hyperfine.txt" "$work/vernier.txt" --metric "median wall time per trial (A = hyperfine, B = Vernier)" | head -1
python3 - "$work/vernier.txt" "$work/hyperfine.txt" <<'PY'
import statistics, sys
v = statistics.median(float(x) for x in open(sys.argv[1]))
h = statistics.median(float(x) for x in open(sys.argv[2]))
ratio = v / h
goal = "meets the goal (≤ 1.00)" if ratio <= 1.0 else ("within the limit (≤ 1.10)" if ratio <= 1.10 else "ABOVE THE 1.10 LIMIT")
print(f"ratio Vernier / hyperfine = {ratio:.3f}: {goal}")
PY

echo
echo "== seq / chase sweep (ns/access, median (IQR), 11 trials each)"
printf '%-12s %-22s %-22s %s\n' "working set" "seq" "chase" "chase/seq"
for kib in 4 16 64 256 1024 4096 16384 65536 262144; do
  bytes=$((kib * 1024))
  row=()
  for k in seq chase; do
    row+=("$("$v" bench -n 11 --kernel "$k" --size "$bytes" --json | python3 -c 'import json,sys; r=json.load(sys.stdin)["runs"][0]; print(r["median"], r["rounded"]["median"], r["rounded"]["iqr"])')")
  done
  read -r sm sr si <<<"${row[0]}"; read -r cm cr ci <<<"${row[1]}"
  printf '%-12s %-22s %-22s %s\n' "${kib} KiB" "$sr (IQR $si)" "$cr (IQR $ci)" "$(python3 -c "print(f'{$cm/$sm:.1f}x')")"
done

echo
echo "== matmul N=512 (ms), interleaved pairs, 11 trials per arm"
"$v" bench -n 11 --kernel matmul-naive --vs-kernel matmul-ikj | grep -E '^(A|B):|IQR|median wall'
"$v" bench -n 11 --kernel matmul-naive --vs-kernel matmul-blocked | grep -E '^(A|B):|IQR|median wall'
