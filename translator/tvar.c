/* tvar.c - target variables and expressions: $var->field[i], $$vars, @cast, @var,
 * @entry, @defined.
 *
 * Binding happens in pass 2, per concrete point: each $name is looked up
 * in the point's scope (variables from DWARF or BTF, tracepoint arguments),
 * each ->field and [i] is checked against the C types, and the result is a
 * C template that emit.c fills with the emitted index expressions. The C
 * only uses runtime/target.h's helpers: ktap_reg() for registers and
 * ktap_kread() for no-fault reads of kernel memory.
 *
 * A template marks its holes with "\1I<digit>" (index expression n),
 * "\1P" (@cast's pointer) and "\1S" (a string temporary).
 */
#include <string.h>

#include "ktap.h"
#include "debuginfo.h"
#include "program.h"
#include "target.h"

struct tvar_access {
	char *c;			/* the template */
	bool is_string;			/* $var$ and $$vars: a string */
	char *store_c;			/* guru `$var = v`: C that stores "\1V" */
	char *append_c;			/* a probe string's `.=`: C appending "\1V" */
	bool probe_string;		/* the probe's own string (procfs $value) */
	struct expr **index;		/* the [i] expressions, in order */
	int nindex;
	struct expr *cast_ptr;		/* @cast's pointer expression */
	const char *points_to;		/* a pointer to this struct (autocast) */
};

/* where a walk along a path is: a value, a place in memory, or both */
struct cursor {
	struct ctype *type;
	char *value;			/* C for the value (unsigned long) */
	char *addr;			/* C for its address */
	int bit_shift, bit_size;	/* a bitfield at addr */
	int reg;			/* the variable's DWARF register when its
					 * value is one (start_var()); else -1 */
	struct tvar_access *acc;
	bool user;			/* in user space (tvar_scope.user) */
};

#define MAX_PRETTY_DEPTH 2
#define MAX_PRETTY_ELEMS 8

/* ---- types ---- */

static bool is_scalar(const struct ctype *t)
{
	return t && (t->kind == CT_INT || t->kind == CT_ENUM ||
		     t->kind == CT_POINTER);
}

static bool is_aggregate(const struct ctype *t)
{
	return t && (t->kind == CT_STRUCT || t->kind == CT_UNION);
}

static const char *type_text(const struct ctype *t)
{
	return t ? t->name ? t->name : "an unnamed type" : "void";
}

/* the member called name, looking inside anonymous structs and unions;
 * *offset gets its offset from the start of t */
static struct ctype_member *find_member(struct ctype *t, const char *name,
					uint64_t *offset)
{
	struct ctype_member *m;
	int n, i;

	n = ctype_members(t, &m);
	for (i = 0; i < n; i++) {
		if (m[i].name && strcmp(m[i].name, name) == 0) {
			*offset = m[i].offset;
			return &m[i];
		}
		if (!m[i].name && is_aggregate(m[i].type)) {
			uint64_t inner;
			struct ctype_member *found = find_member(m[i].type, name, &inner);

			if (found) {
				/* bit offsets are absolute in the inner type */
				*offset = m[i].offset + inner;
				return found;
			}
		}
	}
	return NULL;
}

static void collect_member_names(struct ctype *t, const char ***names, int *n)
{
	struct ctype_member *m;
	int count, i;

	count = ctype_members(t, &m);
	for (i = 0; i < count; i++) {
		if (m[i].name) {
			*names = xrealloc(*names, (*n + 1) * sizeof(**names));
			(*names)[(*n)++] = m[i].name;
		} else if (is_aggregate(m[i].type)) {
			collect_member_names(m[i].type, names, n);
		}
	}
}

/* ---- reading values ---- */

/* the C that converts an unsigned long of this type to int64_t */
static char *to_int64(const struct ctype *t, const char *v)
{
	static const char *const sgn[] = { [1] = "s8", [2] = "s16", [4] = "s32" };
	static const char *const uns[] = { [1] = "u8", [2] = "u16", [4] = "u32" };
	uint64_t size = t ? t->size : 8;

	if (t && t->kind != CT_POINTER && (size == 1 || size == 2 || size == 4))
		return xasprintf("((int64_t)(%s)(%s))",
				 t->is_signed ? sgn[size] : uns[size], v);
	return xasprintf("((int64_t)(%s))", v);
}

static int read_size(int bytes)
{
	return bytes <= 1 ? 1 : bytes <= 2 ? 2 : bytes <= 4 ? 4 : 8;
}

/* the no-fault reader of the cursor's memory (runtime/target.h) */
static const char *read_fn(const struct cursor *cur)
{
	return cur->user ? "ktap_uread" : "ktap_kread";
}

/* ... and of its strings, for pretty-printing */
static const char *string_fn(const struct cursor *cur)
{
	return cur->user ? "ktap_tgt_ustring" : "ktap_tgt_kstring";
}

