/* tapdoc.h - the tapset library described (tapdoc.c): the --dump-*
 * options and --check-doc. */
#ifndef KTAP_TAPDOC_H
#define KTAP_TAPDOC_H

#include "ktap.h"

enum tapdoc_what {
	TAPDOC_FUNCTIONS,	/* --dump-functions: "name:type (p:type, ...)" */
	TAPDOC_ALIASES,		/* --dump-probe-aliases: "name var:type ..." */
	TAPDOC_MAN,		/* --dump-doc: the ktap-tapsets(7) man page */
	TAPDOC_CHECK,		/* --check-doc: every function and alias documented */
};

/* write what was asked to stdout (errors to diag); the exit status */
int tapdoc_run(struct options *opt, enum tapdoc_what what);

#endif
