/* parser.c - the script grammar into the tree of ast.h (pass 1).
 *
 * A recursive-descent parser over the preprocessed token array. Each
 * function is named after the rule it parses, with the rule above it.
 *
 * Errors: syntax_error() reports at a token and longjmps to the nearest
 * recovery point. Statements recover by skipping to ';', '}' or the next
 * line; top-level declarations by skipping to the next 'probe',
 * 'global', 'function' or embedded block. Every recovery consumes at
 * least one token, so garbage always terminates.
 */
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "lexer.h"

#define MAX_SYNTAX_ERRORS 100
/* Deeper trees would overflow the stack, here and in every later pass
 * that walks them recursively. */
#define MAX_NESTING 1000	/* parentheses, blocks, prefix operators ... */
#define MAX_OPERATORS 10000	/* binary operators in one statement */

struct parser {
	struct token *tok;	/* current token */
	struct token *first;	/* the whole array */
	struct token *eof;
	struct file *file;
	jmp_buf *recover;	/* where syntax_error() goes */
	struct token *err_tok;	/* where the last syntax error was */
	int errors;
	int depth;		/* open expressions and statements: nest() */
	int noperators;		/* binary operators in this statement */
	/* list tails, to keep declarations in source order */
	struct global_decl **globals;
	struct function **functions;
	struct probe **probes;
	struct alias **aliases;
	struct embedded_block **embedded;
};

/* ==== tokens ==== */

static bool at(struct parser *p, int kind)
{
	return p->tok->kind == kind;
}

static bool is_kw(const struct token *t, const char *kw)
{
	return t->kind == TK_IDENT && strcmp(t->text, kw) == 0;
}

static bool at_kw(struct parser *p, const char *kw)
{
	return is_kw(p->tok, kw);
}

static struct token *peek(struct parser *p, int n)
{
	struct token *t = p->tok;
	while (n-- > 0 && t->kind != TK_EOF)
		t++;
	return t;
}

static struct token *advance(struct parser *p)
{
	struct token *t = p->tok;
	if (t->kind != TK_EOF)
		p->tok++;
	return t;
}

static bool accept(struct parser *p, int kind)
{
	if (!at(p, kind))
		return false;
	advance(p);
	return true;
}

static bool accept_kw(struct parser *p, const char *kw)
{
	if (!at_kw(p, kw))
		return false;
	advance(p);
	return true;
}

/* How a token reads in a message: 'foo', string "x", number 5. */
static const char *describe(const struct token *t)
{
	switch (t->kind) {
	case TK_IDENT:
		return xasprintf(is_keyword(t->text) ? "keyword '%s'" : "'%s'",
				 t->text);
	case TK_TARGET:
		return xasprintf("'%s'", t->text);
	case TK_AT:
		return xasprintf("'@%s'", t->text);
	case TK_NUMBER:
		return xasprintf("number %lld", (long long)t->num);
	case TK_STRING:
		return xasprintf("string \"%.20s%s\"", t->text,
				 strlen(t->text) > 20 ? "..." : "");
	}
	return token_name(t->kind);
}

static _Noreturn void syntax_error_at(struct parser *p, struct token *t,
				      const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static _Noreturn void syntax_error_at(struct parser *p, struct token *t,
				      const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	diag_error(&t->loc, "%s", msg);
	p->err_tok = t;
	if (++p->errors >= MAX_SYNTAX_ERRORS) {
		if (p->errors == MAX_SYNTAX_ERRORS)
			diag_note(&t->loc, "too many errors, giving up");
		p->tok = p->eof;
	}
	longjmp(*p->recover, 1);
}

/* "expected X, not Y" at the current token. */
static _Noreturn void expected(struct parser *p, const char *what)
{
	syntax_error_at(p, p->tok, "expected %s, not %s", what,
			describe(p->tok));
}

static struct token *expect(struct parser *p, int kind, const char *where)
{
	if (!at(p, kind))
		syntax_error_at(p, p->tok, "expected %s %s, not %s",
				token_name(kind), where, describe(p->tok));
	return advance(p);
}

/* name = identifier that is not a keyword */
static struct token *expect_name(struct parser *p, const char *what)
{
	if (!at(p, TK_IDENT) || is_keyword(p->tok->text))
		expected(p, what);
	return advance(p);
}

static bool at_toplevel_keyword(struct parser *p)
{
	return at_kw(p, "probe") || at_kw(p, "global") ||
	       at_kw(p, "function") || at_kw(p, "private");
}

static bool starts_line(struct parser *p, const struct token *t)
{
	return t == p->first || t[-1].loc.line != t->loc.line ||
	       t[-1].loc.src != t->loc.src;
}

/* Embedded C is for tapsets and guru mode (-g) only. */
static void check_guru(struct parser *p, const struct token *t)
{
	if (!p->file->src->is_tapset && !lexer_env()->guru) {
		diag_error(&t->loc, "embedded C code needs guru mode (-g)");
		p->errors++;
	}
}

/* Count one more level of nesting; refuse more than MAX_NESTING.
 * unnest() when the rule is done (an error resets the count). */
static void nest(struct parser *p)
{
	if (++p->depth > MAX_NESTING)
		syntax_error_at(p, p->tok, "nested more than %d deep",
				MAX_NESTING);
}

static void unnest(struct parser *p)
{
	p->depth--;
}

/* a binary operator makes the tree one deeper on its left */
static void count_operator(struct parser *p, struct token *op)
{
	if (++p->noperators > MAX_OPERATORS)
		syntax_error_at(p, op, "more than %d operators in one statement",
				MAX_OPERATORS);
}

/* ==== nodes ==== */

static struct expr *new_expr(enum expr_kind kind, const struct token *t)
{
	struct expr *e = xalloc(sizeof *e);
	e->kind = kind;
	e->loc = t->loc;
	e->temp = -1;
	return e;
}

/* The operator a binary or assignment token stands for. */
static enum op binary_op(int kind)
{
	switch (kind) {
	case '+': return OP_ADD;
	case '-': return OP_SUB;
	case '*': return OP_MUL;
	case '/': return OP_DIV;
	case '%': return OP_MOD;
	case TK_SHL: return OP_SHL;
	case TK_SHR: return OP_SHR;
	case '&': return OP_BITAND;
	case '|': return OP_BITOR;
	case '^': return OP_BITXOR;
	case '<': return OP_LT;
	case TK_LE: return OP_LE;
	case '>': return OP_GT;
	case TK_GE: return OP_GE;
	case TK_EQ: return OP_EQ;
	case TK_NE: return OP_NE;
	case TK_AND: return OP_AND;
	case TK_OR: return OP_OR;
	case '.': return OP_CONCAT;
	case TK_MATCH: return OP_MATCH;
	case TK_NOMATCH: return OP_NOMATCH;
	case '=': return OP_ASSIGN;
	case TK_ADD_ASSIGN: return OP_ADD_ASSIGN;
	case TK_SUB_ASSIGN: return OP_SUB_ASSIGN;
	case TK_MUL_ASSIGN: return OP_MUL_ASSIGN;
	case TK_DIV_ASSIGN: return OP_DIV_ASSIGN;
	case TK_MOD_ASSIGN: return OP_MOD_ASSIGN;
	case TK_SHL_ASSIGN: return OP_SHL_ASSIGN;
	case TK_SHR_ASSIGN: return OP_SHR_ASSIGN;
	case TK_AND_ASSIGN: return OP_AND_ASSIGN;
	case TK_OR_ASSIGN: return OP_OR_ASSIGN;
	case TK_XOR_ASSIGN: return OP_XOR_ASSIGN;
	case TK_CAT_ASSIGN: return OP_CONCAT_ASSIGN;
	case TK_STAT_ADD: return OP_STAT_ADD;
	case TK_INC: return OP_INC;
	case TK_DEC: return OP_DEC;
	}
	return OP_NONE;
}

/* The operator a prefix token stands for: - + ! ~ & */
static enum op unary_op(int kind)
{
	switch (kind) {
	case '-': return OP_NEG;
	case '+': return OP_PLUS;
	case '!': return OP_NOT;
	case '~': return OP_BITNOT;
	case '&': return OP_ADDRESS;
	}
	return binary_op(kind);
}

static struct expr *new_binary(enum expr_kind kind, const struct token *op,
			       struct expr *lhs, struct expr *rhs)
{
	struct expr *e = new_expr(kind, op);
	e->op = binary_op(op->kind);
	e->lhs = lhs;
	e->rhs = rhs;
	return e;
}

static struct stmt *new_stmt(enum stmt_kind kind, const struct token *t)
{
	struct stmt *s = xalloc(sizeof *s);
	s->kind = kind;
	s->loc = t->loc;
	return s;
}

/* A growable array of pointers. */
struct vec {
	void **items;
	int n, cap;
};

static void vec_push(struct vec *v, void *item)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 4;
		v->items = xrealloc(v->items, sizeof(void *) * (size_t)v->cap);
	}
	v->items[v->n++] = item;
}