/* the value at the cursor as unsigned long C, or NULL with *err */
static char *cursor_value(const struct cursor *cur, const char **err)
{
	uint64_t size = cur->type ? cur->type->size : 8;

	if (cur->bit_size) {
		int bytes = read_size((cur->bit_shift + cur->bit_size + 7) / 8);
		unsigned long long mask = cur->bit_size >= 64 ? ~0ULL :
					  (1ULL << cur->bit_size) - 1;
		char *v = xasprintf("((%s(c, %s, %d) >> %d) & 0x%llxULL)",
				    read_fn(cur), cur->addr, bytes, cur->bit_shift, mask);

		if (cur->type && cur->type->is_signed && cur->bit_size < 64)
			v = xasprintf("((unsigned long)(((int64_t)%s << %d) >> %d))", v,
				      64 - cur->bit_size, 64 - cur->bit_size);
		return v;
	}
	if (cur->value)
		return cur->value;
	if (!cur->addr) {
		*err = "it has no value here";
		return NULL;
	}
	if (size != 1 && size != 2 && size != 4 && size != 8) {
		*err = xasprintf("its type %s is %llu bytes, not a number", type_text(cur->type),
				 (unsigned long long)size);
		return NULL;
	}
	return xasprintf("%s(c, %s, %d)", read_fn(cur), cur->addr, (int)size);
}

/* ---- walking a path ---- */

static char *hole_index(int n)
{
	return xasprintf("((unsigned long)(\1I%d))", n);
}

/* ->name */
static const char *step_member(struct cursor *cur, const struct target_step *st)
{
	struct ctype_member *m;
	uint64_t off;
	const char *err = NULL;

	if (cur->type && cur->type->kind == CT_POINTER) {
		char *p = cursor_value(cur, &err);

		if (!p)
			return err;
		cur->type = cur->type->target;
		cur->addr = p;
		cur->value = NULL;
	}
	if (!is_aggregate(cur->type))
		return xasprintf("'->%s' needs a struct or union, but this is %s",
				 st->field, type_text(cur->type));
	m = find_member(cur->type, st->field, &off);
	if (!m) {
		const char **names = NULL, *best;
		int n = 0;

		collect_member_names(cur->type, &names, &n);
		best = diag_closest(st->field, names, n);
		return xasprintf("%s has no member '%s'%s%s%s", type_text(cur->type), st->field,
				 best ? " (did you mean '" : "", best ? best : "", best ? "'?)" : "");
	}
	if (!cur->addr)
		return xasprintf("%s is held in registers here: its members cannot be read",
				 type_text(cur->type));
	if (m->bit_size) {
		/* off - m->offset: the anonymous containers around m;
		 * m->bit_offset counts from the innermost one */
		uint64_t bits = (off - m->offset) * 8 + (uint64_t)m->bit_offset;

		cur->addr = xasprintf("(%s + %lluUL)", cur->addr,
				      (unsigned long long)(bits / 8));
		cur->bit_shift = (int)(bits % 8);
		cur->bit_size = m->bit_size;
	} else {
		cur->bit_size = 0;
		cur->addr = xasprintf("(%s + %lluUL)", cur->addr, (unsigned long long)off);
	}
	cur->type = m->type;
	cur->value = NULL;
	return NULL;
}

/* [i] */
static const char *step_index(struct cursor *cur, const struct target_step *st)
{
	struct tvar_access *acc = cur->acc;
	struct ctype *elem;
	const char *err = NULL;
	char *base;

	if (cur->type && cur->type->kind == CT_POINTER) {
		base = cursor_value(cur, &err);
		if (!base)
			return err;
	} else if (cur->type && cur->type->kind == CT_ARRAY) {
		if (!cur->addr)
			return "the array is held in registers here";
		base = cur->addr;
	} else {
		return xasprintf("'[...]' needs a pointer or an array, but this is %s",
				 type_text(cur->type));
	}
	elem = cur->type->target;
	if (acc->nindex == 9)
		return "too many [...] in one target expression (at most 9)";
	if (!elem || !elem->size)
		return xasprintf("cannot index %s: its elements have no size", type_text(cur->type));
	acc->index = xrealloc(acc->index, (acc->nindex + 1) * sizeof(*acc->index));
	acc->index[acc->nindex] = st->index;
	cur->addr = xasprintf("(%s + %s * %lluUL)", base, hole_index(acc->nindex),
			      (unsigned long long)elem->size);
	acc->nindex++;
	cur->type = elem;
	cur->value = NULL;
	cur->bit_size = 0;
	return NULL;
}

/* *failed: the step an error is about */
static const char *walk_path(struct cursor *cur, const struct target_step *st,
			     const struct target_step **failed)
{
	const char *err = NULL;

	for (; st && !err; st = st->next) {
		err = st->kind == TS_MEMBER ? step_member(cur, st) : step_index(cur, st);
		*failed = st;
	}
	return err;
}

/* ---- the result ---- */

static void pretty(struct strbuf *sb, const struct cursor *cur, int depth);

static void pretty_printf(struct strbuf *sb, const char *fmt, const char *arg)
{
	sb_printf(sb, "n_ = ktap_tgt_printf(\1S, n_, \"%s\"%s%s); ", fmt, arg ? ", " : "",
		  arg ? arg : "");
}

