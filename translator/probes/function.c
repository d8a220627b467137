/* function.c - kernel.function("PATTERN") and kernel.statement("PATTERN"),
 * and module("NAME").function/.statement for loadable modules: probes
 * placed and typed by the kernel's debuginfo.
 *
 * PATTERN is func[@file][:line | :* | :first-last]; NAME is a module name
 * or a glob over the modules that have debug files. The DWARF (libdw.c,
 * libdw) gives every instance, inlined copies included, and the variables
 * at each address; without DWARF, BTF (btf.c) still gives out-of-line
 * function entries and their parameters (of the kernel, not of modules).
 * Both come through the target (target.h), which knows where they are.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "../ktap.h"
#include "../debuginfo.h"
#include "../program.h"
#include "../target.h"

/* ---- the pattern ---- */

struct fn_pattern {
	char *func;		/* name glob */
	char *file;		/* file glob, or NULL */
	bool has_lines;		/* :N, :N-M or :* */
	int first, last;	/* lines; 0..INT_MAX for :* */
};

static bool parse_pattern(const struct pp_component *c, struct fn_pattern *p)
{
	char *s = xstrdup(c->str_arg), *at, *colon;

	memset(p, 0, sizeof(*p));
	colon = strrchr(s, ':');
	at = strchr(s, '@');
	if (colon && at && colon > at) {
		char *end;

		*colon++ = '\0';
		p->has_lines = true;
		if (strcmp(colon, "*") == 0) {
			p->first = 0;
			p->last = 1 << 30;
		} else {
			p->first = (int)strtol(colon, &end, 10);
			p->last = *end == '-' ? (int)strtol(end + 1, &end, 10) : p->first;
			if (*end || p->first <= 0 || p->last < p->first) {
				diag_error(&c->loc, "bad line in '%s': want :N, :N-M or :*",
					   c->str_arg);
				return false;
			}
		}
	}
	if (at) {
		*at = '\0';
		p->file = at + 1;
	}
	p->func = s;
	if (!*p->func) {
		diag_error(&c->loc, "'%s' names no function", c->str_arg);
		return false;
	}
	return true;
}

static bool is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* ---- suffixes: .call .return .inline .exported .maxactive(N) ---- */

struct fn_suffix {
	bool is_return, call_only, inline_only, exported_only;
	int maxactive;
};

static bool parse_suffixes(const struct probe_point *pp, int first,
			   struct fn_suffix *sx, bool statement)
{
	int i;

	memset(sx, 0, sizeof(*sx));
	for (i = first; i < pp->ncomps; i++) {
		const struct pp_component *c = &pp->comps[i];
		const char *n = c->name;

		if (!statement && strcmp(n, "return") == 0 && !c->has_arg)
			sx->is_return = true;
		else if (!statement && strcmp(n, "call") == 0 && !c->has_arg)
			sx->call_only = true;
		else if (!statement && strcmp(n, "inline") == 0 && !c->has_arg)
			sx->inline_only = true;
		else if (strcmp(n, "exported") == 0 && !c->has_arg)
			sx->exported_only = true;
		else if (sx->is_return && strcmp(n, "maxactive") == 0 && c->has_arg &&
			 !c->arg_is_string && c->num_arg > 0)
			sx->maxactive = (int)c->num_arg;
		else
			return false;
	}
	if (sx->inline_only && (sx->is_return || sx->call_only)) {
		diag_error(&pp->comps[first].loc, ".inline cannot be combined with .call or .return");
		return false;
	}
	return true;
}

/* ---- concrete points ---- */

/* kernel.KIND or module("M").KIND, as the point is spelled */
static char *point_family(struct dw *dw, const char *kind)
{
	const char *m = dw ? dw_module(dw) : NULL;

	return m ? xasprintf("module(\"%s\").%s", m, kind) : xasprintf("kernel.%s", kind);
}

