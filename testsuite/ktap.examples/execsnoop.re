^PID    PPID   RET PATH ARGS$
^[0-9]+ +[0-9]+ +0 /bin/true /bin/true one two$
^[0-9]+ +[0-9]+ +-2 /bin/no-such-program /bin/no-such-program$
