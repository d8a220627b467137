/* print.c - the -p1 canonical form of a parsed file.
 *
 * One statement per line, two-space indentation, and only the
 * parentheses the grammar needs. The output parses back to the same
 * tree, so print(parse(print(x))) == print(x); tests rely on it.
 */
#include <string.h>

#include "ktap.h"

#define INDENT "  "

/* Binding strength of each expression, as in parser.c (loosest first). */
enum prec {
	PREC_ASSIGN = 1, PREC_TERNARY, PREC_OR, PREC_AND, PREC_BITOR,
	PREC_XOR, PREC_BITAND, PREC_IN, PREC_COMPARE, PREC_SHIFT,
	PREC_CONCAT, PREC_ADD, PREC_MUL, PREC_UNARY, PREC_POSTFIX,
	PREC_PRIMARY,
};

static void print_expr(FILE *out, const struct expr *e, int min_prec);

static int binary_prec(enum op op)
{
	switch (op) {
	case OP_BITOR: return PREC_BITOR;
	case OP_BITXOR: return PREC_XOR;
	case OP_BITAND: return PREC_BITAND;
	case OP_SHL: case OP_SHR: return PREC_SHIFT;
	case OP_ADD: case OP_SUB: return PREC_ADD;
	default: break;
	}
	return PREC_MUL;
}

static int prec(const struct expr *e)
{
	switch (e->kind) {
	case EX_ASSIGN: case EX_STAT_ADD: return PREC_ASSIGN;
	case EX_TERNARY: return PREC_TERNARY;
	case EX_LOGICAL: return e->op == OP_OR ? PREC_OR : PREC_AND;
	case EX_BINARY: return binary_prec(e->op);
	case EX_IN: return PREC_IN;
	case EX_COMPARE: case EX_REGEX: return PREC_COMPARE;
	case EX_CONCAT: return PREC_CONCAT;
	case EX_UNARY: return PREC_UNARY;
	case EX_INCDEC: return e->postfix ? PREC_POSTFIX : PREC_UNARY;
	case EX_NUMBER: return e->num < 0 ? PREC_UNARY : PREC_PRIMARY;
	default: return PREC_PRIMARY;
	}
}

/* A string literal with C escapes, as the lexer reads it back. */
static void print_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c == '\r')
			fputs("\\r", out);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\%03o", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void print_list(FILE *out, struct expr **args, int n)
{
	for (int i = 0; i < n; i++) {
		if (i)
			fputs(", ", out);
		print_expr(out, args[i], PREC_ASSIGN);
	}
}

static void print_path(FILE *out, const struct expr *e)
{
	for (const struct target_step *s = e->path; s; s = s->next) {
		if (s->kind == TS_MEMBER) {
			fprintf(out, "->%s", s->field);
		} else {
			fputc('[', out);
			print_expr(out, s->index, PREC_ASSIGN);
			fputc(']', out);
		}
	}
	if (e->suffix)
		fputs(e->suffix, out);
}

/* What a ->member path applies to: parenthesized unless it is a plain
 * variable, element or call followed by '->', which reads back the same. */
static void print_member_base(FILE *out, const struct expr *e,
			      const struct target_step *first)
{
	bool bare = (e->kind == EX_VAR || e->kind == EX_CALL ||
		     e->kind == EX_INDEX) && first->kind == TS_MEMBER;
	if (!bare)
		fputc('(', out);
	print_expr(out, e, PREC_ASSIGN);
	if (!bare)
		fputc(')', out);
}

/* The operand of a prefix operator; parenthesized when it starts with
 * an operator itself, so "- -x" never becomes "--x". */
static void print_prefix_operand(FILE *out, const struct expr *e)
{
	bool starts_with_op = e->kind == EX_UNARY ||
		(e->kind == EX_INCDEC && !e->postfix) ||
		(e->kind == EX_NUMBER && e->num < 0);
	if (starts_with_op) {
		fputc('(', out);
		print_expr(out, e, PREC_ASSIGN);
		fputc(')', out);
	} else {
		print_expr(out, e, PREC_UNARY);
	}
}

static void print_at_call(FILE *out, const char *name, const struct expr *e)
{
	fprintf(out, "@%s(", name);
	print_expr(out, e->lhs, PREC_ASSIGN);
	if (e->rhs) {
		fputs(", ", out);
		print_expr(out, e->rhs, PREC_ASSIGN);
	}
	for (int i = 0; i < e->nargs; i++) {
		fputs(", ", out);
		print_expr(out, e->args[i], PREC_ASSIGN);
	}
	fputc(')', out);
}