static char *point_text(struct dw *dw, const struct kfunc *f, const char *kind,
			int line, const struct fn_suffix *sx)
{
	const char *file = f->decl_file ? f->decl_file : "";
	const char *slash = strstr(file, "/linux-");

	/* DWARF paths may be absolute build paths: show them from the
	 * source tree's root, as users know them */
	if (slash && strchr(slash + 1, '/'))
		file = strchr(slash + 1, '/') + 1;
	if (!line)
		line = f->decl_line;
	return xasprintf("%s(\"%s%s%s%s\")%s", point_family(dw, kind), f->name,
			 *file ? "@" : "", file, line ? xasprintf(":%d", line) : "",
			 sx && sx->is_return ? ".return" : "");
}

struct scope_source {
	struct dw *dw;
	struct btf_kernel *btf;
	struct kfunc f;
	uint64_t pc;
};

static void load_scope(struct tvar_scope *sc)
{
	struct scope_source *src = sc->load_arg;

	if (src->dw) {
		sc->nvars = dw_variables(src->dw, &src->f, src->pc, &sc->vars);
		sc->return_type = dw_return_type(src->dw, &src->f);
	} else {
		sc->nvars = btfk_parameters(src->btf, &src->f, &sc->vars);
	}
}

/* the variables are read from the debuginfo only if the handler uses them */
static struct tvar_scope *entry_scope(struct dw *dw, struct btf_kernel *btf,
					const struct kfunc *f, uint64_t pc,
					const char *where, bool is_return)
{
	struct tvar_scope *sc = xalloc(sizeof(*sc));
	struct scope_source *src = xalloc(sizeof(*src));

	sc->where = where;
	sc->is_return = is_return;
	sc->return_type = f->return_type;
	*src = (struct scope_source){ dw, btf, *f, pc };
	sc->load = load_scope;
	sc->load_arg = src;
	return sc;
}

/* f's point is the entry of a function of the kernel image (no module) */
static bool is_entry_of_kernel(const struct kfunc *f)
{
	return !f->offset && !f->inlined && f->symbol && !strchr(f->symbol, ':');
}

/*
 * A function the kernel built without an ftrace site (notrace): what the
 * tracing machinery itself runs (ftrace's hash code, the ratelimit of
 * its warnings, ...) is kept so. A wildcard leaves them out: a kprobe on
 * each of the 5,000 of a 6.1 kernel crashed the guest. A function named
 * alone still gets its kprobe.
 */
static bool is_notrace(const struct kfunc *f)
{
	struct target *k = target_kernel();

	return is_entry_of_kernel(f) && target_ftrace_sites_known(k) &&
	       !target_ftrace_site(k, f->addr);
}

/*
 * Where a kprobe point of the kernel image is at link time (DWARF's
 * address; BTF has none), so that the runtime need not search kallsyms
 * for its symbol, and whether ftrace hooks it there.
 */
static void set_link_addr(struct concrete_point *cp, const struct kfunc *f)
{
	uint64_t site;

	if (cp->kind != PK_KPROBE || !f->addr || !f->symbol || strchr(f->symbol, ':'))
		return;
	cp->link_addr = f->addr;
	if (!is_entry_of_kernel(f))
		return;
	site = target_ftrace_site(target_kernel(), f->addr);
	if (site) {
		cp->link_addr = site;
		cp->ftrace_site = true;
	}
}

/* what a wildcard leaves out besides: notrace functions */
static bool wanted_by_glob(const struct kfunc *f)
{
	return !is_notrace(f);
}

static void add_function_point(struct point_list *pl, struct dw *dw,
			       struct btf_kernel *btf, const struct kfunc *f,
			       const struct fn_suffix *sx, bool wildcard)
{
	struct concrete_point *cp = point_list_next(pl);

	cp->kind = sx->is_return ? PK_KRETPROBE : PK_KPROBE;
	cp->symbol = f->symbol;
	cp->offset = f->offset;
	cp->maxactive = sx->maxactive;
	cp->pp = dw ? point_text(dw, f, "function", 0, sx)
		    : xasprintf("kernel.function(\"%s\")%s", f->name,
				sx->is_return ? ".return" : "");
	cp->scope = entry_scope(dw, btf, f, f->addr, cp->pp, sx->is_return);
	set_link_addr(cp, f);
	/* one point of many that the kernel will not let us probe (notrace,
	 * blacklisted) must not stop the others */
	cp->optional = wildcard;
}

