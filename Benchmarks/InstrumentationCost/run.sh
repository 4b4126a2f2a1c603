#!/bin/bash
# Instructions per statement of each instrumentation mode: callgrind counts `measured()` inclusive
# in one run per mode, divided by the reads. Usage: Benchmarks/InstrumentationCost/run.sh [READS]
set -euo pipefail
cd "$(dirname "$0")"
reads=${1:-20000}
swift build -c release >/tmp/instrumentation-cost-build.log 2>&1 || { grep error: /tmp/instrumentation-cost-build.log | head; exit 1; }
bin=.build/release/instrumentation-cost
base=0
for mode in none logging metrics tracing all; do
  out=/tmp/instrumentation-cost-$mode.out
  valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" "$mode" "$reads" >/dev/null 2>&1
  count=$(callgrind_annotate --inclusive=yes "$out" 2>/dev/null | grep -m1 "8measuredyS2iKF" | sed -E 's/^ *([0-9,]+).*/\1/' | tr -d , || true)
  per=$((count / reads))
  [ "$mode" = none ] && base=$per
  python3 -c "import sys; m,p,b=sys.argv[1],int(sys.argv[2]),int(sys.argv[3]); print(f'{m:8} {p:>8} instructions per statement  {p/b:.3f}x none  (+{(p-b)/b*100:.1f}%)')" "$mode" "$per" "$base"
done