static void pretty_members(struct strbuf *sb, const struct cursor *cur, int depth)
{
	struct ctype_member *m;
	int n, i;

	n = ctype_members(cur->type, &m);
	pretty_printf(sb, "{", NULL);
	for (i = 0; i < n; i++) {
		struct cursor inner = *cur;

		inner.type = m[i].type;
		inner.value = NULL;
		inner.addr = xasprintf("(%s + %lluUL)", cur->addr, (unsigned long long)m[i].offset);
		inner.bit_size = m[i].bit_size;
		inner.bit_shift = m[i].bit_size ? m[i].bit_offset % 8 : 0;
		if (m[i].bit_size)
			inner.addr = xasprintf("(%s + %dUL)", cur->addr, m[i].bit_offset / 8);
		if (i)
			pretty_printf(sb, ", ", NULL);
		if (m[i].name)
			pretty_printf(sb, xasprintf(".%s=", m[i].name), NULL);
		pretty(sb, &inner, depth + 1);
	}
	pretty_printf(sb, "}", NULL);
}

static void pretty_array(struct strbuf *sb, const struct cursor *cur, int depth)
{
	struct ctype *elem = cur->type->target;
	uint64_t i, n = cur->type->nelems;

	if (elem && elem->is_char && elem->size == 1) {
		sb_printf(sb, "n_ = %s(c, \1S, n_, %s, %llu); ", string_fn(cur), cur->addr,
			  (unsigned long long)(n ? n : 64));
		return;
	}
	pretty_printf(sb, "[", NULL);
	for (i = 0; elem && elem->size && i < n && i < MAX_PRETTY_ELEMS; i++) {
		struct cursor inner = *cur;

		inner.type = elem;
		inner.value = NULL;
		inner.bit_size = 0;
		inner.addr = xasprintf("(%s + %lluUL)", cur->addr,
				       (unsigned long long)(i * elem->size));
		if (i)
			pretty_printf(sb, ", ", NULL);
		pretty(sb, &inner, depth + 1);
	}
	pretty_printf(sb, n > MAX_PRETTY_ELEMS ? ", ...]" : "]", NULL);
}

/* append C that prints the value at cur the way $var$ shows it */
static void pretty(struct strbuf *sb, const struct cursor *cur, int depth)
{
	const struct ctype *t = cur->type;
	const char *err = NULL;
	char *v;

	if (is_aggregate(t) && cur->addr) {
		if (depth >= MAX_PRETTY_DEPTH)
			pretty_printf(sb, "{...}", NULL);
		else
			pretty_members(sb, cur, depth);
		return;
	}
	if (t && t->kind == CT_ARRAY && cur->addr) {
		pretty_array(sb, cur, depth);
		return;
	}
	v = is_scalar(t) ? cursor_value(cur, &err) : NULL;
	if (!v) {
		pretty_printf(sb, "?", NULL);
		return;
	}
	if (t->kind == CT_POINTER && t->target && t->target->is_char && t->target->size == 1)
		sb_printf(sb, "n_ = %s(c, \1S, n_, %s, 0); ", string_fn(cur), v);
	else if (t->kind == CT_POINTER)
		pretty_printf(sb, "%#llx", xasprintf("(unsigned long long)%s", v));
	else
		pretty_printf(sb, "%lld", xasprintf("(long long)%s", to_int64(t, v)));
}

/* $var$: the value as text, in a string temporary */
static char *pretty_c(const struct cursor *cur, bool deep)
{
	struct strbuf sb = { 0 };

	sb_puts(&sb, "({ size_t n_ = 0; ");
	pretty(&sb, cur, deep ? 0 : MAX_PRETTY_DEPTH - 1);
	sb_puts(&sb, "(void)n_; \1S; })");
	return sb.buf;
}

/* the C of the whole access, or NULL with *err */
static char *finish(struct cursor *cur, const struct expr *e, bool address_of,
		    const char **err)
{
	const struct ctype *t = cur->type;
	char *v;

	if (address_of) {
		if (!cur->addr || cur->bit_size) {
			*err = "it has no address here";
			return NULL;
		}
		return xasprintf("((int64_t)(%s))", cur->addr);
	}
	if (e->suffix) {
		cur->acc->is_string = true;
		return pretty_c(cur, strcmp(e->suffix, "$$") == 0);
	}
	if (t && t->kind == CT_ARRAY) {
		if (!cur->addr) {
			*err = "the array is held in registers here";
			return NULL;
		}
		return xasprintf("((int64_t)(%s))", cur->addr);	/* decays */
	}
	if (!is_scalar(t)) {
		*err = xasprintf("it is %s, not a number: read a member with '->', "
				 "or print it with a '$' suffix", type_text(t));
		return NULL;
	}
	v = cursor_value(cur, err);
	return v ? to_int64(t, v) : NULL;
}

/* `$var = v` (guru mode): C that stores the value hole "\1V" where the
 * variable is (DWARF register reg when it is >= 0), or NULL with *err */
static char *store_c(const struct cursor *cur, int reg, const char **err)
{
	if (cur->bit_size) {
		*err = "it is a bitfield";
		return NULL;
	}
	if (!is_scalar(cur->type)) {
		*err = "only numbers and pointers can be assigned";
		return NULL;
	}
	if (reg >= 0)
		return xasprintf("ktap_set_reg(c, %d, (unsigned long)(\1V))", reg);
	if (cur->addr && (cur->type->size == 1 || cur->type->size == 2 ||
			  cur->type->size == 4 || cur->type->size == 8))
		return xasprintf("ktap_kwrite(c, %s, %d, (unsigned long)(\1V))", cur->addr,
				 (int)cur->type->size);
	*err = "it is not in a register or in memory here";
	return NULL;
}

