#!/usr/bin/env bash
# Builds a current SQLite as a shared library, for the second pass of `.ci/run` (issue 69): the
# SQLite3 Multiple Ciphers amalgamation (SQLite 3.54.0 plus an encryption layer, SQLCipher's
# format among its ciphers) from PyPI's apsw-sqlite3mc source distribution.
#
#   .ci/current-sqlite.sh            prints the folder holding libsqlite3.so.0 (built once, reused)
#
# Why this source: sqlite.org is not reachable from CI, PyPI is. Why not `pip download`: pip runs
# the sdist's setup, which fetches from sqlite.org and hangs; the sdist is fetched from PyPI's file
# host directly and checked against the sha256 PyPI's simple index lists.
#
# The compile options are Debian 12's (`PRAGMA compile_options` of its sqlite3), so the suite
# sees the same SQLite features on both libraries, plus SQLITE_ENABLE_SNAPSHOT (WAL snapshots,
# which Debian leaves out). Serialization is built in since 3.36 (no ENABLE_DESERIALIZE needed).
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION="3.54.0.0"
URL="https://files.pythonhosted.org/packages/db/8f/bca0cdff784541de327f61b055efad355b14d390b36615548715dc6e9d55/apsw_sqlite3mc-${VERSION}.tar.gz"
SHA256="60a021cd9f6c8f3e2aa6cb54e197cb344379d5eb9a688b7647a136fc24956db4"
CACHE="${STRATA_SQLITE_CACHE:-$PWD/.sqlite-current}"
LIB="$CACHE/libsqlite3.so.0"

if [ -f "$LIB" ] && [ -f "$CACHE/.built-from" ] && [ "$(cat "$CACHE/.built-from")" = "$SHA256" ]; then
    echo "$CACHE"
    exit 0
fi

mkdir -p "$CACHE"
TARBALL="$CACHE/apsw_sqlite3mc-${VERSION}.tar.gz"
if [ ! -f "$TARBALL" ] || ! echo "$SHA256  $TARBALL" | sha256sum -c --status; then
    echo "ci: fetching apsw_sqlite3mc-${VERSION}.tar.gz" >&2
    curl -fsSL --retry 3 -o "$TARBALL.part" "$URL"
    mv "$TARBALL.part" "$TARBALL"
fi
if ! echo "$SHA256  $TARBALL" | sha256sum -c --status; then
    echo "ci: apsw_sqlite3mc-${VERSION}.tar.gz does not match its sha256; removed" >&2
    rm -f "$TARBALL"
    exit 1
fi

# Only the amalgamation: sqlite3.c holds SQLite's own sqlite3.h inline.
tar -xzf "$TARBALL" -C "$CACHE" --strip-components=2 "apsw_sqlite3mc-${VERSION}/sqlite3/sqlite3.c"

echo "ci: building libsqlite3.so.0 (SQLite 3.54.0, sqlite3mc) in $CACHE" >&2
# Debian 12's options (less COMPILER, and the values SQLite defaults to anyway), then ours.
# Debian lists DEFAULT_RECURSIVE_TRIGGERS but its `PRAGMA recursive_triggers` answers 0: so =0
# here (with 1, a REPLACE fires delete triggers, and the FTS5 and IVF REPLACE tests see it).
# TEMP_STORE is left to sqlite3mc's default (2: temporary data in memory), so temporary tables
# of an encrypted database never reach the disk unencrypted.
OPTIONS=(
    -DSQLITE_THREADSAFE=1 -DSQLITE_USE_URI=1 -DSQLITE_DEFAULT_AUTOVACUUM=0
    -DSQLITE_DEFAULT_RECURSIVE_TRIGGERS=0 -DSQLITE_DEFAULT_WAL_SYNCHRONOUS=2
    -DSQLITE_ENABLE_COLUMN_METADATA -DSQLITE_ENABLE_DBSTAT_VTAB
    -DSQLITE_ENABLE_FTS3 -DSQLITE_ENABLE_FTS3_PARENTHESIS -DSQLITE_ENABLE_FTS3_TOKENIZER
    -DSQLITE_ENABLE_FTS4 -DSQLITE_ENABLE_FTS5 -DSQLITE_ENABLE_LOAD_EXTENSION
    -DSQLITE_ENABLE_MATH_FUNCTIONS -DSQLITE_ENABLE_PREUPDATE_HOOK -DSQLITE_ENABLE_RTREE
    -DSQLITE_ENABLE_SESSION -DSQLITE_ENABLE_STMTVTAB -DSQLITE_ENABLE_UNLOCK_NOTIFY
    -DSQLITE_ENABLE_UPDATE_DELETE_LIMIT -DSQLITE_LIKE_DOESNT_MATCH_BLOBS
    -DSQLITE_MALLOC_SOFT_LIMIT=1024 -DSQLITE_MAX_SCHEMA_RETRY=25
    -DSQLITE_MAX_VARIABLE_NUMBER=250000 -DSQLITE_MAX_EXPR_DEPTH=1000
    -DSQLITE_OMIT_LOOKASIDE -DSQLITE_SECURE_DELETE -DSQLITE_SOUNDEX -DSQLITE_HAVE_ISNAN
    -DSQLITE_ENABLE_SNAPSHOT
)
gcc -O2 -fPIC -shared -Wl,-soname,libsqlite3.so.0 "${OPTIONS[@]}" \
    -o "$LIB.part" "$CACHE/sqlite3.c" -lpthread -ldl -lm
rm -f "$CACHE/sqlite3.c"

# The symbols Strata looks up at run time must be there, or the second pass tests nothing new.
# (nm's list is read whole first: `grep -q` closing the pipe early fails it under pipefail.)
EXPORTED="$(nm -D --defined-only "$LIB.part")"
for symbol in sqlite3_key sqlite3_key_v2 sqlite3_rekey sqlite3_rekey_v2 sqlite3_snapshot_get sqlite3_snapshot_open; do
    if ! grep -qw "$symbol" <<< "$EXPORTED"; then
        echo "ci: the SQLite built from apsw_sqlite3mc-${VERSION} does not export $symbol" >&2
        rm -f "$LIB.part"
        exit 1
    fi
done
mv "$LIB.part" "$LIB"
ln -sf libsqlite3.so.0 "$CACHE/libsqlite3.so"
echo "$SHA256" > "$CACHE/.built-from"
echo "$CACHE"
