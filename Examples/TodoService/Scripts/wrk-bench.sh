#!/usr/bin/env bash
# The HTTP benchmark: wrk over loopback against the service's routes, on Strata (instrumentation
# all on, and none) and on sqlite-nio, both doing the same work: `GET /todos` reads its page and
# total in one read snapshot (a transaction on a reader of its own) or as two separate statements,
# both stores with the same number of readers; the Strata store reads on the request's thread
# (`--strata-reads calling-thread`, its default). Release builds, a fresh database of 1,000 todos
# for each server start; the configurations take turns within each run, so drift spreads evenly.
# Prints, per route, the median requests per second of RUNS runs with their range, and the median
# p99 latency, as a Markdown table.
#
# usage: Scripts/wrk-bench.sh [SECONDS] [CONNECTIONS] [RUNS]   (from Examples/TodoService; needs
# wrk: `apt-get install wrk`; CONFIG=debug measures the debug build; READERS sets the reader
# count, 2 by default). Everything it starts is stopped when it ends.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
connections=${2:-64}
runs=${3:-3}
readers=${READERS:-2}
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)"; exit 1; }
config=${CONFIG:-release}
swift build -c "$config" --product TodoService >/tmp/todo-wrk-build.log 2>&1 || { tail -20 /tmp/todo-wrk-build.log; exit 1; }
binary="$(swift build -c "$config" --show-bin-path)/TodoService"
work="$(mktemp -d)"
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
cat > "$work/create.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"title": "a todo from wrk"}'
wrk.headers["Content-Type"] = "application/json"
LUA

# start NAME ARGS...: runs the service on a free port with ARGS, seeds 1,000 todos, sets $server
# and $port.
start() {
  local name=$1; shift
  rm -f "$work/$name.sqlite"*
  "$binary" "$@" --db "$work/$name.sqlite" --port 0 --readers "$readers" --log-level info > "$work/$name.out" &
  server=$!
  for _ in $(seq 100); do grep -q "^listening on" "$work/$name.out" 2>/dev/null && break; sleep 0.1; done
  port=$(awk '/^listening on/ {print $3; exit}' "$work/$name.out")
  for i in $(seq 1000); do
    curl -s -o /dev/null -X POST -H 'Content-Type: application/json' -d "{\"title\": \"seed $i\"}" "http://127.0.0.1:$port/todos"
  done
}
stop() { kill -TERM "$server"; wait "$server" || true; server=""; }

# measure URL [SCRIPT]: prints "req/s p99-in-ms" from wrk --latency.
measure() {
  local out
  out=$(wrk -t2 -c"$connections" -d"${seconds}s" --latency ${2:+-s "$2"} "$1")
  local rps p99
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  p99=$(awk '$1 == "99%" { v = $2; if (v ~ /us$/) { sub(/us$/, "", v); v = v / 1000 } else if (v ~ /ms$/) { sub(/ms$/, "", v) } else if (v ~ /s$/) { sub(/s$/, "", v); v = v * 1000 }; printf "%.2f", v }' <<<"$out")
  echo "$rps $p99"
}

# The configurations: name and service arguments.
configs=(
  "strata-all-snapshot|--backend strata --instrumentation all --consistency snapshot"
  "strata-none-snapshot|--backend strata --instrumentation none --consistency snapshot"
  "nio-snapshot|--backend sqlite-nio --consistency snapshot"
  "strata-all-separate|--backend strata --instrumentation all --consistency separate"
  "strata-none-separate|--backend strata --instrumentation none --consistency separate"
  "nio-separate|--backend sqlite-nio --consistency separate"
)
results="$work/results.txt"   # lines: config route run rps p99
: > "$results"
for run in $(seq "$runs"); do
  for entry in "${configs[@]}"; do
    name=${entry%%|*}; args=${entry#*|}
    echo "run $run: $name" >&2
    # shellcheck disable=SC2086
    start "$name" $args
    echo "$name list $run $(measure "http://127.0.0.1:$port/todos?limit=20&offset=100")" >> "$results"
    # The single-statement reads in both: sqlite-nio's snapshot store lends each read a reader of
    # its own (a read must not land inside another request's BEGIN), its separate store shares them.
    echo "$name one $run $(measure "http://127.0.0.1:$port/todos/500")" >> "$results"
    echo "$name search $run $(measure "http://127.0.0.1:$port/todos/search?q=seed%2050&limit=20")" >> "$results"
    case $name in
      *-snapshot) echo "$name create $run $(measure "http://127.0.0.1:$port/todos" "$work/create.lua")" >> "$results" ;;
    esac
    stop
  done
done

# median, min and max of column COLUMN for CONFIG ROUTE: "median min max".
stats() {
  awk -v c="$1" -v r="$2" -v col="$3" '$1 == c && $2 == r { print $col }' "$results" | sort -g |
    awk '{ v[NR] = $1 } END { if (NR == 0) { print "- - -"; exit } m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.0f %.0f %.0f\n", m, v[1], v[NR] }'
}
p99() {
  awk -v c="$1" -v r="$2" '$1 == c && $2 == r { print $5 }' "$results" | sort -g |
    awk '{ v[NR] = $1 } END { if (NR == 0) { print "-"; exit } m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.2f\n", m }'
}
cell() { read -r m lo hi <<<"$(stats "$1" "$2" 4)"; echo "$m ($lo–$hi), p99 $(p99 "$1" "$2") ms"; }
ratio() {
  read -r a _ _ <<<"$(stats "$1" "$3" 4)"; read -r b _ _ <<<"$(stats "$2" "$3" 4)"
  awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }'
}

echo "| route | reads | Strata, instrumented | Strata, no instrumentation | sqlite-nio | Strata/nio (instr. / none) |"
echo "|---|---|---:|---:|---:|---:|"
for row in "list snapshot" "list separate" "one snapshot" "one separate" "search snapshot" "search separate" "create snapshot"; do
  read -r route mode <<<"$row"
  case $route in
    list) name='`GET /todos?limit=20&offset=100`' ;;
    one) name='`GET /todos/500`' ;;
    search) name='`GET /todos/search?q=seed 50`' ;;
    create) name='`POST /todos`' ;;
  esac
  m=$mode
  [ "$route" = create ] && mode="-"
  echo "| $name | $mode | $(cell "strata-all-$m" "$route") | $(cell "strata-none-$m" "$route") | $(cell "nio-$m" "$route") | $(ratio "strata-all-$m" "nio-$m" "$route") / $(ratio "strata-none-$m" "nio-$m" "$route") |"
done
echo
echo "req/s: median of $runs runs of ${seconds} s (range in parentheses); $connections connections, wrk -t2; $readers readers each; $config build; $(nproc) cores."
