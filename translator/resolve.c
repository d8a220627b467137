/* resolve.c - pass 2: from a parsed script to a resolved program.
 *
 * Loads the tapset files the script needs, expands probe aliases and
 * wildcards, asks the probe providers (probes/...c) to resolve each probe
 * point, resolves names (symbols.c) and infers types (types.c). Every
 * error is reported; the caller stops when diag_error_count() is non-zero.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "resolve.h"
#include "aliasvars.h"
#include "target.h"

#define MAX_ALIAS_DEPTH 16

/* ---- tapsets, loaded on demand ---- */

/*
 * The tapset index (tapindex.c) says what each tapset file defines. A
 * file is parsed and joins r->files when the script reaches something in
 * it: a probe point that matches one of its aliases, a call to one of its
 * functions, a name that is one of its globals. What it uses in turn loads
 * more files. r->files keeps the order of the tapset path (the user's
 * file, the -I directories, tapsets/, the generated syscall tapset, each
 * in name order), so the first definition found is the one it was when
 * every file was parsed.
 */

/* a file's place in the order: the user's first */
static int file_rank(const struct resolver *r, const struct file *f)
{
	int i;

	for (i = 0; i < r->tapsets->n; i++)
		if (r->tapsets->entries[i].file == f)
			return i;
	return -1;
}

static void insert_in_order(struct resolver *r, struct file *f, int rank)
{
	struct file **pos = &r->files->next;	/* after the user's file */

	while (*pos && file_rank(r, *pos) < rank)
		pos = &(*pos)->next;
	f->next = *pos;
	*pos = f;
}

/* prog->globals in the order of the files that declare them */
static void order_globals(struct resolver *r)
{
	struct program *prog = r->prog;
	struct file *f;
	struct global_decl *g;
	int n = 0;

	for (f = r->files; f; f = f->next)
		for (g = f->globals; g; g = g->next)
			if (g->sym && n < prog->nglobals && g->sym->global == g) {
				g->sym->index = n;
				prog->globals[n++] = g->sym;
			}
}

static void load_tapset(struct resolver *r, struct tapset_entry *e)
{
	struct file *f;
	struct global_decl *g;

	if (e->loaded)
		return;
	e->loaded = true;
	f = tapindex_parse(r->tapsets, e);
	if (!f)
		return;
	if (r->opt->verbose >= 2)
		fprintf(stderr, "Pass 2: using tapset %s\n", e->path);
	insert_in_order(r, f, e->rank);
	for (g = f->globals; g; g = g->next)
		sym_add_global(r, g);
	order_globals(r);
}

/* files the index cannot describe are loaded as before: always */
static void load_eager_tapsets(struct resolver *r)
{
	int i;

	for (i = 0; i < r->tapsets->n; i++)
		if (r->tapsets->entries[i].eager)
			load_tapset(r, &r->tapsets->entries[i]);
}

void tapsets_need_function(struct resolver *r, const char *name)
{
	int i;

	for (i = 0; i < r->tapsets->n; i++) {
		struct tapset_entry *e = &r->tapsets->entries[i];

		if (!e->loaded && tapindex_defines_function(e, name))
			load_tapset(r, e);
	}
}

void tapsets_need_global(struct resolver *r, const char *name)
{
	int i;

	for (i = 0; i < r->tapsets->n; i++) {
		struct tapset_entry *e = &r->tapsets->entries[i];

		if (!e->loaded && tapindex_defines_global(e, name))
			load_tapset(r, e);
	}
}

/* every public function name of the tapsets, for "did you mean" */
const char **tapsets_function_names(const struct resolver *r, int *n)
{
	const char **names = NULL;
	int i, j;

	*n = 0;
	for (i = 0; i < r->tapsets->n; i++) {
		const struct tapset_entry *e = &r->tapsets->entries[i];

		for (j = 0; j < e->nfunctions; j++) {
			names = xrealloc(names, (*n + 1) * sizeof(*names));
			names[(*n)++] = e->functions[j];
		}
	}
	return names;
}

/* a file the program depends on (the cache re-checks it) */
static void note_source(struct program *prog, struct source *src)
{
	int i;

	for (i = 0; i < prog->nsources_used; i++)
		if (prog->sources_used[i] == src)
			return;
	prog->sources_used = xrealloc(prog->sources_used,
				      (prog->nsources_used + 1) * sizeof(src));
	prog->sources_used[prog->nsources_used++] = src;
}

/* a tapset file the program took something from */
static void note_source_used(struct program *prog, const struct file *f)
{
	if (f && f->src != prog->user->src)
		note_source(prog, f->src);
}

/* ---- probe points and aliases ---- */

/* one way a probe point expands: concrete points plus the alias bodies
 * wrapped around the user's body */
struct expansion {
	struct concrete_point *points;
	struct stmt **prologues;	/* outermost alias first */
	int nprologues;
	struct stmt **epilogues;
	int nepilogues;
	const struct alias *alias;	/* the outermost alias, or NULL */
	const char *family;		/* "nd_syscall" for nd_syscall.NAME (aliasvars.c) */
	struct expansion *next;
};

