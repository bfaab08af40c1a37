#!/usr/bin/env bash
# What confining a foreign rerun costs a trial (issue 45, SPEC N13, R5).
#
#   app/benches/confine-overhead.sh [ROUNDS]     (default 7 rounds)
#
# A foreign rerun's commands start from one Landlock-confined thread of
# Vernier's (platform::confine), so each spawn crosses to that thread and
# back inside the timed interval. This measures what that costs:
# `vernier bench -n 51 -- true` (not confined) against `vernier reproduce`
# of that very row with `--yes --allow-inline-code` (confined: `true` is a
# system tool, so it needs the second consent), alternated round by round,
# each round's median kept, the two sets compared with Vernier's own S7
# verdict. The overhead bar is harness-overhead.sh's: per-trial medians
# within 1.10 of each other.
#
# Needs a release build and a kernel with Landlock (else the rerun says
# "not confined" and this script stops).
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-7}
cargo build --release -q -p vernier
v=$PWD/target/release/vernier
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$v" new "$work/theirs" --title "unconfined" >/dev/null
"$v" new "$work/mine" --title "confined" >/dev/null
median_of_row() { python3 -c 'import json,sys; print(json.load(sys.stdin)["runs"][0]["median"])'; }
plain_round() { "$v" bench -n 51 --json --notebook "$work/theirs" -- true | median_of_row >> "$work/plain.txt"; }
confined_round() {
  "$v" reproduce "$work/theirs" --row 1 --notebook "$work/mine" --yes --allow-inline-code --json \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["mine"]["median"])' >> "$work/confined.txt"
}

# Row 1, the one every confined round reruns; not one of the rounds.
"$v" bench -n 51 --notebook "$work/theirs" -- true >/dev/null
if ! "$v" reproduce "$work/theirs" --row 1 --notebook "$work/mine" --yes --allow-inline-code >/dev/null 2>&1 \
  || ! grep -qs "(Landlock)" "$work/mine/notebook.ron" "$work/mine/notebook.journal.ron"; then
  echo "the rerun was not confined here (no Landlock?): nothing to measure" >&2
  exit 2
fi

echo "== confinement overhead: $rounds rounds of 51 trials of 'true', alternating order"
for r in $(seq "$rounds"); do
  if (( r % 2 )); then plain_round; confined_round; else confined_round; plain_round; fi
done
echo "-- not confined, per-round medians (s):"; "$v" stats "$work/plain.txt" --unit s | head -1
echo "-- confined, per-round medians (s):";     "$v" stats "$work/confined.txt" --unit s | head -1
"$v" compare "$work/plain.txt" "$work/confined.txt" --metric "median wall time per trial (A = not confined, B = confined)" | head -1
python3 - "$work/confined.txt" "$work/plain.txt" <<'PY'
import statistics, sys
c = statistics.median(float(x) for x in open(sys.argv[1]))
p = statistics.median(float(x) for x in open(sys.argv[2]))
ratio = c / p
print(f"ratio confined / not confined = {ratio:.3f}: " + ("within the 1.10 bar" if ratio <= 1.10 else "ABOVE THE 1.10 BAR"))
PY
