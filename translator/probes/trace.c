/* trace.c - kernel.trace("[system:]name-glob"): the kernel's tracepoints.
 *
 * The handler is registered on the tracepoint itself (runtime/module.h),
 * so the arguments arrive as C arguments; their names and types come from
 * the prototype of the kernel's __traceiter_NAME function in its BTF or
 * DWARF, which the target (target.h) opens.
 * No per-tracepoint query module is compiled.
 */
#include <fnmatch.h>
#include <string.h>

#include "../ktap.h"
#include "../debuginfo.h"
#include "../program.h"
#include "../target.h"

/* "sched:sched_*" -> system "sched", name "sched_*"; "sched_*" -> any */
static void split_name(const char *arg, char **system, char **name)
{
	const char *colon = strchr(arg, ':');

	*system = colon ? xstrndup(arg, (size_t)(colon - arg)) : xstrdup("*");
	*name = xstrdup(colon ? colon + 1 : arg);
}

/* a tracepoint whose argument is a struct passed by value cannot be
 * registered with a prototype of scalars: every argument must fit a
 * register */
static const char *unsupported_arg(const struct ktracepoint *tp)
{
	int i;

	for (i = 0; i < tp->nargs; i++) {
		const struct ctype *t = tp->args[i].type;

		if (!t || t->size == 0 || t->size > 8 || t->kind == CT_STRUCT ||
		    t->kind == CT_UNION || t->kind == CT_FLOAT)
			return tp->args[i].name;
	}
	return NULL;
}

/*
 * The kernel's BTF has every __traceiter_NAME with its parameters named
 * and typed (the first is the probe's data), and the image's event_NAME
 * says which system it is in. That is all a tracepoint needs, so no DWARF
 * index is built for it. (From the running kernel's BTF alone the system
 * is not known: "*".)
 */
static int btf_tracepoints(struct btf_kernel *btf, const char *system,
			   const char *name, struct ktracepoint **out)
{
	struct kfunc *fs;
	int nf, i, j, n = 0;

	nf = btfk_functions(btf, xasprintf("__traceiter_%s", name), &fs);
	*out = xalloc((nf + 1) * sizeof(**out));
	for (i = 0; i < nf; i++) {
		const char *tp_name = fs[i].name + strlen("__traceiter_");
		const char *sys = btfk_tracepoint_system(btf, tp_name);
		struct ktracepoint *tp;
		struct cvar *params;
		int np;

		/* a bare tracepoint (no trace event) has no system: it
		 * matches only when any system will do */
		if (sys ? fnmatch(system, sys, 0) != 0 : strcmp(system, "*") != 0)
			continue;
		tp = &(*out)[n++];
		np = btfk_parameters(btf, &fs[i], &params);
		tp->system = sys ? sys : "*";
		tp->name = tp_name;
		tp->nargs = np > 0 ? np - 1 : 0;
		tp->args = params + 1;
		for (j = 0; j < tp->nargs; j++) {
			tp->args[j].value_c = xasprintf("c->tp_args[%d]", j);
			tp->args[j].addr_c = NULL;
			tp->args[j].unavailable = NULL;
		}
	}
	return n;
}

/* the tracepoints matching system:name, from BTF when it knows systems
 * (fast: no DWARF index), else from the DWARF, else BTF without systems */
static int find_tracepoints(const struct pp_component *c, const char *system,
			    const char *name, struct ktracepoint **tps)
{
	struct target *k = target_kernel();
	char *why = NULL, *bwhy = NULL;
	struct btf_kernel *btf = target_btf(k, &bwhy);
	struct dw *dw;

	if (btf && btfk_tracepoint_system(btf, "sched_switch"))
		return btf_tracepoints(btf, system, name, tps);
	if ((dw = target_dwarf(k, &why)))
		return dw_tracepoints(dw, system, name, tps);
	if (btf)
		return btf_tracepoints(btf, "*", name, tps);
	diag_error(&c->loc, "kernel.trace(\"%s\") needs the kernel's BTF or DWARF for the "
		   "tracepoint's arguments: %s; %s", c->str_arg, bwhy, why);
	return -1;
}

static void fill_point(struct concrete_point *cp, const struct ktracepoint *tp)
{
	struct tvar_scope *sc = xalloc(sizeof(*sc));

	cp->kind = PK_TRACEPOINT;
	cp->tracepoint = tp->name;
	cp->tp_args = tp->args;
	cp->tp_nargs = tp->nargs;
	cp->pp = xasprintf("kernel.trace(\"%s:%s\")", tp->system, tp->name);
	sc->where = cp->pp;
	sc->vars = tp->args;
	sc->nvars = tp->nargs;
	sc->no_regs = true;
	cp->scope = sc;
}

int probe_trace(const struct probe_point *pp, struct concrete_point *out)
{
	const struct pp_component *c;
	struct ktracepoint *tps;
	struct concrete_point *cp = NULL;
	char *system, *name;
	int n, i, used = 0;

	if (!pp_is(pp, 0, "kernel") || !pp_is(pp, 1, "trace"))
		return 0;
	c = &pp->comps[1];
	if (pp->ncomps != 2)
		return 0;
	if (!c->has_arg || !c->arg_is_string) {
		diag_error(&c->loc, "kernel.trace wants a tracepoint name, e.g. kernel.trace(\"sched_switch\")");
		return -1;
	}
	split_name(c->str_arg, &system, &name);
	n = find_tracepoints(c, system, name, &tps);
	if (n < 0)
		return -1;
	for (i = 0; i < n; i++) {
		const char *bad = unsupported_arg(&tps[i]);

		if (bad) {
			if (!strpbrk(c->str_arg, "*?["))
				diag_error(&c->loc, "tracepoint %s passes '%s' by value, which "
					   "ktap cannot receive yet", tps[i].name, bad);
			continue;
		}
		cp = cp ? (cp->next = xalloc(sizeof(*cp))) : out;
		fill_point(cp, &tps[i]);
		cp->optional = n > 1;
		used++;
	}
	if (used)
		return 1;
	if (n)
		return -1;
	if (pp->optional || pp->sufficient)
		return 0;
	diag_error(&c->loc, "no tracepoint matches '%s'", c->str_arg);
	return -1;
}
