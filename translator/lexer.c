/* lexer.c - tokens and the preprocessor (pass 1, first half).
 *
 * Two stages, as in chibicc: scan() turns the text into a raw list of
 * tokens; the preprocessor then walks that list, substituting script
 * arguments, deciding %( %? %: %) conditionals and expanding @define
 * macros by splicing new tokens in front of the rest of the list. What
 * comes out is an array the parser indexes freely.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "lexer.h"

#define MAX_EXPANSION_DEPTH 64
#define MAX_EXPANSIONS 100000
#define MAX_COND_NESTING 100	/* '(' and '%(' inside a %( condition */

/* ==== sources ==== */

struct source *source_from_string(const char *name, const char *text)
{
	struct source *src = xalloc(sizeof *src);
	src->name = xstrdup(name);
	src->text = xstrdup(text);
	src->len = strlen(text);
	return src;
}

struct source *source_from_file(const char *path)
{
	size_t len;
	char *text = read_whole_file(path, &len);
	if (!text)
		return NULL;
	struct source *src = xalloc(sizeof *src);
	src->name = xstrdup(path);
	src->text = text;
	src->len = len;
	return src;
}

/* ==== the environment %( conditions test ==== */

static struct pp_env env;
static bool env_ready;

static const char *kernel_arch(const char *machine)
{
	static const char *const map[][2] = {
		{"aarch64", "arm64"}, {"armv", "arm"}, {"ppc64", "powerpc"},
		{"ppc", "powerpc"}, {"s390", "s390"}, {"riscv", "riscv"},
		{"mips", "mips"},
	};
	if (machine[0] == 'i' && strcmp(machine + 2, "86") == 0)
		return "i386";
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (strncmp(machine, map[i][0], strlen(map[i][0])) == 0)
			return map[i][1];
	return xstrdup(machine);
}

static void env_defaults(void)
{
	if (env_ready)
		return;
	env_ready = true;
	struct utsname u;
	if (uname(&u) != 0) {
		strcpy(u.release, "0.0.0");
		strcpy(u.machine, "unknown");
	}
	env.kernel_vr = xstrdup(u.release);
	env.kernel_v = xstrndup(u.release, strcspn(u.release, "-+"));
	env.arch = kernel_arch(u.machine);
	env.runtime = "kernel";
	env.systemtap_v = "4.8";
	env.privilege = "stapdev";
}

void lexer_set_env(const struct pp_env *e)
{
	env_defaults();
	struct pp_env def = env;
	env = *e;
#define KEEP(f) if (!env.f) env.f = def.f
	KEEP(kernel_v);
	KEEP(kernel_vr);
	KEEP(arch);
	KEEP(runtime);
	KEEP(systemtap_v);
	KEEP(privilege);
#undef KEEP
	if (!e->kernel_v && e->kernel_vr)
		env.kernel_v = xstrndup(e->kernel_vr, strcspn(e->kernel_vr, "-+"));
}

const struct pp_env *lexer_env(void)
{
	env_defaults();
	return &env;
}

static char *kconfig;	/* the kernel .config, once loaded */

/* The kernel .config, loaded on first use, with a leading newline. */
static const char *kconfig_text(void)
{
	char *text = kconfig;
	if (text)
		return text;
	const char *paths[3] = {env.kconfig_path, NULL, NULL};
	if (!env.kconfig_path) {
		paths[0] = xasprintf("/boot/config-%s", env.kernel_vr);
		paths[1] = xasprintf("/lib/modules/%s/build/.config",
				     env.kernel_vr);
	}
	for (int i = 0; i < 3 && paths[i] && !text; i++) {
		char *t = read_whole_file(paths[i], NULL);
		if (t)
			text = xasprintf("\n%s", t);
		xfree(t);
	}
	kconfig = text ? text : "";
	return kconfig;
}

/* The value of CONFIG_x ("y", "m", ...), "" if unset. */
static const char *kconfig_value(const char *name)
{
	char *key = xasprintf("\n%s=", name);
	const char *p = strstr(kconfig_text(), key);
	if (!p)
		return "";
	p += strlen(key);
	size_t n = strcspn(p, "\n");
	if (n >= 2 && p[0] == '"' && p[n - 1] == '"')
		return xstrndup(p + 1, n - 2);
	return xstrndup(p, n);
}

/* ==== token names ==== */

