^ioblock_trace\.request write sector 80 size 4096 vcnt 1 idx 0 ino 0 whole disk itself$
^elv_add_request\.kp mq-deadline op 1 queue of the request$
^elv_add_request\.tp mq-deadline op 1$
^elv_issue_request mq-deadline op 1$
^elv_next_request\.return op 1$
^elv_completed_request mq-deadline op 1$
^ioblock_trace\.request write sector 88 size 4096 vcnt 1 idx 0 ino 0 whole disk itself$
^elv_add_request\.kp mq-deadline op 1 queue of the request$
^elv_add_request\.tp mq-deadline op 1$
^elv_issue_request mq-deadline op 1$
^elv_next_request\.return op 1$
^elv_completed_request mq-deadline op 1$
^plugged yes, unplugged as it slept yes$
