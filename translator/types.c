/* types.c - type inference to a fixed point.
 *
 * Every expression, symbol and function result gets long, string or stats.
 * Rounds repeat while any type changes, so a type learnt in one probe or
 * function flows to every other use. A last round reports conflicts
 * (naming both uses) and names whose type nothing determines.
 */
#include <stdlib.h>
#include <string.h>

#include "resolve.h"
#include "format.h"
#include "aliasvars.h"

static char *where(const struct srcloc *loc)
{
	if (!loc->src)
		return xstrdup("an earlier use");
	return xasprintf("%s:%d:%d", loc->src->name, loc->line, loc->col);
}

/* Give *slot the type t, or report that it already has another one. */
bool types_unify(struct resolver *r, enum type *slot, struct srcloc *slot_loc,
		 enum type t, const struct srcloc *loc, const char *what)
{
	if (t == TY_UNKNOWN || *slot == t)
		return true;
	if (*slot == TY_UNKNOWN) {
		*slot = t;
		if (slot_loc)
			*slot_loc = *loc;
		r->types_changed = true;
		return true;
	}
	if (r->report_types) {
		diag_error(loc, "type mismatch: %s is %s here, but %s at %s",
			   what, type_name(t), type_name(*slot),
			   slot_loc ? where(slot_loc) : "its declaration");
	}
	return false;
}

static enum type infer_expr(struct resolver *r, struct expr *e, enum type want);

/* an operand that must have type t */
static void expect(struct resolver *r, struct expr *e, enum type t,
		   const char *what)
{
	enum type got = infer_expr(r, e, t);

	if (got != TY_UNKNOWN && got != t && r->report_types)
		diag_error(&e->loc, "%s must be a %s, not a %s", what,
			   type_name(t), type_name(got));
}

static enum type symbol_type(struct resolver *r, struct expr *e, enum type want)
{
	struct symbol *s = e->sym;
	char *what;

	if (!s)
		return TY_UNKNOWN;
	what = xasprintf("'%s'", s->name);
	types_unify(r, &s->type, &s->type_loc, want, &e->loc, what);
	return s->type;
}

/* the keys of a[k1, k2] (or a slice, or [k1, k2] in a) against a's key types */
static void infer_keys(struct resolver *r, struct expr *e)
{
	struct symbol *s = e->sym;
	int i;

	if (!s)
		return;
	for (i = 0; i < e->nargs && i < s->nkeys; i++) {
		enum type t;
		char *what;

		if (e->args[i]->kind == EX_STAR)
			continue;
		t = infer_expr(r, e->args[i], s->key_types[i]);
		if (t == TY_STATS) {
			if (r->report_types)
				diag_error(&e->args[i]->loc, "an array key cannot be a statistic");
			continue;
		}
		what = xasprintf("key %d of array '%s'", i + 1, s->name);
		types_unify(r, &s->key_types[i], NULL, t, &e->args[i]->loc, what);
	}
}

static bool has_star(const struct expr *e)
{
	int i;

	for (i = 0; i < e->nargs; i++)
		if (e->args[i]->kind == EX_STAR)
			return true;
	return false;
}

/* a[k] as a value */
static enum type infer_index(struct resolver *r, struct expr *e, enum type want)
{
	infer_keys(r, e);
	if (has_star(e) && r->report_types)
		diag_error(&e->loc, "'*' selects many elements: only delete, 'in' and foreach take a slice");
	if (e->sym)
		e->sym->read = true;
	return symbol_type(r, e, want);
}

/* x <<< v, @count(x), @hist_log(x[k]): x must be statistics */
static void infer_stat_operand(struct resolver *r, struct expr *e)
{
	if (!e->sym)
		return;
	if (e->kind == EX_INDEX)
		infer_keys(r, e);
	else if (e->sym->nkeys > 0 && r->report_types)
		diag_error(&e->loc, "'%s' is an array: name an element, e.g. %s[...]",
			   e->sym->name, e->sym->name);
	symbol_type(r, e, TY_STATS);
}

static bool constant_arg(struct resolver *r, struct expr *e, int64_t *v)
{
	infer_expr(r, e, TY_LONG);
	if (e->kind == EX_NUMBER) {
		*v = e->num;
		return true;
	}
	if (r->report_types)
		diag_error(&e->loc, "the bounds of @hist_linear must be numbers");
	return false;
}

