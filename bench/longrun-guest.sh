#!/bin/sh
# bench/longrun-guest.sh - the guest half of bench/longrun (busybox sh).
#
# bench/longrun copies this file, readalt, readloop, firstline, the modules
# (ktap_lr.ko, stap_lr.ko) and staprun's files (stap/) into the guest's
# share (/mnt/host); each step is one `ktap --vm-exec`. Work files in /tmp.
#
#   sh longrun-guest.sh setup             copy to /tmp, install staprun
#   sh longrun-guest.sh hit ROUNDS N      per-hit cost, attached and detached
#   sh longrun-guest.sh attach ROUNDS     attach latency
#
# Output, one line per fact:
#   S VARIANT ROUND NS     one readalt run: its least ns per read(2) (one
#                          hit) minus its least per readv(2) (no hit),
#                          alternated in one process; VARIANT none,
#                          ktap-att, ktap-det, stap-att, stap-det
#   T TOOL ROUND NS        attach: ns from the attach command's start to
#                          the first line it printed
#   E TEXT                 a problem
T=/tmp/lr
STAPRUN=/usr/bin/staprun

# readalt's read(2) minus readv(2), least ns per call, pinned to vCPU 1
# (N: its rounds of batches of 50)
loops() {	# N
	taskset -c 1 $T/readalt "$1" 50 2>&1 |
		sed -n 's/^readalt: readv \([0-9]*\) ns .*, read \([0-9]*\) ns .*/\1 \2/p' |
		awk '{ print $2 - $1 }'
}

variant() {	# VARIANT ROUND N
	case $1 in
	none)	ns=$(loops "$3") ;;
	ktap-att)	# ktap-run reading all the time, to a file
		ktap-run -o $T/out $T/ktap_lr.ko > $T/log 2>&1 & p=$!
		sleep 2; ns=$(loops "$3"); kill -INT $p; wait $p ;;
	ktap-det)	# ktap -F: the ring, nobody reading
		name=$(ktap-run -F $T/ktap_lr.ko 2> $T/log) || echo "E ktap-run -F: $(cat $T/log)"
		ns=$(loops "$3"); ktap-run -X "$name" > /dev/null 2>> $T/log ;;
	stap-att)
		$STAPRUN -o $T/out $T/stap_lr.ko > $T/log 2>&1 & p=$!
		sleep 2; ns=$(loops "$3"); kill -INT $p; wait $p ;;
	stap-det)	# stap -F: staprun -L, nobody attached
		$STAPRUN -L $T/stap_lr.ko > $T/log 2>&1 || echo "E staprun -L: $(head -c 200 $T/log)"
		ns=$(loops "$3"); $STAPRUN -d stap_lr > /dev/null 2>&1 ;;
	esac
	for m in ktap_lr stap_lr; do
		grep -q "^$m " /proc/modules && { echo "E $m still loaded after $1"; rmmod $m 2>/dev/null; }
	done
	[ -n "$ns" ] && echo "S $1 $2 $ns" || echo "E readalt gave nothing under $1"
}

case $1 in
setup)
	mkdir -p $T || exit 1
	cp /mnt/host/readalt /mnt/host/readloop /mnt/host/firstline /mnt/host/*.ko $T/ || exit 1
	sh /mnt/host/stap/install.sh > /dev/null 2>&1 || echo "E staprun could not be installed"
	[ -x "$STAPRUN" ] || echo "E no staprun in the guest"
	;;
hit)	# ROUNDS N: every variant once a round, the order rotated
	set -- none ktap-att ktap-det stap-att stap-det "$2" "$3"
	rounds=$6 n=$7 r=1
	order="none ktap-att ktap-det stap-att stap-det"
	while [ $r -le "$rounds" ]; do
		for v in $order; do variant "$v" "$r" "$n"; done
		order="$(echo $order | cut -d' ' -f2-) $(echo $order | cut -d' ' -f1)"
		r=$((r + 1))
	done
	;;
attach)	# ROUNDS: a detached script with records in its ring; then attach
	r=1
	while [ $r -le "$2" ]; do
		name=$(ktap-run -F $T/ktap_lr.ko 2> $T/log) || echo "E ktap-run -F: $(cat $T/log)"
		taskset -c 1 $T/readloop 100 2>/dev/null
		l=$($T/firstline ktap-run -A "$name") && echo "T ktap $r ${l%% *}" ||
			echo "E ktap-run -A printed nothing"
		ktap-run -X "$name" > /dev/null 2>&1
		if $STAPRUN -L $T/stap_lr.ko > $T/log 2>&1; then
			taskset -c 1 $T/readloop 100 2>/dev/null
			l=$($T/firstline $STAPRUN -A stap_lr) && echo "T stap $r ${l%% *}" ||
				echo "E staprun -A printed nothing"
			$STAPRUN -d stap_lr > /dev/null 2>&1
			grep -q "^stap_lr " /proc/modules && rmmod stap_lr
		else
			echo "E staprun -L: $(head -c 200 $T/log)"
		fi
		r=$((r + 1))
	done
	;;
esac
