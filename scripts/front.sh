#!/usr/bin/env bash
# Reverie behind nginx on this machine (`make run-front`): SERVERS Reverie servers on free
# loopback ports, all on one data directory, and Debian's nginx in front of them with
# deploy/nginx/reverie.conf.template: HTTPS and HTTP/2, the web app's files, media sent by nginx
# (at signed addresses, or X-Accel-Redirect), the limits Vapor lacks. Stops everything on Ctrl-C or TERM, or when nginx
# or the last server stops; HUP renews the certificate and reloads nginx.
#
#   scripts/front.sh [--servers N] [--host H] [--port P] [--tls-port P] [--data-dir D] [--web-dir W]
#
# Builds nothing: REVERIE_BINARY names the server (default .build/release/reverie, which
# `make run-front` builds first). Port 0 picks a free one. Several servers need PostgreSQL
# (DATABASE_URL), which they share, as they share the data directory.
#
# When everything answers it prints, for people and for tests to wait on:
#   Reverie front is serving http://H:P and https://H:T
#
# Environment (all optional):
#   DATABASE_URL                  passed to every server (SQLite in the data directory without it)
#   REVERIE_TLS_CERT, REVERIE_TLS_KEY   your own certificate chain and key for nginx; without
#                                 them `reverie tls issue` makes <data>/tls/server.crt and .key
#                                 from Reverie's local authority (<data>/tls/ca.crt);
#                                 REVERIE_TLS_NAMES adds names to it
#   REVERIE_MAX_BODY_BYTES, REVERIE_MAX_UPLOAD_BYTES   the servers' limits, which nginx applies too
#   FRONT_HEADER_TIMEOUT (10s), FRONT_BODY_TIMEOUT (60s), FRONT_IDLE_TIMEOUT (60s),
#   FRONT_SEND_TIMEOUT (60s)      nginx's client_header/client_body/keepalive/send timeouts
#   FRONT_CONNECTIONS_PER_ADDRESS (128), FRONT_WORKER_CONNECTIONS (20480, fewer when
#                                 the open-file limit is lower)   connection limits
#   FRONT_MEDIA (signed)          how media reaches players: `signed`, a redirect to a signed
#                                 address nginx serves alone (the secret: <data>/front/media.key),
#                                 or `accel`, every read through Reverie, which answers
#                                 X-Accel-Redirect (Benchmarks/front.py measures both)
#   NGINX                         the nginx binary (default /usr/sbin/nginx)

set -euo pipefail
shopt -u patsub_replacement 2>/dev/null || true  # a `&` in a path stays a `&` when the template is filled

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TEMPLATE="$ROOT/deploy/nginx/reverie.conf.template"

servers="${SERVERS:-1}"
host=127.0.0.1
port=8080
tls_port=8443
data="${REVERIE_DATA_DIR:-data}"
web="${REVERIE_WEB_DIR:-$ROOT/Web}"

fail() { echo "front: $*" >&2; exit 1; }
usage() { sed -n '2,/^$/{s/^# \{0,1\}//;p}' "$0"; exit "${1:-0}"; }

while [ $# -gt 0 ]; do
  case "$1" in
    --servers) servers="$2"; shift 2 ;;
    --host) host="$2"; shift 2 ;;
    --port) port="$2"; shift 2 ;;
    --tls-port) tls_port="$2"; shift 2 ;;
    --data-dir) data="$2"; shift 2 ;;
    --web-dir) web="$2"; shift 2 ;;
    -h|--help) usage 0 ;;
    *) echo "front: unknown argument '$1'" >&2; usage 2 ;;
  esac
done

# MARK: - What it needs

