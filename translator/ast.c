/* ast.c - small helpers on the syntax tree. */
#include <string.h>

#include "ktap.h"

const char *type_name(enum type t)
{
	switch (t) {
	case TY_UNKNOWN: return "unknown";
	case TY_LONG: return "long";
	case TY_STRING: return "string";
	case TY_STATS: return "stats";
	case TY_VOID: return "void";
	}
	return "?";
}

const char *op_text(enum op op)
{
	static const char *const text[] = {
		[OP_NONE] = "?",
		[OP_ADD] = "+", [OP_SUB] = "-", [OP_MUL] = "*", [OP_DIV] = "/",
		[OP_MOD] = "%", [OP_SHL] = "<<", [OP_SHR] = ">>",
		[OP_BITAND] = "&", [OP_BITOR] = "|", [OP_BITXOR] = "^",
		[OP_LT] = "<", [OP_LE] = "<=", [OP_GT] = ">", [OP_GE] = ">=",
		[OP_EQ] = "==", [OP_NE] = "!=", [OP_AND] = "&&", [OP_OR] = "||",
		[OP_NOT] = "!", [OP_BITNOT] = "~", [OP_NEG] = "-", [OP_PLUS] = "+",
		[OP_CONCAT] = ".", [OP_MATCH] = "=~", [OP_NOMATCH] = "!~",
		[OP_ASSIGN] = "=", [OP_ADD_ASSIGN] = "+=", [OP_SUB_ASSIGN] = "-=",
		[OP_MUL_ASSIGN] = "*=", [OP_DIV_ASSIGN] = "/=",
		[OP_MOD_ASSIGN] = "%=", [OP_SHL_ASSIGN] = "<<=",
		[OP_SHR_ASSIGN] = ">>=", [OP_AND_ASSIGN] = "&=",
		[OP_OR_ASSIGN] = "|=", [OP_XOR_ASSIGN] = "^=",
		[OP_CONCAT_ASSIGN] = ".=", [OP_INC] = "++", [OP_DEC] = "--",
		[OP_ADDRESS] = "&", [OP_STAT_ADD] = "<<<",
	};
	if ((unsigned)op < sizeof text / sizeof text[0] && text[op])
		return text[op];
	return "?";
}

void ast_walk_expr(struct expr *e, expr_visitor visit, void *arg)
{
	struct target_step *st;
	int i;

	if (!e || !visit(e, arg))
		return;
	ast_walk_expr(e->lhs, visit, arg);
	ast_walk_expr(e->rhs, visit, arg);
	ast_walk_expr(e->cond, visit, arg);
	for (i = 0; i < e->nargs; i++)
		ast_walk_expr(e->args[i], visit, arg);
	for (st = e->path; st; st = st->next)
		ast_walk_expr(st->index, visit, arg);
}

void ast_walk_stmt(struct stmt *s, expr_visitor visit, void *arg)
{
	int i;

	if (!s)
		return;
	for (i = 0; i < s->nbody; i++)
		ast_walk_stmt(s->body[i], visit, arg);
	ast_walk_expr(s->expr, visit, arg);
	ast_walk_stmt(s->init, visit, arg);
	ast_walk_expr(s->step, visit, arg);
	ast_walk_stmt(s->then, visit, arg);
	ast_walk_stmt(s->els, visit, arg);
	if (s->fe) {
		ast_walk_expr(s->fe->value, visit, arg);
		for (i = 0; i < s->fe->nkeys; i++)
			ast_walk_expr(s->fe->keys[i], visit, arg);
		ast_walk_expr(s->fe->array, visit, arg);
		ast_walk_expr(s->fe->limit, visit, arg);
	}
	ast_walk_stmt(s->catch_body, visit, arg);
	ast_walk_expr(s->catch_var, visit, arg);
}

/* the probe point as text, e.g. kprobe.function("vfs_read").return */
char *probe_point_text(const struct probe_point *pp)
{
	struct strbuf sb = { 0 };
	int i;

	sb_puts(&sb, "");
	for (i = 0; i < pp->ncomps; i++) {
		const struct pp_component *c = &pp->comps[i];

		sb_printf(&sb, "%s%s", i ? "." : "", c->name);
		if (c->has_arg && c->arg_is_string)
			sb_printf(&sb, "(\"%s\")", c->str_arg);
		else if (c->has_arg)
			sb_printf(&sb, "(%lld)", (long long)c->num_arg);
	}
	return sb.buf;
}

bool pp_is(const struct probe_point *pp, int i, const char *name)
{
	return i < pp->ncomps && strcmp(pp->comps[i].name, name) == 0;
}
