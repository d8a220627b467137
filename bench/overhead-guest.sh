#!/bin/sh
# bench/overhead-guest.sh - the guest half of bench/overhead (busybox sh).
#
# bench/overhead copies this file, the loops (readloop, openloop), the
# modules (NAME.ko) and staprun's files (stap/) into the guest's share
# (/mnt/host); each step below is one `ktap --vm-exec`. Work files are in
# /tmp (tmpfs), never on 9p. Every loop is pinned to vCPU 1.
#
#   sh overhead-guest.sh setup                 copy to /tmp, install staprun
#   sh overhead-guest.sh verify N              count the probe hits per loop
#   sh overhead-guest.sh case1 ROUNDS REPS N [VARIANTS]  per-hit cost on vfs_read
#   sh overhead-guest.sh case2 ROUNDS REPS N EXTRA [VARIANTS]  the flood, to a file
#   sh overhead-guest.sh ladder "N..." PARN EXTRA     rates without loss
#   sh overhead-guest.sh reader N ROUNDS        the flood's reader, measured
#   sh overhead-guest.sh alt ROUNDS             the handlers of both cases,
#                                              measured in one process
#                                              (readalt, openalt)
#   sh overhead-guest.sh tax ROUNDS             an unprobed system call's
#                                              time with syscall.openat
#                                              (.return) probed (ppidloop)
#   sh overhead-guest.sh smp ROUNDS "TOOL:MOD..."  case 1's loop on one
#                                              vCPU, then on both at once
#   sh overhead-guest.sh attach ROUNDS "MOD..."  where syscall probes
#                                              attach: a probed getppid's
#                                              time and the start and
#                                              stop times of each module
#
# EXTRA: openat calls an openloop makes besides its N opens (from verify).
# VARIANTS: more TOOL:MODULE:OUT variants (bench/overhead's experiments).
# Output, one line per fact, for the host half to parse:
#   HITS N READS OPENS              verify: readloop's vfs_reads and
#                                   openloop's openats for N iterations
#   S CASE VARIANT ROUND NS LOSSY   one loop: ns per iteration; LOSSY 1 when
#                                   its run lost output
#   R CASE VARIANT ROUND RC LINES EXPECT DROPPED TFAIL   one run
#   L TOOL N LOOPS RC LINES EXPECT DROPPED TFAIL SECS    one ladder step
#   D TOOL N TICKS IPIS LINES NS HZ  reader: its CPU ticks and vCPU 1's
#                                   function-call IPIs during N opens
#   A TOOL ROUND OPEN OPENAT        alt: openalt's minimum ns per open(2)
#                                   and per openat(2) (TOOL none: no probe)
#   B TOOL ROUND READV READ         alt: readalt's minimum ns per readv(2)
#                                   and per read(2) (case 1's probe)
#   C TOOL ROUND READV READ         alt: the same with /dev/zero opened and
#                                   closed around every call (readalt open)
#   M MOD ROUND CPUS CPU READV READ smp: "readalt open" on vCPU CPU, alone
#                                   (CPUS 1) or beside one on the other vCPU
#                                   (CPUS 2), with MOD loaded (none: no probe)
#   P VARIANT ROUND MIN MED         tax: ppidloop's minimum and median ns
#                                   per getppid(2) (VARIANT none: no probe)
#   Q MOD ROUND START_MS RUN_MS MIN MED   attach: ktap-run's start time
#                                   (load + start), the whole run's wall
#                                   time (10 ms steps) and ppidloop's ns
#                                   per getppid with MOD loaded
#   E TEXT                          a problem
# DROPPED: ktap's "ktap: N records dropped"; TFAIL: stap's "There were N
# transport failures".

T=/tmp/ovh
TMO=${TMO:-150}		# seconds for one run before it is killed
STAPRUN=/usr/bin/staprun

# the loops of one run: REPS times PROG N, pinned to vCPU 1
loops() {	# PROG N REPS
	c="" i=0
	while [ $i -lt "$3" ]; do
		c="$c${c:+; }taskset -c 1 $T/$1 $2"
		i=$((i + 1))
	done
	echo "$c"
}

exit_with() { return "$1"; }

