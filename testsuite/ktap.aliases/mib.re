^InSegs counted: yes$
^OutSegs counted: yes$
