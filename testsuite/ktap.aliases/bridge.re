^pf bridge, LLC SAP 0x42, header 1, LLC PDU 14 bytes after it: 14$
^protocol id 0, version 0, type 0$
^message age 0$