/* ==== expressions ==== */

static struct expr *expr(struct parser *p);
static struct expr *ternary(struct parser *p);
static struct expr *unary(struct parser *p);

static bool is_assign_op(int kind)
{
	switch (kind) {
	case '=': case TK_ADD_ASSIGN: case TK_SUB_ASSIGN: case TK_MUL_ASSIGN:
	case TK_DIV_ASSIGN: case TK_MOD_ASSIGN: case TK_SHL_ASSIGN:
	case TK_SHR_ASSIGN: case TK_AND_ASSIGN: case TK_XOR_ASSIGN:
	case TK_OR_ASSIGN: case TK_CAT_ASSIGN: case TK_STAT_ADD:
		return true;
	}
	return false;
}

/* assignment = ternary [assign_op assignment]   (assign_op includes <<<) */
static struct expr *assignment(struct parser *p)
{
	struct expr *lhs = ternary(p);
	if (!is_assign_op(p->tok->kind))
		return lhs;
	struct token *op = advance(p);
	nest(p);
	struct expr *rhs = assignment(p);
	unnest(p);
	return new_binary(op->kind == TK_STAT_ADD ? EX_STAT_ADD : EX_ASSIGN,
			  op, lhs, rhs);
}

/* expr = assignment */
static struct expr *expr(struct parser *p)
{
	nest(p);
	struct expr *e = assignment(p);
	unnest(p);
	return e;
}

/* index_key = '*' | expr */
static struct expr *index_key(struct parser *p)
{
	if (at(p, '*'))
		return new_expr(EX_STAR, advance(p));
	return expr(p);
}

/* index_list = index_key (',' index_key)* ']'   (after the '[') */
static void index_list(struct parser *p, struct expr *e)
{
	struct vec keys = {0};
	do {
		vec_push(&keys, index_key(p));
	} while (accept(p, ','));
	expect(p, ']', "after the index");
	e->args = (struct expr **)keys.items;
	e->nargs = keys.n;
}

/* call_args = '(' [expr (',' expr)*] ')' */
static void call_args(struct parser *p, struct expr *e)
{
	struct vec args = {0};
	expect(p, '(', "before the arguments");
	if (!at(p, ')')) {
		do {
			vec_push(&args, expr(p));
		} while (accept(p, ','));
	}
	expect(p, ')', "after the arguments");
	e->args = (struct expr **)args.items;
	e->nargs = args.n;
}

/* Split a trailing "$" or "$$" off a name: "$var$$" -> "$var", "$$". */
static const char *split_suffix(struct parser *p, struct token *t,
				const char *text, const char **name)
{
	size_t n = strlen(text), k = 0;
	while (k < n && text[n - 1 - k] == '$')
		k++;
	if (k == n)
		k = 0;
	if (k > 2)
		syntax_error_at(p, t, "'%s': at most '$$' may follow a name",
				text);
	*name = xstrndup(text, n - k);
	return k == 0 ? NULL : k == 1 ? "$" : "$$";
}

/* target_path = ('->' member | '[' expr ']')* [suffix]
 * suffix = '$' | '$$' */
static void target_path(struct parser *p, struct expr *e)
{
	struct target_step **tail = &e->path;
	while (!e->suffix && (at(p, TK_ARROW) || at(p, '['))) {
		struct token *t = advance(p);
		struct target_step *s = xalloc(sizeof *s);
		s->loc = t->loc;
		if (t->kind == '[') {
			s->kind = TS_INDEX;
			s->index = expr(p);
			expect(p, ']', "after the index");
		} else {
			s->kind = TS_MEMBER;
			if (!at(p, TK_IDENT))
				expected(p, "a member name after '->'");
			t = advance(p);
			e->suffix = split_suffix(p, t, t->text, &s->field);
		}
		*tail = s;
		tail = &s->next;
	}
	if (!e->suffix && !p->tok->space_before &&
	    (at(p, '$') || at(p, TK_DOLLAR2)))
		e->suffix = advance(p)->kind == '$' ? "$" : "$$";
}

