#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests and benchmarks: installs the server with apt-get when
# it is missing, creates a cluster in a new temporary directory (initdb), starts it on a Unix
# socket inside that directory plus a loopback port (pg_ctl), and stops and deletes it again.
# The server runs as the `postgres` user (PostgreSQL refuses to run as root); when the script
# itself is not root, as the current user.
#
#   eval "$(scripts/postgres-cluster.sh start)"   # prints the exports below; the cluster runs
#   psql "$CORESTORE_POSTGRES_URL" -c 'select 1'
#   scripts/postgres-cluster.sh stop "$CORESTORE_POSTGRES_DIR"
#
# `start` prints: CORESTORE_POSTGRES_DIR (the cluster's directory), CORESTORE_POSTGRES_URL
# (postgres://USER@127.0.0.1:PORT/corestore, trust authentication on loopback and the socket
# only) and PGHOST/PGPORT/PGUSER/PGDATABASE for psql.
set -euo pipefail

install_server() {
  local bindir
  bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
    echo "Installing: postgresql" >&2
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >/dev/null
    bindir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
  fi
  echo "$bindir"
}

# Runs a command as the cluster's owner.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

start() {
  local bindir dir port owner
  bindir=$(install_server)
  dir=$(mktemp -d /tmp/corestore-pg.XXXXXX)
  owner=$(id -un)
  if [ "$(id -u)" -eq 0 ]; then
    owner=postgres
    chown postgres:postgres "$dir"
  fi
  chmod 700 "$dir"
  port=$(free_port)
  as_owner "$bindir/initdb" -D "$dir/data" -U "$owner" --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; exit 1; }
  as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=on -c max_connections=200" start >/dev/null ||
    { cat "$dir/server.log" >&2; exit 1; }
  as_owner "$bindir/createdb" -h "$dir" -p "$port" -U "$owner" corestore
  cat <<EOF
export CORESTORE_POSTGRES_DIR='$dir'
export CORESTORE_POSTGRES_URL='postgres://$owner@127.0.0.1:$port/corestore'
export PGHOST='$dir' PGPORT='$port' PGUSER='$owner' PGDATABASE='corestore'
EOF
}

stop() {
  local dir="${1:?stop needs the cluster directory}" bindir
  [ -d "$dir/data" ] || { echo "no cluster in $dir" >&2; exit 1; }
  bindir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
  as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
  rm -rf "$dir"
}

case "${1:-}" in
  start) start ;;
  stop) stop "${2:-}" ;;
  *) echo "usage: $0 start | stop DIR" >&2; exit 2 ;;
esac
