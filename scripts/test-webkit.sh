#!/usr/bin/env bash
# The app in WebKit (test/webkit/): installs Debian's webkit2gtk-driver (WebKitWebDriver and
# MiniBrowser) and Xvfb if missing, builds the app, runs the WebKit test alone (it starts its own
# radosgw unless CAIRN_S3_ENV names one). `npm test` runs it too.
set -euo pipefail
cd "$(dirname "$0")/.."
need=()
command -v WebKitWebDriver >/dev/null || need+=(webkit2gtk-driver)
command -v Xvfb >/dev/null || need+=(xvfb)
if [ ${#need[@]} -gt 0 ]; then
  sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q >&2
  $sudo apt-get install -y -q --no-install-recommends "${need[@]}" >&2
fi
npm run --silent build:app
npx vitest run --config test/webkit/vitest.config.ts
