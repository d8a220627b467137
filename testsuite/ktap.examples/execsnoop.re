^PID    PPID   RET PATH ARGS$
^[0-9]+ +[0-9]+ +0 /bin/sh sh -c sh -c '/bin/true one two; /bin/no-such-program; true'$
^[0-9]+ +[0-9]+ +0 /bin/true /bin/true one two$
^[0-9]+ +[0-9]+ +-2 /bin/no-such-program /bin/no-such-program$