static bool component_matches(const struct pp_component *pattern,
			      const struct pp_component *name)
{
	if (fnmatch(pattern->name, name->name, 0) != 0)
		return false;
	if (pattern->has_arg != name->has_arg)
		return false;
	if (!pattern->has_arg)
		return true;
	if (pattern->arg_is_string != name->arg_is_string)
		return false;
	return pattern->arg_is_string ? strcmp(pattern->str_arg, name->str_arg) == 0
				      : pattern->num_arg == name->num_arg;
}

/* components pattern[i..] against name[j..]; '**' takes one or more */
static bool components_match(const struct pp_component *pattern, int np,
			     const struct pp_component *name, int nn)
{
	int k;

	if (np == 0)
		return nn == 0;
	if (strcmp(pattern->name, "**") == 0 && !pattern->has_arg) {
		for (k = 1; k <= nn; k++)
			if (components_match(pattern + 1, np - 1, name + k, nn - k))
				return true;
		return false;
	}
	return nn > 0 && component_matches(pattern, name) &&
	       components_match(pattern + 1, np - 1, name + 1, nn - 1);
}

/* does the user's point (maybe with '*' and '**' components) name this alias? */
static bool alias_matches(const struct probe_point *pp, const struct alias *a)
{
	return components_match(pp->comps, pp->ncomps, a->name->comps,
				a->name->ncomps);
}

static void push_stmt(struct stmt ***list, int *n, struct stmt *s)
{
	*list = xrealloc(*list, (*n + 1) * sizeof(**list));
	(*list)[(*n)++] = s;
}

static struct expansion *expand_point(struct resolver *r,
				      const struct probe_point *pp, int depth,
				      bool optional);

/* an alias's point with the user's suffix after it: "probe a =
 * kernel.function("f")" used as a.maxactive(10).return arms
 * kernel.function("f").maxactive(10).return (SystemTap's alias suffixes) */
static const struct probe_point *with_suffix(const struct probe_point *p,
					     const struct pp_component *suffix, int nsuffix)
{
	struct probe_point *q;

	if (!nsuffix)
		return p;
	q = xalloc(sizeof(*q));
	*q = *p;
	q->next = NULL;
	q->ncomps = p->ncomps + nsuffix;
	q->comps = xalloc(q->ncomps * sizeof(*q->comps));
	memcpy(q->comps, p->comps, p->ncomps * sizeof(*q->comps));
	memcpy(q->comps + p->ncomps, suffix, nsuffix * sizeof(*q->comps));
	return q;
}

static struct probe_point **brace_points(const struct probe_point *pp, int *n);

/* expand an alias: each of its points (with the user's suffix, if any),
 * with its body wrapped around */
static struct expansion *expand_alias(struct resolver *r, const struct alias *a,
				      int depth, bool optional,
				      const struct pp_component *suffix, int nsuffix)
{
	struct expansion *out = NULL, **tail = &out;
	const struct probe_point *p;

	for (p = a->points; p; p = p->next) {
		bool resolved = false;
		int i, n;
		struct probe_point **alts = brace_points(p, &n);

		for (i = 0; i < n; i++) {
			struct expansion *x = expand_point(r, with_suffix(alts[i], suffix, nsuffix),
							   depth + 1,
							   optional || p->optional || p->sufficient);

			resolved |= x != NULL;
			*tail = x;
			for (; x; x = x->next) {
				x->alias = a;	/* the callers' aliases overwrite it */
				if (a->body && a->epilogue)
					push_stmt(&x->epilogues, &x->nepilogues, a->body);
				else if (a->body)
					push_stmt(&x->prologues, &x->nprologues, a->body);
				tail = &x->next;
			}
		}
		/* "a !, b": b only when a is not there */
		if (resolved && p->sufficient)
			break;
	}
	return out;
}

/* load the tapset files with an alias the point names */
static void load_for_point(struct resolver *r, const struct probe_point *pp)
{
	int i, j;

	for (i = 0; i < r->tapsets->n; i++) {
		struct tapset_entry *e = &r->tapsets->entries[i];

		for (j = 0; j < e->naliases && !e->loaded; j++)
			if (components_match(pp->comps, pp->ncomps, e->aliases[j]->comps,
					     e->aliases[j]->ncomps))
				load_tapset(r, e);
	}
}

/* no alias is pp: the longest start of pp that is one, the rest a suffix */
static struct expansion *expand_alias_prefixes(struct resolver *r,
					       const struct probe_point *pp,
					       int depth, bool optional, bool *found)
{
	struct expansion *out = NULL, **tail = &out;
	struct probe_point start = *pp;
	struct file *f;
	struct alias *a;
	int k;

	for (k = pp->ncomps - 1; k >= 1 && !*found; k--) {
		start.ncomps = k;
		load_for_point(r, &start);
		for (f = r->files; f; f = f->next)
			for (a = f->aliases; a; a = a->next) {
				if (!alias_matches(&start, a))
					continue;
				*found = true;
				note_source_used(r->prog, f);
				*tail = expand_alias(r, a, depth, optional, pp->comps + k,
						     pp->ncomps - k);
				while (*tail)
					tail = &(*tail)->next;
			}
	}
	return out;
}

