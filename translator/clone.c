/* clone.c - deep copies of statement trees.
 *
 * A probe body or alias prologue that ends up in several probe handlers is
 * copied once per handler, so resolve can annotate each copy with that
 * handler's own local symbols.
 */
#include <string.h>

#include "ktap.h"
#include "resolve.h"

/* while cloning an alias body: the user's probe point that pulled it in,
 * so messages about the tapset's code also point at the script */
static const struct srcloc *clone_via;

static void mark_via(struct srcloc *loc)
{
	if (clone_via && !loc->via)
		loc->via = clone_via;
}

void clone_set_via(const struct srcloc *via)
{
	clone_via = via;
}

static struct expr **clone_expr_list(struct expr **list, int n)
{
	struct expr **out;
	int i;

	if (!list)
		return NULL;
	out = xalloc((n ? n : 1) * sizeof(*out));
	for (i = 0; i < n; i++)
		out[i] = clone_expr(list[i]);
	return out;
}

static struct target_step *clone_path(const struct target_step *step)
{
	struct target_step *out;

	if (!step)
		return NULL;
	out = xalloc(sizeof(*out));
	*out = *step;
	out->index = clone_expr(step->index);
	out->next = clone_path(step->next);
	return out;
}

struct expr *clone_expr(const struct expr *e)
{
	struct expr *out;

	if (!e)
		return NULL;
	out = xalloc(sizeof(*out));
	*out = *e;
	mark_via(&out->loc);
	out->lhs = clone_expr(e->lhs);
	out->rhs = clone_expr(e->rhs);
	out->cond = clone_expr(e->cond);
	out->args = clone_expr_list(e->args, e->nargs);
	out->path = clone_path(e->path);
	out->sym = NULL;
	out->fn = NULL;
	return out;
}

static struct foreach_info *clone_foreach(const struct foreach_info *fe)
{
	struct foreach_info *out;

	if (!fe)
		return NULL;
	out = xalloc(sizeof(*out));
	*out = *fe;
	out->value = clone_expr(fe->value);
	out->keys = clone_expr_list(fe->keys, fe->nkeys);
	out->array = clone_expr(fe->array);
	out->limit = clone_expr(fe->limit);
	return out;
}

struct stmt *clone_stmt(const struct stmt *s)
{
	struct stmt *out;
	int i;

	if (!s)
		return NULL;
	out = xalloc(sizeof(*out));
	*out = *s;
	mark_via(&out->loc);
	if (s->body) {
		out->body = xalloc((s->nbody ? s->nbody : 1) * sizeof(*out->body));
		for (i = 0; i < s->nbody; i++)
			out->body[i] = clone_stmt(s->body[i]);
	}
	out->expr = clone_expr(s->expr);
	out->init = clone_stmt(s->init);
	out->step = clone_expr(s->step);
	out->then = clone_stmt(s->then);
	out->els = clone_stmt(s->els);
	out->fe = clone_foreach(s->fe);
	out->catch_body = clone_stmt(s->catch_body);
	out->catch_var = clone_expr(s->catch_var);
	return out;
}
