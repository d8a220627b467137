/* cachefile.h - small derived files in the private cache (cachefile.c):
 * what ktap computed once from an input file and can read back cheaply
 * while the input is unchanged (the tapset index, the kernel's function
 * names, the generated syscalls tapset's inputs). */
#ifndef KTAP_CACHEFILE_H
#define KTAP_CACHEFILE_H

#include <stdbool.h>
#include <stddef.h>

/* <cache>/NAME, made private; NULL when the cache cannot be trusted (one
 * warning, from the first call) */
char *cachefile_dir(const char *name);

/* a private directory NAME of this run's, removed when ktap exits: for
 * what must be a file even when the cache cannot be used */
char *cachefile_run_dir(const char *name);

/* "SIZE MTIME_NS CTIME_NS INODE DEVICE" of a file, NULL if it is not
 * there: any write changes it (ctime cannot be set back by touch) */
char *cachefile_identity(const char *path);

/* write a whole file so readers see the old one or the new one, never a
 * part: a temporary file renamed over it; false if it cannot */
bool cachefile_write(const char *path, const char *data, size_t len);

/* the file's text if its first line is exactly HEADER and its last line
 * "end" (so a torn or foreign file is not trusted); NULL otherwise. *body
 * points after the header line; the "end" line is cut off. */
char *cachefile_read(const char *path, const char *header, char **body);

#endif