/* @hist_log(x) / @hist_linear(x, lo, hi, step): one histogram per statistic */
static void infer_hist(struct resolver *r, struct expr *e)
{
	struct symbol *s = e->lhs->sym;
	int kind = strcmp(e->str, "hist_log") == 0 ? 1 : 2;
	int64_t lo = 0, hi = 0, step = 0;

	infer_stat_operand(r, e->lhs);
	if (kind == 2) {
		bool ok = constant_arg(r, e->args[0], &lo) &
			  constant_arg(r, e->args[1], &hi) &
			  constant_arg(r, e->args[2], &step);

		if (!ok)
			return;
		if (step <= 0 || hi <= lo) {
			if (r->report_types)
				diag_error(&e->loc, "@hist_linear wants low < high and a positive step");
			return;
		}
		if (((uint64_t)hi - (uint64_t)lo) / (uint64_t)step > 125) {
			if (r->report_types)
				diag_error(&e->loc, "@hist_linear would have more than 125 buckets");
			return;
		}
	}
	if (!s)
		return;
	if (!s->hist_kind) {
		s->hist_kind = kind;
		s->hist_lo = lo;
		s->hist_hi = hi;
		s->hist_step = step;
		s->hist_loc = e->loc;
		return;
	}
	if ((s->hist_kind != kind || s->hist_lo != lo || s->hist_hi != hi ||
	     s->hist_step != step) && r->report_types && e->loc.line != s->hist_loc.line) {
		diag_error(&e->loc, "'%s' already keeps another histogram", s->name);
		diag_note(&s->hist_loc, "the first one is here");
	}
}

/* $var->f[i]: a number, or with a '$' / '$$' suffix its pretty-printed text */
static enum type infer_target(struct resolver *r, struct expr *e)
{
	const struct target_step *st;

	if (e->lhs)
		infer_expr(r, e->lhs, TY_LONG);
	for (st = e->path; st; st = st->next)
		if (st->index)
			expect(r, st->index, TY_LONG, "an array index of a target variable");
	return e->suffix || tvar_is_probe_string(e->access) ? TY_STRING : TY_LONG;
}

/* a scalar use (x = ..., x++) of a name used with keys elsewhere: one
 * name cannot be both (SystemTap: inconsistent arity) */
static void check_scalar_use(struct resolver *r, const struct expr *v)
{
	if (v->kind == EX_VAR && v->sym && v->sym->nkeys > 0 && r->report_types)
		diag_error(&v->loc, "'%s' is an array, used with %d key%s elsewhere: "
			   "it cannot be assigned as a scalar", v->sym->name, v->sym->nkeys,
			   v->sym->nkeys == 1 ? "" : "s");
}

static enum type infer_assign(struct resolver *r, struct expr *e)
{
	enum type lt, rt;

	check_scalar_use(r, e->lhs);
	if (e->lhs->kind == EX_INDEX) {
		infer_keys(r, e->lhs);
		if (has_star(e->lhs) && r->report_types)
			diag_error(&e->lhs->loc, "cannot assign to a slice");
	}
	if (e->lhs->kind == EX_TARGET && tvar_is_probe_string(e->lhs->access)) {
		/* procfs $value: the probe's own string */
		if (e->op != OP_ASSIGN && e->op != OP_CONCAT_ASSIGN && r->report_types)
			diag_error(&e->loc, "%s is a string: only '=' and '.=' assign it",
				   e->lhs->str);
		expect(r, e->rhs, TY_STRING, "the value assigned to a string");
		return TY_STRING;
	}
	if (e->lhs->kind == EX_TARGET || e->lhs->kind == EX_AT_VAR) {
		/* changes the traced kernel: guru mode only (tvar.c binds it) */
		if (!r->opt->guru && r->report_types)
			diag_error(&e->lhs->loc, "assigning to %s changes the kernel: it needs "
				   "guru mode (-g)", e->lhs->str);
		if (e->op == OP_CONCAT_ASSIGN && r->report_types)
			diag_error(&e->loc, "'.=' on a target variable: it is a number");
		expect(r, e->rhs, TY_LONG, "the value assigned to a target variable");
		return TY_LONG;
	}
	if (e->lhs->kind != EX_VAR && e->lhs->kind != EX_INDEX) {
		if (r->report_types)
			diag_error(&e->lhs->loc, "cannot assign to this expression");
		return TY_UNKNOWN;
	}
	if (e->lhs->sym)
		e->lhs->sym->written = true;
	if (e->op == OP_CONCAT_ASSIGN) {
		expect(r, e->rhs, TY_STRING, "the right side of '.='");
		return symbol_type(r, e->lhs, TY_STRING);
	}
	if (e->op != OP_ASSIGN) {
		expect(r, e->rhs, TY_LONG, "the right side of a compound assignment");
		return symbol_type(r, e->lhs, TY_LONG);
	}
	lt = symbol_type(r, e->lhs, TY_UNKNOWN);
	rt = infer_expr(r, e->rhs, lt);
	return symbol_type(r, e->lhs, rt);
}

static enum type infer_compare(struct resolver *r, struct expr *e)
{
	enum type lt = infer_expr(r, e->lhs, TY_UNKNOWN);
	enum type rt = infer_expr(r, e->rhs, lt);

