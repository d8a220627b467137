/* symbols.c - binds every name in a body to its symbol.
 *
 * Lookup order for a plain name: a local or parameter of the handler,
 * then a global (private ones only inside their own file); a name that is
 * none of these becomes a new local. Calls bind to a builtin or to a
 * script/tapset function of the same name and arity.
 */
#include <string.h>

#include "resolve.h"

static const struct {
	const char *name;
	int id;
} builtins[] = {
	{ "printf", BI_PRINTF },	{ "sprintf", BI_SPRINTF },
	{ "print", BI_PRINT },		{ "println", BI_PRINTLN },
	{ "sprint", BI_SPRINT },	{ "sprintln", BI_SPRINTLN },
	{ "printd", BI_PRINTD },	{ "printdln", BI_PRINTDLN },
	{ "sprintd", BI_SPRINTD },	{ "sprintdln", BI_SPRINTDLN },
};

bool builtin_returns_string(int id)
{
	return id == BI_SPRINTF || id == BI_SPRINT || id == BI_SPRINTLN ||
	       id == BI_SPRINTD || id == BI_SPRINTDLN;
}

/* print(a) or println(a) of a whole array or statistic global: ktap's
 * extension, printed element by element (runtime/map.h ktap_print_map();
 * SystemTap rejects it) */
bool builtin_prints_whole_global(const struct expr *call)
{
	const struct expr *a;

	if (call->kind != EX_CALL || call->nargs != 1 ||
	    (call->builtin != BI_PRINT && call->builtin != BI_PRINTLN))
		return false;
	a = call->args[0];
	return a->kind == EX_VAR && a->sym && a->sym->kind == SYM_GLOBAL &&
	       (a->sym->nkeys > 0 || a->sym->type == TY_STATS);
}

int builtin_lookup(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (strcmp(builtins[i].name, name) == 0)
			return builtins[i].id;
	return BI_NONE;
}

/* ---- globals ---- */

static struct file *file_of_global(struct resolver *r, const struct global_decl *g)
{
	struct file *f;
	struct global_decl *h;

	for (f = r->files; f; f = f->next)
		for (h = f->globals; h; h = h->next)
			if (h == g)
				return f;
	return NULL;
}

void sym_add_global(struct resolver *r, struct global_decl *g)
{
	struct program *prog = r->prog;
	struct symbol *s;
	int i;

	for (i = 0; i < prog->nglobals; i++) {
		struct symbol *old = prog->globals[i];

		if (strcmp(old->name, g->name) == 0 && !g->is_private &&
		    !old->global->is_private) {
			diag_error(&g->loc, "global '%s' is declared twice", g->name);
			diag_note(&old->loc, "first declared here");
			return;
		}
	}
	s = xalloc(sizeof(*s));
	s->kind = SYM_GLOBAL;
	s->name = g->name;
	s->loc = g->loc;
	s->global = g;
	s->index = prog->nglobals;
	if (g->init) {
		s->type = g->init->kind == EX_STRING ? TY_STRING : TY_LONG;
		s->type_loc = g->init->loc;
	}
	g->sym = s;
	prog->globals = xrealloc(prog->globals, (prog->nglobals + 1) * sizeof(s));
	prog->globals[prog->nglobals++] = s;
}

/* A script's own globals are not seen from tapset code: a user's
 * "global n" must not turn a tapset function's local n into it (stap
 * binds it, with a cross-file warning, and the tapset then breaks). */
static bool user_global_hidden(struct resolver *r, const struct global_decl *g,
			       const struct file *from)
{
	const struct file *owner;

	if (!from || !from->src || !from->src->is_tapset)
		return false;
	owner = file_of_global(r, g);
	return owner && owner->src && !owner->src->is_tapset;
}

struct symbol *sym_find_global(struct resolver *r, const char *name,
			       struct file *from)
{
	int i;

	for (i = 0; i < r->prog->nglobals; i++) {
		struct symbol *s = r->prog->globals[i];

		if (strcmp(s->name, name) != 0)
			continue;
		if (s->global->is_private && file_of_global(r, s->global) != from)
			continue;
		if (user_global_hidden(r, s->global, from))
			continue;
		return s;
	}
	return NULL;
}

/* a global of the files loaded, or of a tapset file that now loads */
static struct symbol *find_global(struct resolver *r, const char *name,
				  struct file *from)
{
	struct symbol *s = sym_find_global(r, name, from);

