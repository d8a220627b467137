/* process.c - user-space probes: process("PATH").function("PATTERN"),
 * .statement("func@file:N"), .mark("name"), and the same after
 * .library("LIB") (stapprobes(3stap)); placed with the kernel's uprobes
 * (runtime/uprobes.h) at an offset in the file. And process.begin/.end,
 * of any process, of one program or of one process id.
 *
 * PATH is a program or shared library, found by the target
 * (target/program.c: $PATH for a bare name, the library directories for
 * LIB). Its DWARF, when it has any, places and types the functions
 * (libdw.c, as for the kernel, memory read with ktap_uread()); without it
 * the ELF symbol table still gives function entries, but no variables.
 * SDT markers come from the file's .note.stapsdt, their $argN from the
 * operands <sys/sdt.h> recorded ("-4@-20(%rbp)").
 */
#include <stdlib.h>
#include <string.h>

#include "../ktap.h"
#include "../debuginfo.h"
#include "../program.h"
#include "../target.h"

/* ---- the pattern: func[@file][:N | :N-M | :*] ---- */

struct up_pattern {
	char *func, *file;
	bool has_lines;
	int first, last;
};

static bool parse_pattern(const struct pp_component *c, struct up_pattern *p)
{
	char *s = xstrdup(c->str_arg), *at = strchr(s, '@'), *colon = strrchr(s, ':');

	memset(p, 0, sizeof(*p));
	if (colon && at && colon > at) {
		char *end;

		*colon++ = '\0';
		p->has_lines = true;
		p->first = strcmp(colon, "*") == 0 ? 0 : (int)strtol(colon, &end, 10);
		p->last = strcmp(colon, "*") == 0 ? 1 << 30 :
			  *end == '-' ? (int)strtol(end + 1, &end, 10) : p->first;
		if (strcmp(colon, "*") && (*end || p->first <= 0 || p->last < p->first)) {
			diag_error(&c->loc, "bad line in '%s': want :N, :N-M or :*", c->str_arg);
			return false;
		}
	}
	if (at) {
		*at = '\0';
		p->file = at + 1;
	}
	p->func = s;
	if (!*s) {
		diag_error(&c->loc, "'%s' names no function", c->str_arg);
		return false;
	}
	return true;
}

static bool is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* ---- the file probed ---- */

struct up_file {
	struct target *t;
	struct dw *dw;		/* NULL: no DWARF (dw_why says why) */
	char *dw_why;
	const char *family;	/* process("P") or process("P").library("L") */
};

static bool open_file(const struct probe_point *pp, int *next, struct up_file *f)
{
	const struct pp_component *proc = &pp->comps[0], *lib = NULL;
	char *why = NULL;

	if (!proc->has_arg || !proc->arg_is_string) {
		diag_error(&proc->loc, "%s: process wants a program's path here, e.g. "
			   "process(\"/usr/bin/ls\")%s", proc->has_arg ?
			   "process(PID) has only .begin and .end so far" : "any process",
			   proc->has_arg ? "" : " (only .begin/.end are for any process)");
		return false;
	}
	*next = 1;
	if (pp->ncomps > 2 && pp_is(pp, 1, "library")) {
		lib = &pp->comps[1];
		*next = 2;
		if (!lib->has_arg || !lib->arg_is_string) {
			diag_error(&lib->loc, "library wants a library, e.g. library(\"libc.so.6\")");
			return false;
		}
		if (!target_program(proc->str_arg, &why)) {
			diag_error(&proc->loc, "%s", why);
			return false;
		}
	}
	f->t = target_program(lib ? lib->str_arg : proc->str_arg, &why);
	if (!f->t) {
		diag_error(&(lib ? lib : proc)->loc, "%s", why);
		return false;
	}
	f->family = lib ? xasprintf("process(\"%s\").library(\"%s\")",
				    target_program(proc->str_arg, &why)->name, f->t->name)
			: xasprintf("process(\"%s\")", f->t->name);
	f->dw = target_dwarf(f->t, &f->dw_why);
	return true;
}

