^signal\.do_action\.return 0$
^signal\.sys_tgkill SIGUSR1 to itself$
^signal\.check_ignored SIGUSR1 of sigpair$
^signal\.send\.return 0 shared 0$
^signal\.sys_tgkill\.return 0$
^signal\.sys_tkill SIGUSR2 to its tid \(sigpair\)$
^signal_send 12$
^signal\.send\.return 0 shared 0$
^signal\.sys_tkill\.return 0$
^signal\.procmask SIG_BLOCK SIGUSR1$
^signal\.sys_tgkill SIGUSR1 to itself$
^signal\.check_ignored SIGUSR1 of sigpair$
^signal\.send\.return 0 shared 0$
^signal\.sys_tgkill\.return 0$
^signal\.pending set size 8$
^signal\.pending\.return 0$
^signal\.procmask SIG_UNBLOCK SIGUSR1$
^signal\.send_sig_queue SIGALRM to sigpair$
^signal\.send_sig_queue\.return 0$
^procmask\.return 0$
