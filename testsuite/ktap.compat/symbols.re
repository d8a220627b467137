^caller: ksys_write, 1$
^stack: 1 1 ksys_write$
^callers: 1$
^ 0xffffffff[0-9a-f]+ : ksys_write\+0x[0-9a-f]+/0x[0-9a-f]+$
^ 0xffffffff[0-9a-f]+ : ksys_write\+0x[0-9a-f]+/0x[0-9a-f]+$
^modname: kernel$
^stack\(1000\): the $
^modname: no kernel symbol or module holds 0x0$
^sleep\(1\) sleeps in schedule\(\)$
^another CPU's or no task: \[\]$
^module: 9p 9p$