/* ---- concrete points ---- */

struct scope_source {
	struct dw *dw;
	struct kfunc f;
	uint64_t pc;
};

static void load_scope(struct tvar_scope *sc)
{
	struct scope_source *src = sc->load_arg;

	sc->nvars = dw_variables(src->dw, &src->f, src->pc, &sc->vars);
	sc->return_type = dw_return_type(src->dw, &src->f);
}

/* what $names mean at pc of f: its DWARF's variables, read lazily; without
 * DWARF none, and the scope's name says why */
static struct tvar_scope *user_scope(const struct up_file *uf, const struct kfunc *f,
				     uint64_t pc, const char *where, bool is_return)
{
	struct tvar_scope *sc = xalloc(sizeof(*sc));

	sc->user = true;
	sc->is_return = is_return;
	sc->where = where;
	if (uf->dw && f) {
		struct scope_source *src = xalloc(sizeof(*src));

		*src = (struct scope_source){ uf->dw, *f, pc };
		sc->load = load_scope;
		sc->load_arg = src;
	} else {
		static struct ctype long_type = { .kind = CT_INT, .name = "long", .size = 8,
						  .is_signed = true };

		/* the calling convention's rax: what a function returns, if anything */
		sc->return_type = is_return ? &long_type : NULL;
		sc->where = xasprintf("%s (%s)", where, uf->dw_why ? uf->dw_why : "no DWARF");
	}
	return sc;
}

/* a new point with a uprobe at link-time address addr of the file; NULL
 * if the address is not in the file's loaded bytes */
static struct concrete_point *place(struct point_list *pl, const struct up_file *uf,
				    uint64_t addr, bool is_return, const char *func)
{
	struct concrete_point *cp;
	uint64_t off;

	if (!target_file_offset(uf->t, addr, &off))
		return NULL;
	cp = point_list_next(pl);
	cp->kind = is_return ? PK_URETPROBE : PK_UPROBE;
	cp->path = uf->t->load_path;
	cp->offset = off;
	cp->symbol = func;
	cp->file = uf->t;
	return cp;
}

static const char *short_file(const char *file)
{
	return file ? file : "";
}

static char *function_text(const struct up_file *uf, const char *kind, const char *name,
			   const char *file, int line, bool is_return)
{
	return xasprintf("%s.%s(\"%s%s%s%s\")%s", uf->family, kind, name,
			 file && *file ? "@" : "", short_file(file),
			 line ? xasprintf(":%d", line) : "", is_return ? ".return" : "");
}

/* ---- .function / .statement ---- */

struct up_suffix {
	bool is_return, call_only;
};

static bool parse_suffixes(const struct probe_point *pp, int first, struct up_suffix *sx,
			   bool statement)
{
	memset(sx, 0, sizeof(*sx));
	for (int i = first; i < pp->ncomps; i++) {
		const struct pp_component *c = &pp->comps[i];

		if (!statement && !c->has_arg && strcmp(c->name, "return") == 0)
			sx->is_return = true;
		else if (!statement && !c->has_arg && strcmp(c->name, "call") == 0)
			sx->call_only = true;
		else
			return false;
	}
	return true;
}

