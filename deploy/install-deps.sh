#!/usr/bin/env bash
# Installs what Tessera needs on a fresh Debian machine with Swift 6: libzmq (the
# cluster transport), golly (bgolly is the test oracle and the benchmark reference),
# GNU time (peak memory for bench corpus), tmux (viewer tests), iproute2 (multi-host tests in network namespaces) and Slurm with
# munge (the throwaway cluster deploy/slurm/test-cluster.sh starts; nothing starts here),
# systemd's systemd-analyze and pip's kubernetes-validate (the tests check deploy/'s unit
# files and manifests offline). Safe to run again: it installs only what is missing.
#
#   install-deps.sh              everything, then checks that Swift is on PATH
#   install-deps.sh PACKAGE…     just these Debian packages (what a script of deploy/ needs)
set -euo pipefail
packages=(libzmq3-dev libpng-dev libgif-dev golly tmux iproute2 pkg-config time slurmctld slurmd slurm-client munge systemd)
(($#)) && packages=("$@")
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -q
    $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
(($#)) || command -v swift >/dev/null || { echo "error: swift is not on PATH: install Swift 6 (swift.org) first" >&2; exit 2; }
if ! (($#)) && ! command -v kubernetes-validate >/dev/null; then
    python3 -m pip install -q kubernetes-validate 2>/dev/null \
        || python3 -m pip install -q --break-system-packages kubernetes-validate
fi