/* ---- binding ---- */

/* autocast: script values known to point to a kernel type */
struct autocast {
	const struct symbol *sym;	/* a local assigned such a value */
	const char *type, *module;
};
struct autocasts {
	struct autocast *v;
	int n;
};

struct binder {
	struct autocasts *casts;		/* shared by trial copies */
	struct resolved_probe *rp;
	struct tvar_scope *scope;		/* NULL: no $vars here */
	const char *context;			/* "a function" when !rp */
	bool silent;				/* @defined: just try */
	bool failed;
	bool in_entry;				/* inside @entry() */
};

static void bind_error(struct binder *b, const struct srcloc *loc, const char *fmt,
		       const char *what, const char *why)
{
	b->failed = true;
	if (!b->silent)
		diag_error(loc, fmt, what, why);
}

/* the scope's variables, worked out on first use: a point whose handler
 * reads none (kernel.function("*") {}) never costs the DWARF walk */
int tvar_scope_vars(struct tvar_scope *sc, struct cvar **vars)
{
	if (sc->load) {
		sc->load(sc);
		sc->load = NULL;
	}
	*vars = sc->vars;
	return sc->nvars;
}

static struct cvar *scope_var(struct tvar_scope *sc, const char *name)
{
	struct cvar *vars;
	int i, n = sc ? tvar_scope_vars(sc, &vars) : 0;

	for (i = 0; i < n; i++)
		if (strcmp(vars[i].name, name) == 0)
			return &vars[i];
	return NULL;
}

static void suggest_var(struct binder *b, const struct expr *e)
{
	const char **names = xalloc((b->scope->nvars + 1) * sizeof(*names));
	struct strbuf all = { 0 };
	const char *best;
	int i;

	sb_puts(&all, "");
	for (i = 0; i < b->scope->nvars; i++) {
		names[i] = xasprintf("$%s", b->scope->vars[i].name);
		sb_printf(&all, "%s%s", i ? " " : "", names[i]);
	}
	best = diag_closest(e->str, names, b->scope->nvars);
	if (best)
		diag_note(&e->loc, "did you mean '%s'?", best);
	else if (b->scope->nvars)
		diag_note(&e->loc, "the variables there: %s", all.buf);
}

/* $name that is no variable of the point: the kernel's global of that
 * name ($jiffies), as SystemTap finds it, also where no point is (a
 * function, a begin probe) */
static bool start_kernel_global(const char *name, struct cursor *cur)
{
	struct dw *dw = target_dwarf(target_kernel(), NULL);
	struct cvar v;

	if (!dw || strcmp(name, "return") == 0 || !dw_global(dw, name, &v) || v.unavailable)
		return false;
	cur->type = v.type;
	cur->value = v.value_c ? xstrdup(v.value_c) : NULL;
	cur->addr = v.addr_c ? xstrdup(v.addr_c) : NULL;
	return true;
}

/* the cursor at the start of $name */
static bool start_var(struct binder *b, struct expr *e, struct cursor *cur)
{
	const char *name = e->str + 1;
	const struct cvar *v;

	if ((!b->scope || (strcmp(name, "return") != 0 && !scope_var(b->scope, name))) &&
	    start_kernel_global(name, cur))
		return true;
	if (!b->scope) {
		bind_error(b, &e->loc, "%s is not available %s (target variables need a "
			   "kernel.function, kernel.statement or kernel.trace probe)",
			   e->str, b->context);
		return false;
	}
	if (strcmp(name, "return") == 0) {
		struct cvar *unused;

		tvar_scope_vars(b->scope, &unused);	/* loads the return type */
		if (!b->scope->is_return || b->in_entry) {
			bind_error(b, &e->loc, "%s is only available in .return probes%s",
				   e->str, "");
			return false;
		}
		cur->type = b->scope->return_type;
		cur->value = "((unsigned long)c->retval)";
		if (!cur->type) {
			bind_error(b, &e->loc, "%s: %s returns void", e->str, b->scope->where);
			return false;
		}
		return true;
	}
	v = scope_var(b->scope, name);
	if (!v) {
		bind_error(b, &e->loc, "no variable '%s' at %s", e->str, b->scope->where);
		if (!b->silent)
			suggest_var(b, e);
		return false;
	}
	if (v->unavailable) {
		bind_error(b, &e->loc, "cannot read %s here: %s", e->str, v->unavailable);
		return false;
	}
	cur->type = v->type;
	cur->value = v->value_c ? xstrdup(v->value_c) : NULL;
	cur->addr = v->addr_c ? xstrdup(v->addr_c) : NULL;
	cur->reg = v->in_reg ? v->reg : -1;
	return true;
}

static struct ctype *named_type(const char *name, const char **why)
{
	char *w = NULL;
	struct dw *dw = target_dwarf(target_kernel(), &w);
	struct btf_kernel *btf;
	struct ctype *t;

	if (dw && (t = dw_type_named(dw, name)))
		return t;
	btf = dw ? NULL : target_btf(target_kernel(), &w);
	if (btf && (t = btfk_type_named(btf, name)))
		return t;
	*why = dw || btf ? "the kernel's debuginfo has no such type" : w;
	return NULL;
}