static struct expansion *expand_aliases(struct resolver *r,
					const struct probe_point *pp,
					int depth, bool optional, bool *found)
{
	struct expansion *out = NULL, **tail = &out;
	struct file *f;
	struct alias *a;

	load_for_point(r, pp);
	for (f = r->files; f; f = f->next) {
		for (a = f->aliases; a; a = a->next) {
			if (!alias_matches(pp, a))
				continue;
			*found = true;
			note_source_used(r->prog, f);
			*tail = expand_alias(r, a, depth, optional, NULL, 0);
			while (*tail)
				tail = &(*tail)->next;
		}
	}
	return out;
}

static void suggest_point(struct resolver *r, const struct probe_point *pp)
{
	const char **names = NULL;
	const char *const *known;
	const char *best, *text = probe_point_text(pp);
	int n = 0, nknown, i;
	struct file *f;
	struct alias *a;

	known = probes_known_points(&nknown);
	for (i = 0; i < nknown; i++) {
		names = xrealloc(names, (n + 1) * sizeof(*names));
		names[n++] = known[i];
	}
	/* every alias, also of the files not loaded */
	for (f = r->files; f; f = f->next)
		for (a = f->aliases; a; a = a->next) {
			names = xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = probe_point_text(a->name);
		}
	for (i = 0; i < r->tapsets->n; i++) {
		const struct tapset_entry *e = &r->tapsets->entries[i];
		int j;

		for (j = 0; j < e->naliases && !e->loaded; j++) {
			names = xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = probe_point_text(e->aliases[j]);
		}
	}
	best = diag_closest(text, names, n);
	if (!best) {
		/* compare without the arguments: timer.mss(10) ~ timer.ms */
		char *bare = xstrdup(text), *paren = strchr(bare, '(');

		if (paren)
			*paren = '\0';
		best = diag_closest(bare, names, n);
	}
	if (best)
		diag_note(&pp->loc, "did you mean '%s'?", best);
	xfree(names);
}

/*
 * KTAP_IGNORE_POINTS=GLOB (a test hook): a probe point whose text matches
 * GLOB resolves to nothing, as if the kernel lacked it. The tapset tests
 * use it to hide a family's preferred source (KTAP_IGNORE_POINTS=
 * 'kernel.trace(*') and check that its fallback delivers the same values.
 */
static bool point_ignored(const struct probe_point *pp)
{
	const char *glob = getenv("KTAP_IGNORE_POINTS");

	return glob && *glob && fnmatch(glob, probe_point_text(pp), 0) == 0;
}

/*
 * A point under '?' or '!' that needs the kernel's debuginfo
 * (kernel.trace, kernel.function, kernel.statement) when there is none,
 * neither DWARF nor BTF. The providers make that an error, which a user
 * asking for the point must see; for an optional point it only means the
 * point is not there, so that "kernel.function(...) !, kprobe.function(...)"
 * falls back. (BTF is asked first: it is cheap; the DWARF takes an index.)
 */
static bool optional_without_debuginfo(const struct probe_point *pp)
{
	if (!pp_is(pp, 0, "kernel") ||
	    !(pp_is(pp, 1, "trace") || pp_is(pp, 1, "function") || pp_is(pp, 1, "statement")))
		return false;
	return !target_btf(target_kernel(), NULL) && !target_dwarf(target_kernel(), NULL);
}

static bool same_module_name(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (*a != *b && !(strchr("-_", *a) && strchr("-_", *b)))
			return false;
	return *a == *b;
}

/* module("NAME")... under '?' where the kernel has no module NAME: the
 * point is not there (SystemTap: optional, not an error) */
static bool optional_absent_module(const struct probe_point *pp)
{
	const struct pp_component *m = &pp->comps[0];
	const char **names;
	int n, i;

	if (!pp_is(pp, 0, "module") || !m->has_arg || !m->arg_is_string ||
	    strpbrk(m->str_arg, "*?["))
		return false;
	n = target_module_names(target_kernel(), false, &names);
	for (i = 0; i < n; i++)
		if (same_module_name(names[i], m->str_arg))
			return false;
	return n > 0;
}

/* ask the providers; an optional point is marked so for them, also when
 * it is optional only because an alias using it is ("a !, b") */
static int resolve_point(const struct probe_point *pp, bool optional,
			 struct concrete_point *cp)
{
	struct probe_point marked;

	if (point_ignored(pp) ||
	    (optional && (optional_without_debuginfo(pp) || optional_absent_module(pp))))
		return 0;
	if (!optional || pp->optional || pp->sufficient)
		return probes_resolve(pp, cp);
	marked = *pp;
	marked.optional = true;
	return probes_resolve(&marked, cp);
}

/* ---- globs in the providers' own components: ker*.function("f") ---- */

static bool name_has_glob(const struct probe_point *pp)
{
	int i;

	for (i = 0; i < pp->ncomps; i++)
		if (strpbrk(pp->comps[i].name, "*?["))
			return true;
	return false;
}

