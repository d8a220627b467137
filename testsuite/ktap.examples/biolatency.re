^block I/O latency: 20 bios, max [0-9]+ us$
^ *value \|-+ count$
^ *[0-9]+ \|@+ +[0-9]+$
