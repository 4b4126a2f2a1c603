#!/bin/bash
# Builds the DocC catalog of each library module with the toolchain's docc and prints its warnings
# and documentation coverage (share of public symbols with a summary). Run from the project root.
# usage: Scripts/docc-check.sh [MODULE...]   (default: Strata)
set -uo pipefail
modules=${*:-Strata}
swift build --build-tests >/tmp/docc-check-build.log 2>&1 || { grep error: /tmp/docc-check-build.log | head -5; echo "build failed"; exit 1; }
swift package dump-symbol-graph --minimum-access-level public >/tmp/docc-check-sg.log 2>&1 \
  || { tail -5 /tmp/docc-check-sg.log; echo "symbol graphs failed"; exit 1; }
graphs=$(find .build -type d -name symbolgraph | head -1)
for m in $modules; do
  dir=/tmp/docc-check-$m; rm -rf "$dir" && mkdir -p "$dir/graphs"
  cp "$graphs/$m".symbols.json "$graphs/$m"@*.symbols.json "$dir/graphs/" 2>/dev/null
  catalog=$(ls -d Sources/"$m"/*.docc 2>/dev/null | head -1)
  docc convert ${catalog:+"$catalog"} --additional-symbol-graph-dir "$dir/graphs" --output-path "$dir/archive" \
    --fallback-display-name "$m" --fallback-bundle-identifier "org.strata.$m" --analyze \
    --experimental-documentation-coverage --coverage-summary-level brief >"$dir/log" 2>&1
  echo "== $m: $(grep -c 'warning:' "$dir/log") warnings"
  grep 'warning:' "$dir/log" | sed 's/^.*warning: /  /' | sort | uniq -c | sort -rn | head -15
  sed -n '/coverage output enabled/,$p' "$dir/log" | sed 1d
done
