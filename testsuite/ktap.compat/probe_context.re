^begin: begin, regs 0, user 0, addr 0, func \[\], mod \[\], -1 no remote$
^stack: 1, used 1, 1$
^kprobe: kprobe, regs 1, user 0, addr ksys_write, func ksys_write, mod kernel$
^RIP: 0010:\[<ffffffff[0-9a-f]{8}>\] ksys_write\+0x[0-9a-f]+/0x[0-9a-f]+$
^RSP: 0018:ffff[0-9a-f]{12} EFLAGS: [0-9a-f]{8}$
^RAX: [0-9a-f]{16} RBX: [0-9a-f]{16} RCX: [0-9a-f]{16}$
^RDX: 0000000000000008 RSI: [0-9a-f]{16} RDI: 0000000000000001$
^RBP: [0-9a-f]{16} R08: [0-9a-f]{16} R09: [0-9a-f]{16}$
^R10: [0-9a-f]{16} R11: [0-9a-f]{16} R12: [0-9a-f]{16}$
^R13: [0-9a-f]{16} R14: [0-9a-f]{16} R15: [0-9a-f]{16}$
^task: 1 1 sh 120 0 0$
^user: 107 99 c$
^kernel.function: kprobe, func vfs_write, mod kernel$
^kernel: s 115 1 1 1 1 1$
^ 0xffffffff[0-9a-f]{8} : vfs_write\+0x[0-9a-f]+/0x[0-9a-f]+$
^strings: ab 1 0 2 -1$
^return: kretprobe, returnstr 8 0x8 010$
^tracepoint: tracepoint, regs 0, func \[\], mod kernel$
^end: end, regs 0$
