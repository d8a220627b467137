#!/bin/sh
# live-patch.sh N - in the guest: turn the kernel's function tracer on and
# off N times on vfs_read while a readloop on vCPU 1 calls it all the time.
# Each turn rewrites vfs_read's entry under the running loop, as every
# probe registered or removed by ktap does. Prints one line at the end.
n=${1:-40}
t=/sys/kernel/tracing
[ -e $t/current_tracer ] || mount -t tracefs nodev $t || exit 1
echo vfs_read > $t/set_ftrace_filter || exit 1
taskset -c 1 /mnt/host/tools/readloop 1000000000 >/dev/null 2>&1 &
loop=$!
sleep 0.2
i=0
while [ $i -lt "$n" ]; do
	echo function > $t/current_tracer || break
	echo nop > $t/current_tracer || break
	i=$((i + 1))
done
kill $loop
wait $loop 2>/dev/null
echo > $t/set_ftrace_filter
echo "live-patch: vfs_read rewritten $((2 * i)) times under a running loop"
