#!/usr/bin/env bash
# The app in Firefox ESR (test/firefox/): installs firefox-esr from Debian if missing, builds
# the app, runs the Firefox test alone. `npm test` runs it too, as its last step.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v firefox-esr >/dev/null; then
  sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q >&2
  $sudo apt-get install -y -q --no-install-recommends firefox-esr >&2
fi
npm run --silent build:app
npx vitest run --config test/firefox/vitest.config.ts
