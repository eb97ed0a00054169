#!/usr/bin/env bash
# PostgreSQL 15 with pgbench (TPC-B-like) on a live device: the cluster's
# data directory is on the mounted file system. initdb, the server started
# with pg_ctl (as the postgres user, its socket in the data's folder, no
# TCP), `pgbench -i -s SCALE` (default 5, about 75 MB of tables), then
# CLIENTS (default 4) clients of TXNS transactions each (default 2500),
# then the server stopped (a shutdown checkpoint). Small settings so that
# checkpoints and the background writer run within the capture:
# shared_buffers 16 MB, max_wal_size 64 MB, checkpoint_timeout 30 s.
# A write-buffered server: the backends write WAL at commit, but table
# pages reach the file from shared buffers through the checkpointer and the
# background writer, so a page's PC is the flusher's, not the query's (the
# PCStream paper's point about such servers). Needs the Debian packages
# postgresql (postgresql-15: the server and pgbench), and root (the server
# runs as postgres via runuser, which keeps LD_PRELOAD).
. "$(dirname "$0")/common.sh"
PG=${PG:-/usr/lib/postgresql/15/bin}
[ -x "$PG/postgres" ] || { echo "no PostgreSQL 15 in $PG: apt-get install postgresql" >&2; exit 2; }

need runuser util-linux
id postgres >/dev/null 2>&1 || { echo "no postgres user: apt-get install postgresql" >&2; exit 2; }
VERSIONS="$("$PG/postgres" --version); $("$PG/pgbench" --version)"
SIZE=${SIZE:-256MiB}
SCALE=${SCALE:-5}
CLIENTS=${CLIENTS:-4}
TXNS=${TXNS:-2500}
cat > "$RUN/postgres-run.sh" <<SCRIPT
set -e
# The server runs as postgres: it must reach the mount and append to the
# capture log (created by root).
chmod 666 "\$FTLSIM_CAPTURE_OUT"
mkdir pg && chown postgres: pg
as_pg() { runuser -u postgres -- "\$@"; }
as_pg $PG/initdb -D pg/data -A trust -U postgres >/dev/null
as_pg $PG/pg_ctl -D pg/data -l pg/server.log -w \\
    -o "-k \$PWD/pg -c listen_addresses='' -c shared_buffers=16MB -c max_wal_size=64MB -c min_wal_size=32MB -c checkpoint_timeout=30s" start >/dev/null
trap 'as_pg $PG/pg_ctl -D pg/data -m fast stop >/dev/null 2>&1 || true' EXIT
as_pg $PG/pgbench -h \$PWD/pg -U postgres -i -q -s $SCALE postgres
as_pg $PG/pgbench -h \$PWD/pg -U postgres -c $CLIENTS -j 2 -t $TXNS postgres | grep -E '^(tps|number of transactions actually)' >&2
as_pg $PG/pg_ctl -D pg/data -m fast stop >/dev/null
trap - EXIT
SCRIPT
capture postgres "$SIZE" sh "$RUN/postgres-run.sh"
