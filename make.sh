#!/bin/sh
# The README's quick start on a machine with nothing installed: a fresh Debian 12 has no
# make, so this installs it (as root, with apt-get) when it is missing, then hands every
# argument over to the Makefile, which installs the rest of what gcsim needs. `sh make.sh
# run` and `sh make.sh test` are exactly `make run` and `make test` once make is there.
set -eu
cd "$(dirname "$0")"
if ! command -v make >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ]; then
    echo "make.sh: make is not installed; run this as root, or install make yourself" >&2
    exit 1
  fi
  echo "make.sh: installing make"
  DEBIAN_FRONTEND=noninteractive
  export DEBIAN_FRONTEND
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends make >/dev/null
fi
exec make "$@"