	if (lt == TY_UNKNOWN && rt != TY_UNKNOWN)
		lt = infer_expr(r, e->lhs, rt);
	if (lt != TY_UNKNOWN && rt != TY_UNKNOWN && lt != rt && r->report_types)
		diag_error(&e->loc, "cannot compare a %s with a %s",
			   type_name(lt), type_name(rt));
	if ((lt == TY_STATS || rt == TY_STATS) && r->report_types)
		diag_error(&e->loc, "statistics cannot be compared; use @count, @sum, ...");
	return TY_LONG;
}

static void infer_format_args(struct resolver *r, struct expr *e, int first)
{
	struct expr *fmt = e->args[0];
	struct format_spec specs[FORMAT_MAX_ARGS];
	int n, i;

	if (fmt->kind != EX_STRING) {
		if (r->report_types)
			diag_error(&fmt->loc, "the format of %s must be a string literal",
				   e->str);
		return;
	}
	n = format_parse(fmt->str, specs, FORMAT_MAX_ARGS, &fmt->loc,
			 r->report_types);
	if (n < 0)
		return;
	if (n != e->nargs - first) {
		if (r->report_types)
			diag_error(&fmt->loc, "format wants %d argument%s, but %s has %d",
				   n, n == 1 ? "" : "s", e->str, e->nargs - first);
		return;
	}
	for (i = 0; i < n; i++) {
		char *what = xasprintf("argument %d of %s (for '%s')", i + 1,
				       e->str, specs[i].text);

		expect(r, e->args[first + i], specs[i].type, what);
	}
}

static enum type infer_builtin(struct resolver *r, struct expr *e)
{
	int i;

	switch (e->builtin) {
	case BI_PRINTF:
	case BI_SPRINTF:
		if (e->nargs < 1) {
			if (r->report_types)
				diag_error(&e->loc, "%s needs a format string", e->str);
			return TY_UNKNOWN;
		}
		infer_format_args(r, e, 1);
		return e->builtin == BI_PRINTF ? TY_VOID : TY_STRING;
	case BI_PRINTD:
	case BI_PRINTDLN:
	case BI_SPRINTD:
	case BI_SPRINTDLN:
		/* as SystemTap: with one value there is nothing to delimit */
		if (e->nargs < 3 && r->report_types)
			diag_error(&e->loc, "%s needs a delimiter and at least two values", e->str);
		if (e->nargs >= 1)
			expect(r, e->args[0], TY_STRING, "the delimiter");
		for (i = 1; i < e->nargs; i++)
			if (infer_expr(r, e->args[i], TY_UNKNOWN) == TY_STATS && r->report_types)
				diag_error(&e->args[i]->loc, "statistics cannot be printed directly");
		break;
	default:
		if (builtin_prints_whole_global(e)) {
			e->args[0]->sym->read = true;
			break;
		}
		/* println() and sprintln() print a newline; print() nothing */
		if (!e->nargs && (e->builtin == BI_PRINT || e->builtin == BI_SPRINT) &&
		    r->report_types)
			diag_error(&e->loc, "%s needs at least one value", e->str);
		for (i = 0; i < e->nargs; i++) {
			enum type t = infer_expr(r, e->args[i], TY_UNKNOWN);

			if (e->args[i]->kind == EX_HIST) {
				if ((e->builtin != BI_PRINT && e->builtin != BI_PRINTLN) ||
				    e->nargs != 1) {
					if (r->report_types)
						diag_error(&e->args[i]->loc, "a histogram can only be printed alone, with print or println");
				}
			} else if (t == TY_STATS && r->report_types) {
				diag_error(&e->args[i]->loc, "statistics cannot be printed directly");
			}
		}
		break;
	}
	return builtin_returns_string(e->builtin) ? TY_STRING : TY_VOID;
}

static enum type infer_call(struct resolver *r, struct expr *e, enum type want)
{
	struct function *fn = e->fn;
	int i;

	if (e->builtin)
		return infer_builtin(r, e);
	if (!fn)
		return TY_UNKNOWN;
	for (i = 0; i < e->nargs && i < fn->nparams; i++) {
		struct symbol *p = fn->params[i].sym;
		char *what = xasprintf("parameter '%s' of %s()", p->name, fn->name);
		enum type t = infer_expr(r, e->args[i], p->type);

		types_unify(r, &p->type, &p->type_loc, t, &e->args[i]->loc, what);
	}
	if (want != TY_UNKNOWN && want != TY_VOID && fn->ret_type == TY_UNKNOWN &&
	    !fn->ret_declared) {
		fn->ret_type = want;
		r->types_changed = true;
	}
	return fn->ret_type;
}

