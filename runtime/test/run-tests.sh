#!/bin/bash
# run-tests.sh - build the runtime's test modules and run them in a guest.
#
# Needs a running guest that executes shell command lines, and a host
# directory shared with it:
#   GUESTCTL  command that runs one shell line in the guest, prints its
#             output and exits with its status
#   SHARE     host directory the guest sees as GSHARE (default /mnt/host)
#   KVER      kernel ABI of the guest (default 6.1.0-57-amd64)
# Each case runs in the guest and leaves its files in SHARE/rt/out; the
# checks run on the host. Prints one PASS/FAIL line per check; exit 1 if
# any failed.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
KVER=${KVER:-6.1.0-57-amd64}
GUESTCTL=${GUESTCTL:?set GUESTCTL}
SHARE=${SHARE:?set SHARE}
GSHARE=${GSHARE:-/mnt/host}
BUILD=$(mktemp -d /tmp/ktap-rt-build.XXXXXX)
R=$SHARE/rt
OUT=$R/out
G=$GSHARE/rt
failed=0

pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; failed=1; }
check() { # description command...
	local what=$1; shift
	if "$@" >/dev/null 2>&1; then pass "$what"; else fail "$what"; fi
}
has() { grep -qF -- "$2" "$OUT/$1"; }		# file text
hasx() { grep -qxF -- "$2" "$OUT/$1"; }		# file line
lacks() { ! grep -qF -- "$2" "$OUT/$1"; }
field() { sed -n "s/.*ktapread: .*\\b$2=\\([0-9]*\\).*/\\1/p" "$OUT/$1.err"; }