/* @cast(ptr, "type"[, "module"])path  /  @var("name"[, "module"])path */
static void print_cast(FILE *out, const struct expr *e)
{
	if (e->kind == EX_CAST) {
		fputs("@cast(", out);
		print_expr(out, e->lhs, PREC_ASSIGN);
		fputs(", ", out);
	} else {
		fputs("@var(", out);
	}
	print_string(out, e->str);
	if (e->module) {
		fputs(", ", out);
		print_string(out, e->module);
	}
	fputc(')', out);
	print_path(out, e);
}

static void print_binary(FILE *out, const struct expr *e, int p)
{
	print_expr(out, e->lhs, p);
	fprintf(out, " %s ", op_text(e->op));
	print_expr(out, e->rhs, p + 1);
}

static void print_operators(FILE *out, const struct expr *e)
{
	switch (e->kind) {
	case EX_ASSIGN: case EX_STAT_ADD:
		print_expr(out, e->lhs, PREC_TERNARY);
		fprintf(out, " %s ", op_text(e->op));
		print_expr(out, e->rhs, PREC_ASSIGN);
		break;
	case EX_TERNARY:
		print_expr(out, e->cond, PREC_OR);
		fputs(" ? ", out);
		print_expr(out, e->lhs, PREC_ASSIGN);
		fputs(" : ", out);
		print_expr(out, e->rhs, PREC_TERNARY);
		break;
	case EX_IN:
		fputc('[', out);
		print_list(out, e->args, e->nargs);
		if (e->rhs) {		/* a histogram's bucket */
			fputs("] in ", out);
			print_expr(out, e->rhs, PREC_PRIMARY);
		} else {
			fprintf(out, "] in %s", e->str);
		}
		break;
	case EX_UNARY:
		fputs(op_text(e->op), out);
		print_prefix_operand(out, e->lhs);
		break;
	case EX_INCDEC:
		if (e->postfix) {
			print_expr(out, e->lhs, PREC_PRIMARY);
			fputs(op_text(e->op), out);
		} else {
			fputs(op_text(e->op), out);
			print_prefix_operand(out, e->lhs);
		}
		break;
	default:
		print_binary(out, e, prec(e));
		break;
	}
}

static void print_primary(FILE *out, const struct expr *e)
{
	switch (e->kind) {
	case EX_NUMBER:
		fprintf(out, "%lld", (long long)e->num);
		break;
	case EX_STRING:
		print_string(out, e->str);
		break;
	case EX_SCRIPT_ARG:
		fprintf(out, "%s%lld", e->str ? "@" : "$", (long long)e->num);
		break;
	case EX_ARGC:
		fputs(e->str ? "@#" : "$#", out);
		break;
	case EX_VAR:
		fputs(e->str, out);
		break;
	case EX_INDEX:
		fprintf(out, "%s[", e->str);
		print_list(out, e->args, e->nargs);
		fputc(']', out);
		break;
	case EX_STAR:
		fputc('*', out);
		break;
	case EX_CALL:
		fprintf(out, "%s(", e->str);
		print_list(out, e->args, e->nargs);
		fputc(')', out);
		break;
	case EX_TARGET: case EX_TARGET_SPECIAL:
		fputs(e->str, out);
		print_path(out, e);
		break;
	case EX_MEMBER:
		print_member_base(out, e->lhs, e->path);
		print_path(out, e);
		break;
	case EX_STAT_OP: case EX_HIST:
		print_at_call(out, e->str, e);
		break;
	case EX_ENTRY:
		print_at_call(out, "entry", e);
		break;
	case EX_DEFINED:
		print_at_call(out, "defined", e);
		break;
	case EX_PROBEWRITE:
		print_at_call(out, "probewrite", e);
		break;
	case EX_SIZEOF:
		fputs(e->module ? "@cast_module_sizeof(" : "@cast_sizeof(", out);
		if (e->module) {
			print_string(out, e->module);
			fputs(", ", out);
		}
		print_string(out, e->str);
		fputc(')', out);
		break;
	case EX_CONST:
		fputs("@const(", out);
		print_string(out, e->str);
		fputc(')', out);
		break;
	case EX_HIST_INDEX:
		print_expr(out, e->lhs, PREC_PRIMARY);
		fputc('[', out);
		print_expr(out, e->rhs, PREC_ASSIGN);
		fputc(']', out);
		break;
	case EX_CAST: case EX_AT_VAR:
		print_cast(out, e);
		break;
	case EX_EMBEDDED:
		fprintf(out, "%%{%s%%}", e->str);
		break;
	default:
		print_operators(out, e);
		break;
	}
}