static bool is_special_target(const char *name)
{
	static const char *const names[] = {"$$vars", "$$locals", "$$parms",
					    "$$return", "$$name", "$$provider"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

/* target = '$name' target_path | '$$vars' ['$' | '$$'] */
static struct expr *target(struct parser *p)
{
	struct token *t = advance(p);
	const char *name;
	const char *suffix = split_suffix(p, t, t->text, &name);
	if (name[1] == '$') {
		if (!is_special_target(name))
			syntax_error_at(p, t, "unknown context variable '%s' "
					"(there are $$vars, $$locals, $$parms, "
					"$$return, $$name and $$provider)", name);
		struct expr *e = new_expr(EX_TARGET_SPECIAL, t);
		e->str = name;
		e->suffix = suffix;
		return e;
	}
	struct expr *e = new_expr(EX_TARGET, t);
	e->str = name;
	e->suffix = suffix;
	target_path(p, e);
	return e;
}

static const char *expect_string(struct parser *p, const char *what)
{
	if (!at(p, TK_STRING))
		expected(p, what);
	return advance(p)->text;
}

/* cast = '@cast' '(' expr ',' string [',' string] ')' target_path */
static struct expr *cast_op(struct parser *p, struct token *t)
{
	struct expr *e = new_expr(EX_CAST, t);
	expect(p, '(', "after @cast");
	e->lhs = expr(p);
	expect(p, ',', "after the pointer in @cast");
	e->str = expect_string(p, "a type name string");
	if (accept(p, ','))
		e->module = expect_string(p, "a module name string");
	expect(p, ')', "to close @cast");
	target_path(p, e);
	return e;
}

/* at_var = '@var' '(' string [',' string] ')' target_path */
static struct expr *at_var_op(struct parser *p, struct token *t)
{
	struct expr *e = new_expr(EX_AT_VAR, t);
	expect(p, '(', "after @var");
	e->str = expect_string(p, "a variable name string");
	if (accept(p, ','))
		e->module = expect_string(p, "a module name string");
	expect(p, ')', "to close @var");
	target_path(p, e);
	return e;
}

/* stat_op = '@count' | '@sum' ... '(' expr ')' ;  '@variance' '(' expr [',' expr] ')' */
static struct expr *stat_op(struct parser *p, struct token *t)
{
	struct expr *e = new_expr(EX_STAT_OP, t);
	e->str = t->text;
	expect(p, '(', xasprintf("after @%s", t->text));
	e->lhs = expr(p);
	if (strcmp(t->text, "variance") == 0 && accept(p, ','))
		e->rhs = expr(p);
	expect(p, ')', xasprintf("to close @%s", t->text));
	return e;
}

/* hist = '@hist_log' '(' expr ')' | '@hist_linear' '(' expr ',' expr ',' expr ',' expr ')' */
static struct expr *hist_op(struct parser *p, struct token *t)
{
	struct expr *e = new_expr(EX_HIST, t);
	e->str = t->text;
	expect(p, '(', xasprintf("after @%s", t->text));
	e->lhs = expr(p);
	if (strcmp(t->text, "hist_linear") == 0) {
		e->args = xalloc(sizeof(struct expr *) * 3);
		e->nargs = 3;
		for (int i = 0; i < 3; i++) {
			expect(p, ',', "in @hist_linear(value, low, high, step)");
			e->args[i] = expr(p);
		}
	}
	expect(p, ')', xasprintf("to close @%s", t->text));
	return e;
}

/* unary_at = '@entry' '(' expr ')' | '@defined' '(' expr ')' */
static struct expr *unary_at(struct parser *p, struct token *t,
			     enum expr_kind kind)
{
	struct expr *e = new_expr(kind, t);
	expect(p, '(', xasprintf("after @%s", t->text));
	e->lhs = expr(p);
	expect(p, ')', xasprintf("to close @%s", t->text));
	return e;
}

/* const = '@const' '(' string ')' */
static struct expr *const_op(struct parser *p, struct token *t)
{
	struct expr *e = new_expr(EX_CONST, t);
	expect(p, '(', "after @const");
	e->str = expect_string(p, "a constant name string");
	expect(p, ')', "to close @const");
	return e;
}

/* probewrite = '@probewrite' '(' name ')' */
static struct expr *probewrite_op(struct parser *p, struct token *t)
{
	struct expr *e = new_expr(EX_PROBEWRITE, t);
	expect(p, '(', "after @probewrite");
	struct token *n = expect_name(p, "a variable name");
	e->lhs = new_expr(EX_VAR, n);
	e->lhs->str = n->text;
	expect(p, ')', "to close @probewrite");
	return e;
}

/* ---- @ forms SystemTap documents that ktap spells with its own ---- */

/* '@choose_defined' '(' expr ',' expr ')': the first if it is defined
 * here, else the second (tvar.c folds the @defined ternary) */
static struct expr *choose_defined_op(struct parser *p, struct token *t)
{
	struct expr *e = new_expr(EX_TERNARY, t);
	expect(p, '(', "after @choose_defined");
	e->lhs = expr(p);
	expect(p, ',', "after the first value of @choose_defined");
	e->rhs = expr(p);
	expect(p, ')', "to close @choose_defined");
	e->cond = new_expr(EX_DEFINED, t);
	e->cond->lhs = e->lhs;
	return e;
}

/* '@task' '(' expr ')' target_path: @cast(expr, "task_struct", "kernel") */
static struct expr *task_op(struct parser *p, struct token *t)
{
	struct expr *e = new_expr(EX_CAST, t);
	expect(p, '(', "after @task");
	e->lhs = expr(p);
	expect(p, ')', "to close @task");
	e->str = "task_struct";
	e->module = "kernel";
	target_path(p, e);
	return e;
}

/* '@cast_sizeof' '(' string ')' | '@cast_module_sizeof' '(' string ',' string ')':
 * the size in bytes of a type of the kernel or a module */
static struct expr *sizeof_op(struct parser *p, struct token *t, bool with_module)
{
	struct expr *e = new_expr(EX_SIZEOF, t);
	expect(p, '(', xasprintf("after @%s", t->text));
	if (with_module) {
		e->module = expect_string(p, "a module name string");
		expect(p, ',', "after the module name");
	}
	e->str = expect_string(p, "a type name string");
	expect(p, ')', xasprintf("to close @%s", t->text));
	return e;
}

/* a call of the tapset function name with the given arguments */
static struct expr *call_of(const struct token *t, const char *name, struct expr **args,
			    int nargs)
{
	struct expr *e = new_expr(EX_CALL, t);
	e->str = name;
	e->nargs = nargs;
	e->args = xalloc(sizeof(struct expr *) * (size_t)(nargs + 1));
	for (int i = 0; i < nargs; i++)
		e->args[i] = args[i];
	return e;
}

/* guru mode's raw reads, as SystemTap has them for its SDT code */
static void need_guru_for(struct parser *p, const struct token *t)
{
	if (!p->file->src->is_tapset && !lexer_env()->guru) {
		diag_error(&t->loc, "@%s needs guru mode (-g)", t->text);
		p->errors++;
	}
}

/* '@kderef' '(' size ',' expr ')': the signed integer of size 1, 2, 4 or
 * 8 bytes at a kernel address (kernel_char ... kernel_long) */
static struct expr *kderef_op(struct parser *p, struct token *t)
{
	static const char *const readers[] = { [1] = "kernel_char", [2] = "kernel_short",
					       [4] = "kernel_int", [8] = "kernel_long" };
	need_guru_for(p, t);
	expect(p, '(', "after @kderef");
	struct token *size = p->tok;
	if (!at(p, TK_NUMBER))
		expected(p, "the size in bytes (1, 2, 4 or 8)");
	advance(p);
	if (size->num != 1 && size->num != 2 && size->num != 4 && size->num != 8)
		syntax_error_at(p, size, "@kderef reads 1, 2, 4 or 8 bytes, not %lld",
				(long long)size->num);
	expect(p, ',', "after the size in @kderef");
	struct expr *addr = expr(p);
	expect(p, ')', "to close @kderef");
	return call_of(t, readers[size->num], &addr, 1);
}

/* '@perf' '(' string ')': the value of the perf counter that a
 * perf.*.counter("NAME") probe of the script makes (tapsets/perf.stp) */
static struct expr *perf_op(struct parser *p, struct token *t)
{
	expect(p, '(', "after @perf");
	struct token *n = p->tok;
	struct expr *name = new_expr(EX_STRING, n);
	name->str = expect_string(p, "the counter's name string");
	expect(p, ')', "to close @perf");
	return call_of(t, "__perf_counter_value", &name, 1);
}

/* '@kregister' '(' number ')': the probe's saved register of that DWARF
 * number (x86-64: 0 rax, 1 rdx, 2 rcx, 3 rbx, 4 rsi, 5 rdi, 6 rbp,
 * 7 rsp, 8-15 r8-r15, 16 rip) */
static struct expr *kregister_op(struct parser *p, struct token *t)
{
	static const char *const regs[] = { "rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp",
					    "rsp", "r8", "r9", "r10", "r11", "r12", "r13",
					    "r14", "r15", "rip" };
	need_guru_for(p, t);
	expect(p, '(', "after @kregister");
	struct token *n = p->tok;
	if (!at(p, TK_NUMBER))
		expected(p, "a DWARF register number");
	advance(p);
	if (n->num < 0 || n->num >= (int64_t)(sizeof regs / sizeof regs[0]))
		syntax_error_at(p, n, "@kregister wants a DWARF register number from 0 to %d, not %lld",
				(int)(sizeof regs / sizeof regs[0]) - 1, (long long)n->num);
	expect(p, ')', "to close @kregister");
	struct expr *name = new_expr(EX_STRING, n);
	name->str = regs[n->num];
	return call_of(t, "register", &name, 1);
}

static const char *const stat_ops[] = {"count", "sum", "min", "max", "avg",
				       "variance"};
static const char *const at_ops[] = {"count", "sum", "min", "max", "avg",
				     "variance", "hist_log", "hist_linear",
				     "cast", "var", "entry", "defined", "const",
				     "probewrite", "choose_defined", "task", "kderef",
				     "kregister", "cast_sizeof", "cast_module_sizeof"};

/* SystemTap's @ operators and documented macros ktap lacks: said so,
 * not answered with a did-you-mean to an unrelated one */
static bool is_stap_only_at_op(const char *name)
{
	static const char *const ops[] = {"uderef", "uregister", "usymfileline"};
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
		if (strcmp(name, ops[i]) == 0)
			return true;
	return false;
}

static bool is_stat_op(const char *name)
{
	for (size_t i = 0; i < sizeof stat_ops / sizeof stat_ops[0]; i++)
		if (strcmp(name, stat_ops[i]) == 0)
			return true;
	return false;
}

static bool is_hist_op(const char *name)
{
	return strcmp(name, "hist_log") == 0 || strcmp(name, "hist_linear") == 0;
}

/* at_op = stat_op | hist ['[' expr ']'] | cast | at_var | '@entry' ...
 *       | '@defined' ... | const | probewrite */
static struct expr *at_op(struct parser *p)
{
	struct token *t = advance(p);
	const char *n = t->text;
	if (is_stat_op(n))
		return stat_op(p, t);
	if (is_hist_op(n)) {
		struct expr *h = hist_op(p, t);
		if (!at(p, '['))
			return h;
		struct expr *e = new_expr(EX_HIST_INDEX, advance(p));
		e->lhs = h;
		e->rhs = expr(p);
		expect(p, ']', "after the histogram bucket");
		return e;
	}
	if (strcmp(n, "cast") == 0)
		return cast_op(p, t);
	if (strcmp(n, "var") == 0)
		return at_var_op(p, t);
	if (strcmp(n, "entry") == 0)
		return unary_at(p, t, EX_ENTRY);
	if (strcmp(n, "defined") == 0)
		return unary_at(p, t, EX_DEFINED);
	if (strcmp(n, "const") == 0)
		return const_op(p, t);
	if (strcmp(n, "probewrite") == 0)
		return probewrite_op(p, t);
	if (strcmp(n, "choose_defined") == 0)
		return choose_defined_op(p, t);
	if (strcmp(n, "task") == 0)
		return task_op(p, t);
	if (strcmp(n, "kderef") == 0)
		return kderef_op(p, t);
	if (strcmp(n, "cast_sizeof") == 0 || strcmp(n, "cast_module_sizeof") == 0)
		return sizeof_op(p, t, n[5] == 'm');
	if (strcmp(n, "kregister") == 0)
		return kregister_op(p, t);
	if (strcmp(n, "perf") == 0)
		return perf_op(p, t);
	if (is_stap_only_at_op(n))
		syntax_error_at(p, t, "'@%s' is not supported by ktap", n);
	const char *near = diag_closest(n, at_ops,
					(int)(sizeof at_ops / sizeof at_ops[0]));
	if (near)
		syntax_error_at(p, t, "unknown operator or macro '@%s'; did you "
				"mean '@%s'?", n, near);
	syntax_error_at(p, t, "unknown operator or macro '@%s'", n);
}

/* name_expr = name '(' args ')' | name '[' index_list | name */
static struct expr *name_expr(struct parser *p)
{
	if (is_keyword(p->tok->text))
		expected(p, "an expression");
	struct token *t = advance(p);
	struct expr *e;
	if (at(p, '(')) {
		e = new_expr(EX_CALL, t);
		call_args(p, e);
	} else if (accept(p, '[')) {
		e = new_expr(EX_INDEX, t);
		index_list(p, e);
	} else {
		e = new_expr(EX_VAR, t);
	}
	e->str = t->text;
	return e;
}

/* script_arg = '$N' | '@N' | '$#' | '@#'   (left by the lexer with keep_args) */
static struct expr *script_arg(struct parser *p)
{
	struct token *t = advance(p);
	bool argc = t->kind == TK_ARGC || t->kind == TK_ARGC_STR;
	struct expr *e = new_expr(argc ? EX_ARGC : EX_SCRIPT_ARG, t);
	e->num = t->num;
	if (t->kind == TK_ARG_STR || t->kind == TK_ARGC_STR)
		e->str = "@";
	return e;
}

/* primary = number | string | '(' expr ')' | embedded | name_expr
 *         | target | at_op | script_arg */
static struct expr *primary(struct parser *p)
{
	struct token *t = p->tok;
	struct expr *e;
	switch (t->kind) {
	case TK_NUMBER:
		e = new_expr(EX_NUMBER, advance(p));
		e->num = t->num;
		return e;
	case TK_STRING:
		e = new_expr(EX_STRING, advance(p));
		e->str = t->text;
		return e;
	case '(':
		advance(p);
		e = expr(p);
		expect(p, ')', "to close the parenthesis");
		return e;
	case TK_EMBEDDED:
		check_guru(p, t);
		e = new_expr(EX_EMBEDDED, advance(p));
		e->str = t->text;
		return e;
	case TK_IDENT:
		return name_expr(p);
	case TK_TARGET:
		return target(p);
	case TK_AT:
		return at_op(p);
	case TK_ARG: case TK_ARG_STR: case TK_ARGC: case TK_ARGC_STR:
		return script_arg(p);
	}
	expected(p, "an expression");
}

static bool has_own_path(const struct expr *e)
{
	return e->kind == EX_TARGET || e->kind == EX_CAST ||
	       e->kind == EX_AT_VAR || e->kind == EX_MEMBER;
}

/* member = primary target_path   (on a pointer kept in a variable, a call
 * result, ...: '->' starts the path, or '[' after a parenthesis) */
static struct expr *member(struct parser *p)
{
	struct token *t = p->tok;
	bool paren = at(p, '(');
	struct expr *e = primary(p);
	if (has_own_path(e) || e->kind == EX_TARGET_SPECIAL ||
	    !(at(p, TK_ARROW) || (paren && at(p, '['))))
		return e;
	struct expr *m = new_expr(EX_MEMBER, t);
	m->lhs = e;
	target_path(p, m);
	return m;
}

/* postfix = member ['++' | '--'] */
static struct expr *postfix(struct parser *p)
{
	struct expr *e = member(p);
	if (!at(p, TK_INC) && !at(p, TK_DEC))
		return e;
	struct expr *inc = new_expr(EX_INCDEC, advance(p));
	inc->op = binary_op(p->tok[-1].kind);
	inc->postfix = true;
	inc->lhs = e;
	return inc;
}


/* unary = ('-' | '+' | '!' | '~' | '&') unary | ('++' | '--') unary | postfix
 * A minus in front of a number literal folds into it. What '&' may take
 * the address of ($target, @cast, ->member, through ?:) is for resolve. */
static struct expr *unary(struct parser *p)
{
	struct token *t = p->tok;
	switch (t->kind) {
	case '-': case '+': case '!': case '~': case '&': {
		advance(p);
		nest(p);
		struct expr *operand = unary(p);
		unnest(p);
		if (t->kind == '-' && operand->kind == EX_NUMBER) {
			operand->num = (int64_t)(0 - (uint64_t)operand->num);
			operand->loc = t->loc;
			return operand;
		}
		struct expr *e = new_expr(EX_UNARY, t);
		e->op = unary_op(t->kind);
		e->lhs = operand;
		return e;
	}
	case TK_INC: case TK_DEC: {
		advance(p);
		struct expr *e = new_expr(EX_INCDEC, t);
		e->op = binary_op(t->kind);
		nest(p);
		e->lhs = unary(p);
		unnest(p);
		return e;
	}
	}
	return postfix(p);
}

/* One level of left-associative binary operators. */
struct binop_level {
	const int *ops;		/* 0-terminated */
	enum expr_kind kind;
	struct expr *(*next)(struct parser *p);
};

static bool in_ops(const int *ops, int kind)
{
	for (; *ops; ops++)
		if (*ops == kind)
			return true;
	return false;
}

static struct expr *binop(struct parser *p, const struct binop_level *l)
{
	struct expr *e = l->next(p);
	while (in_ops(l->ops, p->tok->kind)) {
		struct token *op = advance(p);
		count_operator(p, op);
		e = new_binary(l->kind, op, e, l->next(p));
	}
	return e;
}

/* multiplicative = unary (('*' | '/' | '%') unary)* */
static struct expr *multiplicative(struct parser *p)
{
	static const int ops[] = {'*', '/', '%', 0};
	static const struct binop_level l = {ops, EX_BINARY, unary};
	return binop(p, &l);
}

/* additive = multiplicative (('+' | '-') multiplicative)* */
static struct expr *additive(struct parser *p)
{
	static const int ops[] = {'+', '-', 0};
	static const struct binop_level l = {ops, EX_BINARY, multiplicative};
	return binop(p, &l);
}

/* concatenation = additive ('.' additive)* */
static struct expr *concatenation(struct parser *p)
{
	static const int ops[] = {'.', 0};
	static const struct binop_level l = {ops, EX_CONCAT, additive};
	return binop(p, &l);
}

/* shift = concatenation (('<<' | '>>') concatenation)* */
static struct expr *shift(struct parser *p)
{
	static const int ops[] = {TK_SHL, TK_SHR, 0};
	static const struct binop_level l = {ops, EX_BINARY, concatenation};
	return binop(p, &l);
}

static bool is_comparison_op(int kind)
{
	return kind == TK_EQ || kind == TK_NE || kind == '<' || kind == '>' ||
	       kind == TK_LE || kind == TK_GE;
}

/* comparison = shift (('<' | '<=' | '>' | '>=' | '==' | '!=' | '=~' | '!~') shift)* */
static struct expr *comparison(struct parser *p)
{
	struct expr *e = shift(p);
	for (;;) {
		int k = p->tok->kind;
		if (k == TK_MATCH || k == TK_NOMATCH) {
			struct token *op = advance(p);
			count_operator(p, op);
			struct expr *re = shift(p);
			if (re->kind != EX_STRING)
				syntax_error_at(p, op, "the right side of '%s' must "
						"be a string literal (a regular "
						"expression)", token_spelling(k));
			e = new_binary(EX_REGEX, op, e, re);
			e->negate = k == TK_NOMATCH;
		} else if (is_comparison_op(k)) {
			struct token *op = advance(p);
			count_operator(p, op);
			e = new_binary(EX_COMPARE, op, e, shift(p));
		} else {
			return e;
		}
	}
}

/* array_in = '[' index_key (',' index_key)* ']' 'in' name
 *          | comparison ['in' name] */
static struct expr *array_in(struct parser *p)
{
	struct expr *e;
	struct token *start = p->tok;
	if (accept(p, '[')) {
		e = new_expr(EX_IN, start);
		index_list(p, e);
		if (!at_kw(p, "in"))
			expected(p, "'in' after a bracketed key list");
	} else {
		struct expr *key = comparison(p);
		if (!at_kw(p, "in"))
			return key;
		e = new_expr(EX_IN, start);
		e->args = xalloc(sizeof(struct expr *));
		e->args[0] = key;
		e->nargs = 1;
	}
	e->loc = advance(p)->loc;
	if (at(p, TK_AT) && is_hist_op(p->tok->text)) {
		/* a bucket number in a histogram: rhs is the @hist_* */
		if (e->nargs != 1)
			syntax_error_at(p, p->tok, "a histogram bucket is one number, not %d keys",
					e->nargs);
		e->rhs = hist_op(p, advance(p));
		e->str = e->rhs->str;
		return e;
	}
	e->str = expect_name(p, "an array name after 'in'")->text;
	return e;
}

/* bit_and = array_in ('&' array_in)* */
static struct expr *bit_and(struct parser *p)
{
	static const int ops[] = {'&', 0};
	static const struct binop_level l = {ops, EX_BINARY, array_in};
	return binop(p, &l);
}

/* bit_xor = bit_and ('^' bit_and)* */
static struct expr *bit_xor(struct parser *p)
{
	static const int ops[] = {'^', 0};
	static const struct binop_level l = {ops, EX_BINARY, bit_and};
	return binop(p, &l);
}

/* bit_or = bit_xor ('|' bit_xor)* */
static struct expr *bit_or(struct parser *p)
{
	static const int ops[] = {'|', 0};
	static const struct binop_level l = {ops, EX_BINARY, bit_xor};
	return binop(p, &l);
}

/* logical_and = bit_or ('&&' bit_or)* */
static struct expr *logical_and(struct parser *p)
{
	static const int ops[] = {TK_AND, 0};
	static const struct binop_level l = {ops, EX_LOGICAL, bit_or};
	return binop(p, &l);
}

/* logical_or = logical_and ('||' logical_and)* */
static struct expr *logical_or(struct parser *p)
{
	static const int ops[] = {TK_OR, 0};
	static const struct binop_level l = {ops, EX_LOGICAL, logical_and};
	return binop(p, &l);
}

/* ternary = logical_or ['?' expr ':' ternary] */
static struct expr *ternary(struct parser *p)
{
	struct expr *cond = logical_or(p);
	if (!at(p, '?'))
		return cond;
	struct expr *e = new_expr(EX_TERNARY, advance(p));
	e->cond = cond;
	e->lhs = expr(p);
	expect(p, ':', "in the ?: operator");
	nest(p);
	e->rhs = ternary(p);
	unnest(p);
	return e;
}

/* ==== statements ==== */

static struct stmt *statement(struct parser *p);
static struct stmt *block(struct parser *p);

/* Skip what is left of a broken statement: to a ';' (eaten), a '}' or
 * a top-level keyword (kept), or the first token of a later line. */
static void skip_statement(struct parser *p, struct token *start)
{
	struct token *err = p->err_tok;
	int depth = 0;
	while (!at(p, TK_EOF)) {
		if (depth == 0) {
			if (at(p, '}') || (p->tok != start && at_toplevel_keyword(p)))
				break;
			if (accept(p, ';'))
				return;
			if (p->tok > err && starts_line(p, p->tok))
				break;
		}
		int k = advance(p)->kind;
		if (k == '{' || k == '(' || k == '[')
			depth++;
		else if ((k == '}' || k == ')' || k == ']') && depth > 0)
			depth--;
	}
	if (p->tok == start)
		advance(p);
}

/* A statement, or NULL after a reported syntax error. */
static struct stmt *statement_or_recover(struct parser *p)
{
	jmp_buf jb, *saved = p->recover;
	struct token *start = p->tok;
	int depth = p->depth;
	p->recover = &jb;
	if (setjmp(jb)) {
		p->recover = saved;
		p->depth = depth;
		skip_statement(p, start);
		return NULL;
	}
	struct stmt *s = statement(p);
	p->recover = saved;
	return s;
}

/* block = '{' statement* '}' */
static struct stmt *block(struct parser *p)
{
	struct token *open = expect(p, '{', "to start a block");
	struct stmt *b = new_stmt(ST_BLOCK, open);
	struct vec body = {0};
	while (!accept(p, '}')) {
		if (p->errors >= MAX_SYNTAX_ERRORS)
			break;
		if (at(p, TK_EOF) || at_toplevel_keyword(p)) {
			diag_error(&p->tok->loc, "expected '}' before %s",
				   describe(p->tok));
			diag_note(&open->loc, "to close this block");
			p->errors++;
			break;
		}
		struct stmt *s = statement_or_recover(p);
		if (s)
			vec_push(&body, s);
	}
	b->body = (struct stmt **)body.items;
	b->nbody = body.n;
	return b;
}

/* if = 'if' '(' expr ')' statement ['else' statement] */
static struct stmt *if_stmt(struct parser *p)
{
	struct stmt *s = new_stmt(ST_IF, advance(p));
	expect(p, '(', "after 'if'");
	s->expr = expr(p);
	expect(p, ')', "after the condition");
	s->then = statement(p);
	if (accept_kw(p, "else"))
		s->els = statement(p);
	return s;
}

/* while = 'while' '(' expr ')' statement */
static struct stmt *while_stmt(struct parser *p)
{
	struct stmt *s = new_stmt(ST_WHILE, advance(p));
	expect(p, '(', "after 'while'");
	s->expr = expr(p);
	expect(p, ')', "after the condition");
	s->then = statement(p);
	return s;
}

/* for = 'for' '(' [expr] ';' [expr] ';' [expr] ')' statement */
static struct stmt *for_stmt(struct parser *p)
{
	struct stmt *s = new_stmt(ST_FOR, advance(p));
	expect(p, '(', "after 'for'");
	if (!at(p, ';')) {
		s->init = new_stmt(ST_EXPR, p->tok);
		s->init->expr = expr(p);
	}
	expect(p, ';', "after the initialization of 'for'");
	if (!at(p, ';'))
		s->expr = expr(p);
	expect(p, ';', "after the condition of 'for'");
	if (!at(p, ')'))
		s->step = expr(p);
	expect(p, ')', "after the step of 'for'");
	s->then = statement(p);
	return s;
}

/* Record a sort mark ('+' / '-') if one follows; sort_key is which. */
static bool sort_mark(struct parser *p, struct foreach_info *fe, int key)
{
	if (!at(p, '+') && !at(p, '-'))
		return false;
	struct token *t = advance(p);
	if (fe->sort_dir)
		syntax_error_at(p, t, "only one sort mark is allowed in a "
				"foreach");
	fe->sort_key = key;
	fe->sort_dir = t->kind == '+' ? 1 : -1;
	return true;
}

/* foreach_value = name [sort_mark] '='   (the v in  v = [k] in a) */
static bool foreach_value(struct parser *p, struct foreach_info *fe)
{
	struct token *t = p->tok, *n = peek(p, 1);
	if (t->kind != TK_IDENT || is_keyword(t->text))
		return false;
	bool mark = n->kind == '+' || n->kind == '-';
	if (!(n->kind == '=' || n->kind == TK_ADD_ASSIGN ||
	      n->kind == TK_SUB_ASSIGN || (mark && peek(p, 2)->kind == '=')))
		return false;
	fe->value = new_expr(EX_VAR, advance(p));
	fe->value->str = t->text;
	if (at(p, TK_ADD_ASSIGN) || at(p, TK_SUB_ASSIGN)) {
		fe->sort_key = -1;
		fe->sort_dir = advance(p)->kind == TK_ADD_ASSIGN ? 1 : -1;
		return true;
	}
	sort_mark(p, fe, -1);
	expect(p, '=', "after the foreach value variable");
	return true;
}

/* foreach_key = name [sort_mark] */
static struct expr *foreach_key(struct parser *p, struct foreach_info *fe,
				int n)
{
	struct token *t = expect_name(p, "a loop variable name");
	struct expr *e = new_expr(EX_VAR, t);
	e->str = t->text;
	sort_mark(p, fe, n);
	return e;
}

/* foreach_keys = '[' foreach_key (',' foreach_key)* ']' | foreach_key */
static void foreach_keys(struct parser *p, struct foreach_info *fe)
{
	struct vec keys = {0};
	if (accept(p, '[')) {
		do {
			vec_push(&keys, foreach_key(p, fe, keys.n + 1));
		} while (accept(p, ','));
		expect(p, ']', "after the loop variables");
	} else {
		vec_push(&keys, foreach_key(p, fe, 1));
	}
	fe->keys = (struct expr **)keys.items;
	fe->nkeys = keys.n;
}

/* foreach_array = name ['[' index_list] | hist ; then [@stat] sort_mark | sort_mark */
static void foreach_array(struct parser *p, struct foreach_info *fe)
{
	if (at(p, TK_AT) && is_hist_op(p->tok->text)) {
		fe->array = hist_op(p, advance(p));
	} else {
		struct token *t = expect_name(p, "an array name after 'in'");
		fe->array = new_expr(EX_VAR, t);
		if (accept(p, '[')) {
			fe->array->kind = EX_INDEX;
			index_list(p, fe->array);
		}
		fe->array->str = t->text;
	}
	if (at(p, TK_AT) && is_stat_op(p->tok->text)) {
		struct token *t = advance(p);
		fe->sort_stat = t->text;
		if (!sort_mark(p, fe, -1))
			syntax_error_at(p, p->tok, "expected '+' or '-' after "
					"'@%s' in foreach", t->text);
		return;
	}
	sort_mark(p, fe, -1);
}

/* foreach = 'foreach' '(' [foreach_value] foreach_keys 'in' foreach_array
 *           ['limit' expr] ')' statement */
static struct stmt *foreach_stmt(struct parser *p)
{
	struct stmt *s = new_stmt(ST_FOREACH, advance(p));
	struct foreach_info *fe = xalloc(sizeof *fe);
	s->fe = fe;
	expect(p, '(', "after 'foreach'");
	foreach_value(p, fe);
	foreach_keys(p, fe);
	if (!accept_kw(p, "in"))
		expected(p, "'in' after the foreach variables");
	foreach_array(p, fe);
	if (accept_kw(p, "limit"))
		fe->limit = expr(p);
	expect(p, ')', "to close the foreach");
	s->then = statement(p);
	return s;
}

/* try = 'try' block 'catch' ['(' name ')'] block */
static struct stmt *try_stmt(struct parser *p)
{
	struct stmt *s = new_stmt(ST_TRY, advance(p));
	s->then = block(p);
	if (!accept_kw(p, "catch"))
		expected(p, "'catch' after the try block");
	if (accept(p, '(')) {
		struct token *t = expect_name(p, "a variable name in catch");
		s->catch_var = new_expr(EX_VAR, t);
		s->catch_var->str = t->text;
		expect(p, ')', "after the catch variable");
	}
	s->catch_body = block(p);
	return s;
}

/* simple_stmt = ('break' | 'continue' | 'next') [';'] */
static struct stmt *simple_stmt(struct parser *p, enum stmt_kind kind)
{
	struct stmt *s = new_stmt(kind, advance(p));
	accept(p, ';');
	return s;
}

/* return = 'return' [expr] [';'] */
static struct stmt *return_stmt(struct parser *p)
{
	struct stmt *s = new_stmt(ST_RETURN, advance(p));
	if (!at(p, ';') && !at(p, '}'))
		s->expr = expr(p);
	accept(p, ';');
	return s;
}

/* delete = 'delete' expr [';'] */
static struct stmt *delete_stmt(struct parser *p)
{
	struct stmt *s = new_stmt(ST_DELETE, advance(p));
	s->expr = expr(p);
	accept(p, ';');
	return s;
}

/* statement = block | ';' | if | while | for | foreach | try | break
 *           | continue | next | return | delete | embedded | expr [';'] */
static struct stmt *one_statement(struct parser *p)
{
	struct token *t = p->tok;
	if (t->kind == '{')
		return block(p);
	if (t->kind == ';')
		return new_stmt(ST_NULL, advance(p));
	if (t->kind == TK_EMBEDDED) {
		check_guru(p, t);
		struct stmt *s = new_stmt(ST_EMBEDDED, advance(p));
		s->code = t->text;
		accept(p, ';');
		return s;
	}
	if (is_kw(t, "if")) return if_stmt(p);
	if (is_kw(t, "while")) return while_stmt(p);
	if (is_kw(t, "for")) return for_stmt(p);
	if (is_kw(t, "foreach")) return foreach_stmt(p);
	if (is_kw(t, "try")) return try_stmt(p);
	if (is_kw(t, "break")) return simple_stmt(p, ST_BREAK);
	if (is_kw(t, "continue")) return simple_stmt(p, ST_CONTINUE);
	if (is_kw(t, "next")) return simple_stmt(p, ST_NEXT);
	if (is_kw(t, "return")) return return_stmt(p);
	if (is_kw(t, "delete")) return delete_stmt(p);
	if (is_kw(t, "else") || is_kw(t, "catch"))
		syntax_error_at(p, t, "'%s' without a matching '%s'", t->text,
				is_kw(t, "else") ? "if" : "try");
	struct stmt *s = new_stmt(ST_EXPR, t);
	s->expr = expr(p);
	accept(p, ';');
	return s;
}

static struct stmt *statement(struct parser *p)
{
	nest(p);
	p->noperators = 0;
	struct stmt *s = one_statement(p);
	unnest(p);
	return s;
}

/* ==== probe points ==== */

static bool is_component_piece(const struct token *t)
{
	return t->kind == TK_IDENT || t->kind == '*' || t->kind == '{';
}

/* inside {a,b}: names, globs, commas, nested braces, spaces between */
static bool is_brace_piece(const struct token *t)
{
	return is_component_piece(t) || t->kind == ',' || t->kind == '}';
}

/* component_name = (identifier | '*' | '{' alternatives '}')+   with no
 * space between the pieces; resolve.c expands the braces. As in
 * SystemTap, only a component's first piece opens alternatives: a '{'
 * after a name is the probe's body (probe begin{...}, {begin,end}{...}) */
static const char *component_name(struct parser *p)
{
	if (!is_component_piece(p->tok))
		expected(p, "a probe point name");
	struct strbuf sb = {0};
	int depth = 0;
	do {
		struct token *t = advance(p);
		if (t->kind == TK_IDENT)
			sb_puts(&sb, t->text);
		else
			sb_putc(&sb, (char)t->kind);
		depth += t->kind == '{' ? 1 : t->kind == '}' ? -1 : 0;
	} while (depth > 0 ? is_brace_piece(p->tok) :
		 is_component_piece(p->tok) && p->tok->kind != '{' &&
		 !p->tok->space_before);
	if (depth > 0)
		expected(p, "'}' to close the probe point's {alternatives}");
	return sb.buf;
}

/* component = component_name ['(' (string | ['-'] number) ')'] */
static void component(struct parser *p, struct pp_component *c)
{
	c->loc = p->tok->loc;
	c->name = component_name(p);
	if (!accept(p, '('))
		return;
	c->has_arg = true;
	if (at(p, TK_STRING)) {
		c->arg_is_string = true;
		c->str_arg = advance(p)->text;
	} else {
		bool neg = accept(p, '-');
		if (!at(p, TK_NUMBER))
			expected(p, "a string or number in the probe point");
		c->num_arg = advance(p)->num;
		if (neg)
			c->num_arg = (int64_t)(0 - (uint64_t)c->num_arg);
	}
	expect(p, ')', "after the probe point argument");
}

/* A suffix that says how to probe (.return, .call, ...) means nothing
 * twice: kernel.function("f").return.return is a typo, not a point. */
static void check_repeated_suffixes(const struct probe_point *pp)
{
	static const char *const suffixes[] = {"return", "call", "inline",
					       "exported", "maxactive"};

	for (int i = 1; i < pp->ncomps; i++)
		for (int j = 1; j < i; j++)
			for (size_t k = 0; k < sizeof suffixes / sizeof suffixes[0]; k++)
				if (!strcmp(pp->comps[i].name, suffixes[k]) &&
				    !strcmp(pp->comps[j].name, suffixes[k]))
					diag_error(&pp->comps[i].loc,
						   "'.%s' given twice in one probe point",
						   suffixes[k]);
}

/* the components of one probe point, as parsing finds them */
struct comp_seq {
	struct pp_component *comps;
	int n, cap;
	bool optional, sufficient;	/* an alternative's own '?' or '!' */
	struct comp_seq *next;		/* the other alternatives */
};

static void seq_add(struct comp_seq *q, const struct pp_component *c)
{
	if (q->n == q->cap) {
		q->cap = q->cap ? q->cap * 2 : 4;
		q->comps = xrealloc(q->comps, sizeof *q->comps * (size_t)q->cap);
	}
	q->comps[q->n++] = *c;
}

/* is the '{' at the current token a group of whole components
 * ({kernel,module("m")}, {function("a"),function("b")}): one that holds a
 * '(' or a '.' before its '}'? Else it is a name's {a,b} */
static bool at_component_group(struct parser *p)
{
	int depth = 0;

	if (!at(p, '{'))
		return false;
	for (int i = 0;; i++) {
		const struct token *t = peek(p, i);

		if (t->kind == TK_EOF)
			return false;
		depth += t->kind == '{' ? 1 : t->kind == '}' ? -1 : 0;
		if (depth == 0)
			return false;
		if (t->kind == '(' || t->kind == '.')
			return true;
	}
}

static struct comp_seq *component_chain(struct parser *p);

/* every sequence of head followed by every one of tails */
static struct comp_seq *seq_product(struct comp_seq *head, struct comp_seq *tails)
{
	struct comp_seq *out = NULL, **end = &out;

	for (struct comp_seq *h = head; h; h = h->next)
		for (struct comp_seq *t = tails; t; t = t->next) {
			struct comp_seq *q = xalloc(sizeof *q);

			for (int i = 0; i < h->n; i++)
				seq_add(q, &h->comps[i]);
			for (int i = 0; i < t->n; i++)
				seq_add(q, &t->comps[i]);
			q->optional = h->optional || t->optional;
			q->sufficient = h->sufficient || t->sufficient;
			*end = q;
			end = &q->next;
		}
	return out;
}

/* flags = ('?' | '!')*: set on every sequence of a list */
static void point_flags(struct parser *p, struct comp_seq *seqs)
{
	for (;;) {
		bool optional = accept(p, '?'), sufficient = !optional && accept(p, '!');

		if (!optional && !sufficient)
			return;
		for (struct comp_seq *q = seqs; q; q = q->next) {
			q->optional |= optional;
			q->sufficient |= sufficient;
		}
	}
}

/* chain = piece ('.' piece)*
 * piece = component | '{' chain flags (',' chain flags)* '}'
 * SystemTap's alternatives of whole components are taken apart here, into
 * one sequence each; a name's {a,b} stays in the name for resolve.c */
static struct comp_seq *component_chain(struct parser *p)
{
	struct comp_seq *seqs = xalloc(sizeof *seqs);

	do {
		struct comp_seq *alts = NULL, **end = &alts;

		if (at_component_group(p)) {
			advance(p);
			do {
				*end = component_chain(p);
				point_flags(p, *end);
				while (*end)
					end = &(*end)->next;
			} while (accept(p, ','));
			expect(p, '}', "to close the probe point's {alternatives}");
		} else {
			struct pp_component c = {0};

			component(p, &c);
			alts = xalloc(sizeof *alts);
			seq_add(alts, &c);
		}
		seqs = seq_product(seqs, alts);
	} while (accept(p, '.'));
	return seqs;
}

/* probe_point = chain flags ['if' '(' expr ')']: one point, or one
 * per alternative of a group of whole components, sharing what follows */
static struct probe_point *probe_point(struct parser *p)
{
	struct srcloc loc = p->tok->loc;
	struct comp_seq *seqs = component_chain(p);
	struct expr *cond = NULL;
	struct probe_point *head = NULL, **tail = &head;

	point_flags(p, seqs);
	if (accept_kw(p, "if")) {
		expect(p, '(', "after 'if'");
		cond = expr(p);
		expect(p, ')', "after the probe condition");
	}
	for (struct comp_seq *q = seqs; q; q = q->next) {
		struct probe_point *pp = xalloc(sizeof *pp);

		pp->loc = loc;
		pp->comps = q->comps;
		pp->ncomps = q->n;
		pp->optional = q->optional;
		pp->sufficient = q->sufficient;
		pp->cond = cond;
		check_repeated_suffixes(pp);
		*tail = pp;
		tail = &pp->next;
	}
	return head;
}

/* probe_points = probe_point (',' probe_point)* */
static struct probe_point *probe_points(struct parser *p)
{
	struct probe_point *head = NULL, **tail = &head;
	do {
		*tail = probe_point(p);
		while (*tail)
			tail = &(*tail)->next;
	} while (accept(p, ','));
	return head;
}

/* ==== top level ==== */

static void add_alias(struct parser *p, struct probe_point *name,
		      struct probe_point *points, struct stmt *body,
		      bool epilogue, const struct token *t)
{
	struct alias *a = xalloc(sizeof *a);
	a->name = name;
	a->points = points;
	a->body = body;
	a->epilogue = epilogue;
	a->loc = t->loc;
	*p->aliases = a;
	p->aliases = &a->next;
}

static void check_alias_name(struct parser *p, struct probe_point *pp,
			     struct token *t)
{
	for (int i = 0; i < pp->ncomps; i++)
		if (pp->comps[i].has_arg || strchr(pp->comps[i].name, '*'))
			syntax_error_at(p, t, "an alias name is plain words "
					"joined by '.'");
	if (pp->optional || pp->sufficient || pp->cond)
		syntax_error_at(p, t, "an alias name cannot be optional or "
				"conditional");
}

/* alias = probe_point ('=' | '+=') probe_points block [',' block]
 * (after 'probe' and the name) */
static void alias(struct parser *p, struct probe_point *names,
		  struct token *start)
{
	struct token *op = advance(p);
	bool epilogue = op->kind == TK_ADD_ASSIGN;
	if (names->next)
		syntax_error_at(p, op, "an alias defines a single name");
	check_alias_name(p, names, start);
	struct probe_point *points = probe_points(p);
	struct stmt *pro = block(p), *epi = NULL;
	if (!epilogue && accept(p, ','))
		epi = block(p);
	add_alias(p, names, points, pro, epilogue, start);
	if (epi)
		add_alias(p, names, points, epi, true, start);
}

/* probe = 'probe' probe_points block | 'probe' alias */
static void probe(struct parser *p)
{
	struct token *start = advance(p);
	struct probe_point *points = probe_points(p);
	if (at(p, '=') || at(p, TK_ADD_ASSIGN)) {
		alias(p, points, start);
		return;
	}
	struct probe *pr = xalloc(sizeof *pr);
	pr->loc = start->loc;
	pr->points = points;
	pr->body = block(p);
	*p->probes = pr;
	p->probes = &pr->next;
}

/* literal = ['-'] number | string */
static struct expr *literal(struct parser *p)
{
	struct token *t = p->tok;
	if (at(p, TK_STRING) || at(p, TK_NUMBER) ||
	    (at(p, '-') && peek(p, 1)->kind == TK_NUMBER))
		return unary(p);
	syntax_error_at(p, t, "a global can only be initialized with a number "
			"or string literal, not %s", describe(t));
}

/* global_var = name ['%'] ['[' number ']'] ['%'] ['=' literal] */
static void global_var(struct parser *p, bool is_private)
{
	struct token *t = expect_name(p, "a global variable name");
	struct global_decl *g = xalloc(sizeof *g);
	g->name = t->text;
	g->loc = t->loc;
	g->is_private = is_private;
	g->wrap = accept(p, '%');
	if (accept(p, '[')) {
		if (!at(p, TK_NUMBER) || p->tok->num <= 0)
			expected(p, "a positive array size");
		g->max_entries = advance(p)->num;
		expect(p, ']', "after the array size");
		g->is_array = true;
	}
	if (!g->wrap && accept(p, '%'))
		g->wrap = true;
	g->is_array |= g->wrap;
	if (accept(p, '=')) {
		if (g->is_array)
			syntax_error_at(p, p->tok - 1, "an array cannot have an "
					"initial value");
		g->init = literal(p);
	}
	*p->globals = g;
	p->globals = &g->next;
}

/* global = 'global' global_var (',' global_var)* [';'] */
static void global(struct parser *p, bool is_private)
{
	do {
		global_var(p, is_private);
	} while (accept(p, ','));
	accept(p, ';');
}

/* type = 'long' | 'string' */
static enum type type_decl(struct parser *p)
{
	if (accept_kw(p, "long"))
		return TY_LONG;
	if (accept_kw(p, "string"))
		return TY_STRING;
	expected(p, "a type ('long' or 'string')");
}

/* param = name [':' type] */
static void param(struct parser *p, struct param *pa)
{
	struct token *t = expect_name(p, "a parameter name");
	pa->name = t->text;
	pa->loc = t->loc;
	if (accept(p, ':'))
		pa->type = type_decl(p);
}

/* a parameter named twice (SystemTap rejects it as it parses) */
static void check_duplicate_param(const struct function *f)
{
	const struct param *last = &f->params[f->nparams - 1];
	int i;

	for (i = 0; i < f->nparams - 1; i++)
		if (last->name && f->params[i].name &&
		    strcmp(f->params[i].name, last->name) == 0) {
			diag_error(&last->loc, "duplicate parameter name '%s' in function '%s'",
				   last->name, f->name);
			return;
		}
}

/* params = '(' [param (',' param)*] ')' */
static void params(struct parser *p, struct function *f)
{
	expect(p, '(', "after the function name");
	int cap = 0;
	while (!at(p, ')')) {
		if (f->nparams == cap) {
			cap = cap ? cap * 2 : 4;
			f->params = xrealloc(f->params, sizeof *f->params * (size_t)cap);
		}
		memset(&f->params[f->nparams], 0, sizeof *f->params);
		param(p, &f->params[f->nparams++]);
		check_duplicate_param(f);
		if (!accept(p, ','))
			break;
	}
	expect(p, ')', "after the parameters");
}

static void embedded_annotations(struct function *f)
{
	f->pure = strstr(f->embedded, "/* pure */") != NULL;
	f->stable = strstr(f->embedded, "/* stable */") != NULL;
	f->unprivileged = strstr(f->embedded, "/* unprivileged */") != NULL;
	f->light = strstr(f->embedded, "/* light */") != NULL;
	f->guru = strstr(f->embedded, "/* guru */") != NULL;
}

/* function = 'function' name [':' type] params [':' number] (block | embedded) */
static void function(struct parser *p, bool is_private)
{
	advance(p);
	struct token *t = expect_name(p, "a function name");
	struct function *f = xalloc(sizeof *f);
	f->name = t->text;
	f->loc = t->loc;
	f->is_private = is_private;
	if (accept(p, ':')) {
		f->ret_type = type_decl(p);
		f->ret_declared = true;
	}
	params(p, f);
	if (accept(p, ':')) {
		if (!at(p, TK_NUMBER))
			expected(p, "a priority number after ':'");
		f->priority = advance(p)->num;
	}
	if (at(p, TK_EMBEDDED)) {
		check_guru(p, p->tok);
		f->embedded = advance(p)->text;
		embedded_annotations(f);
	} else {
		f->body = block(p);
	}
	*p->functions = f;
	p->functions = &f->next;
}

/* embedded_block = '%{' code '%}' */
static void embedded_block(struct parser *p)
{
	struct token *t = advance(p);
	check_guru(p, t);
	struct embedded_block *b = xalloc(sizeof *b);
	b->code = t->text;
	b->loc = t->loc;
	*p->embedded = b;
	p->embedded = &b->next;
}

/* declaration = ['private'] ('global' global | 'function' function)
 *             | 'private' global_var ... | probe | embedded_block | ';' */
static void declaration(struct parser *p)
{
	bool priv = accept_kw(p, "private");
	if (accept_kw(p, "global"))
		global(p, priv);
	else if (at_kw(p, "function"))
		function(p, priv);
	else if (!priv && at_kw(p, "probe"))
		probe(p);
	else if (priv && at(p, TK_IDENT) && !is_keyword(p->tok->text))
		global(p, true);
	else if (!priv && at(p, TK_EMBEDDED))
		embedded_block(p);
	else if (!priv && accept(p, ';'))
		return;
	else
		expected(p, priv ? "'global' or 'function' after 'private'"
			 : "'probe', 'global', 'function' or '%{' at the top "
			 "level");
}

/* Skip to the next declaration after a syntax error. */
static void skip_declaration(struct parser *p, struct token *start)
{
	if (p->tok == start)
		advance(p);
	while (!at(p, TK_EOF) && !at_toplevel_keyword(p) && !at(p, TK_EMBEDDED))
		advance(p);
}

static void declaration_or_recover(struct parser *p)
{
	jmp_buf jb;
	struct token *start = p->tok;
	p->recover = &jb;
	p->depth = 0;
	p->noperators = 0;
	if (setjmp(jb)) {
		skip_declaration(p, start);
		return;
	}
	declaration(p);
}

/* file = declaration* */
struct file *parse_source(struct source *src)
{
	int n;
	struct token *toks = lex_source(src, &n);
	struct file *f = xalloc(sizeof *f);
	f->src = src;
	struct parser p = {
		.tok = toks, .first = toks, .eof = &toks[n - 1], .file = f,
		.globals = &f->globals, .functions = &f->functions,
		.probes = &f->probes, .aliases = &f->aliases,
		.embedded = &f->embedded,
	};
	while (!at(&p, TK_EOF))
		declaration_or_recover(&p);
	return f;
}
