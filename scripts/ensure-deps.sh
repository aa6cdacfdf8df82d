#!/usr/bin/env bash
# Installs what building CoreStore needs on a fresh Debian machine, and checks the toolchain.
# Sourced by demo.sh and test.sh; safe to run repeatedly.
set -euo pipefail

# Debian packages the build needs. The storage engines add theirs here (libsqlite3-dev, …).
REQUIRED_PACKAGES=(git ca-certificates pkg-config libsqlite3-dev liblmdb-dev libleveldb-dev libpq-dev python3)

missing=()
for package in "${REQUIRED_PACKAGES[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "Installing: ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! command -v swift >/dev/null 2>&1; then
  if [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
  else
    echo "error: no Swift toolchain found. Install Swift 6.1 or newer (swift.org) and put 'swift' on PATH." >&2
    exit 1
  fi
fi