static enum type infer_expr(struct resolver *r, struct expr *e, enum type want)
{
	enum type t = TY_UNKNOWN;

	switch (e->kind) {
	case EX_NUMBER:
	case EX_ARGC:
		t = TY_LONG;
		break;
	case EX_STRING:
		t = TY_STRING;
		break;
	case EX_SCRIPT_ARG:
		t = e->str ? TY_STRING : TY_LONG;
		break;
	case EX_VAR:
		if (e->sym)
			e->sym->read = true;
		if (e->sym && e->sym->nkeys > 0 && r->report_types)
			diag_error(&e->loc, "'%s' is an array: use an element, e.g. %s[...]",
				   e->sym->name, e->sym->name);
		t = symbol_type(r, e, want);
		if (t == TY_STATS && r->report_types)
			diag_error(&e->loc, "'%s' holds statistics: read it with @count, @sum, @avg, ...",
				   e->sym->name);
		break;
	case EX_INDEX:
		t = infer_index(r, e, want);
		if (t == TY_STATS && r->report_types)
			diag_error(&e->loc, "this element holds statistics: read it with @count, @sum, @avg, ...");
		break;
	case EX_IN:
		if (e->rhs) {		/* N in @hist_log(x): N is a bucket */
			infer_hist(r, e->rhs);
			expect(r, e->args[0], TY_LONG, "a histogram bucket number");
			t = TY_LONG;
			break;
		}
		infer_keys(r, e);
		if (e->sym)
			e->sym->read = true;
		t = TY_LONG;
		break;
	case EX_STAT_ADD:
		infer_stat_operand(r, e->lhs);
		if (e->lhs->sym)
			e->lhs->sym->written = true;
		expect(r, e->rhs, TY_LONG, "the value added with '<<<'");
		t = TY_VOID;
		break;
	case EX_STAT_OP:
		infer_stat_operand(r, e->lhs);
		if (e->lhs->sym)
			e->lhs->sym->read = true;
		if (e->rhs) {
			int64_t shift = 0;

			expect(r, e->rhs, TY_LONG, "the bit-shift of @variance");
			if (e->rhs->kind != EX_NUMBER || e->rhs->num < 0 || e->rhs->num > 62) {
				if (r->report_types)
					diag_error(&e->rhs->loc, "the bit-shift of @variance must be a number from 0 to 62");
			} else if (e->lhs->sym) {
				shift = e->rhs->num;
				if (e->lhs->sym->var_shift && e->lhs->sym->var_shift != shift &&
				    r->report_types)
					diag_error(&e->rhs->loc, "'%s' already uses another @variance bit-shift",
						   e->lhs->sym->name);
				e->lhs->sym->var_shift = (int)shift;
			}
		}
		t = TY_LONG;
		break;
	case EX_HIST:
		infer_hist(r, e);
		if (e->lhs->sym)
			e->lhs->sym->read = true;
		t = TY_STATS;
		break;
	case EX_HIST_INDEX:
		infer_hist(r, e->lhs);
		expect(r, e->rhs, TY_LONG, "a histogram bucket number");
		t = TY_LONG;
		break;
	case EX_UNARY:
		expect(r, e->lhs, TY_LONG, xasprintf("the operand of '%s'", op_text(e->op)));
		t = TY_LONG;
		break;
	case EX_BINARY:
		expect(r, e->lhs, TY_LONG, xasprintf("the left operand of '%s'", op_text(e->op)));
		expect(r, e->rhs, TY_LONG, xasprintf("the right operand of '%s'", op_text(e->op)));
		t = TY_LONG;
		break;
	case EX_LOGICAL:
		expect(r, e->lhs, TY_LONG, xasprintf("the left operand of '%s'", op_text(e->op)));
		expect(r, e->rhs, TY_LONG, xasprintf("the right operand of '%s'", op_text(e->op)));
		t = TY_LONG;
		break;
	case EX_COMPARE:
		t = infer_compare(r, e);
		break;
	case EX_REGEX:
		expect(r, e->lhs, TY_STRING, xasprintf("the left operand of '%s'", op_text(e->op)));
		if (e->rhs->kind != EX_STRING && r->report_types)
			diag_error(&e->rhs->loc, "the regular expression of '%s' must be a string literal",
				   op_text(e->op));
		t = TY_LONG;
		break;
	case EX_CONCAT:
		expect(r, e->lhs, TY_STRING, "the left operand of '.'");
		expect(r, e->rhs, TY_STRING, "the right operand of '.'");
		t = TY_STRING;
		break;
	case EX_TERNARY: {
		enum type lt, rt;

		expect(r, e->cond, TY_LONG, "the condition of '?:'");
		lt = infer_expr(r, e->lhs, want);
		rt = infer_expr(r, e->rhs, lt != TY_UNKNOWN ? lt : want);
		if (lt == TY_UNKNOWN && rt != TY_UNKNOWN)
			lt = infer_expr(r, e->lhs, rt);
		if (lt != TY_UNKNOWN && rt != TY_UNKNOWN && lt != rt && r->report_types)
			diag_error(&e->loc, "the two branches of '?:' are a %s and a %s",
				   type_name(lt), type_name(rt));
		t = lt != TY_UNKNOWN ? lt : rt;
		break;
	}
	case EX_ASSIGN:
		t = infer_assign(r, e);
		break;
	case EX_INCDEC:
		if (e->lhs->kind == EX_INDEX) {
			infer_keys(r, e->lhs);
			if (e->lhs->sym)
				e->lhs->sym->written = e->lhs->sym->read = true;
			symbol_type(r, e->lhs, TY_LONG);
		} else if (e->lhs->kind != EX_VAR) {
			if (r->report_types)
				diag_error(&e->loc, "'%s' needs a variable", op_text(e->op));
		} else {
			check_scalar_use(r, e->lhs);
			if (e->lhs->sym)
				e->lhs->sym->written = e->lhs->sym->read = true;
			symbol_type(r, e->lhs, TY_LONG);
		}
		t = TY_LONG;
		break;
	case EX_CALL:
		t = infer_call(r, e, want);
		break;
	case EX_TARGET:
	case EX_CAST:
	case EX_AT_VAR:
	case EX_MEMBER:
		t = infer_target(r, e);
		break;
	case EX_TARGET_SPECIAL:	/* $$vars and friends: "name=value ..." */
		t = TY_STRING;
		break;
	case EX_ENTRY:
		t = infer_expr(r, e->lhs, want);
		break;
	case EX_DEFINED:
		infer_expr(r, e->lhs, TY_UNKNOWN);
		t = TY_LONG;
		break;
	default:
		break;
	}
	e->type = t;
	return t;
}

