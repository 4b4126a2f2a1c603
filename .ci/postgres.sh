#!/usr/bin/env bash
# A PostgreSQL server of its own for the tests, in a folder of its own, on a loopback port.
#
#   eval "$(.ci/postgres.sh start)"   # prints: export STRATA_POSTGRES_URL=...; export STRATA_POSTGRES_DIR=...
#   .ci/postgres.sh stop              # stops the server in $STRATA_POSTGRES_DIR and removes the folder
#   .ci/postgres.sh restart DIR       # a fast shutdown (every session ended) and a start, same port and folder
#   .ci/postgres.sh pause DIR         # a fast shutdown, the folder kept; `resume DIR` starts it again on its port
#
# It installs Debian's PostgreSQL server when pg_ctl or initdb is missing. The server refuses to
# run as root, so as root it runs as the `postgres` user (Debian's package makes it) or `nobody`.
# Logins are trusted on 127.0.0.1 only; the superuser is `strata`.
set -euo pipefail

find_bin() {
    local name="$1"
    if command -v "$name" >/dev/null 2>&1; then command -v "$name"; return; fi
    local found
    found="$(ls -d /usr/lib/postgresql/*/bin/"$name" 2>/dev/null | sort -V | tail -n 1 || true)"
    [ -n "$found" ] && echo "$found"
}

as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        local user=postgres
        id postgres >/dev/null 2>&1 || user=nobody
        setpriv --reuid="$(id -u "$user")" --regid="$(id -g "$user")" --clear-groups "$@"
    else
        "$@"
    fi
}

# The server outlives this script: it must not keep a descriptor the script's caller inherited
# (Swift's Foundation.Process learns that its child ended from one, and would wait for the server).
close_inherited() {
    for fd in /proc/$$/fd/*; do
        fd="${fd##*/}"
        [ "$fd" -gt 2 ] 2>/dev/null && eval "exec $fd>&-" 2>/dev/null || true
    done
}

# The server's options, the same at every start: port, socket folder, loopback only, no fsync,
# and max_connections past the parallel suite's peak (each hub, replica store and test database
# holds connections of its own; the default 100 refused some with "sorry, too many clients").
server_options() {
    echo "-p $1 -k $2 -h 127.0.0.1 -c fsync=off -c max_connections=400"
}

case "${1:-}" in
start)
    if [ -z "$(find_bin pg_ctl)" ] || [ -z "$(find_bin initdb)" ]; then
        echo "Installing postgresql" >&2
        SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
        $SUDO apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql >&2
    fi
    PG_CTL="$(find_bin pg_ctl)"; INITDB="$(find_bin initdb)"
    DIR="${2:-$(mktemp -d /tmp/strata-postgres.XXXXXX)}"
    mkdir -p "$DIR"
    PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
    if [ "$(id -u)" -eq 0 ]; then
        user=postgres; id postgres >/dev/null 2>&1 || user=nobody
        chown "$user" "$DIR"
    fi
    chmod 700 "$DIR"
    close_inherited
    as_owner "$INITDB" -D "$DIR/data" -U strata --auth=trust -E UTF8 --locale=C >"$DIR/initdb.log" 2>&1 \
        || { cat "$DIR/initdb.log" >&2; exit 1; }
    as_owner "$PG_CTL" -D "$DIR/data" -l "$DIR/server.log" -w -o "$(server_options "$PORT" "$DIR")" start >&2 \
        || { cat "$DIR/server.log" >&2; exit 1; }
    echo "$PORT" >"$DIR/port"
    echo "export STRATA_POSTGRES_URL=postgres://strata@127.0.0.1:$PORT/postgres"
    echo "export STRATA_POSTGRES_DIR=$DIR"
    ;;
stop)
    DIR="${2:-${STRATA_POSTGRES_DIR:-}}"
    [ -n "$DIR" ] && [ -d "$DIR/data" ] || { echo "no server folder to stop" >&2; exit 0; }
    PG_CTL="$(find_bin pg_ctl)"
    as_owner "$PG_CTL" -D "$DIR/data" -m fast -w stop >&2 || true
    rm -rf "$DIR"
    ;;
restart)
    DIR="${2:-${STRATA_POSTGRES_DIR:-}}"
    [ -n "$DIR" ] && [ -d "$DIR/data" ] || { echo "no server folder to restart" >&2; exit 1; }
    PG_CTL="$(find_bin pg_ctl)"
    close_inherited
    # pg_ctl starts it again with the options it last ran with (postmaster.opts): the same port.
    # A fast shutdown that has not finished in 60 s (it happened once in CI, on an idle machine,
    # after the hub suite) is ended by an immediate one, which PostgreSQL recovers from at start
    # as from a crash; the log's tail says what it was waiting for.
    if ! as_owner "$PG_CTL" -D "$DIR/data" -l "$DIR/server.log" -m fast -t 60 -w restart >&2; then
        echo "postgres.sh: the fast restart did not finish; the server log's tail:" >&2
        tail -n 30 "$DIR/server.log" >&2 || true
        as_owner "$PG_CTL" -D "$DIR/data" -m immediate -w stop >&2 || true
        as_owner "$PG_CTL" -D "$DIR/data" -l "$DIR/server.log" -w -o "$(server_options "$(cat "$DIR/port")" "$DIR")" start >&2
    fi
    ;;
pause)
    DIR="${2:-${STRATA_POSTGRES_DIR:-}}"
    [ -n "$DIR" ] && [ -d "$DIR/data" ] || { echo "no server folder to pause" >&2; exit 1; }
    as_owner "$(find_bin pg_ctl)" -D "$DIR/data" -m fast -w stop >&2
    ;;
resume)
    DIR="${2:-${STRATA_POSTGRES_DIR:-}}"
    [ -n "$DIR" ] && [ -f "$DIR/port" ] || { echo "no paused server folder to resume" >&2; exit 1; }
    close_inherited
    as_owner "$(find_bin pg_ctl)" -D "$DIR/data" -l "$DIR/server.log" -w \
        -o "$(server_options "$(cat "$DIR/port")" "$DIR")" start >&2
    ;;
*)
    echo "usage: $0 start [DIR] | stop [DIR] | restart [DIR] | pause DIR | resume DIR" >&2
    exit 2
    ;;
esac