# ---- build and push ----
mkdir -p "$BUILD/runtime/test"
cp "$HERE"/../*.h "$BUILD/runtime/"
cp "$HERE"/* "$BUILD/runtime/test/"
if ! make -s -C "$BUILD/runtime/test" KVER="$KVER" all >"$BUILD/build.log" 2>&1 ||
   grep -q 'warning:' "$BUILD/build.log"; then
	cat "$BUILD/build.log"
	fail "build (warning-free)"
	exit 1
fi
pass "build (warning-free)"
rm -rf "$R"
mkdir -p "$OUT" "$R/cases"
cp "$BUILD"/runtime/test/{selftest.ko,selftest_bad.ko,maptest.ko,regextest.ko,ktapread} "$R/"
"$BUILD/runtime/test/fmtexpect" > "$OUT/fmt.expected"

# Common part of the guest scripts.
cat > "$R/lib.sh" <<EOF
D=/sys/kernel/debug/ktap_selftest
cd $G || exit 9
# selftest NAME "module params" ktapread-args...: load, run, unload
selftest() {
	name=\$1 params=\$2; shift 2
	insmod selftest.ko \$params || { echo insmod-failed > out/\$name.rc; return; }
	./ktapread run \$D "\$@" -o out/\$name.out 2> out/\$name.err
	echo \$? > out/\$name.rc
	rmmod selftest; echo \$? > out/\$name.rmmod
	grep -c . /sys/kernel/debug/kprobes/list > out/\$name.kprobes
}
EOF
gcase() { # name; the script on stdin
	{ echo ". $G/lib.sh"; cat; } > "$R/cases/$1.sh"
	timeout 600 "$GUESTCTL" "sh $G/cases/$1.sh" > "$OUT/$1.log" 2>&1
}
common() { # name: ran cleanly, module unloaded, no probe left
	check "$1: rmmod" hasx "$1.rmmod" 0
	check "$1: no kprobe left" hasx "$1.kprobes" 0
	check "$1: reader checks" lacks "$1.err" CHECK-FAILED
}
ordered() { # file prefix: the numbers after "prefix " are 1, 2, 3, ...
	awk -v p="$2" '$1 == p { if ($2 != ++n) exit 1 } END { exit n == 0 }' "$OUT/$1"
}

gcase dmesg-before <<<'dmesg -c > /dev/null'

# ---- normal run: begin conversions, timer, kprobe + kretprobe, end ----
gcase basic <<'EOF'
selftest basic "" -c "sleep 0.35; ./ktapread openloop 5 /tmp/rt-basic-"
EOF
common basic
check "basic: exit status 0" hasx basic.rc 0
grep '^fmt ' "$OUT/basic.out" > "$OUT/fmt.got"
check "basic: printf conversions = printf(3)" cmp "$OUT/fmt.got" "$OUT/fmt.expected"
grep -E '^(special|string|mem) ' "$OUT/basic.out" > "$OUT/special.got"
check "basic: SystemTap conversions and helpers" cmp "$OUT/special.got" "$HERE/expected-special.txt"
check "basic: begin first" hasx basic.out "begin begin"
check "basic: target 0" hasx basic.out "target 0"
check "basic: ticks in order" ordered basic.out tick
for i in 0 1 2 3 4; do
	check "basic: open /tmp/rt-basic-$i" grep -qE "^open [0-9]+ ktapread /tmp/rt-basic-$i\$" "$OUT/basic.out"
done
check "basic: end last" sh -c "tail -1 '$OUT/basic.out' | grep -qE '^end opens=[0-9]+ rets=[0-9]+ ticks=[0-9]+\$'"
check "basic: done 0 0" has basic.err "ctl: done 0 0"

# ---- exit() from a timer: ktap-run is asked to stop ----
gcase exit <<'EOF'
selftest exit "ktap_target=2" -t 20000
EOF
common exit
check "exit: status 0" hasx exit.rc 0
check "exit: 'exit' then 'done'" sh -c "grep '^ctl:' '$OUT/exit.err' | tr '\n' ' ' | grep -qx 'ctl: exit ctl: done 0 0 '"
check "exit: output" sh -c "grep -E '^(tick|timer|end)' '$OUT/exit.out' | tr '\n' ' ' | grep -qE '^tick 1 tick 2 tick 3 timer exit end opens=[0-9]+ rets=[0-9]+ ticks=3 \$'"

# ---- errors: reported once, stop the script; error probes run instead
# of end probes (stapprobes(3stap)), and selftest has none ----
err_case() { # name target message
	gcase "$1" <<<"selftest $1 ktap_target=$2 -t 20000"
	common "$1"
	check "$1: status 1" hasx "$1.rc" 1
	check "$1: error message" hasx "$1.err" "ctl: error $3"
	check "$1: then exit, done" sh -c "grep '^ctl:' '$OUT/$1.err' | tail -2 | tr '\n' ' ' | grep -qx 'ctl: exit ctl: done 0 0 '"
	check "$1: end did not run after the error" lacks "$1.out" "end opens="
	check "$1: handler stopped" lacks "$1.out" "not reached"
}
err_case div 1 "division by zero near operator '/' at selftest.stp:21:12"
err_case ufault 3 "user string copy fault at 0x1 near identifier 'user_string' at selftest.stp:30:5"
err_case maxaction 4 "MAXACTION exceeded near keyword 'for' at selftest.stp:40:3"
err_case maxnesting 5 "MAXNESTING exceeded near identifier 'recurse' at selftest.stp:9:20"
err_case frame 6 "MAXNESTING/frame space exceeded"

# ---- one hit printing 20 KB: several records, in order ----
gcase big <<'EOF'
selftest big "ktap_target=7" -t 600
EOF
common big
check "big: 40 lines in order" sh -c "grep '^big [0-9]' '$OUT/big.out' | awk '{ if (\$2 != sprintf(\"%02d\", n++) || length(\$3) != 480) exit 1 } END { exit n != 40 }'"
check "big: complete" hasx big.out "big end"

# ---- exit() in begin: nothing armed, end runs ----
gcase beginexit <<'EOF'
selftest beginexit "ktap_target=8" -t 20000 -c "./ktapread openloop 3 /tmp/rt-beginexit-"
EOF
common beginexit
check "beginexit: exit, done" sh -c "grep '^ctl:' '$OUT/beginexit.err' | tr '\n' ' ' | grep -qx 'ctl: exit ctl: done 0 0 '"
check "beginexit: no probe ran" sh -c "! grep -qE '^(tick|open) ' '$OUT/beginexit.out'"
check "beginexit: end" hasx beginexit.out "end opens=0 rets=0 ticks=0"

# ---- error in an end probe ----
gcase enderror <<'EOF'
selftest enderror "ktap_target=9" -t 300
EOF
common enderror
check "enderror: status 1" hasx enderror.rc 1
check "enderror: error, then done" sh -c "grep '^ctl:' '$OUT/enderror.err' | tr '\n' ' ' | grep -qx \"ctl: error error in end near identifier 'error' at selftest.stp:50:3 ctl: done 0 0 \""

# ---- warnings; a control ring overflow is counted, never blocks ----
gcase warn <<'EOF'
selftest warn "ktap_target=10" -t 300
EOF
common warn
check "warn: status 0" hasx warn.rc 0
check "warn: one line per message" hasx warn.err "ctl: warn selftest warning"
check "warn: 27 more fit" sh -c "test \$(grep -c '^ctl: warn flood' '$OUT/warn.err') = 27 && grep -qx 'ctl: warn flood 26' '$OUT/warn.err'"
check "warn: 13 lost, reported before done" sh -c "grep '^ctl:' '$OUT/warn.err' | tail -2 | tr '\n' ' ' | grep -qx 'ctl: warn 13 control messages lost ctl: done 0 0 '"

# ---- a required probe that cannot be armed fails start ----
gcase bad <<'EOF'
D=/sys/kernel/debug/ktap_selftest_bad
insmod selftest_bad.ko || exit 10
./ktapread run $D -t 2000 -o out/bad.out 2> out/bad.err; echo $? > out/bad.rc
echo stop > $D/ctl; echo $? > out/bad.stop
./ktapread ctl $D 2> out/bad.ctl
./ktapread drain $D > out/bad.drain
rmmod selftest_bad; echo $? > out/bad.rmmod
grep -c . /sys/kernel/debug/kprobes/list > out/bad.kprobes
EOF
check "bad: start fails" hasx bad.rc 2
check "bad: ENOENT" has bad.err "ktapread: start: No such file or directory"
check "bad: error message" hasx bad.err 'ctl: error cannot probe kprobe.function("no_such_function_ktap"): ENOENT'
check "bad: optional probe skipped silently" lacks bad.err no_such_function_ktap_opt
check "bad: stop after failed start answers done" hasx bad.ctl "ctl: done 0 0"
check "bad: begin ran" hasx bad.drain "bad begin"
check "bad: end did not run" lacks bad.drain "bad end"
check "bad: rmmod" hasx bad.rmmod 0
check "bad: no kprobe left" hasx bad.kprobes 0

# ---- driven by hand; unloading in every state ----
gcase states <<'EOF'
k() { grep -c . /sys/kernel/debug/kprobes/list; }
insmod selftest.ko && rmmod selftest && echo "never-started $(k)"
insmod selftest.ko && echo start > $D/ctl && cat /proc/version > /dev/null &&
	echo "armed $(k)" && rmmod selftest && echo "running $(k)"
insmod selftest.ko && echo start > $D/ctl && echo stop > $D/ctl &&
	rmmod selftest && echo "stopped $(k)"
insmod selftest.ko && echo stop > $D/ctl && ./ktapread ctl $D &&
	rmmod selftest && echo "stop-unstarted $(k)"
insmod selftest.ko
echo start > $D/ctl
echo start > $D/ctl || echo "second start refused"
echo bogus > $D/ctl || echo "bogus refused"
./ktapread drain $D | grep -c '^begin begin$' | sed 's/^/drain begin: /'
./ktapread wait $D 2000 > /tmp/wait.txt; cat /tmp/wait.txt
cat $D/ctl > /tmp/ctl.txt &
pid=$!
sleep 0.3
echo stop > $D/ctl
sleep 0.3
kill $pid
echo "blocking read: $(cat /tmp/ctl.txt)"
./ktapread ctl $D && echo "nonblocking read empty"
rmmod selftest && echo "rmmod $(k)"
EOF
for l in "never-started 0" "armed 2" "running 0" "stopped 0" "ctl: done 0 0" "stop-unstarted 0" \
	 "second start refused" "bogus refused" "blocking read: done 0 0" "nonblocking read empty" \
	 "drain begin: 1" "rmmod 0"; do
	check "states: $l" hasx states.log "$l"
done
w=$(sed -n 's/^wait: readable after \([0-9]*\) ms$/\1/p' "$OUT/states.log")
check "states: poll() woken by the next tick (${w:-never} ms)" test "${w:-9999}" -le 250

# ---- drops: a tiny buffer nobody reads ----
gcase drop <<'EOF'
selftest drop "ktap_bufsize=65536" -n -c "./ktapread openloop 20000 /tmp/rt-drop-"
EOF
common drop
d=$(field drop dropped); n=$(field drop records); m=$(field drop maxseq)
check "drop: records dropped (${d:-?})" test "${d:-0}" -gt 0
check "drop: read + dropped >= seq (${n:-?} + ${d:-?} >= ${m:-?})" test $(( ${n:-0} + ${d:-0} )) -ge "${m:-1}"
check "drop: oldest records kept" grep -qE '^open [0-9]+ ktapread /tmp/rt-drop-0$' "$OUT/drop.out"

# ---- flood: 20,000 opens with a reader draining lose nothing ----
flood() { # name cpu-of-reader cpu-of-opener
	local r=${2:+taskset -c $2} o=${3:+taskset -c $3}
	gcase "$1" <<<"insmod selftest.ko || exit 10
$r ./ktapread run \$D -c \"$o ./ktapread openloop 20000 /tmp/$1-\" -o out/$1.out 2> out/$1.err; echo \$? > out/$1.rc
rmmod selftest; echo \$? > out/$1.rmmod
grep -c . /sys/kernel/debug/kprobes/list > out/$1.kprobes"
	common "$1"
	check "$1: status 0" hasx "$1.rc" 0
	check "$1: dropped 0" test "$(field "$1" dropped)" = 0
	check "$1: 20000 distinct opens" test "$(grep -E "^open [0-9]+ ktapread /tmp/$1-[0-9]+\$" "$OUT/$1.out" | sort -u | wc -l)" = 20000
}
flood flood-cross 0 1
flood flood-same 1 1
flood flood-free "" ""

# ---- arrays and statistics (maptest.ko) ----
# begin runs every map.h/stat.h operation on known data; two openat loops,
# one per CPU, feed statistics under the read lock meanwhile.
maptest() { # name target ktapread-args (one line of guest shell)
	gcase "$1" <<EOF
M=/sys/kernel/debug/ktap_maptest
insmod maptest.ko ktap_target=$2 || { echo insmod-failed > out/$1.rc; exit 10; }
./ktapread run \$M $3 -o out/$1.out 2> out/$1.err; echo \$? > out/$1.rc
rmmod maptest; echo \$? > out/$1.rmmod
grep -c . /sys/kernel/debug/kprobes/list > out/$1.kprobes
EOF
	common "$1"
}
maptest maps 0 '-c "taskset -c 0 ./ktapread openloop 20000 /tmp/mtA- & taskset -c 1 ./ktapread openloop 20000 /tmp/mtB-; wait"'
check "maps: exit status 0" hasx maps.rc 0
check "maps: nothing dropped" grep -qE '^ctl: done 0 [0-9]+$' "$OUT/maps.err"
sed -n '/^t begin$/,/^t end /p' "$OUT/maps.out" > "$OUT/maps.got"
check "maps: begin results = maptest-expected.txt" cmp "$OUT/maps.got" "$HERE/maptest-expected.txt"
for l in "end pc A 20000 199990000 0 19999" "end pc B 20000 199990000 0 19999" \
	 "end ps 40000 399980000 0 19999 cpus 2" "end pc size 2 cpus 2"; do
	check "maps: per-CPU statistics: $l" hasx maps.out "$l"
done
check "maps: foreach merges the CPUs" grep -qE '^t pc @count-: [AB]=20000/199990000/0/19999/9999 [AB]=20000/199990000/0/19999/9999$' "$OUT/maps.out"
check "maps: timer statistic = tick count" grep -qE '^end ticks ok [1-9][0-9]*$' "$OUT/maps.out"

maptest maps-full 1 '-t 20000'
check "maps-full: status 1" hasx maps-full.rc 1
check "maps-full: error message" hasx maps-full.err "ctl: error array 'small' is full (MAXMAPENTRIES 4) near identifier 'small' at maptest.stp:7:3"
maptest maps-nested 2 '-t 20000'
check "maps-nested: status 1" hasx maps-nested.rc 1
check "maps-nested: error message" hasx maps-nested.err "ctl: error nested foreach over array 'srt' near keyword 'foreach' at maptest.stp:9:5"

# ---- regex.h: the patterns' programs against glibc's regexec() results ----
gcase regex <<'EOF'
for i in 11 22 33; do : > /tmp/regex-$i; done
ktap-run -o out/regex.out -c "sh -c 'cat /tmp/regex-11 /tmp/regex-22 /tmp/regex-33; sleep 0.1'" regextest.ko > out/regex.err 2>&1
echo $? > out/regex.rc
EOF
check "regex: exit status 0" hasx regex.rc 0
check "regex: every case as regexec(3), no FAIL line" sh -c "grep -qE '^regextest: [1-9][0-9]* checks, 0 failed\$' '$OUT/regex.out' && ! grep -q '^FAIL' '$OUT/regex.out'"
check "regex: =~ and matched() in a kprobe, a timer, try/catch" hasx regex.out "end opens=3 sum=66 bad=0 resets counted"

# ---- the kernel log stayed clean ----
gcase dmesg <<'EOF'
dmesg
EOF
check "dmesg: no warning, bug or oops" sh -c "! grep -E 'WARNING|BUG|Oops|Call Trace|ktap:|general protection' '$OUT/dmesg.log'"

rm -rf "$BUILD"
[ $failed = 0 ] && echo "ALL PASSED" || echo "SOME FAILED"
exit $failed