static bool start_cast(struct binder *b, struct expr *e, struct cursor *cur)
{
	const char *why = NULL, *name = e->str;
	struct ctype *t;

	t = named_type(name, &why);
	if (!t) {
		bind_error(b, &e->loc, "@cast to unknown type '%s': %s", name, why);
		return false;
	}
	cur->acc->cast_ptr = e->lhs;
	cur->type = t;
	cur->addr = "((unsigned long)(\1P))";
	return true;
}

static bool start_at_var(struct binder *b, struct expr *e, struct cursor *cur)
{
	char *why = NULL;
	struct dw *dw = target_dwarf(target_kernel(), &why);
	struct cvar v;

	if (!dw) {
		bind_error(b, &e->loc, "@var(\"%s\") needs the kernel's DWARF: %s", e->str, why);
		return false;
	}
	if (!dw_global(dw, e->str, &v)) {
		bind_error(b, &e->loc, "the kernel has no global variable '%s'%s", e->str, "");
		return false;
	}
	if (v.unavailable) {
		bind_error(b, &e->loc, "cannot read @var(\"%s\"): %s", e->str, v.unavailable);
		return false;
	}
	cur->type = v.type;
	cur->value = v.value_c ? xstrdup(v.value_c) : NULL;
	cur->addr = v.addr_c ? xstrdup(v.addr_c) : NULL;
	return true;
}

/* bind one $var / @cast / @var access (with its path); address_of: '&';
 * store: the left side of a guru assignment */
/* $value of procfs probes: a string the probe holds, read and assigned
 * whole; true when e is one (bound, or failed with an error) */
static bool bind_probe_string(struct binder *b, struct expr *e, bool address_of)
{
	const struct cvar *v = e->kind == EX_TARGET ? scope_var(b->scope, e->str + 1) : NULL;
	struct tvar_access *acc;

	if (!v || !v->str_read_c)
		return false;
	if (e->path || e->suffix || address_of) {
		bind_error(b, &e->loc, "%s is a string%s: it has no members, suffix or address",
			   e->str, "");
		return true;
	}
	acc = xalloc(sizeof(*acc));
	acc->c = xstrdup(v->str_read_c);
	acc->store_c = xstrdup(v->str_store_c);
	acc->append_c = xstrdup(v->str_append_c);
	acc->is_string = acc->probe_string = true;
	e->access = acc;
	return true;
}

static bool bind_access_for(struct binder *b, struct expr *e, bool address_of, bool store)
{
	struct tvar_access *acc = xalloc(sizeof(*acc));
	struct cursor cur = { .acc = acc, .reg = -1, .user = b->scope && b->scope->user };
	const struct target_step *failed = NULL;
	const char *err = NULL;
	bool ok;

	if (bind_probe_string(b, e, address_of))
		return e->access != NULL;
	switch (e->kind) {
	case EX_TARGET:
		ok = start_var(b, e, &cur);
		break;
	case EX_CAST:
		ok = start_cast(b, e, &cur);
		break;
	case EX_AT_VAR:
		ok = start_at_var(b, e, &cur);
		break;
	default:
		bind_error(b, &e->loc, "%s%s", "'->' on a script value is not supported: "
			   "use @cast(value, \"type\")->field", "");
		return false;
	}
	if (!ok)
		return false;
	err = walk_path(&cur, e->path, &failed);
	if (err) {
		bind_error(b, &failed->loc, "%s%s", "", err);
		return false;
	}
	if (store) {
		/* a register variable with no path is written in the saved
		 * registers ($return: rax, DWARF 0, the value the caller sees) */
		int reg = e->path ? -1 : e->kind == EX_TARGET && strcmp(e->str, "$return") == 0
			  ? 0 : cur.reg;

		acc->store_c = store_c(&cur, reg, &err);
		if (!acc->store_c) {
			bind_error(b, &e->loc, "cannot assign to %s: %s", e->str, err);
			return false;
		}
	}
	if (cur.type && cur.type->kind == CT_POINTER && cur.type->target &&
	    (cur.type->target->kind == CT_STRUCT || cur.type->target->kind == CT_UNION) &&
	    cur.type->target->name)
		acc->points_to = cur.type->target->name;
	acc->c = finish(&cur, e, address_of, &err);
	if (err) {
		bind_error(b, &e->loc, "cannot read %s: %s",
			   e->kind == EX_TARGET ? e->str : e->kind == EX_CAST ? "@cast(...)"
			   : "@var(...)", err);
		return false;
	}
	e->access = acc;
	return true;
}

