#!/usr/bin/env bash
# A cluster of "hosts" on one machine: one network namespace per host, each with its
# own address and host name, joined by a bridge in a switch namespace. Traffic stays
# inside the namespaces made here. Needs root and iproute2.
#
#   cluster.sh probe                   exit 0 if namespaces can be made here
#   cluster.sh up NAME HOSTS           make NAME-h0 … with addresses SUBNET.10, .11, …
#   cluster.sh address NAME I          print host I's address
#   cluster.sh run NAME I CMD…         run CMD on host I (host name NAME-hI)
#   cluster.sh down NAME               remove every namespace of NAME
set -euo pipefail

subnet() { echo "10.213.$(( $(printf '%s' "$1" | cksum | cut -d' ' -f1) % 250 + 1 ))"; }

case "${1:-}" in
probe)
    probe="tessera-probe-$$"
    ip netns add "$probe" 2>/dev/null || { echo "cannot create network namespaces (need root and iproute2)" >&2; exit 1; }
    ip netns delete "$probe"
    ;;
up)
    name=$2 hosts=$3 net=$(subnet "$2")
    ip netns add "$name-sw"
    ip -n "$name-sw" link add br0 type bridge
    ip -n "$name-sw" link set br0 up
    for ((i = 0; i < hosts; i++)); do
        ns="$name-h$i"
        ip netns add "$ns"
        ip link add "v$$-$i" type veth peer name eth0 netns "$ns"
        ip link set "v$$-$i" netns "$name-sw"
        ip -n "$name-sw" link set "v$$-$i" master br0 up
        ip -n "$ns" addr add "$net.$((10 + i))/24" dev eth0
        ip -n "$ns" link set eth0 up
        ip -n "$ns" link set lo up
    done
    ;;
address)
    echo "$(subnet "$2").$((10 + $3))"
    ;;
run)
    name=$2 i=$3
    shift 3
    exec ip netns exec "$name-h$i" unshare --uts sh -c 'hostname "$0"; exec "$@"' "$name-h$i" "$@"
    ;;
down)
    for ns in $(ip netns list | awk '{print $1}' | grep "^$2-" || true); do ip netns delete "$ns"; done
    ;;
*)
    sed -n '2,12p' "$0" >&2
    exit 2
    ;;
esac
