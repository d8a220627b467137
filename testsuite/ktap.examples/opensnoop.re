^PID    COMM               FD ERR PATH$
^[0-9]+ +cat +3   0 /etc/hostname$
^[0-9]+ +cat +-1   2 /etc/no-such-file$
