/* regex.c - POSIX extended regular expressions, compiled for a Pike VM.
 *
 * The pattern is parsed into a small tree, which is then flattened into
 * instructions (see regex.h); bounded repeats are expanded, so the size
 * of the program, and of the per-CPU memory one match needs, is capped:
 * a pattern over the cap is "regex too complex".
 *
 * Supported: literals, '.', bracket expressions (ranges, '^' negation,
 * [:class:], [.c.] and [=c=] of one character), '^' and '$' (anchors
 * anywhere), groups, '|' (empty branches allowed), '*' '+' '?' {m} {m,}
 * {m,n} {,n}, and '\' before a character that is not a letter or digit.
 * Not supported (errors): back-references, GNU escapes such as \w.
 * Bytes compare as unsigned values (the C locale).
 */
#include <string.h>

#include "ktap.h"
#include "regex.h"

#define REGEX_DUP_MAX 255	/* largest count in {m,n} */
#define REGEX_MAXDEPTH 100	/* nesting of groups */
#define REGEX_MAXINST 2048	/* hard cap while expanding repeats */
#define REGEX_MAXLEN 4096	/* bytes of pattern (bounds the recursion) */

enum node_kind {
	N_EMPTY, N_CHAR, N_ANY, N_CLASS, N_BOL, N_EOL,
	N_CAT, N_ALT, N_GROUP, N_REPEAT,
};

struct node {
	enum node_kind kind;
	unsigned char ch;
	unsigned char set[32];
	struct node *a, *b;	/* CAT, ALT: both; GROUP, REPEAT: a */
	int group;		/* GROUP: its number, from 1 */
	int min, max;		/* REPEAT: max -1 = no limit */
};

struct parser {
	const char *start, *p;
	char *error;
	int ngroups;
	int depth;
};

/* ---- errors ---- */

static void fail_at(struct parser *ps, const char *at, const char *msg)
{
	if (!ps->error)
		ps->error = xasprintf("%s at offset %d", msg, (int)(at - ps->start));
}

static struct node *new_node(enum node_kind kind)
{
	struct node *n = xalloc(sizeof(*n));

	n->kind = kind;
	return n;
}

static struct node *pair(enum node_kind kind, struct node *a, struct node *b)
{
	struct node *n = new_node(kind);

	n->a = a;
	n->b = b;
	return n;
}

/* ---- bracket expressions ---- */

static void set_bit(unsigned char *set, int c)
{
	set[c / 8] |= 1 << (c % 8);
}

