^[0-9]+ times cat in D state:$
^ 0xffffffff[0-9a-f]+ : schedule\+0x[0-9a-f]+/0x[0-9a-f]+$
^ 0xffffffff[0-9a-f]+ : p9_client_read\+0x[0-9a-f]+/0x[0-9a-f]+ \[9pnet\]$
^ 0xffffffff[0-9a-f]+ : entry_SYSCALL_64_after_hwframe\+
