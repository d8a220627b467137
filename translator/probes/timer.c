/* timer.c - timer.ns/us/ms/s/hz/jiffies(N): a periodic hrtimer;
 * timer.profile: one on every CPU, every tick. */
#include <string.h>

#include "../program.h"

struct timer_unit {
	const char *name;
	uint64_t ns;		/* one unit in ns; 0 = hz */
};

static const struct timer_unit units[] = {
	{ "ns", 1 },
	{ "us", 1000 },
	{ "ms", 1000000 },
	{ "s", 1000000000 },
	{ "sec", 1000000000 },
	{ "jiffies", 4000000 },	/* CONFIG_HZ=250 on Debian's kernels */
	{ "hz", 0 },
};

static const struct timer_unit *find_unit(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(units[i].name, name) == 0)
			return &units[i];
	return NULL;
}

int probe_timer(const struct probe_point *pp, struct concrete_point *out)
{
	const struct pp_component *arg;
	const struct timer_unit *unit;

	if (!pp_is(pp, 0, "timer") || pp->ncomps != 2)
		return 0;
	arg = &pp->comps[1];
	if (strcmp(arg->name, "profile") == 0 && !arg->has_arg) {
		/* every tick on every CPU (Debian's kernels: CONFIG_HZ=250) */
		out->kind = PK_TIMER;
		out->period_ns = 4000000;
		out->per_cpu = true;
		out->pp = probe_point_text(pp);
		return 1;
	}
	unit = find_unit(arg->name);
	if (!unit)
		return 0;
	if (!arg->has_arg || arg->arg_is_string || arg->num_arg <= 0) {
		diag_error(&arg->loc, "timer.%s wants a positive number, e.g. timer.%s(100)",
			   arg->name, arg->name);
		return -1;
	}
	if (unit->ns == 0) {
		if (arg->num_arg > 1000000000) {
			diag_error(&arg->loc, "timer.hz(%lld) is too fast",
				   (long long)arg->num_arg);
			return -1;
		}
		out->period_ns = 1000000000ULL / (uint64_t)arg->num_arg;
	} else {
		out->period_ns = (uint64_t)arg->num_arg * unit->ns;
	}
	if (out->period_ns < 100000) {
		diag_error(&arg->loc, "timer period below 100us would swamp the CPU");
		return -1;
	}
	out->kind = PK_TIMER;
	out->pp = probe_point_text(pp);
	return 1;
}
