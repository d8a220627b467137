^frames 1 agree 1 1 1$
^-- brief$
^clock_nanosleep\+0x0$
^nanosleep\+0x[0-9a-f]+$
^0x[0-9a-f]+$
^__libc_start_call_main\+0x[0-9a-f]+$
^__libc_start_main_impl\+0x[0-9a-f]+$
^0x[0-9a-f]+$
^-- simple$
^clock_nanosleep\+0x0 \[libc\.so\.6\]$
^nanosleep\+0x[0-9a-f]+ \[libc\.so\.6\]$
^0x[0-9a-f]+ \[sleep\+0x[0-9a-f]+\]$
^__libc_start_call_main\+0x[0-9a-f]+ \[libc\.so\.6\]$
^__libc_start_main_impl\+0x[0-9a-f]+ \[libc\.so\.6\]$
^0x[0-9a-f]+ \[sleep\+0x[0-9a-f]+\]$
^-- full$
^ 0x[0-9a-f]+ : clock_nanosleep\+0x0/0x[0-9a-f]+ \[/usr/lib/x86_64-linux-gnu/libc\.so\.6\]$
^ 0x[0-9a-f]+ : nanosleep\+0x[0-9a-f]+/0x[0-9a-f]+ \[/usr/lib/x86_64-linux-gnu/libc\.so\.6\]$
^ (0x[0-9a-f]+) : \1 \[/usr/bin/sleep\+0x[0-9a-f]+\]$
^ 0x[0-9a-f]+ : __libc_start_call_main\+0x[0-9a-f]+/0x[0-9a-f]+ \[/usr/lib/x86_64-linux-gnu/libc\.so\.6\]$
^ 0x[0-9a-f]+ : __libc_start_main_impl\+0x[0-9a-f]+/0x[0-9a-f]+ \[/usr/lib/x86_64-linux-gnu/libc\.so\.6\]$
^ (0x[0-9a-f]+) : \1 \[/usr/bin/sleep\+0x[0-9a-f]+\]$
^-- from registers$
^ 0x[0-9a-f]+ : clock_nanosleep\+0x0/0x[0-9a-f]+ \[/usr/lib/x86_64-linux-gnu/libc\.so\.6\]$
^ 0x[0-9a-f]+ : nanosleep\+0x[0-9a-f]+/0x[0-9a-f]+ \[/usr/lib/x86_64-linux-gnu/libc\.so\.6\]$
^ 0x[0-9a-f]+ : __libc_start_main_impl\+0x[0-9a-f]+/0x[0-9a-f]+ \[/usr/lib/x86_64-linux-gnu/libc\.so\.6\]$
^-- usyms$
^ 0x[0-9a-f]+ : clock_nanosleep\+0x0/0x[0-9a-f]+ \[/usr/lib/x86_64-linux-gnu/libc\.so\.6\]$
^ 0x[0-9a-f]+ : nanosleep\+0x[0-9a-f]+/0x[0-9a-f]+ \[/usr/lib/x86_64-linux-gnu/libc\.so\.6\]$
^ 0x[0-9a-f]+ : nanosleep\+0x[0-9a-f]+/0x[0-9a-f]+ \[/usr/lib/x86_64-linux-gnu/libc\.so\.6\]$
^nanosleep\+0x[0-9a-f]+/0x[0-9a-f]+ \[/usr/lib/x86_64-linux-gnu/libc\.so\.6\]$