static int dwarf_points(const struct up_file *uf, const struct up_pattern *p,
			const struct up_suffix *sx, bool statement, struct point_list *pl)
{
	struct kfunc *fs;
	int nf = dw_functions(uf->dw, p->func, p->file, true, false, &fs);

	for (int i = 0; i < nf; i++) {
		const struct kfunc *f = &fs[i];

		if (!statement && !p->has_lines) {
			struct concrete_point *cp = place(pl, uf, f->addr, sx->is_return, f->name);

			if (!cp)
				continue;
			cp->pp = function_text(uf, "function", f->name, f->decl_file,
					       f->decl_line, sx->is_return);
			cp->scope = user_scope(uf, f, f->addr, cp->pp, sx->is_return);
			cp->optional = is_glob(p->func) || nf > 1;
			continue;
		}
		uint64_t *addrs;
		int *lines, k = dw_statements(uf->dw, f, p->file, p->first, p->last, &addrs, &lines);

		for (int j = 0; j < k; j++) {
			struct concrete_point *cp = place(pl, uf, addrs[j], false, f->name);
			struct kfunc at = *f;

			if (!cp)
				continue;
			at.addr = addrs[j];
			cp->pp = function_text(uf, "statement", f->name, f->decl_file, lines[j],
					       false);
			cp->scope = user_scope(uf, &at, addrs[j], cp->pp, false);
			cp->optional = is_glob(p->func) || p->first != p->last;
		}
	}
	return nf;
}

static int symbol_points(const struct up_file *uf, const struct up_pattern *p,
			 const struct up_suffix *sx, struct point_list *pl)
{
	struct program_symbol *syms;
	int n = target_program_functions(uf->t, p->func, &syms);

	for (int i = 0; i < n; i++) {
		struct concrete_point *cp = place(pl, uf, syms[i].addr, sx->is_return,
						  syms[i].name);

		if (!cp)
			continue;
		cp->pp = function_text(uf, "function", syms[i].name, NULL, 0, sx->is_return);
		cp->scope = user_scope(uf, NULL, 0, cp->pp, sx->is_return);
		cp->optional = is_glob(p->func) || n > 1;
	}
	return n;
}

static void no_function(const struct pp_component *c, const struct up_file *uf,
			const struct up_pattern *p)
{
	struct program_symbol *syms;
	struct kfunc *fs;
	const char **names;
	const char *best;
	int n;

	diag_error(&c->loc, "no function of %s matches '%s'", uf->t->name, c->str_arg);
	if (is_glob(p->func))
		return;
	if (uf->dw) {
		n = dw_functions(uf->dw, "*", NULL, true, false, &fs);
		names = xalloc((n + 1) * sizeof(*names));
		for (int i = 0; i < n; i++)
			names[i] = fs[i].name;
	} else {
		n = target_program_functions(uf->t, "*", &syms);
		names = xalloc((n + 1) * sizeof(*names));
		for (int i = 0; i < n; i++)
			names[i] = syms[i].name;
	}
	best = diag_closest(p->func, names, n);
	if (best)
		diag_note(&c->loc, "did you mean '%s'?", best);
	else if (!uf->dw && !target_program_has_symtab(uf->t))
		diag_note(&c->loc, "%s is stripped: only the functions it exports are known",
			  uf->t->name);
}

static int resolve_function(const struct probe_point *pp, const struct up_file *uf, int at,
			    bool statement, struct concrete_point *out)
{
	const struct pp_component *c = &pp->comps[at];
	struct point_list pl = { .head = out };
	struct up_pattern p;
	struct up_suffix sx;
	int nf;

	if (!c->has_arg || !c->arg_is_string) {
		diag_error(&c->loc, "%s wants a pattern, e.g. %s(\"main\")", c->name, c->name);
		return -1;
	}
	if (!parse_pattern(c, &p))
		return -1;
	if (!parse_suffixes(pp, at + 1, &sx, statement))
		return 0;
	if (!uf->dw && (statement || p.has_lines || p.file)) {
		diag_error(&c->loc, "%s(\"%s\") needs the DWARF of %s: %s", c->name, c->str_arg,
			   uf->t->name, uf->dw_why);
		return -1;
	}
	nf = uf->dw ? dwarf_points(uf, &p, &sx, statement || p.has_lines, &pl)
		    : symbol_points(uf, &p, &sx, &pl);
	/* DWARF of a library misses what it has only in assembly (memcpy) */
	if (!pl.n && uf->dw && !statement && !p.has_lines && !p.file)
		nf += symbol_points(uf, &p, &sx, &pl);
	if (pl.n)
		return 1;
	if (pp->optional || pp->sufficient)
		return 0;
	if (nf && (statement || p.has_lines))
		diag_error(&c->loc, "'%s': no statement at line%s %d in the function",
			   c->str_arg, p.first == p.last ? "" : "s", p.first);
	else
		no_function(c, uf, &p);
	return -1;
}

