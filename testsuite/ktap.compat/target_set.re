^in the set: target 1, the writer.s parent 1, the writer 1$
^not in it: init 0, ktap-run 0, no process 0$
^the writer's parent is the target's child: 1$
^target set:$
^[0-9]+ sh$
^[0-9]+ sh <- [0-9]+$
^[0-9]+ sh <- [0-9]+$
