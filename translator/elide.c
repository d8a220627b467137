/* elide.c - drop work whose result nobody uses.
 *
 * A tapset alias computes every variable it offers (syscall.open sets
 * name, filename, flags, mode, argstr ...), but a script reads only a few.
 * An assignment to a local that nothing reads is dropped when its value is
 * pure (no output, no global changed, only pure functions called); this
 * repeats, since dropping one may leave another unread. Then the functions
 * no handler can reach any more are dropped from the program.
 */
#include <string.h>

#include "resolve.h"

enum purity { PURITY_UNKNOWN, PURITY_COMPUTING, PURITY_PURE, PURITY_IMPURE };

struct eliminator {
	struct program *prog;
	enum purity *fn_purity;		/* parallel to prog->functions */
	int *reads;			/* per local symbol index, this probe */
	int nreads;
};

static int fn_index(const struct program *prog, const struct function *fn)
{
	int i;

	for (i = 0; i < prog->nfunctions; i++)
		if (prog->functions[i] == fn)
			return i;
	return -1;
}

static bool stmt_is_pure(struct eliminator *el, const struct stmt *s);

static bool function_is_pure(struct eliminator *el, const struct function *fn)
{
	int i = fn_index(el->prog, fn);
	bool pure;

	if (i < 0)
		return false;
	if (el->fn_purity[i] == PURITY_COMPUTING)	/* recursion: decided above */
		return true;
	if (el->fn_purity[i] != PURITY_UNKNOWN)
		return el->fn_purity[i] == PURITY_PURE;
	el->fn_purity[i] = PURITY_COMPUTING;
	if (fn->embedded)
		pure = fn->pure;
	else
		pure = stmt_is_pure(el, fn->body);
	el->fn_purity[i] = pure ? PURITY_PURE : PURITY_IMPURE;
	return pure;
}

static bool is_global(const struct expr *e)
{
	return e && e->sym && e->sym->kind == SYM_GLOBAL;
}

static bool expr_is_pure(struct eliminator *el, const struct expr *e)
{
	int i;

	if (!e)
		return true;
	switch (e->kind) {
	case EX_ASSIGN:
	case EX_INCDEC:
		if (is_global(e->lhs) || e->lhs->kind == EX_INDEX)
			return false;
		break;
	case EX_STAT_ADD:
	case EX_REGEX:		/* sets what matched() returns */
		return false;
	case EX_BINARY:		/* division may stop the script */
		if (e->op == OP_DIV || e->op == OP_MOD)
			return false;
		break;
	case EX_CALL:
		if (e->builtin && !builtin_returns_string(e->builtin))
			return false;
		if (e->fn && !function_is_pure(el, e->fn))
			return false;
		break;
	default:
		break;
	}
	for (i = 0; i < e->nargs; i++)
		if (!expr_is_pure(el, e->args[i]))
			return false;
	return expr_is_pure(el, e->lhs) && expr_is_pure(el, e->rhs) &&
	       expr_is_pure(el, e->cond);
}

static bool stmt_is_pure(struct eliminator *el, const struct stmt *s)
{
	int i;

	if (!s)
		return true;
	switch (s->kind) {
	case ST_NEXT:
	case ST_DELETE:
	case ST_FOREACH:	/* keeps the array busy, may error */
	case ST_EMBEDDED:
		return false;
	default:
		break;
	}
	for (i = 0; i < s->nbody; i++)
		if (!stmt_is_pure(el, s->body[i]))
			return false;
	return stmt_is_pure(el, s->init) && expr_is_pure(el, s->expr) &&
	       expr_is_pure(el, s->step) && stmt_is_pure(el, s->then) &&
	       stmt_is_pure(el, s->els) && stmt_is_pure(el, s->catch_body);
}

/* ---- counting reads of locals ---- */

static void count_expr(struct eliminator *el, const struct expr *e);

static void count_sym(struct eliminator *el, const struct symbol *s)
{
	if (s && s->kind == SYM_LOCAL && s->index < el->nreads)
		el->reads[s->index]++;
}

static void count_expr(struct eliminator *el, const struct expr *e)
{
	int i;

	if (!e)
		return;
	if (e->kind == EX_VAR)
		count_sym(el, e->sym);
	/* the left side of '=' is written, not read; of 'op=' both */
	if (e->kind == EX_ASSIGN && e->lhs->kind == EX_VAR) {
		if (e->op != OP_ASSIGN)
			count_sym(el, e->lhs->sym);
	} else {
		count_expr(el, e->lhs);
	}
	count_expr(el, e->rhs);
	count_expr(el, e->cond);
	for (i = 0; i < e->nargs; i++)
		count_expr(el, e->args[i]);
}

