/* ast.h - the syntax tree shared by every pass of the translator.
 *
 * The parser builds it, resolve.c annotates it (symbols, types, probe
 * points), emit.c walks it to write C. Nodes are allocated from one arena
 * (xalloc) and live until the process exits.
 */
#ifndef KTAP_AST_H
#define KTAP_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- source text and locations ---- */

struct source {
	char *name;		/* file name as given, or "<input>" for -e */
	char *text;		/* whole file, NUL-terminated */
	size_t len;
	bool is_tapset;
	bool has_conditional;	/* the lexer decided a %( %) in it */
	struct source *next;
};

struct srcloc {
	struct source *src;
	int line;		/* 1-based */
	int col;		/* 1-based, in bytes */
	const struct srcloc *via;	/* in a macro body: where it was used */
};

/* ---- types ---- */

enum type {
	TY_UNKNOWN,
	TY_LONG,
	TY_STRING,
	TY_STATS,
	TY_VOID,		/* functions with no return value */
};

const char *type_name(enum type t);

/* ---- symbols (filled by resolve) ---- */

enum sym_kind { SYM_GLOBAL, SYM_LOCAL, SYM_PARAM };

#define MAX_ARRAY_KEYS 9

struct symbol {
	enum sym_kind kind;
	const char *name;
	struct srcloc loc;		/* declaration, or first use for locals */
	enum type type;			/* value type (element type for arrays) */
	struct srcloc type_loc;		/* where the type was first fixed */
	int nkeys;			/* > 0: associative array */
	enum type key_types[MAX_ARRAY_KEYS];
	int index;			/* slot number within its scope */
	bool written, read;
	struct global_decl *global;	/* SYM_GLOBAL */
	/* statistics: the histogram kept, fixed by the first @hist_* use */
	int hist_kind;			/* 0 none, 1 log, 2 linear */
	int64_t hist_lo, hist_hi, hist_step;
	struct srcloc hist_loc;
	int var_shift;			/* @variance(x, shift), 0..62 */
};

/* ---- operators (expr->op), independent of the lexer's token kinds ---- */

enum op {
	OP_NONE,
	OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD,		/* + - * / % */
	OP_SHL, OP_SHR, OP_BITAND, OP_BITOR, OP_BITXOR,	/* << >> & | ^ */
	OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE,	/* comparisons */
	OP_AND, OP_OR,					/* && || */
	OP_NOT, OP_BITNOT, OP_NEG, OP_PLUS,		/* ! ~ - + (unary) */
	OP_CONCAT,					/* . */
	OP_MATCH, OP_NOMATCH,				/* =~ !~ */
	OP_ASSIGN,					/* = */
	OP_ADD_ASSIGN, OP_SUB_ASSIGN, OP_MUL_ASSIGN, OP_DIV_ASSIGN,
	OP_MOD_ASSIGN, OP_SHL_ASSIGN, OP_SHR_ASSIGN, OP_AND_ASSIGN,
	OP_OR_ASSIGN, OP_XOR_ASSIGN, OP_CONCAT_ASSIGN,	/* += ... .= */
	OP_INC, OP_DEC,					/* ++ -- */
	OP_ADDRESS,					/* & on a target expr */
	OP_STAT_ADD,					/* <<< */
};

const char *op_text(enum op op);			/* "+", "<<=", ... */

struct tvar_access;

/* ---- expressions ---- */

