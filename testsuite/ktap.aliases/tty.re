^init pty_master ptm module ''$
^open mode read\+write flags O_RDWR$
^ioctl TIOCSWINSZ on the slave$
^resize 0x0 \(0x0 px\) -> 24x80 \(640x384 px\)$
^ioctl TIOCSWINSZ on the slave$
^resize 24x80 \(640x384 px\) -> 50x132 \(1056x800 px\)$
^write pty_master 3 hi$
^poll POLLIN$
^read pty_slave room 16$
^write pty_slave 3 ok$
^release the slave$
^release ptmx$
^receive pty_slave 3 id pts major, its index: hi$
