#!/usr/bin/env bash
# Starts or stops a throwaway PostgreSQL server on 127.0.0.1 for the test suite.
#   scripts/throwaway-postgres.sh start DIR   → prints a postgres:// URL; the cluster lives in DIR
#   scripts/throwaway-postgres.sh stop DIR    → stops it and deletes DIR
# Runs the server as the 'postgres' system user when started as root (initdb refuses root).
set -euo pipefail

action=${1:?usage: $0 start|stop DIR}
dir=${2:?usage: $0 start|stop DIR}

bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$bindir" ] || { echo "PostgreSQL is not installed (run scripts/bootstrap.sh test)" >&2; exit 1; }

as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$action" in
  start)
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    rm -rf "$dir"; mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir"
    as_pg "$bindir/initdb" -D "$dir/cluster" -U reverie --auth=trust --encoding=UTF8 --no-locale >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
    as_pg "$bindir/pg_ctl" -D "$dir/cluster" -l "$dir/server.log" -w -t 60 \
      -o "-h 127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
      start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
    echo "$port" > "$dir/port"
    echo "postgres://reverie@127.0.0.1:$port/postgres"
    ;;
  stop)
    if [ -d "$dir/cluster" ]; then
      as_pg "$bindir/pg_ctl" -D "$dir/cluster" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    ;;
  *) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
