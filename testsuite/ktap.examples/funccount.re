^FUNC +COUNT$
^vfs_write +30[0-9]$
^vfs_read +300$
