#!/bin/bash
# Instruction counts (valgrind callgrind) of each contender's work in the project's benchmark:
# steady where wall-clock time on this shared machine is not. Prints one line per workload,
# "workload raw strata grdb strata/raw grdb/raw", counting each contender's run function inclusive
# (one warm-up + one timed run, same rows for all).
# usage: Scripts/callgrind-bench.sh [PROJECT_DIR] [ROWS] [WORKLOAD...]   (run from the project root)
# It reads the run functions of the benchmark contenders (Raw.run, StrataBench.run, GRDBBench.run):
# keep those names, or update the patterns below.
set -uo pipefail
project=$(cd "${1:-.}" && pwd); rows=${2:-20000}; shift $(( $# < 2 ? $# : 2 ))
workloads=${*:-insert-positional insert-named insert-named-dictionary fetch-positional fetch-named fetch-model fetch-decodable fetch-mixed parse-dates}
scratch=/tmp/perf-callgrind-build
swift build -c release --package-path "$project/Benchmarks" --scratch-path "$scratch" >/tmp/perf-callgrind-build.log 2>&1 \
  || { grep error: /tmp/perf-callgrind-build.log | head -5; echo "benchmark does not build"; exit 1; }
bin=$scratch/release/strata-bench
# The benchmark's --filter matches substrings ("insert-named" also runs insert-named-dictionary):
# counts are per filter run, and a workload whose name is inside another's is the difference.
counts() {  # FILTER -> "raw strata grdb"
  local out=/tmp/perf-callgrind-$1.out
  [ -f "$out" ] || valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" --filter "$1" --runs 1 --rows "$rows" >/dev/null 2>&1 || return 1
  callgrind_annotate --inclusive=yes "$out" 2>/dev/null | python3 -c '
import re, sys
best = {}
for line in sys.stdin:
    m = re.match(r"\s*([\d,]+) \(", line)
    if not m: continue
    n = int(m.group(1).replace(",", ""))
    for name, key in (("raw", "3RawO3run_"), ("strata", "11StrataBenchO3run_"), ("grdb", "9GRDBBenchO3run_")):
        if key in line and "Tf4" in line: best[name] = max(best.get(name, 0), n)
print(best.get("raw", 0), best.get("strata", 0), best.get("grdb", 0))
'
}
rm -f /tmp/perf-callgrind-*.out
all=" insert-positional insert-named insert-named-dictionary fetch-positional fetch-named fetch-model fetch-decodable fetch-mixed parse-dates "
printf "%-26s %14s %14s %14s %8s %8s\n" workload raw strata grdb "s/raw" "g/raw"
for w in $workloads; do
  read -r r s g < <(counts "$w") || { echo "$w: run failed"; continue; }
  for other in $all; do
    if [ "$other" != "$w" ] && [[ "$other" == *"$w"* ]]; then
      read -r r2 s2 g2 < <(counts "$other"); r=$((r - r2)); s=$((s - s2)); g=$((g - g2))
    fi
  done
  python3 -c 'import sys; w,r,s,g=sys.argv[1],*map(int,sys.argv[2:]);
print(f"{w:26s} missing counts" if not (r>0 and s>0 and g>0) else f"{w:26s} {r:14,d} {s:14,d} {g:14,d} {s/r:8.3f} {g/r:8.3f}")' "$w" "$r" "$s" "$g"
done
