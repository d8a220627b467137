^COMM +CALLS$
^dd +100[0-9][0-9]$
