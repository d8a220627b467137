/* probes.c - asks each provider in turn to resolve a probe point. */
#include <stdlib.h>
#include <string.h>

#include "../program.h"

typedef int (*provider_fn)(const struct probe_point *, struct concrete_point *);

static const provider_fn providers[] = {
	probe_begin_end,
	probe_timer,
	probe_kprobe,
};

/* names a user may have meant, for "did you mean" on unknown points */
static const char *const known_points[] = {
	"begin", "end", "timer.ms", "timer.s", "timer.us", "timer.ns",
	"timer.hz", "timer.jiffies", "kprobe.function",
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
