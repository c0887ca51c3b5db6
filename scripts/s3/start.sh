#!/usr/bin/env bash
# Starts a throwaway single-node Ceph cluster (1 mon, 1 OSD, 1 radosgw) on 127.0.0.1 as a real
# S3 endpoint for development and tests. Everything (conf, data, logs, pids) lives under one
# directory; `scripts/s3/stop.sh --dir D` stops it and `--rm` deletes it.
# Settings and sequence follow /work/shared/s3-test-endpoint.md (each one matters; see there).
#
#   scripts/s3/start.sh [--dir D] [--port P] [--bucket B] [--origin URL[,URL…]]
#                       [--store memstore|bluestore] [--size BYTES] [--watch-pid PID] [--no-install] [--quiet]
# --watch-pid: stop and delete the cluster when that process exits (test runners pass their
# own PID, so a killed test run leaves nothing behind).
# Env equivalents: CAIRN_S3_DIR, CAIRN_S3_PORT, CAIRN_S3_BUCKET, CAIRN_S3_ORIGIN, CAIRN_S3_STORE,
# CAIRN_S3_SIZE. Prints the endpoint and writes D/env.json and D/env (KEY=VALUE lines).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
dir=${CAIRN_S3_DIR:-}
port=${CAIRN_S3_PORT:-}
bucket=${CAIRN_S3_BUCKET:-cairn-test}
origin=${CAIRN_S3_ORIGIN:-http://localhost:5173}
store=${CAIRN_S3_STORE:-memstore}
size=${CAIRN_S3_SIZE:-}
install=1
quiet=0
watch_pid=
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    --bucket) bucket=$2; shift 2 ;;
    --origin) origin=$2; shift 2 ;;
    --store) store=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --watch-pid) watch_pid=$2; shift 2 ;;
    --no-install) install=0; shift ;;
    --quiet) quiet=1; shift ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "start.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
case "$store" in memstore|bluestore) ;; *) echo "start.sh: --store must be memstore or bluestore" >&2; exit 2 ;; esac

# Fixed test credentials: this cluster only ever listens on 127.0.0.1 and is thrown away.
access_key=CAIRNTESTACCESSKEY01
secret_key=cairnTestSecretKey0123456789abcdefghijklm
region=us-east-1

