/* regex.h - POSIX extended regular expressions for =~ and !~, compiled at
 * translate time into programs for the runtime's Pike VM (runtime/regex.h).
 *
 * regex_compile() parses the pattern (always a string literal) and returns
 * the program, or NULL and a message; regex_emit_c() writes the program as
 * the C array the generated module passes to ktap_regex_match().
 */
#ifndef KTAP_REGEX_H
#define KTAP_REGEX_H

/* Groups a pattern may have, group 0 (the whole match) included; the same
 * as KTAP_RE_MAXGROUPS in runtime/context.h. */
#define REGEX_MAXGROUPS 16

/* Bytes of the per-CPU frame arena one match may use; the same formula
 * as KTAP_RE_WORKSIZE in runtime/regex.h (nthreads: the CHAR, ANY, CLASS
 * and MATCH instructions). Larger patterns are "regex too complex". */
#define REGEX_MAXWORK 8192
#define REGEX_WORKSIZE(ninst, nthreads, ngroups) \
	(6 * (ninst) + 4 + 8 * (ngroups) + (nthreads) * (4 + 8 * (ngroups)))

/* the instructions, as KTAP_RE_* in runtime/regex.h */
enum regex_op {
	REGEX_CHAR,		/* consume the byte ch */
	REGEX_ANY,		/* consume any byte */
	REGEX_CLASS,		/* consume a byte whose bit is set in set[] */
	REGEX_SPLIT,		/* go on at x, and (lower priority) at y */
	REGEX_JMP,		/* go on at x */
	REGEX_SAVE,		/* capture slot x = the position */
	REGEX_BOL,		/* only at the start of the subject */
	REGEX_EOL,		/* only at the end of the subject */
	REGEX_MATCH,
};

struct regex_inst {
	enum regex_op op;
	unsigned char ch;
	int x, y;
	unsigned char set[32];	/* bit b of set[b / 8]: byte b */
};

struct regex_prog {
	struct regex_inst *inst;
	int ninst;
	int ngroups;		/* 1 + the number of '(' */
};

struct regex_prog *regex_compile(const char *pattern, char **error);
char *regex_emit_c(const struct regex_prog *p, const char *name);
int regex_ngroups(const struct regex_prog *p);
void regex_free(struct regex_prog *p);

#endif