/* $$vars, $$parms, $$locals, $$return (+ '$' suffix) */
static bool bind_special(struct binder *b, struct expr *e)
{
	struct tvar_access *acc = xalloc(sizeof(*acc));
	bool parms = strcmp(e->str, "$$parms") == 0, locals = strcmp(e->str, "$$locals") == 0;
	struct strbuf sb = { 0 };
	struct cvar *vars;
	int i, n = 0;

	if (!b->scope) {
		bind_error(b, &e->loc, "%s is not available %s", e->str, b->context);
		return false;
	}
	if (strcmp(e->str, "$$name") == 0 || strcmp(e->str, "$$provider") == 0) {
		bind_error(b, &e->loc, "%s is only defined in user-space marker probes%s",
			   e->str, "");
		return false;
	}
	sb_puts(&sb, "({ size_t n_ = 0; ");
	tvar_scope_vars(b->scope, &vars);
	if (strcmp(e->str, "$$return") == 0) {
		struct cursor cur = { .acc = acc, .type = b->scope->return_type,
				      .value = "((unsigned long)c->retval)",
				      .user = b->scope->user };

		if (!b->scope->is_return) {
			bind_error(b, &e->loc, "%s is only defined in .return probes%s",
				   e->str, "");
			return false;
		}
		/* a function that returns nothing: "", as SystemTap documents */
		if (cur.type) {
			sb_puts(&sb, "n_ = ktap_tgt_printf(\1S, n_, \"return=\"); ");
			pretty(&sb, &cur, e->suffix ? MAX_PRETTY_DEPTH - 1 : MAX_PRETTY_DEPTH);
		}
	}
	for (i = 0; !strstr(e->str, "return") && i < b->scope->nvars; i++) {
		const struct cvar *v = &vars[i];
		struct cursor cur = { .acc = acc, .type = v->type,
				      .value = (char *)v->value_c, .addr = (char *)v->addr_c,
				      .user = b->scope->user };

		if ((parms && !v->is_param) || (locals && v->is_param))
			continue;
		if (b->scope->is_return && !v->is_param)
			continue;	/* locals are gone at the return */
		sb_printf(&sb, "n_ = ktap_tgt_printf(\1S, n_, \"%s%s=\"); ", n++ ? " " : "",
			  v->name);
		if (v->unavailable || (!e->suffix && !is_scalar(v->type)))
			pretty_printf(&sb, "?", NULL);
		else if (e->suffix)
			pretty(&sb, &cur, strcmp(e->suffix, "$$") == 0 ? 0 : MAX_PRETTY_DEPTH - 1);
		else {
			const char *err = NULL;
			char *val = cursor_value(&cur, &err);

			if (val)
				pretty_printf(&sb, "%#llx", xasprintf("(unsigned long long)%s", val));
			else
				pretty_printf(&sb, "?", NULL);
		}
	}
	sb_puts(&sb, "(void)n_; \1S; })");
	acc->c = sb.buf;
	acc->is_string = true;
	e->access = acc;
	return true;
}

static bool bind_visit(struct expr *e, void *arg);

/* @defined(x): 1 when x binds here, else 0; the node becomes a number */
static bool defined_here(struct binder *b, struct expr *defined);

static bool bind_access(struct binder *b, struct expr *e, bool address_of)
{
	return bind_access_for(b, e, address_of, false);
}

static void fold_defined(struct binder *b, struct expr *e)
{
	e->num = defined_here(b, e);
	e->kind = EX_NUMBER;
	e->lhs = NULL;
}

/* .return probes: @entry(x) and plain reads of parameters are evaluated
 * at the function's entry and saved (kretprobe instance data) */
static void make_entry(struct binder *b, struct expr *e, struct expr *inner)
{
	struct resolved_probe *rp = b->rp;
	struct tvar_access *acc = xalloc(sizeof(*acc));
	struct binder entry = *b;

	/* a uretprobe has no instance data to save them in */
	if (b->scope->user) {
		bind_error(b, &e->loc, "cannot read %s in the .return probe of a user-space "
			   "function (not supported yet)%s", inner->kind == EX_TARGET ?
			   inner->str : "@entry()", ": only $return");
		return;
	}
	entry.in_entry = true;
	ast_walk_expr(inner, bind_visit, &entry);
	if (entry.failed) {
		b->failed = true;
		return;
	}
	rp->entry_exprs = xrealloc(rp->entry_exprs,
				   (rp->nentry_exprs + 1) * sizeof(*rp->entry_exprs));
	rp->entry_exprs[rp->nentry_exprs] = inner;
	acc->c = xasprintf("((int64_t)c->tp_args[%d])", rp->nentry_exprs);
	rp->nentry_exprs++;
	if (e != inner)
		e->lhs = inner;
	e->access = acc;
}

static bool wants_entry_value(const struct binder *b, const struct expr *e)
{
	return b->rp && b->scope && b->scope->is_return && !b->in_entry &&
	       e->kind == EX_TARGET && strcmp(e->str, "$return") != 0;
}

/* the value of @defined(x) here, without binding anything */
static bool defined_here(struct binder *b, struct expr *defined)
{
	struct binder trial = *b;

	trial.silent = true;
	trial.failed = false;
	ast_walk_expr(defined->lhs, bind_visit, &trial);
	return !trial.failed;
}

/* `@defined($x) ? $x : y` is decided here: only the branch taken is bound
 * (the other may name what this point does not have); e becomes it */
static bool fold_defined_ternary(struct binder *b, struct expr *e)
{
	bool negated = e->cond->kind == EX_UNARY && e->cond->op == OP_NOT &&
		       e->cond->lhs->kind == EX_DEFINED;
	struct expr *d = negated ? e->cond->lhs : e->cond;
	struct expr *live;

	if (d->kind != EX_DEFINED)
		return false;
	live = defined_here(b, d) != negated ? e->lhs : e->rhs;
	*e = *live;
	ast_walk_expr(e, bind_visit, b);
	return true;
}

bool tvar_skip_badvars;

/* --skip-badvars: a $var that cannot be read here reads as 0, with a
 * warning, instead of stopping the script at pass 2 */
