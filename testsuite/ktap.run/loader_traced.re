^ktap-run kernel\.syscall\("read"\) [1-9][0-9]*$
^done$