/* pp with its first n components spelled as the known point's */
static struct probe_point *spelled_as(const struct probe_point *pp, char **names, int n)
{
	struct probe_point *q = xalloc(sizeof(*q));
	int i;

	*q = *pp;
	q->comps = xalloc(pp->ncomps * sizeof(*q->comps));
	memcpy(q->comps, pp->comps, pp->ncomps * sizeof(*q->comps));
	for (i = 0; i < n; i++)
		q->comps[i].name = names[i];
	return q;
}

/* does pp's start match the known point's components (glob by glob)? */
static bool glob_matches_known(const struct probe_point *pp, char **names, int n)
{
	int i;

	if (n > pp->ncomps)
		return false;
	for (i = 0; i < n; i++)
		if (fnmatch(pp->comps[i].name, names[i], 0) != 0)
			return false;
	return true;
}

static int split_point_name(const char *text, char ***names)
{
	char *copy = xstrdup(text), *save = NULL, *w;
	int n = 0;

	*names = NULL;
	for (w = strtok_r(copy, ".", &save); w; w = strtok_r(NULL, ".", &save)) {
		*names = xrealloc(*names, (n + 1) * sizeof(**names));
		(*names)[n++] = w;
	}
	return n;
}

/* each point the providers know that pp's globbed names match, expanded
 * in turn (optional when there are several, as a wildcard's points) */
static struct expansion *expand_provider_globs(struct resolver *r,
					       const struct probe_point *pp, int depth,
					       bool optional, bool *found)
{
	struct probe_point **cands = NULL;
	struct expansion *out = NULL, **tail = &out;
	const char *const *known;
	int nknown, ncands = 0, i;

	known = probes_known_points(&nknown);
	for (i = 0; i < nknown; i++) {
		char **names;
		int n = split_point_name(known[i], &names), k;
		bool dup = false;

		if (!glob_matches_known(pp, names, n))
			continue;
		for (k = 0; k < ncands && !dup; k++)
			dup = strcmp(probe_point_text(cands[k]),
				     probe_point_text(spelled_as(pp, names, n))) == 0;
		if (dup)
			continue;
		cands = xrealloc(cands, (ncands + 1) * sizeof(*cands));
		cands[ncands++] = spelled_as(pp, names, n);
	}
	*found = ncands > 0;
	for (i = 0; i < ncands; i++) {
		*tail = expand_point(r, cands[i], depth + 1, optional || ncands > 1);
		while (*tail)
			tail = &(*tail)->next;
	}
	return out;
}

static struct expansion *expand_point(struct resolver *r,
				      const struct probe_point *pp, int depth,
				      bool optional)
{
	struct concrete_point cp = { 0 };
	struct expansion *x;
	bool found = false;
	int rc;

	optional = optional || pp->optional || pp->sufficient;
	if (depth > MAX_ALIAS_DEPTH) {
		diag_error(&pp->loc, "probe alias expansion is too deep (recursive alias?)");
		return NULL;
	}
	x = expand_aliases(r, pp, depth, optional, &found);
	if (found)
		return x;
	if (name_has_glob(pp)) {
		x = expand_provider_globs(r, pp, depth, optional, &found);
		if (found)
			return x;
	}
	rc = resolve_point(pp, optional, &cp);
	if (rc < 0)
		return NULL;
	if (rc == 0) {
		/* no provider's: an alias with a suffix? (asked last: each
		 * kernel.syscall point of syscall.* would pay the search) */
		x = expand_alias_prefixes(r, pp, depth, optional, &found);
		if (found)
			return x;
		if (!optional) {
			diag_error(&pp->loc, "unknown probe point '%s'",
				   probe_point_text(pp));
			if (strncmp(probe_point_text(pp), "syscall", 7) == 0 &&
			    !syscall_table_known(r->opt))
				diag_note(&pp->loc, "the syscall aliases come from the target kernel's "
					  "headers: give the target with --vm or -r");
			else
				suggest_point(r, pp);
		}
		return NULL;
	}
	if (!check_refused_points(pp, &cp, optional))
		return NULL;
	if (cp.guru_only && !r->opt->guru) {
		diag_error(&pp->loc, "probe point '%s' needs guru mode (-g)", cp.pp);
		return NULL;
	}
	/* a provider marks the points of a wildcard optional itself */
	cp.optional = optional || cp.optional;
	cp.cond = pp->cond;
	/* a user-space point's offsets come from its file: a rebuilt one
	 * must not hit the cache */
	for (const struct concrete_point *p = &cp; p; p = p->next)
		if (p->file && target_file_source(p->file))
			note_source(r->prog, target_file_source(p->file));
	x = xalloc(sizeof(*x));
	x->points = xalloc(sizeof(*x->points));
	*x->points = cp;
	return x;
}

/* the handler body for one expansion: prologues, the body, epilogues;
 * the alias code is marked as pulled in by the user's probe point */
