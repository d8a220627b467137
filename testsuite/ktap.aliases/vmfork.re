^munmap: 16 write faults in the mapping$
^mmap of one page at any address$
^wakeup_new state 0$
^kprocess.start in the child: yes$
^write_shared in the child at the page written before the fork$
^write_shared_copy: zero page 0$
^process_exit of the child: pid is tgid$
^process_wait for a pid$