	if (s)
		return s;
	tapsets_need_global(r, name);
	return sym_find_global(r, name, from);
}

/* ---- locals ---- */

static struct symbol *find_local(struct scope *sc, const char *name)
{
	int i;

	for (i = 0; i < sc->n; i++)
		if (strcmp(sc->syms[i]->name, name) == 0)
			return sc->syms[i];
	return NULL;
}

static struct symbol *add_local(struct scope *sc, const char *name,
				const struct srcloc *loc)
{
	struct symbol *s = xalloc(sizeof(*s));

	s->kind = SYM_LOCAL;
	s->name = name;
	s->loc = *loc;
	s->index = sc->n;
	sc->syms = xrealloc(sc->syms, (sc->n + 1) * sizeof(s));
	sc->syms[sc->n++] = s;
	return s;
}

static struct symbol *lookup_var(struct resolver *r, struct scope *sc,
				 const char *name, const struct srcloc *loc)
{
	struct symbol *s = find_local(sc, name);

	if (!s)
		s = find_global(r, name, sc->file);
	if (!s)
		s = add_local(sc, name, loc);
	return s;
}

/* arrays and statistics live only in globals */
static struct symbol *lookup_array(struct resolver *r, struct scope *sc,
				   struct expr *e, int nkeys)
{
	struct symbol *s = find_local(sc, e->str);

	if (!s)
		s = find_global(r, e->str, sc->file);
	if (!s || s->kind != SYM_GLOBAL) {
		diag_error(&e->loc, "'%s' is used as an array or statistic, so it must be a global: add 'global %s'",
			   e->str, e->str);
		return NULL;
	}
	if (nkeys > MAX_ARRAY_KEYS) {
		diag_error(&e->loc, "array '%s' has %d keys here, more than the %d allowed",
			   s->name, nkeys, MAX_ARRAY_KEYS);
		return NULL;
	}
	if (s->nkeys == 0 && nkeys > 0)
		s->nkeys = nkeys;
	if (nkeys > 0 && s->nkeys != nkeys) {
		diag_error(&e->loc, "array '%s' is used with %d key%s here but with %d elsewhere",
			   s->name, nkeys, nkeys == 1 ? "" : "s", s->nkeys);
		return NULL;
	}
	return s;
}

/* ---- functions ---- */

/* SystemTap's documented tapset functions, for "not supported by ktap"
 * instead of a did-you-mean to an unrelated name (scripts/compat-table
 * --names makes the list from SystemTap's manual pages) */
static const char *const stap_functions[] = {
#include "stap-functions.def"
};

static bool is_stap_function(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(stap_functions) / sizeof(stap_functions[0]); i++)
		if (strcmp(stap_functions[i], name) == 0)
			return true;
	return false;
}

static void suggest_function(struct resolver *r, const struct expr *e)
{
	const char **names = NULL, **tapset_names;
	const char *best;
	int n = 0, ntapset, k;
	size_t i;
	struct file *f;
	struct function *fn;

	for (i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++) {
		names = xrealloc(names, (n + 1) * sizeof(*names));
		names[n++] = builtins[i].name;
	}
	for (f = r->files; f; f = f->next)
		for (fn = f->functions; fn; fn = fn->next) {
			names = xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = fn->name;
		}
	/* and those of the tapset files not loaded */
	tapset_names = tapsets_function_names(r, &ntapset);
	for (k = 0; k < ntapset; k++) {
		names = xrealloc(names, (n + 1) * sizeof(*names));
		names[n++] = tapset_names[k];
	}
	best = diag_closest(e->str, names, n);
	if (best)
		diag_note(&e->loc, "did you mean '%s'?", best);
}

static struct function *find_function(struct resolver *r, struct scope *sc,
				      const char *name, int nargs, int *arity)
{
	struct file *f;
	struct function *fn;

	*arity = -1;
	tapsets_need_function(r, name);
	for (f = r->files; f; f = f->next)
		for (fn = f->functions; fn; fn = fn->next) {
			if (strcmp(fn->name, name) != 0)
				continue;
			if (fn->is_private && f != sc->file)
				continue;
			if (fn->nparams == nargs)
				return fn;
			*arity = fn->nparams;
		}
	return NULL;
}

