#!/bin/sh
# run.sh - pass-1 checks with the translator/tests/p1 driver.
#
# Every NAME.stp must parse and survive the round trip (print, parse the
# printing, print again: identical). NAME.flags holds extra p1 options,
# NAME.args the script arguments. err-NAME.stp must fail with exactly the messages
# in err-NAME.err (stderr, error lines only).
here=$(cd "$(dirname "$0")" && pwd)
tr="$here/../../translator"
make -s -C "$tr" -f tests/Makefile.p1 >/dev/null || exit 1
p1="$tr/tests/p1"
cd "$here" || exit 1
pass=0 fail=0
for f in *.stp; do
	name=${f%.stp}
	flags=$(cat "$name.flags" 2>/dev/null)
	args=$(cat "$name.args" 2>/dev/null)
	case $name in
	err-*)
		eval "\"$p1\" $flags $f $args" >/dev/null 2>"/tmp/p1.$$.err"
		rc=$?
		grep -E '(error|warning|note):' "/tmp/p1.$$.err" >"/tmp/p1.$$.got"
		if [ $rc -eq 1 ] && cmp -s "/tmp/p1.$$.got" "$name.err"; then
			pass=$((pass + 1))
		else
			echo "FAIL: $f (exit $rc)"; diff "$name.err" "/tmp/p1.$$.got"
			fail=$((fail + 1))
		fi ;;
	*)
		if eval "\"$p1\" -r $flags $f $args" >/dev/null 2>"/tmp/p1.$$.err"; then
			pass=$((pass + 1))
		else
			echo "FAIL: $f"; cat "/tmp/p1.$$.err"
			fail=$((fail + 1))
		fi ;;
	esac
done
rm -f "/tmp/p1.$$.err" "/tmp/p1.$$.got"
echo "parse-samples: $pass passed, $fail failed"
[ $fail -eq 0 ]