static const struct {
	int kind;
	const char *text;
} operators[] = {
	/* longest first: scan() takes the first that matches */
	{TK_STAT_ADD, "<<<"}, {TK_SHL_ASSIGN, "<<="}, {TK_SHR_ASSIGN, ">>="},
	{TK_SHL, "<<"}, {TK_SHR, ">>"}, {TK_LE, "<="}, {TK_GE, ">="},
	{TK_EQ, "=="}, {TK_NE, "!="}, {TK_MATCH, "=~"}, {TK_NOMATCH, "!~"},
	{TK_AND, "&&"}, {TK_OR, "||"}, {TK_INC, "++"}, {TK_DEC, "--"},
	{TK_ARROW, "->"}, {TK_ADD_ASSIGN, "+="}, {TK_SUB_ASSIGN, "-="},
	{TK_MUL_ASSIGN, "*="}, {TK_DIV_ASSIGN, "/="}, {TK_MOD_ASSIGN, "%="},
	{TK_AND_ASSIGN, "&="}, {TK_XOR_ASSIGN, "^="}, {TK_OR_ASSIGN, "|="},
	{TK_CAT_ASSIGN, ".="}, {TK_PP_IF, "%("}, {TK_PP_THEN, "%?"},
	{TK_PP_ELSE, "%:"}, {TK_PP_END, "%)"}, {TK_DOLLAR2, "$$"},
};

const char *token_spelling(int kind)
{
	static char single[TK_EOF][2];
	if (kind > 0 && kind < TK_EOF) {
		single[kind][0] = (char)kind;
		return single[kind];
	}
	for (size_t i = 0; i < sizeof operators / sizeof operators[0]; i++)
		if (operators[i].kind == kind)
			return operators[i].text;
	return NULL;
}

const char *token_name(int kind)
{
	switch (kind) {
	case TK_EOF: return "end of file";
	case TK_IDENT: return "identifier";
	case TK_NUMBER: return "number";
	case TK_STRING: return "string";
	case TK_TARGET: return "target variable";
	case TK_AT: return "@operator";
	case TK_ARG: case TK_ARG_STR: return "script argument";
	case TK_ARGC: case TK_ARGC_STR: return "argument count";
	case TK_EMBEDDED: return "embedded C";
	}
	const char *s = token_spelling(kind);
	return s ? xasprintf("'%s'", s) : "token";
}

bool is_keyword(const char *name)
{
	static const char *const keywords[] = {
		"probe", "global", "function", "if", "else", "for", "foreach",
		"in", "limit", "return", "delete", "while", "break",
		"continue", "next", "try", "catch", "private",
	};
	for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
		if (strcmp(name, keywords[i]) == 0)
			return true;
	return false;
}

/* ==== scanning ==== */

struct scanner {
	struct source *src;
	const char *p;		/* next character */
	const char *seen;	/* locate() has counted lines up to here */
	int line;
	const char *line_start;
	bool space;		/* whitespace since the last token */
	bool done;		/* TK_EOF is in the list */
	struct token head, *tail;
};

/* The location of p; calls must come with increasing p. */
static struct srcloc locate(struct scanner *s, const char *p)
{
	for (; s->seen < p; s->seen++)
		if (*s->seen == '\n') {
			s->line++;
			s->line_start = s->seen + 1;
		}
	return (struct srcloc){s->src, s->line, (int)(p - s->line_start) + 1, NULL};
}

static void scan_error(struct scanner *s, const char *p, const char *msg)
{
	struct srcloc loc = locate(s, p);
	diag_error(&loc, "%s", msg);
}

static struct token *add_token(struct scanner *s, int kind, const char *start)
{
	struct token *t = xalloc(sizeof *t);
	t->kind = kind;
	t->loc = locate(s, start);
	t->space_before = s->space;
	s->space = false;
	s->tail->next = t;
	s->tail = t;
	return t;
}

static bool is_ident_start(int c)
{
	return isalpha(c) || c == '_';
}

static bool is_ident_char(int c)
{
	return isalnum(c) || c == '_' || c == '$';
}

/* Whitespace and the three comment forms; true if anything was skipped. */
static bool skip_space(struct scanner *s)
{
	const char *start = s->p;
	for (;;) {
		const char *p = s->p;
		if (isspace((unsigned char)*p)) {
			s->p++;
		} else if (*p == '#' || (p[0] == '/' && p[1] == '/')) {
			s->p += strcspn(p, "\n");
		} else if (p[0] == '/' && p[1] == '*') {
			const char *end = strstr(p + 2, "*/");
			if (!end) {
				scan_error(s, p, "unterminated comment");
				s->p += strlen(p);
			} else {
				s->p = end + 2;
			}
		} else {
			return s->p != start;
		}
	}
}

static int digit_value(int c)
{
	if (isdigit(c))
		return c - '0';
	if (isxdigit(c))
		return tolower(c) - 'a' + 10;
	return 99;
}