/* a copy of f inlined into f's own out-of-line body (gcc splits some
 * functions so): every call reaches it through the entry, which is probed */
static bool inlined_into_itself(const struct kfunc *f)
{
	const char *sym = f->symbol ? strrchr(f->symbol, ':') : NULL;

	sym = sym ? sym + 1 : f->symbol;
	return f->inlined && sym && strcmp(sym, f->name) == 0;
}

static bool wanted(const struct kfunc *f, const struct fn_suffix *sx)
{
	if (inlined_into_itself(f) && !sx->inline_only)
		return false;
	if (sx->exported_only && !f->exported)
		return false;
	if (sx->inline_only && !f->inlined)
		return false;
	if ((sx->call_only || sx->is_return) && f->inlined)
		return false;
	/*
	 * .call and .return: not a copy DWARF places inside another
	 * function's symbol either: an inlined body whose DIE does not say
	 * so. A kprobe on each (900 in kernel.function("*").call on 6.1)
	 * put int3s in the allocator's fast paths, and the guest's slab
	 * lists were found corrupt.
	 */
	if ((sx->call_only || sx->is_return) && f->offset)
		return false;
	return true;
}

static int statement_points(struct point_list *pl, struct dw *dw,
			    const struct kfunc *f, const struct fn_pattern *p,
			    bool wildcard)
{
	uint64_t *addrs;
	int *lines, k, i;

	k = dw_statements(dw, f, p->file, p->first, p->last, &addrs, &lines);
	for (i = 0; i < k; i++) {
		struct concrete_point *cp = point_list_next(pl);
		struct kfunc at = *f;

		at.offset = f->offset + (addrs[i] - f->addr);
		at.addr = addrs[i];
		cp->kind = PK_KPROBE;
		cp->symbol = f->symbol;
		cp->offset = at.offset;
		cp->pp = point_text(dw, f, "statement", lines[i], NULL);
		cp->scope = entry_scope(dw, NULL, &at, addrs[i], cp->pp, false);
		cp->optional = wildcard || p->first != p->last;
	}
	return k;
}

/* what a pattern is looked up in: the kernel (DWARF, else BTF) or one
 * module (DWARF) */
struct fn_source {
	struct dw *dw;
	struct btf_kernel *btf;
};

/* "kernel function", "function of module 9p" */
static const char *what_function(const struct fn_source *src, int nsrc)
{
	const char *m = src->dw ? dw_module(src->dw) : NULL;

	if (!m)
		return "kernel function";
	return nsrc == 1 ? xasprintf("function of module %s", m) : "module function";
}

/* a name the DWARF knows but cannot probe: say why; false if none */
static bool no_entry(const struct pp_component *c, const struct fn_pattern *p,
		     const struct fn_source *src, int nsrc)
{
	int i;

	for (i = 0; i < nsrc && !is_glob(p->func); i++) {
		const char *why = src[i].dw ? dw_function_without_entry(src[i].dw, p->func) : NULL;

		if (why) {
			diag_error(&c->loc, "%s '%s' cannot be probed: %s",
				   what_function(&src[i], 1), p->func, why);
			return true;
		}
	}
	return false;
}

