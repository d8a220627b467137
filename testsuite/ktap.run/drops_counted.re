^0+$
^end ran$
