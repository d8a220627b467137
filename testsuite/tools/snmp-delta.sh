#!/bin/sh
# snmp-delta.sh COMMAND...: run COMMAND (its output to /dev/null) and
# print how much each IP and TCP counter of /proc/net/snmp grew meanwhile,
# as "guest ip_NAME N" and "guest tcp_NAME N" lines (for the tests of the
# ipmib.* and tcpmib.* aliases)
snap() {
	awk '$1 == "Ip:" || $1 == "Tcp:" {
		p = tolower(substr($1, 1, length($1) - 1))
		if (!(p in seen)) { for (i = 2; i <= NF; i++) name[p, i] = $i; seen[p] = 1; next }
		for (i = 2; i <= NF; i++) print p "_" name[p, i], $i
	}' /proc/net/snmp
}
before=$(snap)
"$@" >/dev/null
after=$(snap)
printf '%s\n' "$before" > /tmp/snmp-before.$$
printf '%s\n' "$after" | awk -v f=/tmp/snmp-before.$$ '
	BEGIN { while ((getline l < f) > 0) { split(l, a, " "); old[a[1]] = a[2] } }
	{ print "guest " $1, $2 - old[$1] }'
rm -f /tmp/snmp-before.$$
