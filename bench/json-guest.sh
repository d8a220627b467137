#!/bin/sh
# bench/json-guest.sh - the guest half of bench/json (busybox sh).
#
# bench/json copies this file, the loops (openloop, openalt), the modules
# (ktap_flood.ko, stap_flood.ko) and staprun's files (stap/) into the
# guest's share; each step is one `ktap --vm-exec`. Work files are in /tmp
# (tmpfs); every loop is pinned to vCPU 1.
#
#   sh json-guest.sh setup                 copy to /tmp, install staprun
#   sh json-guest.sh rounds ROUNDS N       every tool once per round, the
#                                          order rotated per round
#   sh json-guest.sh reader ROUNDS N       the reader's CPU time per record
#
# Tools: none (no probe), text (ktap-run -o), json (ktap-run -J -o: the
# records for the host to make JSON lines of, what ktap --vm --json runs),
# jsonj (ktap-run -j -o: the JSON lines made here, what ktap --json runs
# on a machine that loads the module itself; reader step only), stap
# (staprun -o). A -J stream is decoded into $T/out (ktap-run -d) after
# the run, for the counts. Output, one line per fact:
#   S TOOL ROUND NS LINES DROPPED   openloop N: ns per open at full speed,
#                                   the lines its run wrote, ktap's drops
#   A TOOL ROUND OPEN OPENAT        openalt: least ns per open(2) (no hit)
#                                   and per openat(2) (one hit)
#   D TOOL ROUND TICKS LINES HZ     reader: the CPU ticks ktap-run (stapio)
#                                   used while one openloop N ran
#   R FILE LINES                    the last reader round's -J stream,
#                                   copied to the share as FILE, for the
#                                   host's decoding
#   E TEXT                          a problem

T=/tmp/bjson
TMO=${TMO:-150}
STAPRUN=/usr/bin/staprun

run() {	# TOOL CMD: sets rc; output in $T/out, messages in $T/log
	rm -f "$T/out" "$T/raw" "$T/log"
	case $1 in
	none) timeout "$TMO" sh -c "$2" > "$T/log" 2>&1 ;;
	text) timeout "$TMO" ktap-run -o "$T/out" -c "$2" "$T/ktap_flood.ko" > "$T/log" 2>&1 ;;
	json) timeout "$TMO" ktap-run -J -o "$T/raw" -c "$2" "$T/ktap_flood.ko" > "$T/log" 2>&1 ;;
	stap) timeout "$TMO" "$STAPRUN" -o "$T/out" -c "$2" "$T/stap_flood.ko" > "$T/log" 2>&1 ;;
	esac
	rc=$?
	[ "$1" = json ] && decode
	for m in ktap_flood stap_flood; do
		grep -q "^$m " /proc/modules && { echo "E $m still loaded after $1"; rmmod $m; }
	done
	[ $rc = 0 ] || echo "E $1: exit $rc: $(head -n 3 "$T/log" | tr '\n' ' ')"
}

decode() {	# $T/raw, a -J stream, as JSON lines in $T/out
	ktap-run -d "$T/raw" > "$T/out" 2>> "$T/log" || echo "E ktap-run -d: the stream does not decode"
}

rotate() {	# R VARIANT...
	r=$1
	shift
	echo "$@" | tr ' ' '\n' | awk -v r="$r" '{ v[NR - 1] = $0 }
		END { for (i = 0; i < NR; i++) print v[(i + r) % NR] }'
}

case $1 in
setup)
	mkdir -p $T || exit 1
	cp /mnt/host/openloop /mnt/host/openalt /mnt/host/*.ko $T/ || exit 1
	if [ -f /mnt/host/stap/install.sh ]; then
		sh /mnt/host/stap/install.sh >/dev/null 2>&1 || echo "E staprun could not be installed"
	fi
	;;
rounds)
	nr=$2 n=$3 r=1
	tools="none text json"
	[ -f $T/stap_flood.ko ] && [ -x $STAPRUN ] && tools="$tools stap"
	while [ "$r" -le "$nr" ]; do
		for tool in $(rotate "$r" $tools); do
			run "$tool" "taskset -c 1 $T/openloop $n"
			ns=$(awk '/^openloop: [0-9]+ opens in [0-9.]+ s$/ { printf "%.0f", $5 * 1e9 / $2 }' "$T/log")
			lines=0
			# a JSON line holds the text as "text":"openloop(..."
			[ -f "$T/out" ] && lines=$(grep -c -e '^openloop(' -e '"text":"openloop(' "$T/out")
			dropped=$(sed -n 's/^ktap: \([0-9]*\) records* dropped.*/\1/p; s/.*"type":"dropped","count":\([0-9]*\).*/\1/p' \
				"$T/log" "$T/out" 2>/dev/null | tail -n 1)
			[ -n "$ns" ] && echo "S $tool $r $ns $lines ${dropped:-0}"
			run "$tool" "taskset -c 1 $T/openalt 200 50"
			sed -n "s/^openalt: open \([0-9]*\) ns .*, openat \([0-9]*\) ns .*/A $tool $r \1 \2/p" "$T/log"
		done
		r=$((r + 1))
	done
	;;
reader)
	# the reader's own work per record, which the loop's time shows only
	# through the TCG thread both vCPUs share: its CPU ticks (user +
	# system) over one openloop of N beside a reader started before it
	nr=$2 n=$3 r=1
	hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
	ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
	tools="text json jsonj"
	[ -f $T/stap_flood.ko ] && [ -x $STAPRUN ] && tools="$tools stap"
	while [ "$r" -le "$nr" ]; do
		for tool in $(rotate "$r" $tools); do
			rm -f "$T/out" "$T/raw"
			case $tool in
			text) ktap-run -o "$T/out" "$T/ktap_flood.ko" > "$T/log" 2>&1 & ;;
			json) ktap-run -J -o "$T/raw" "$T/ktap_flood.ko" > "$T/log" 2>&1 & ;;
			jsonj) ktap-run -j -o "$T/out" "$T/ktap_flood.ko" > "$T/log" 2>&1 & ;;
			stap) "$STAPRUN" -o "$T/out" "$T/stap_flood.ko" > "$T/log" 2>&1 & ;;
			esac
			p=$!
			sleep 2
			t0=$(ticks $p)
			taskset -c 1 "$T/openloop" "$n" > "$T/loop" 2>&1
			sleep 0.5
			t1=$(ticks $p)
			kill -INT $p
			wait $p
			for m in ktap_flood stap_flood; do
				grep -q "^$m " /proc/modules && rmmod $m
			done
			[ $tool = json ] && decode
			lines=$(grep -c -e '^openloop(' -e '"text":"openloop(' "$T/out" 2>/dev/null)
			echo "D $tool $r $((t1 - t0)) ${lines:-0} $hz"
			if [ $tool = json ] && [ "$r" = "$nr" ]; then
				cp "$T/raw" /mnt/host/json.raw && echo "R json.raw ${lines:-0}"
			fi
		done
		r=$((r + 1))
	done
	;;
*)
	echo "E unknown step: $1"
	exit 2
	;;
esac
exit 0
