#!/bin/bash
# Instruction counts (valgrind callgrind) of the record and typed-query workloads, the way
# Scripts/callgrind-bench.sh counts the others: one warm-up and one timed run of each
# contender, on the same rows, each contender's own function counted inclusive. The contenders
# are functions of RecordWorkloads (RecordWorkloads.swift) and QueryWorkloads (QueryWorkloads.swift),
# not the Raw/StrataBench/GRDBBench run functions that script reads, so this one names them.
# usage: Benchmarks/callgrind-records.sh [ROWS] [WORKLOAD...]   (run from the project root;
# SCRATCH=path picks the build directory, REUSE=1 re-reads the last profiles without running)
# Each line: every contender's instructions, then its ratio to the first (raw C).
set -uo pipefail
rows=${1:-20000}; shift $(( $# < 1 ? $# : 1 ))
workloads=${*:-record-fetch record-insert record-query join-books-authors including-all group-count insert-all wide-record fts-match json-record}
scratch=${SCRATCH:-Benchmarks/.build-records}
swift build -c release --package-path Benchmarks --scratch-path "$scratch" >/tmp/callgrind-records-build.log 2>&1 \
  || { grep error: /tmp/callgrind-records-build.log | head -5; echo "benchmark does not build"; exit 1; }
bin=$scratch/release/strata-bench
for w in $workloads; do
  # label=function pairs; the first is the baseline (raw C) the ratios divide by.
  case $w in
    record-fetch) names="raw=rawRecordFetch strata=strataRecordFetch grdb-codable=grdbCodableFetch grdb-manual=grdbManualFetch" ;;
    record-query) names="raw=rawRecordFetch strata=strataRecordQuery grdb-codable=grdbCodableQuery grdb-manual=grdbManualQuery" ;;
    record-insert) names="raw=rawRecordInsert strata=strataRecordInsert grdb-codable=grdbCodableInsert grdb-manual=grdbManualInsert" ;;
    join-books-authors) names="raw=rawJoin strata=strataJoin grdb=grdbJoin" ;;
    fts-match) names="raw=rawFTSMatch strata=strataFTSMatch grdb=grdbFTSMatch" ;;
    json-record) names="raw=rawJSONRecord strata=strataJSONRecord grdb=grdbJSONRecord" ;;
    including-all) names="raw=rawIncludingAll strata=strataIncludingAll grdb=grdbIncludingAll" ;;
    group-count) names="raw=rawGroupCount strata=strataGroupCount grdb=grdbGroupCount" ;;
    insert-all) names="raw=rawInsertAll strata=strataInsertAll grdb=grdbInsertAll" ;;
    wide-record) names="raw=rawWideRecord @Record=strataWideRecord strata-hand=strataHandWideRecord grdb-hand=grdbWideRecord" ;;
    records-recursive-walk) names="raw=rawRecursiveWalk strata=strataRecursiveWalk grdb=grdbRecursiveWalk" ;;
    northwind-orders) names="raw=rawFetchAll @Record=recordFetchAll strata-hand=handFetchAll orm=ormFetchAll grdb-hand=grdbFetchAll" ;;
    *) echo "$w: unknown workload"; continue ;;
  esac
  out=/tmp/callgrind-records-$w.out
  [ -n "${REUSE:-}" ] && [ -f "$out" ] || valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" --filter "$w" --runs 1 --rows "$rows" >/dev/null 2>&1 \
    || { echo "$w: run failed"; continue; }
  callgrind_annotate --inclusive=yes "$out" 2>/dev/null | swift demangle --simplified | python3 -c '
import re, sys
workload, pairs = sys.argv[1], [p.split("=", 1) for p in sys.argv[2].split()]
best = {name: 0 for _, name in pairs}
for line in sys.stdin:
    m = re.match(r"\s*([\d,]+) \(", line)
    if not m: continue
    n = int(m.group(1).replace(",", ""))
    for name in best:
        # The function itself, not a closure inside it: the largest inclusive count with its name.
        if "Workloads.%s(" % name in line: best[name] = max(best[name], n)
if not all(best.values()): print(f"{workload:20s} missing counts {best}"); sys.exit()
base = best[pairs[0][1]]
cells = [f"{label} {best[name]:,d}" + ("" if i == 0 else f" ({best[name]/base:.3f})") for i, (label, name) in enumerate(pairs)]
print(f"{workload:20s} " + "  ".join(cells))
' "$w" "$names"
done
