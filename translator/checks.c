/* checks.c - pass 2's checks: what the command line asks of the script,
 * and what SystemTap rejects that the other passes let through.
 *
 * -G NAME=VALUE sets a scalar global when the module loads (emit.c makes
 * it a module parameter, ktap-run passes the value): the global must
 * exist, be a scalar, and take the value's type.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "resolve.h"
#include "target.h"

static struct symbol *global_named(const struct program *prog, const char *name,
				   size_t len)
{
	int i;

	for (i = 0; i < prog->nglobals; i++)
		if (strlen(prog->globals[i]->name) == len &&
		    strncmp(prog->globals[i]->name, name, len) == 0)
			return prog->globals[i];
	return NULL;
}

static bool is_number(const char *s)
{
	char *end;

	errno = 0;
	strtoll(s, &end, 0);
	return *s && !*end && !errno;
}

/* "did you mean" among the script's scalar globals */
static void suggest_global(const struct program *prog, const char *name)
{
	const char **names = xalloc((prog->nglobals + 1) * sizeof(*names));
	const char *best;
	int i, n = 0;

	for (i = 0; i < prog->nglobals; i++)
		if (!prog->globals[i]->nkeys)
			names[n++] = prog->globals[i]->name;
	best = diag_closest(name, names, n);
	if (best)
		diag_note(NULL, "did you mean '%s'?", best);
	xfree(names);
}

/* one -G setting: an error when it cannot be applied */
static void check_global_setting(const struct program *prog, const char *set)
{
	size_t n = strcspn(set, "=");
	const char *value = set + n + 1;
	char *name = xstrndup(set, n);
	struct symbol *g = global_named(prog, set, n);

	if (!g) {
		diag_error(NULL, "-G %s: the script has no global '%s'", set, name);
		suggest_global(prog, name);
	} else if (g->nkeys || g->type == TY_STATS) {
		diag_error(NULL, "-G %s: global '%s' is %s; -G sets numbers and strings",
			   set, name, g->nkeys ? "an array" : "a statistic");
		diag_note(&g->loc, "'%s' is declared here", name);
	} else if (g->type == TY_STRING && strchr(value, '"')) {
		/* the kernel's parameter parser has no escape for it */
		diag_error(NULL, "-G %s: a string set with -G cannot hold '\"'", set);
	} else if (g->type != TY_STRING && !is_number(value)) {
		diag_error(NULL, "-G %s: global '%s' is a number, and '%s' is not one",
			   set, name, value);
		diag_note(&g->loc, "'%s' is declared here", name);
	}
	xfree(name);
}

/* errors count as pass 2's: the run stops before building */
void check_global_settings(struct resolver *r)
{
	int i;

	for (i = 0; i < r->opt->nglobal_settings; i++)
		check_global_setting(r->prog, r->opt->global_settings[i]);
}

/* ---- what code changes: foreach bodies and probe conditions ----
 * SystemTap rejects a foreach whose body changes the array it walks (the
 * walk's order and elements would be undefined), and a probe condition
 * that changes anything (it is evaluated whenever the runtime wishes). */

#define MAX_CALL_DEPTH 32

struct effect_query {
	const struct symbol *array;	/* changes to this array; NULL: any effect */
	const struct expr *found;	/* the change (or the call that makes it) */
	const struct function *stack[MAX_CALL_DEPTH];
	int depth;			/* > 0 inside a called function */
};

static void effects_in_stmt(struct effect_query *q, const struct stmt *s);

static bool is_global_sym(const struct symbol *s)
{
	return s && s->kind == SYM_GLOBAL;
}

/* does writing e (the left side of =, ++, <<<, delete) count? */
static bool counts_as_change(const struct effect_query *q, const struct expr *e)
{
	if (q->array)
		return e->kind == EX_INDEX && e->sym == q->array;
	if (e->kind == EX_TARGET || e->kind == EX_AT_VAR)	/* guru: the kernel's */
		return true;
	/* in the condition itself any variable; in a function, its globals */
	return q->depth == 0 || is_global_sym(e->sym);
}

static bool on_stack(const struct effect_query *q, const struct function *fn)
{
	int i;

	for (i = 0; i < q->depth; i++)
		if (q->stack[i] == fn)
			return true;
	return false;
}

/* a call: its body's changes, or for embedded C and printing builtins,
 * an effect unless it is marked pure */
static bool call_changes(struct effect_query *q, const struct expr *e)
{
	const struct function *fn = e->fn;
	struct effect_query inner;

	if (!fn)
		return !q->array && e->builtin && !builtin_returns_string(e->builtin);
	if (fn->embedded)
		return !q->array && !fn->pure;
	if (on_stack(q, fn) || q->depth >= MAX_CALL_DEPTH)
		return false;
	inner = *q;
	inner.stack[inner.depth++] = fn;
	inner.found = NULL;
	effects_in_stmt(&inner, fn->body);
	return inner.found != NULL;
}

static bool effects_visit(struct expr *e, void *arg)
{
	struct effect_query *q = arg;

	if (q->found)
		return false;
	switch (e->kind) {
	case EX_ASSIGN:
	case EX_INCDEC:
	case EX_STAT_ADD:
		if (counts_as_change(q, e->lhs))
			q->found = e->lhs;	/* the caret under the name */
		break;
	case EX_CALL:
		if (call_changes(q, e))
			q->found = e;
		break;
	default:
		break;
	}
	return !q->found;
}

static void effects_in_expr(struct effect_query *q, struct expr *e)
{
	if (e && !q->found)
		ast_walk_expr(e, effects_visit, q);
}