static void infer_stmt(struct resolver *r, struct stmt *s, struct function *fn);

/* a statement that only computes a value: sprintf(...), strlen(s) */
static void warn_unused_result(const struct stmt *s)
{
	const struct expr *e = s->expr;

	if (e->kind != EX_CALL || !s->loc.src || s->loc.src->is_tapset)
		return;
	if (builtin_returns_string(e->builtin) || (e->fn && e->fn->embedded && e->fn->pure &&
			     e->fn->ret_type != TY_VOID))
		diag_warning(&e->loc, "the result of %s() is not used", e->str);
}

static void infer_return(struct resolver *r, struct stmt *s, struct function *fn)
{
	enum type t;
	char *what;

	if (!fn)
		return;
	if (!s->expr) {
		if (fn->ret_type != TY_UNKNOWN && fn->ret_type != TY_VOID &&
		    r->report_types)
			diag_error(&s->loc, "function '%s' returns a %s: 'return' needs a value",
				   fn->name, type_name(fn->ret_type));
		return;
	}
	fn->returns_value = true;
	t = infer_expr(r, s->expr, fn->ret_type);
	what = xasprintf("the result of function '%s'", fn->name);
	types_unify(r, &fn->ret_type, NULL, t, &s->expr->loc, what);
}

/* foreach: loop variables take the array's key types, the value its type */
static void infer_foreach(struct resolver *r, struct foreach_info *fe)
{
	struct symbol *a = fe->array->sym;
	int i;

	if (fe->array->kind == EX_HIST) {
		infer_expr(r, fe->array, TY_UNKNOWN);
		for (i = 0; i < fe->nkeys; i++)
			if (fe->keys[i]->sym) {
				fe->keys[i]->sym->written = true;
				types_unify(r, &fe->keys[i]->sym->type, &fe->keys[i]->sym->type_loc,
					    TY_LONG, &fe->keys[i]->loc, "a histogram bucket number");
			}
		if (fe->limit)
			expect(r, fe->limit, TY_LONG, "the limit of foreach");
		return;
	}
	if (!a)
		return;
	a->read = true;
	if (fe->array->kind == EX_INDEX)
		infer_keys(r, fe->array);
	for (i = 0; i < fe->nkeys && i < a->nkeys; i++) {
		struct symbol *k = fe->keys[i]->sym;
		char *what = xasprintf("key %d of array '%s'", i + 1, a->name);

		if (!k)
			continue;
		k->written = true;
		types_unify(r, &a->key_types[i], NULL, k->type, &fe->keys[i]->loc, what);
		types_unify(r, &k->type, &k->type_loc, a->key_types[i], &fe->keys[i]->loc,
			    xasprintf("loop variable '%s'", k->name));
	}
	if (fe->value && fe->value->sym) {
		struct symbol *v = fe->value->sym;

		v->written = true;
		if (a->type == TY_STATS) {
			if (r->report_types)
				diag_error(&fe->value->loc, "the values of '%s' are statistics: use @count(%s[...]) and friends in the loop",
					   a->name, a->name);
		} else {
			types_unify(r, &v->type, &v->type_loc, a->type, &fe->value->loc,
				    xasprintf("'%s'", v->name));
			types_unify(r, &a->type, &a->type_loc, v->type, &fe->value->loc,
				    xasprintf("'%s'", a->name));
		}
	}
	if (fe->sort_stat && a->type != TY_STATS && a->type != TY_UNKNOWN && r->report_types)
		diag_error(&fe->array->loc, "sorting on @%s needs an array of statistics",
			   fe->sort_stat);
	if (fe->limit)
		expect(r, fe->limit, TY_LONG, "the limit of foreach");
}

