^([1-9][0-9]*) of \1 CPUs at 100 Hz$