static void print_expr(FILE *out, const struct expr *e, int min_prec)
{
	bool paren = prec(e) < min_prec;
	if (paren)
		fputc('(', out);
	print_primary(out, e);
	if (paren)
		fputc(')', out);
}

/* ==== statements ==== */

static void print_stmt(FILE *out, const struct stmt *s, int ind);

static void indent(FILE *out, int ind)
{
	for (int i = 0; i < ind; i++)
		fputs(INDENT, out);
}

static void print_block(FILE *out, const struct stmt *s, int ind)
{
	fputs("{\n", out);
	for (int i = 0; i < s->nbody; i++) {
		indent(out, ind + 1);
		print_stmt(out, s->body[i], ind + 1);
		fputc('\n', out);
	}
	indent(out, ind);
	fputc('}', out);
}

/* The body of if/while/for/foreach: a block on the same line, anything
 * else on its own line one level in. */
static void print_body(FILE *out, const struct stmt *s, int ind)
{
	if (s->kind == ST_BLOCK) {
		fputc(' ', out);
		print_block(out, s, ind);
	} else {
		fputc('\n', out);
		indent(out, ind + 1);
		print_stmt(out, s, ind + 1);
	}
}

static void print_if(FILE *out, const struct stmt *s, int ind)
{
	fputs("if (", out);
	print_expr(out, s->expr, PREC_ASSIGN);
	fputc(')', out);
	print_body(out, s->then, ind);
	if (!s->els)
		return;
	fputc('\n', out);
	indent(out, ind);
	fputs("else", out);
	if (s->els->kind == ST_IF) {
		fputc(' ', out);
		print_if(out, s->els, ind);
	} else {
		print_body(out, s->els, ind);
	}
}

static void print_for(FILE *out, const struct stmt *s, int ind)
{
	fputs("for (", out);
	if (s->init)
		print_expr(out, s->init->expr, PREC_ASSIGN);
	fputs("; ", out);
	if (s->expr)
		print_expr(out, s->expr, PREC_ASSIGN);
	fputs("; ", out);
	if (s->step)
		print_expr(out, s->step, PREC_ASSIGN);
	fputc(')', out);
	print_body(out, s->then, ind);
}

static void print_sort_mark(FILE *out, const struct foreach_info *fe, int key)
{
	if (fe->sort_dir && fe->sort_key == key)
		fputc(fe->sort_dir > 0 ? '+' : '-', out);
}

static void print_foreach(FILE *out, const struct stmt *s, int ind)
{
	const struct foreach_info *fe = s->fe;
	fputs("foreach (", out);
	if (fe->value)
		fprintf(out, "%s = ", fe->value->str);
	fputc('[', out);
	for (int i = 0; i < fe->nkeys; i++) {
		fprintf(out, "%s%s", i ? ", " : "", fe->keys[i]->str);
		print_sort_mark(out, fe, i + 1);
	}
	fputs("] in ", out);
	print_expr(out, fe->array, PREC_PRIMARY);
	if (fe->sort_stat && fe->sort_key == -1)
		fprintf(out, " @%s", fe->sort_stat);
	print_sort_mark(out, fe, -1);
	if (fe->limit) {
		fputs(" limit ", out);
		print_expr(out, fe->limit, PREC_ASSIGN);
	}
	fputc(')', out);
	print_body(out, s->then, ind);
}

static void print_try(FILE *out, const struct stmt *s, int ind)
{
	fputs("try ", out);
	print_block(out, s->then, ind);
	fputs(" catch ", out);
	if (s->catch_var)
		fprintf(out, "(%s) ", s->catch_var->str);
	print_block(out, s->catch_body, ind);
}

static void print_simple(FILE *out, const char *word, const struct expr *e)
{
	fputs(word, out);
	if (e) {
		fputc(' ', out);
		print_expr(out, e, PREC_ASSIGN);
	}
	fputc(';', out);
}