/* ---- .mark("name"): SDT markers ---- */

/* the DWARF number of an x86-64 register by its AT&T name (any width),
 * -1 if unknown */
static int reg_number(const char *name, size_t len)
{
	static const char *const names[][4] = {
		{ "rax", "eax", "ax", "al" }, { "rdx", "edx", "dx", "dl" },
		{ "rcx", "ecx", "cx", "cl" }, { "rbx", "ebx", "bx", "bl" },
		{ "rsi", "esi", "si", "sil" }, { "rdi", "edi", "di", "dil" },
		{ "rbp", "ebp", "bp", "bpl" }, { "rsp", "esp", "sp", "spl" },
	};
	char buf[8];

	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, name, len);
	buf[len] = '\0';
	for (int i = 0; i < 8; i++)
		for (int w = 0; w < 4; w++)
			if (strcmp(buf, names[i][w]) == 0)
				return i;
	if (buf[0] == 'r' && buf[1] >= '0' && buf[1] <= '9') {
		int n = atoi(buf + 1);

		if (n >= 8 && n <= 15)
			return n;
	}
	return strcmp(buf, "rip") == 0 ? 16 : -1;
}

/* C for one operand: %reg, $imm, disp(%reg); NULL when ktap cannot read it */
static char *operand_c(const char *op, int size)
{
	const char *paren = strchr(op, '(');
	char *end;

	if (op[0] == '%') {
		int r = reg_number(op + 1, strlen(op + 1));

		return r >= 0 && r < 16 ? xasprintf("ktap_reg(c, %d)", r) : NULL;
	}
	if (op[0] == '$') {
		long long v = strtoll(op + 1, &end, 0);

		return *end ? NULL : xasprintf("(unsigned long)%lldLL", v);
	}
	if (paren && paren[1] == '%' && !strchr(paren, ',')) {
		long long disp = paren == op ? 0 : strtoll(op, &end, 0);
		int r = reg_number(paren + 2, strcspn(paren + 2, ")"));

		if ((paren != op && end != paren) || r < 0 || r >= 16)
			return NULL;
		return xasprintf("ktap_uread(c, ktap_reg(c, %d) + (%lldL), %d)", r, disp, size);
	}
	return NULL;
}

static struct ctype *int_type(int size, bool is_signed)
{
	struct ctype *t = xalloc(sizeof(*t));

	t->kind = CT_INT;
	t->size = size;
	t->is_signed = is_signed;
	t->name = xasprintf("%sint%d_t", is_signed ? "" : "u", size * 8);
	return t;
}

/* $arg1...: "SIZE@OPERAND" words (SIZE negative: signed) */
static struct tvar_scope *mark_scope(const struct program_mark *m, const char *where)
{
	struct tvar_scope *sc = xalloc(sizeof(*sc));
	char *args = xstrdup(m->args), *save = NULL, *w;
	int n = 0;

	sc->user = true;
	sc->where = where;
	sc->vars = xalloc(12 * sizeof(*sc->vars));
	for (w = strtok_r(args, " ", &save); w && n < 12; w = strtok_r(NULL, " ", &save)) {
		struct cvar *v = &sc->vars[n++];
		char *at = strchr(w, '@');
		int size = at ? atoi(w) : 8, bytes = abs(size);

		if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8)
			bytes = 8;
		v->name = xasprintf("arg%d", n);
		v->is_param = true;
		v->type = int_type(bytes, size < 0);
		v->value_c = operand_c(at ? at + 1 : w, bytes);
		if (!v->value_c)
			v->unavailable = xasprintf("its operand '%s' is not one ktap can read "
						   "yet", at ? at + 1 : w);
	}
	sc->nvars = n;
	return sc;
}

