^kmalloc seen: yes$
^mm_struct from its slab cache: 2$
^frees seen: yes$
