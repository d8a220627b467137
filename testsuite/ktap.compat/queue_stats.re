^blocked as expected$
^utilization as expected$
^wait queue length as expected$
^service time as expected$
^wait time as expected$
^throughput as expected$
^q: 1 ops/s, 0\.2[0-9] qlen, [34][0-9]{5} await, [12][0-9]{5} svctm, 2[0-9]% wait, 2[0-9]% util$
^restarted: 0 0$
