/* timer.c - timer.ns/us/ms/s/hz/jiffies(N)[.randomize(M)]: a periodic
 * hrtimer, each period N +- a random M when randomized; timer.profile
 * (and timer.profile.tick): one on every CPU, every tick;
 * timer.profile.freq.hz(N): one on every CPU, N times a second. */
#include <string.h>

#include "../program.h"
#include "../target.h"

struct timer_unit {
	const char *name;
	uint64_t ns;		/* one unit in ns; 0 = hz */
};

static const struct timer_unit units[] = {
	{ "ns", 1 },
	{ "nsec", 1 },
	{ "us", 1000 },
	{ "usec", 1000 },
	{ "ms", 1000000 },
	{ "msec", 1000000 },
	{ "s", 1000000000 },
	{ "sec", 1000000000 },
	{ "jiffies", 0 },	/* 1 s / the target's CONFIG_HZ */
	{ "hz", 0 },
};

/* a tick of the target kernel in ns (its CONFIG_HZ); 0 after an error */
static uint64_t tick_ns(const struct pp_component *arg)
{
	char *why = NULL;
	long hz = target_hz(target_kernel(), &why);

	if (!hz) {
		diag_error(&arg->loc, "timer.%s needs the kernel's tick rate: %s", arg->name, why);
		return 0;
	}
	return 1000000000ULL / (uint64_t)hz;
}

static const struct timer_unit *find_unit(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(units[i].name, name) == 0)
			return &units[i];
	return NULL;
}

static bool positive_arg(const struct pp_component *c, const char *what)
{
	if (c->has_arg && !c->arg_is_string && c->num_arg > 0)
		return true;
	diag_error(&c->loc, "%s wants a positive number, e.g. %s(100)", what, what);
	return false;
}

/* N hz as a period; false after an error */
static bool hz_period(const struct pp_component *c, uint64_t *ns)
{
	if (c->num_arg > 1000000000) {
		diag_error(&c->loc, "%s(%lld) is too fast", c->name, (long long)c->num_arg);
		return false;
	}
	*ns = 1000000000ULL / (uint64_t)c->num_arg;
	return true;
}

static bool period_ok(const struct pp_component *c, uint64_t ns)
{
	if (ns >= 100000)
		return true;
	diag_error(&c->loc, "timer period below 100us would swamp the CPU");
	return false;
}

/* timer.profile, timer.profile.tick, timer.profile.freq.hz(N) */
static int profile_timer(const struct probe_point *pp, struct concrete_point *out)
{
	const struct pp_component *hz = &pp->comps[pp->ncomps - 1];

	if ((pp->ncomps == 2 && !pp->comps[1].has_arg) ||
	    (pp->ncomps == 3 && pp_is(pp, 2, "tick") && !hz->has_arg)) {
		out->period_ns = tick_ns(&pp->comps[1]);
		if (!out->period_ns)
			return -1;
	} else if (pp->ncomps == 4 && pp_is(pp, 2, "freq") && pp_is(pp, 3, "hz") &&
		   !pp->comps[2].has_arg) {
		if (!positive_arg(hz, "timer.profile.freq.hz") ||
		    !hz_period(hz, &out->period_ns) || !period_ok(hz, out->period_ns))
			return -1;
	} else {
		return 0;
	}
	out->kind = PK_TIMER;
	out->per_cpu = true;
	out->pp = probe_point_text(pp);
	return 1;
}

/* .randomize(M): M units, less than the period N */
static int randomize(const struct pp_component *arg, const struct pp_component *rnd,
		     const struct timer_unit *unit, struct concrete_point *out)
{
	if (!strcmp(unit->name, "hz")) {
		diag_error(&rnd->loc, "timer.hz cannot be randomized (stapprobes(3stap))");
		return -1;
	}
	if (!positive_arg(rnd, "randomize"))
		return -1;
	if (rnd->num_arg >= arg->num_arg) {
		diag_error(&rnd->loc, "randomize(%lld) must be smaller than the period timer.%s(%lld)",
			   (long long)rnd->num_arg, arg->name, (long long)arg->num_arg);
		return -1;
	}
	/* one unit: jiffies are the target's tick */
	out->randomize_ns = (uint64_t)rnd->num_arg * (out->period_ns / (uint64_t)arg->num_arg);
	if (out->period_ns - out->randomize_ns < 100000) {
		diag_error(&rnd->loc, "timer period below 100us would swamp the CPU");
		return -1;
	}
	return 1;
}

int probe_timer(const struct probe_point *pp, struct concrete_point *out)
{
	const struct pp_component *arg;
	const struct timer_unit *unit;

	if (!pp_is(pp, 0, "timer") || pp->ncomps < 2)
		return 0;
	arg = &pp->comps[1];
	if (strcmp(arg->name, "profile") == 0)
		return profile_timer(pp, out);
	unit = find_unit(arg->name);
	if (!unit || pp->ncomps > 3 || (pp->ncomps == 3 && !pp_is(pp, 2, "randomize")))
		return 0;
	if (!positive_arg(arg, xasprintf("timer.%s", arg->name)))
		return -1;
	if (!strcmp(unit->name, "jiffies")) {
		uint64_t tick = tick_ns(arg);

		if (!tick)
			return -1;
		out->period_ns = (uint64_t)arg->num_arg * tick;
	} else if (unit->ns == 0) {
		if (!hz_period(arg, &out->period_ns))
			return -1;
	} else {
		out->period_ns = (uint64_t)arg->num_arg * unit->ns;
	}
	if (!period_ok(arg, out->period_ns))
		return -1;
	if (pp->ncomps == 3 && randomize(arg, &pp->comps[2], unit, out) < 0)
		return -1;
	out->kind = PK_TIMER;
	out->pp = probe_point_text(pp);
	return 1;
}