enum expr_kind {
	EX_NUMBER,	/* num */
	EX_STRING,	/* str */
	EX_SCRIPT_ARG,	/* $1 (token) / @1 (string): num = index, str set for @ */
	EX_ARGC,	/* $# or @# */
	EX_VAR,		/* name; sym after resolve */
	EX_INDEX,	/* name[args...]; args may be EX_STAR in slices */
	EX_STAR,	/* '*' in a slice or a '[*, k] in a' test */
	EX_TARGET,	/* $name with member path: str = "$var", args = path */
	EX_TARGET_SPECIAL, /* $$vars, $$locals, $$parms, $$return (+ '$' suffix) */
	EX_UNARY,	/* op lhs: - ! ~ + */
	EX_BINARY,	/* lhs op rhs: arithmetic, bit, shift */
	EX_COMPARE,	/* < <= > >= == != on long or string */
	EX_LOGICAL,	/* && || */
	EX_CONCAT,	/* lhs . rhs */
	EX_REGEX,	/* lhs =~ rhs / lhs !~ rhs (rhs is a literal) */
	EX_TERNARY,	/* cond ? lhs : rhs */
	EX_ASSIGN,	/* lhs op= rhs, op is '=' or the compound operator */
	EX_INCDEC,	/* ++x, x++, --x, x-- */
	EX_IN,		/* [args] in name  /  arg in name */
	EX_CALL,	/* name(args...), includes printf & co. */
	EX_STAT_OP,	/* @count(x) etc: str = "count", lhs = operand */
	EX_HIST,	/* @hist_log(x) / @hist_linear(x, lo, hi, step) */
	EX_STAT_ADD,	/* lhs <<< rhs */
	EX_CAST,	/* @cast(ptr, "type"[, "module"]) with member path */
	EX_ENTRY,	/* @entry(expr) */
	EX_DEFINED,	/* @defined(expr) */
	EX_AT_VAR,	/* @var("name"[, "module"]) with member path */
	EX_EMBEDDED,	/* %{ C expression %} (guru mode): str = code */
	EX_HIST_INDEX,	/* @hist_*(...)[bucket]: lhs = EX_HIST, rhs = bucket */
	EX_CONST,	/* @const("NAME"): a C constant (tapsets, guru): str */
	EX_PROBEWRITE,	/* @probewrite(var) in alias epilogues: lhs = EX_VAR */
	EX_MEMBER,	/* lhs->f[i]...: member path on a pointer value held in a
			   variable, call result, ... (autocast): lhs, path */
	EX_SIZEOF,	/* @cast_sizeof("type") / @cast_module_sizeof("module",
			   "type"): str = type, module; tvar.c folds it to a
			   number */
};

enum target_step_kind { TS_MEMBER, TS_INDEX };

/* one step of a target-variable access: ->field or [index] */
struct target_step {
	enum target_step_kind kind;
	const char *field;		/* TS_MEMBER */
	struct expr *index;		/* TS_INDEX */
	struct srcloc loc;
	struct target_step *next;
};

struct expr {
	enum expr_kind kind;
	struct srcloc loc;		/* the operator or the first token */
	enum type type;			/* filled by resolve */
	enum op op;			/* the operator, see enum op */
	bool postfix;			/* EX_INCDEC: x++ */
	bool negate;			/* EX_REGEX !~; EX_IN with 'not'? no: unused */
	int64_t num;
	const char *str;		/* literal, name, stat op, target name */
	struct expr *lhs, *rhs, *cond;
	struct expr **args;		/* call arguments, array keys */
	int nargs;
	struct target_step *path;	/* EX_TARGET, EX_CAST, EX_AT_VAR, EX_MEMBER */
	const char *suffix;		/* "$" or "$$" pretty-printing, or NULL */
	const char *module;		/* EX_CAST, EX_AT_VAR: module or NULL */
	struct symbol *sym;		/* EX_VAR, EX_INDEX, EX_IN, EX_STAT_* */
	struct function *fn;		/* EX_CALL to a script function */
	int builtin;			/* EX_CALL to a builtin: its id, else 0 */
	int temp;			/* emit: temporary slot, -1 if none */
	struct tvar_access *access;	/* tvar.c: how to read a target
					 * expression at its probe point */
};

/* ---- statements ---- */

enum stmt_kind {
	ST_BLOCK,
	ST_NULL,	/* ; */
	ST_EXPR,
	ST_IF,
	ST_WHILE,
	ST_FOR,
	ST_FOREACH,
	ST_BREAK,
	ST_CONTINUE,
	ST_NEXT,
	ST_RETURN,
	ST_DELETE,
	ST_TRY,
	ST_EMBEDDED,	/* %{ ... %} inside a function body */
};

struct foreach_info {
	struct expr *value;		/* v = [...] : the value variable, or NULL */
	struct expr **keys;		/* loop variables (EX_VAR) */
	int nkeys;
	struct expr *array;		/* EX_VAR or EX_INDEX slice */
	int sort_key;			/* 0 = none, -1 = value, 1..n = key n */
	int sort_dir;			/* +1 ascending, -1 descending */
	const char *sort_stat;		/* "sum" for @sum-, NULL for plain */
	struct expr *limit;
};

