^openat\(AT_FDCWD, "/etc/no-such-file", O_RDONLY\) = -2 \(ENOENT\)$
^write\(2, 0x[0-9a-f]+, [0-9]+\) = [0-9]+$
^exit_group\(1\) = \?$