static void no_match(const struct pp_component *c, const struct fn_pattern *p,
		     const struct fn_source *src, int nsrc)
{
	const char **names = NULL;
	const char *best;
	int n = 0, i, k, j;

	if (no_entry(c, p, src, nsrc))
		return;
	diag_error(&c->loc, "no %s matches '%s'", what_function(src, nsrc), c->str_arg);
	if (is_glob(p->func))
		return;
	for (i = 0; i < nsrc; i++) {
		struct kfunc *all;

		k = src[i].dw ? dw_functions(src[i].dw, "*", NULL, true, false, &all)
			      : btfk_functions(src[i].btf, "*", &all);
		names = xrealloc(names, (n + k + 1) * sizeof(*names));
		for (j = 0; j < k; j++)
			names[n++] = all[j].name;
	}
	best = diag_closest(p->func, names, n);
	if (best)
		diag_note(&c->loc, "did you mean '%s'?", best);
}

/* the kernel's debuginfo; false after an error */
static bool kernel_source(const struct pp_component *c, const struct fn_pattern *p,
			  const struct fn_suffix *sx, bool statement,
			  struct fn_source *src)
{
	char *why = NULL, *bwhy = NULL;

	src->btf = NULL;
	src->dw = target_dwarf(target_kernel(), &why);
	if (src->dw)
		return true;
	if (!(statement || p->has_lines || sx->inline_only || p->file))
		src->btf = target_btf(target_kernel(), &bwhy);
	if (src->btf)
		return true;
	diag_error(&c->loc, "kernel.%s(\"%s\") needs the kernel's debuginfo: %s",
		   c->name, c->str_arg, why);
	if (bwhy)
		diag_note(&c->loc, "and its BTF cannot be used either: %s", bwhy);
	return false;
}

/* module names as the kernel spells them ('-' is '_') */
static char *module_spelling(const char *name)
{
	char *s = xstrdup(name), *c;

	for (c = s; *c; c++)
		if (*c == '-')
			*c = '_';
	return s;
}

/* module("NAME") that names no module with debuginfo: the best reason */
static void module_not_found(const struct pp_component *m, const char *name,
			     const char *why)
{
	struct target *k = target_kernel();
	const char **all;
	int n = target_module_names(k, false, &all), i;
	const char *best;

	for (i = 0; i < n; i++)
		if (strcmp(all[i], name) == 0)
			break;
	if (n && i == n) {
		diag_error(&m->loc, "kernel %s has no module '%s'", k->release, name);
		best = diag_closest(name, all, n);
		if (best)
			diag_note(&m->loc, "did you mean '%s'?", best);
		return;
	}
	diag_error(&m->loc, "module(\"%s\") needs the module's debuginfo: %s", name, why);
}

/* the modules module("NAME-OR-GLOB") means, each with its DWARF; the
 * count, or -1 after an error */
static int module_sources(const struct pp_component *m, struct fn_source **out)
{
	struct target *kernel = target_kernel();
	const char **names, *glob;
	char *why = NULL;
	int n, i, k = 0;

	if (!m->has_arg || !m->arg_is_string) {
		diag_error(&m->loc, "module wants a module name, e.g. module(\"9p\")");
		return -1;
	}
	if (!kernel->release) {
		diag_error(&m->loc, "module(\"%s\"): the target kernel's release is not known",
			   m->str_arg);
		return -1;
	}
	glob = module_spelling(m->str_arg);
	if (!is_glob(glob)) {
		*out = xalloc(sizeof(**out));
		(*out)->dw = target_dwarf(target_module(kernel, glob), &why);
		if ((*out)->dw)
			return 1;
		module_not_found(m, glob, why);
		return -1;
	}
	n = target_module_names(kernel, true, &names);
	*out = xalloc((n + 1) * sizeof(**out));
	for (i = 0; i < n; i++)
		if (fnmatch(glob, names[i], 0) == 0 &&
		    ((*out)[k].dw = target_dwarf(target_module(kernel, names[i]), &why)))
			k++;
	if (k)
		return k;
	diag_error(&m->loc, "no module with debuginfo matches '%s'%s%s", m->str_arg,
		   why ? ": " : "", why ? why : "");
	if (n) {
		struct strbuf list = { 0 };

		for (i = 0; i < n; i++)
			sb_printf(&list, "%s%s", i ? " " : "", names[i]);
		diag_note(&m->loc, "modules with debuginfo for kernel %s: %s",
			  kernel->release, list.buf);
	}
	else
		diag_note(&m->loc, "no module of kernel %s has debuginfo here: install "
			  "linux-image-%s-dbg%s", kernel->release, kernel->release,
			  kernel->vm_dir ? " (for the ktap guest: run guest/provision)" : "");
	return -1;
}

