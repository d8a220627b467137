/* emit.c - pass 3: the resolved program as one kernel C file.
 *
 * Shape of the output (see doc/internals.md): globals, a frame struct and
 * a C function per script function and probe handler, the probe table,
 * then runtime/module.h. Locals and temporaries live in the frame, which
 * the runtime allocates from a per-CPU arena, not on the kernel stack.
 *
 * Expressions are emitted as a list of C statements written to the current
 * body, plus a side-effect-free C expression that holds the value after
 * them. Long values are int64_t; strings are char buffers of MAXSTRINGLEN.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "program.h"
#include "debuginfo.h"
#include "format.h"
#include "regex.h"
#include "prebuilt.h"
#include "target.h"

#define MAX_LOOP_DEPTH 64

struct loop_labels {
	int brk, cont;
};

struct emitter {
	const struct program *prog;
	const struct options *opt;
	struct strbuf *body;		/* the function being written */
	/* temporaries live for one statement: each statement reuses the
	 * slots from the start, the frame holds the most any one needs */
	int nstr, nlong, nkeys;		/* in use by the current statement */
	int maxstr, maxlong, maxkeys;
	int nlabels;
	int indent;
	bool light;			/* the file also compiles as a light unit */
	struct loop_labels loops[MAX_LOOP_DEPTH];
	int nloops;
	const struct function *fn;	/* NULL in a probe handler */
	int niters;			/* foreach iterators in this frame */
	int nbounds;			/* foreach-over-buckets bounds in this frame */
	const char *err_label;		/* where an error jumps: out, or a catch */
	struct strbuf regex_defs;	/* the programs of =~ patterns, file scope */
	const char **regex_patterns;	/* ... their patterns, index = name */
	int nregex;
	bool uses_agg;			/* the frame needs a struct ktap_stat_agg */
	const char *c_file;		/* the generated file's name, for #line */
	struct unit *unit;		/* what pass 4 is told of the file */
};

/* ---- small writers ---- */

static void line(struct emitter *em, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void line(struct emitter *em, const char *fmt, ...)
{
	va_list ap;
	char *text;
	int i;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		exit(1);
	va_end(ap);
	for (i = 0; i < em->indent; i++)
		sb_putc(em->body, '\t');
	sb_puts(em->body, text);
	sb_putc(em->body, '\n');
	free(text);
}

static int take_slot(int *used, int *max)
{
	int n = (*used)++;

	if (*used > *max)
		*max = *used;
	return n;
}

static char *new_temp(struct emitter *em, enum type t)
{
	if (t == TY_STRING)
		return xasprintf("f->ts%d", take_slot(&em->nstr, &em->maxstr));
	return xasprintf("f->tl%d", take_slot(&em->nlong, &em->maxlong));
}

static void free_temps(struct emitter *em)
{
	em->nstr = em->nlong = em->nkeys = 0;
}

static int new_label(struct emitter *em)
{
	return em->nlabels++;
}

/* a C string literal for any bytes */
static char *c_string(const char *s)
{
	struct strbuf sb = { 0 };

	sb_putc(&sb, '"');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			sb_printf(&sb, "\\%c", ch);
		else if (ch == '\n')
			sb_puts(&sb, "\\n");
		else if (ch == '\t')
			sb_puts(&sb, "\\t");
		else if (ch < 32 || ch >= 127 || ch == '?')
			sb_printf(&sb, "\\%03o", ch);
		else
			sb_putc(&sb, ch);
	}
	sb_putc(&sb, '"');
	return sb.buf;
}

/* "near operator '/' at t.stp:3:12" */
static char *near(const struct srcloc *loc, const char *what)
{
	return c_string(xasprintf("near %s at %s:%d:%d", what,
				  loc->src ? loc->src->name : "?", loc->line, loc->col));
}

static void check_error(struct emitter *em)
{
	line(em, "if (unlikely(c->error))");
	line(em, "\tgoto %s;", em->err_label);
}

/* ---- names ---- */

static char *var_name(const struct symbol *s)
{
	switch (s->kind) {
	case SYM_GLOBAL:
		return xasprintf("g_%s", s->name);
	case SYM_PARAM:
		return xasprintf("f->p_%s", s->name);
	default:
		return xasprintf("f->l_%s", s->name);
	}
}

/* a parameter's type: resolved, or as declared (the prebuilt object's
 * functions are not resolved) */
static enum type param_type(const struct param *p)
{
	return p->sym ? p->sym->type : p->type;
}

static char *function_name(const struct function *fn)
{
	return xasprintf("fn_%s_%d", fn->name, fn->nparams);
}

/* ---- expressions ---- */

static char *emit_expr(struct emitter *em, const struct expr *e);

/* arrays and statistics, further down */
static char *emit_index_read(struct emitter *em, const struct expr *e);
static char *emit_in(struct emitter *em, const struct expr *e);
static char *emit_index_assign(struct emitter *em, const struct expr *e);
static char *emit_index_incdec(struct emitter *em, const struct expr *e);
static char *emit_stat_add(struct emitter *em, const struct expr *e);
static char *emit_stat_op(struct emitter *em, const struct expr *e);
static char *emit_hist_index(struct emitter *em, const struct expr *e);
static char *hist_desc(const struct symbol *s);
static void emit_print_hist(struct emitter *em, const struct expr *h, bool newline);
static char *loc_string(const struct srcloc *loc, const char *what);

static const char *c_operator(enum op op)
{
	switch (op) {
	case OP_ADD: case OP_ADD_ASSIGN: return "+";
	case OP_SUB: case OP_SUB_ASSIGN: return "-";
	case OP_MUL: case OP_MUL_ASSIGN: return "*";
	case OP_BITAND: case OP_AND_ASSIGN: return "&";
	case OP_BITOR: case OP_OR_ASSIGN: return "|";
	case OP_BITXOR: case OP_XOR_ASSIGN: return "^";
	case OP_LT: return "<";
	case OP_LE: return "<=";
	case OP_GT: return ">";
	case OP_GE: return ">=";
	case OP_EQ: return "==";
	case OP_NE: return "!=";
	default: return NULL;
	}
}

static bool is_div(enum op op)
{
	return op == OP_DIV || op == OP_MOD || op == OP_DIV_ASSIGN ||
	       op == OP_MOD_ASSIGN;
}

static bool is_shift(enum op op)
{
	return op == OP_SHL || op == OP_SHR || op == OP_SHL_ASSIGN ||
	       op == OP_SHR_ASSIGN;
}

/* a op b for longs; division checks for zero, shifts stay defined */
static char *arith(struct emitter *em, enum op op, const char *a, const char *b,
		   const struct srcloc *loc)
{
	if (is_div(op)) {
		bool mod = op == OP_MOD || op == OP_MOD_ASSIGN;
		char *ta = new_temp(em, TY_LONG), *tb = new_temp(em, TY_LONG);
		char *res = new_temp(em, TY_LONG);

		line(em, "%s = %s;", ta, a);
		line(em, "%s = %s;", tb, b);
		line(em, "if (unlikely(%s == 0)) {", tb);
		line(em, "\tktap_error(c, \"division by zero\", %s);",
		     near(loc, xasprintf("operator '%s'", mod ? "%" : "/")));
		line(em, "\tgoto %s;", em->err_label);
		line(em, "}");
		if (mod)
			line(em, "%s = %s == -1 ? 0 : %s %% %s;", res, tb, ta, tb);
		else
			line(em, "%s = %s == -1 ? (int64_t)(0 - (uint64_t)%s) : %s / %s;",
			     res, tb, ta, ta, tb);
		return res;
	}
	if (is_shift(op)) {
		if (op == OP_SHL || op == OP_SHL_ASSIGN)
			return xasprintf("((int64_t)((uint64_t)(%s) << ((%s) & 63)))", a, b);
		return xasprintf("((int64_t)(%s) >> ((%s) & 63))", a, b);
	}
	/* wrap-around like the hardware, without signed-overflow UB */
	if (op == OP_ADD || op == OP_SUB || op == OP_MUL || op == OP_ADD_ASSIGN ||
	    op == OP_SUB_ASSIGN || op == OP_MUL_ASSIGN)
		return xasprintf("((int64_t)((uint64_t)(%s) %s (uint64_t)(%s)))",
				 a, c_operator(op), b);
	return xasprintf("((%s) %s (%s))", a, c_operator(op), b);
}

/* the name of the compiled program of a pattern, emitting it once */
static char *regex_program(struct emitter *em, const struct expr *pattern)
{
	struct regex_prog *p;
	char *err = NULL, *name;
	int i;

	for (i = 0; i < em->nregex; i++)
		if (strcmp(em->regex_patterns[i], pattern->str) == 0)
			return xasprintf("ktap_re_%d", i);
	p = regex_compile(pattern->str, &err);
	if (!p) {
		diag_error(&pattern->loc, "invalid regular expression: %s", err);
		return NULL;
	}
	name = xasprintf("ktap_re_%d", em->nregex);
	sb_puts(&em->regex_defs, regex_emit_c(p, name));
	sb_puts(&em->regex_defs, "\n");
	regex_free(p);
	em->regex_patterns = xrealloc(em->regex_patterns,
				      (em->nregex + 1) * sizeof(*em->regex_patterns));
	em->regex_patterns[em->nregex++] = pattern->str;
	return name;
}

/* s =~ "re", s !~ "re": the match also keeps the groups for matched() */
static char *emit_regex(struct emitter *em, const struct expr *e)
{
	char *subject = emit_expr(em, e->lhs);
	char *prog = regex_program(em, e->rhs);
	char *t = new_temp(em, TY_LONG);

	if (!prog)
		return xstrdup("0");
	line(em, "%s = %sktap_regex_match(c, %s, ARRAY_SIZE(%s), %s_NGROUPS, %s);",
	     t, e->op == OP_NOMATCH ? "!" : "", prog, prog, prog, subject);
	check_error(em);
	return t;
}

static char *emit_unary(struct emitter *em, const struct expr *e)
{
	char *v = emit_expr(em, e->lhs);

	switch (e->op) {
	case OP_NEG: return xasprintf("((int64_t)(0 - (uint64_t)(%s)))", v);
	case OP_NOT: return xasprintf("((int64_t)!(%s))", v);
	case OP_BITNOT: return xasprintf("(~(%s))", v);
	default: return v;
	}
}

static char *emit_compare(struct emitter *em, const struct expr *e)
{
	char *a = emit_expr(em, e->lhs), *b = emit_expr(em, e->rhs);
	char *t = new_temp(em, TY_LONG);

	if (e->lhs->type == TY_STRING)
		line(em, "%s = strcmp(%s, %s) %s 0;", t, a, b, c_operator(e->op));
	else
		line(em, "%s = (%s) %s (%s);", t, a, c_operator(e->op), b);
	return t;
}

/* && and || evaluate the right side only when needed */
static char *emit_logical(struct emitter *em, const struct expr *e)
{
	char *t = new_temp(em, TY_LONG);
	char *a = emit_expr(em, e->lhs), *b;

	if (e->op == OP_AND) {
		line(em, "%s = 0;", t);
		line(em, "if (%s) {", a);
	} else {
		line(em, "%s = 1;", t);
		line(em, "if (!(%s)) {", a);
	}
	em->indent++;
	b = emit_expr(em, e->rhs);
	line(em, "%s = (%s) != 0;", t, b);
	em->indent--;
	line(em, "}");
	return t;
}

/* one branch of ?: : its value into the result temporary t */
static void emit_branch_into(struct emitter *em, const char *t, const struct expr *e,
			     enum type type)
{
	char *v;

	em->indent++;
	v = emit_expr(em, e);
	if (type == TY_STRING)
		line(em, "ktap_strcpy(%s, %s);", t, v);
	else
		line(em, "%s = %s;", t, v);
	em->indent--;
}

static char *emit_ternary(struct emitter *em, const struct expr *e)
{
	char *t = new_temp(em, e->type);
	char *cond = emit_expr(em, e->cond);

	line(em, "if (%s) {", cond);
	emit_branch_into(em, t, e->lhs, e->type);
	line(em, "} else {");
	emit_branch_into(em, t, e->rhs, e->type);
	line(em, "}");
	return t;
}

/* a string the user's script builds may not exceed MAXSTRINGLEN (an error);
 * tapset code truncates, as copies of kernel and user strings do */
static bool strict_strings(const struct srcloc *loc)
{
	return !loc->src || !loc->src->is_tapset;
}

/* MAXSTRINGLEN as the module will have it: -D MAXSTRINGLEN=N, else
 * runtime/limits.h's default */
static long max_string_len(const struct options *opt)
{
	long v = 512;

	for (int i = 0; i < opt->ndefines; i++)
		if (!strncmp(opt->defines[i], "MAXSTRINGLEN=", 13))
			v = strtol(opt->defines[i] + 13, NULL, 0);
	return v;
}

/* a literal of the script's that no string variable can hold: an error,
 * where copying it would cut it silently */
static char *emit_string_literal(struct emitter *em, const struct expr *e)
{
	long max = max_string_len(em->opt);
	size_t n = strlen(e->str);

	if (strict_strings(&e->loc) && max > 0 && n >= (size_t)max)
		diag_error(&e->loc, "string of %zu bytes exceeds MAXSTRINGLEN (%ld): "
			   "a string holds at most %ld bytes (-D MAXSTRINGLEN=N)",
			   n, max, max - 1);
	return c_string(e->str);
}

/* dst = a . b */
static void emit_strcat(struct emitter *em, const struct srcloc *loc,
			const char *dst, const char *a, const char *b)
{
	if (!strict_strings(loc)) {
		line(em, "ktap_strcat(%s, %s, %s);", dst, a, b);
		return;
	}
	line(em, "ktap_concat(c, %s, %s, %s, %s);", dst, a, b,
	     near(loc, "operator '.'"));
	check_error(em);
}

static char *emit_concat(struct emitter *em, const struct expr *e)
{
	char *a = emit_expr(em, e->lhs), *b = emit_expr(em, e->rhs);
	char *t = new_temp(em, TY_STRING);

	emit_strcat(em, &e->loc, t, a, b);
	return t;
}

static char *emit_target(struct emitter *em, const struct expr *e);

static bool is_probe_string_assign(const struct expr *e)
{
	return e->kind == EX_ASSIGN && e->lhs->kind == EX_TARGET &&
	       tvar_is_probe_string(e->lhs->access);
}

