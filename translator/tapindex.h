/* tapindex.h - what each tapset file defines (tapindex.c), so pass 2
 * parses only the files a script needs (resolve.c loads them). */
#ifndef KTAP_TAPINDEX_H
#define KTAP_TAPINDEX_H

#include "program.h"

/* one tapset file and the names other files can reach in it */
struct tapset_entry {
	char *path;
	int rank;			/* place in the load order, from 0 */
	char *identity;			/* cachefile_identity() when indexed */
	bool eager;			/* the index cannot describe it: always load */
	struct probe_point **aliases;	/* alias names */
	int naliases;
	char **functions;		/* public functions, with their arity */
	int *arities;
	int nfunctions;
	char **globals;			/* public globals */
	int nglobals;
	struct file *file;		/* once parsed */
	bool loaded;			/* in the resolver's files */
};

/* the tapset path (the -I dirs, tapsets/, then the generated syscall
 * tapset), each directory's .stp files in name order */
struct tapset_index {
	struct tapset_entry *entries;
	int n;
	int verbose;
	struct strbuf others;		/* the index's blocks for other paths */
};

/* list the tapset files, read the index, index again the files that
 * changed (parsing them) and save it */
struct tapset_index *tapindex_open(const struct options *opt);

/* the parsed file of an entry (parsing it now if needed), or NULL */
struct file *tapindex_parse(struct tapset_index *ix, struct tapset_entry *e);

bool tapindex_defines_function(const struct tapset_entry *e, const char *name);
bool tapindex_defines_global(const struct tapset_entry *e, const char *name);

#endif
