^vfs_read: 300 calls, avg [0-9]+ us$
^ *value \|-+ count$
^ *[0-9]+ \|@+ +[0-9]+$
