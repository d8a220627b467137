/* aliasvars.h - the variables a probe alias sets, for -L and for the
 * warning about a variable it does not set */
#ifndef KTAP_ALIASVARS_H
#define KTAP_ALIASVARS_H

#include "program.h"

/* " name:string fd:long buf_uaddr:long ...": what the handler's aliases
 * set, in the order they set it ("" for a handler of no alias) */
char *alias_vars_text(const struct resolved_probe *rp);

/* after "variable 'S' is read but never given a value": the notes that
 * name the probe's alias and what it sets, with the closest name (once
 * per place in the script, however many aliases a wildcard reached) */
void alias_vars_note(const struct resolved_probe *rp, const struct symbol *s);


/* SystemTap's DWARF-less syscall families, nd_syscall.NAME,
 * nd1_syscall.NAME and nd2_syscall.NAME, are syscall.NAME here (the same
 * raw tracepoints and variables: ktap needs no DWARF for them). The
 * point as syscall.NAME, with *family "nd_syscall"; pp itself and NULL
 * for any other point. */
const struct probe_point *alias_family_point(const struct probe_point *pp,
					     const char **family);

/* "syscall.read" as the user named it: "nd_syscall.read" */
char *alias_family_name(const char *alias_text, const char *family);

#endif