# run TOOL MODULE OUT CMD: CMD with no probe (TOOL none), under ktap-run,
# or under staprun (TOOL stap; stapb: staprun -b 64, a 64 MiB buffer), or
# with a hand-written module loaded (TOOL ref: insmod, rmmod after);
# OUT "o" sends the script's output to $T/out. The loops' lines (and the
# tool's messages) land in $T/log; sets rc.
run() {
	tool=$1 mod=$2 out=$3 cmd=$4
	rm -f "$T/out" "$T/log"
	set --
	[ "$out" = o ] && set -- -o "$T/out"
	case $tool in
	none)	timeout "$TMO" sh -c "$cmd" > "$T/log" 2>&1 ;;
	ktap)	# staprun leaves kprobe optimization off; ktap runs get it back
		echo 1 > /proc/sys/debug/kprobes-optimization
		timeout "$TMO" ktap-run "$@" -c "$cmd" "$T/$mod.ko" > "$T/log" 2>&1 ;;
	stap)	timeout "$TMO" "$STAPRUN" "$@" -c "$cmd" "$T/$mod.ko" > "$T/log" 2>&1 ;;
	ref)	# a plain module: loaded, the command, unloaded
		insmod "$T/$mod.ko" &&
			{ timeout "$TMO" sh -c "$cmd" > "$T/log" 2>&1; refrc=$?; rmmod "$mod"; exit_with $refrc; } ;;
	stapb)	# stap with 64 MiB of buffer instead of its default
		timeout "$TMO" "$STAPRUN" -b 64 "$@" -c "$cmd" "$T/$mod.ko" > "$T/log" 2>&1 ;;
	esac
	rc=$?
	if [ "$tool" != none ] && grep -q "^$mod " /proc/modules; then
		echo "E $mod was still loaded after its run (exit $rc); unloading it"
		rmmod "$mod" 2>/dev/null
	fi
	if [ $rc != 0 ]; then
		echo "E $tool $mod: exit $rc: $(grep -v -e '^readloop: ' -e '^openloop: ' \
			-e '^c\[' "$T/log" | head -n 3 | tr '\n' ' ')"
	fi
	return 0
}

# facts about the last run's output
count_output() {	# sets lines dropped tfail
	lines=0 dropped=0 tfail=0
	[ -f "$T/out" ] && lines=$(grep -c '^openloop(' "$T/out")
	dropped=$(sed -n 's/^ktap: \([0-9]*\) records* dropped.*/\1/p' "$T/log" | tail -n 1)
	tfail=$(sed -n 's/.*There were \([0-9]*\) transport failures.*/\1/p' "$T/log" | tail -n 1)
	: "${dropped:=0}" "${tfail:=0}"
}

# the last run's loops: ns per iteration, one per line
loop_ns() {
	sed -n 's/^readloop: .* \([0-9][0-9]*\) ns per iteration$/\1/p' "$T/log"
	awk '/^openloop: [0-9]+ opens in [0-9.]+ s$/ { printf "%.0f\n", $5 * 1e9 / $2 }' "$T/log"
}

# the variants in round R's order: rotated by R, so that no variant
# always runs first or right after the same one
rotate() {	# R VARIANT...
	r=$1
	shift
	echo "$@" | tr ' ' '\n' | awk -v r="$r" '{ v[NR - 1] = $0 }
		END { for (i = 0; i < NR; i++) print v[(i + r) % NR] }'
}

