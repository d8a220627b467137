^SYSCALL +COUNT$
^(read|write) +50[0-9][0-9]$
^(read|write) +50[0-9][0-9]$
