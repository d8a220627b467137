// SPDX-License-Identifier: GPL-2.0
/*
 * fmtexpect - print the cases of fmtcases.h with the C library's printf,
 * the reference for selftest.c's "fmt" lines. Host tool.
 */
#include <stdio.h>
#include <string.h>

/* Copy fmt, inserting "ll" before each integer conversion. */
static const char *ll(const char *fmt)
{
	static char out[128];
	char *o = out;

	while (*fmt) {
		*o++ = *fmt;
		if (*fmt++ != '%')
			continue;
		if (*fmt == '%') {
			*o++ = *fmt++;
			continue;
		}
		while (*fmt && strchr("-+ #0123456789.*", *fmt))
			*o++ = *fmt++;
		if (*fmt && strchr("diuxXo", *fmt)) {
			*o++ = 'l';
			*o++ = 'l';
		}
	}
	*o = '\0';
	return out;
}

int main(void)
{
	int n = 0;

#define FMT_I(f, v) printf("fmt %d [", n++), printf(ll(f), (long long)(v)), printf("]\n");
#define FMT_S(f, s) printf("fmt %d [", n++), printf(f, s), printf("]\n");
#define FMT_WI(f, w, v) printf("fmt %d [", n++), printf(ll(f), (int)(w), (long long)(v)), printf("]\n");
#define FMT_WS(f, w, s) printf("fmt %d [", n++), printf(f, (int)(w), s), printf("]\n");
#define FMT_WPS(f, w, p, s) printf("fmt %d [", n++), printf(f, (int)(w), (int)(p), s), printf("]\n");
#include "fmtcases.h"
	KTAP_FMT_CASES
	return 0;
}
