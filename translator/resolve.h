/* resolve.h - pass 2's internal interface: resolve.c (tapsets, aliases,
 * probes), symbols.c (names to symbols), types.c (type inference). */
#ifndef KTAP_RESOLVE_H
#define KTAP_RESOLVE_H

#include "program.h"
#include "tapindex.h"

/* the locals of one probe handler or function */
struct scope {
	struct symbol **syms;
	int n;
	struct function *fn;		/* NULL in a probe */
	struct file *file;		/* for private globals and functions */
};

struct resolver {
	struct options *opt;
	struct program *prog;
	struct file *files;		/* user script, then the tapsets loaded */
	struct tapset_index *tapsets;	/* every tapset file, loaded or not */
	struct function **worklist;	/* called functions still to resolve */
	int nworklist;
	bool types_changed;
	bool report_types;		/* last inference round: report errors */
};

/* resolve.c: tapset files with a definition of NAME join r->files */
void tapsets_need_function(struct resolver *r, const char *name);
void tapsets_need_global(struct resolver *r, const char *name);
const char **tapsets_function_names(const struct resolver *r, int *n);

/* clone.c */
struct expr *clone_expr(const struct expr *e);
struct stmt *clone_stmt(const struct stmt *s);
void clone_set_via(const struct srcloc *via);	/* NULL: stop marking */

/* symbols.c */
void sym_resolve_stmt(struct resolver *r, struct scope *sc, struct stmt *s);
void sym_resolve_expr(struct resolver *r, struct scope *sc, struct expr *e);
void sym_resolve_function(struct resolver *r, struct function *fn, struct file *file);
struct symbol *sym_find_global(struct resolver *r, const char *name,
			       struct file *from);
void sym_add_global(struct resolver *r, struct global_decl *g);
int builtin_lookup(const char *name);

/* types.c */
void types_infer(struct resolver *r);
bool types_unify(struct resolver *r, enum type *slot, struct srcloc *slot_loc,
		 enum type t, const struct srcloc *loc, const char *what);

/* elide.c: drop unread tapset assignments and unreachable functions */
void elide_unused(struct resolver *r);

/* checks.c: what the command line asks of the script (-G); what
 * SystemTap rejects: a foreach that changes its array, a probe condition
 * with side effects */
void check_global_settings(struct resolver *r);
void check_foreach_changes(struct resolver *r);
void check_probe_conditions(struct resolver *r);
void check_perf_counters(struct resolver *r);	/* @perf names a .counter probe */
bool check_refused_points(const struct probe_point *pp, struct concrete_point *first,
			  bool optional);	/* false: none of them can be armed */

/* globals a function or probe touches, for locking */
void globals_collect(struct resolver *r);

#endif