binary="${REVERIE_BINARY:-$ROOT/.build/release/reverie}"
nginx="${NGINX:-/usr/sbin/nginx}"
[ -x "$binary" ] || fail "$binary is missing: run \`make run-front\` (it builds it), or set REVERIE_BINARY"
[ -x "$nginx" ] || fail "nginx is missing: \`apt-get install nginx-core\` (Debian's build has ssl, http_v2 and gzip_static)"
[[ "$servers" =~ ^[1-9][0-9]*$ ]] || fail "--servers takes a number from 1, not '$servers'"
for p in "$port" "$tls_port"; do [[ "$p" =~ ^[0-9]+$ ]] || fail "a port is a number, not '$p'"; done
database="${DATABASE_URL:-}"
if [ "$servers" -gt 1 ] && [[ ! "$database" =~ ^postgres(ql)?:// ]]; then
  fail "$servers servers need one PostgreSQL to share (DATABASE_URL=postgres://user:password@host:5432/reverie): SQLite is one server's file"
fi
[ -f "$web/index.html" ] || fail "no web app in $web (--web-dir)"

mkdir -p "$data"
data="$(cd "$data" && pwd)"
web="$(cd "$web" && pwd)"
run="$data/front"
mkdir -p "$run/temp"

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
[ "$port" = 0 ] && port="$(free_port)"
[ "$tls_port" = 0 ] && tls_port="$(free_port)"
[ "$port" != "$tls_port" ] || fail "--port and --tls-port must differ"

# MARK: - Stopping

pids=()
nginx_pid=""
stop() {
  trap - INT TERM HUP EXIT
  local pid
  for pid in $nginx_pid "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in $nginx_pid "${pids[@]}"; do
    for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  wait 2>/dev/null || true
}
trap 'stop; exit 130' INT
trap 'stop; exit 143' TERM
trap stop EXIT

# MARK: - The certificate nginx serves

cert="${REVERIE_TLS_CERT:-}"
key="${REVERIE_TLS_KEY:-}"
issue() {
  local paths
  paths="$("$binary" tls issue --data-dir "$data")" || fail "\`reverie tls issue --data-dir $data\` failed"
  cert="$(sed -n 1p <<<"$paths")"
  key="$(sed -n 2p <<<"$paths")"
  [ -f "$cert" ] && [ -f "$key" ] || fail "\`reverie tls issue\` printed no certificate and key: $paths"
}
if [ -z "$cert" ] || [ -z "$key" ]; then
  [ -z "$cert$key" ] || fail "REVERIE_TLS_CERT and REVERIE_TLS_KEY go together"
  issue
  own_certificate=0
else
  own_certificate=1
fi

# MARK: - Media: at signed addresses (the default) or handed over (FRONT_MEDIA=accel)

# The secret nginx checks signed media addresses with, and the servers sign them with: made once
# and kept, so addresses handed out stay good across a restart. Readable by this user only.
media_key="$run/media.key"
if [ ! -s "$media_key" ]; then
  (umask 077; head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$media_key.new" && mv "$media_key.new" "$media_key")
fi
media_mode="${FRONT_MEDIA:-signed}"
case "$media_mode" in
  signed) server_media=(REVERIE_FRONT_MEDIA_KEY_FILE="$media_key") ;;
  accel) server_media=() ;;
  *) fail "FRONT_MEDIA is signed or accel, not '$media_mode'" ;;
esac

# MARK: - The Reverie servers, one after another (the first runs the migrations)

upstreams=""
declare -A names
for i in $(seq 1 "$servers"); do
  log="$run/server-$i.log"
  : >"$log"  # there before the server opens it, for the wait below
  env REVERIE_FRONT=127.0.0.1 REVERIE_TLS=off "${server_media[@]}" "$binary" serve --host 127.0.0.1 --port 0 --data-dir "$data" --web-dir "$web" \
    >"$log" 2>&1 &
  pids+=("$!")
  names[$!]="Reverie server $i"
  address=""
  for _ in $(seq 1 1200); do
    address="$(sed -n 's|.*serving http://\(127\.0\.0\.1:[0-9]*\).*|\1|p' "$log" | head -1 || true)"
    [ -n "$address" ] && break
    kill -0 "${pids[-1]}" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$address" ] || fail "Reverie server $i did not start (its log, $log):
$(tail -20 "$log")"
  echo "Reverie server $i is at http://$address (log: $log)"
  upstreams+="        server $address;"$'\n'
done

# MARK: - nginx's configuration, from the template

# Enough for one worker alone to hold 20,000 idle keep-alive connections and still take new
# clients (Benchmarks/front.py holds them): workers need not share them evenly, and a machine may
# have one core. About 9 MiB of connection structures per worker.
connections="${FRONT_WORKER_CONNECTIONS:-20480}"
descriptors=$((connections * 2 + 64))
# A proxied request holds two descriptors and a file sent holds one: raise the limit if this user
# may (root with CAP_SYS_RESOURCE, or a hard limit above it).
ulimit -n "$descriptors" 2>/dev/null || ulimit -Sn "$(ulimit -Hn)" 2>/dev/null || true
hard="$(ulimit -Hn)"
# Connections gather on one worker (accept_mutex) only where it may hold them all; under a lower
# limit they are spread over the workers, so that together they hold them.
accept_mutex=on
if [ "$hard" != unlimited ] && [ "$hard" -lt "$descriptors" ]; then
  descriptors="$hard"
  accept_mutex=off
  echo "front: connections spread over nginx's workers (one cannot hold them all under the open-file limit of $hard)"
  # Fewer connections than descriptors: a full worker then closes idle keep-alive connections to
  # take new ones ("worker_connections are not enough, reusing connections") rather than failing
  # accept() for want of descriptors.
  if [ "$connections" -gt $((hard * 3 / 4)) ]; then
    connections=$((hard * 3 / 4))
    echo "front: $connections connections per nginx worker, to fit the open-file limit of $hard (ulimit -Hn)"
  fi
fi
listen_host="$host"
[[ "$host" == *:* ]] && listen_host="[$host]"
# Workers read the data directory and the key: as root, they stay root (nginx would make them nobody).
user_directive=""
[ "$(id -u)" = 0 ] && user_directive="user root;"

