^timer softirq seen$
^virtio handler returned IRQ_HANDLED: yes$
^work run by a kworker seen$
^timer softirq exit seen$
^work queued seen$
^scheduler ticks seen$
