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
#include <sys/utsname.h>
#include <unistd.h>

#include "resolve.h"

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

/* a tapset file the program took something from (the cache re-checks it) */
static void note_source_used(struct program *prog, const struct file *f)
{
	int i;

	if (!f || f->src == prog->user->src)
		return;
	for (i = 0; i < prog->nsources_used; i++)
		if (prog->sources_used[i] == f->src)
			return;
	prog->sources_used = xrealloc(prog->sources_used,
				      (prog->nsources_used + 1) * sizeof(f->src));
	prog->sources_used[prog->nsources_used++] = f->src;
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

/* expand an alias: each of its points, with its body wrapped around */
static struct expansion *expand_alias(struct resolver *r, const struct alias *a,
				      int depth, bool optional)
{
	struct expansion *out = NULL, **tail = &out;
	const struct probe_point *p;

	for (p = a->points; p; p = p->next) {
		struct expansion *x = expand_point(r, p, depth + 1,
						   optional || p->optional || p->sufficient);
		bool resolved = x != NULL;

		*tail = x;
		for (; x; x = x->next) {
			if (a->body && a->epilogue)
				push_stmt(&x->epilogues, &x->nepilogues, a->body);
			else if (a->body)
				push_stmt(&x->prologues, &x->nprologues, a->body);
			tail = &x->next;
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
			*tail = expand_alias(r, a, depth, optional);
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
	return !probes_btf(NULL) && !probes_dwarf(NULL);
}

/* ask the providers; an optional point is marked so for them, also when
 * it is optional only because an alias using it is ("a !, b") */
static int resolve_point(const struct probe_point *pp, bool optional,
			 struct concrete_point *cp)
{
	struct probe_point marked;

	if (point_ignored(pp) || (optional && optional_without_debuginfo(pp)))
		return 0;
	if (!optional || pp->optional || pp->sufficient)
		return probes_resolve(pp, cp);
	marked = *pp;
	marked.optional = true;
	return probes_resolve(&marked, cp);
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
	rc = resolve_point(pp, optional, &cp);
	if (rc < 0)
		return NULL;
	if (rc == 0) {
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
	/* a provider marks the points of a wildcard optional itself */
	cp.optional = optional || cp.optional;
	cp.cond = pp->cond;
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
	rp->body = wrap_body(x, p->body, user_point);
	sc.file = r->prog->user;
	for (cp = rp->points; cp; cp = cp->next)
		if (cp->cond)
			sym_resolve_expr(r, &sc, cp->cond);
	sym_resolve_stmt(r, &sc, rp->body);
	rp->locals = sc.syms;
	rp->nlocals = sc.n;
	target_bind_probe(rp);
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
		per_point = target_stmt_uses_scope(x->prologues[i]);
	for (i = 0; i < x->nepilogues && !per_point; i++)
		per_point = target_stmt_uses_scope(x->epilogues[i]);
	if (!per_point)
		per_point = target_stmt_uses_scope(p->body);
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

static void resolve_probe(struct resolver *r, struct probe *p)
{
	const struct probe_point *pp;
	bool any = false;

	for (pp = p->points; pp; pp = pp->next) {
		int errors = diag_error_count();
		struct expansion *first = expand_point(r, pp, 0, false), *x;

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

			for (cp = x->points; cp; cp = cp->next)
				if (!cp->cond)
					cp->cond = clone_expr(pp->cond);
			add_probe(r, p, x, &pp->loc);
			any = true;
		}
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
		target_bind_function(fn);
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

/* where the target kernel's function names are: the guest's System.map,
 * a build tree's, or /boot's; NULL if none */
static const char *kernel_symbol_file(const struct options *opt)
{
	const char *rel = opt->release;
	char *path;

	if (rel && strchr(rel, '/'))
		path = xasprintf("%s/System.map", rel);
	else if (rel)
		path = xasprintf("/boot/System.map-%s", rel);
	else if (opt->vm) {
		const char *abi = vm_kernel_release(opt);

		if (!abi)
			return NULL;
		path = xasprintf("%s/vm/%s/System.map", ktap_cache_dir(), abi);
	} else {
		/* the running kernel: its System.map (/proc/kallsyms takes
		 * ~0.2 s to read; registration reports a missing name anyway) */
		struct utsname u;

		if (uname(&u) != 0)
			return NULL;
		path = xasprintf("/boot/System.map-%s", u.release);
	}
	return access(path, R_OK) == 0 ? path : NULL;
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
	probes_load_symbols(kernel_symbol_file(opt));
	probes_set_target(opt);
	probes_set_syscall_target(opt);
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
	if (diag_error_count())
		return NULL;
	elide_unused(&r);
	merge_identical_handlers(prog);
	globals_collect(&r);
	return prog;
}

/* The tapset files the program's code came from: called functions (also
 * those elided later: their purity decided what was dropped), matched
 * aliases, and the globals it declares. The user's script is not one. */
const struct source **program_sources_used(const struct program *prog, int *n)
{
	struct program used = { .user = prog->user };
	const struct file *f;
	const struct global_decl *g;
	int i;

	for (i = 0; i < prog->nsources_used; i++)
		note_source_used(&used, &(struct file){ .src = prog->sources_used[i] });
	for (i = 0; i < prog->nglobals; i++)
		for (f = prog->files; f; f = f->next)
			for (g = f->globals; g; g = g->next)
				if (g == prog->globals[i]->global)
					note_source_used(&used, f);
	*n = used.nsources_used;
	return (const struct source **)used.sources_used;
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
