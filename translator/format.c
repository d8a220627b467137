/* format.c - SystemTap printf formats: %[flags][width][.precision][length]conv
 * with flags "-+ #0", '*' width/precision, length l/ll/h/hh/z/L (ignored:
 * every integer is 64-bit), conversions d i u x X o c p b s m M %.
 * %m and %M take an address and show the kernel memory there (raw or in
 * hex; the precision is the byte count), as in SystemTap.
 */
#include <string.h>

#include "ktap.h"
#include "format.h"

static enum type conversion_type(char c)
{
	switch (c) {
	case 'd': case 'i': case 'u': case 'x': case 'X': case 'o':
	case 'c': case 'p': case 'b': case 'B':
		return TY_LONG;
	case 'm': case 'M':	/* the address of kernel memory to show */
		return TY_LONG;
	case 's':
		return TY_STRING;
	default:
		return TY_UNKNOWN;
	}
}

static bool add_spec(struct format_spec *specs, int *n, int max, enum type t,
		     const char *start, const char *end)
{
	size_t len = end - start;

	if (*n >= max)
		return false;
	specs[*n].type = t;
	if (len >= sizeof(specs[*n].text))
		len = sizeof(specs[*n].text) - 1;
	memcpy(specs[*n].text, start, len);
	specs[*n].text[len] = '\0';
	(*n)++;
	return true;
}

/* skip digits or one '*', which consumes a long argument */
static const char *number_or_star(const char *p, struct format_spec *specs,
				  int *n, int max, const char *start, bool *ok)
{
	if (*p == '*') {
		*ok = add_spec(specs, n, max, TY_LONG, start, p + 1);
		return p + 1;
	}
	while (*p >= '0' && *p <= '9')
		p++;
	return p;
}

int format_parse(const char *fmt, struct format_spec *specs, int max,
		 const struct srcloc *loc, bool report)
{
	const char *p = fmt;
	int n = 0;

	while ((p = strchr(p, '%'))) {
		const char *start = p++;
		bool ok = true;
		enum type t;

		if (*p == '%') {
			p++;
			continue;
		}
		while (*p && strchr("-+ #0", *p))
			p++;
		p = number_or_star(p, specs, &n, max, start, &ok);
		if (*p == '.')
			p = number_or_star(p + 1, specs, &n, max, start, &ok);
		while (*p && strchr("lhzLjt", *p))
			p++;
		t = conversion_type(*p);
		if (t == TY_UNKNOWN) {
			if (report)
				diag_error(loc, *p ? "unknown conversion '%%%c' in format"
						   : "format ends in the middle of a conversion", *p);
			return -1;
		}
		if (!ok || !add_spec(specs, &n, max, t, start, p + 1)) {
			if (report)
				diag_error(loc, "format has more than %d conversions", max);
			return -1;
		}
		p++;
	}
	return n;
}
