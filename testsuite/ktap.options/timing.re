^hi$
^6$
^----- probe hit report: $
^begin, \(timing.stp:2:1\), hits: 1, cycles: [1-9][0-9]*min/[1-9][0-9]*avg/[1-9][0-9]*max, from: begin, index: 0$
^timer.ms\(10\), \(timing.stp:3:1\), hits: 6, cycles: [1-9][0-9]*min/[1-9][0-9]*avg/[1-9][0-9]*max, from: timer.ms\(10\), index: 1$
^end, \(timing.stp:4:1\), hits: 1, cycles: [1-9][0-9]*min/[1-9][0-9]*avg/[1-9][0-9]*max, from: end, index: 2$
