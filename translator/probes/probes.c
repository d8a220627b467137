/* probes.c - asks each provider in turn to resolve a probe point. */
#include <stdlib.h>
#include <string.h>

#include "../ktap.h"
#include "../debuginfo.h"
#include "../program.h"

typedef int (*provider_fn)(const struct probe_point *, struct concrete_point *);

static const provider_fn providers[] = {
	probe_begin_end,
	probe_timer,
	probe_kprobe,
	probe_dwarf,
	probe_trace,
	probe_syscall,
};

/* names a user may have meant, for "did you mean" on unknown points */
static const char *const known_points[] = {
	"begin", "end", "timer.ms", "timer.s", "timer.us", "timer.ns",
	"timer.hz", "timer.jiffies", "timer.profile", "kprobe.function", "kernel.function",
	"kernel.statement", "kernel.trace", "kernel.syscall",
};

const char *const *probes_known_points(int *n)
{
	*n = sizeof(known_points) / sizeof(known_points[0]);
	return known_points;
}

int probes_resolve(const struct probe_point *pp, struct concrete_point *out)
{
	size_t i;

	for (i = 0; i < sizeof(providers) / sizeof(providers[0]); i++) {
		int rc = providers[i](pp, out);

		if (rc)
			return rc;
	}
	return 0;
}

/* the probe point as text, e.g. kprobe.function("vfs_read").return */
char *probe_point_text(const struct probe_point *pp)
{
	struct strbuf sb = { 0 };
	int i;

	sb_puts(&sb, "");
	for (i = 0; i < pp->ncomps; i++) {
		const struct pp_component *c = &pp->comps[i];

		sb_printf(&sb, "%s%s", i ? "." : "", c->name);
		if (c->has_arg && c->arg_is_string)
			sb_printf(&sb, "(\"%s\")", c->str_arg);
		else if (c->has_arg)
			sb_printf(&sb, "(%lld)", (long long)c->num_arg);
	}
	return sb.buf;
}

bool pp_is(const struct probe_point *pp, int i, const char *name)
{
	return i < pp->ncomps && strcmp(pp->comps[i].name, name) == 0;
}

/* " $file:struct file* $buf:char* ..." for -L */
static void append_vars(struct strbuf *sb, const struct concrete_point *cp)
{
	struct target_scope *sc = cp->scope;
	struct cvar *vars;
	int i, n;

	if (!sc)
		return;
	n = target_scope_vars(sc, &vars);
	for (i = 0; i < n; i++) {
		const struct cvar *v = &vars[i];

		if (sc->is_return && !v->is_param)
			continue;
		sb_printf(sb, " $%s:%s", v->name, v->type && v->type->name ? v->type->name : "void");
	}
	if (sc->is_return && sc->return_type)
		sb_printf(sb, " $return:%s", sc->return_type->name ? sc->return_type->name : "?");
}

static int compare_lines(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* -l / -L: every concrete point, sorted, each once */
void print_probe_list(FILE *out, const struct program *prog, bool with_vars)
{
	char **lines = NULL;
	int n = 0, i;

	for (i = 0; i < prog->nprobes; i++) {
		const struct concrete_point *cp;

		for (cp = prog->probes[i]->points; cp; cp = cp->next) {
			struct strbuf sb = { 0 };

			sb_puts(&sb, cp->pp);
			if (with_vars)
				append_vars(&sb, cp);
			lines = xrealloc(lines, (n + 1) * sizeof(*lines));
			lines[n++] = sb.buf;
		}
	}
	qsort(lines, n, sizeof(*lines), compare_lines);
	for (i = 0; i < n; i++)
		if (i == 0 || strcmp(lines[i], lines[i - 1]) != 0)
			fprintf(out, "%s\n", lines[i]);
}
