^ 0xffffffff[0-9a-f]+ : vfs_read\+0x[0-9a-f]+/0x[0-9a-f]+$
^ 0xffffffff[0-9a-f]+ : ksys_read\+0x[0-9a-f]+/0x[0-9a-f]+$
^ 0xffffffff[0-9a-f]+ : do_syscall_64\+0x[0-9a-f]+/0x[0-9a-f]+$
^first frame: vfs_read$
^print_stack == print_backtrace: 1$
^symdata: 1$
