#!/usr/bin/env bash
# `vernier soak analyze` against pandas on the same 1 000 000-row soak file
# (issue: at most a tenth of pandas' time, never slower than a third; peak
# RSS under twice the file's size).
#
#   app/benches/soak-analyze.sh [ROUNDS]      (default 5, alternating order)
#
# Needs python3 with pandas and numpy (pip install pandas) and GNU time.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-5}
cargo build --release -q -p vernier
v=$PWD/target/release/vernier
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
file=$work/soak-1m.csv

python3 - "$file" <<'PY'
import math, random, sys
rng = random.Random(12345)
with open(sys.argv[1], "w") as f:
    f.write("# synthetic benchmark input, 1 000 000 rows\n# placeholders: none\n")
    f.write("t_seconds,clock_mhz,power_w,soc_temp_c,skin_temp_c,score\n")
    for k in range(1, 1_000_001):
        t = k * 0.5
        frac = math.exp(-t / 20000.0)
        clock = 1800 + 1200 * frac + rng.uniform(-10, 10)
        f.write(f"{t:.1f},{clock:.0f},{6 + 9 * frac:.2f},{60 + 30 * (1 - frac):.1f},{35.0:.1f},{clock / 30 + rng.uniform(-1, 1):.3f}\n")
PY
size=$(stat -c %s "$file")
echo "file: $((size / 1000000)) MB, 1 000 000 rows"

cat > "$work/pandas_analyze.py" <<'PY'
import sys, time
import numpy as np, pandas as pd
start = time.perf_counter()
d = pd.read_csv(sys.argv[1], comment="#")
t, s = d["t_seconds"].to_numpy(), d["score"].to_numpy()
peak = np.median(s[t <= 30]); end = t[-1]
tail = s[t > end - 300]
sustained = np.median(tail); iqr = np.percentile(tail, 75) - np.percentile(tail, 25)
print(f"{time.perf_counter() - start:.6f}", peak, sustained, iqr, file=sys.stderr)
PY

# Whole-process wall time (bash's `time`, ms resolution) and peak RSS (GNU time, KiB).
timed() {
  local out=$1; shift
  { TIMEFORMAT=%3R; time /usr/bin/time -f %M -o "$work/rss" "$@" >/dev/null 2>>"$work/inner"; } 2>>"$out.s"
  awk '{print $1 * 1024}' "$work/rss" >> "$out.rss"
}
for r in $(seq "$rounds"); do
  if (( r % 2 )); then
    timed "$work/v" "$v" soak analyze "$file" --json
    timed "$work/p" python3 "$work/pandas_analyze.py" "$file"
  else
    timed "$work/p" python3 "$work/pandas_analyze.py" "$file"
    timed "$work/v" "$v" soak analyze "$file" --json
  fi
done
awk 'NF==4 {print $1}' "$work/inner" > "$work/p_in"
echo "-- vernier soak analyze (whole process), wall s:"; "$v" stats "$work/v.s" | head -1
echo "-- python + pandas read_csv + numpy medians (whole process), wall s:"; "$v" stats "$work/p.s" | head -1
echo "-- pandas in-process only (read_csv + medians, no interpreter start), s:"; "$v" stats "$work/p_in" | head -1
"$v" compare "$work/p_in" "$work/v.s" --metric "median time to analyse (A = pandas in-process, B = vernier whole process)" | head -1
echo "-- vernier peak RSS, bytes (file is $size bytes):"; "$v" stats "$work/v.rss" | head -1
echo "-- pandas peak RSS, bytes:"; "$v" stats "$work/p.rss" | head -1
