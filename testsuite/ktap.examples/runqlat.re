^run queue latency: [0-9]+ waits, max [0-9]+ us$
^ *value \|-+ count$
^ *[0-9]+ \|@+ +[0-9]+$