/* procfs `$value = s` and `$value .= s`: the probe's own string */
static void emit_probe_string_store(struct emitter *em, const struct expr *e)
{
	char *rhs = emit_expr(em, e->rhs);

	if (e->op == OP_CONCAT_ASSIGN)
		line(em, "%s;", tvar_append_c(e->lhs->access, rhs));
	else
		line(em, "%s;", tvar_store_c(e->lhs->access, rhs));
}

/* ... as an expression: its value is the string's new value */
static char *emit_probe_string_assign(struct emitter *em, const struct expr *e)
{
	emit_probe_string_store(em, e);
	return emit_target(em, e->lhs);
}

/* guru `$var = v` and `$var += v`: compute, store, check the write */
static char *emit_target_assign(struct emitter *em, const struct expr *e)
{
	char *rhs = emit_expr(em, e->rhs);
	char *v = new_temp(em, TY_LONG);

	if (e->op == OP_ASSIGN) {
		line(em, "%s = %s;", v, rhs);
	} else {
		char *old = emit_expr(em, e->lhs);

		line(em, "%s = %s;", v, arith(em, e->op, old, rhs, &e->loc));
	}
	line(em, "c->target_loc = %s;", near(&e->lhs->loc, e->lhs->str));
	line(em, "%s;", tvar_store_c(e->lhs->access, v));
	check_error(em);
	return v;
}

static char *emit_call_into(struct emitter *em, const struct expr *e, const char *dst);

/* after a call written in the script: an error the callee raised without
 * saying where (a fault in a tapset's C) is reported at this call */
static void check_call_error(struct emitter *em, const struct expr *e)
{
	if (!strict_strings(&e->loc)) {
		check_error(em);
		return;
	}
	line(em, "if (unlikely(c->error)) {");
	line(em, "	if (!c->error_site)");
	line(em, "		c->error_site = %s;", near(&e->loc, xasprintf("%s()", e->fn->name)));
	line(em, "	goto %s;", em->err_label);
	line(em, "}");
}

/* local = f(...), f a script function returning a string: f can write
 * the local directly, as nothing else reads it while f runs. Not inside
 * try, whose catch could see the local half-written by a failed call;
 * elsewhere an error ends the hit (or the function) and the frame. */
static bool returns_into_local(const struct emitter *em, const struct expr *e)
{
	return e->op == OP_ASSIGN && e->type == TY_STRING &&
	       e->lhs->kind == EX_VAR && e->lhs->sym && e->lhs->sym->kind == SYM_LOCAL &&
	       e->rhs->kind == EX_CALL && e->rhs->fn && !e->rhs->builtin &&
	       strcmp(em->err_label, "out") == 0;
}

static char *emit_assign(struct emitter *em, const struct expr *e)
{
	char *lhs;

	if (is_probe_string_assign(e))
		return emit_probe_string_assign(em, e);
	if ((e->lhs->kind == EX_TARGET || e->lhs->kind == EX_AT_VAR) && e->lhs->access)
		return emit_target_assign(em, e);	/* guru: $var = v, @var("x") = v */
	lhs = var_name(e->lhs->sym);
	if (returns_into_local(em, e)) {
		/* no temporary and copy: the call writes the local itself,
		 * unless an argument reads it (then a temporary it is) */
		char *r = emit_call_into(em, e->rhs, lhs);

		if (strcmp(r, lhs) != 0)
			line(em, "ktap_strcpy(%s, %s);", lhs, r);
		return lhs;
	}
	char *rhs = emit_expr(em, e->rhs);

	if (e->op == OP_CONCAT_ASSIGN) {
		emit_strcat(em, &e->loc, lhs, lhs, rhs);
	} else if (e->type == TY_STRING) {
		line(em, "ktap_strcpy(%s, %s);", lhs, rhs);
	} else if (e->op == OP_ASSIGN) {
		line(em, "%s = %s;", lhs, rhs);
	} else {
		char *v = arith(em, e->op, lhs, rhs, &e->loc);

		line(em, "%s = %s;", lhs, v);
	}
	return lhs;
}

static char *emit_incdec(struct emitter *em, const struct expr *e)
{
	char *v = var_name(e->lhs->sym);
	char *t = new_temp(em, TY_LONG);
	const char *op = e->op == OP_INC ? "+" : "-";

	if (e->postfix)
		line(em, "%s = %s;", t, v);
	line(em, "%s = (int64_t)((uint64_t)%s %s 1);", v, v, op);
	if (!e->postfix)
		line(em, "%s = %s;", t, v);
	return t;
}

static char *emit_script_arg(struct emitter *em, const struct expr *e)
{
	const struct options *opt = em->opt;
	const char *arg;

	if (e->num < 1 || e->num > opt->nscript_args) {
		diag_error(&e->loc, "script argument %s%lld is not given (the script has %d)",
			   e->str ? "@" : "$", (long long)e->num, opt->nscript_args);
		return xstrdup("0");
	}
	arg = opt->script_args[e->num - 1];
	if (e->str)
		return c_string(arg);
	{
		char *end;
		long long v = strtoll(arg, &end, 0);

		if (*end || end == arg) {
			diag_error(&e->loc, "script argument $%lld is '%s', not a number (use @%lld for a string)",
				   (long long)e->num, arg, (long long)e->num);
			return xstrdup("0");
		}
		return xasprintf("((int64_t)%lldLL)", v);
	}
}

/* evaluate arguments left to right into values that stay put */
static char **emit_args(struct emitter *em, const struct expr *e, int first)
{
	char **vals = xalloc((e->nargs + 1) * sizeof(*vals));
	int i;

	for (i = first; i < e->nargs; i++) {
		char *v = emit_expr(em, e->args[i]);

		if (e->args[i]->type == TY_LONG && i + 1 < e->nargs) {
			char *t = new_temp(em, TY_LONG);

			line(em, "%s = %s;", t, v);
			v = t;
		}
		vals[i] = v;
	}
	return vals;
}

static bool param_by_ref(const struct function *fn, int i);
static bool stable_string_arg(const char *v);

/* a call of a script function; a string one returns into dst when dst
 * is not NULL and no argument names it (the callee clears its return
 * buffer first), else into a new temporary */
static char *emit_call_into(struct emitter *em, const struct expr *e, const char *dst)
{
	const struct function *fn = e->fn;
	char **vals = emit_args(em, e, 0);
	struct strbuf call = { 0 };
	char *t = NULL;
	int i;

	for (i = 0; dst && i < e->nargs; i++)
		if (strstr(vals[i], dst))
			dst = NULL;
	sb_printf(&call, "%s(c", function_name(fn));
	if (fn->ret_type == TY_STRING) {
		t = dst ? xstrdup(dst) : new_temp(em, TY_STRING);
		sb_printf(&call, ", %s", t);
	}
	for (i = 0; i < e->nargs; i++) {
		/* a by-reference parameter must not see its value change */
		if (i < fn->nparams && param_by_ref(fn, i) && !stable_string_arg(vals[i])) {
			char *c = new_temp(em, TY_STRING);

			line(em, "ktap_strcpy(%s, %s);", c, vals[i]);
			vals[i] = c;
		}
	}
	for (i = 0; i < e->nargs; i++)
		sb_printf(&call, ", %s", vals[i]);
	sb_puts(&call, ")");
	if (fn->ret_type == TY_LONG) {
		t = new_temp(em, TY_LONG);
		line(em, "%s = %s;", t, call.buf);
	} else {
		line(em, "%s;", call.buf);
	}
	check_call_error(em, e);
	return t ? t : xstrdup("0");
}

static char *emit_function_call(struct emitter *em, const struct expr *e)
{
	return emit_call_into(em, e, NULL);
}

/* a format for print-style builtins: each value as %d or %s */
static char *print_format(const struct expr *e, int first, const char *delim,
			  bool newline)
{
	struct strbuf fmt = { 0 };
	int i;

	sb_puts(&fmt, "");
	for (i = first; i < e->nargs; i++) {
		if (i > first && delim)
			sb_puts(&fmt, delim);
		sb_puts(&fmt, e->args[i]->type == TY_STRING ? "%s" : "%lld");
	}
	if (newline)
		sb_puts(&fmt, "\n");
	return fmt.buf;
}

static char *escape_percent(const char *s)
{
	struct strbuf sb = { 0 };

	sb_puts(&sb, "");
	for (; *s; s++) {
		if (*s == '%')
			sb_putc(&sb, '%');
		sb_putc(&sb, *s);
	}
	return sb.buf;
}

/* is this argument of a format the address of a %m or %M? */
static bool is_memory_conversion(const struct format_spec *spec)
{
	char conv = spec->text[strlen(spec->text) - 1];

	return conv == 'm' || conv == 'M';
}

/*
 * A printf whose conversions are all bare %s and %d (%i, and any length
 * modifier: print() uses %lld) is printed piece by piece with hot.h's
 * inline ktap_put_*(), without ktap_printf()'s walk over the format on
 * every hit. Anything else, and any argument whose type differs from its
 * conversion's, is left to ktap_printf().
 */

/* the conversion at p (just after its '%'): 's', 'd', or 0 if not bare;
 * *end is set past it */
static char plain_conversion(const char *p, const char **end)
{
	while (*p && strchr("lhzLjt", *p))
		p++;
	*end = *p ? p + 1 : p;
	if (*p == 's')
		return 's';
	return *p == 'd' || *p == 'i' ? 'd' : 0;
}

/* can fmt be printed piece by piece with these arguments? */
static bool format_is_plain(const struct expr *e, const char *fmt, int first)
{
	int arg = first;
	const char *p;

	for (p = fmt; (p = strchr(p, '%')); ) {
		char conv;

		if (p[1] == '%') {
			p += 2;
			continue;
		}
		conv = plain_conversion(p + 1, &p);
		if (!conv || arg >= e->nargs ||
		    (e->args[arg]->type == TY_STRING) != (conv == 's'))
			return false;
		arg++;
	}
	return arg == e->nargs;
}

/* ktap_put_lit() of a literal run, if it is not empty */
static void emit_put_literal(struct emitter *em, struct strbuf *run)
{
	if (!run->buf || !run->buf[0])
		return;
	line(em, "ktap_put_lit(c, %s, %zu);", c_string(run->buf), strlen(run->buf));
	run->buf[0] = '\0';
	run->len = 0;
}

/* print a format format_is_plain() accepted, piece by piece; a string
 * literal argument joins the literal run around it */
static void emit_print_pieces(struct emitter *em, const struct expr *e, const char *fmt,
			      char **vals, int first)
{
	struct strbuf run = { 0 };
	const char *p = fmt;
	int arg = first;

	while (*p) {
		if (*p != '%') {
			sb_putc(&run, *p++);
		} else if (p[1] == '%') {
			sb_putc(&run, '%');
			p += 2;
		} else {
			char conv = plain_conversion(p + 1, &p);

			if (e->args[arg]->kind == EX_STRING) {
				sb_puts(&run, e->args[arg++]->str);
				continue;
			}
			emit_put_literal(em, &run);
			if (conv == 's')
				line(em, "ktap_put_str(c, %s);", vals[arg++]);
			else
				line(em, "ktap_put_dec(c, (int64_t)%s);", vals[arg++]);
		}
	}
	emit_put_literal(em, &run);
	free(run.buf);
}

static char *emit_formatted(struct emitter *em, const struct expr *e,
			    const char *fmt, int first, bool to_string)
{
	char **vals = emit_args(em, e, first);
	struct format_spec specs[FORMAT_MAX_ARGS];
	struct strbuf call = { 0 };
	char *t = NULL;
	int nspecs, i;

	if (!to_string && format_is_plain(e, fmt, first)) {
		emit_print_pieces(em, e, fmt, vals, first);
		return xstrdup("0");
	}
	nspecs = format_parse(fmt, specs, FORMAT_MAX_ARGS, NULL, false);
	if (to_string && strict_strings(&e->loc)) {
		t = new_temp(em, TY_STRING);
		sb_printf(&call, "ktap_sprintf_at(c, %s, %s, %s",
			  near(&e->loc, xasprintf("%s()", e->str)), t, c_string(fmt));
	} else if (to_string) {
		t = new_temp(em, TY_STRING);
		sb_printf(&call, "ktap_sprintf(c, %s, %s", t, c_string(fmt));
	} else {
		sb_printf(&call, "ktap_printf(c, %s", c_string(fmt));
	}
	for (i = first; i < e->nargs; i++) {
		if (e->args[i]->type == TY_STRING)
			sb_printf(&call, ", (const char *)%s", vals[i]);
		else if (i - first < nspecs && is_memory_conversion(&specs[i - first]))
			sb_printf(&call, ", (const char *)(uintptr_t)%s", vals[i]);
		else
			sb_printf(&call, ", (int64_t)%s", vals[i]);
	}
	sb_puts(&call, ");");
	line(em, "%s", call.buf);
	if (to_string && strict_strings(&e->loc))
		check_error(em);
	return t ? t : xstrdup("0");
}

static char *emit_builtin(struct emitter *em, const struct expr *e)
{
	bool ln = e->builtin == BI_PRINTLN || e->builtin == BI_SPRINTLN ||
		  e->builtin == BI_PRINTDLN || e->builtin == BI_SPRINTDLN;
	bool to_string = builtin_returns_string(e->builtin);

	switch (e->builtin) {
	case BI_PRINTF:
	case BI_SPRINTF:
		return emit_formatted(em, e, e->args[0]->str, 1, to_string);
	case BI_PRINTD:
	case BI_PRINTDLN:
	case BI_SPRINTD:
	case BI_SPRINTDLN:
		if (e->args[0]->kind != EX_STRING) {
			diag_error(&e->args[0]->loc, "the delimiter of %s must be a string literal",
				   e->str);
			return xstrdup("0");
		}
		return emit_formatted(em, e,
				      print_format(e, 1, escape_percent(e->args[0]->str), ln),
				      1, to_string);
	default:
		if (builtin_prints_whole_global(e)) {
			line(em, "ktap_print_map(c, g_%s, %s);", e->args[0]->sym->name,
			     loc_string(&e->loc, "print"));
			if (ln)
				line(em, "ktap_print_str(c, \"\\n\");");
			check_error(em);
			return xstrdup("0");
		}
		if (e->nargs == 1 && e->args[0]->kind == EX_HIST) {
			emit_print_hist(em, e->args[0], ln);
			return xstrdup("0");
		}
		return emit_formatted(em, e, print_format(e, 0, NULL, ln), 0,
				      to_string);
	}
}

