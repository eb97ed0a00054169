#!/usr/bin/env bash
# SQLite, OLTP style (sqlite3 CLI, WAL mode): a ROWS-row account table
# (default 40 000) and a history table, then ROUNDS transactions that move
# money between random accounts and append history rows, with periodic
# checkpoints.
. "$(dirname "$0")/common.sh"
need sqlite3 sqlite3
VERSIONS="sqlite3 $(sqlite3 --version | cut -d" " -f1)"
ROUNDS=${ROUNDS:-3000}
SIZE=${SIZE:-256MiB}
SQL="$RUN/sqlite-oltp.sql"
oltp_sql "$ROUNDS" "${ROWS:-40000}" > "$SQL"
capture sqlite "$SIZE" sh -c "sqlite3 oltp.db < '$SQL' && sqlite3 oltp.db 'SELECT count(*), sum(bal) FROM acct' >&2"