/* number = decimal | 0x hex | 0 octal, up to 2**64-1 (wraps to signed) */
static void scan_number(struct scanner *s)
{
	const char *start = s->p, *p = s->p;
	int base = 10;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && isxdigit((unsigned char)p[2])) {
		base = 16;
		p += 2;
	} else if (p[0] == '0') {
		base = 8;
	}
	uint64_t v = 0;
	bool overflow = false, bad = false;
	for (; isalnum((unsigned char)*p) || *p == '_'; p++) {
		int d = digit_value((unsigned char)*p);
		if (d >= base) {
			bad = true;
			continue;
		}
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			overflow = true;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	struct token *t = add_token(s, TK_NUMBER, start);
	t->num = (int64_t)v;
	t->text = xstrndup(start, (size_t)(p - start));
	if (bad)
		diag_error(&t->loc, "invalid number '%s'", t->text);
	else if (overflow)
		diag_error(&t->loc, "number '%s' does not fit in 64 bits",
			   t->text);
	s->p = p;
}

/* One escape after a backslash at *pp; appends its byte(s) to sb. */
static void scan_escape(struct scanner *s, const char **pp, struct strbuf *sb)
{
	const char *p = *pp;
	static const char from[] = "ntrabfv\\\"'?", to[] = "\n\t\r\a\b\f\v\\\"'?";
	const char *e = strchr(from, *p);
	if (*p && e) {
		sb_putc(sb, to[e - from]);
		*pp = p + 1;
		return;
	}
	int v = 0, n = 0;
	if (*p >= '0' && *p <= '7') {
		for (; n < 3 && *p >= '0' && *p <= '7'; n++, p++)
			v = v * 8 + (*p - '0');
	} else if (*p == 'x' && isxdigit((unsigned char)p[1])) {
		for (p++; n < 2 && isxdigit((unsigned char)*p); n++, p++)
			v = v * 16 + digit_value((unsigned char)*p);
	} else {
		/* unknown escapes stay as written: regexes use "\." */
		sb_putc(sb, '\\');
		return;
	}
	if (v == 0)
		scan_error(s, *pp - 1, "NUL character in string");
	else
		sb_putc(sb, (char)v);
	*pp = p;
}

/* string = '"' (char | escape)* '"' */
static void scan_string(struct scanner *s)
{
	const char *start = s->p, *p = s->p + 1;
	struct strbuf sb = {0};
	sb_puts(&sb, "");
	while (*p != '"') {
		if (*p == '\0' || *p == '\n') {
			scan_error(s, start, "unterminated string");
			break;
		}
		if (*p == '\\' && p[1] != '\0') {
			p++;
			scan_escape(s, &p, &sb);
			continue;
		}
		sb_putc(&sb, *p++);
	}
	struct token *t = add_token(s, TK_STRING, start);
	t->text = sb.buf;
	s->p = *p == '"' ? p + 1 : p;
}

/* embedded = '%{' any '%}' */
static void scan_embedded(struct scanner *s)
{
	const char *start = s->p;
	const char *end = strstr(start + 2, "%}");
	struct token *t = add_token(s, TK_EMBEDDED, start);
	if (!end) {
		diag_error(&t->loc, "unterminated embedded C: missing '%%}'");
		end = start + strlen(start);
		t->text = xstrdup(start + 2);
		s->p = end;
		return;
	}
	t->text = xstrndup(start + 2, (size_t)(end - start - 2));
	s->p = end + 2;
}

static const char *ident_end(const char *p)
{
	while (is_ident_char((unsigned char)*p))
		p++;
	return p;
}

/* '$#' | '$' digits | '$' ident | '$$' ident | '$$' | '$' */
static void scan_dollar(struct scanner *s)
{
	const char *start = s->p, *p = s->p + 1;
	struct token *t;
	if (*p == '#') {
		add_token(s, TK_ARGC, start);
		s->p = p + 1;
	} else if (isdigit((unsigned char)*p)) {
		t = add_token(s, TK_ARG, start);
		t->num = strtol(p, (char **)&s->p, 10);
	} else if (is_ident_start((unsigned char)*p) ||
		   (*p == '$' && is_ident_start((unsigned char)p[1]))) {
		s->p = ident_end(p);
		t = add_token(s, TK_TARGET, start);
		t->text = xstrndup(start, (size_t)(s->p - start));
	} else if (*p == '$') {
		add_token(s, TK_DOLLAR2, start);
		s->p = p + 1;
	} else {
		add_token(s, '$', start);
		s->p = p;
	}
}

/* '@#' | '@' digits | '@' ident */
static void scan_at(struct scanner *s)
{
	const char *start = s->p, *p = s->p + 1;
	struct token *t;
	if (*p == '#') {
		add_token(s, TK_ARGC_STR, start);
		s->p = p + 1;
	} else if (isdigit((unsigned char)*p)) {
		t = add_token(s, TK_ARG_STR, start);
		t->num = strtol(p, (char **)&s->p, 10);
	} else if (is_ident_start((unsigned char)*p)) {
		for (s->p = p; isalnum((unsigned char)*s->p) || *s->p == '_';)
			s->p++;
		t = add_token(s, TK_AT, start);
		t->text = xstrndup(p, (size_t)(s->p - p));
	} else {
		scan_error(s, start, "stray '@'");
		s->p = p;
	}
}