/* One statement, without the leading indentation or trailing newline. */
static void print_stmt(FILE *out, const struct stmt *s, int ind)
{
	switch (s->kind) {
	case ST_BLOCK: print_block(out, s, ind); break;
	case ST_NULL: fputc(';', out); break;
	case ST_EXPR:
		print_expr(out, s->expr, PREC_ASSIGN);
		fputc(';', out);
		break;
	case ST_IF: print_if(out, s, ind); break;
	case ST_WHILE:
		fputs("while (", out);
		print_expr(out, s->expr, PREC_ASSIGN);
		fputc(')', out);
		print_body(out, s->then, ind);
		break;
	case ST_FOR: print_for(out, s, ind); break;
	case ST_FOREACH: print_foreach(out, s, ind); break;
	case ST_BREAK: print_simple(out, "break", NULL); break;
	case ST_CONTINUE: print_simple(out, "continue", NULL); break;
	case ST_NEXT: print_simple(out, "next", NULL); break;
	case ST_RETURN: print_simple(out, "return", s->expr); break;
	case ST_DELETE: print_simple(out, "delete", s->expr); break;
	case ST_TRY: print_try(out, s, ind); break;
	case ST_EMBEDDED: fprintf(out, "%%{%s%%}", s->code); break;
	}
}

/* ==== top level ==== */

void print_probe_point(FILE *out, const struct probe_point *pp)
{
	for (int i = 0; i < pp->ncomps; i++) {
		const struct pp_component *c = &pp->comps[i];
		fprintf(out, "%s%s", i ? "." : "", c->name);
		if (!c->has_arg)
			continue;
		fputc('(', out);
		if (c->arg_is_string)
			print_string(out, c->str_arg);
		else
			fprintf(out, "%lld", (long long)c->num_arg);
		fputc(')', out);
	}
	if (pp->sufficient)
		fputc('!', out);
	if (pp->optional)
		fputc('?', out);
	if (pp->cond) {
		fputs(" if (", out);
		print_expr(out, pp->cond, PREC_ASSIGN);
		fputc(')', out);
	}
}

static void print_points(FILE *out, const struct probe_point *pp)
{
	for (; pp; pp = pp->next) {
		print_probe_point(out, pp);
		if (pp->next)
			fputs(", ", out);
	}
}

static void print_global(FILE *out, const struct global_decl *g)
{
	fprintf(out, "%sglobal %s%s", g->is_private ? "private " : "", g->name,
		g->wrap ? "%" : "");
	if (g->max_entries)
		fprintf(out, "[%lld]", (long long)g->max_entries);
	if (g->init) {
		fputs(" = ", out);
		print_expr(out, g->init, PREC_ASSIGN);
	}
	fputc('\n', out);
}

static void print_function(FILE *out, const struct function *f)
{
	fprintf(out, "\n%sfunction %s", f->is_private ? "private " : "", f->name);
	if (f->ret_declared)
		fprintf(out, ":%s", type_name(f->ret_type));
	fputc('(', out);
	for (int i = 0; i < f->nparams; i++) {
		fprintf(out, "%s%s", i ? ", " : "", f->params[i].name);
		if (f->params[i].type != TY_UNKNOWN)
			fprintf(out, ":%s", type_name(f->params[i].type));
	}
	fputc(')', out);
	if (f->priority)
		fprintf(out, ":%lld", (long long)f->priority);
	fputc(' ', out);
	if (f->embedded)
		fprintf(out, "%%{%s%%}", f->embedded);
	else
		print_block(out, f->body, 0);
	fputc('\n', out);
}

static void print_alias(FILE *out, const struct alias *a)
{
	fputs("\nprobe ", out);
	print_probe_point(out, a->name);
	fputs(a->epilogue ? " += " : " = ", out);
	print_points(out, a->points);
	fputc(' ', out);
	print_block(out, a->body, 0);
	fputc('\n', out);
}

static void print_probe(FILE *out, const struct probe *p)
{
	fputs("\nprobe ", out);
	print_points(out, p->points);
	fputc(' ', out);
	print_block(out, p->body, 0);
	fputc('\n', out);
}

void print_file(FILE *out, const struct file *f)
{
	fprintf(out, "# file %s\n", f->src->name);
	for (const struct embedded_block *b = f->embedded; b; b = b->next)
		fprintf(out, "%%{%s%%}\n", b->code);
	for (const struct global_decl *g = f->globals; g; g = g->next)
		print_global(out, g);
	for (const struct alias *a = f->aliases; a; a = a->next)
		print_alias(out, a);
	for (const struct function *fn = f->functions; fn; fn = fn->next)
		print_function(out, fn);
	for (const struct probe *p = f->probes; p; p = p->next)
		print_probe(out, p);
}

/* a statement tree as text, to compare handlers (resolve.c) */
char *print_stmt_text(const struct stmt *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	if (!out)
		return NULL;
	print_stmt(out, s, 0);
	fclose(out);
	return text;
}