static void effects_in_stmt(struct effect_query *q, const struct stmt *s)
{
	int i;

	if (!s || q->found)
		return;
	if (s->kind == ST_DELETE && s->expr && counts_as_change(q, s->expr)) {
		q->found = s->expr;
		return;
	}
	for (i = 0; i < s->nbody; i++)
		effects_in_stmt(q, s->body[i]);
	effects_in_stmt(q, s->init);
	if (s->kind != ST_DELETE)
		effects_in_expr(q, s->expr);
	effects_in_expr(q, s->step);
	effects_in_stmt(q, s->then);
	effects_in_stmt(q, s->els);
	effects_in_stmt(q, s->catch_body);
}

static void report_foreach_change(const struct stmt *loop, const struct expr *e)
{
	const char *name = loop->fe->array->sym->name;

	if (e->kind == EX_CALL)
		diag_error(&e->loc, "'%s' changes array '%s' during the foreach over it",
			   e->str, name);
	else
		diag_error(&e->loc, "array '%s' is changed during the foreach over it", name);
	diag_note(&loop->loc, "the foreach is here");
}

/* every foreach in s, nested ones too */
static void check_foreach_in(const struct stmt *s)
{
	int i;

	if (!s)
		return;
	if (s->kind == ST_FOREACH && s->fe->array && is_global_sym(s->fe->array->sym)) {
		struct effect_query q = { .array = s->fe->array->sym };

		effects_in_stmt(&q, s->then);
		if (q.found)
			report_foreach_change(s, q.found);
	}
	for (i = 0; i < s->nbody; i++)
		check_foreach_in(s->body[i]);
	check_foreach_in(s->then);
	check_foreach_in(s->els);
	check_foreach_in(s->catch_body);
}

void check_foreach_changes(struct resolver *r)
{
	const struct program *prog = r->prog;
	int i;

	for (i = 0; i < prog->nprobes; i++)
		check_foreach_in(prog->probes[i]->body);
	for (i = 0; i < prog->nfunctions; i++)
		check_foreach_in(prog->functions[i]->body);
}

static void check_condition(struct expr *cond)
{
	struct effect_query q = { 0 };

	effects_in_expr(&q, cond);
	if (!q.found)
		return;
	if (q.found->kind == EX_CALL)
		diag_error(&q.found->loc, "a probe condition must not call '%s': it has side effects",
			   q.found->str);
	else
		diag_error(&q.found->loc, "a probe condition must not change variables");
}

void check_probe_conditions(struct resolver *r)
{
	const struct program *prog = r->prog;
	const struct concrete_point *cp;
	int i;

	for (i = 0; i < prog->nprobes; i++)
		for (cp = prog->probes[i]->points; cp; cp = cp->next)
			if (cp->cond)
				check_condition(cp->cond);
}

/* ---- @perf("NAME") and the perf .counter("NAME") probes ---- */

struct perf_query {
	const struct program *prog;
};

/* does a probe of the script keep the counter? */
static bool has_counter(const struct program *prog, const char *name)
{
	const struct concrete_point *cp;
	int i;

	for (i = 0; i < prog->nprobes; i++)
		for (cp = prog->probes[i]->points; cp; cp = cp->next)
			if (cp->kind == PK_PERF && cp->perf_counter && !strcmp(cp->perf_counter, name))
				return true;
	return false;
}

/* @perf compiles to __perf_counter_value("NAME") (parser.c) */
static bool perf_visit(struct expr *e, void *arg)
{
	const struct perf_query *q = arg;

	if (e->kind == EX_CALL && !strcmp(e->str, "__perf_counter_value") && e->nargs == 1 &&
	    e->args[0]->kind == EX_STRING && !has_counter(q->prog, e->args[0]->str))
		diag_error(&e->loc, "@perf(\"%s\"): the script has no perf probe with "
			   ".counter(\"%s\")", e->args[0]->str, e->args[0]->str);
	return true;
}

void check_perf_counters(struct resolver *r)
{
	const struct perf_query q = { r->prog };
	int i;

	for (i = 0; i < r->prog->nprobes; i++)
		ast_walk_stmt(r->prog->probes[i]->body, perf_visit, (void *)&q);
	for (i = 0; i < r->prog->nfunctions; i++)
		ast_walk_stmt(r->prog->functions[i]->body, perf_visit, (void *)&q);
}

/* ---- points the kernel would refuse ---- */

static const char *refusal(const struct concrete_point *cp)
{
	if ((cp->kind != PK_KPROBE && cp->kind != PK_KRETPROBE) || !cp->symbol)
		return NULL;
	return target_kprobe_refusal(target_kernel(), cp->symbol, cp->offset);
}

/* Drops from the points a provider gave for pp (*first and its ->next)
 * those the kernel will not arm: .init.text, the kprobe blacklist. None
 * left is an error at pp (SystemTap: no match), unless pp is optional.
 * Returns false when none is left. */
bool check_refused_points(const struct probe_point *pp, struct concrete_point *first,
			  bool optional)
{
	struct concrete_point *copy = xalloc(sizeof(*copy)), *cp, *keep = NULL, **tail = &keep;
	const char *why = NULL;

	*copy = *first;
	for (cp = copy; cp; cp = cp->next) {
		const char *r = refusal(cp);

		if (r) {
			why = why ? why : r;
			continue;
		}
		*tail = cp;
		tail = &cp->next;
	}
	*tail = NULL;
	if (keep) {
		*first = *keep;
		return true;
	}
	if (!optional)
		diag_error(&pp->loc, "cannot probe %s: %s", first->pp, why);
	return false;
}