/* "$file->f_pos", "@cast", ... for fault messages */
static const char *target_what(const struct expr *e)
{
	if (e->kind == EX_UNARY)
		return "'&'";
	if (e->kind == EX_TARGET || e->kind == EX_TARGET_SPECIAL)
		return e->str;
	return e->kind == EX_CAST ? "@cast" : e->kind == EX_AT_VAR ? "@var" : "@entry";
}

/* a target expression bound by tvar.c: its index expressions and @cast
 * pointer first, then the read; a fault ends the hit */
static char *emit_target(struct emitter *em, const struct expr *e)
{
	const struct tvar_access *a = e->access;
	struct expr **index, *ptr = tvar_cast_pointer(a);
	int n = tvar_index_count(a, &index), i;
	char **index_c = xalloc((n + 1) * sizeof(*index_c));
	char *cast_c = NULL, *str = NULL, *code, *t;

	for (i = 0; i < n; i++) {
		char *v = emit_expr(em, index[i]);

		index_c[i] = new_temp(em, TY_LONG);
		line(em, "%s = %s;", index_c[i], v);
	}
	if (ptr) {
		char *v = emit_expr(em, ptr);

		cast_c = new_temp(em, TY_LONG);
		line(em, "%s = %s;", cast_c, v);
	}
	if (tvar_is_string(a))
		str = new_temp(em, TY_STRING);
	code = tvar_emit_c(a, index_c, cast_c, str, near(&e->loc, target_what(e)));
	if (str) {
		line(em, "%s;", code);
		t = str;
	} else {
		t = new_temp(em, TY_LONG);
		line(em, "%s = %s;", t, code);
	}
	check_error(em);
	return t;
}

static char *emit_expr(struct emitter *em, const struct expr *e)
{
	if (e->access)
		return emit_target(em, e);
	switch (e->kind) {
	case EX_NUMBER:
		if (e->num == INT64_MIN)
			return xstrdup("((int64_t)(-9223372036854775807LL - 1))");
		return xasprintf("((int64_t)%lldLL)", (long long)e->num);
	case EX_STRING:
		return emit_string_literal(em, e);
	case EX_SCRIPT_ARG:
		return emit_script_arg(em, e);
	case EX_ARGC:
		return xasprintf("((int64_t)%d)", em->opt->nscript_args);
	case EX_VAR:
		return var_name(e->sym);
	case EX_INDEX:
		return emit_index_read(em, e);
	case EX_IN:
		return emit_in(em, e);
	case EX_STAT_ADD:
		return emit_stat_add(em, e);
	case EX_STAT_OP:
		return emit_stat_op(em, e);
	case EX_HIST_INDEX:
		return emit_hist_index(em, e);
	case EX_UNARY:
		return emit_unary(em, e);
	case EX_BINARY: {
		char *a = emit_expr(em, e->lhs);
		char *b;

		if (e->rhs->kind != EX_NUMBER && e->rhs->kind != EX_VAR) {
			char *t = new_temp(em, TY_LONG);

			line(em, "%s = %s;", t, a);
			a = t;
		}
		b = emit_expr(em, e->rhs);
		return arith(em, e->op, a, b, &e->loc);
	}
	case EX_COMPARE:
		return emit_compare(em, e);
	case EX_LOGICAL:
		return emit_logical(em, e);
	case EX_CONCAT:
		return emit_concat(em, e);
	case EX_REGEX:
		return emit_regex(em, e);
	case EX_TERNARY:
		return emit_ternary(em, e);
	case EX_ASSIGN:
		return e->lhs->kind == EX_INDEX ? emit_index_assign(em, e)
						: emit_assign(em, e);
	case EX_INCDEC:
		return e->lhs->kind == EX_INDEX ? emit_index_incdec(em, e)
						: emit_incdec(em, e);
	case EX_CALL:
		return e->builtin ? emit_builtin(em, e) : emit_function_call(em, e);
	case EX_TARGET:
	case EX_TARGET_SPECIAL:
	case EX_CAST:
	case EX_AT_VAR:
	case EX_MEMBER:
	case EX_ENTRY:
	case EX_DEFINED:
		diag_error(&e->loc, "internal error: an unbound target expression");
		return xstrdup("0");
	default:
		diag_error(&e->loc, "this ktap cannot translate this expression yet");
		return xstrdup("0");
	}
}

static void emit_action(struct emitter *em, const struct stmt *s);
static void emit_stmt_counted(struct emitter *em, const struct stmt *s, bool counted);

/* ---- arrays and statistics (runtime/map.h) ---- */

static bool is_map(const struct symbol *s)
{
	return s->kind == SYM_GLOBAL && (s->nkeys > 0 || s->type == TY_STATS);
}

/* Can a string key point at its value instead of a copy? A literal, or
 * the temporary a script function returned into: nothing else writes
 * either before the statement is done with the key (temporaries are not
 * reused within a statement). A variable could change under a later key
 * component, as in a[s, s = "x"], so it is copied. So is a literal that
 * might not fit MAXSTRINGLEN (at least 16, limits.h): the copy cuts it
 * as the key stored in the array is cut. */
static bool key_string_is_fresh(const struct expr *a)
{
	return (a->kind == EX_STRING && strlen(a->str) < 16) ||
	       (a->kind == EX_CALL && a->fn && !a->builtin);
}

/* the key tuple of a[k1, k2] in a frame slot; '*' leaves a hole and sets
 * its bit in *wild */
static char *emit_keys(struct emitter *em, const struct expr *e, unsigned *wild)
{
	char *k;
	int i;

	if (e->kind != EX_INDEX && e->kind != EX_IN)
		return xstrdup("NULL");
	k = xasprintf("f->tk%d", take_slot(&em->nkeys, &em->maxkeys));
	if (wild)
		*wild = 0;
	for (i = 0; i < e->nargs; i++) {
		const struct expr *a = e->args[i];
		char *v;

		if (a->kind == EX_STAR) {
			if (wild)
				*wild |= 1u << i;
			continue;
		}
		v = emit_expr(em, a);
		if (a->type == TY_STRING && !key_string_is_fresh(a)) {
			char *t = new_temp(em, TY_STRING);

			line(em, "ktap_strcpy(%s, %s);", t, v);
			line(em, "%s[%d].s = %s;", k, i, t);
		} else if (a->type == TY_STRING) {
			line(em, "%s[%d].s = %s;", k, i, v);
		} else {
			line(em, "%s[%d].n = %s;", k, i, v);
		}
	}
	return k;
}

static char *loc_string(const struct srcloc *loc, const char *what)
{
	return near(loc, what);
}

static char *emit_index_read(struct emitter *em, const struct expr *e)
{
	char *k = emit_keys(em, e, NULL);
	char *t = new_temp(em, e->type);

	if (e->type == TY_STRING)
		line(em, "ktap_strcpy(%s, ktap_map_get_str(g_%s, %s));", t, e->sym->name, k);
	else
		line(em, "%s = ktap_map_get_long(g_%s, %s);", t, e->sym->name, k);
	return t;
}

/* N in @hist_log(x): N is one of the histogram's buckets */
static char *emit_in_hist(struct emitter *em, const struct expr *e)
{
	char *i = emit_expr(em, e->args[0]);
	char *t = new_temp(em, TY_LONG);

	line(em, "%s = %s >= 0 && %s < ktap_hist_nbuckets(&%s);", t, i, i,
	     hist_desc(e->rhs->lhs->sym));
	return t;
}

static char *emit_in(struct emitter *em, const struct expr *e)
{
	unsigned wild = 0;
	char *k, *t;

	if (e->rhs)
		return emit_in_hist(em, e);
	k = emit_keys(em, e, &wild);
	t = new_temp(em, TY_LONG);

	if (wild)
		line(em, "%s = ktap_map_exists_slice(g_%s, %s, %uu);", t, e->sym->name, k, wild);
	else
		line(em, "%s = ktap_map_exists(g_%s, %s);", t, e->sym->name, k);
	return t;
}

/* a[k] = v, a[k] op= v, a[k] .= v */
static char *emit_index_assign(struct emitter *em, const struct expr *e)
{
	const struct expr *lhs = e->lhs;
	char *k = emit_keys(em, lhs, NULL);
	char *v = emit_expr(em, e->rhs);
	char *loc = loc_string(&e->loc, xasprintf("array '%s'", lhs->sym->name));
	const char *m = xasprintf("g_%s", lhs->sym->name);
	char *t = new_temp(em, lhs->sym->type);

	if (lhs->sym->type == TY_STRING) {
		if (e->op == OP_CONCAT_ASSIGN)
			emit_strcat(em, &e->loc, t,
				    xasprintf("ktap_map_get_str(%s, %s)", m, k), v);
		else
			line(em, "ktap_strcpy(%s, %s);", t, v);
		line(em, "ktap_map_set_str(c, %s, %s, %s, %s);", m, k, t, loc);
	} else if (e->op == OP_ASSIGN) {
		line(em, "%s = %s;", t, v);
		line(em, "ktap_map_set_long(c, %s, %s, %s, %s);", m, k, t, loc);
	} else if (e->op == OP_ADD_ASSIGN || e->op == OP_SUB_ASSIGN) {
		line(em, "%s = ktap_map_add_long(c, %s, %s, %s(%s), %s);", t, m, k,
		     e->op == OP_SUB_ASSIGN ? "-" : "", v, loc);
	} else {
		char *old = new_temp(em, TY_LONG);

		line(em, "%s = ktap_map_get_long(%s, %s);", old, m, k);
		line(em, "%s = %s;", t, arith(em, e->op, old, v, &e->loc));
		line(em, "ktap_map_set_long(c, %s, %s, %s, %s);", m, k, t, loc);
	}
	check_error(em);
	return t;
}

static char *emit_index_incdec(struct emitter *em, const struct expr *e)
{
	char *k = emit_keys(em, e->lhs, NULL);
	char *t = new_temp(em, TY_LONG);
	int delta = e->op == OP_INC ? 1 : -1;

	line(em, "%s = ktap_map_add_long(c, g_%s, %s, %d, %s);", t, e->lhs->sym->name,
	     k, delta, loc_string(&e->loc, xasprintf("array '%s'", e->lhs->sym->name)));
	check_error(em);
	if (e->postfix)
		line(em, "%s -= %d;", t, delta);
	return t;
}

static char *emit_stat_add(struct emitter *em, const struct expr *e)
{
	char *k = emit_keys(em, e->lhs, NULL);
	char *v = emit_expr(em, e->rhs);

	/* the description is a constant: the compiler specializes the add */
	line(em, "ktap_map_stat_add_hot(c, g_%s, &g_%s_desc, %s, %s, %s);", e->lhs->sym->name,
	     e->lhs->sym->name, k, v, loc_string(&e->loc, "operator '<<<'"));
	check_error(em);
	return xstrdup("0");
}

/* fetch the merged statistic into the frame's aggregate; the result says
 * whether it has any data */
static char *emit_stat_fetch(struct emitter *em, const struct expr *operand)
{
	char *k = emit_keys(em, operand, NULL);
	char *has = new_temp(em, TY_LONG);

	em->uses_agg = true;
	line(em, "%s = ktap_map_stat_get(g_%s, %s, &f->agg);", has, operand->sym->name, k);
	return has;
}

static char *emit_stat_op(struct emitter *em, const struct expr *e)
{
	char *has = emit_stat_fetch(em, e->lhs);
	char *t = new_temp(em, TY_LONG);
	const char *op = e->str;

	if (strcmp(op, "count") == 0 || strcmp(op, "sum") == 0) {
		line(em, "%s = %s ? f->agg.%s : 0;", t, has, op);
		return t;
	}
	/* min, max, avg and variance of nothing have no answer */
	line(em, "if (!%s) {", has);
	line(em, "\tktap_error(c, \"empty aggregate\", %s);",
	     loc_string(&e->loc, xasprintf("@%s", op)));
	line(em, "\tgoto %s;", em->err_label);
	line(em, "}");
	if (strcmp(op, "avg") == 0)
		line(em, "%s = ktap_stat_avg(&f->agg);", t);
	else if (strcmp(op, "variance") == 0)
		line(em, "%s = ktap_stat_variance(&f->agg);", t);
	else
		line(em, "%s = f->agg.%s;", t, op);
	return t;
}

static char *hist_desc(const struct symbol *s)
{
	return xasprintf("g_%s_desc.hist", s->name);
}

static void emit_print_hist(struct emitter *em, const struct expr *h, bool newline)
{
	char *has = emit_stat_fetch(em, h->lhs);

	line(em, "if (%s)", has);
	line(em, "\tktap_print_hist(c, &f->agg, &%s);", hist_desc(h->lhs->sym));
	if (newline)
		line(em, "ktap_print_str(c, \"\\n\");");
}

static char *emit_hist_index(struct emitter *em, const struct expr *e)
{
	char *has = emit_stat_fetch(em, e->lhs->lhs);
	char *i = emit_expr(em, e->rhs);
	char *t = new_temp(em, TY_LONG);

	line(em, "if (%s < 0 || %s >= ktap_hist_nbuckets(&%s)) {", i, i,
	     hist_desc(e->lhs->lhs->sym));
	line(em, "\tktap_error(c, \"histogram index out of range\", %s);",
	     loc_string(&e->loc, "histogram index"));
	line(em, "\tgoto %s;", em->err_label);
	line(em, "}");
	line(em, "%s = %s ? ktap_stat_bucket(&f->agg, &%s, %s) : 0;", t, has,
	     hist_desc(e->lhs->lhs->sym), i);
	return t;
}

static void emit_delete(struct emitter *em, const struct stmt *s)
{
	const struct expr *e = s->expr;
	const struct symbol *sym = e->sym;

	if (!sym)
		return;
	if (e->kind == EX_INDEX) {
		unsigned wild = 0;
		char *k = emit_keys(em, e, &wild);

		if (wild)
			line(em, "ktap_map_delete_slice(g_%s, %s, %uu);", sym->name, k, wild);
		else
			line(em, "ktap_map_delete(g_%s, %s);", sym->name, k);
	} else if (is_map(sym)) {
		line(em, "ktap_map_clear(g_%s);", sym->name);
	} else if (sym->type == TY_STRING) {
		line(em, "%s[0] = '\\0';", var_name(sym));
	} else {
		line(em, "%s = 0;", var_name(sym));
	}
}

