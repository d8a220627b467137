// SPDX-License-Identifier: GPL-2.0
/*
 * selftest_bad - a module whose start must fail: an optional probe on a
 * missing function (skipped), then a required one (fails start).
 *
 *   probe begin { printf("bad begin\n") }
 *   probe kprobe.function("no_such_function_ktap_opt")? { }
 *   probe timer.ms(10) { printf("bad tick\n") }
 *   probe kprobe.function("no_such_function_ktap") { }
 *   probe end { printf("bad end\n") }
 */
#define KTAP_MODULE_NAME "ktap_selftest_bad"
#include "runtime.h"

static void probe_0(struct ktap_context *c)
{
	ktap_printf(c, "bad begin\n");
}

static void probe_1(struct ktap_context *c)
{
	ktap_printf(c, "bad never\n");
}

static void probe_2(struct ktap_context *c)
{
	ktap_printf(c, "bad tick\n");
}

static void probe_3(struct ktap_context *c)
{
	ktap_printf(c, "bad end\n");
}

static const struct ktap_probe ktap_probes[] = {
	{ .kind = KTAP_PROBE_BEGIN, .pp = "begin" },
	{ .kind = KTAP_PROBE_KPROBE,
	  .pp = "kprobe.function(\"no_such_function_ktap_opt\")?",
	  .symbol = "no_such_function_ktap_opt", .optional = true },
	{ .kind = KTAP_PROBE_TIMER, .pp = "timer.ms(10)",
	  .period_ns = 10000000 },
	{ .kind = KTAP_PROBE_KPROBE,
	  .pp = "kprobe.function(\"no_such_function_ktap\")",
	  .symbol = "no_such_function_ktap" },
	{ .kind = KTAP_PROBE_END, .pp = "end" },
};
#define KTAP_NR_PROBES ARRAY_SIZE(ktap_probes)
/* no user-space probes: usymname() has no files (usyms.h) */
static const struct ktap_usym_file ktap_usym_files[] = { { 0 } };
static const unsigned int ktap_nr_usym_files;

/* the probes' handlers, in the table's order (run_handler.h) */
static void (*const ktap_handlers[])(struct ktap_context *c) = {
	probe_0, probe_1, probe_2, probe_1, probe_3,
};

#include "run_handler.h"

static int ktap_globals_init(void)
{
	return 0;
}

#include "module.h"
