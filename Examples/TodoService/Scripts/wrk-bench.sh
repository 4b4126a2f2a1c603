#!/usr/bin/env bash
# The HTTP benchmark: wrk over loopback against the service's list and create routes, once on
# Strata and once on sqlite-nio (the same routes, `--backend sqlite-nio`), release builds, a fresh
# database of 1,000 todos for each. Prints requests per second and p99 latency as a Markdown table.
# usage: Scripts/wrk-bench.sh [SECONDS] [CONNECTIONS]   (from Examples/TodoService; needs wrk:
# `apt-get install wrk`; CONFIG=debug measures the debug build). Everything it starts is stopped
# when it ends.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
connections=${2:-64}
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

# start BACKEND: runs the service on a free port, seeds 1,000 todos, sets $server and $port.
start() {
  "$binary" --backend "$1" --db "$work/$1.sqlite" --port 0 --log-level error > "$work/$1.out" &
  server=$!
  for _ in $(seq 100); do grep -q "listening on" "$work/$1.out" 2>/dev/null && break; sleep 0.1; done
  port=$(awk '/listening on/ {print $3; exit}' "$work/$1.out")
  for i in $(seq 1000); do
    curl -s -o /dev/null -X POST -H 'Content-Type: application/json' -d "{\"title\": \"seed $i\"}" "http://127.0.0.1:$port/todos"
  done
}
stop() { kill -TERM "$server"; wait "$server" || true; server=""; }

# measure LABEL URL [SCRIPT]: prints "req/s p99" from wrk --latency.
measure() {
  local out
  out=$(wrk -t2 -c"$connections" -d"${seconds}s" --latency ${3:+-s "$3"} "$2")
  local rps p99
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
  echo "$rps $p99"
}

echo "| route | Strata req/s | Strata p99 | sqlite-nio req/s | sqlite-nio p99 |"
echo "|---|---:|---:|---:|---:|"
declare -A results
for backend in strata sqlite-nio; do
  start "$backend"
  results[$backend-list]=$(measure list "http://127.0.0.1:$port/todos?limit=20&offset=100")
  results[$backend-create]=$(measure create "http://127.0.0.1:$port/todos" "$work/create.lua")
  stop
done
for route in list create; do
  read -r s_rps s_p99 <<<"${results[strata-$route]}"
  read -r n_rps n_p99 <<<"${results[sqlite-nio-$route]}"
  case $route in list) name='`GET /todos?limit=20`' ;; create) name='`POST /todos`' ;; esac
  echo "| $name | $s_rps | $s_p99 | $n_rps | $n_p99 |"
done