static void count_stmt(struct eliminator *el, const struct stmt *s)
{
	int i;

	if (!s)
		return;
	for (i = 0; i < s->nbody; i++)
		count_stmt(el, s->body[i]);
	count_stmt(el, s->init);
	count_expr(el, s->expr);
	count_expr(el, s->step);
	count_stmt(el, s->then);
	count_stmt(el, s->els);
	count_stmt(el, s->catch_body);
	if (s->fe) {
		/* loop variables are written by the loop: count them read */
		for (i = 0; i < s->fe->nkeys; i++)
			count_expr(el, s->fe->keys[i]);
		count_expr(el, s->fe->value);
		count_expr(el, s->fe->array);
		count_expr(el, s->fe->limit);
	}
	if (s->catch_var)
		count_expr(el, s->catch_var);
}

/* ---- dropping ---- */

static bool unread_assignment(struct eliminator *el, const struct stmt *s)
{
	const struct expr *e = s->expr;

	/* only what tapsets compute on the script's behalf: the script's
	 * own statements run as written */
	if (!s->loc.src || !s->loc.src->is_tapset)
		return false;
	if (s->kind != ST_EXPR || e->kind != EX_ASSIGN || e->op != OP_ASSIGN ||
	    e->lhs->kind != EX_VAR || !e->lhs->sym || e->lhs->sym->kind != SYM_LOCAL)
		return false;
	if (e->lhs->sym->index >= el->nreads || el->reads[e->lhs->sym->index])
		return false;
	return expr_is_pure(el, e->rhs);
}

static bool drop_in_stmt(struct eliminator *el, struct stmt *s)
{
	bool dropped = false;
	int i;

	if (!s)
		return false;
	if (unread_assignment(el, s)) {
		s->kind = ST_NULL;
		s->expr = NULL;
		return true;
	}
	for (i = 0; i < s->nbody; i++)
		dropped |= drop_in_stmt(el, s->body[i]);
	dropped |= drop_in_stmt(el, s->then);
	dropped |= drop_in_stmt(el, s->els);
	dropped |= drop_in_stmt(el, s->catch_body);
	return dropped;
}

static void elide_body(struct eliminator *el, struct stmt *body, int nlocals,
		       const struct expr *cond)
{
	bool dropped;

	el->nreads = nlocals;
	el->reads = xrealloc(el->reads, (nlocals + 1) * sizeof(int));
	do {
		memset(el->reads, 0, (nlocals + 1) * sizeof(int));
		count_stmt(el, body);
		count_expr(el, cond);
		dropped = drop_in_stmt(el, body);
	} while (dropped);
}

/* ---- functions still reachable ---- */

static void reach_expr(struct program *prog, bool *reached, const struct expr *e);

static void reach_stmt(struct program *prog, bool *reached, const struct stmt *s)
{
	int i;

	if (!s)
		return;
	for (i = 0; i < s->nbody; i++)
		reach_stmt(prog, reached, s->body[i]);
	reach_stmt(prog, reached, s->init);
	reach_expr(prog, reached, s->expr);
	reach_expr(prog, reached, s->step);
	reach_stmt(prog, reached, s->then);
	reach_stmt(prog, reached, s->els);
	reach_stmt(prog, reached, s->catch_body);
	if (s->fe) {
		reach_expr(prog, reached, s->fe->array);
		reach_expr(prog, reached, s->fe->limit);
	}
}

static void reach_expr(struct program *prog, bool *reached, const struct expr *e)
{
	int i;

	if (!e)
		return;
	if (e->kind == EX_CALL && e->fn) {
		int k = fn_index(prog, e->fn);

		if (k >= 0 && !reached[k]) {
			reached[k] = true;
			reach_stmt(prog, reached, e->fn->body);
		}
	}
	reach_expr(prog, reached, e->lhs);
	reach_expr(prog, reached, e->rhs);
	reach_expr(prog, reached, e->cond);
	for (i = 0; i < e->nargs; i++)
		reach_expr(prog, reached, e->args[i]);
}

static void drop_unreached_functions(struct program *prog)
{
	bool *reached = xalloc((prog->nfunctions + 1) * sizeof(bool));
	int i, n = 0;

	for (i = 0; i < prog->nprobes; i++) {
		const struct concrete_point *cp;

		reach_stmt(prog, reached, prog->probes[i]->body);
		for (cp = prog->probes[i]->points; cp; cp = cp->next)
			reach_expr(prog, reached, cp->cond);
	}
	for (i = 0; i < prog->nfunctions; i++)
		if (reached[i])
			prog->functions[n++] = prog->functions[i];
	prog->nfunctions = n;
}

void elide_unused(struct resolver *r)
{
	struct eliminator el = { 0 };
	struct program *prog = r->prog;
	int i;

	el.prog = prog;
	el.fn_purity = xalloc((prog->nfunctions + 1) * sizeof(*el.fn_purity));
	for (i = 0; i < prog->nprobes; i++) {
		struct resolved_probe *rp = prog->probes[i];

		elide_body(&el, rp->body, rp->nlocals, rp->points->cond);
	}
	drop_unreached_functions(prog);
}