static char agg_letter(const char *stat)
{
	if (!stat || strcmp(stat, "count") == 0)
		return 'c';
	if (strcmp(stat, "sum") == 0)
		return 's';
	if (strcmp(stat, "min") == 0)
		return 'm';
	if (strcmp(stat, "max") == 0)
		return 'M';
	return 'a';
}

/* assign a loop variable from the iterator */
static void emit_iter_key(struct emitter *em, const char *it,
			  const struct expr *var, int n)
{
	if (var->sym->type == TY_STRING)
		line(em, "ktap_strcpy(%s, ktap_map_iter_key_str(%s, %d));",
		     var_name(var->sym), it, n);
	else
		line(em, "%s = ktap_map_iter_key_long(%s, %d);", var_name(var->sym), it, n);
}

static void emit_stmt(struct emitter *em, const struct stmt *s);

/* foreach (b in @hist_log(x) limit n): b runs over the bucket numbers */
/* the body of a foreach (opened with "{" and one more indent), its
 * continue label, the closing brace and its break label */
static void emit_loop_end(struct emitter *em, const struct stmt *s,
			  struct loop_labels l)
{
	em->loops[em->nloops++] = l;
	emit_stmt(em, s->then);
	em->nloops--;
	em->indent--;
	line(em, "cont%d: __maybe_unused;", l.cont);
	line(em, "}");
	line(em, "brk%d: __maybe_unused;", l.brk);
}

static void emit_foreach_buckets(struct emitter *em, const struct stmt *s)
{
	const struct foreach_info *fe = s->fe;
	const struct expr *h = fe->array;
	struct loop_labels l = { new_label(em), new_label(em) };
	char *bound = xasprintf("f->bound%d", em->nbounds++);
	char *b = var_name(fe->keys[0]->sym);
	char *has = emit_stat_fetch(em, h->lhs);

	line(em, "%s = %s ? f->agg.nbuckets : 0;", bound, has);
	if (fe->limit) {
		char *v = emit_expr(em, fe->limit);

		line(em, "if (%s < %s)", v, bound);
		line(em, "\t%s = %s < 0 ? 0 : %s;", bound, v, v);
	}
	line(em, "for (%s = 0; %s < %s; %s++) {", b, b, bound, b);
	em->indent++;
	emit_action(em, s);
	emit_loop_end(em, s, l);
}

static void emit_foreach(struct emitter *em, const struct stmt *s)
{
	const struct foreach_info *fe = s->fe;
	const struct symbol *a = fe->array->sym;
	struct loop_labels l = { new_label(em), new_label(em) };
	char *it = xasprintf("f->it%d", em->niters++);
	char *limit = xstrdup("0");
	char *slice = xstrdup("NULL");
	unsigned wild = 0;
	int i;

	if (em->nloops >= MAX_LOOP_DEPTH) {
		diag_error(&s->loc, "loops are nested too deeply");
		return;
	}
	if (fe->array->kind == EX_HIST) {
		emit_foreach_buckets(em, s);
		return;
	}
	if (!a)
		return;
	if (fe->limit) {
		/* the runtime's 0 means all; SystemTap's limit 0 means none */
		char *v = emit_expr(em, fe->limit);

		limit = new_temp(em, TY_LONG);
		line(em, "%s = %s > 0 ? %s : -1;", limit, v, v);
	}
	if (fe->array->kind == EX_INDEX)
		slice = emit_keys(em, fe->array, &wild);
	line(em, "%s = ktap_map_iter_start(c, g_%s, %d, %d, '%c', %s, %s, %uu, %s);",
	     it, a->name, fe->sort_dir ? (fe->sort_key < 0 ? 0 : fe->sort_key) : 0,
	     fe->sort_dir, agg_letter(fe->sort_stat), limit, slice, wild,
	     loc_string(&s->loc, "foreach"));
	line(em, "if (!%s)", it);
	line(em, "\tgoto %s;", em->err_label);
	line(em, "while (ktap_map_iter_next(%s)) {", it);
	em->indent++;
	emit_action(em, s);
	for (i = 0; i < fe->nkeys; i++)
		emit_iter_key(em, it, fe->keys[i], i + 1);
	if (fe->value && fe->value->sym) {
		if (fe->value->sym->type == TY_STRING)
			line(em, "ktap_strcpy(%s, ktap_map_iter_value_str(%s));",
			     var_name(fe->value->sym), it);
		else
			line(em, "%s = ktap_map_iter_value_long(%s);",
			     var_name(fe->value->sym), it);
	}
	emit_loop_end(em, s, l);
	line(em, "ktap_map_iter_end(%s);", it);
	line(em, "%s = NULL;", it);
}

/* ---- statements ---- */

/* count n statements at once, the first at s: ktap_action() counts the
 * last one and reports MAXACTION at s */
static void emit_actions(struct emitter *em, const struct stmt *s, int n)
{
	if (n > 1)
		line(em, "c->actions += %d;", n - 1);
	line(em, "if (unlikely(ktap_action(c, %s)))", near(&s->loc, "statement"));
	line(em, "\tgoto %s;", em->err_label);
}

static void emit_action(struct emitter *em, const struct stmt *s)
{
	emit_actions(em, s, 1);
}

/* a statement after which the next one always runs (unless an error
 * ends the hit): no branch, loop or jump */
static bool straight(const struct stmt *s)
{
	return s->kind == ST_EXPR || s->kind == ST_DELETE || s->kind == ST_NULL;
}

/* a block's statements with the blocks inside it opened, in order */
static void flatten_block(const struct stmt *s, const struct stmt ***out, int *n, int *cap)
{
	int i;

	for (i = 0; i < s->nbody; i++) {
		if (s->body[i]->kind == ST_BLOCK) {
			flatten_block(s->body[i], out, n, cap);
			continue;
		}
		if (*n == *cap) {
			*cap = *cap ? 2 * *cap : 16;
			*out = xrealloc(*out, *cap * sizeof(**out));
		}
		(*out)[(*n)++] = s->body[i];
	}
}

/* a block's statements, counted once per straight-line run: the run's
 * straight statements and the one that ends it (an if, a loop, a jump)
 * are counted before the first of them runs, as the statements a hit
 * reaches there always run together (blocks inside, such as an alias's
 * prologue and the probe's body, are one sequence). The bodies of ifs
 * and loops count their own. */
static void emit_block(struct emitter *em, const struct stmt *s)
{
	const struct stmt **flat = NULL;
	int n = 0, cap = 0, i = 0;

	flatten_block(s, &flat, &n, &cap);
	while (i < n) {
		const struct stmt *first = NULL;
		int end = i, actions = 0;

		while (end < n) {
			const struct stmt *b = flat[end++];

			if (b->kind != ST_NULL) {
				first = first ? first : b;
				actions++;
			}
			if (!straight(b))
				break;
		}
		if (actions)
			emit_actions(em, first, actions);
		for (; i < end; i++)
			emit_stmt_counted(em, flat[i], true);
	}
	free(flat);
}

static void emit_block_body(struct emitter *em, const struct stmt *s)
{
	em->indent++;
	emit_stmt(em, s);
	em->indent--;
}

static void emit_if(struct emitter *em, const struct stmt *s)
{
	char *cond = emit_expr(em, s->expr);

	line(em, "if (%s) {", cond);
	emit_block_body(em, s->then);
	if (s->els) {
		line(em, "} else {");
		emit_block_body(em, s->els);
	}
	line(em, "}");
}

/* while and for: the condition is re-evaluated at the top of each round */
static void emit_loop(struct emitter *em, const struct stmt *s)
{
	struct loop_labels l = { new_label(em), new_label(em) };

	if (em->nloops >= MAX_LOOP_DEPTH) {
		diag_error(&s->loc, "loops are nested too deeply");
		return;
	}
	if (s->init)
		emit_stmt(em, s->init);
	line(em, "for (;;) {");
	em->indent++;
	emit_action(em, s);
	if (s->expr) {
		char *cond = emit_expr(em, s->expr);

		line(em, "if (!(%s))", cond);
		line(em, "\tbreak;");
	}
	em->loops[em->nloops++] = l;
	emit_stmt(em, s->then);
	em->nloops--;
	em->indent--;
	line(em, "cont%d: __maybe_unused;", l.cont);
	em->indent++;
	if (s->step)
		emit_expr(em, s->step);
	line(em, ";");
	em->indent--;
	line(em, "}");
	line(em, "brk%d: __maybe_unused;", l.brk);
}

/* try { body } catch (msg) { handler }: an error in body jumps to the
 * catch, which takes the message and clears the error */
static void emit_try(struct emitter *em, const struct stmt *s)
{
	int catch_label = new_label(em), done_label = new_label(em);
	const char *outer = em->err_label;
	int first_iter = em->niters, i;

	em->err_label = xasprintf("catch%d", catch_label);
	line(em, "{");
	emit_block_body(em, s->then);
	line(em, "}");
	em->err_label = outer;
	line(em, "goto done%d;", done_label);
	line(em, "catch%d: __maybe_unused;", catch_label);
	/* a foreach the error left early */
	for (i = first_iter; i < em->niters; i++) {
		line(em, "if (f->it%d) {", i);
		line(em, "\tktap_map_iter_end(f->it%d);", i);
		line(em, "\tf->it%d = NULL;", i);
		line(em, "}");
	}
	if (s->catch_var && s->catch_var->sym)
		line(em, "ktap_strcpy(%s, c->error);", var_name(s->catch_var->sym));
	line(em, "c->error = NULL;");
	line(em, "c->error_site = NULL;");
	line(em, "{");
	emit_block_body(em, s->catch_body);
	line(em, "}");
	line(em, "done%d: __maybe_unused;", done_label);
}

static void emit_return(struct emitter *em, const struct stmt *s)
{
	if (s->expr) {
		char *v = emit_expr(em, s->expr);

		if (em->fn->ret_type == TY_STRING)
			line(em, "ktap_strcpy(ret, %s);", v);
		else
			line(em, "retval = %s;", v);
	}
	line(em, "goto out;");
}

/* one statement; counted: its action was counted with its run's */
static void emit_stmt_counted(struct emitter *em, const struct stmt *s, bool counted)
{
	if (!s)
		return;
	free_temps(em);
	if (!counted && s->kind != ST_BLOCK && s->kind != ST_NULL)
		emit_action(em, s);
	switch (s->kind) {
	case ST_BLOCK:
		emit_block(em, s);
		break;
	case ST_NULL:
		break;
	case ST_EXPR:
		if (is_probe_string_assign(s->expr))
			emit_probe_string_store(em, s->expr);	/* no value wanted */
		else
			emit_expr(em, s->expr);
		break;
	case ST_IF:
		emit_if(em, s);
		break;
	case ST_WHILE:
	case ST_FOR:
		emit_loop(em, s);
		break;
	case ST_BREAK:
	case ST_CONTINUE:
		if (!em->nloops) {
			diag_error(&s->loc, "'%s' outside a loop",
				   s->kind == ST_BREAK ? "break" : "continue");
			break;
		}
		line(em, "goto %s%d;", s->kind == ST_BREAK ? "brk" : "cont",
		     s->kind == ST_BREAK ? em->loops[em->nloops - 1].brk
					 : em->loops[em->nloops - 1].cont);
		break;
	case ST_NEXT:
		line(em, "goto out;");
		break;
	case ST_RETURN:
		emit_return(em, s);
		break;
	case ST_DELETE:
		emit_delete(em, s);
		break;
	case ST_FOREACH:
		emit_foreach(em, s);
		break;
	case ST_TRY:
		emit_try(em, s);
		break;
	default:
		diag_error(&s->loc, "this ktap cannot translate this statement yet");
		break;
	}
}

static void emit_stmt(struct emitter *em, const struct stmt *s)
{
	emit_stmt_counted(em, s, false);
}

/* ---- frames, functions, probes ---- */

/* the frame's iterators and aggregate, after its temporaries */
static void frame_extras(struct emitter *em, struct strbuf *out)
{
	int i;

	for (i = 0; i < em->maxstr; i++)
		sb_printf(out, "\tchar ts%d[MAXSTRINGLEN];\n", i);
	for (i = 0; i < em->maxlong; i++)
		sb_printf(out, "\tint64_t tl%d;\n", i);
	for (i = 0; i < em->maxkeys; i++)
		sb_printf(out, "\tunion ktap_key tk%d[KTAP_MAX_KEYS];\n", i);
	for (i = 0; i < em->niters; i++)
		sb_printf(out, "\tstruct ktap_map_iter *it%d;\n", i);
	for (i = 0; i < em->nbounds; i++)
		sb_printf(out, "\tint64_t bound%d;\n", i);
	if (em->uses_agg)
		sb_puts(out, "\tstruct ktap_stat_agg agg;\n");
}

/* an error or 'next' may leave a foreach early: end its iteration */
static void end_iterators(struct emitter *em, struct strbuf *out)
{
	int i;

	for (i = 0; i < em->niters; i++)
		sb_printf(out, "\tif (f->it%d)\n\t\tktap_map_iter_end(f->it%d);\n", i, i);
}

/* a character of a C identifier */
static bool ident_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '_';
}

/* whether generated code names a local: an alias offers many (name,
 * argstr ...) whose assignments elide.c dropped; setting them to zero on
 * every hit would be wasted. Embedded C (#line) may name anything. */
static bool names_local(const char *body, const struct symbol *s)
{
	const char *v = xasprintf("f->l_%s", s->name), *p;
	size_t n = strlen(v);

	if (!body || strstr(body, "#line"))
		return true;
	for (p = strstr(body, v); p; p = strstr(p + 1, v))
		if (!ident_char(p[n]))
			return true;
	return false;
}

/* a fresh frame is not zeroed: locals start as 0 and "", iterators unset */
static void init_frame(struct emitter *em, struct strbuf *out, struct symbol **locals,
		       int nlocals, const char *body)
{
	int i;

	for (i = 0; i < nlocals; i++) {
		const struct symbol *s = locals[i];

		if (s->kind != SYM_LOCAL || !names_local(body, s))
			continue;
		if (s->type == TY_STRING)
			sb_printf(out, "\tf->l_%s[0] = '\\0';\n", s->name);
		else
			sb_printf(out, "\tf->l_%s = 0;\n", s->name);
	}
	for (i = 0; i < em->niters; i++)
		sb_printf(out, "\tf->it%d = NULL;\n", i);
}

