^header 1, data 8 bytes after it: 8$
