^from system: Linux$
^a second line$
^\\ a backslash$
