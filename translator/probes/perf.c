/* perf.c - perf.type(T).config(C)[.sample(N) | .hz(N)] and the named
 * events perf.hw.NAME / perf.sw.NAME (the perf_event_attr type/config
 * pairs of linux/perf_event.h): a counting perf event on every CPU whose
 * overflow, every N events (default 1000000) or N times a second, runs
 * the probe. The kernel checks type and config when the probe is armed:
 * a hardware event the machine lacks (a TCG guest has no PMU) fails the
 * start with the kernel's errno.
 *
 * .process counts only the target process (-c CMD or -x PID) and the
 * tasks it makes afterwards; .counter("NAME") is such a counter that runs
 * no handler: @perf("NAME") reads it (runtime/perf.h). */
#include <string.h>

#include "../program.h"

#define PERF_TYPE_HARDWARE 0
#define PERF_TYPE_SOFTWARE 1
#define DEFAULT_SAMPLE 1000000

struct perf_name {
	const char *name;
	int64_t config;
};

static const struct perf_name hw_events[] = {
	{ "cpu_cycles", 0 }, { "cycles", 0 }, { "instructions", 1 },
	{ "cache_references", 2 }, { "cache_misses", 3 },
	{ "branch_instructions", 4 }, { "branches", 4 }, { "branch_misses", 5 },
	{ "bus_cycles", 6 }, { "stalled_cycles_frontend", 7 },
	{ "stalled_cycles_backend", 8 }, { "ref_cpu_cycles", 9 },
};

static const struct perf_name sw_events[] = {
	{ "cpu_clock", 0 }, { "task_clock", 1 }, { "page_faults", 2 },
	{ "context_switches", 3 }, { "cpu_migrations", 4 },
	{ "page_faults_min", 5 }, { "page_faults_maj", 6 },
	{ "alignment_faults", 7 }, { "emulation_faults", 8 },
};

static const struct perf_name *find_event(const struct perf_name *t, size_t n,
					  const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(t[i].name, name) == 0)
			return &t[i];
	return NULL;
}

static bool number_arg(const struct pp_component *c, int64_t min)
{
	if (c->has_arg && !c->arg_is_string && c->num_arg >= min)
		return true;
	diag_error(&c->loc, "perf %s wants a number of at least %lld", c->name,
		   (long long)min);
	return false;
}

/* perf.hw.NAME or perf.sw.NAME: its type and config; 0 if not one */
static int named_event(const struct probe_point *pp, struct concrete_point *out)
{
	const struct pp_component *c = &pp->comps[2];
	bool hw = pp_is(pp, 1, "hw");
	const struct perf_name *e;

	if (pp->ncomps < 3 || c->has_arg)
		return 0;
	e = hw ? find_event(hw_events, sizeof(hw_events) / sizeof(hw_events[0]), c->name) :
		 find_event(sw_events, sizeof(sw_events) / sizeof(sw_events[0]), c->name);
	if (!e)
		return 0;
	out->perf_type = hw ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE;
	out->perf_config = e->config;
	return 1;
}

/* a counter's name: a C string literal as it is, for the probe table */
static bool counter_name(const struct pp_component *c)
{
	if (c->has_arg && c->arg_is_string && c->str_arg[0] &&
	    !strpbrk(c->str_arg, "\"\\\n"))
		return true;
	diag_error(&c->loc, "perf .counter wants a name: .counter(\"NAME\"), without quotes "
		   "or backslashes in it");
	return false;
}

/* one of the optional last components, each at most once: .sample(N) or
 * .hz(N); .process (the target process, -c or -x); .counter("NAME"); 1
 * taken, 0 not one of them, -1 an error */
static int option(const struct probe_point *pp, int i, struct concrete_point *out,
		  unsigned int *seen)
{
	const struct pp_component *c = &pp->comps[i];
	static const char *const names[] = { "sample", "hz", "process", "counter" };
	unsigned int k;

	for (k = 0; k < 4 && !pp_is(pp, i, names[k]); k++)
		;
	if (k == 4)
		return 0;
	if (*seen & (1u << (k < 2 ? 0 : k))) {
		diag_error(&c->loc, "perf .%s: only one of it%s", c->name,
			   k < 2 ? " and .sample/.hz" : "");
		return -1;
	}
	*seen |= 1u << (k < 2 ? 0 : k);
	if (k == 2) {
		if (c->has_arg) {
			diag_error(&c->loc, "perf .process(\"PROC\") (a program by name) is not "
				   "supported by ktap: use .process, which counts the target "
				   "process (-c CMD or -x PID)");
			return -1;
		}
		out->perf_task = true;
		return 1;
	}
	if (k == 3) {
		if (!counter_name(c))
			return -1;
		out->perf_counter = c->str_arg;
		out->perf_task = true;
		return 1;
	}
	if (!number_arg(c, 1))
		return -1;
	out->perf_sample = (uint64_t)c->num_arg;
	out->perf_freq = k == 1;
	return 1;
}

/* the components after the event */
static int options(const struct probe_point *pp, int i, struct concrete_point *out)
{
	unsigned int seen = 0;
	int rc, sample = 0;

	out->perf_sample = DEFAULT_SAMPLE;
	for (; i < pp->ncomps; i++) {
		rc = option(pp, i, out, &seen);
		if (rc <= 0)
			return rc;
		if (pp_is(pp, i, "sample") || pp_is(pp, i, "hz"))
			sample = i;
	}
	if (out->perf_counter && sample) {
		diag_error(&pp->comps[sample].loc, "perf .counter runs no handler: .sample and .hz "
			   "do not apply to it");
		return -1;
	}
	return 1;
}

int probe_perf(const struct probe_point *pp, struct concrete_point *out)
{
	int rc, next;

	if (!pp_is(pp, 0, "perf") || pp->ncomps < 3)
		return 0;
	if (pp_is(pp, 1, "type") && pp_is(pp, 2, "config")) {
		if (!number_arg(&pp->comps[1], 0) || !number_arg(&pp->comps[2], 0))
			return -1;
		out->perf_type = (uint32_t)pp->comps[1].num_arg;
		out->perf_config = pp->comps[2].num_arg;
	} else if (pp_is(pp, 1, "hw") || pp_is(pp, 1, "sw")) {
		if (pp->comps[1].has_arg || named_event(pp, out) <= 0)
			return 0;
	} else {
		return 0;
	}
	next = 3;
	rc = options(pp, next, out);
	if (rc <= 0)
		return rc;
	out->kind = PK_PERF;
	out->pp = probe_point_text(pp);
	return 1;
}
