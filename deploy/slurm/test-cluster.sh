#!/usr/bin/env bash
# A throwaway Slurm cluster on this machine, Tessera jobs on it, checked against Golly.
#
# Installs Slurm and munge from Debian if missing, starts munged, slurmctld and three
# slurmd without systemd — each node in its own network namespace with its own address
# and host name where namespaces can be made, else three virtual nodes on 127.0.0.1 —
# submits deploy/slurm/tessera.sbatch for a run (coordinator + 2 workers on 3 nodes)
# and for a scaling sweep, compares the run's board with bgolly's cell for cell, and
# tears everything down, whatever happened. Needs root.
#
#   sudo deploy/slurm/test-cluster.sh            uses .build/release/tessera (built if missing)
#   sudo TESSERA=path/to/tessera deploy/slurm/test-cluster.sh
#   sudo NODES=local deploy/slurm/test-cluster.sh   virtual nodes on 127.0.0.1 even where
#                                                  namespaces can be made
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "error: $*" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || fail "starting Slurm's daemons needs root: run it with sudo"

"$root/deploy/install-deps.sh" slurmctld slurmd slurm-client munge golly >/dev/null ||
    fail "could not install Slurm, munge and golly with apt-get: check the network or install them by hand"

TESSERA=${TESSERA:-$root/.build/release/tessera}
if [ ! -x "$TESSERA" ]; then
    (cd "$root" && swift build -c release --product tessera) || fail "could not build tessera: run 'swift build -c release'"
fi
export TESSERA

work=$(mktemp -d /tmp/tessera-slurm.XXXXXX)
chmod 755 "$work"
name="tsl$(($$ % 100000))"
netns="$root/deploy/netns/cluster.sh"
started_munge=""
nodes=(); addresses=()

cleanup() {
    local status=$?
    set +e
    if ((status != 0)); then
        for log in "$work"/*.out "$work"/*.log; do
            [ -f "$log" ] && { echo "--- $log"; tail -n 15 "$log"; } >&2
        done
    fi
    # TERM first, KILL what is left: a daemon started with TERM blocked (as a child of
    # some test runners is) would otherwise outlive the test.
    local pids=()
    for pidfile in "$work"/*.pid; do [ -f "$pidfile" ] && pids+=("$(cat "$pidfile")"); done
    [ -n "$started_munge" ] && pids+=("$(cat /run/munge/munged.pid 2>/dev/null)")
    pids+=($(pgrep -f "$work/slurm.conf"))
    ((${#pids[@]})) && kill "${pids[@]}" 2>/dev/null
    for _ in $(seq 30); do
        kill -0 "${pids[@]}" 2>/dev/null || break
        sleep 0.1
    done
    ((${#pids[@]})) && kill -KILL "${pids[@]}" 2>/dev/null
    [ "$mode" = netns ] && "$netns" down "$name"
    rm -rf "$work"
    exit "$status"
}
mode=""
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    [ -f /etc/munge/munge.key ] || mungekey --create >/dev/null
    install -d -o munge -g munge -m 0755 /run/munge
    runuser -u munge -- /usr/sbin/munged || fail "munged did not start: see /var/log/munge/munged.log"
    started_munge=yes
fi

# Where a node's daemon and the clients run: "on HOST CMD…".
if [ "${NODES:-}" != local ] && "$netns" probe 2>/dev/null && command -v nsenter >/dev/null; then
    mode=netns
    "$netns" up "$name" 4
    for i in 0 1 2 3; do nodes+=("$name-h$i"); addresses+=("$("$netns" address "$name" "$i")"); done
    # nsenter, not 'ip netns exec': that remounts /sys, and slurmd then finds no cgroup fs.
    on() { local i=$1; shift; nsenter --net="/run/netns/$name-h$i" unshare --uts sh -c 'hostname "$0"; exec "$@"' "${nodes[$i]}" "$@"; }
    controller="${nodes[0]}(${addresses[0]})"
    node_lines=$(for i in 1 2 3; do echo "NodeName=${nodes[$i]} NodeAddr=${addresses[$i]} CPUs=2 State=UNKNOWN"; done)
else
    mode=local
    for i in 0 1 2 3; do nodes+=("n$i"); addresses+=(127.0.0.1); done
    on() { shift; "$@"; }
    controller=localhost
    node_lines=$(for i in 1 2 3; do echo "NodeName=n$i NodeAddr=127.0.0.1 Port=$((17000 + i)) CPUs=2 State=UNKNOWN"; done)
fi

conf="$work/slurm.conf"
cat >"$conf" <<CONF
ClusterName=tessera-test
SlurmctldHost=$controller
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool-%n
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd-%n.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd-%n.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1
MailProg=/bin/true
ReturnToService=2
SlurmdParameters=config_overrides
$node_lines
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
export SLURM_CONF=$conf
mkdir -p "$work/state"

on 0 slurmctld -f "$conf"
for i in 1 2 3; do on "$i" slurmd -f "$conf" -N "${nodes[$i]}"; done

client() { on 0 "$@"; }
deadline=$((SECONDS + 30))
until [ "$(client sinfo -h -o '%T' 2>/dev/null | sort -u)" = idle ]; do
    ((SECONDS < deadline)) || fail "the Slurm nodes did not come up within 30 s: see the logs above"
    sleep 0.2
done
echo "slurm: 3 nodes up ($mode)"

# A run: coordinator on the first node, a worker on each of the others, 2x2 tiles.
board=(--soup 0.35 --seed 11 --size 384x256 --rule B3/S23)
"$TESSERA" run "${board[@]}" --generations 0 --workers 0 --output "$work/start.rle" >/dev/null
job() { client timeout 180 sbatch --wait --chdir "$work" "$@"; }
# With the cluster's keys, as across real machines: nodes admit only each other.
"$TESSERA" keygen "$work/keys" >/dev/null
TESSERA_KEYS=$work/keys job -N 3 -n 3 -o "$work/run-%j.out" "$root/deploy/slurm/tessera.sbatch" run "${board[@]}" \
    --tiles 2x2 --generations 300 --output "$work/slurm.rle" --report >/dev/null ||
    fail "the run job failed"
! grep -q "without keys" "$work"/run-*.out || fail "the keyed run still warned about listening without keys"
bgolly -q -q -h -m 300 -o "$work/expected.mc" "$work/start.rle" >/dev/null 2>&1
bgolly -q -q -h -m 0 -o "$work/got.mc" "$work/slurm.rle" >/dev/null 2>&1
cmp -s "$work/expected.mc" "$work/got.mc" || fail "the board from Slurm differs from bgolly's"
for i in 2 3; do
    grep -q "on ${nodes[$i]}" "$work"/run-*.out || [ "$mode" = local ] ||
        fail "no worker ran on ${nodes[$i]}"
done
echo "slurm: run on 3 nodes matches bgolly ($(grep -o 'population [0-9]*' "$work"/run-*.out))"

# A sweep: the batch step measures, each point's workers are started with srun.
job -N 2 -n 2 -o "$work/sweep-%j.out" "$root/deploy/slurm/tessera.sbatch" scaling \
    --workers 1,2 --size 512 --generations 50 --out "$work/results" >/dev/null ||
    fail "the scaling job failed"
[ "$(wc -l <"$work/results/results.csv")" -eq 3 ] && [ -s "$work/results/scaling.svg" ] ||
    fail "the scaling job wrote no results"
echo "slurm: scaling sweep on 2 nodes wrote results.csv, results.json and scaling.svg"
echo "slurm test passed"