static bool skip_bad_var(struct binder *b, struct expr *e)
{
	struct binder trial = *b;

	if (!tvar_skip_badvars || b->silent)
		return false;
	trial.silent = true;
	trial.failed = false;
	ast_walk_expr(e, bind_visit, &trial);
	if (!trial.failed)
		return false;
	diag_warning(&e->loc, "%s cannot be read here: it reads as 0 (--skip-badvars)", e->str);
	e->kind = EX_NUMBER;
	e->num = 0;
	e->path = NULL;
	e->access = NULL;
	return true;
}

/* the tapset functions that return a task_struct pointer */
static const char *const task_functions[] = { "task_current", "task_parent", "pid2task" };

/* the kernel type e points to, when the script says so: a call of one of
 * task_functions, a target expression of a struct pointer type, a local
 * assigned one */
static bool pointer_type_of(const struct binder *b, const struct expr *e,
			    const char **type, const char **module)
{
	size_t i;
	int k;

	*module = "kernel";
	if (e->kind == EX_CALL) {
		for (i = 0; i < sizeof(task_functions) / sizeof(task_functions[0]); i++)
			if (strcmp(e->str, task_functions[i]) == 0) {
				*type = "task_struct";
				return true;
			}
	} else if (e->access && e->access->points_to) {
		*type = e->access->points_to;
		return true;
	} else if (e->kind == EX_VAR && e->sym && e->sym->kind != SYM_GLOBAL && b->casts) {
		for (k = 0; k < b->casts->n; k++)
			if (b->casts->v[k].sym == e->sym) {
				*type = b->casts->v[k].type;
				*module = b->casts->v[k].module;
				return true;
			}
	}
	return false;
}

/* @cast_sizeof("type"): the type's size, a number from here on */
static void fold_sizeof(struct binder *b, struct expr *e)
{
	const char *why = NULL;
	struct ctype *t = named_type(e->str, &why);

	if (!t || !t->size) {
		bind_error(b, &e->loc, "@cast_sizeof: no size for type '%s'%s", e->str,
			   t ? " (it is incomplete)" : why ? xasprintf(": %s", why) : "");
		return;
	}
	e->kind = EX_NUMBER;
	e->num = (int64_t)t->size;
}

/* `t = task_current()`: t points to a task_struct from here on */
static void note_autocast(struct binder *b, const struct expr *e)
{
	const char *type, *module;
	struct autocasts *c = b->casts;

	if (!c || e->op != OP_ASSIGN || e->lhs->kind != EX_VAR || !e->lhs->sym ||
	    e->lhs->sym->kind == SYM_GLOBAL || !pointer_type_of(b, e->rhs, &type, &module))
		return;
	c->v = xrealloc(c->v, (c->n + 1) * sizeof(*c->v));
	c->v[c->n++] = (struct autocast){ e->lhs->sym, type, module };
}

/* value->member on a value of a known type is @cast(value, type)->member */
static void autocast_member(struct binder *b, struct expr *e)
{
	const char *type, *module;

	if (e->kind == EX_MEMBER && pointer_type_of(b, e->lhs, &type, &module)) {
		e->kind = EX_CAST;
		e->str = type;
		e->module = module;
	}
}

static bool bind_visit(struct expr *e, void *arg)
{
	struct binder *b = arg;

	if (e->kind == EX_TARGET && skip_bad_var(b, e))
		return false;
	if (e->kind == EX_ASSIGN && e->lhs->kind != EX_TARGET && e->lhs->kind != EX_AT_VAR) {
		/* the value first, then what it says of the variable */
		ast_walk_expr(e->lhs, bind_visit, arg);
		ast_walk_expr(e->rhs, bind_visit, arg);
		note_autocast(b, e);
		return false;
	}
	autocast_member(b, e);
	if (e->kind == EX_UNARY && e->op == OP_ADDRESS && e->lhs)
		autocast_member(b, e->lhs);	/* &t->pid */
	if (e->kind == EX_SIZEOF) {
		fold_sizeof(b, e);
		return false;
	}
	switch (e->kind) {
	case EX_TERNARY:
		return !fold_defined_ternary(b, e);
	case EX_ASSIGN:
		if (e->lhs->kind != EX_TARGET && e->lhs->kind != EX_AT_VAR)
			return true;
		/* guru mode only (but for a probe's own string): types.c
		 * says so; parameters of a .return
		 * probe are gone by then (only $return can change) */
		if (e->lhs->kind == EX_TARGET && b->scope && b->scope->is_return &&
		    strcmp(e->lhs->str, "$return") != 0) {
			bind_error(b, &e->lhs->loc, "%s cannot be assigned in a .return probe: "
				   "the function has used it%s", e->lhs->str, "");
			return false;
		}
		bind_access_for(b, e->lhs, false, true);
		ast_walk_expr(e->rhs, bind_visit, arg);
		return false;
	case EX_DEFINED:
		fold_defined(b, e);
		return false;
	case EX_ENTRY:
		if (!b->scope || !b->scope->is_return || b->in_entry) {
			bind_error(b, &e->loc, "%s%s", "@entry() is only valid in .return probes", "");
			return false;
		}
		make_entry(b, e, e->lhs);
		return false;
	case EX_TARGET:
		if (wants_entry_value(b, e)) {
			struct expr *copy = xalloc(sizeof(*copy));

			*copy = *e;
			e->kind = EX_ENTRY;
			e->path = NULL;
			e->suffix = NULL;
			make_entry(b, e, copy);
			return false;
		}
		/* fall through */
	case EX_CAST:
	case EX_AT_VAR:
	case EX_MEMBER:
		if (e->kind == EX_CAST)
			ast_walk_expr(e->lhs, bind_visit, arg);
		bind_access(b, e, false);
		return true;	/* index expressions may hold more */
	case EX_UNARY:
		if (e->op == OP_ADDRESS && e->lhs &&
		    (e->lhs->kind == EX_TARGET || e->lhs->kind == EX_CAST ||
		     e->lhs->kind == EX_AT_VAR)) {
			if (e->lhs->kind == EX_CAST)
				ast_walk_expr(e->lhs->lhs, bind_visit, arg);
			if (bind_access(b, e->lhs, true))
				e->access = e->lhs->access;
			return false;
		}
		return true;
	case EX_TARGET_SPECIAL:
		bind_special(b, e);
		return false;
	default:
		return true;
	}
}