static void frame_var(struct strbuf *sb, const struct symbol *s, const char *prefix)
{
	if (s->type == TY_STRING)
		sb_printf(sb, "\tchar %s%s[MAXSTRINGLEN];\n", prefix, s->name);
	else
		sb_printf(sb, "\tint64_t %s%s;\n", prefix, s->name);
}

/* ---- string parameters passed by reference ----
 * Copying a string argument into the callee's frame costs a 512-byte
 * slot and a strcpy per call (user_string2's "<unknown>" on every hit of
 * a syscall probe). A callee that only reads its parameter keeps the
 * caller's pointer instead; the caller then passes only values that
 * cannot change during the call (see stable_string_arg()).
 */

/* a statement tree with embedded C (guru mode): it may write anything */
static bool has_embedded_stmt(const struct stmt *s)
{
	int i;

	if (!s)
		return false;
	if (s->kind == ST_EMBEDDED)
		return true;
	for (i = 0; i < s->nbody; i++)
		if (has_embedded_stmt(s->body[i]))
			return true;
	return has_embedded_stmt(s->init) || has_embedded_stmt(s->then) ||
	       has_embedded_stmt(s->els) || has_embedded_stmt(s->catch_body);
}

/* whether embedded C only reads the macro "<prefix><name>": each use must
 * be a call's last argument (", X)"), where no C API puts a destination;
 * anything else (an assignment, strcpy into it, a pointer taken) counts
 * as a write. Deliberately narrow: a false "write" only costs a copy. */