config="$(cat "$TEMPLATE")"
fill() { config="${config//@$1@/$2}"; }
fill USER_DIRECTIVE "$user_directive"
fill RLIMIT_NOFILE "$descriptors"
fill RUN_DIR "$run"
fill WORKER_CONNECTIONS "$connections"
fill ACCEPT_MUTEX "$accept_mutex"
fill HEADER_TIMEOUT "${FRONT_HEADER_TIMEOUT:-10s}"
fill BODY_TIMEOUT "${FRONT_BODY_TIMEOUT:-60s}"
fill IDLE_TIMEOUT "${FRONT_IDLE_TIMEOUT:-60s}"
fill SEND_TIMEOUT "${FRONT_SEND_TIMEOUT:-60s}"
fill MAX_BODY "${REVERIE_MAX_BODY_BYTES:-1048576}"
fill MAX_UPLOAD "${REVERIE_MAX_UPLOAD_BYTES:-4294967296}"
fill CONNECTIONS_PER_ADDRESS "${FRONT_CONNECTIONS_PER_ADDRESS:-128}"
fill TLS_CERT "$cert"
fill TLS_KEY "$key"
fill UPSTREAM_SERVERS "${upstreams%$'\n'}"
fill HOST "$listen_host"
fill HTTP_PORT "$port"
fill TLS_PORT "$tls_port"
fill WEB_DIR "$web"
fill DATA_DIR "$data"
fill CONF_DIR "$ROOT/deploy/nginx"
fill MEDIA_KEY "$(cat "$media_key")"
left="$(grep -o '@[A-Z_]*@' <<<"$config" | sort -u | tr '\n' ' ')" || true
[ -z "$left" ] || fail "the template has placeholders this script does not fill: $left"
(umask 077; printf '%s\n' "$config" >"$run/nginx.conf")  # it holds the media secret

"$nginx" -t -q -p "$run/" -c "$run/nginx.conf" -e "$run/error.log" 2>"$run/nginx-check.log" \
  || fail "nginx refused $run/nginx.conf: $(cat "$run/nginx-check.log")"

# MARK: - nginx in the foreground (a child of this script), then the addresses

"$nginx" -p "$run/" -c "$run/nginx.conf" -e "$run/error.log" -g "daemon off;" &
nginx_pid=$!
# The status nginx answers for /api/health (through to a server), or nothing yet.
health() {
  python3 -c 'import http.client, sys
try:
    connection = http.client.HTTPConnection(sys.argv[1], int(sys.argv[2]), timeout=2)
    connection.request("GET", "/api/health")
    print(connection.getresponse().status)
except OSError:
    pass' "$1" "$2"
}
probe="$host"
case "$host" in 0.0.0.0|::|127.*|::1|localhost) probe=127.0.0.1 ;; esac
ready=""
# A deadline on the wall clock, not a count of tries: on a busy machine each try (a Python start
# and a request) can take seconds, and a server behind nginx may still be starting.
deadline=$(( $(date +%s) + 120 ))
while [ "$(date +%s)" -le "$deadline" ]; do
  kill -0 "$nginx_pid" 2>/dev/null || break
  # 301: another device's plain HTTP is sent to HTTPS.
  case "$(health "$probe" "$port")" in 200|301) ready=1; break ;; esac
  sleep 0.1
done
[ -n "$ready" ] || fail "nginx did not answer on port $port ($run/error.log):
$(tail -20 "$run/error.log" 2>/dev/null)"

shown="$host"
case "$host" in
  0.0.0.0|::) shown="$(hostname -I 2>/dev/null | awk '{print $1}')"; shown="${shown:-$(hostname)}" ;;
esac
[[ "$shown" == *:* ]] && shown="[$shown]"
echo "Reverie front is serving http://$shown:$port and https://$shown:$tls_port"
echo "nginx: $run/nginx.conf (logs: $run/access.log, $run/error.log)"
[ "$own_certificate" = 1 ] || echo "HTTPS from Reverie's local authority, $data/tls/ca.crt: each device trusts it once, as /welcome shows"
echo "Stop with Ctrl-C."

# MARK: - Running: a renewal on HUP; the end when nginx ends or no server is left

renew() {
  if [ "$own_certificate" = 0 ]; then issue; fi
  kill -HUP "$nginx_pid" 2>/dev/null || true
  echo "front: certificate renewed, nginx reloaded"
}
trap renew HUP
# A server that stops leaves the others serving (nginx sends its requests to them).
alive=("${pids[@]}")
while true; do
  wait -n "$nginx_pid" "${alive[@]}" && status=0 || status=$?
  kill -0 "$nginx_pid" 2>/dev/null || fail "nginx stopped (status $status); stopping the servers"
  left=()
  for pid in "${alive[@]}"; do
    if kill -0 "$pid" 2>/dev/null; then
      left+=("$pid")
    else
      echo "front: ${names[$pid]} stopped (status $status)" >&2
    fi
  done
  alive=("${left[@]}")
  [ "${#alive[@]}" -gt 0 ] || fail "no Reverie server is left; stopping nginx"
done