static void mark_called(struct resolver *r, struct function *fn)
{
	if (fn->used)
		return;
	fn->used = true;
	r->worklist = xrealloc(r->worklist, (r->nworklist + 1) * sizeof(fn));
	r->worklist[r->nworklist++] = fn;
}

static void resolve_call(struct resolver *r, struct scope *sc, struct expr *e)
{
	struct function *fn;
	int arity;

	e->builtin = builtin_lookup(e->str);
	if (e->builtin)
		return;
	fn = find_function(r, sc, e->str, e->nargs, &arity);
	if (fn) {
		/* a tapset function that changes the kernel (set_kernel_long,
		 * panic, ...): SystemTap too allows it only in guru mode */
		if (fn->guru && !r->opt->guru)
			diag_error(&e->loc, "function '%s' needs guru mode: run with -g", e->str);
		e->fn = fn;
		mark_called(r, fn);
		return;
	}
	if (arity >= 0) {
		diag_error(&e->loc, "function '%s' takes %d argument%s, not %d",
			   e->str, arity, arity == 1 ? "" : "s", e->nargs);
		return;
	}
	if (is_stap_function(e->str)) {
		diag_error(&e->loc, "function '%s' is a SystemTap tapset function not supported by ktap",
			   e->str);
		return;
	}
	diag_error(&e->loc, "unknown function '%s'", e->str);
	suggest_function(r, e);
}

/* ---- walking the tree ---- */

static void resolve_args(struct resolver *r, struct scope *sc, struct expr *e);

/* the operand of <<<, @count(...), @hist_log(...): a global, maybe indexed */
static void resolve_stat_operand(struct resolver *r, struct scope *sc,
				 struct expr *e)
{
	int i;

	if (e->kind == EX_VAR) {
		e->sym = lookup_array(r, sc, e, 0);
		return;
	}
	if (e->kind == EX_INDEX) {
		for (i = 0; i < e->nargs; i++)
			sym_resolve_expr(r, sc, e->args[i]);
		e->sym = lookup_array(r, sc, e, e->nargs);
		return;
	}
	diag_error(&e->loc, "statistics live in a global or a global array element");
}

/* foreach ([k1, k2] in a[...]) */
static void resolve_foreach(struct resolver *r, struct scope *sc, struct stmt *s)
{
	struct foreach_info *fe = s->fe;
	struct expr *a = fe->array;
	int i;

	if (a->kind == EX_HIST) {
		/* foreach (bucket in @hist_log(x)) */
		resolve_stat_operand(r, sc, a->lhs);
		resolve_args(r, sc, a);
		if (fe->nkeys != 1 || fe->value)
			diag_error(&s->loc, "a foreach over histogram buckets takes one loop variable");
		for (i = 0; i < fe->nkeys; i++)
			sym_resolve_expr(r, sc, fe->keys[i]);
		sym_resolve_expr(r, sc, fe->limit);
		return;
	}
	for (i = 0; i < a->nargs && a->kind == EX_INDEX; i++)
		sym_resolve_expr(r, sc, a->args[i]);
	a->sym = lookup_array(r, sc, a, fe->nkeys);
	if (a->kind == EX_INDEX && a->nargs != fe->nkeys)
		diag_error(&a->loc, "the slice has %d keys but the loop has %d variables",
			   a->nargs, fe->nkeys);
	for (i = 0; i < fe->nkeys; i++)
		sym_resolve_expr(r, sc, fe->keys[i]);
	sym_resolve_expr(r, sc, fe->value);
	sym_resolve_expr(r, sc, fe->limit);
}

/* delete a[k], delete a, delete x */
static void resolve_delete(struct resolver *r, struct scope *sc, struct stmt *s)
{
	struct expr *e = s->expr;

	if (e->kind == EX_INDEX) {
		sym_resolve_expr(r, sc, e);
		return;
	}
	if (e->kind == EX_VAR) {
		sym_resolve_expr(r, sc, e);
		return;
	}
	diag_error(&e->loc, "delete takes a variable, an array or an array element");
}

static void resolve_args(struct resolver *r, struct scope *sc, struct expr *e)
{
	int i;

	for (i = 0; i < e->nargs; i++)
		sym_resolve_expr(r, sc, e->args[i]);
}