static bool scan_operator(struct scanner *s)
{
	for (size_t i = 0; i < sizeof operators / sizeof operators[0]; i++) {
		if (operators[i].text[0] != *s->p)
			continue;
		size_t n = strlen(operators[i].text);
		if (strncmp(s->p, operators[i].text, n) == 0) {
			add_token(s, operators[i].kind, s->p);
			s->p += n;
			return true;
		}
	}
	if (*s->p && strchr("+-*/%<>=!~&|^?:,;.()[]{}", *s->p)) {
		add_token(s, *s->p, s->p);
		s->p++;
		return true;
	}
	return false;
}

/* One token (or a diagnosed stray character) at s->p. */
static void scan_token(struct scanner *s)
{
	const char *p = s->p;
	if (isdigit((unsigned char)*p)) {
		scan_number(s);
	} else if (is_ident_start((unsigned char)*p)) {
		s->p = ident_end(p);
		struct token *t = add_token(s, TK_IDENT, p);
		t->text = xstrndup(p, (size_t)(s->p - p));
	} else if (*p == '"') {
		scan_string(s);
	} else if (p[0] == '%' && p[1] == '{') {
		scan_embedded(s);
	} else if (*p == '$') {
		scan_dollar(s);
	} else if (*p == '@') {
		scan_at(s);
	} else if (!scan_operator(s)) {
		struct srcloc loc = locate(s, p);
		if (isprint((unsigned char)*p))
			diag_error(&loc, "stray '%c' in script", *p);
		else
			diag_error(&loc, "stray byte 0x%02x in script",
				   (unsigned char)*p);
		s->p++;
		s->space = true;
	}
}

static void scanner_init(struct scanner *s, struct source *src)
{
	*s = (struct scanner){.src = src, .p = src->text, .seen = src->text,
			      .line = 1, .line_start = src->text, .space = true};
	s->tail = &s->head;
}

/* Scan one more token, or the end, onto the list. */
static void scan_step(struct scanner *s)
{
	s->space |= skip_space(s);
	if (*s->p == '\0') {
		add_token(s, TK_EOF, s->p);
		s->done = true;
		return;
	}
	scan_token(s);
}

/*
 * A NUL byte would end the text for every scanning function (all stop at
 * the terminator): report the first, count the rest, and scan them as
 * spaces so that the rest of the script is still checked.
 */
static void reject_nul_bytes(struct source *src)
{
	struct srcloc first = {0};
	size_t more = 0;
	int line = 1;
	char *line_start = src->text;

	for (char *p = src->text; p < src->text + src->len; p++) {
		if (*p == '\n') {
			line++;
			line_start = p + 1;
		} else if (*p == '\0') {
			*p = ' ';
			if (first.src)
				more++;
			else
				first = (struct srcloc){src, line, (int)(p - line_start) + 1, NULL};
		}
	}
	if (!first.src)
		return;
	if (more)
		diag_error(&first, "NUL byte in the script (and %zu more): a script is text", more);
	else
		diag_error(&first, "NUL byte in the script: a script is text");
}

/* The whole raw token list of src, ending with TK_EOF. */
static struct token *scan(struct source *src)
{
	struct scanner s;
	scanner_init(&s, src);
	while (!s.done)
		scan_step(&s);
	return s.head.next;
}

/* ==== preprocessor ==== */

struct macro {
	const char *name;
	const char **params;
	int nparams;
	bool has_parens;	/* @define f() %( %) */
	struct token *body;	/* list, NULL-terminated */
	struct source *src;
	bool global;		/* defined in a .stpm file */
	struct srcloc loc;
	struct macro *next;
};

static struct macro *macros;

/* forget the macros, the environment and the .config (the fuzzer, between
 * inputs: their memory goes with the arena) */
void lexer_reset(void)
{
	macros = NULL;
	memset(&env, 0, sizeof(env));
	env_ready = false;
	kconfig = NULL;
}

struct pp {
	struct source *src;
	struct scanner sc;	/* raw tokens are scanned as they are needed,
				   so diagnostics come out in source order */
	struct token *tok;	/* next unprocessed token */
	int expansions;
	int in_condition;	/* reading a %( condition: '%?' ends it */
	int cond_depth;		/* pp_atom()s open, to bound the recursion */
	struct token **out;
	int nout, cap;
};

/* The token after t, scanning further when the list ends at t. */
static struct token *nx(struct pp *P, struct token *t)
{
	while (!t->next && t->kind != TK_EOF && !P->sc.done)
		scan_step(&P->sc);
	return t->next ? t->next : t;
}

static bool is_at(const struct token *t, const char *name)
{
	return t->kind == TK_AT && strcmp(t->text, name) == 0;
}

static struct macro *find_macro(struct pp *P, const char *name)
{
	for (struct macro *m = macros; m; m = m->next)
		if (strcmp(m->name, name) == 0 && (m->global || m->src == P->src))
			return m;
	return NULL;
}

