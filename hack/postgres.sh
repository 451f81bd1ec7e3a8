#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on 127.0.0.1 for tests and benchmarks.
#
#   hack/postgres.sh start DIR   # prints a superuser URL on stdout
#   hack/postgres.sh stop DIR
#
# The cluster lives in DIR (created, and owned by the postgres user when
# run as root, since PostgreSQL refuses to run as root). Durability is off:
# nothing here needs to survive a crash.
set -euo pipefail

command=${1:?usage: hack/postgres.sh start|stop DIR}
dir=${2:?usage: hack/postgres.sh start|stop DIR}

bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
if [[ -z $bin ]]; then
  echo "PostgreSQL is not installed; installing it from Debian's packages" >&2
  apt-get install -y -q postgresql >&2
  bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
fi

as_owner() {
  if [[ $(id -u) == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case $command in
  start)
    mkdir -p "$dir"
    if [[ $(id -u) == 0 ]]; then chown postgres: "$dir"; fi
    password=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
    printf '%s\n' "$password" > "$dir/pwfile"
    if [[ $(id -u) == 0 ]]; then chown postgres: "$dir/pwfile"; fi
    as_owner "$bin/initdb" -D "$dir/data" -U postgres --pwfile="$dir/pwfile" \
      --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log"
    rm -f "$dir/pwfile"
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 60 \
      -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
      start >&2
    echo "postgres://postgres:$password@127.0.0.1:$port/postgres?sslmode=disable"
    ;;
  stop)
    if [[ -d $dir/data ]]; then
      as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >&2 || true
    fi
    rm -rf "$dir"
    ;;
  *)
    echo "usage: hack/postgres.sh start|stop DIR" >&2
    exit 2
    ;;
esac
