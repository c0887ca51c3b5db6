#!/usr/bin/env bash
# Runs the README's test command N times in a row, each time in a fresh clone of a commit, as a
# new contributor (or CI) would, and prints pass/fail per run with the names of the tests that
# failed. A suite that passes here under load passes on a fresh machine.
#
#   scripts/soak.sh [--runs N] [--load] [--commit REF] [--dir DIR]
#
# --runs N      how many runs (default 3)
# --load        a busy loop on one core for the whole of each run (a loaded 2-core machine)
# --commit REF  what to clone (default HEAD; commit first: uncommitted changes are not tested)
# --dir DIR     where the clones, their temporary folders and the logs go (default a new folder
#               under /tmp). Its file system should be ext4: ext4 lists a folder in hash order,
#               not in creation order, which is what catches tests that depend on the order.
# Exit status: 0 when every run passed.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=3 load=0 commit=HEAD dir=
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --load) load=1; shift ;;
    --commit) commit=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "soak.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
sha=$(git rev-parse --verify "$commit^{commit}")
[ -n "$dir" ] || dir=$(mktemp -d /tmp/cairn-soak.XXXXXX)
mkdir -p "$dir"
fs=$(stat -f -c %T "$dir")
[ "$fs" = ext2/ext3 ] || echo "soak.sh: $dir is on $fs, not ext4: listing-order flakes may not show" >&2
echo "soak: $runs run(s) of commit ${sha:0:12} in $dir$([ $load = 1 ] && echo ', one core busy')"

hog=
stop_hog() { [ -z "$hog" ] || kill "$hog" 2>/dev/null || true; hog=; }
trap stop_hog EXIT

# The names of the tests that failed, from the log of one run (vitest, Playwright).
failures() {
  grep -E '^ *(FAIL|×|✘) |^ +[0-9]+\) \[|^ *\[chromium\] › .*(failed|✘)' "$1" | sed -E 's/\x1b\[[0-9;]*m//g' | sort -u | head -40 || true
}

failed=0
for i in $(seq 1 "$runs"); do
  work="$dir/run-$i"
  rm -rf "$work"
  git clone --quiet --no-hardlinks "$PWD" "$work/repo"
  git -C "$work/repo" checkout --quiet "$sha"
  mkdir -p "$work/tmp"
  if [ $load = 1 ]; then
    sh -c 'while :; do :; done' &
    hog=$!
  fi
  t0=$(date +%s)
  set +e
  (cd "$work/repo" && CI=true TMPDIR="$work/tmp" bash -c 'npm ci --no-audit --no-fund && npm test') </dev/null >"$work/log" 2>&1
  rc=$?
  set -e
  stop_hog
  took=$(( $(date +%s) - t0 ))
  if [ $rc = 0 ]; then
    echo "run $i: pass in ${took} s"
  else
    failed=$((failed + 1))
    echo "run $i: FAIL (exit $rc) in ${took} s; log: $work/log"
    failures "$work/log" | sed 's/^/    /'
  fi
done
echo "soak: $((runs - failed)) of $runs passed"
[ $failed = 0 ]
