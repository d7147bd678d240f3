#!/usr/bin/env bash
# Debian sid's llama.cpp (llama-server, the RPC server, python3-gguf) in a chroot, for the tests
# that run the real engine (tests/llama/). Its binaries need sid's C library, so they run as
# `ip netns exec NS chroot DIR ...`; nothing of the machine is mounted into DIR.
#
#   tests/llama/sid_chroot.sh prepare   build it now (debootstrap, then apt-get install inside)
#   tests/llama/sid_chroot.sh start     the same in the background (CI: while the build runs)
#   tests/llama/sid_chroot.sh wait      wait for `start`; fails with a plain message if it failed
#   tests/llama/sid_chroot.sh path      where it is
#
# DIR is $MESHPLAN_LLAMA_CHROOT, else /var/tmp/meshplan-sid. A prepared DIR has DIR/.meshplan-ready
# and is kept: `prepare` on it does nothing. Needs root, debootstrap and Debian's mirror.
set -euo pipefail
dir=${MESHPLAN_LLAMA_CHROOT:-/var/tmp/meshplan-sid}
mirror=${MESHPLAN_DEBIAN_MIRROR:-http://deb.debian.org/debian}
state=${dir}.state
packages="llama.cpp-tools llama.cpp-tools-extra libggml0-backend-rpc python3-gguf python3-numpy"
# Debian installs the RPC server as ggml-rpc-server here; llama.cpp's docs and our launches call
# it rpc-server.
rpc_server=/usr/libexec/x86_64-linux-gnu/llama/bin/ggml-rpc-server

attempt() {  # attempt N CMD...: runs CMD up to N times, 10 s apart
  local n=$1 i
  shift
  for ((i = 1; i <= n; ++i)); do
    "$@" && return 0
    echo "sid_chroot: attempt $i of $n failed: $*" >&2
    sleep 10
  done
  return 1
}

bootstrap() {
  rm -rf "$dir.tmp"
  debootstrap --variant=minbase sid "$dir.tmp" "$mirror"
}

install_llama() {
  chroot "$dir.tmp" apt-get update -q &&
    chroot "$dir.tmp" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
      --no-install-recommends $packages
}

prepare() {
  [[ -f $dir/.meshplan-ready ]] && return 0
  attempt 3 bootstrap
  # A mirror serving an older snapshot of sid has an expired Release file; its signatures are
  # still checked.
  echo 'Acquire::Check-Valid-Until "false";' > "$dir.tmp/etc/apt/apt.conf.d/99meshplan"
  attempt 3 install_llama
  chroot "$dir.tmp" apt-get clean
  ln -sf "$rpc_server" "$dir.tmp/usr/local/bin/rpc-server"
  chroot "$dir.tmp" rpc-server --help > /dev/null 2>&1
  chroot "$dir.tmp" llama-server --version
  rm -rf "$dir"
  mv "$dir.tmp" "$dir"
  date -u +%FT%TZ > "$dir/.meshplan-ready"
}

case ${1:-} in
  prepare) prepare ;;
  start)
    rm -rf "$state"
    mkdir -p "$state"
    ("$0" prepare > "$state/log" 2>&1; echo $? > "$state/rc") &
    echo "sid_chroot: preparing $dir in the background (log: $state/log)"
    ;;
  wait)
    while [[ ! -f $state/rc ]]; do sleep 2; done
    if [[ $(cat "$state/rc") != 0 ]]; then
      tail -n 30 "$state/log" >&2
      echo "sid_chroot: preparing Debian sid's llama.cpp in $dir failed (debootstrap or apt-get" \
        "from $mirror; log above and in $state/log): the tests that run llama.cpp cannot run" >&2
      exit 1
    fi
    echo "sid_chroot: $dir is ready"
    ;;
  path) echo "$dir" ;;
  *)
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