static void infer_cond(struct resolver *r, struct expr *e)
{
	if (e)
		expect(r, e, TY_LONG, "a condition");
}

static void infer_stmt(struct resolver *r, struct stmt *s, struct function *fn)
{
	int i;

	if (!s)
		return;
	switch (s->kind) {
	case ST_BLOCK:
		for (i = 0; i < s->nbody; i++)
			infer_stmt(r, s->body[i], fn);
		break;
	case ST_EXPR:
		infer_expr(r, s->expr, TY_UNKNOWN);
		if (r->report_types)
			warn_unused_result(s);
		break;
	case ST_IF:
	case ST_WHILE:
		infer_cond(r, s->expr);
		infer_stmt(r, s->then, fn);
		infer_stmt(r, s->els, fn);
		break;
	case ST_FOR:
		infer_stmt(r, s->init, fn);
		infer_cond(r, s->expr);
		if (s->step)
			infer_expr(r, s->step, TY_UNKNOWN);
		infer_stmt(r, s->then, fn);
		break;
	case ST_RETURN:
		infer_return(r, s, fn);
		break;
	case ST_FOREACH:
		infer_foreach(r, s->fe);
		infer_stmt(r, s->then, fn);
		break;
	case ST_TRY:
		infer_stmt(r, s->then, fn);
		if (s->catch_var && s->catch_var->sym) {
			s->catch_var->sym->written = true;
			types_unify(r, &s->catch_var->sym->type, &s->catch_var->sym->type_loc,
				    TY_STRING, &s->catch_var->loc,
				    xasprintf("'%s'", s->catch_var->sym->name));
		}
		infer_stmt(r, s->catch_body, fn);
		break;
	case ST_DELETE:
		if (s->expr->kind == EX_INDEX)
			infer_keys(r, s->expr);
		if (s->expr->sym)
			s->expr->sym->written = true;
		break;
	default:
		break;
	}
}

static void infer_round(struct resolver *r)
{
	struct program *prog = r->prog;
	int i;

	for (i = 0; i < prog->nprobes; i++) {
		struct concrete_point *cp;

		for (cp = prog->probes[i]->points; cp; cp = cp->next)
			infer_cond(r, cp->cond);
		infer_stmt(r, prog->probes[i]->body, NULL);
	}
	for (i = 0; i < prog->nfunctions; i++)
		infer_stmt(r, prog->functions[i]->body, prog->functions[i]);
}

static void report_untyped(struct symbol **syms, int n, const char *where)
{
	int i;

	for (i = 0; i < n; i++)
		if (syms[i]->type == TY_UNKNOWN)
			diag_error(&syms[i]->loc, "cannot tell the type of %s '%s' (it is never given a value that has one)",
				   where, syms[i]->name);
}

static void report_unknowns(struct resolver *r)
{
	struct program *prog = r->prog;
	int i;

	for (i = 0; i < prog->nprobes; i++)
		report_untyped(prog->probes[i]->locals, prog->probes[i]->nlocals,
			       "variable");
	for (i = 0; i < prog->nfunctions; i++) {
		struct function *fn = prog->functions[i];

		report_untyped(fn->locals, fn->nlocals, "variable");
		if (fn->ret_type == TY_UNKNOWN && fn->returns_value)
			diag_error(&fn->loc, "cannot tell the type of what function '%s' returns: declare it, e.g. 'function %s:long (...)'",
				   fn->name, fn->name);
		if (fn->ret_type == TY_UNKNOWN)
			fn->ret_type = TY_VOID;
	}
	for (i = 0; i < prog->nglobals; i++) {
		struct symbol *g = prog->globals[i];

		if (g->type == TY_UNKNOWN && (g->read || g->written))
			report_untyped(&g, 1, "global");
		if (g->type == TY_UNKNOWN)	/* unused: any type will do */
			g->type = TY_LONG;
	}
}