static struct token *copy_token(const struct token *t, int depth)
{
	struct token *c = xalloc(sizeof *c);
	*c = *t;
	c->depth = depth;
	c->next = NULL;
	return c;
}

/* Put the list first..last in front of the unprocessed tokens. */
static void splice(struct pp *P, struct token *first, struct token *last,
		   struct token *rest)
{
	if (!first) {
		P->tok = rest;
		return;
	}
	last->next = rest;
	P->tok = first;
}

/* $N @N $# @#: the argument's tokens, a string, or the count */
static void pp_script_arg(struct pp *P, struct token *t)
{
	struct token *rest = nx(P, t), *first, *last;
	int n = (int)t->num;
	if ((t->kind == TK_ARG || t->kind == TK_ARG_STR) &&
	    (n < 1 || n > env.argc)) {
		diag_error(&t->loc, "script argument %c%d was not given "
			   "(%d given)", t->kind == TK_ARG ? '$' : '@', n,
			   env.argc);
		n = 0;
	}
	if (t->kind == TK_ARG && n) {
		struct source *src = source_from_string(
			xasprintf("<argument $%d>", n), env.argv[n - 1]);
		first = scan(src);
		for (last = first; ; last = last->next) {
			last->loc = t->loc;
			last->depth = t->depth + 1;
			if (last->next->kind == TK_EOF)
				break;
		}
		if (first->kind == TK_EOF)
			first = last = NULL;
		splice(P, first, last, rest);
		return;
	}
	first = copy_token(t, t->depth + 1);
	if (t->kind == TK_ARG || t->kind == TK_ARGC) {
		first->kind = TK_NUMBER;
		first->num = t->kind == TK_ARGC ? env.argc : 0;
		first->text = xasprintf("%lld", (long long)first->num);
	} else {
		first->kind = TK_STRING;
		first->text = t->kind == TK_ARGC_STR ? xasprintf("%d", env.argc)
			    : n ? env.argv[n - 1] : "";
	}
	splice(P, first, first, rest);
}

/* Skip a %( ... %) group in raw tokens; t is just after '%('.
 * Returns the matching '%)' or TK_EOF; stops at a depth-0 '%:' too
 * when stop_at_else. *last gets the last token before the stop. */
static struct token *skip_group(struct pp *P, struct token *t,
				bool stop_at_else,
				struct token **last)
{
	int depth = 0;
	*last = NULL;
	for (; t->kind != TK_EOF; *last = t, t = nx(P, t)) {
		if (t->kind == TK_PP_IF)
			depth++;
		else if (t->kind == TK_PP_END && depth-- == 0)
			break;
		else if (t->kind == TK_PP_ELSE && depth == 0 && stop_at_else)
			break;
	}
	return t;
}

static int64_t pp_compare_result(int op, int cmp)
{
	switch (op) {
	case TK_EQ: return cmp == 0;
	case TK_NE: return cmp != 0;
	case '<': return cmp < 0;
	case TK_LE: return cmp <= 0;
	case '>': return cmp > 0;
	case TK_GE: return cmp >= 0;
	}
	return 0;
}

static bool is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static bool pp_glob(const struct token *opt, const char *value,
		    const char *pattern)
{
	if (opt->kind != TK_EQ && opt->kind != TK_NE) {
		diag_error(&opt->loc, "only == and != compare this with a "
			   "pattern");
		return false;
	}
	bool match = fnmatch(pattern, value, 0) == 0;
	return opt->kind == TK_EQ ? match : !match;
}

/* kernel_v OP "version": strverscmp, or a glob match for == and != */
static bool pp_version(const struct token *op, const char *value,
		       const struct token *rhs)
{
	if (rhs->kind != TK_STRING) {
		diag_error(&rhs->loc, "expected a version string");
		return false;
	}
	if ((op->kind == TK_EQ || op->kind == TK_NE) && is_glob(rhs->text))
		return pp_glob(op, value, rhs->text);
	return pp_compare_result(op->kind, strverscmp(value, rhs->text));
}

static const char *pp_string_fact(const char *name)
{
	if (strcmp(name, "arch") == 0)
		return env.arch;
	if (strcmp(name, "runtime") == 0)
		return env.runtime;
	if (strcmp(name, "systemtap_privilege") == 0)
		return env.privilege;
	if (strncmp(name, "CONFIG_", 7) == 0)
		return kconfig_value(name);
	return NULL;
}

/* CONFIG_A op CONFIG_B / number: numbers compare as numbers */
static bool pp_config_compare(const struct token *op, const char *value,
			      const struct token *rhs)
{
	const char *other = rhs->kind == TK_NUMBER ? rhs->text
			  : kconfig_value(rhs->text);
	char *end1, *end2;
	long long a = strtoll(value, &end1, 0), b = strtoll(other, &end2, 0);
	if (*value && *other && !*end1 && !*end2)
		return pp_compare_result(op->kind, (a > b) - (a < b));
	return pp_compare_result(op->kind, strcmp(value, other));
}

