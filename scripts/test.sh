#!/usr/bin/env bash
# Every test, from a fresh clone after `npm ci`: installs what is missing (restic, Chromium,
# Firefox ESR, WebKitGTK, Ceph), type-checks, builds the CLI and the app, starts a throwaway radosgw
# for the whole run, runs the unit/interop/S3 suites (vitest), the end-to-end suites (Playwright),
# the app in Firefox (puppeteer-core) and in WebKit (WebDriver), and
# stops the server again — also when something fails.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
bash scripts/ensure-deps.sh

echo "== typecheck"
npm run --silent typecheck

echo "== lint (ESLint, Prettier)"
npm run --silent lint

echo "== build"
node scripts/build-cli.mjs --quiet
[ -f vite.config.ts ] && npm run --silent build:app

echo "== S3 server (radosgw)"
s3dir=$(mktemp -d /tmp/cairn-test-s3.XXXXXX)
cleanup() { bash scripts/s3/stop.sh --dir "$s3dir" --rm >/dev/null 2>&1 || true; }
trap cleanup EXIT
s3origins="http://localhost:4173,http://127.0.0.1:4173,http://localhost:4174,http://localhost:4176,http://127.0.0.1:4176,http://localhost:5173"
# A cluster that fails to come up (seen on a loaded machine: the monitor refusing `osd new`)
# is removed and started once more in a fresh directory.
if ! bash scripts/s3/start.sh --dir "$s3dir" --quiet --origin "$s3origins"; then
  echo "radosgw did not start; starting a fresh cluster once more"
  cleanup
  s3dir=$(mktemp -d /tmp/cairn-test-s3.XXXXXX)
  bash scripts/s3/start.sh --dir "$s3dir" --quiet --origin "$s3origins"
fi
export CAIRN_S3_ENV="$s3dir/env.json"

echo "== unit, interop and S3 tests"
npx vitest run

# The browser suites serve the app on fixed ports (the bucket's CORS rule names them): a second
# test run on the same machine (scripts/soak.sh beside a developer's run) waits here for its turn.
exec 8>/tmp/cairn-e2e.lock
flock 8

echo "== end-to-end tests: the engine in Chromium workers (harness page)"
npx playwright test -c test/e2e/harness/playwright.config.ts

echo "== end-to-end tests: the app"
npx playwright test

echo "== end-to-end tests: the app in Firefox ESR"
npx vitest run --config test/firefox/vitest.config.ts

echo "== end-to-end tests: the app in WebKit (WebKitGTK MiniBrowser over WebDriver)"
npx vitest run --config test/webkit/vitest.config.ts
echo "== all tests passed in $(( $(date +%s) - started )) s"
