/* sysdoc.h - SystemTap's documented syscall variables and what they mean
 * here: syscalls.c writes them into the generated syscall.NAME aliases,
 * the -L listing and the warning about a variable an alias does not set
 * name them. */
#ifndef KTAP_SYSDOC_H
#define KTAP_SYSDOC_H

#include <stdbool.h>

#include "ktap.h"

/* one argument of the kernel's call, as syscalls.c reads it */
struct sysdoc_arg {
	const char *name;	/* the kernel's name, or "argN" */
	const char *type;	/* "const char __user *" */
	const char *read;	/* its value as a script expression: "__sc_int(1)" */
	bool is_string;		/* a C string the caller passes */
};

/* the name SystemTap documents the kernel call under: "pread" for
 * pread64, "mmap2" for mmap; else the call's own name */
const char *sysdoc_probe_name(const char *call);

/* the documented variables of the kernel call (space-separated, without
 * name and argstr), or NULL when the page has no such probe */
const char *sysdoc_documented(const char *call);

/* Writes "\tVAR = EXPR\n" for each documented variable of the call that
 * ktap can compute, into sb; returns the names it set, NULL-terminated
 * (the caller does not set a kernel-named variable of the same name), and
 * in *missing the documented names it cannot compute, space-separated. */
char **sysdoc_emit(struct strbuf *sb, const char *call, const struct sysdoc_arg *args,
		   int nargs, char **missing);

#endif
