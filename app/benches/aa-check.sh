#!/usr/bin/env bash
# SPEC S7, S15: the verdict's false-claim rate. An A/A check: one command
# compared with itself, interleaved, N times (default 20) — every claim is a
# false one — then a real 2× difference (sleep 10 ms against 20 ms), which
# must still be claimed. Prints each comparison's verdict (and its S15
# sentence where the evidence points elsewhere), the count of
# claims, and PASS when at most one A/A comparison in twenty claims (N/20
# rounded down, at least one) and the 2× difference is claimed; exit 1
# otherwise.
#
#   app/benches/aa-check.sh [N]
#
# Needs a release build (VERNIER=path, default ${CARGO_TARGET_DIR:-target}/release/vernier)
# and python3.
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-20}
v=${VERNIER:-${CARGO_TARGET_DIR:-target}/release/vernier}
[ -x "$v" ] || { echo "no vernier at $v: build with cargo build --release" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
head -c 2000000 /dev/urandom > "$work/blob"
claimed() { python3 -c 'import json,sys; print(json.load(sys.stdin)["comparison"]["claimed"])'; }
claims=0 meanings=0
for i in $(seq "$n"); do
  out=$("$v" bench -n 31 --warmup 3 --json --label-a A --label-b "A again" --vs "sha256sum $work/blob" -- sha256sum "$work/blob")
  c=$(claimed <<<"$out")
  verdict=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["comparison"]["verdict"])' <<<"$out")
  meaning=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["comparison"].get("meaning") or "")' <<<"$out")
  echo "A/A $i: claimed=$c  $verdict${meaning:+  — $meaning}"
  [ "$c" = True ] && claims=$((claims + 1))
  [ -n "$meaning" ] && meanings=$((meanings + 1))
done
allowed=$(( n / 20 ))
(( allowed >= 1 )) || allowed=1
real=$("$v" bench -n 31 --warmup 3 --json --label-a 10ms --label-b 20ms --vs "sleep 0.02" -- sleep 0.01)
real_claimed=$(claimed <<<"$real")
echo "2x: claimed=$real_claimed  $(python3 -c 'import json,sys; print(json.load(sys.stdin)["comparison"]["verdict"])' <<<"$real")"
echo "A/A: $claims of $n claimed a difference (allowed: $allowed); $meanings of $n had evidence pointing elsewhere (S15); 2x difference claimed: $real_claimed"
if (( claims <= allowed )) && [ "$real_claimed" = True ]; then echo PASS; else echo FAIL; exit 1; fi