/* the points of one source; the number of functions that matched */
static int source_points(const struct fn_source *src, const struct fn_pattern *p,
			 const struct fn_suffix *sx, bool statement, bool many,
			 struct point_list *pl)
{
	struct kfunc *fs;
	int nf, i;

	nf = src->dw ? dw_functions(src->dw, p->func, p->file, true,
				    !sx->call_only && !sx->is_return, &fs)
		     : btfk_functions(src->btf, p->func, &fs);
	for (i = 0; i < nf; i++) {
		if (!wanted(&fs[i], sx) ||
		    (!statement && is_glob(p->func) && !wanted_by_glob(&fs[i])))
			continue;
		if (statement || p->has_lines)
			statement_points(pl, src->dw, &fs[i], p, is_glob(p->func) || many);
		else
			add_function_point(pl, src->dw, src->btf, &fs[i], sx,
					   is_glob(p->func) || nf > 1 || many);
	}
	return nf;
}

/* kernel.function/statement, or module("M").function/statement */
static int resolve_functions(const struct probe_point *pp, struct concrete_point *out,
			     bool in_module, bool statement)
{
	const struct pp_component *c = &pp->comps[1];
	struct fn_pattern p;
	struct fn_suffix sx;
	struct fn_source *src, ksrc;
	struct point_list pl = { .head = out };
	int nf = 0, nsrc, i;

	if (!c->has_arg || !c->arg_is_string) {
		diag_error(&c->loc, "%s wants a pattern, e.g. %s(\"%s\")",
			   in_module ? c->name : xasprintf("kernel.%s", c->name),
			   in_module ? "module(\"9p\").function" : xasprintf("kernel.%s", c->name),
			   in_module ? "v9fs_vfs_getattr" : "vfs_read");
		return -1;
	}
	if (!parse_pattern(c, &p))
		return -1;
	if (!parse_suffixes(pp, 2, &sx, statement))
		return 0;
	if (in_module) {
		nsrc = module_sources(&pp->comps[0], &src);
		if (nsrc < 0)
			return -1;
	} else {
		if (!kernel_source(c, &p, &sx, statement, &ksrc))
			return -1;
		src = &ksrc;
		nsrc = 1;
	}
	for (i = 0; i < nsrc; i++)
		nf += source_points(&src[i], &p, &sx, statement, nsrc > 1, &pl);
	if (pl.n)
		return 1;
	if (pp->optional || pp->sufficient)
		return 0;
	if (nf && (statement || p.has_lines))
		diag_error(&c->loc, "'%s': no statement at line%s %d%s%s in the function",
			   c->str_arg, p.first == p.last ? "" : "s", p.first,
			   p.first == p.last ? "" : "-", p.first == p.last ? "" :
			   xasprintf("%d", p.last));
	else if (nf)
		diag_error(&c->loc, "'%s' matches only functions that %s", c->str_arg,
			   sx.inline_only ? "are not inlined" : sx.exported_only ?
			   "are not exported" : "are always inlined (no .call/.return there)");
	else
		no_match(c, &p, src, nsrc);
	return -1;
}

int probe_function(const struct probe_point *pp, struct concrete_point *out)
{
	bool in_module = pp_is(pp, 0, "module");

	if ((!pp_is(pp, 0, "kernel") && !in_module) || pp->ncomps < 2)
		return 0;
	if (pp_is(pp, 1, "function"))
		return resolve_functions(pp, out, in_module, false);
	if (pp_is(pp, 1, "statement"))
		return resolve_functions(pp, out, in_module, true);
	return 0;
}
