#!/bin/bash
# Instruction counts (valgrind callgrind) of the record workloads, the way
# ../shared/tools/callgrind-bench.sh counts the others: one warm-up and one timed run of each
# contender, on the same rows, each contender's own function counted inclusive. The record
# contenders are functions of RecordWorkloads (RecordWorkloads.swift), not the Raw/StrataBench/
# GRDBBench run functions that script reads, so this one names them.
# usage: Benchmarks/callgrind-records.sh [ROWS] [WORKLOAD...]   (run from the project root;
# SCRATCH=path picks the build directory, REUSE=1 re-reads the last profiles without running)
set -uo pipefail
rows=${1:-20000}; shift $(( $# < 1 ? $# : 1 ))
workloads=${*:-record-fetch record-insert record-query}
scratch=${SCRATCH:-Benchmarks/.build-records}
swift build -c release --package-path Benchmarks --scratch-path "$scratch" >/tmp/callgrind-records-build.log 2>&1 \
  || { grep error: /tmp/callgrind-records-build.log | head -5; echo "benchmark does not build"; exit 1; }
bin=$scratch/release/strata-bench
printf "%-14s %13s %13s %13s %13s %7s %7s %7s\n" workload raw strata grdb-codable grdb-manual s/raw gc/raw gm/raw
for w in $workloads; do
  case $w in
    record-fetch) names="rawRecordFetch strataRecordFetch grdbCodableFetch grdbManualFetch" ;;
    record-query) names="rawRecordFetch strataRecordQuery grdbCodableQuery grdbManualQuery" ;;
    record-insert) names="rawRecordInsert strataRecordInsert grdbCodableInsert grdbManualInsert" ;;
    *) echo "$w: unknown workload"; continue ;;
  esac
  out=/tmp/callgrind-records-$w.out
  [ -n "${REUSE:-}" ] && [ -f "$out" ] || valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" --filter "$w" --runs 1 --rows "$rows" >/dev/null 2>&1 \
    || { echo "$w: run failed"; continue; }
  callgrind_annotate --inclusive=yes "$out" 2>/dev/null | swift demangle --simplified | python3 -c '
import re, sys
workload, names = sys.argv[1], sys.argv[2].split()
best = dict.fromkeys(names, 0)
for line in sys.stdin:
    m = re.match(r"\s*([\d,]+) \(", line)
    if not m: continue
    n = int(m.group(1).replace(",", ""))
    for name in names:
        # The function itself, not a closure inside it: the largest inclusive count with its name.
        if "RecordWorkloads.%s(" % name in line: best[name] = max(best[name], n)
r, s, gc, gm = (best[n] for n in names)
if not all((r, s, gc, gm)): print(f"{workload:14s} missing counts {best}")
else: print(f"{workload:14s} {r:13,d} {s:13,d} {gc:13,d} {gm:13,d} {s/r:7.3f} {gc/r:7.3f} {gm/r:7.3f}")
' "$w" "$names"
done
