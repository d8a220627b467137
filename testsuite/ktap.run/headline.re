^cat\([0-9]+\) open "/etc/hostname"$