# ROUNDS rounds of every variant; a variant is TOOL:MODULE:OUT, named
# MODULE in the output (MODULE_b64 for stapb)
rounds() {	# CASE PROG ROUNDS REPS N EXTRA VARIANT...
	cs=$1 prog=$2 nr=$3 reps=$4 n=$5 extra=$6
	shift 6
	vs="$*"
	r=1
	while [ $r -le "$nr" ]; do
		for v in $(rotate "$r" $vs); do
			tool=${v%%:*} rest=${v#*:}
			mod=${rest%%:*} out=${rest#*:} name=${rest%%:*}
			[ "$tool" = stapb ] && name=${mod}_b64
			run "$tool" "$mod" "$out" "$(loops "$prog" "$n" "$reps")"
			count_output
			lossy=0
			if [ "$out" = o ] && [ "$prog" = openloop ]; then
				expect=$((reps * (n + extra)))
				[ "$lines" -lt "$expect" ] || [ "$dropped" -gt 0 ] ||
					[ "$tfail" -gt 0 ] && lossy=1
				echo "R $cs $name $r $rc $lines $expect $dropped $tfail"
			elif [ "$out" = o ]; then	# no line count to expect
				lines=$(grep -c . "$T/out" 2>/dev/null)
				echo "R $cs $name $r $rc ${lines:-0} - $dropped $tfail"
			fi
			for ns in $(loop_ns); do
				echo "S $cs $name $r $ns $lossy"
			done
		done
		r=$((r + 1))
	done
}

case $1 in
setup)
	mkdir -p $T || exit 1
	cp /mnt/host/readloop /mnt/host/openloop /mnt/host/openalt /mnt/host/readalt \
		/mnt/host/ppidloop /mnt/host/*.ko $T/ || exit 1
	sh /mnt/host/stap/install.sh || echo "E staprun could not be installed"
	[ -x "$STAPRUN" ] || echo "E no staprun in the guest"
	;;
verify)
	n=$2
	run ktap ktap_verify - "taskset -c 1 $T/readloop $n; taskset -c 1 $T/openloop $n"
	sed -n "s/^hits readloop=\([0-9]*\) openloop=\([0-9]*\)$/HITS $n \1 \2/p" "$T/log"
	;;
case1)
	rounds case1 readloop "$2" "$3" "$4" 0 none:none:- \
		ktap:ktap_cnt:- stap:stap_cnt:- ktap:ktap_empty:- stap:stap_empty:- \
		ktap:ktap_x:o ${5:-}
	;;
case2)
	rounds case2 openloop "$2" "$3" "$4" "$5" none:none:- \
		ktap:ktap_flood:o stap:stap_flood:o stapb:stap_flood:o ${6:-}
	;;
reader)
	# where the flood's time goes besides the probe: the reader's CPU time
	# (ktap-run, stapio) and the function-call IPIs vCPU 1 took, while one
	# openloop of N runs beside an already started reader
	n=$2 rounds=$3 r=1
	cal1() { awk '/CAL:/ { print $3 }' /proc/interrupts; }
	ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
	while [ $r -le "$rounds" ]; do
		for tool in ktap stap; do
			rm -f "$T/out"
			if [ $tool = ktap ]; then
				echo 1 > /proc/sys/debug/kprobes-optimization
				ktap-run -o "$T/out" "$T/ktap_flood.ko" > "$T/log" 2>&1 &
			else
				"$STAPRUN" -o "$T/out" "$T/stap_flood.ko" > "$T/log" 2>&1 &
			fi
			p=$!
			sleep 2	# loaded and started
			t0=$(ticks $p) c0=$(cal1)
			taskset -c 1 "$T/openloop" "$n" > "$T/loop" 2>&1
			sleep 0.3
			t1=$(ticks $p) c1=$(cal1)
			kill -INT $p
			wait $p
			grep -q "^${tool}_flood " /proc/modules && rmmod "${tool}_flood"
			lines=$(grep -c '^openloop(' "$T/out" 2>/dev/null)
			ns=$(awk '/^openloop: [0-9]+ opens in [0-9.]+ s$/ { printf "%.0f", $5 * 1e9 / $2 }' "$T/loop")
			echo "D $tool $n $((t1 - t0)) $((c1 - c0)) ${lines:-0} ${ns:-0} $(getconf CLK_TCK 2>/dev/null || echo 100)"
		done
		r=$((r + 1))
	done
	;;
alt)
	# the handlers alone, in one process, so the host's load weighs on
	# both kinds of call alike: openalt alternates batches of open(2),
	# which syscall.openat does not see, and openat(2), which it does (the
	# dispatch of every system call and the reader weigh on both and drop
	# out); readalt alternates readv(2), which does not pass vfs_read,
	# and read(2), which does; "readalt open" does case 1's open+read+close
	# loop that way. The tools' order is rotated per round, as above.
	rounds=$2 r=1
	while [ $r -le "$rounds" ]; do
		for tool in $(rotate "$r" none ktap stap ref); do
			# ref: bench/ref's hand-written modules, if built (the
			# flood by hand writes no file)
			out=o
			[ "$tool" = ref ] && out=-
			if [ "$tool" != ref ] || [ -f "$T/ref_flood.ko" ]; then
				run "$tool" "${tool}_flood" $out "taskset -c 1 $T/openalt 200 50"
				sed -n "s/^openalt: open \([0-9]*\) ns .*, openat \([0-9]*\) ns .*/A $tool $r \1 \2/p" "$T/log"
			fi
			[ "$tool" != ref ] || [ -f "$T/ref_cnt.ko" ] || continue
			run "$tool" "${tool}_cnt" - "taskset -c 1 $T/readalt 200 50"
			sed -n "s/^readalt: readv \([0-9]*\) ns .*, read \([0-9]*\) ns .*/B $tool $r \1 \2/p" "$T/log"
			run "$tool" "${tool}_cnt" - "taskset -c 1 $T/readalt 1000 20 open"
			sed -n "s/^readalt-open: readv \([0-9]*\) ns .*, read \([0-9]*\) ns .*/C $tool $r \1 \2/p" "$T/log"
		done
		r=$((r + 1))
	done
	;;
tax)
	# what a probe on one system call costs every other one: getppid(2)
	# with no probe, then with syscall.openat (the flood) or
	# syscall.openat.return (counting) loaded, the variants rotated per
	# round as above; a variant whose module was not built is skipped
	rounds=$2 r=1
	while [ $r -le "$rounds" ]; do
		for v in $(rotate "$r" none:none ktap:ktap_flood stap:stap_flood \
			   ktap:ktap_ret stap:stap_ret); do
			tool=${v%%:*} mod=${v#*:}
			[ "$tool" = none ] || [ -f "$T/$mod.ko" ] || continue
			run "$tool" "$mod" o "taskset -c 1 $T/ppidloop 300 200"
			sed -n "s/^ppidloop: getppid \([0-9]*\) ns (median \([0-9]*\))$/P $mod $r \1 \2/p" "$T/log"
		done
		r=$((r + 1))
	done
	;;
smp)
	# does a counting probe scale? case 1's loop ("readalt open") on
	# vCPU 1 alone, then one on each vCPU at once, with each module
	# loaded (TOOL:MOD: ktap, or ref for bench/ref's plain module)
	rounds=$2 r=1
	ra() { sed -n "s/^readalt-open: readv \([0-9]*\) ns .*, read \([0-9]*\) ns .*/\1 \2/p" "$1"; }
	while [ $r -le "$rounds" ]; do
		for v in $(rotate "$r" none:none $3); do
			tool=${v%%:*} mod=${v#*:}
			[ "$tool" = none ] || [ -f "$T/$mod.ko" ] || continue
			one="taskset -c 1 $T/readalt 1000 20 open"
			two="taskset -c 0 $T/readalt 1000 20 open > $T/smp0 2>&1 & taskset -c 1 $T/readalt 1000 20 open > $T/smp1 2>&1; wait"
			rm -f "$T/smp0" "$T/smp1"
			run "$tool" "$mod" - "$one"
			ra "$T/log" | while read -r a b; do echo "M $mod $r 1 1 $a $b"; done
			run "$tool" "$mod" - "$two"
			for cpu in 0 1; do
				ra "$T/smp$cpu" | while read -r a b; do echo "M $mod $r 2 $cpu $a $b"; done
			done
		done
		r=$((r + 1))
	done
	;;
attach)
	# the same probes attached both ways (bench/overhead's ktap_at_*
	# modules): what a probed getppid costs, and what arming them costs
	rounds=$2 r=1
	up() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }
	while [ $r -le "$rounds" ]; do
		for mod in $(rotate "$r" $3); do
			t0=$(up)
			echo 1 > /proc/sys/debug/kprobes-optimization
			timeout "$TMO" ktap-run -v -c "taskset -c 1 $T/ppidloop 300 200" "$T/$mod.ko" \
				> "$T/log" 2>&1 || echo "E $mod: exit $?: $(tail -n 2 "$T/log" | tr '\n' ' ')"
			t1=$(up)
			grep -q "^$mod " /proc/modules && rmmod "$mod"
			l=$(sed -n 's/^ktap-run: loaded .* in \([0-9]*\) ms.*/\1/p' "$T/log")
			st=$(sed -n 's/^ktap-run: started in \([0-9]*\) ms.*/\1/p' "$T/log")
			sed -n "s/^ppidloop: getppid \([0-9]*\) ns (median \([0-9]*\))$/\1 \2/p" "$T/log" |
				while read -r mn md; do
					echo "Q $mod $r $((${l:-0} + ${st:-0})) $((t1 - t0)) $mn $md"
				done
		done
		r=$((r + 1))
	done
	;;