static bool c_reads_only(const char *code, const char *prefix, const char *name)
{
	size_t np = strlen(prefix), nn = strlen(name);
	const char *p;

	for (p = strstr(code, prefix); p; p = strstr(p + 1, prefix)) {
		const char *b = p, *a = p + np;

		if ((p > code && ident_char(p[-1])) || strncmp(a, name, nn) != 0 ||
		    ident_char(a[nn]))
			continue;
		for (a += nn; *a == ' ' || *a == '\t' || *a == '\n'; a++)
			;
		while (b > code && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\n'))
			b--;
		if (*a != ')' || b == code || b[-1] != ',')
			return false;
	}
	return true;
}

/* a string parameter the callee never changes: kept as the caller's
 * pointer, not copied into the frame */
static bool param_by_ref(const struct function *fn, int i)
{
	const struct param *p = &fn->params[i];

	if (param_type(p) != TY_STRING)
		return false;
	if (fn->embedded)
		return c_reads_only(fn->embedded, "STAP_ARG_", p->name) &&
		       c_reads_only(fn->embedded, "KTAP_ARG_", p->name);
	/* written: any assignment, ++/--, foreach or catch variable, delete
	 * (marked by type inference) */
	return p->sym && fn->body && !p->sym->written && !has_embedded_stmt(fn->body);
}

/* a string value the callee of a call cannot change while it runs: a
 * literal, or the caller's own temporary, local or parameter (a callee
 * writes only its frame, its return buffer, a fresh temporary, and
 * globals) */
static bool stable_string_arg(const char *v)
{
	return v[0] == '"' || strncmp(v, "f->ts", 5) == 0 ||
	       strncmp(v, "f->l_", 5) == 0 || strncmp(v, "f->p_", 5) == 0;
}

static void frame_param(struct strbuf *sb, const struct function *fn, int i)
{
	const struct param *p = &fn->params[i];

	if (param_by_ref(fn, i))
		sb_printf(sb, "\tconst char *p_%s;\n", p->name);
	else if (param_type(p) == TY_STRING)
		sb_printf(sb, "\tchar p_%s[MAXSTRINGLEN];\n", p->name);
	else
		sb_printf(sb, "\tint64_t p_%s;\n", p->name);
}

static void begin_body(struct emitter *em, struct strbuf *body)
{
	em->body = body;
	em->nstr = em->nlong = em->nkeys = 0;
	em->maxstr = em->maxlong = em->maxkeys = 0;
	em->indent = 1;
	em->nloops = 0;
	em->niters = 0;
	em->nbounds = 0;
	em->uses_agg = false;
	em->err_label = "out";
}

static char *function_signature(const struct function *fn)
{
	struct strbuf sb = { 0 };
	int i;

	sb_printf(&sb, "static %s %s(struct ktap_context *c",
		  fn->ret_type == TY_LONG ? "int64_t" : "void", function_name(fn));
	if (fn->ret_type == TY_STRING)
		sb_puts(&sb, ", char *ret");
	for (i = 0; i < fn->nparams; i++)
		sb_printf(&sb, ", %s a_%s",
			  param_type(&fn->params[i]) == TY_STRING ? "const char *" : "int64_t",
			  fn->params[i].name);
	sb_puts(&sb, ")");
	return sb.buf;
}

/* a parameter kept in the function's frame: embedded C uses the C
 * function's own (a long is a copy already, a string by reference the
 * caller's), except a string it may write */
static bool in_frame(const struct function *fn, int i)
{
	return !fn->embedded || (param_type(&fn->params[i]) == TY_STRING &&
				 !param_by_ref(fn, i));
}

/* a function with no frame: embedded C with every parameter outside it
 * (tapset functions such as pid() and user_string2() then cost no frame
 * arena work) */
static bool frameless(const struct function *fn)
{
	int i;

	if (!fn->embedded)
		return false;
	for (i = 0; i < fn->nparams; i++)
		if (in_frame(fn, i))
			return false;
	return true;
}

/* embedded C sees SystemTap's macros; #line points errors at the script */
static void emit_embedded_body(struct emitter *em, const struct function *fn)
{
	struct strbuf *b = em->body;
	int i;

	sb_puts(b, "#define CONTEXT c\n");
	sb_printf(b, "#define STAP_RETVALUE %s\n",
		  fn->ret_type == TY_STRING ? "ret" : "retval");
	sb_printf(b, "#define KTAP_RETVALUE STAP_RETVALUE\n");
	if (fn->ret_type == TY_STRING)
		sb_puts(b, "#define STAP_RETURN(v) do { strscpy(ret, (v), MAXSTRINGLEN); goto out; } while (0)\n");
	else
		sb_puts(b, "#define STAP_RETURN(v) do { retval = (v); goto out; } while (0)\n");
	for (i = 0; i < fn->nparams; i++) {
		const char *v = xasprintf(in_frame(fn, i) ? "f->p_%s" : "a_%s",
					  fn->params[i].name);

		sb_printf(b, "#define STAP_ARG_%s %s\n#define KTAP_ARG_%s %s\n",
			  fn->params[i].name, v, fn->params[i].name, v);
	}
	sb_printf(b, "#line %d \"%s\"\n", fn->loc.line, fn->loc.src->name);
	sb_puts(b, fn->embedded);
	sb_puts(b, "\n#line RESTORE\n");
	sb_puts(b, "#undef CONTEXT\n#undef STAP_RETVALUE\n#undef KTAP_RETVALUE\n#undef STAP_RETURN\n");
	for (i = 0; i < fn->nparams; i++)
		sb_printf(b, "#undef STAP_ARG_%s\n#undef KTAP_ARG_%s\n",
			  fn->params[i].name, fn->params[i].name);
	sb_puts(b, "\tgoto out;\n");
}

/* ---- the light unit and the prebuilt object (runtime/api.h) ----
 * A script with no embedded C of its own is emitted so that it compiles
 * both ways: in full (runtime.h, the tapsets' embedded C inline, then
 * module.h), or with -DKTAP_LIGHT against runtime/api.h only, calling
 * the runtime and the tapsets' embedded-C functions in the per-tree
 * prebuilt object (emit_prebuilt_unit()). build.c picks the way.
 */

/* whether path is a file directly in dir (given without its last '/') */
static bool directly_in(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && path[n] == '/' && !strchr(path + n + 1, '/');
}

/* the tapset files the prebuilt object is made of: the .stp files of
 * <data>/tapsets, and those of the target's generated syscall tapset
 * (made per kernel tree, like the prebuilt object) */
static bool in_prebuilt_dir(const struct source *src, const struct options *opt)
{
	const char *gen = syscalls_tapset_dir(opt);

	return src && src->is_tapset && !strstr(src->text, "%(") &&
	       (directly_in(src->name, xasprintf("%s/tapsets", opt->data_dir)) ||
		(gen && directly_in(src->name, gen)));
}

/* an embedded-C tapset function whose C signature is fixed by its
 * declaration alone, so it can be compiled before any script uses it */
static bool prebuildable(const struct function *fn, const struct options *opt)
{
	int i;

	/* a guru function is only called with -g, which compiles in full */
	if (!fn->embedded || fn->guru || !in_prebuilt_dir(fn->loc.src, opt))
		return false;
	if (fn->ret_declared ? fn->ret_type != TY_LONG && fn->ret_type != TY_STRING
			     : fn->returns_value)
		return false;
	for (i = 0; i < fn->nparams; i++)
		if (fn->params[i].type != TY_LONG && fn->params[i].type != TY_STRING)
			return false;
	return true;
}

static enum type declared_ret(const struct function *fn)
{
	return fn->ret_declared ? fn->ret_type : TY_VOID;
}

/* the prebuilt object's symbol for a function: changes with anything
 * that changes its C */
static char *prebuilt_symbol(const struct function *fn)
{
	char hex[SHA256_HEX_LEN + 1];
	struct sha256 s;
	int i, t = declared_ret(fn);

	sha256_init(&s);
	sha256_update(&s, fn->loc.src->name, strlen(fn->loc.src->name) + 1);
	sha256_update(&s, &fn->loc.line, sizeof(fn->loc.line));
	sha256_update(&s, fn->name, strlen(fn->name) + 1);
	sha256_update(&s, &t, sizeof(t));
	for (i = 0; i < fn->nparams; i++) {
		t = fn->params[i].type;
		sha256_update(&s, fn->params[i].name, strlen(fn->params[i].name) + 1);
		sha256_update(&s, &t, sizeof(t));
	}
	sha256_update(&s, fn->embedded, strlen(fn->embedded) + 1);
	sha256_final_hex(&s, hex);
	return xasprintf("ktapt_%s_%.12s", fn->name, hex);
}

/* a resolved embedded-C function the prebuilt object has, with the C
 * signature the prebuilt one has */
static bool same_as_prebuilt(const struct function *fn, const struct options *opt)
{
	int i;

	if (!prebuildable(fn, opt) || fn->ret_type != declared_ret(fn))
		return false;
	for (i = 0; i < fn->nparams; i++)
		if (param_type(&fn->params[i]) != fn->params[i].type)
			return false;
	return true;
}

/* a script the light unit can build: its own code has no embedded C, and
 * all the embedded C it uses is in the prebuilt object */
static bool light_ok(const struct program *prog, const struct options *opt)
{
	int i;

	if (opt->guru || opt->timing || opt->nglobal_settings || getenv("KTAP_NO_LIGHT"))
		return false;
	for (i = 0; i < prog->nembedded; i++)
		if (!in_prebuilt_dir(prog->embedded[i]->loc.src, opt))
			return false;
	for (i = 0; i < prog->nfunctions; i++)
		if (prog->functions[i]->embedded && !same_as_prebuilt(prog->functions[i], opt))
			return false;
	return true;
}

/* a function's declaration; in a light unit, a prebuilt one is bound to
 * the prebuilt object's symbol (which the unit says it needs) */
static void emit_prototype(struct emitter *em, struct strbuf *out, const struct function *fn)
{
	struct unit *u = em->unit;
	char *sym;

	if (!em->light || !fn->embedded || fn->light) {
		sb_printf(out, "%s;\n", function_signature(fn));
		return;
	}
	sym = prebuilt_symbol(fn);
	sb_printf(out, "#ifdef KTAP_LIGHT\n%s __asm__(\"%s\");\n#else\n%s;\n#endif\n",
		  function_signature(fn) + strlen("static "), sym, function_signature(fn));
	u->prebuilt = xrealloc(u->prebuilt, (u->nprebuilt + 1) * sizeof(*u->prebuilt));
	u->prebuilt[u->nprebuilt++] = sym;
}

/* an embedded-C function without a frame: only the nesting count */
static void emit_frameless(struct strbuf *out, const struct function *fn,
			   const char *body)
{
	const char *ret0 = fn->ret_type == TY_LONG ? " 0" : "";

	sb_printf(out, "%s\n{\n", function_signature(fn));
	if (fn->ret_type == TY_LONG)
		sb_puts(out, "\tint64_t retval = 0;\n");
	/* the check first: a store through ret could be one to *c for the
	 * compiler, which then could not drop it (ktap_probe_frame()) */
	sb_printf(out, "\tif (unlikely(!ktap_nest_enter(c, %s))) {\n%s\t\treturn%s;\n\t}\n",
		  near(&fn->loc, xasprintf("function '%s'", fn->name)),
		  fn->ret_type == TY_STRING ? "\t\tret[0] = '\\0';\n" : "", ret0);
	if (fn->ret_type == TY_STRING)
		sb_puts(out, "\tret[0] = '\\0';\n");
	sb_puts(out, body ? body : "");
	sb_printf(out, "out: __maybe_unused;\n\tktap_nest_leave(c);\n%s}\n\n",
		  fn->ret_type == TY_LONG ? "\treturn retval;\n" : "");
}

static void emit_function(struct emitter *em, struct strbuf *out,
			  const struct function *fn)
{
	struct strbuf body = { 0 };
	const char *name = function_name(fn);
	int i;

	begin_body(em, &body);
	em->fn = fn;
	for (i = 0; i < fn->nparams; i++) {
		const struct param *p = &fn->params[i];

		if (!in_frame(fn, i))
			continue;
		if (param_type(p) == TY_STRING && !param_by_ref(fn, i))
			line(em, "ktap_strcpy(f->p_%s, a_%s);", p->name, p->name);
		else
			line(em, "f->p_%s = a_%s;", p->name, p->name);
	}
	if (fn->embedded)
		emit_embedded_body(em, fn);
	else
		emit_stmt(em, fn->body);

	if (frameless(fn)) {
		emit_frameless(out, fn, body.buf);
		em->fn = NULL;
		return;
	}
	sb_printf(out, "struct frame_%s {\n", name);
	for (i = 0; i < fn->nparams; i++)
		if (in_frame(fn, i))
			frame_param(out, fn, i);
	for (i = 0; i < fn->nlocals; i++)
		if (fn->locals[i]->kind == SYM_LOCAL)
			frame_var(out, fn->locals[i], "l_");
	frame_extras(em, out);
	sb_puts(out, "\tchar unused;\n};\n\n");
	sb_printf(out, "%s\n{\n", function_signature(fn));
	sb_printf(out, "\tstruct frame_%s *f;\n", name);
	if (fn->ret_type == TY_LONG)
		sb_puts(out, "\tint64_t retval = 0;\n");
	if (fn->ret_type == TY_STRING)
		sb_puts(out, "\tret[0] = '\\0';\n");
	sb_printf(out, "\tif (unlikely(!ktap_nest_enter(c, %s)))\n\t\treturn%s;\n",
		  near(&fn->loc, xasprintf("function '%s'", fn->name)),
		  fn->ret_type == TY_LONG ? " 0" : "");
	sb_printf(out, "\tf = ktap_frame_alloc(c, sizeof(*f));\n"
		       "\tif (!f) {\n\t\tktap_nest_leave(c);\n\t\treturn%s;\n\t}\n",
		  fn->ret_type == TY_LONG ? " 0" : "");
	init_frame(em, out, fn->locals, fn->nlocals, body.buf);
	sb_puts(out, body.buf ? body.buf : "");
	sb_puts(out, "out: __maybe_unused;\n");
	end_iterators(em, out);
	sb_printf(out, "\tktap_frame_pop(c, sizeof(*f));\n"
		       "\tktap_nest_leave(c);\n%s}\n\n",
		  fn->ret_type == TY_LONG ? "\treturn retval;\n" : "");
	em->fn = NULL;
}

/* how the runtime locks a global for a handler (runtime/context.h): a
 * statistic has one lock per CPU, so that <<< on different CPUs never
 * shares a lock; other globals have one rwlock */
static const char *lock_mode_c(const struct symbol *g, enum global_lock mode)
{
	if (g->type == TY_STATS)
		return mode == GLOBAL_LOCK_ADD ? "KTAP_LOCK_THIS_CPU" : "KTAP_LOCK_ALL_CPUS";
	return mode == GLOBAL_LOCK_READ ? "KTAP_LOCK_READ" : "KTAP_LOCK_WRITE";
}

static void emit_lock_tables(struct strbuf *out, const struct resolved_probe *rp)
{
	int i;

	if (!rp->nglobals_used)
		return;
	sb_printf(out, "static const struct ktap_lock_use probe_%d_locks[] = {\n", rp->index);
	for (i = 0; i < rp->nglobals_used; i++) {
		const struct symbol *g = rp->globals_used[i];

		sb_printf(out, "\t{ .%s = &g_%s_lock, .mode = %s },\n",
			  g->type == TY_STATS ? "cpu" : "rw", g->name,
			  lock_mode_c(g, rp->global_lock[i]));
	}
	sb_puts(out, "};\n");
}

/* a .return probe's @entry() values, computed by the kretprobe's entry
 * handler into the instance data (c->tp_args there) */
static void emit_entry_saves(struct emitter *em, struct strbuf *entry,
			     const struct resolved_probe *rp)
{
	struct strbuf *main_body = em->body;
	int k;

	em->body = entry;
	sb_puts(entry, "");
	for (k = 0; k < rp->nentry_exprs; k++) {
		char *v = emit_expr(em, rp->entry_exprs[k]);

		line(em, "((int64_t *)c->tp_args)[%d] = %s;", k, v);
		check_error(em);
		free_temps(em);
	}
	em->body = main_body;
}

static void emit_probe(struct emitter *em, struct strbuf *out,
		       const struct resolved_probe *rp)
{
	struct strbuf body = { 0 }, entry = { 0 };
	const struct expr *cond = rp->points->cond;
	int i;

	begin_body(em, &body);
	if (cond) {
		char *v = emit_expr(em, cond);

		line(em, "if (!(%s))", v);
		line(em, "\tgoto out;");
	}
	emit_stmt(em, rp->body);
	if (rp->nentry_exprs)
		emit_entry_saves(em, &entry, rp);

	sb_printf(out, "struct frame_probe_%d {\n", rp->index);
	for (i = 0; i < rp->nlocals; i++)
		frame_var(out, rp->locals[i], "l_");
	frame_extras(em, out);
	sb_puts(out, "\tchar unused;\n};\n\n");
	emit_lock_tables(out, rp);
	if (rp->nentry_exprs)
		sb_printf(out, "static void probe_%d_entry(struct ktap_context *c)\n{\n"
			       "\tstruct frame_probe_%d *f = ktap_frame_alloc(c, sizeof(*f));\n\n"
			       "\tif (!f)\n\t\treturn;\n%sout: __maybe_unused;\n"
			       "\tktap_frame_pop(c, sizeof(*f));\n}\n\n",
			  rp->index, rp->index, entry.buf);
	sb_printf(out, "static void probe_%d(struct ktap_context *c)\n{\n"
		       "\tstruct frame_probe_%d *f;\n\n", rp->index, rp->index);
	if (rp->nglobals_used)
		sb_printf(out, "\tif (!ktap_lock_globals(c, probe_%d_locks, %d))\n"
			       "\t\treturn;\n", rp->index, rp->nglobals_used);
	sb_puts(out, "\tf = ktap_probe_frame(c, sizeof(*f));\n\tif (!f)\n\t\tgoto unlock;\n");
	init_frame(em, out, rp->locals, rp->nlocals, body.buf);
	sb_puts(out, body.buf ? body.buf : "");
	sb_puts(out, "out: __maybe_unused;\n");
	end_iterators(em, out);
	sb_printf(out, "\tktap_frame_pop(c, sizeof(*f));\nunlock:\n");
	if (rp->nglobals_used)
		sb_printf(out, "\tktap_unlock_globals(c, probe_%d_locks, %d);\n",
			  rp->index, rp->nglobals_used);
	sb_puts(out, "\treturn;\n}\n\n");
}

/* ---- the file ---- */

static const char *vtype(enum type t)
{
	return t == TY_STRING ? "KTAP_STRING" : t == TY_STATS ? "KTAP_STATS" : "KTAP_LONG";
}

static void emit_map_global(struct strbuf *out, const struct symbol *g)
{
	const struct global_decl *d = g->global;
	int i;

	sb_printf(out, "static struct ktap_map *g_%s;\n", g->name);
	sb_printf(out, "static const struct ktap_map_desc g_%s_desc = {\n"
		       "\t.name = \"%s\", .nkeys = %d, .value_type = %s,\n\t.key_types = {",
		  g->name, g->name, g->nkeys, vtype(g->type));
	for (i = 0; i < g->nkeys; i++)
		sb_printf(out, " %s,", vtype(g->key_types[i] == TY_STRING ? TY_STRING : TY_LONG));
	sb_printf(out, " },\n\t.max_entries = %lld, .wrap = %s,\n",
		  (long long)d->max_entries, d->wrap ? "true" : "false");
	sb_printf(out, "\t.hist = { %d, %lldLL, %lldLL, %lldLL },\n\t.var_shift = %d,\n};\n",
		  g->hist_kind, (long long)g->hist_lo, (long long)g->hist_hi,
		  (long long)g->hist_step, g->var_shift);
}

static void emit_globals(struct emitter *em, struct strbuf *out)
{
	struct strbuf init = { 0 }, fini = { 0 };
	int i;

	sb_puts(&init, "");
	sb_puts(&fini, "");
	for (i = 0; i < em->prog->nglobals; i++) {
		const struct symbol *g = em->prog->globals[i];
		const struct expr *initval = g->global->init;

		if (is_map(g)) {
			emit_map_global(out, g);
			sb_printf(&init, "\tg_%s = ktap_map_new(&g_%s_desc);\n"
					 "\tif (!g_%s)\n\t\treturn -ENOMEM;\n",
				  g->name, g->name, g->name);
			sb_printf(&fini, "\tktap_map_free(g_%s);\n\tg_%s = NULL;\n",
				  g->name, g->name);
		} else if (g->type == TY_STRING) {
			sb_printf(out, "static char g_%s[MAXSTRINGLEN] = %s;\n", g->name,
				  initval ? c_string(initval->str) : "\"\"");
		} else {
			sb_printf(out, "static int64_t g_%s = %lldLL;\n", g->name,
				  initval ? (long long)initval->num : 0LL);
		}
		if (g->type == TY_STATS)
			sb_printf(out, "static DEFINE_PER_CPU(ktap_cpulock_t, g_%s_lock);\n",
				  g->name);
		else
			sb_printf(out, "static KTAP_DEFINE_RWLOCK(g_%s_lock);\n", g->name);
	}
	sb_printf(out, "\nKTAP_UNIT_DEF int ktap_globals_init(void)\n{\n%s\treturn 0;\n}\n\n",
		  init.buf);
	sb_printf(out, "KTAP_UNIT_DEF void ktap_globals_exit(void)\n{\n%s}\n"
		       "#define ktap_globals_exit ktap_globals_exit\n\n", fini.buf);
}

/* ---- what -G and -t add to the module ---- */

/* -G NAME=VALUE: the global is a module parameter, named
 * KTAP_PARAM_GLOBAL_PREFIX NAME (runtime/uapi.h), that ktap-run sets at
 * load; pass 2 checked the name and the value's type (checks.c) */
static void emit_global_params(struct emitter *em, struct strbuf *out)
{
	bool *done = xalloc((em->prog->nglobals + 1) * sizeof(*done));
	int i, j;

	for (i = 0; i < em->opt->nglobal_settings; i++) {
		const char *set = em->opt->global_settings[i];
		size_t n = strcspn(set, "=");

		for (j = 0; j < em->prog->nglobals; j++) {
			const struct symbol *g = em->prog->globals[j];

			if (strlen(g->name) != n || strncmp(g->name, set, n) != 0 || is_map(g))
				continue;
			if (done[j])	/* set twice: ktap-run passes both, the last wins */
				break;
			done[j] = true;
			if (g->type == TY_STRING)
				sb_printf(out, "module_param_string(g_%s, g_%s, MAXSTRINGLEN, 0);\n",
					  g->name, g->name);
			else	/* int64_t is long on the 64-bit targets */
				sb_printf(out, "module_param_cb(g_%s, &param_ops_long, &g_%s, 0);\n",
					  g->name, g->name);
			break;
		}
	}
	xfree(done);
}

static int count_points(const struct program *prog)
{
	const struct concrete_point *cp;
	int i, n = 0;

	for (i = 0; i < prog->nprobes; i++)
		for (cp = prog->probes[i]->points; cp; cp = cp->next)
			n++;
	return n;
}

/* -t: per-CPU hits and cycles of each point of the probe table, summed
 * by the report, an end probe after the script's own (the table's last
 * entry) */
static void emit_timing(struct emitter *em, struct strbuf *out)
{
	const struct concrete_point *cp;
	int i, n = 0;

	sb_printf(out, "struct ktap_hit_timing {\n\tu64 hits, cycles, min, max;\n};\n"
		       "static DEFINE_PER_CPU(struct ktap_hit_timing, ktap_hit_timing[%d]);\n\n",
		  count_points(em->prog));
	sb_puts(out, "static void ktap_time_hit(int i, cycles_t t0)\n{\n"
		     "\tstruct ktap_hit_timing *t = this_cpu_ptr(&ktap_hit_timing[i]);\n"
		     "\tu64 d = get_cycles() - t0;\n\n"
		     "\tif (!t->hits || d < t->min)\n\t\tt->min = d;\n"
		     "\tif (d > t->max)\n\t\tt->max = d;\n"
		     "\tt->hits++;\n\tt->cycles += d;\n}\n\n");
	sb_puts(out, "static const char *const ktap_hit_where[][2] = {\n");
	for (i = 0; i < em->prog->nprobes; i++) {
		const struct srcloc *loc = &em->prog->probes[i]->loc;
		char *where = xasprintf("%s:%d:%d", loc->src->name, loc->line, loc->col);

		for (cp = em->prog->probes[i]->points; cp; cp = cp->next, n++)
			sb_printf(out, "\t{ %s, %s },\n", c_string(where),
				  c_string(cp->from ? cp->from : cp->pp));
	}
	sb_puts(out, "};\n\n");
	sb_printf(out, "static void ktap_timing_report(struct ktap_context *c)\n{\n"
		       "\tint i, cpu;\n\n"
		       "\tktap_printf(c, \"----- probe hit report: \\n\");\n"
		       "\tfor (i = 0; i < %d; i++) {\n"
		       "\t\tstruct ktap_hit_timing sum = { 0 };\n\n"
		       "\t\tfor_each_possible_cpu(cpu) {\n"
		       "\t\t\tconst struct ktap_hit_timing *t = per_cpu_ptr(&ktap_hit_timing[i], cpu);\n\n"
		       "\t\t\tif (!t->hits)\n\t\t\t\tcontinue;\n"
		       "\t\t\tif (!sum.hits || t->min < sum.min)\n\t\t\t\tsum.min = t->min;\n"
		       "\t\t\tif (t->max > sum.max)\n\t\t\t\tsum.max = t->max;\n"
		       "\t\t\tsum.hits += t->hits;\n\t\t\tsum.cycles += t->cycles;\n\t\t}\n"
		       "\t\tif (!sum.hits)\n\t\t\tcontinue;\n"
		       "\t\tktap_printf(c, \"%%s, (%%s), hits: %%d, cycles: %%dmin/%%davg/%%dmax, from: %%s, index: %%d\\n\",\n"
		       "\t\t\t    ktap_probes[i].pp, ktap_hit_where[i][0], (int64_t)sum.hits,\n"
		       "\t\t\t    (int64_t)sum.min, (int64_t)div64_u64(sum.cycles, sum.hits),\n"
		       "\t\t\t    (int64_t)sum.max, ktap_hit_where[i][1], (int64_t)i);\n"
		       "\t\tktap_print_flush(c);\n"
		       "\t}\n}\n\n", n);
}

static const char *kind_name(enum probe_kind k)
{
	switch (k) {
	case PK_BEGIN: return "KTAP_PROBE_BEGIN";
	case PK_END: return "KTAP_PROBE_END";
	case PK_TIMER: return "KTAP_PROBE_TIMER";
	case PK_KPROBE: return "KTAP_PROBE_KPROBE";
	case PK_TRACEPOINT: return "KTAP_PROBE_TRACEPOINT";
	case PK_ERROR: return "KTAP_PROBE_ERROR";
	case PK_NEVER: return "KTAP_PROBE_NEVER";
	case PK_PROCFS_READ: return "KTAP_PROBE_PROCFS_READ";
	case PK_PROCFS_WRITE: return "KTAP_PROBE_PROCFS_WRITE";
	case PK_UPROBE: return "KTAP_PROBE_UPROBE";
	case PK_URETPROBE: return "KTAP_PROBE_URETPROBE";
	case PK_PROC_BEGIN: return "KTAP_PROBE_PROC_BEGIN";
	case PK_PROC_END: return "KTAP_PROBE_PROC_END";
	case PK_PERF: return "KTAP_PROBE_PERF";
	case PK_NETFILTER: return "KTAP_PROBE_NETFILTER";
	case PK_HWBKPT: return "KTAP_PROBE_HWBKPT";
	default: return "KTAP_PROBE_KRETPROBE";
	}
}

static char *tp_func_name(const struct resolved_probe *rp,
			  const struct concrete_point *cp)
{
	const struct concrete_point *p;
	int k = 0;

	for (p = rp->points; p != cp; p = p->next)
		k++;
	return xasprintf("tp_probe_%d_%d", rp->index, k);
}

/* the C type a tracepoint argument arrives as: its size and signedness */
static const char *tp_arg_type(const struct cvar *v)
{
	static const char *const sgn[] = { [1] = "s8", [2] = "s16", [4] = "s32" };
	static const char *const uns[] = { [1] = "u8", [2] = "u16", [4] = "u32" };
	const struct ctype *t = v->type;

	if (t && t->kind != CT_POINTER && (t->size == 1 || t->size == 2 || t->size == 4))
		return t->is_signed ? sgn[t->size] : uns[t->size];
	return "unsigned long";
}

/* the parameters of a function registered on a tracepoint, by the
 * prototype's sizes, and the array of them widened for the handler */
static void tp_params(struct strbuf *out, const struct concrete_point *cp)
{
	int j;

	for (j = 0; j < cp->tp_nargs; j++)
		sb_printf(out, ", %s a%d", tp_arg_type(&cp->tp_args[j]), j);
	sb_printf(out, ")\n{\n\tunsigned long args[%d] = {", cp->tp_nargs + 1);
	for (j = 0; j < cp->tp_nargs; j++)
		sb_printf(out, " (unsigned long)a%d,", j);
	sb_puts(out, " };\n\n");
}

/* calls fn(cp, its index in ktap_probes[], arg) for every point */
static void for_each_point(const struct program *prog,
			   void (*fn)(const struct resolved_probe *, const struct concrete_point *,
				      int, void *), void *arg)
{
	int i, index = 0;

	for (i = 0; i < prog->nprobes; i++) {
		const struct concrete_point *cp;

		for (cp = prog->probes[i]->points; cp; cp = cp->next)
			fn(prog->probes[i], cp, index++, arg);
	}
}

/* the first keyed point of a tracepoint owns its dispatcher */
struct tp_owner_search {
	const char *tracepoint;
	const struct concrete_point *owner;
};

static void find_owner(const struct resolved_probe *rp, const struct concrete_point *cp,
		       int index, void *arg)
{
	struct tp_owner_search *s = arg;

	(void)rp, (void)index;
	if (!s->owner && cp->kind == PK_TRACEPOINT && cp->tp_keyed &&
	    strcmp(cp->tracepoint, s->tracepoint) == 0)
		s->owner = cp;
}

static bool owns_dispatcher(const struct program *prog, const struct concrete_point *cp)
{
	struct tp_owner_search s = { .tracepoint = cp->tracepoint };

	for_each_point(prog, find_owner, &s);
	return s.owner == cp;
}

struct tp_case {
	int64_t key;
	int index;
};

struct tp_cases {
	const char *tracepoint;
	struct tp_case *cases;
	int n;
};

static void collect_case(const struct resolved_probe *rp, const struct concrete_point *cp,
			 int index, void *arg)
{
	struct tp_cases *tc = arg;

	(void)rp;
	if (cp->kind != PK_TRACEPOINT || !cp->tp_keyed || strcmp(cp->tracepoint, tc->tracepoint))
		return;
	tc->cases = xrealloc(tc->cases, (tc->n + 1) * sizeof(*tc->cases));
	tc->cases[tc->n++] = (struct tp_case){ cp->tp_key, index };
}

static int compare_cases(const void *a, const void *b)
{
	const struct tp_case *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->index - y->index;
}

/* one function for all the keyed points of a tracepoint: a switch on the
 * key (the system call number), so the tracepoint calls one function */
static void emit_dispatcher(struct emitter *em, struct strbuf *out,
			    const struct concrete_point *owner)
{
	struct tp_cases tc = { .tracepoint = owner->tracepoint };
	int i;

	for_each_point(em->prog, collect_case, &tc);
	qsort(tc.cases, tc.n, sizeof(*tc.cases), compare_cases);
	sb_printf(out, "static void tp_dispatch_%s(void *data", owner->tracepoint);
	tp_params(out, owner);
	sb_printf(out, "\tswitch ((long)(%s)) {\n", owner->tp_key_c);
	for (i = 0; i < tc.n; i++) {
		if (i == 0 || tc.cases[i].key != tc.cases[i - 1].key)
			sb_printf(out, "\tcase %lldL:\n", (long long)tc.cases[i].key);
		sb_printf(out, "\t\tktap_tracepoint_hit_index(%d, args);\n", tc.cases[i].index);
		if (i + 1 == tc.n || tc.cases[i + 1].key != tc.cases[i].key)
			sb_puts(out, "\t\tbreak;\n");
	}
	sb_puts(out, "\t}\n}\n\n");
}

static void emit_tracepoint_funcs(struct emitter *em, struct strbuf *out)
{
	int i;

	sb_printf(out, "%sstatic void ktap_tracepoint_hit(void *slot, const unsigned long *args);\n"
		       "static void ktap_tracepoint_hit_index(int i, const unsigned long *args);\n%s\n",
		  em->light ? "#ifndef KTAP_LIGHT\n" : "", em->light ? "#endif\n" : "");
	for (i = 0; i < em->prog->nprobes; i++) {
		const struct resolved_probe *rp = em->prog->probes[i];
		const struct concrete_point *cp;

		for (cp = rp->points; cp; cp = cp->next) {
			if (cp->kind != PK_TRACEPOINT)
				continue;
			if (cp->tp_keyed) {
				if (owns_dispatcher(em->prog, cp))
					emit_dispatcher(em, out, cp);
				continue;
			}
			sb_printf(out, "static void %s(void *data", tp_func_name(rp, cp));
			tp_params(out, cp);
			sb_puts(out, "\tktap_tracepoint_hit(data, args);\n}\n\n");
		}
	}
}

/* ktap_run_handler() (runtime/context.h): a switch over the table's
 * index, one case range per probe (its points are consecutive), so that
 * the runtime calls handlers directly, not through probe->handler */
static void emit_run_handler(struct emitter *em, struct strbuf *out)
{
	int i, first = 0;

	sb_puts(out, "KTAP_UNIT_DEF void ktap_run_handler(const struct ktap_probe *probe,\n"
		     "\t\t\t\t    struct ktap_context *c)\n{\n");
	if (em->opt->timing)	/* -t: the report is the last entry, untimed */
		sb_printf(out, "\tcycles_t t0 = get_cycles();\n\n"
			       "\tif (probe - ktap_probes == %d) {\n"
			       "\t\tktap_timing_report(c);\n\t\treturn;\n\t}\n",
			  count_points(em->prog));
	sb_puts(out, "\tswitch (probe - ktap_probes) {\n");
	for (i = 0; i < em->prog->nprobes; i++) {
		const struct resolved_probe *rp = em->prog->probes[i];
		const struct concrete_point *cp;
		int n = 0;

		for (cp = rp->points; cp; cp = cp->next)
			n++;
		if (!n)
			continue;
		if (n == 1)
			sb_printf(out, "\tcase %d:\n", first);
		else
			sb_printf(out, "\tcase %d ... %d:\n", first, first + n - 1);
		sb_printf(out, "\t\tprobe_%d(c);\n\t\tbreak;\n", rp->index);
		first += n;
	}
	sb_puts(out, "\t}\n");
	if (em->opt->timing)
		sb_puts(out, "\tktap_time_hit(probe - ktap_probes, t0);\n");
	sb_puts(out, "}\n\n");
}

static int usym_cmp(const void *a, const void *b)
{
	const struct program_symbol *x = a, *y = b;

	/* aliases at one offset in name order: usymname() names the last */
	if (x->addr != y->addr)
		return x->addr > y->addr ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* the functions of one probed file by file offset (runtime/usyms.h); how
 * many (the array has a placeholder when there are none) */
static int emit_usyms_of(struct strbuf *out, struct target *t, int k)
{
	struct program_symbol *syms;
	int n = target_program_functions(t, "*", &syms), i, m = 0;

	for (i = 0; i < n; i++)
		if (target_file_offset(t, syms[i].addr, &syms[m].addr)) {
			syms[m].name = syms[i].name;
			syms[m++].size = syms[i].size;
		}
	qsort(syms, m, sizeof(*syms), usym_cmp);
	sb_printf(out, "static const struct ktap_usym ktap_usyms_%d[] = {\n", k);
	for (i = 0; i < m; i++)
		sb_printf(out, "\t{ 0x%llx, %llu, %s },\n", (unsigned long long)syms[i].addr,
			  (unsigned long long)syms[i].size, c_string(syms[i].name));
	if (!m)
		sb_puts(out, "\t{ 0 },\n");
	sb_puts(out, "};\n");
	return m;
}

/* the unwind rows of one file (runtime/usyms.h, runtime/ustack.h) */
static void emit_ucfi_of(struct strbuf *out, struct target *t, int k)
{
	struct program_cfi_row *rows;
	int n = target_program_cfi(t, &rows), i;

	sb_printf(out, "static const struct ktap_ucfi ktap_ucfi_%d[] = {\n", k);
	for (i = 0; i < n; i++)
		sb_printf(out, "\t{ 0x%llx, %lld, %d, %d, %d },\n",
			  (unsigned long long)rows[i].start, (long long)rows[i].cfa_off,
			  rows[i].cfa_reg, rows[i].ra_off, rows[i].rbp_off);
	/* the end of the last row: a stop row (or the only row) */
	sb_printf(out, "\t{ 0x%llx, 0, -1, 0, 0 },\n};\n",
		  n ? (unsigned long long)rows[n - 1].end : 0ULL);
}

/* a script that unwinds user stacks (the embedded C of ubacktrace() and
 * its kin says "pragma:unwind"): the files' CFI goes into the module */
static bool unwinds_user(const struct program *prog)
{
	for (int i = 0; i < prog->nfunctions; i++)
		if (prog->functions[i]->embedded &&
		    strstr(prog->functions[i]->embedded, "pragma:unwind"))
			return true;
	return false;
}

/* usymname()'s and ubacktrace()'s table */
static void emit_usym_table(struct emitter *em, struct strbuf *out)
{
	struct target **files = em->prog->ufiles;
	struct strbuf table = { 0 };
	bool cfi = unwinds_user(em->prog);
	int n = em->prog->nufiles, i;

	sb_puts(&table, "");
	for (i = 0; i < n; i++) {
		int nsyms = emit_usyms_of(out, files[i], i);

		if (cfi)
			emit_ucfi_of(out, files[i], i);
		sb_printf(&table, "\t{ %s, ktap_usyms_%d, %d", c_string(files[i]->load_path), i,
			  nsyms);
		if (cfi)
			sb_printf(&table, ", ktap_ucfi_%d, ARRAY_SIZE(ktap_ucfi_%d)", i, i);
		sb_puts(&table, " },\n");
	}
	sb_printf(out, "KTAP_UNIT_DEF const struct ktap_usym_file ktap_usym_files[] = {\n%s%s};\n"
		       "KTAP_UNIT_DEF const unsigned int ktap_nr_usym_files = %d;\n\n",
		  table.buf, n ? "" : "\t{ 0 },\n", n);
}

/* the link-time address of kfree(), for ksyms.h to learn the KASLR
 * offset of the .link_addr addresses (0: unknown, they are not used) */
static void emit_link_anchor(struct strbuf *out)
{
	sb_printf(out, "KTAP_UNIT_DEF const unsigned long ktap_link_kfree = 0x%llxUL;\n"
		       "#define KTAP_LINK_KFREE ktap_link_kfree\n\n",
		  target_kernel() ? target_symbol_address(target_kernel(), "kfree") : 0ULL);
}

static void emit_probe_table(struct emitter *em, struct strbuf *out)
{
	int i;

	emit_tracepoint_funcs(em, out);
	sb_puts(out, "KTAP_UNIT_DEF const struct ktap_probe ktap_probes[] = {\n");
	for (i = 0; i < em->prog->nprobes; i++) {
		const struct resolved_probe *rp = em->prog->probes[i];
		const struct concrete_point *cp;

		for (cp = rp->points; cp; cp = cp->next) {
			sb_printf(out, "\t{ .kind = %s, .pp = %s",
				  kind_name(cp->kind), c_string(cp->pp));
			if (cp->symbol)
				sb_printf(out, ", .symbol = %s", c_string(cp->symbol));
			if (cp->offset)
				sb_printf(out, ", .offset = %llu", (unsigned long long)cp->offset);
			if (cp->path)
				sb_printf(out, ", .path = %s", c_string(cp->path));
			if (cp->pid)
				sb_printf(out, ", .pid = %lld", (long long)cp->pid);
			if (cp->ref_ctr_offset)
				sb_printf(out, ", .ref_ctr_offset = %llu",
					  (unsigned long long)cp->ref_ctr_offset);
			if (cp->address)
				sb_printf(out, ", .address = 0x%llxUL", (unsigned long long)cp->address);
			if (cp->link_addr)
				sb_printf(out, ", .link_addr = 0x%llxUL%s",
					  (unsigned long long)cp->link_addr,
					  cp->ftrace_site ? ", .ftrace_site = true" : "");
			if (cp->tracepoint)
				sb_printf(out, ", .tracepoint = %s, .tp_func = %s",
					  c_string(cp->tracepoint),
					  !cp->tp_keyed ? tp_func_name(rp, cp) :
					  owns_dispatcher(em->prog, cp) ?
					  xasprintf("tp_dispatch_%s", cp->tracepoint) : "NULL");
			if (cp->sc_direct)	/* runtime/syscall.h */
				sb_printf(out, ", .syscall_nr = %lld", (long long)cp->tp_key + 1);
			if (rp->nentry_exprs && cp->kind == PK_KRETPROBE)
				sb_printf(out, ", .entry = probe_%d_entry, .entry_size = %d",
					  rp->index, 8 * rp->nentry_exprs);
			if (cp->priority == INT64_MIN)	/* init: its literal overflows */
				sb_puts(out, ", .priority = -9223372036854775807LL - 1");
			else if (cp->priority)
				sb_printf(out, ", .priority = %lldLL", (long long)cp->priority);
			if (cp->period_ns)
				sb_printf(out, ", .period_ns = %lluULL",
					  (unsigned long long)cp->period_ns);
			if (cp->randomize_ns)
				sb_printf(out, ", .randomize_ns = %lluULL",
					  (unsigned long long)cp->randomize_ns);
			if (cp->per_cpu)
				sb_puts(out, ", .per_cpu = true");
			if (cp->maxactive)
				sb_printf(out, ", .maxactive = %d", cp->maxactive);
			if (cp->kind == PK_PERF)
				sb_printf(out, ", .perf_type = %u, .perf_config = 0x%llxULL"
					  ", .perf_sample = %lluULL%s", cp->perf_type,
					  (unsigned long long)cp->perf_config,
					  (unsigned long long)cp->perf_sample,
					  cp->perf_freq ? ", .perf_freq = true" : "");
			if (cp->kind == PK_PERF && cp->perf_task)
				sb_puts(out, ", .perf_task = true");
			if (cp->kind == PK_PERF && cp->perf_counter)
				sb_printf(out, ", .perf_counter = \"%s\"", cp->perf_counter);
			if (cp->kind == PK_HWBKPT)
				sb_printf(out, ", .bp_len = %d, .bp_type = %d", cp->bp_len,
					  cp->bp_type);
			if (cp->kind == PK_NETFILTER)
				sb_printf(out, ", .nf_hook = %d, .nf_pf = %d, .nf_priority = %d",
					  cp->nf_hook, cp->nf_pf, cp->nf_priority);
			if (cp->procfs_name)
				sb_printf(out, ", .procfs_name = %s, .procfs_mode = 0%o"
					  ", .procfs_maxsize = %lld", c_string(cp->procfs_name),
					  cp->procfs_mode, (long long)cp->procfs_maxsize);
			if (cp->optional)
				sb_puts(out, ", .optional = true");
			sb_puts(out, " },\n");
		}
	}
	if (em->opt->timing)
		sb_puts(out, "\t{ .kind = KTAP_PROBE_END, .pp = \"end\", .priority = 9223372036854775807LL },"
			     "\t/* -t's report, after every end(N) */\n");
	sb_puts(out, "};\n#define KTAP_NR_PROBES ARRAY_SIZE(ktap_probes)\n\n");
	emit_link_anchor(out);
	if (em->opt->timing)
		emit_timing(em, out);
	emit_usym_table(em, out);
	emit_run_handler(em, out);
}

static void emit_defines(struct emitter *em, struct strbuf *out)
{
	int i;

	for (i = 0; i < em->opt->ndefines; i++) {
		char *name = xstrdup(em->opt->defines[i]);
		char *eq = strchr(name, '=');

		if (eq)
			*eq++ = '\0';
		sb_printf(out, "#define %s %s\n", name, eq ? eq : "1");
	}
}

/* "#line RESTORE" becomes a #line that names the real C line again */
static char *restore_lines(const char *text, const char *c_file)
{
	struct strbuf sb = { 0 };
	const char *p = text;
	int lineno = 1;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p + 1) : strlen(p);

		if (strncmp(p, "#line RESTORE\n", 14) == 0)
			sb_printf(&sb, "#line %d \"%s\"\n", lineno + 1, c_file);
		else
			sb_printf(&sb, "%.*s", (int)len, p);
		lineno++;
		p += len;
	}
	return sb.buf;
}

