#!/bin/sh
# bridge-bpdu.sh: a bridge ktapbr0 with spanning tree on and the guest's
# dummy0 as its port (guest/guest-modules loads bridge and dummy), up for
# 3 s, so the kernel sends its configuration BPDUs through dummy0 (the
# bridge's NF_BR_LOCAL_OUT hook); prints what sysfs says the bridge
# sends, as "guest KEY VALUE" lines (for netfilter.bridge.* in
# testsuite/ktap.aliases/bridge), times in 1/256 s as a BPDU has them,
# then removes the bridge
set -e
# a bridge a failed run left behind goes first
if [ -e /sys/class/net/ktapbr0 ]; then
	ip link set ktapbr0 down
	brctl delif ktapbr0 dummy0 2>/dev/null || true
	brctl delbr ktapbr0
fi
brctl addbr ktapbr0
echo 1 > /sys/class/net/ktapbr0/bridge/stp_state
brctl addif ktapbr0 dummy0
ip link set dummy0 up
ip link set ktapbr0 up
sleep 3
b=/sys/class/net/ktapbr0/bridge
mac=$(cat /sys/class/net/ktapbr0/address)
id=$(cat $b/bridge_id | tr -d .:)
# sysfs times are in USER_HZ (100) ticks
ticks() { echo $(( $(cat $b/$1) * 256 / 100 )); }
echo "guest bpdu.br_mac $mac"
echo "guest bpdu.br_rmac $mac"
echo "guest bpdu.br_bid $id"
echo "guest bpdu.br_rid $id"
echo "guest bpdu.br_cost $(cat $b/root_path_cost)"
echo "guest bpdu.br_poid $(cat /sys/class/net/dummy0/brport/port_id)"
echo "guest bpdu.br_htime $(ticks hello_time)"
echo "guest bpdu.br_max $(ticks max_age)"
echo "guest bpdu.br_fd $(ticks forward_delay)"
ip link set ktapbr0 down
brctl delif ktapbr0 dummy0
brctl delbr ktapbr0
ip link set dummy0 down