/* atom = fact op literal | literal op literal */
static bool pp_atom_value(const struct token *lhs, const struct token *op,
			  const struct token *rhs)
{
	if (lhs->kind == TK_IDENT) {
		const char *name = lhs->text, *fact;
		if (strcmp(name, "kernel_v") == 0)
			return pp_version(op, env.kernel_v, rhs);
		if (strcmp(name, "kernel_vr") == 0)
			return pp_version(op, env.kernel_vr, rhs);
		if (strcmp(name, "systemtap_v") == 0)
			return pp_version(op, env.systemtap_v, rhs);
		if (strcmp(name, "guru_mode") == 0 && rhs->kind == TK_NUMBER)
			return pp_compare_result(op->kind,
						 (env.guru > rhs->num) - (env.guru < rhs->num));
		if ((fact = pp_string_fact(name)) && rhs->kind == TK_STRING)
			return pp_glob(op, fact, rhs->text);
		if (strncmp(name, "CONFIG_", 7) == 0 && (rhs->kind == TK_NUMBER ||
		    (rhs->kind == TK_IDENT && strncmp(rhs->text, "CONFIG_", 7) == 0)))
			return pp_config_compare(op, fact, rhs);
		diag_error(&lhs->loc, "cannot test '%s' against %s in a "
			   "preprocessor condition", name, token_name(rhs->kind));
		return false;
	}
	if (lhs->kind == TK_STRING && rhs->kind == TK_STRING)
		return pp_compare_result(op->kind, strcmp(lhs->text, rhs->text));
	if (lhs->kind == TK_NUMBER && rhs->kind == TK_NUMBER)
		return pp_compare_result(op->kind, (lhs->num > rhs->num) -
					 (lhs->num < rhs->num));
	diag_error(&lhs->loc, "malformed preprocessor condition");
	return false;
}

static struct token *pp_peek(struct pp *P);

static struct token *pp_take(struct pp *P)
{
	struct token *t = pp_peek(P);
	if (t->kind != TK_EOF)
		P->tok = nx(P, t);
	return t;
}

static bool is_compare(int kind)
{
	return kind == TK_EQ || kind == TK_NE || kind == '<' || kind == '>' ||
	       kind == TK_LE || kind == TK_GE;
}

static bool pp_or(struct pp *P);

/* cond_atom = '(' cond_or ')' | operand compare operand */
static bool pp_atom(struct pp *P)
{
	if (P->cond_depth >= MAX_COND_NESTING) {
		diag_error(&P->tok->loc, "preprocessor condition nested more "
			   "than %d deep", MAX_COND_NESTING);
		while (P->tok->kind != TK_EOF)	/* give up on the rest */
			P->tok = nx(P, P->tok);
		return false;
	}
	struct token *lhs = pp_take(P);
	if (lhs->kind == '(') {
		P->cond_depth++;
		bool v = pp_or(P);
		P->cond_depth--;
		if (pp_peek(P)->kind == ')')
			pp_take(P);
		else
			diag_error(&pp_peek(P)->loc, "expected ')' in "
				   "preprocessor condition");
		return v;
	}
	struct token *op = pp_peek(P);
	if (!is_compare(op->kind)) {
		diag_error(&op->loc, "expected a comparison in preprocessor "
			   "condition");
		return false;
	}
	pp_take(P);
	struct token *rhs = pp_take(P);
	return pp_atom_value(lhs, op, rhs);
}

/* cond_and = cond_atom ('&&' cond_atom)* */
static bool pp_and(struct pp *P)
{
	bool v = pp_atom(P);
	while (pp_peek(P)->kind == TK_AND) {
		pp_take(P);
		v = pp_atom(P) && v;
	}
	return v;
}

/* cond_or = cond_and ('||' cond_and)* */
static bool pp_or(struct pp *P)
{
	bool v = pp_and(P);
	while (pp_peek(P)->kind == TK_OR) {
		pp_take(P);
		v = pp_and(P) || v;
	}
	return v;
}

/* conditional = '%(' cond '%?' tokens ['%:' tokens] '%)' */
static void pp_conditional(struct pp *P, struct token *start)
{
	if (start->loc.src)
		start->loc.src->has_conditional = true;
	P->tok = nx(P, start);
	int errors = diag_error_count();
	P->in_condition++;
	P->cond_depth++;
	bool v = pp_or(P);
	P->cond_depth--;
	P->in_condition--;
	struct token *t = P->tok;
	if (t->kind != TK_PP_THEN) {
		if (diag_error_count() == errors)
			diag_error(&t->loc, "expected '%%?' after preprocessor "
				   "condition, not %s", token_name(t->kind));
		while (t->kind != TK_PP_THEN && t->kind != TK_EOF)
			t = nx(P, t);
	}
	struct token *a_last, *b_last = NULL, *b = NULL;
	struct token *a = t->kind == TK_EOF ? t : nx(P, t);
	struct token *end = skip_group(P, a, true, &a_last);
	if (end->kind == TK_PP_ELSE) {
		b = nx(P, end);
		end = skip_group(P, b, false, &b_last);
	}
	if (end->kind == TK_EOF) {
		diag_error(&start->loc, "unterminated '%%(': missing '%%)'");
		P->tok = end;
		return;
	}
	if (v)
		splice(P, a_last ? a : NULL, a_last, nx(P, end));
	else
		splice(P, b_last ? b : NULL, b_last, nx(P, end));
}

