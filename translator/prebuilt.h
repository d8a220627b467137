/* prebuilt.h - the per-tree prebuilt object's unit (emit.c), for pass 4
 * (build.c); see runtime/api.h */
#ifndef KTAP_PREBUILT_H
#define KTAP_PREBUILT_H

#include "ktap.h"

/* the C of the prebuilt object: the #define lines of a script's file
 * (defines), the runtime, the tapsets' top-level embedded C, and each
 * tapset function runtime/api.h lets a light unit call; *symbols lists
 * those functions' symbols, one a line. NULL if a tapset has errors. */
char *emit_prebuilt_unit(const struct options *opt, const char *defines, char **symbols);

#endif
