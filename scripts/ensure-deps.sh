#!/usr/bin/env bash
# Installs what the tests need from Debian's packages when it is missing: the restic 0.14
# binary (the judge of every repository we write), Chromium (Playwright's browser here —
# browser downloads are impossible), Firefox ESR (the second engine, test/firefox/), WebKitGTK's
# WebDriver with its MiniBrowser and Xvfb (the third engine, test/webkit/) and unzip/python3 for
# archive checks. Ceph (radosgw) is
# installed by scripts/s3/start.sh when the S3 server starts.
set -euo pipefail
need=()
command -v restic >/dev/null || need+=(restic)
command -v chromium >/dev/null || need+=(chromium)
command -v firefox-esr >/dev/null || need+=(firefox-esr)
command -v WebKitWebDriver >/dev/null || need+=(webkit2gtk-driver)
command -v Xvfb >/dev/null || need+=(xvfb)
command -v unzip >/dev/null || need+=(unzip)
command -v python3 >/dev/null || need+=(python3)
[ -e /usr/share/zoneinfo/America/St_Johns ] || need+=(tzdata)
if [ ${#need[@]} -gt 0 ]; then
  sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
  echo "installing ${need[*]} ..." >&2
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q >&2
  $sudo apt-get install -y -q --no-install-recommends "${need[@]}" >&2
fi
restic version | grep -q 'restic 0\.1[4-9]' || { echo "ensure-deps: restic 0.14+ required, found: $(restic version)" >&2; exit 1; }
