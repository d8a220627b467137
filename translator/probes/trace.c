/* trace.c - kernel.trace("[system:]name-glob"): the kernel's tracepoints.
 *
 * The handler is registered on the tracepoint itself (runtime/module.h),
 * so the arguments arrive as C arguments; their names and types come from
 * the prototype of the kernel's __traceiter_NAME function in the DWARF.
 * No per-tracepoint query module is compiled.
 */
#include <string.h>

#include "../ktap.h"
#include "../debuginfo.h"
#include "../program.h"

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

static void fill_point(struct concrete_point *cp, const struct ktracepoint *tp)
{
	struct target_scope *sc = xalloc(sizeof(*sc));

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
	char *system, *name, *why = NULL;
	struct dw *dw;
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
	dw = probes_dwarf(&why);
	if (!dw) {
		diag_error(&c->loc, "kernel.trace(\"%s\") needs the kernel's DWARF for the "
			   "tracepoint's arguments: %s", c->str_arg, why);
		return -1;
	}
	split_name(c->str_arg, &system, &name);
	n = dw_tracepoints(dw, system, name, &tps);
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