/* `if (@defined($x)) ...` is decided here too: the statement becomes the
 * branch taken */
static void prune_defined_ifs(struct binder *b, struct stmt *s)
{
	struct expr *c;
	int i;

	if (!s)
		return;
	c = s->kind == ST_IF ? s->expr : NULL;
	if (c && (c->kind == EX_DEFINED ||
		  (c->kind == EX_UNARY && c->op == OP_NOT && c->lhs->kind == EX_DEFINED))) {
		bool negated = c->kind == EX_UNARY;
		struct stmt *live = defined_here(b, negated ? c->lhs : c) != negated ?
				    s->then : s->els;

		if (live) {
			*s = *live;
		} else {
			s->kind = ST_NULL;
			s->expr = NULL;
			s->then = s->els = NULL;
		}
		prune_defined_ifs(b, s);
		return;
	}
	for (i = 0; i < s->nbody; i++)
		prune_defined_ifs(b, s->body[i]);
	prune_defined_ifs(b, s->init);
	prune_defined_ifs(b, s->then);
	prune_defined_ifs(b, s->els);
	prune_defined_ifs(b, s->catch_body);
}

void tvar_bind_probe(struct resolved_probe *rp)
{
	struct binder b = { .rp = rp, .scope = rp->points->scope,
			    .context = "at this probe point",
			    .casts = xalloc(sizeof(struct autocasts)) };
	struct concrete_point *cp;

	prune_defined_ifs(&b, rp->body);
	for (cp = rp->points; cp; cp = cp->next)
		if (cp->cond)
			ast_walk_expr(cp->cond, bind_visit, &b);
	ast_walk_stmt(rp->body, bind_visit, &b);
}

void tvar_bind_function(struct function *fn)
{
	struct binder b = { .context = "in a function",
			    .casts = xalloc(sizeof(struct autocasts)) };

	prune_defined_ifs(&b, fn->body);
	ast_walk_stmt(fn->body, bind_visit, &b);
}

static bool uses_scope_visit(struct expr *e, void *arg)
{
	if (e->kind == EX_TARGET || e->kind == EX_TARGET_SPECIAL ||
	    e->kind == EX_ENTRY || e->kind == EX_DEFINED)
		*(bool *)arg = true;
	return !*(bool *)arg;
}

bool tvar_stmt_uses_scope(struct stmt *s)
{
	bool used = false;

	ast_walk_stmt(s, uses_scope_visit, &used);
	return used;
}

/* ---- for emit.c ---- */

char *tvar_emit_c(const struct tvar_access *a, char **index_c,
		    const char *cast_c, const char *str_temp, const char *near_c)
{
	struct strbuf sb = { 0 };
	const char *p;

	sb_printf(&sb, "({ c->target_loc = %s; ", near_c);
	for (p = a->c; *p; p++) {
		if (*p != '\1') {
			sb_putc(&sb, *p);
			continue;
		}
		p++;
		if (*p == 'I')
			sb_puts(&sb, index_c[*++p - '0']);
		else if (*p == 'P')
			sb_puts(&sb, cast_c);
		else
			sb_puts(&sb, str_temp);
	}
	sb_puts(&sb, "; })");
	return sb.buf;
}

int tvar_index_count(const struct tvar_access *a, struct expr ***index)
{
	*index = a->index;
	return a->nindex;
}

struct expr *tvar_cast_pointer(const struct tvar_access *a)
{
	return a->cast_ptr;
}

bool tvar_is_string(const struct tvar_access *a)
{
	return a->is_string;
}

char *tvar_store_c(const struct tvar_access *a, const char *value_c)
{
	struct strbuf sb = { 0 };
	const char *p;

	if (!a->store_c)
		return NULL;
	for (p = a->store_c; *p; p++) {
		if (p[0] == '\1' && p[1] == 'V') {
			sb_puts(&sb, value_c);
			p++;
		} else {
			sb_putc(&sb, *p);
		}
	}
	return sb.buf;
}

bool tvar_is_probe_string(const struct tvar_access *a)
{
	return a && a->probe_string;
}

char *tvar_append_c(const struct tvar_access *a, const char *value_c)
{
	struct tvar_access app = { .store_c = a->append_c };

	return tvar_store_c(&app, value_c);
}