static bool in_class(const char *name, int c)
{
	bool upper = c >= 'A' && c <= 'Z', lower = c >= 'a' && c <= 'z';
	bool digit = c >= '0' && c <= '9';
	bool graph = c > ' ' && c < 127;

	if (!strcmp(name, "alpha"))
		return upper || lower;
	if (!strcmp(name, "digit"))
		return digit;
	if (!strcmp(name, "alnum"))
		return upper || lower || digit;
	if (!strcmp(name, "upper"))
		return upper;
	if (!strcmp(name, "lower"))
		return lower;
	if (!strcmp(name, "space"))
		return c == ' ' || (c >= '\t' && c <= '\r');
	if (!strcmp(name, "blank"))
		return c == ' ' || c == '\t';
	if (!strcmp(name, "punct"))
		return graph && !upper && !lower && !digit;
	if (!strcmp(name, "print"))
		return graph || c == ' ';
	if (!strcmp(name, "graph"))
		return graph;
	if (!strcmp(name, "cntrl"))
		return c < ' ' || c == 127;
	return digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool known_class(const char *name)
{
	static const char *const names[] = {
		"alpha", "digit", "alnum", "upper", "lower", "space",
		"blank", "punct", "print", "graph", "cntrl", "xdigit",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

/* class := '[:' name ':]' */
static void bracket_class(struct parser *ps, unsigned char *set)
{
	const char *name = ps->p + 2, *end = strstr(name, ":]");
	char *s;
	int c;

	if (!end) {
		fail_at(ps, ps->p, "unterminated character class");
		return;
	}
	s = xstrndup(name, end - name);
	if (!known_class(s)) {
		fail_at(ps, ps->p, xasprintf("unknown character class '[:%s:]'", s));
		return;
	}
	for (c = 1; c < 256; c++)
		if (in_class(s, c))
			set_bit(set, c);
	ps->p = end + 2;
}

/* element := '[.' c '.]' | '[=' c '=]' | c   (one character; -1 on error) */
static int bracket_char(struct parser *ps)
{
	const char *p = ps->p;

	if (p[0] == '[' && (p[1] == '.' || p[1] == '=')) {
		if (!p[2] || p[3] != p[1] || p[4] != ']') {
			fail_at(ps, p, "only one-character collating elements are supported");
			return -1;
		}
		ps->p += 5;
		return (unsigned char)p[2];
	}
	if (!*p) {
		fail_at(ps, p, "unterminated bracket expression");
		return -1;
	}
	ps->p++;
	return (unsigned char)*p;
}

/* item := class | element | element '-' element */
static void bracket_item(struct parser *ps, unsigned char *set)
{
	const char *at = ps->p;
	int lo, hi, c;

	if (at[0] == '[' && at[1] == ':') {
		bracket_class(ps, set);
		if (!ps->error && ps->p[0] == '-' && ps->p[1] != ']')
			fail_at(ps, at, "a range cannot start with a character class");
		return;
	}
	lo = bracket_char(ps);
	if (lo < 0)
		return;
	if (ps->p[0] != '-' || ps->p[1] == ']' || !ps->p[1]) {
		set_bit(set, lo);
		return;
	}
	ps->p++;
	if (ps->p[0] == '[' && ps->p[1] == ':') {
		fail_at(ps, at, "a range cannot end with a character class");
		return;
	}
	hi = bracket_char(ps);
	if (hi < 0)
		return;
	if (hi < lo) {
		fail_at(ps, at, "invalid range (end before start)");
		return;
	}
	for (c = lo; c <= hi; c++)
		set_bit(set, c);
}

/* bracket := '[' '^'? ']'? item* ']' */
static struct node *bracket(struct parser *ps)
{
	const char *open = ps->p++;
	struct node *n = new_node(N_CLASS);
	bool negate = *ps->p == '^';
	int i;

	if (negate)
		ps->p++;
	if (*ps->p == ']')
		bracket_item(ps, n->set);	/* a literal ']' */
	while (*ps->p != ']' && !ps->error) {
		if (!*ps->p)
			fail_at(ps, open, "unterminated bracket expression");
		else
			bracket_item(ps, n->set);
	}
	if (ps->error)
		return NULL;
	ps->p++;
	if (negate)
		for (i = 0; i < 32; i++)
			n->set[i] = ~n->set[i];
	n->set[0] &= ~1;	/* never the NUL that ends the subject */
	return n;
}

/* ---- the grammar ---- */

static struct node *alternation(struct parser *ps);

static struct node *literal(unsigned char c)
{
	struct node *n = new_node(N_CHAR);

	n->ch = c;
	return n;
}

/* escape := '\' c   (c neither a letter nor a digit) */
static struct node *escape(struct parser *ps)
{
	const char *at = ps->p++;
	unsigned char c = *ps->p;

	if (!c) {
		fail_at(ps, at, "trailing backslash");
		return NULL;
	}
	if (c >= '1' && c <= '9') {
		fail_at(ps, at, "back-references are not supported");
		return NULL;
	}
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '0') {
		fail_at(ps, at, xasprintf("unsupported escape '\\%c'", c));
		return NULL;
	}
	ps->p++;
	return literal(c);
}

/* group := '(' alternation ')' */
static struct node *group(struct parser *ps)
{
	const char *open = ps->p++;
	struct node *n = new_node(N_GROUP);

	n->group = ++ps->ngroups;
	if (++ps->depth > REGEX_MAXDEPTH) {
		fail_at(ps, open, "regex too complex (groups nested too deeply)");
		return NULL;
	}
	n->a = alternation(ps);
	ps->depth--;
	if (ps->error)
		return NULL;
	if (*ps->p != ')') {
		fail_at(ps, open, "unmatched '('");
		return NULL;
	}
	ps->p++;
	return n;
}

/* atom := group | bracket | '.' | '^' | '$' | escape | c */
static struct node *atom(struct parser *ps)
{
	switch (*ps->p) {
	case '(':
		return group(ps);
	case '[':
		return bracket(ps);
	case '\\':
		return escape(ps);
	case '.':
		ps->p++;
		return new_node(N_ANY);
	case '^':
		ps->p++;
		return new_node(N_BOL);
	case '$':
		ps->p++;
		return new_node(N_EOL);
	case '*': case '+': case '?': case '{':
		fail_at(ps, ps->p, xasprintf("nothing to repeat before '%c'", *ps->p));
		return NULL;
	default:
		return literal(*ps->p++);
	}
}

/* number := digit+   (-1 if none) */
static int number(struct parser *ps)
{
	int n = -1;

	while (*ps->p >= '0' && *ps->p <= '9') {
		n = (n < 0 ? 0 : n) * 10 + (*ps->p++ - '0');
		if (n > REGEX_DUP_MAX)
			n = REGEX_DUP_MAX + 1;
	}
	return n;
}

/* bound := '{' number? (',' number?)? '}'   (at least one number) */
static bool bound(struct parser *ps, int *min, int *max)
{
	const char *open = ps->p++;

	*min = number(ps);
	*max = *min;
	if (*ps->p == ',') {
		ps->p++;
		*max = number(ps);
		if (*min < 0 && *max < 0) {
			fail_at(ps, open, "invalid repetition count");
			return false;
		}
		if (*min < 0)
			*min = 0;
	}
	if (!*ps->p) {
		fail_at(ps, open, "unmatched '{'");
		return false;
	}
	if (*ps->p != '}' || *min < 0) {
		fail_at(ps, open, "invalid repetition count");
		return false;
	}
	ps->p++;
	if (*min > REGEX_DUP_MAX || *max > REGEX_DUP_MAX ||
	    (*max >= 0 && *max < *min)) {
		fail_at(ps, open, "invalid repetition count (0 <= m <= n <= 255)");
		return false;
	}
	return true;
}

/* repeat := atom ('*' | '+' | '?' | bound)* */
static struct node *repeat(struct parser *ps)
{
	struct node *n = atom(ps);

	while (n && *ps->p && strchr("*+?{", *ps->p)) {
		const char *at = ps->p;
		struct node *r;
		int min = 0, max = -1;

		if (n->kind == N_BOL || n->kind == N_EOL) {
			fail_at(ps, at, "an anchor cannot be repeated");
			return NULL;
		}
		if (*at == '{' && !bound(ps, &min, &max))
			return NULL;
		if (*at == '+')
			min = 1;
		else if (*at == '?')
			max = 1;
		if (*at != '{')
			ps->p++;
		r = new_node(N_REPEAT);
		r->a = n;
		r->min = min;
		r->max = max;
		n = r;
	}
	return n;
}

/* concatenation := repeat*   (ends at '|', ')' or the end) */
static struct node *concatenation(struct parser *ps)
{
	struct node *n = new_node(N_EMPTY);

	while (*ps->p && *ps->p != '|' && *ps->p != ')') {
		struct node *r = repeat(ps);

		if (!r)
			return NULL;
		n = n->kind == N_EMPTY ? r : pair(N_CAT, n, r);
	}
	return n;
}

/* alternation := concatenation ('|' concatenation)* */
static struct node *alternation(struct parser *ps)
{
	struct node *n = concatenation(ps);

	while (n && *ps->p == '|') {
		struct node *b;

		ps->p++;
		b = concatenation(ps);
		if (!b)
			return NULL;
		n = pair(N_ALT, n, b);
	}
	return n;
}

/* ---- code generation ---- */

struct gen {
	struct regex_prog *prog;
	int cap;
	bool too_big;
};

static int emit(struct gen *g, enum regex_op op, int x, int y)
{
	struct regex_prog *p = g->prog;
	struct regex_inst *in;

	if (p->ninst >= REGEX_MAXINST) {
		g->too_big = true;
		return -1;
	}
	if (p->ninst == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 32;
		p->inst = xrealloc(p->inst, g->cap * sizeof(*p->inst));
	}
	in = &p->inst[p->ninst];
	memset(in, 0, sizeof(*in));
	in->op = op;
	in->x = x;
	in->y = y;
	return p->ninst++;
}

/* at: what emit() returned, -1 once the program is too big */
static void patch_y(struct gen *g, int at, int y)
{
	if (at >= 0)
		g->prog->inst[at].y = y;
}

static void patch_x(struct gen *g, int at, int x)
{
	if (at >= 0)
		g->prog->inst[at].x = x;
}

static void emit_char(struct gen *g, unsigned char c)
{
	int at = emit(g, REGEX_CHAR, 0, 0);

	if (at >= 0)
		g->prog->inst[at].ch = c;
}

static void gen_node(struct gen *g, const struct node *n);

/* a single-byte class is a CHAR */
static void gen_class(struct gen *g, const struct node *n)
{
	int i, count = 0, last = 0, at;

	for (i = 0; i < 256; i++)
		if (n->set[i / 8] & (1 << (i % 8))) {
			count++;
			last = i;
		}
	if (count == 1) {
		emit_char(g, last);
		return;
	}
	at = emit(g, REGEX_CLASS, 0, 0);
	if (at >= 0)
		memcpy(g->prog->inst[at].set, n->set, 32);
}

/* a|b:  SPLIT L1 L2; L1: a; JMP L3; L2: b; L3: */
static void gen_alt(struct gen *g, const struct node *n)
{
	int split = emit(g, REGEX_SPLIT, g->prog->ninst + 1, 0), jmp;

	gen_node(g, n->a);
	jmp = emit(g, REGEX_JMP, 0, 0);
	patch_y(g, split, g->prog->ninst);
	gen_node(g, n->b);
	patch_x(g, jmp, g->prog->ninst);
}

/* a+:  L: a; SPLIT L next */
static void gen_plus(struct gen *g, const struct node *a)
{
	int loop = g->prog->ninst;

	gen_node(g, a);
	emit(g, REGEX_SPLIT, loop, g->prog->ninst + 1);
}

/*
 * a{min,max}: a min times, then a+ (no max), or max - min optional
 * copies that all leave to the same end. a* is (a+)?, so that an a that
 * matches only the empty string still runs once (as POSIX wants).
 */
static void gen_repeat(struct gen *g, const struct node *n)
{
	int i, nopt, *splits;

	if (n->max < 0) {
		int split = -1;

		for (i = 1; i < n->min && !g->too_big; i++)
			gen_node(g, n->a);
		if (n->min == 0)
			split = emit(g, REGEX_SPLIT, g->prog->ninst + 1, 0);
		gen_plus(g, n->a);
		if (split >= 0)
			patch_y(g, split, g->prog->ninst);
		return;
	}
	for (i = 0; i < n->min && !g->too_big; i++)
		gen_node(g, n->a);
	nopt = n->max - n->min;
	splits = xalloc((nopt + 1) * sizeof(*splits));
	for (i = 0; i < nopt && !g->too_big; i++) {
		splits[i] = emit(g, REGEX_SPLIT, g->prog->ninst + 1, 0);
		gen_node(g, n->a);
	}
	while (i-- > 0)
		patch_y(g, splits[i], g->prog->ninst);
	xfree(splits);
}

static void gen_node(struct gen *g, const struct node *n)
{
	if (g->too_big)
		return;
	switch (n->kind) {
	case N_EMPTY:
		break;
	case N_CHAR:
		emit_char(g, n->ch);
		break;
	case N_ANY:
		emit(g, REGEX_ANY, 0, 0);
		break;
	case N_CLASS:
		gen_class(g, n);
		break;
	case N_BOL:
		emit(g, REGEX_BOL, 0, 0);
		break;
	case N_EOL:
		emit(g, REGEX_EOL, 0, 0);
		break;
	case N_CAT:
		gen_node(g, n->a);
		gen_node(g, n->b);
		break;
	case N_ALT:
		gen_alt(g, n);
		break;
	case N_GROUP:
		emit(g, REGEX_SAVE, 2 * n->group, 0);
		gen_node(g, n->a);
		emit(g, REGEX_SAVE, 2 * n->group + 1, 0);
		break;
	case N_REPEAT:
		gen_repeat(g, n);
		break;
	}
}

/* ---- the API ---- */

/* bytes of frame arena the runtime needs to run p */
static int worksize(const struct regex_prog *p)
{
	int i, nthreads = 0;

	for (i = 0; i < p->ninst; i++)
		nthreads += p->inst[i].op == REGEX_CHAR ||
			    p->inst[i].op == REGEX_ANY ||
			    p->inst[i].op == REGEX_CLASS ||
			    p->inst[i].op == REGEX_MATCH;
	return REGEX_WORKSIZE(p->ninst, nthreads, p->ngroups);
}

/* the tree of the whole pattern, or NULL and *error */
static struct node *parse(const char *pattern, int *ngroups, char **error)
{
	struct parser ps = { .start = pattern, .p = pattern };
	struct node *root;

	if (strlen(pattern) > REGEX_MAXLEN) {
		*error = xasprintf("regex too complex (longer than %d bytes)",
				   REGEX_MAXLEN);
		return NULL;
	}
	root = alternation(&ps);
	if (root && *ps.p == ')')
		fail_at(&ps, ps.p, "unmatched ')'");
	if (!ps.error && ps.ngroups + 1 > REGEX_MAXGROUPS)
		ps.error = xasprintf("too many groups (at most %d)",
				     REGEX_MAXGROUPS - 1);
	*error = ps.error;
	*ngroups = ps.ngroups + 1;
	return ps.error ? NULL : root;
}

/* SAVE 0; the pattern; SAVE 1; MATCH */
static void generate(struct gen *g, const struct node *root)
{
	emit(g, REGEX_SAVE, 0, 0);
	gen_node(g, root);
	emit(g, REGEX_SAVE, 1, 0);
	emit(g, REGEX_MATCH, 0, 0);
}

struct regex_prog *regex_compile(const char *pattern, char **error)
{
	struct regex_prog *p = xalloc(sizeof(*p));
	struct gen g = { .prog = p };
	struct node *root = parse(pattern, &p->ngroups, error);

	if (root)
		generate(&g, root);
	if (root && g.too_big)
		*error = xasprintf("regex too complex (more than %d instructions)",
				   REGEX_MAXINST);
	else if (root && worksize(p) > REGEX_MAXWORK)
		*error = xasprintf("regex too complex (a match would need %d bytes "
				   "of per-CPU memory, at most %d)",
				   worksize(p), REGEX_MAXWORK);
	if (*error) {
		regex_free(p);
		return NULL;
	}
	return p;
}

int regex_ngroups(const struct regex_prog *p)
{
	return p->ngroups;
}

void regex_free(struct regex_prog *p)
{
	if (!p)
		return;
	xfree(p->inst);
	xfree(p);
}

static const char *const op_names[] = {
	[REGEX_CHAR] = "KTAP_RE_CHAR", [REGEX_ANY] = "KTAP_RE_ANY",
	[REGEX_CLASS] = "KTAP_RE_CLASS", [REGEX_SPLIT] = "KTAP_RE_SPLIT",
	[REGEX_JMP] = "KTAP_RE_JMP", [REGEX_SAVE] = "KTAP_RE_SAVE",
	[REGEX_BOL] = "KTAP_RE_BOL", [REGEX_EOL] = "KTAP_RE_EOL",
	[REGEX_MATCH] = "KTAP_RE_MATCH",
};

static void emit_inst(struct strbuf *sb, const struct regex_inst *in)
{
	int i;

	sb_printf(sb, "\t{ .op = %s", op_names[in->op]);
	switch (in->op) {
	case REGEX_CHAR:
		sb_printf(sb, ", .ch = 0x%02x", in->ch);
		break;
	case REGEX_CLASS:
		sb_puts(sb, ",\n\t  .set = (const unsigned char *)\"");
		for (i = 0; i < 32; i++)
			sb_printf(sb, "\\%03o", in->set[i]);
		sb_putc(sb, '"');
		break;
	case REGEX_SPLIT:
		sb_printf(sb, ", .x = %d, .y = %d", in->x, in->y);
		break;
	case REGEX_JMP: case REGEX_SAVE:
		sb_printf(sb, ", .x = %d", in->x);
		break;
	default:
		break;
	}
	sb_puts(sb, " },\n");
}

char *regex_emit_c(const struct regex_prog *p, const char *name)
{
	struct strbuf sb = { 0 };
	int i;

	sb_printf(&sb, "static const struct ktap_re_inst %s[] = {\n", name);
	for (i = 0; i < p->ninst; i++)
		emit_inst(&sb, &p->inst[i]);
	sb_printf(&sb, "};\n#define %s_NGROUPS %d\n", name, p->ngroups);
	return sb.buf;
}
