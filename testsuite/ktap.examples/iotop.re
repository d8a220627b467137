^PID    COMM               READ_KB  WRITE_KB  READS WRITES$
^[0-9]+ +dd +4000 +4000 +1000 +100[0-9]$
