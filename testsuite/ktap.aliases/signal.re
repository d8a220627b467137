^do_action SIGUSR1 10 handler set$
^syskill SIGUSR1 10$
^syskill task is the sender$
^checkperm SIGUSR1 to self si_code 0$
^checkperm.return 0$
^wakeup self TASK_INTERRUPTIBLE resume 0$
^send SIGUSR1 shared 1 send2queue 0$
^syskill.return 0$
^handle SIGUSR1 code 0 mode user$
^syskill SIGTERM 15$
^checkperm SIGTERM to another si_code 0$
^checkperm.return 0$
^wakeup another TASK_INTERRUPTIBLE\|TASK_TRACED\|TASK_WAKEKILL resume 1$
^send SIGTERM shared 1 send2queue 0$
^syskill.return 0$