static int resolve_mark(const struct probe_point *pp, const struct up_file *uf, int at,
			struct concrete_point *out)
{
	const struct pp_component *c = &pp->comps[at];
	struct point_list pl = { .head = out };
	struct program_mark *ms;
	int n;

	if (!c->has_arg || !c->arg_is_string) {
		diag_error(&c->loc, "mark wants a marker's name, e.g. mark(\"start\")");
		return -1;
	}
	if (at + 1 < pp->ncomps)
		return 0;
	n = target_program_marks(uf->t, NULL, c->str_arg, &ms);
	for (int i = 0; i < n; i++) {
		struct concrete_point *cp;
		uint64_t sem = 0;

		if (ms[i].semaphore && !target_file_offset(uf->t, ms[i].semaphore, &sem))
			continue;
		if (!(cp = place(&pl, uf, ms[i].addr, false, NULL)))
			continue;
		cp->pp = xasprintf("%s.mark(\"%s\")", uf->family, ms[i].name);
		cp->ref_ctr_offset = sem;
		cp->scope = mark_scope(&ms[i], cp->pp);
		cp->optional = n > 1;
	}
	if (pl.n)
		return 1;
	if (pp->optional || pp->sufficient)
		return 0;
	diag_error(&c->loc, "%s has no SDT marker matching '%s'", uf->t->name, c->str_arg);
	n = target_program_marks(uf->t, NULL, "*", &ms);
	if (n) {
		const char **names = xalloc(n * sizeof(*names));

		for (int i = 0; i < n; i++)
			names[i] = ms[i].name;
		const char *best = diag_closest(c->str_arg, names, n);

		if (best)
			diag_note(&c->loc, "did you mean '%s'?", best);
	}
	return -1;
}

/* process.begin/.end, process("PATH").begin/.end, process(PID).begin/.end */
static int resolve_begin_end(const struct probe_point *pp, struct concrete_point *out)
{
	const struct pp_component *proc = &pp->comps[0], *kind = &pp->comps[pp->ncomps - 1];
	bool begin = strcmp(kind->name, "begin") == 0;
	char *why = NULL;
	struct target *t;

	out->kind = begin ? PK_PROC_BEGIN : PK_PROC_END;
	if (!proc->has_arg) {
		out->pp = xasprintf("process.%s", kind->name);
		return 1;
	}
	if (!proc->arg_is_string) {
		if (proc->num_arg <= 0 || proc->num_arg > 0x3fffffff) {
			diag_error(&proc->loc, "process(%lld): not a process id",
				   (long long)proc->num_arg);
			return -1;
		}
		out->pid = proc->num_arg;
		out->pp = xasprintf("process(%lld).%s", (long long)proc->num_arg, kind->name);
		return 1;
	}
	t = target_program(proc->str_arg, &why);
	if (!t) {
		diag_error(&proc->loc, "%s", why);
		return -1;
	}
	out->path = t->load_path;
	out->pp = xasprintf("process(\"%s\").%s", t->name, kind->name);
	return 1;
}

int probe_process(const struct probe_point *pp, struct concrete_point *out)
{
	struct up_file uf = { 0 };
	int at;

	if (!pp_is(pp, 0, "process") || pp->ncomps < 2)
		return 0;
	if (pp->ncomps == 2 && (pp_is(pp, 1, "begin") || pp_is(pp, 1, "end")))
		return resolve_begin_end(pp, out);
	if (!open_file(pp, &at, &uf))
		return -1;
	if (at >= pp->ncomps)
		return 0;
	if (pp_is(pp, at, "function"))
		return resolve_function(pp, &uf, at, false, out);
	if (pp_is(pp, at, "statement"))
		return resolve_function(pp, &uf, at, true, out);
	if (pp_is(pp, at, "mark"))
		return resolve_mark(pp, &uf, at, out);
	return 0;
}
