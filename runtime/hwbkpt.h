/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap runtime: hardware watchpoint probes.
 *
 * kernel.data(ADDRESS).write / .rw: register_wide_hw_breakpoint() takes a
 * debug register on every online CPU for the probe's address. x86 data
 * breakpoints trap after the access, in the #DB handler, which the
 * kernel enters like an NMI (ktap_enter() lets one such level in, as for
 * an int3 kprobe). A probe named by symbol is armed only if the kernel
 * has that symbol at the translator's address (System.map's: KASLR would
 * have moved it), so a wrong address is never watched.
 */
#ifndef _KTAP_HWBKPT_H
#define _KTAP_HWBKPT_H

#include <linux/hw_breakpoint.h>
#include <linux/kallsyms.h>

static void ktap_hwbkpt_hit(struct perf_event *bp, struct perf_sample_data *data,
			    struct pt_regs *regs)
{
	const struct ktap_probe *probe = bp->overflow_handler_context;

	preempt_disable_notrace();
	ktap_run_probe(probe, regs);
	preempt_enable_notrace();
}

/* the kernel's own symbol at @probe's address is @probe->symbol */
static bool ktap_hwbkpt_symbol_ok(const struct ktap_probe *probe)
{
	char buf[KSYM_SYMBOL_LEN];
	size_t n = strlen(probe->symbol);

	sprint_symbol(buf, probe->address);
	return !strncmp(buf, probe->symbol, n) && !strncmp(buf + n, "+0x0/", 5);
}

/**
 * ktap_hwbkpt_start() - take a debug register on every CPU for a probe
 * @events: where the per-CPU breakpoints go
 * @probe: the probe (KTAP_PROBE_HWBKPT)
 *
 * Return: 0; -EADDRNOTAVAIL if the kernel's symbol is not at the address;
 * the kernel's errno otherwise (ENOSPC: the debug registers are taken,
 * EINVAL: an address not aligned to the length).
 */
static int ktap_hwbkpt_start(struct perf_event * __percpu **events,
			     const struct ktap_probe *probe)
{
	struct perf_event_attr attr;
	struct perf_event * __percpu *bp;

	if (probe->symbol && !ktap_hwbkpt_symbol_ok(probe))
		return -EADDRNOTAVAIL;
	hw_breakpoint_init(&attr);
	attr.bp_addr = probe->address;
	attr.bp_len = probe->bp_len;
	attr.bp_type = probe->bp_type;
	bp = register_wide_hw_breakpoint(&attr, ktap_hwbkpt_hit, (void *)probe);
	if (IS_ERR(bp))
		return PTR_ERR(bp);
	*events = bp;
	return 0;
}

/**
 * ktap_hwbkpt_stop() - release a probe's debug registers
 * @events: as set by ktap_hwbkpt_start(); NULL afterwards
 */
static void ktap_hwbkpt_stop(struct perf_event * __percpu **events)
{
	if (!*events)
		return;
	unregister_wide_hw_breakpoint(*events);
	*events = NULL;
}

#endif /* _KTAP_HWBKPT_H */