static struct stmt *wrap_body(const struct expansion *x, const struct stmt *body,
			      const struct srcloc *user_point)
{
	struct stmt *block = xalloc(sizeof(*block));
	int i;

	block->kind = ST_BLOCK;
	block->loc = body ? body->loc : (struct srcloc){ 0 };
	/* x->prologues go from the alias nearest the kernel's point to the
	 * user's: "probe a = b { A }" over "probe b = k { B }" runs B, then A
	 * (which may use what B set), then the body; epilogues the other
	 * way round, so each alias wraps the ones it is built on */
	clone_set_via(user_point);
	for (i = 0; i < x->nprologues; i++)
		push_stmt(&block->body, &block->nbody, clone_stmt(x->prologues[i]));
	clone_set_via(NULL);
	if (body)
		push_stmt(&block->body, &block->nbody, clone_stmt(body));
	clone_set_via(user_point);
	for (i = x->nepilogues - 1; i >= 0; i--)
		push_stmt(&block->body, &block->nbody, clone_stmt(x->epilogues[i]));
	clone_set_via(NULL);
	return block;
}

static void add_handler(struct resolver *r, struct probe *p, struct expansion *x,
			struct concrete_point *points, const struct srcloc *user_point)
{
	struct program *prog = r->prog;
	struct resolved_probe *rp = xalloc(sizeof(*rp));
	struct scope sc = { 0 };
	struct concrete_point *cp;

	rp->index = prog->nprobes;
	rp->loc = p->loc;
	rp->points = points;
	rp->alias_point = x->alias ? alias_family_name(probe_point_text(x->alias->name),
						       x->family) : NULL;
	for (cp = rp->points; cp; cp = cp->next)
		cp->alias_point = rp->alias_point;
	rp->body = wrap_body(x, p->body, user_point);
	sc.file = r->prog->user;
	for (cp = rp->points; cp; cp = cp->next)
		if (cp->cond)
			sym_resolve_expr(r, &sc, cp->cond);
	sym_resolve_stmt(r, &sc, rp->body);
	rp->locals = sc.syms;
	rp->nlocals = sc.n;
	tvar_bind_probe(rp);
	prog->probes = xrealloc(prog->probes, (prog->nprobes + 1) * sizeof(rp));
	prog->probes[prog->nprobes++] = rp;
}

/* One handler for all the points, unless the body reads target variables:
 * those mean something else at each point (another function, another
 * address), so each point gets its own copy of the body. */
static void add_probe(struct resolver *r, struct probe *p, struct expansion *x,
		      const struct srcloc *user_point)
{
	struct concrete_point *cp, *next;
	bool per_point = false;
	int i;

	for (i = 0; i < x->nprologues && !per_point; i++)
		per_point = tvar_stmt_uses_scope(x->prologues[i]);
	for (i = 0; i < x->nepilogues && !per_point; i++)
		per_point = tvar_stmt_uses_scope(x->epilogues[i]);
	if (!per_point)
		per_point = tvar_stmt_uses_scope(p->body);
	if (!per_point || !x->points->next) {
		add_handler(r, p, x, x->points, user_point);
		return;
	}
	for (cp = x->points; cp; cp = next) {
		next = cp->next;
		cp->next = NULL;
		if (cp != x->points && cp->cond)
			cp->cond = clone_expr(cp->cond);
		add_handler(r, p, x, cp, user_point);
	}
}

/* an alias whose every alternative is optional and absent here */
static void no_points(struct resolver *r, const struct probe_point *pp)
{
	char *text = probe_point_text(pp);

	diag_error(&pp->loc, "probe point '%s' matches nothing on this kernel", text);
	if (strncmp(text, "syscall", 7) == 0 && !syscall_table_known(r->opt))
		diag_note(&pp->loc, "the syscall aliases come from the target kernel's "
			  "headers: give the target with --vm or -r");
}

/* have earlier expansions of this probe point reached all of x's points? */
static bool already_reached(const struct expansion *first, const struct expansion *x)
{
	const struct concrete_point *cp, *seen;
	const struct expansion *e;

	for (cp = x->points; cp; cp = cp->next) {
		bool found = false;

		for (e = first; e != x && !found; e = e->next)
			for (seen = e->points; seen && !found; seen = seen->next)
				found = strcmp(seen->pp, cp->pp) == 0;
		if (!found)
			return false;
	}
	return true;
}

/* ---- {a,b} alternatives in a probe point ---- */

#define MAX_BRACE_POINTS 4096

struct words {
	char **w;
	int n;
};

static void add_word(struct words *ws, char *w)
{
	ws->w = xrealloc(ws->w, (ws->n + 1) * sizeof(*ws->w));
	ws->w[ws->n++] = w;
}

/* the first '{' with a ',' at its own depth, and its '}' */
static bool find_group(const char *s, const char **open, const char **close)
{
	const char *p, *q;

	for (p = s; *p; p++) {
		int depth = 0;
		bool comma = false;

		if (*p != '{')
			continue;
		for (q = p; *q; q++) {
			depth += *q == '{' ? 1 : *q == '}' ? -1 : 0;
			comma |= depth == 1 && *q == ',';
			if (depth == 0)
				break;
		}
		if (*q && comma) {
			*open = p;
			*close = q;
			return true;
		}
	}
	return false;
}

