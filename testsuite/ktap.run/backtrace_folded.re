^([a-z_0-9.]+;)*entry_SYSCALL_64_after_hwframe;do_syscall_64;ksys_read;vfs_read$
^([a-z_0-9.]+;)*entry_SYSCALL_64_after_hwframe;do_syscall_64;ksys_read;vfs_read$
^leaf: vfs_read$
^frames: 1$
