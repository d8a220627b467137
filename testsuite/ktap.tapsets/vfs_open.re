^vfs.open hostname ino set$
^vfs.open.return hostname ret 0 error 0$