/* @variance costs two divisions per <<<: the runtime keeps it only if used */
static bool expr_uses_variance(const struct expr *e);

static bool stmt_uses_variance(const struct stmt *s)
{
	int i;

	if (!s)
		return false;
	for (i = 0; i < s->nbody; i++)
		if (stmt_uses_variance(s->body[i]))
			return true;
	return stmt_uses_variance(s->init) || expr_uses_variance(s->expr) ||
	       expr_uses_variance(s->step) || stmt_uses_variance(s->then) ||
	       stmt_uses_variance(s->els) || stmt_uses_variance(s->catch_body);
}

static bool expr_uses_variance(const struct expr *e)
{
	int i;

	if (!e)
		return false;
	if (e->kind == EX_STAT_OP && strcmp(e->str, "variance") == 0)
		return true;
	for (i = 0; i < e->nargs; i++)
		if (expr_uses_variance(e->args[i]))
			return true;
	return expr_uses_variance(e->lhs) || expr_uses_variance(e->rhs) ||
	       expr_uses_variance(e->cond);
}

static bool uses_variance(const struct program *prog)
{
	int i;

	for (i = 0; i < prog->nprobes; i++)
		if (stmt_uses_variance(prog->probes[i]->body))
			return true;
	for (i = 0; i < prog->nfunctions; i++)
		if (stmt_uses_variance(prog->functions[i]->body))
			return true;
	return false;
}

