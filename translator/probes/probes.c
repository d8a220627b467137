/* probes.c - asks each provider in turn to resolve a probe point. */
#include <stdlib.h>
#include <string.h>

#include "../ktap.h"
#include "../debuginfo.h"
#include "../program.h"
#include "../aliasvars.h"

typedef int (*provider_fn)(const struct probe_point *, struct concrete_point *);

static const provider_fn providers[] = {
	probe_begin_end,
	probe_timer,
	probe_kprobe,
	probe_absolute,		/* before function.c: kernel.statement(ADDR) */
	probe_function,
	probe_trace,
	probe_syscall,
	probe_procfs,
	probe_process,
	probe_perf,
	probe_netfilter,
	probe_hwbkpt,
};

/* names a user may have meant, for "did you mean" on unknown points */
static const char *const known_points[] = {
	"begin", "end", "error", "init", "never", "oneshot", "timer.ms", "timer.s", "timer.us", "timer.ns",
	"timer.hz", "timer.jiffies", "timer.profile", "kprobe.function", "kernel.function",
	"kernel.statement", "kernel.trace", "kernel.syscall", "procfs.read", "procfs.write",
	"process.function", "process.statement", "process.mark", "process.begin",
	"process.end",
	"perf.sw.cpu_clock", "perf.sw.page_faults", "perf.sw.context_switches",
	"perf.hw.cpu_cycles", "perf.hw.instructions", "perf.type",
	"netfilter.hook", "netfilter.pf", "kernel.data",
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

/* " $file:struct file* $buf:char* ..." for -L */
static void append_vars(struct strbuf *sb, const struct concrete_point *cp)
{
	struct tvar_scope *sc = cp->scope;
	struct cvar *vars;
	int i, n;

	if (!sc)
		return;
	n = tvar_scope_vars(sc, &vars);
	for (i = 0; i < n; i++) {
		const struct cvar *v = &vars[i];

		if (sc->is_return && !v->is_param)
			continue;
		sb_printf(sb, " $%s:%s", v->name, v->type && v->type->name ? v->type->name : "void");
	}
	if (sc->is_return && sc->return_type)
		sb_printf(sb, " $return:%s", sc->return_type->name ? sc->return_type->name : "?");
}

/* has an earlier line listed this alias (an alias over several points,
 * syscall.open over open, openat and openat2, is listed once) */
static bool alias_listed(char **lines, int n, const char *alias)
{
	size_t len = strlen(alias);

	for (int i = 0; i < n; i++)
		if (strncmp(lines[i], alias, len) == 0 && (!lines[i][len] || lines[i][len] == ' '))
			return true;
	return false;
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

			/* an alias's name and its own variables, as the
			 * user names them (aliasvars.c) */
			const char *alias = cp->alias_point;

			if (alias && alias_listed(lines, n, alias))
				continue;
			sb_puts(&sb, alias ? alias : cp->pp);
			if (with_vars && alias)
				sb_puts(&sb, alias_vars_text(prog->probes[i]));
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