static void apply_declared_types(struct resolver *r)
{
	int i;

	for (i = 0; i < r->prog->nfunctions; i++) {
		struct function *fn = r->prog->functions[i];

		if (fn->ret_declared)
			continue;
		/* an embedded-C function without a declared type returns nothing */
		if (fn->embedded)
			fn->ret_type = TY_VOID;
	}
}

/* ---- warnings about the user's own variables ---- */

static bool in_user_script(const struct symbol *s)
{
	return s->loc.src && !s->loc.src->is_tapset;
}

/* a local read but never set is often a misspelled global */
static void suggest_global(struct resolver *r, const struct symbol *s)
{
	const char **names;
	const char *best;
	int i;

	if (diag_no_warnings && !diag_warnings_are_errors)
		return;
	names = xalloc((r->prog->nglobals + 1) * sizeof(*names));
	for (i = 0; i < r->prog->nglobals; i++)
		names[i] = r->prog->globals[i]->name;
	best = diag_closest(s->name, names, r->prog->nglobals);
	if (best)
		diag_note(&s->loc, "did you mean the global '%s'?", best);
	xfree(names);
}

static void warn_locals(struct resolver *r, struct symbol **syms, int n,
			const struct resolved_probe *rp)
{
	int i;

	for (i = 0; i < n; i++) {
		const struct symbol *s = syms[i];

		if (s->kind != SYM_LOCAL || !in_user_script(s))
			continue;
		if (s->read && !s->written) {
			diag_warning(&s->loc, "variable '%s' is read but never given a value", s->name);
			if (rp)
				alias_vars_note(rp, s);
			suggest_global(r, s);
		} else if (s->written && !s->read)
			diag_warning(&s->loc, "variable '%s' is given a value that is never read", s->name);
	}
}

static void warn_unused(struct resolver *r)
{
	struct program *prog = r->prog;
	int i;

	for (i = 0; i < prog->nprobes; i++)
		warn_locals(r, prog->probes[i]->locals, prog->probes[i]->nlocals, prog->probes[i]);
	for (i = 0; i < prog->nfunctions; i++)
		warn_locals(r, prog->functions[i]->locals, prog->functions[i]->nlocals, NULL);
	for (i = 0; i < prog->nglobals; i++) {
		const struct symbol *g = prog->globals[i];

		if (!in_user_script(g))
			continue;
		if (g->read && !g->written && !g->global->init)
			diag_warning(&g->loc, "global '%s' is read but nothing gives it a value", g->name);
		else if (!g->read && !g->written)
			diag_warning(&g->loc, "global '%s' is never used", g->name);
	}
}

void types_infer(struct resolver *r)
{
	int rounds = 0;

	apply_declared_types(r);
	do {
		r->types_changed = false;
		infer_round(r);
	} while (r->types_changed && ++rounds < 100);
	r->report_types = true;
	infer_round(r);
	report_unknowns(r);
	warn_unused(r);
}

/* ---- which globals each handler touches ---- */

struct global_use {
	bool *read, *written, *added;
};

static void use_global(struct global_use *u, struct symbol *s, bool write)
{
	if (!s || s->kind != SYM_GLOBAL)
		return;
	if (write)
		u->written[s->index] = true;
	else
		u->read[s->index] = true;
}

/* s <<< v, a[k] <<< v: adds to this CPU's part of the statistic only */
static void use_global_add(struct global_use *u, struct symbol *s)
{
	if (s && s->kind == SYM_GLOBAL)
		u->added[s->index] = true;
}

static void uses_in_expr(struct program *prog, struct expr *e,
			 struct global_use *u, struct global_use *fn_uses);

static void uses_in_stmt(struct program *prog, struct stmt *s,
			 struct global_use *u, struct global_use *fn_uses)
{
	int i;

	if (!s)
		return;
	for (i = 0; i < s->nbody; i++)
		uses_in_stmt(prog, s->body[i], u, fn_uses);
	if (s->kind == ST_DELETE && s->expr)
		use_global(u, s->expr->sym, true);
	if (s->kind == ST_FOREACH) {
		/* iterating sorts into the array's own storage */
		use_global(u, s->fe->array->kind == EX_HIST ? s->fe->array->lhs->sym
							       : s->fe->array->sym, true);
		uses_in_expr(prog, s->fe->array, u, fn_uses);
		uses_in_expr(prog, s->fe->limit, u, fn_uses);
	}
	uses_in_stmt(prog, s->init, u, fn_uses);
	uses_in_expr(prog, s->expr, u, fn_uses);
	uses_in_expr(prog, s->step, u, fn_uses);
	uses_in_stmt(prog, s->then, u, fn_uses);
	uses_in_stmt(prog, s->els, u, fn_uses);
	uses_in_stmt(prog, s->catch_body, u, fn_uses);
}

