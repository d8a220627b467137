^change_mtu lo 1400 -> 1500$
^ioctl SIOCGIFINDEX$
^change_mac lo 6 02:00:00:00:00:02 -> 02:00:00:00:00:01$
^set_promiscuity lo inc 1 enable 1 disable 0$
^change_rx_flag lo 0x100$
^set_promiscuity lo inc -1 enable 0 disable 1$
^change_rx_flag lo 0x100$
^close lo$
^open lo$
^change_mtu lo 1500 -> 65536$
^ping: 2 or more sent, 2 or more received on lo$
^/proc/net/dev read lo's stats: yes$