/* the top-level %{ %} blocks, with #line naming their files */
static void emit_embedded_blocks(struct strbuf *out, struct embedded_block **blocks, int n)
{
	int i;

	for (i = 0; i < n; i++)
		sb_printf(out, "#line %d \"%s\"\n%s\n#line RESTORE\n", blocks[i]->loc.line,
			  blocks[i]->loc.src->name, blocks[i]->code);
}

/* the runtime: in full, or (light unit) its API */
static void emit_runtime_include(struct emitter *em, struct strbuf *out)
{
	if (em->light)
		sb_puts(out, "#ifdef KTAP_LIGHT\n#include \"api.h\"\n#else\n");
	sb_puts(out, "#include \"runtime.h\"\n\n");
	emit_embedded_blocks(out, em->prog->embedded, em->prog->nembedded);
	if (em->light)
		sb_puts(out, "#endif\n");
}

/* the functions, then the handlers; in a light unit, a prebuilt
 * function's body is only for the full build, unless it is marked
 * light: its C uses only what api.h gives (a call per hit into the
 * prebuilt object costs more than execname()'s whole body) */
static void emit_code(struct emitter *em, struct strbuf *code)
{
	int i;

	sb_puts(code, "");
	for (i = 0; i < em->prog->nfunctions; i++) {
		const struct function *fn = em->prog->functions[i];
		bool prebuilt = em->light && fn->embedded && !fn->light;

		if (prebuilt)
			sb_puts(code, "#ifndef KTAP_LIGHT\n");
		emit_function(em, code, fn);
		if (prebuilt)
			sb_puts(code, "#endif\n");
	}
	for (i = 0; i < em->prog->nprobes; i++)
		emit_probe(em, code, em->prog->probes[i]);
}

struct unit *emit_program(const struct program *prog, const struct options *opt)
{
	struct emitter em = { 0 };
	struct strbuf out = { 0 }, code = { 0 }, defines = { 0 };
	struct unit *u = xalloc(sizeof(*u));
	int i;

	/* before anything reads the points: where the syscall ones attach */
	syscall_choose_attach(prog);
	em.prog = prog;
	em.opt = opt;
	em.light = light_ok(prog, opt);
	em.c_file = xasprintf("%s.c", prog->module_name);
	em.unit = u;
	u->module_name = prog->module_name;
	u->light = em.light;
	sb_printf(&out, "/* generated by ktap %s from %s */\n", KTAP_VERSION,
		  prog->user->src->name);
	sb_printf(&out, "#define KTAP_MODULE_NAME \"%s\"\n", prog->module_name);
	sb_puts(&defines, "");
	emit_defines(&em, &defines);
	if (uses_variance(prog))
		sb_puts(&defines, "#define KTAP_NEED_VARIANCE 1\n");
	u->defines = defines.buf;
	sb_puts(&out, u->defines);
	emit_runtime_include(&em, &out);
	emit_globals(&em, &out);
	emit_global_params(&em, &out);
	for (i = 0; i < prog->nfunctions; i++)
		emit_prototype(&em, &out, prog->functions[i]);
	sb_puts(&out, "\n");
	/* handlers first, so the regex programs they use are known */
	sb_puts(&em.regex_defs, "");
	emit_code(&em, &code);
	sb_puts(&out, em.regex_defs.buf);
	sb_puts(&out, code.buf);
	emit_probe_table(&em, &out);
	sb_printf(&out, "static const char ktap_modinfo_memory[]\n"
			"__attribute__((__used__, __section__(\".modinfo\"), __aligned__(1))) = "
			"\"%s\";\n\n", footprint_modinfo(prog, em.opt));
	if (em.light)
		sb_puts(&out, "#ifdef KTAP_LIGHT\nKTAP_LIGHT_TAIL\n#else\n");
	sb_puts(&out, "#include \"module.h\"\n");
	if (em.light)
		sb_puts(&out, "#endif\n");
	if (diag_error_count())
		return NULL;
	u->c = restore_lines(out.buf, em.c_file);
	return u;
}

/* ---- the prebuilt object's unit ---- */

/* the .stp files of dir holding embedded C, parsed in name order,
 * appended to files */
static struct file **prebuilt_files_of(const struct options *opt, const char *dir,
				       struct file **files, int *n)
{
	struct dirent **names;
	int i, nnames = scandir(dir, &names, NULL, alphasort);

	for (i = 0; i < nnames; i++) {
		size_t len = strlen(names[i]->d_name);
		struct source *src = NULL;
		struct file *f;

		if (len > 4 && !strcmp(names[i]->d_name + len - 4, ".stp"))
			src = source_from_file(xasprintf("%s/%s", dir, names[i]->d_name));
		free(names[i]);
		if (!src || !strstr(src->text, "%{"))
			continue;
		src->is_tapset = true;
		if (!in_prebuilt_dir(src, opt) || !(f = parse_source(src)))
			continue;
		files = xrealloc(files, (*n + 1) * sizeof(*files));
		files[(*n)++] = f;
	}
	if (nnames >= 0)
		free(names);
	return files;
}

/* the tapset files of the prebuilt object, parsed: <data>/tapsets, then
 * the generated syscall tapset */
static struct file **prebuilt_files(const struct options *opt, int *n)
{
	const char *gen = syscalls_tapset_dir(opt);
	struct file **files;

	*n = 0;
	files = prebuilt_files_of(opt, xasprintf("%s/tapsets", opt->data_dir), NULL, n);
	if (gen)
		files = prebuilt_files_of(opt, gen, files, n);
	return files;
}

/* a parsed function as the emitter wants it: its parameters as symbols
 * of their declared types, its return type as declared */
static struct function *as_resolved(const struct function *fn)
{
	struct function *r = xalloc(sizeof(*r));
	int i;

	*r = *fn;
	r->ret_type = declared_ret(fn);
	r->params = xalloc((fn->nparams + 1) * sizeof(*r->params));
	for (i = 0; i < fn->nparams; i++) {
		struct symbol *sym = xalloc(sizeof(*sym));

		r->params[i] = fn->params[i];
		sym->name = fn->params[i].name;
		sym->kind = SYM_PARAM;
		sym->type = fn->params[i].type;
		r->params[i].sym = sym;
	}
	r->locals = NULL;
	r->nlocals = 0;
	return r;
}

/* one prebuilt function: emitted as a script's would be, and exported
 * as its prebuilt_symbol(); a second function of the same C name is not
 * prebuilt (its callers build in full) */
static void emit_prebuilt_function(struct emitter *em, struct strbuf *out,
				   const struct function *fn, struct strbuf *symbols,
				   struct strbuf *seen)
{
	struct function *r = as_resolved(fn);
	char *name = function_name(r), *key = xasprintf("\n%s\n", name);

	if (seen->buf && strstr(seen->buf, key))
		return;
	sb_puts(seen, key);
	emit_function(em, out, r);
	sb_printf(out, "__typeof__(%s) %s __attribute__((__alias__(\"%s\")));\n\n",
		  name, prebuilt_symbol(fn), name);
	sb_printf(symbols, "%s\n", prebuilt_symbol(fn));
}

char *emit_prebuilt_unit(const struct options *opt, const char *defines, char **symbols)
{
	struct emitter em = { 0 };
	struct strbuf out = { 0 }, syms = { 0 }, seen = { 0 };
	int i, n, errors = diag_error_count();
	struct file **files = prebuilt_files(opt, &n);

	em.opt = opt;
	em.c_file = "ktap_prebuilt.c";
	sb_puts(&seen, "\n");
	sb_puts(&syms, "");
	sb_printf(&out, "/* generated by ktap %s: the runtime and the tapsets' embedded C,\n"
		       " * compiled once per kernel tree (runtime/api.h) */\n"
		       "#define KTAP_PREBUILT 1\n"
		       "#define KTAP_MODULE_NAME (THIS_MODULE->name)\n%s"
		       "#include \"runtime.h\"\n\n", KTAP_VERSION, defines);
	for (i = 0; i < n; i++) {
		struct embedded_block *b, **blocks = NULL;
		int nb = 0;

		for (b = files[i]->embedded; b; b = b->next) {
			blocks = xrealloc(blocks, (nb + 1) * sizeof(*blocks));
			blocks[nb++] = b;
		}
		emit_embedded_blocks(&out, blocks, nb);
	}
	for (i = 0; i < n; i++) {
		const struct function *fn;

		for (fn = files[i]->functions; fn; fn = fn->next)
			if (prebuildable(fn, opt))
				emit_prebuilt_function(&em, &out, fn, &syms, &seen);
	}
	sb_puts(&out, "#include \"module.h\"\n#include \"api.c\"\n");
	if (diag_error_count() != errors)
		return NULL;
	*symbols = syms.buf;
	return restore_lines(out.buf, em.c_file);
}