ladder)
	# each size once per tool, the tools alternating; a tool that lost
	# output at two sizes in a row stops climbing
	sizes=$2 parn=$3 extra=$4 stop_ktap=0 stop_stap=0 stop_stapb=0
	step() {	# TOOL N LOOPS CMD
		run "$1" "${1%b}_flood" o "$4"
		count_output
		secs=$(awk '/^openloop: [0-9]+ opens in [0-9.]+ s$/ { if ($5 > m) m = $5 }
			END { print m + 0 }' "$T/log")
		echo "L $1 $2 $3 $rc $lines $(($3 * ($2 + extra))) $dropped $tfail $secs"
		[ "$lines" -lt $(($3 * ($2 + extra))) ] || [ "$dropped" -gt 0 ] ||
			[ "$tfail" -gt 0 ] || [ "$rc" != 0 ]
	}
	for n in $sizes; do
		for tool in ktap stap stapb; do
			eval "s=\$stop_$tool"
			[ "$s" -ge 2 ] && continue
			if step $tool "$n" 1 "taskset -c 1 $T/openloop $n"; then
				eval "stop_$tool=\$((stop_$tool + 1))"
			else
				eval "stop_$tool=0"
			fi
		done
	done
	# faster than one loop: one loop on each vCPU (the readers share them)
	if [ "${parn:-0}" -gt 0 ]; then
		for tool in ktap stap stapb; do
			step $tool "$parn" 2 "taskset -c 0 $T/openloop $parn & taskset -c 1 $T/openloop $parn; wait" || :
		done
	fi
	;;
*)
	echo "E unknown step: $1"
	exit 2
	;;
esac
exit 0