/* macro_params = '(' [name (',' name)*] ')'; t is the '('. Returns the
 * token after ')', or NULL after an error. */
static struct token *macro_params(struct pp *P, struct token *t,
				  struct macro *m)
{
	m->has_parens = true;
	m->params = xalloc(sizeof(char *) * 64);
	for (t = nx(P, t); t->kind == TK_IDENT && m->nparams < 64;) {
		m->params[m->nparams++] = t->text;
		t = nx(P, t);
		if (t->kind != ',')
			break;
		t = nx(P, t);
	}
	if (t->kind != ')') {
		diag_error(&t->loc, "expected ')' after macro parameters");
		P->tok = t;
		return NULL;
	}
	return nx(P, t);
}

/* macro_body = '%(' tokens '%)'; t is the '%('. */
static bool macro_body(struct pp *P, struct token *t, struct macro *m)
{
	if (t->kind != TK_PP_IF) {
		diag_error(&t->loc, "expected '%%(' to start the body of "
			   "macro '%s'", m->name);
		P->tok = t;
		return false;
	}
	struct token *last, *end = skip_group(P, nx(P, t), false, &last);
	if (end->kind == TK_EOF) {
		diag_error(&t->loc, "unterminated macro body: missing '%%)'");
		P->tok = end;
		return false;
	}
	struct token head = {0}, *tail = &head;
	for (struct token *b = nx(P, t); b != end; b = nx(P, b))
		tail = tail->next = copy_token(b, 0);
	m->body = head.next;
	P->tok = nx(P, end);
	return true;
}

static bool is_stpm(const struct source *src)
{
	size_t n = strlen(src->name);
	return n > 5 && strcmp(src->name + n - 5, ".stpm") == 0;
}

/* define = '@define' name [macro_params] macro_body */
static void pp_define(struct pp *P, struct token *start)
{
	struct token *t = nx(P, start);
	struct macro *m = xalloc(sizeof *m);
	m->src = P->src;
	m->loc = start->loc;
	m->global = is_stpm(P->src);
	if (t->kind != TK_IDENT) {
		diag_error(&t->loc, "expected a macro name after @define");
		P->tok = t;
		return;
	}
	m->name = t->text;
	t = nx(P, t);
	if (t->kind == '(' && !(t = macro_params(P, t, m)))
		return;
	if (!macro_body(P, t, m))
		return;
	struct macro *old = find_macro(P, m->name);
	if (old && old->src == m->src) {
		diag_error(&start->loc, "macro '@%s' is already defined", m->name);
		diag_note(&old->loc, "the first definition is here");
		return;
	}
	m->next = macros;
	macros = m;
}

/* The arguments of a macro call; t is the '(' after the name. Returns
 * the token after ')', or NULL after an error. */
static struct token *macro_args(struct pp *P, struct token *t,
				struct token ***args,
				int *nargs)
{
	int depth = 0, n = 0;
	struct token **heads = xalloc(sizeof *heads * 64);
	struct token **tails = xalloc(sizeof *tails * 64);
	for (t = nx(P, t); t->kind != TK_EOF; t = nx(P, t)) {
		if (depth == 0 && (t->kind == ')' || t->kind == ',')) {
			n++;
			if (t->kind == ')' || n == 64)
				break;
			continue;
		}
		if (t->kind == '(' || t->kind == '[' || t->kind == '{')
			depth++;
		else if (t->kind == ')' || t->kind == ']' || t->kind == '}')
			depth--;
		struct token *c = copy_token(t, 0);
		if (tails[n])
			tails[n]->next = c;
		else
			heads[n] = c;
		tails[n] = c;
	}
	if (t->kind != ')')
		return NULL;
	if (n == 1 && !heads[0])
		n = 0;	/* f() */
	*args = heads;
	*nargs = n;
	return nx(P, t);
}

static int param_index(const struct macro *m, const char *name)
{
	for (int i = 0; i < m->nparams; i++)
		if (strcmp(m->params[i], name) == 0)
			return i;
	return -1;
}

static void append_one(struct token ***tail, const struct token *t, int depth)
{
	struct token *c = copy_token(t, depth);
	**tail = c;
	*tail = &c->next;
}