/* "a{b,c{d,e}}f" -> abf, acdf, acef (as the shell does) */
static void brace_expand(const char *s, struct words *out)
{
	const char *open, *close, *alt;

	if (!find_group(s, &open, &close) || out->n >= MAX_BRACE_POINTS) {
		add_word(out, xstrdup(s));
		return;
	}
	for (alt = open + 1; alt <= close; alt++) {
		const char *end = alt;
		int depth = 0;

		for (; end < close && (depth || *end != ','); end++)
			depth += *end == '{' ? 1 : *end == '}' ? -1 : 0;
		brace_expand(xasprintf("%.*s%.*s%s", (int)(open - s), s, (int)(end - alt), alt,
				       close + 1), out);
		alt = end;
	}
}

static bool has_braces(const struct probe_point *pp)
{
	int i;

	for (i = 0; i < pp->ncomps; i++)
		if (strchr(pp->comps[i].name, '{') ||
		    (pp->comps[i].arg_is_string && strchr(pp->comps[i].str_arg, '{')))
			return true;
	return false;
}

/* the points pp's alternatives spell, from component i on */
static void expand_components(const struct probe_point *pp, struct probe_point *cur, int i,
			      struct probe_point ***out, int *n)
{
	struct words names = { 0 }, args = { 0 };
	const struct pp_component *c = &pp->comps[i];
	int a, b;

	if (i == pp->ncomps) {
		struct probe_point *copy = xalloc(sizeof(*copy));

		*copy = *cur;
		copy->comps = xalloc(pp->ncomps * sizeof(*copy->comps));
		memcpy(copy->comps, cur->comps, pp->ncomps * sizeof(*copy->comps));
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		(*out)[(*n)++] = copy;
		return;
	}
	brace_expand(c->name, &names);
	if (c->arg_is_string)
		brace_expand(c->str_arg, &args);
	else
		add_word(&args, NULL);
	for (a = 0; a < names.n; a++)
		for (b = 0; b < args.n && *n < MAX_BRACE_POINTS; b++) {
			cur->comps[i] = *c;
			cur->comps[i].name = names.w[a];
			if (c->arg_is_string)
				cur->comps[i].str_arg = args.w[b];
			expand_components(pp, cur, i + 1, out, n);
		}
}

/* pp, or the points its {a,b} alternatives spell, in order */
static struct probe_point **brace_points(const struct probe_point *pp, int *n)
{
	struct probe_point **out = NULL, cur = *pp;

	*n = 0;
	if (!has_braces(pp)) {
		out = xalloc(sizeof(*out));
		out[(*n)++] = (struct probe_point *)pp;
		return out;
	}
	cur.comps = xalloc(pp->ncomps * sizeof(*cur.comps));
	expand_components(pp, &cur, 0, &out, n);
	return out;
}

/* one probe point of the probe's list: its expansions become handlers */
static void resolve_one_point(struct resolver *r, struct probe *p,
			      const struct probe_point *pp, bool *any)
{
	int errors = diag_error_count();
	const char *family;
	struct expansion *first = expand_point(r, alias_family_point(pp, &family), 0,
					       false), *x;

	if (!first && !pp->optional && !pp->sufficient &&
	    diag_error_count() == errors)
		no_points(r, pp);
	for (x = first; x; x = x->next) {
		/* a wildcard over aliases that overlap (syscall.* takes
		 * syscall.open, the open family, and syscall.openat):
		 * each point once */
		if (x != first && already_reached(first, x))
			continue;
		/* the condition on a probe point applies to each
		 * concrete point it expands to */
		struct concrete_point *cp;

		for (cp = x->points; cp; cp = cp->next) {
			if (!cp->cond)
				cp->cond = clone_expr(pp->cond);
			cp->from = probe_point_text(pp);
		}
		x->family = family;
		add_probe(r, p, x, &pp->loc);
		*any = true;
	}
}

static void resolve_probe(struct resolver *r, struct probe *p)
{
	const struct probe_point *pp;
	bool any = false;
	int i, n;

	for (pp = p->points; pp; pp = pp->next) {
		struct probe_point **alts = brace_points(pp, &n);

		for (i = 0; i < n; i++)
			resolve_one_point(r, p, alts[i], &any);
		if (any && pp->sufficient)
			break;
	}
}

/* ---- functions ---- */

static void resolve_function(struct resolver *r, struct function *fn,
			     struct file *file)
{
	sym_resolve_function(r, fn, file);
	if (fn->body)
		tvar_bind_function(fn);
}

static struct file *file_of_function(struct resolver *r, struct function *fn)
{
	struct file *f;
	struct function *g;

	for (f = r->files; f; f = f->next)
		for (g = f->functions; g; g = g->next)
			if (g == fn)
				return f;
	return NULL;
}