static int function_index(struct program *prog, struct function *fn)
{
	int i;

	for (i = 0; i < prog->nfunctions; i++)
		if (prog->functions[i] == fn)
			return i;
	return -1;
}

/* the globals the operands of e use, not e itself */
static void uses_in_operands(struct program *prog, struct expr *e,
			     struct global_use *u, struct global_use *fn_uses)
{
	int i;

	uses_in_expr(prog, e->lhs, u, fn_uses);
	uses_in_expr(prog, e->rhs, u, fn_uses);
	uses_in_expr(prog, e->cond, u, fn_uses);
	for (i = 0; i < e->nargs; i++)
		uses_in_expr(prog, e->args[i], u, fn_uses);
}

static void uses_in_expr(struct program *prog, struct expr *e,
			 struct global_use *u, struct global_use *fn_uses)
{
	int i;

	if (!e)
		return;
	/* print(a) walks the whole array: as foreach, exclusive */
	if (e->kind == EX_CALL && builtin_prints_whole_global(e))
		use_global(u, e->args[0]->sym, true);
	/* <<< only adds to this CPU's part: the array itself is not read,
	 * only its keys and the value are evaluated */
	if (e->kind == EX_STAT_ADD && e->lhs) {
		use_global_add(u, e->lhs->sym);
		uses_in_operands(prog, e->lhs, u, fn_uses);
		uses_in_expr(prog, e->rhs, u, fn_uses);
		return;
	}
	if (e->kind == EX_VAR || e->kind == EX_INDEX || e->kind == EX_IN)
		use_global(u, e->sym, false);
	if ((e->kind == EX_ASSIGN || e->kind == EX_INCDEC) && e->lhs)
		use_global(u, e->lhs->sym, true);
	/* reading an aggregate merges every CPU's part: exclusive */
	if ((e->kind == EX_STAT_OP || e->kind == EX_HIST) && e->lhs)
		use_global(u, e->lhs->sym, true);
	if (e->kind == EX_CALL && e->fn) {
		int fi = function_index(prog, e->fn);

		for (i = 0; fi >= 0 && i < prog->nglobals; i++) {
			u->read[i] |= fn_uses[fi].read[i];
			u->written[i] |= fn_uses[fi].written[i];
			u->added[i] |= fn_uses[fi].added[i];
		}
	}
	uses_in_operands(prog, e, u, fn_uses);
}

static struct global_use new_use(int n)
{
	struct global_use u;

	u.read = xalloc((n + 1) * sizeof(bool));
	u.written = xalloc((n + 1) * sizeof(bool));
	u.added = xalloc((n + 1) * sizeof(bool));
	return u;
}

static int count_uses(const struct global_use *u, int n)
{
	int i, c = 0;

	for (i = 0; i < n; i++)
		c += u->read[i] + u->written[i] + u->added[i];
	return c;
}

/* a statistic that is only added to needs its own CPU's part; any other
 * use (an extractor, foreach, delete, 'in') locks it whole */
static enum global_lock lock_mode_of(const struct global_use *u, int g)
{
	if (u->written[g])
		return GLOBAL_LOCK_WRITE;
	return u->read[g] ? GLOBAL_LOCK_READ : GLOBAL_LOCK_ADD;
}

void globals_collect(struct resolver *r)
{
	struct program *prog = r->prog;
	int ng = prog->nglobals, nf = prog->nfunctions;
	struct global_use *fn_uses = xalloc((nf + 1) * sizeof(*fn_uses));
	int i, j, before, after;

	for (i = 0; i < nf; i++)
		fn_uses[i] = new_use(ng);
	/* functions call each other: repeat until nothing new is learnt */
	do {
		before = after = 0;
		for (i = 0; i < nf; i++) {
			before += count_uses(&fn_uses[i], ng);
			uses_in_stmt(prog, prog->functions[i]->body, &fn_uses[i], fn_uses);
			after += count_uses(&fn_uses[i], ng);
		}
	} while (after != before);

	for (i = 0; i < prog->nprobes; i++) {
		struct resolved_probe *rp = prog->probes[i];
		struct global_use u = new_use(ng);
		struct concrete_point *cp;

		uses_in_stmt(prog, rp->body, &u, fn_uses);
		for (cp = rp->points; cp; cp = cp->next)
			uses_in_expr(prog, cp->cond, &u, fn_uses);
		rp->globals_used = xalloc((ng + 1) * sizeof(*rp->globals_used));
		rp->global_lock = xalloc((ng + 1) * sizeof(*rp->global_lock));
		for (j = 0; j < ng; j++) {
			if (!u.read[j] && !u.written[j] && !u.added[j])
				continue;
			rp->globals_used[rp->nglobals_used] = prog->globals[j];
			rp->global_lock[rp->nglobals_used++] = lock_mode_of(&u, j);
		}
	}
}
