^([1-9][0-9]*) of \1 CPUs at 50 Hz, \1 CPUs ticking faster$
