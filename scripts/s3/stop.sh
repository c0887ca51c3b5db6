#!/usr/bin/env bash
# Stops a cluster started by scripts/s3/start.sh: signals only the PIDs recorded in D/pids (and
# only while they still run with D's ceph.conf, so a reused PID is never hit). One at a time in
# reverse start order (radosgw, OSD, mon): an OSD whose mon is already gone lingers on SIGTERM,
# one stopped before its mon exits in ~0.1 s. Each gets ~3 s, then SIGKILL. Total ~0.6 s.
#   scripts/s3/stop.sh --dir D [--rm]      (--rm also deletes D)
set -uo pipefail

dir=${CAIRN_S3_DIR:-}
rm_dir=0
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir=$2; shift 2 ;;
    --rm) rm_dir=1; shift ;;
    *) echo "stop.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$dir" ] || { echo "stop.sh: --dir is required" >&2; exit 2; }
[ -d "$dir" ] || { echo "stop.sh: no such directory $dir" >&2; exit 1; }
dir=$(cd "$dir" && pwd)

ours() { tr '\0' ' ' 2>/dev/null < "/proc/$1/cmdline" | grep -qF -- "$dir/ceph.conf"; }

stop_one() {
  local pid=$1
  ours "$pid" || return 0
  kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 60); do ours "$pid" || return 0; sleep 0.05; done
  kill -KILL "$pid" 2>/dev/null
  for _ in $(seq 40); do ours "$pid" || return 0; sleep 0.05; done
  echo "stop.sh: process $pid did not exit" >&2
}

if [ -f "$dir/pids" ]; then
  for pid in $(awk '{print $1}' "$dir/pids" | tac); do stop_one "$pid"; done
  rm -f "$dir/pids"
fi
if [ "$rm_dir" = 1 ]; then rm -rf "$dir"; fi
exit 0
