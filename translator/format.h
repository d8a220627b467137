/* format.h - printf-style format strings, checked at translate time. */
#ifndef KTAP_FORMAT_H
#define KTAP_FORMAT_H

#include "ast.h"

#define FORMAT_MAX_ARGS 64

/* one argument a format consumes: a conversion or a '*' width/precision */
struct format_spec {
	enum type type;
	char text[16];		/* the conversion as written, e.g. "%-8s" */
};

/* Parse fmt; fill specs with what each argument must be. Returns the
 * number of arguments, or -1 after reporting an error (when report). */
int format_parse(const char *fmt, struct format_spec *specs, int max,
		 const struct srcloc *loc, bool report);

#endif