/* resolve every function that is called, directly or not */
static void resolve_called_functions(struct resolver *r)
{
	struct program *prog = r->prog;

	while (r->nworklist > 0) {
		struct function *fn = r->worklist[--r->nworklist];
		struct file *file = file_of_function(r, fn);

		prog->functions = xrealloc(prog->functions,
					   (prog->nfunctions + 1) * sizeof(fn));
		prog->functions[prog->nfunctions++] = fn;
		note_source_used(prog, file);
		resolve_function(r, fn, file);
	}
}

/* embedded C blocks of every file that contributed something */
static void collect_embedded(struct resolver *r)
{
	struct program *prog = r->prog;
	struct file *f;
	struct embedded_block *b;

	for (f = r->files; f; f = f->next) {
		bool used = f == prog->user;
		int i;

		for (i = 0; i < prog->nfunctions && !used; i++)
			used = file_of_function(r, prog->functions[i]) == f;
		if (!used)
			continue;
		for (b = f->embedded; b; b = b->next) {
			prog->embedded = xrealloc(prog->embedded,
						  (prog->nembedded + 1) * sizeof(b));
			prog->embedded[prog->nembedded++] = b;
		}
	}
}

static void check_guru(struct resolver *r)
{
	struct file *user = r->prog->user;
	struct function *fn;

	if (r->opt->guru)
		return;
	if (user->embedded)
		diag_error(&user->embedded->loc,
			   "embedded C code needs guru mode: run with -g");
	for (fn = user->functions; fn; fn = fn->next)
		if (fn->embedded)
			diag_error(&fn->loc,
				   "function '%s' is written in embedded C, which needs guru mode: run with -g",
				   fn->name);
}

/* the user's globals; a tapset's come with its file */
static void declare_user_globals(struct resolver *r)
{
	struct global_decl *g;

	for (g = r->prog->user->globals; g; g = g->next)
		sym_add_global(r, g);
}

/* The tapset files the program's code came from, for the cache to check
 * again: called functions (also those elided later: their purity decided
 * what was dropped) and matched aliases, noted on the way, then the files
 * of the globals it declares. The user's script is not one. */
static void note_globals_sources(struct program *prog)
{
	const struct file *f;
	const struct global_decl *g;
	int i;

	for (i = 0; i < prog->nglobals; i++)
		for (f = prog->files; f; f = f->next)
			for (g = f->globals; g; g = g->next)
				if (g == prog->globals[i]->global)
					note_source_used(prog, f);
}

