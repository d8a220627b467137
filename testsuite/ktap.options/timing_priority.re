^late$
^----- probe hit report: $
^end\(1000\), \(timing_priority.stp:1:1\), hits: 1, 
^begin, \(timing_priority.stp:2:1\), hits: 1, 