void sym_resolve_expr(struct resolver *r, struct scope *sc, struct expr *e)
{
	if (!e)
		return;
	switch (e->kind) {
	case EX_VAR:
		e->sym = lookup_var(r, sc, e->str, &e->loc);
		return;
	case EX_INDEX:
		resolve_args(r, sc, e);
		e->sym = lookup_array(r, sc, e, e->nargs);
		return;
	case EX_IN:
		resolve_args(r, sc, e);
		if (e->rhs) {		/* N in @hist_log(x) */
			sym_resolve_expr(r, sc, e->rhs);
			return;
		}
		e->sym = lookup_array(r, sc, e, e->nargs);
		return;
	case EX_CALL:
		resolve_args(r, sc, e);
		resolve_call(r, sc, e);
		return;
	case EX_TARGET:
	case EX_TARGET_SPECIAL:
	case EX_CAST:
	case EX_ENTRY:
	case EX_AT_VAR:
	case EX_DEFINED:
	case EX_MEMBER: {
		/* their meaning comes from debuginfo (emit says so); here
		 * only the expressions inside them are resolved */
		const struct target_step *st;

		for (st = e->path; st; st = st->next)
			sym_resolve_expr(r, sc, st->index);
		sym_resolve_expr(r, sc, e->lhs);
		resolve_args(r, sc, e);
		return;
	}
	case EX_STAT_ADD:
	case EX_STAT_OP:
	case EX_HIST:
		resolve_stat_operand(r, sc, e->lhs);
		sym_resolve_expr(r, sc, e->rhs);
		resolve_args(r, sc, e);
		return;
	case EX_REGEX:
		sym_resolve_expr(r, sc, e->lhs);
		return;
	case EX_EMBEDDED:
	case EX_CONST:
	case EX_PROBEWRITE:
		diag_error(&e->loc, "this ktap does not translate this expression yet");
		return;
	default:
		break;
	}
	sym_resolve_expr(r, sc, e->lhs);
	sym_resolve_expr(r, sc, e->rhs);
	sym_resolve_expr(r, sc, e->cond);
	resolve_args(r, sc, e);
}

void sym_resolve_stmt(struct resolver *r, struct scope *sc, struct stmt *s)
{
	int i;

	if (!s)
		return;
	switch (s->kind) {
	case ST_FOREACH:
		resolve_foreach(r, sc, s);
		sym_resolve_stmt(r, sc, s->then);
		return;
	case ST_DELETE:
		resolve_delete(r, sc, s);
		return;
	case ST_TRY:
		sym_resolve_stmt(r, sc, s->then);
		sym_resolve_expr(r, sc, s->catch_var);
		sym_resolve_stmt(r, sc, s->catch_body);
		return;
	case ST_NEXT:
		if (sc->fn)
			diag_error(&s->loc, "'next' is only allowed in a probe");
		return;
	case ST_RETURN:
		if (!sc->fn)
			diag_error(&s->loc, "'return' is only allowed in a function; use 'next' to leave a probe");
		break;
	case ST_EMBEDDED:
		return;
	default:
		break;
	}
	for (i = 0; i < s->nbody; i++)
		sym_resolve_stmt(r, sc, s->body[i]);
	sym_resolve_stmt(r, sc, s->init);
	sym_resolve_expr(r, sc, s->expr);
	sym_resolve_expr(r, sc, s->step);
	sym_resolve_stmt(r, sc, s->then);
	sym_resolve_stmt(r, sc, s->els);
}

/* a function's parameters as symbols, then its body's names; its locals
 * are the scope's symbols */
void sym_resolve_function(struct resolver *r, struct function *fn, struct file *file)
{
	struct scope sc = { .fn = fn, .file = file };
	int i;

	for (i = 0; i < fn->nparams; i++) {
		struct symbol *s = xalloc(sizeof(*s));

		s->kind = SYM_PARAM;
		s->name = fn->params[i].name;
		s->loc = fn->params[i].loc;
		s->type = fn->params[i].type;
		s->type_loc = fn->params[i].loc;
		s->index = i;
		fn->params[i].sym = s;
		sc.syms = xrealloc(sc.syms, (sc.n + 1) * sizeof(s));
		sc.syms[sc.n++] = s;
	}
	if (fn->body)
		sym_resolve_stmt(r, &sc, fn->body);
	fn->locals = sc.syms;
	fn->nlocals = sc.n;
}