/* Append a copy of list to *tail. */
static void append_copies(struct token ***tail, const struct token *list,
			  int depth)
{
	for (; list; list = list->next)
		append_one(tail, list, depth);
}

/* expansion of @name or @name(args) */
static void pp_expand(struct pp *P, struct token *t, struct macro *m)
{
	struct token *rest = nx(P, t), **args = NULL;
	int nargs = 0;
	if (t->depth >= MAX_EXPANSION_DEPTH || ++P->expansions > MAX_EXPANSIONS) {
		/* report once, then drop every further expansion: a
		 * runaway macro must not bury the other errors */
		if (P->expansions <= MAX_EXPANSIONS + 1)
			diag_error(&t->loc, "macro '@%s' expands too deeply "
				   "(recursive?)", m->name);
		P->expansions = MAX_EXPANSIONS + 2;
		P->tok = rest;
		return;
	}
	if (m->has_parens) {
		if (rest->kind != '(' ||
		    !(rest = macro_args(P, rest, &args, &nargs))) {
			diag_error(&t->loc, "macro '@%s' needs a parenthesized "
				   "argument list", m->name);
			P->tok = nx(P, t);
			return;
		}
		if (nargs != m->nparams)
			diag_error(&t->loc, "macro '@%s' takes %d argument%s, "
				   "not %d", m->name, m->nparams,
				   m->nparams == 1 ? "" : "s", nargs);
	}
	struct token *first = NULL, **tail = &first;
	/* tokens of the body say where the macro was used, for messages */
	struct srcloc *use = xalloc(sizeof *use);
	*use = t->loc;
	for (struct token *b = m->body; b; b = b->next) {
		int i = b->kind == TK_AT ? param_index(m, b->text) : -1;
		if (i >= 0 && i < nargs) {
			append_copies(&tail, args[i], t->depth + 1);
		} else if (i < 0) {
			struct token **here = tail;
			append_one(&tail, b, t->depth + 1);
			(*here)->loc.via = use;
		}
	}
	if (first)
		first->space_before = t->space_before;
	struct token *last = first;
	while (last && last->next)
		last = last->next;
	splice(P, first, last, rest);
}

static bool is_script_arg(int kind)
{
	return kind == TK_ARG || kind == TK_ARG_STR || kind == TK_ARGC ||
	       kind == TK_ARGC_STR;
}

/* The next token after every directive, macro and argument is done. */
static struct token *pp_peek(struct pp *P)
{
	for (;;) {
		struct token *t = P->tok;
		struct macro *m;
		if (t->kind == TK_PP_IF) {
			pp_conditional(P, t);
		} else if (is_at(t, "define")) {
			pp_define(P, t);
		} else if (t->kind == TK_AT && (m = find_macro(P, t->text))) {
			pp_expand(P, t, m);
		} else if (is_script_arg(t->kind) && !env.keep_args) {
			pp_script_arg(P, t);
		} else if ((t->kind == TK_PP_THEN && !P->in_condition) ||
			   t->kind == TK_PP_ELSE || t->kind == TK_PP_END) {
			diag_error(&t->loc, "%s without a matching '%%('",
				   token_name(t->kind));
			P->tok = nx(P, t);
		} else {
			return t;
		}
	}
}

static void pp_emit(struct pp *P, struct token *t)
{
	struct token *prev = P->nout ? P->out[P->nout - 1] : NULL;
	if (prev && prev->kind == TK_STRING && t->kind == TK_STRING) {
		prev->text = xasprintf("%s%s", prev->text, t->text);
		return;
	}
	if (P->nout == P->cap) {
		P->cap = P->cap ? P->cap * 2 : 256;
		P->out = xrealloc(P->out, sizeof *P->out * (size_t)P->cap);
	}
	P->out[P->nout++] = copy_token(t, t->depth);
}

#define MAX_PP_ERRORS 100

struct token *lex_source(struct source *src, int *ntokens)
{
	env_defaults();
	int errors = diag_error_count();
	struct pp P = {.src = src};
	reject_nul_bytes(src);
	scanner_init(&P.sc, src);
	while (!P.sc.head.next)
		scan_step(&P.sc);
	P.tok = P.sc.head.next;
	for (;;) {
		struct token *t = pp_take(&P);
		if (diag_error_count() - errors > MAX_PP_ERRORS) {
			diag_note(&t->loc, "too many errors, giving up");
			while (t->kind != TK_EOF)
				t = nx(&P, t);
		}
		pp_emit(&P, t);
		if (t->kind == TK_EOF)
			break;
	}
	struct token *arr = xalloc(sizeof *arr * (size_t)P.nout);
	for (int i = 0; i < P.nout; i++) {
		arr[i] = *P.out[i];
		arr[i].next = i + 1 < P.nout ? &arr[i + 1] : NULL;
	}
	xfree(P.out);
	if (ntokens)
		*ntokens = P.nout;
	return arr;
}