say() { [ "$quiet" = 1 ] || echo "$@" >&2; }
t0=$(date +%s.%N)
# CAIRN_S3_TRACE=1 prints how long each start-up phase took.
mark() { [ -z "${CAIRN_S3_TRACE:-}" ] || echo "  $(awk "BEGIN{printf \"%.2f\", $(date +%s.%N)-$t0}") s  $1" >&2; }

have_ceph() { command -v radosgw >/dev/null && command -v ceph-osd >/dev/null && command -v ceph-mon >/dev/null && command -v ceph >/dev/null; }
if ! have_ceph; then
  if [ "$install" = 0 ]; then echo "start.sh: ceph packages missing (run without --no-install)" >&2; exit 1; fi
  # Test files start clusters in parallel: one installs, the others wait for it.
  exec 9>"${TMPDIR:-/tmp}/cairn-s3-install.lock"
  flock 9
  if ! have_ceph; then
    sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
    say "installing ceph-mon ceph-osd radosgw ceph-common (~35 s) ..."
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends ceph-mon ceph-osd radosgw ceph-common >&2
  fi
  exec 9>&-
fi

# Prints N free TCP ports on 127.0.0.1 (one node start for all of them).
free_ports() {
  node -e "const n=require('net');const ss=[];for(let i=0;i<$1;i++){const s=n.createServer();ss.push(new Promise(r=>s.listen(0,'127.0.0.1',()=>r(s))))}
Promise.all(ss).then(a=>{console.log(a.map(s=>s.address().port).join(' '));a.forEach(s=>s.close())})"
}
[ -n "$dir" ] || dir=$(mktemp -d /tmp/cairn-s3.XXXXXX)
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
if [ -f "$dir/pids" ]; then echo "start.sh: $dir already has a cluster (stop it first)" >&2; exit 1; fi
read -r mon_port free < <(free_ports 2)
[ -n "$port" ] || port=$free
fsid=$(cat /proc/sys/kernel/random/uuid)
osd_uuid=$(cat /proc/sys/kernel/random/uuid)
conf=$dir/ceph.conf
mkdir -p "$dir/run" "$dir/log" "$dir/mon/ceph-a" "$dir/osd/ceph-0" "$dir/rgw"

if [ "$store" = memstore ]; then
  store_conf="memstore device bytes = ${size:-4294967296}"
else
  store_conf="bluestore block path = $dir/osd/block
bluestore block create = true
bluestore block size = ${size:-21474836480}
bluestore fsck on mount = false
bluestore cache size = 268435456"
fi

cat > "$conf" <<CONF
[global]
fsid = $fsid
mon host = [v1:127.0.0.1:$mon_port]
public addr = 127.0.0.1
ms bind ipv6 = false
ms bind msgr2 = false
auth cluster required = none
auth service required = none
auth client required = none
osd pool default size = 1
osd pool default min size = 1
mon allow pool size one = true
osd crush chooseleaf type = 0
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon max pg per osd = 1000
mon data avail warn = 1
mon data avail crit = 0
run dir = $dir/run
admin socket = $dir/run/\$name.asok
log file = $dir/log/\$name.log
pid file = $dir/run/\$name.pid
mon data = $dir/mon/ceph-\$id
osd data = $dir/osd/ceph-\$id
osd objectstore = $store
$store_conf

[mon]
paxos propose interval = 0.1

[client.rgw.a]
ms mon client mode = crc
rgw frontends = beast endpoint=127.0.0.1:$port
rgw data = $dir/rgw
rgw enable usage log = false
CONF

endpoint=http://127.0.0.1:$port
pids=$dir/pids
: > "$pids"
fail() {
  echo "start.sh: $1 (logs in $dir/log)" >&2
  tail -n 20 "$dir"/log/*.log 2>/dev/null | sed 's/^/  /' >&2 || true
  "$here/stop.sh" --dir "$dir" >/dev/null 2>&1 || true
  exit 1
}
# wait_for SECONDS DESCRIPTION COMMAND...: polls every 0.05 s.
wait_for() {
  local limit=$1 what=$2; shift 2
  local end=$(( $(date +%s) + limit ))
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$end" ] || fail "timed out waiting for $what"
    sleep 0.05
  done
}
ceph_() { ceph -c "$conf" --connect-timeout 5 "$@"; }
# Cheap probes (the `ceph` CLI is Python and costs ~0.3 s per call).
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
osd_up() { grep -q 'state: booting -> active' "$dir/log/osd.0.log" 2>/dev/null; }
rgw_ready() {
  if command -v curl >/dev/null; then curl -sf --max-time 2 "$endpoint/" | grep -q ListAllMyBucketsResult
  else node "$here/s3-admin.mjs" ready "$endpoint"; fi
}

monmaptool --create --fsid "$fsid" --addv a "[v1:127.0.0.1:$mon_port]" "$dir/monmap" >"$dir/log/setup.log" 2>&1
ceph-mon -c "$conf" -i a --mkfs --monmap "$dir/monmap" >>"$dir/log/setup.log" 2>&1 || fail "ceph-mon --mkfs failed"
ceph-mon -c "$conf" -i a -f >>"$dir/log/mon.out" 2>&1 &
echo "$! mon" >> "$pids"
wait_for 30 "the mon" port_open "$mon_port"
mark "mon up"

ceph_ osd new "$osd_uuid" >>"$dir/log/setup.log" 2>&1 || fail "ceph osd new failed"
ceph-osd -c "$conf" -i 0 --mkfs --osd-uuid "$osd_uuid" >>"$dir/log/setup.log" 2>&1 || fail "ceph-osd --mkfs failed"
mark "osd created"
start_osd() {
  # MALLOC_MMAP_THRESHOLD_ returns freed memory to the system after deletes (memstore keeps
  # objects in RAM).
  MALLOC_MMAP_THRESHOLD_=1048576 ceph-osd -c "$conf" -i 0 -f >>"$dir/log/osd.out" 2>&1 &
  osd_pid=$!
  disown "$osd_pid"  # no "Killed" job notice if a stuck one is restarted
  echo "$osd_pid osd" >> "$pids"
}
# About 1 start in 10 on a loaded machine, the OSD's first mon command goes out before it has
# the monmap ("handle_command on fsid 00000000-…", then "mon_cmd_maybe_osd_create fail: 'wrong
# fsid'") and the OSD never boots. Restarting it helps; waiting does not.
osd_stuck() { grep -q "wrong fsid" "$dir/log/osd.0.log" 2>/dev/null || ! kill -0 "$osd_pid" 2>/dev/null; }
start_osd
for attempt in 1 2 3; do
  end=$(( $(date +%s) + 60 ))
  until osd_up || osd_stuck; do
    [ "$(date +%s)" -lt "$end" ] || fail "timed out waiting for osd.0 up"
    sleep 0.05
  done
  osd_up && break
  [ "$attempt" -lt 3 ] || fail "osd.0 failed to boot 3 times"
  say "osd.0 stuck at boot (attempt $attempt), restarting it"
  kill -KILL "$osd_pid" 2>/dev/null || true
  while kill -0 "$osd_pid" 2>/dev/null; do sleep 0.05; done
  mv "$dir/log/osd.0.log" "$dir/log/osd.0.log.stuck$attempt"
  start_osd
done
mark "osd up"

radosgw -c "$conf" -n client.rgw.a -f >>"$dir/log/rgw.out" 2>&1 &
echo "$! rgw" >> "$pids"
wait_for 60 "radosgw on $endpoint" rgw_ready
mark "radosgw answers"

radosgw-admin -c "$conf" -n client.rgw.a user create --uid=cairn --display-name=cairn \
  --access-key="$access_key" --secret-key="$secret_key" >>"$dir/log/setup.log" 2>&1 || fail "radosgw-admin user create failed"
mark "user created"

cat > "$dir/env.json" <<JSON
{
  "endpoint": "$endpoint",
  "region": "$region",
  "bucket": "$bucket",
  "accessKeyId": "$access_key",
  "secretAccessKey": "$secret_key",
  "origin": "$origin",
  "store": "$store",
  "dir": "$dir",
  "repository": "s3:$endpoint/$bucket"
}
JSON
cat > "$dir/env" <<ENV
CAIRN_S3_ENV=$dir/env.json
CAIRN_S3_ENDPOINT=$endpoint
CAIRN_S3_BUCKET=$bucket
AWS_ACCESS_KEY_ID=$access_key
AWS_SECRET_ACCESS_KEY=$secret_key
AWS_DEFAULT_REGION=$region
RESTIC_REPOSITORY=s3:$endpoint/$bucket
ENV
node "$here/s3-admin.mjs" create-bucket "$dir/env.json" || fail "creating bucket $bucket failed"

if [ -n "$watch_pid" ]; then
  # Detached watchdog: polls the watched process, then stops the cluster and removes $dir.
  nohup bash -c 'while kill -0 "$1" 2>/dev/null && [ -f "$2/pids" ]; do sleep 1; done; [ -f "$2/pids" ] && exec "$3/stop.sh" --dir "$2" --rm' \
    watchdog "$watch_pid" "$dir" "$here" >/dev/null 2>&1 &
  echo "$!" > "$dir/watchdog.pid"
fi

t1=$(date +%s.%N)
say "radosgw ($store) up in $(awk "BEGIN{printf \"%.1f\", $t1-$t0}") s: $endpoint bucket=$bucket origin=$origin"
say "  env: $dir/env.json (and $dir/env); stop: $here/stop.sh --dir $dir"
cat "$dir/env"