static const char *module_name_for(const struct options *opt,
				   const struct file *user)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */
	const char *p;
	int i;

	if (opt->module_name)
		return opt->module_name;
	for (p = user->src->text; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	for (i = 0; i < opt->ndefines; i++)
		for (p = opt->defines[i]; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	h ^= opt->guru;
	return xasprintf("ktap_%012llx", (unsigned long long)(h & 0xffffffffffffULL));
}

/* ---- handlers that are the same code ---- */

static bool reads_target_visit(struct expr *e, void *arg)
{
	if (e->access || e->kind == EX_TARGET || e->kind == EX_TARGET_SPECIAL)
		*(bool *)arg = true;
	return !*(bool *)arg;
}

/* a handler whose code means the same at every point it could serve:
 * no target variables (their C differs per point), no @entry, no
 * probe-point conditions (emit.c reads the first point's) */
static bool mergeable(const struct resolved_probe *rp)
{
	const struct concrete_point *cp;
	bool reads_target = false;

	if (rp->nentry_exprs)
		return false;
	for (cp = rp->points; cp; cp = cp->next)
		if (cp->cond)
			return false;
	ast_walk_stmt(rp->body, reads_target_visit, &reads_target);
	return !reads_target;
}

/*
 * `probe syscall.* { count[name]++ }` expands to one handler per system
 * call, and when their code is the same (the aliases' prologues read the
 * call's name at run time) one function can serve every point: the module
 * compiles one handler, not hundreds.
 */
static void merge_identical_handlers(struct program *prog)
{
	char **text = xalloc((prog->nprobes + 1) * sizeof(*text));
	int i, j, n = 0;

	for (i = 0; i < prog->nprobes; i++)
		text[i] = mergeable(prog->probes[i]) ? print_stmt_text(prog->probes[i]->body) : NULL;
	for (i = 0; i < prog->nprobes; i++) {
		struct resolved_probe *rp = prog->probes[i];

		if (!rp)
			continue;
		for (j = i + 1; text[i] && j < prog->nprobes; j++) {
			struct concrete_point *tail;

			if (!prog->probes[j] || !text[j] || strcmp(text[i], text[j]) != 0)
				continue;
			for (tail = rp->points; tail->next; tail = tail->next)
				;
			tail->next = prog->probes[j]->points;
			prog->probes[j] = NULL;
		}
		rp->index = n;
		prog->probes[n++] = rp;
	}
	for (i = 0; i < prog->nprobes; i++)
		free(text[i]);
	prog->nprobes = n;
	xfree(text);
}

/* ---- the user-space files the module knows ---- */

static void add_user_file(struct program *prog, struct target *t)
{
	for (int j = 0; j < prog->nufiles; j++)
		if (prog->ufiles[j] == t)
			return;
	prog->ufiles = xrealloc(prog->ufiles, (prog->nufiles + 1) * sizeof(t));
	prog->ufiles[prog->nufiles++] = t;
	/* their symbols and unwind rows go into the module: a rebuilt file
	 * must not hit the cache */
	if (target_file_source(t))
		note_source(prog, target_file_source(t));
}

/* the programs and libraries whose symbols usymname() and whose CFI
 * ubacktrace() use: every file the script probes in user space; -d PATH
 * ones (-d kernel and modules: the kernel's names are there at run
 * time); with --ldd, the libraries each of those needs */
static void collect_user_files(struct resolver *r)
{
	struct program *prog = r->prog;
	int i;

	for (i = 0; i < prog->nprobes; i++)
		for (const struct concrete_point *cp = prog->probes[i]->points; cp; cp = cp->next)
			if (cp->file)
				add_user_file(prog, cp->file);
	for (i = 0; i < r->opt->nsymbol_modules; i++) {
		const char *name = r->opt->symbol_modules[i];
		char *why = NULL;
		struct target *t = strchr(name, '/') ? target_program(name, &why) : NULL;

		if (t)
			add_user_file(prog, t);
		else if (why)
			diag_warning(NULL, "-d %s: %s", name, why);
	}
	for (i = 0; r->opt->ldd && i < prog->nufiles; i++) {
		struct target **libs;
		int k = target_program_needed(prog->ufiles[i], &libs);

		for (int j = 0; j < k; j++)
			add_user_file(prog, libs[j]);
	}
}

struct program *resolve_program(struct file *user, struct options *opt)
{
	struct resolver r = { 0 };
	struct program *prog = xalloc(sizeof(*prog));
	struct probe *p;

	r.opt = opt;
	r.prog = prog;
	prog->user = user;
	r.files = user;
	user->next = NULL;
	r.tapsets = tapindex_open(opt);
	if (diag_error_count())
		return NULL;
	probe_kprobe_symbols(target_kernel()->system_map);
	probe_syscall_options(opt);
	prog->files = r.files;
	prog->module_name = module_name_for(opt, user);
	check_guru(&r);
	declare_user_globals(&r);
	load_eager_tapsets(&r);
	for (p = user->probes; p; p = p->next)
		resolve_probe(&r, p);
	if (!user->probes)
		diag_error(&(struct srcloc){ user->src, 1, 1, NULL },
			   "the script has no probes");
	resolve_called_functions(&r);
	collect_embedded(&r);
	if (diag_error_count())
		return NULL;
	types_infer(&r);
	check_foreach_changes(&r);
	check_probe_conditions(&r);
	check_perf_counters(&r);
	if (diag_error_count())
		return NULL;
	if (!opt->unoptimized)		/* -u: every assignment stays */
		elide_unused(&r);
	merge_identical_handlers(prog);
	collect_user_files(&r);
	globals_collect(&r);
	note_globals_sources(prog);
	check_global_settings(&r);
	return diag_error_count() ? NULL : prog;
}

/* ---- -p2 ---- */

static void print_symbol_type(FILE *out, const struct symbol *s)
{
	int i;

	fprintf(out, "%s", type_name(s->type));
	if (s->nkeys) {
		fprintf(out, "[");
		for (i = 0; i < s->nkeys; i++)
			fprintf(out, "%s%s", i ? ", " : "", type_name(s->key_types[i]));
		fprintf(out, "]");
	}
}

static void print_locals(FILE *out, struct symbol **syms, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (syms[i]->kind != SYM_LOCAL)
			continue;
		fprintf(out, "    local %s:", syms[i]->name);
		print_symbol_type(out, syms[i]);
		fprintf(out, "\n");
	}
}

void print_resolved(FILE *out, const struct program *prog)
{
	int i, j;

	fprintf(out, "# globals\n");
	for (i = 0; i < prog->nglobals; i++) {
		fprintf(out, "%s:", prog->globals[i]->name);
		print_symbol_type(out, prog->globals[i]);
		fprintf(out, "\n");
	}
	fprintf(out, "# functions\n");
	for (i = 0; i < prog->nfunctions; i++) {
		const struct function *fn = prog->functions[i];

		fprintf(out, "%s:%s (", fn->name, type_name(fn->ret_type));
		for (j = 0; j < fn->nparams; j++)
			fprintf(out, "%s%s:%s", j ? ", " : "", fn->params[j].name,
				type_name(fn->params[j].sym->type));
		fprintf(out, ")%s\n", fn->embedded ? " embedded-C" : "");
		print_locals(out, fn->locals, fn->nlocals);
	}
	fprintf(out, "# probes\n");
	for (i = 0; i < prog->nprobes; i++) {
		const struct resolved_probe *rp = prog->probes[i];
		const struct concrete_point *cp;

		for (cp = rp->points; cp; cp = cp->next)
			fprintf(out, "%s%s%s\n", cp->pp, cp->optional ? " ?" : "",
				cp == rp->points ? "" : " (same handler)");
		print_locals(out, rp->locals, rp->nlocals);
	}
}