struct stmt {
	enum stmt_kind kind;
	struct srcloc loc;
	struct stmt **body;		/* ST_BLOCK statements */
	int nbody;
	struct expr *expr;		/* ST_EXPR, ST_RETURN, ST_DELETE, conditions */
	struct stmt *init;		/* ST_FOR init (an ST_EXPR) */
	struct expr *step;		/* ST_FOR step */
	struct stmt *then, *els;	/* ST_IF; ST_WHILE/ST_FOR body in then */
	struct foreach_info *fe;	/* ST_FOREACH (body in then) */
	struct stmt *catch_body;	/* ST_TRY: then = try body */
	struct expr *catch_var;		/* ST_TRY: catch (msg), or NULL */
	const char *code;		/* ST_EMBEDDED */
};

/* ---- probe points ---- */

struct pp_component {
	const char *name;		/* may hold '*' or '**' */
	bool has_arg;
	bool arg_is_string;
	const char *str_arg;
	int64_t num_arg;
	struct srcloc loc;
};

struct probe_point {
	struct pp_component *comps;
	int ncomps;
	bool optional;			/* '?' */
	bool sufficient;		/* '!' */
	struct expr *cond;		/* 'if (cond)' or NULL */
	struct srcloc loc;
	struct probe_point *next;	/* comma-separated list */
};

/* ---- top-level declarations ---- */

struct global_decl {
	const char *name;
	struct srcloc loc;
	struct expr *init;		/* literal initial value or NULL */
	bool is_array;			/* declared with [N] */
	int64_t max_entries;		/* 0 = MAXMAPENTRIES */
	bool wrap;			/* name%[N] */
	bool is_private;
	struct symbol *sym;
	struct global_decl *next;
};

struct param {
	const char *name;
	enum type type;			/* TY_UNKNOWN if not declared */
	struct srcloc loc;
	struct symbol *sym;
};

struct function {
	const char *name;
	struct srcloc loc;
	enum type ret_type;		/* declared or inferred */
	bool ret_declared;
	struct param *params;
	int nparams;
	struct stmt *body;		/* script body, or NULL */
	const char *embedded;		/* %{ ... %} body, or NULL */
	bool pure, stable, unprivileged; /* embedded-C annotations */
	bool guru;			/* callable only with -g */
	bool light;			/* and its body compiles in a light unit */
	bool is_private;
	int64_t priority;		/* f():N for overloads, 0 if not given */
	struct symbol **locals;		/* resolve: every local */
	int nlocals;
	bool used;
	bool returns_value;		/* has a 'return expr' */
	struct function *next;
};

struct probe {
	struct probe_point *points;
	struct stmt *body;
	struct srcloc loc;
	bool is_private;
	struct symbol **locals;
	int nlocals;
	struct probe *next;
};

/* probe NAME = points { prologue }  or  probe NAME += points { epilogue } */
struct alias {
	struct probe_point *name;	/* alias name (one point, no args) */
	struct probe_point *points;	/* what it expands to */
	bool epilogue;			/* += */
	struct stmt *body;
	struct srcloc loc;
	struct alias *next;
};

struct embedded_block {
	const char *code;
	struct srcloc loc;
	struct embedded_block *next;
};

/* one parsed file (the user script or a tapset) */
struct file {
	struct source *src;
	struct global_decl *globals;
	struct function *functions;
	struct probe *probes;
	struct alias *aliases;
	struct embedded_block *embedded;
	struct file *next;
};

/*
 * Visit every expression of a statement tree, parents before children.
 * visit returns false to skip the expression's children.
 */
typedef bool (*expr_visitor)(struct expr *e, void *arg);
void ast_walk_stmt(struct stmt *s, expr_visitor visit, void *arg);
void ast_walk_expr(struct expr *e, expr_visitor visit, void *arg);

/* a probe point's component i is called name ("kernel", "function") */
bool pp_is(const struct probe_point *pp, int i, const char *name);
/* the probe point as text, e.g. kprobe.function("vfs_read").return */
char *probe_point_text(const struct probe_point *pp);

#endif
