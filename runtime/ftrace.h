/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap runtime: function-entry probes through ftrace.
 *
 * A kprobe on a function's first instruction is an ftrace site: the kernel
 * runs it from its own ftrace callback, which looks the kprobe up, marks
 * it running and calls our pre-handler through a pointer. Hooking the
 * site with an ftrace_ops of our own skips that layer: about 0.2 us of
 * the 0.45 us a bare counting kprobe costs in a TCG guest.
 *
 * module.h still registers every kprobe, disabled: the kernel resolves the
 * symbol, applies its blacklist and says whether the address is an ftrace
 * site, exactly as for an armed kprobe. Sites go into one table, and one
 * ftrace_ops (registered once, since unregistering an ops waits for RCU
 * tasks) filters on all their addresses; its callback finds the probes of
 * the address hit by binary search. When ftrace cannot take them (no
 * DYNAMIC_FTRACE_WITH_REGS, or an error), module.h enables the kprobes
 * instead, so a script behaves the same either way:
 *
 *   - the handler sees the registers of the function's entry, with the
 *     instruction pointer just past the probe address, as a kprobe's int3
 *     would leave it (restored afterwards: ftrace returns through it);
 *   - a hit in NMI context, or one that ftrace's recursion guard refuses,
 *     is skipped and counted, as a missed kprobe is.
 *
 * A system call's entry point standing for kernel.syscall("NAME")
 * (syscall.h) needs only its one argument, not the registers: where
 * ftrace passes the argument registers to every callback
 * (DYNAMIC_FTRACE_WITH_ARGS), such sites go to a second ftrace_ops that
 * does not ask for them all, whose trampoline saves less (~80 ns a hit in
 * the TCG guest); the handler then sees no registers, as on the raw
 * syscall tracepoint.
 */
#ifndef _KTAP_FTRACE_H
#define _KTAP_FTRACE_H

#include <linux/ftrace.h>
#include <linux/sort.h>

/**
 * struct ktap_ftrace_site - a probe on an ftrace site
 * @ip: the site's address (the probe address of the disabled kprobe)
 * @probe: the probe to run there
 */
struct ktap_ftrace_site {
	unsigned long ip;
	const struct ktap_probe *probe;
};

#if defined(CONFIG_DYNAMIC_FTRACE_WITH_REGS) && !defined(KTAP_NO_FTRACE)

/* the sites, sorted by address once attached; several probes may share one */
static struct ktap_ftrace_site *ktap_ftrace_sites;
static int ktap_ftrace_nsites;
static bool ktap_ftrace_attached, ktap_ftrace_filtered;

static void ktap_ftrace_hit(unsigned long ip, unsigned long parent_ip,
			    struct ftrace_ops *ops, struct ftrace_regs *fregs);

static struct ftrace_ops ktap_ftrace_ops = {
	.func = ktap_ftrace_hit,
	.flags = FTRACE_OPS_FL_SAVE_REGS,
};

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_ARGS
#define KTAP_FTRACE_SC_OPS 1
static bool ktap_ftrace_sc_attached, ktap_ftrace_sc_filtered;

static void ktap_ftrace_sc_hit(unsigned long ip, unsigned long parent_ip,
			       struct ftrace_ops *ops, struct ftrace_regs *fregs);

/* the system call entry points: no FTRACE_OPS_FL_SAVE_REGS */
static struct ftrace_ops ktap_ftrace_sc_ops = {
	.func = ktap_ftrace_sc_hit,
};
#else
#define KTAP_FTRACE_SC_OPS 0
#endif

/* the ops that hooks a probe's site */
static struct ftrace_ops *ktap_ftrace_ops_of(const struct ktap_probe *probe)
{
#if KTAP_FTRACE_SC_OPS
	if (probe->syscall_nr)
		return &ktap_ftrace_sc_ops;
#endif
	return &ktap_ftrace_ops;
}

/**
 * ktap_ftrace_first() - the first site of an address
 * @ip: the address
 *
 * Return: the index of the first site at @ip, or -1.
 */
static __always_inline int ktap_ftrace_first(unsigned long ip)
{
	int lo = 0, hi = ktap_ftrace_nsites;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (ktap_ftrace_sites[mid].ip < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ktap_ftrace_nsites && ktap_ftrace_sites[lo].ip == ip ? lo : -1;
}

/**
 * ktap_ftrace_hit() - the ftrace callback: run the probes of @ip
 * @ip: the ftrace site hit
 * @parent_ip: its caller
 * @ops: ktap_ftrace_ops
 * @fregs: the registers (all of them: FTRACE_OPS_FL_SAVE_REGS)
 */
static void notrace ktap_ftrace_hit(unsigned long ip, unsigned long parent_ip,
				    struct ftrace_ops *ops,
				    struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);
	unsigned long resume_ip;
	int bit, i;

	/* disables preemption: handlers run with it disabled */
	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0) {
		ktap_count_skipped();
		return;
	}
	i = ktap_ftrace_first(ip);
	if (unlikely(i < 0 || !regs))
		goto out;
	/* unlike an int3 kprobe, an NMI here is a real one */
	if (unlikely(in_nmi())) {
		ktap_count_skipped();
		goto out;
	}
	resume_ip = instruction_pointer(regs);
	instruction_pointer_set(regs, ip + sizeof(kprobe_opcode_t));
	for (; i < ktap_ftrace_nsites && ktap_ftrace_sites[i].ip == ip; i++) {
		const struct ktap_probe *probe = ktap_ftrace_sites[i].probe;

		if (!probe->syscall_nr)
			ktap_run_probe(probe, regs);
		else if (!KTAP_FTRACE_SC_OPS)	/* a system call's entry */
			ktap_syscall_hit(probe, regs,
					 (const struct pt_regs *)regs->di);
	}
	instruction_pointer_set(regs, resume_ip);
out:
	ftrace_test_recursion_unlock(bit);
}

#if KTAP_FTRACE_SC_OPS
/**
 * ktap_ftrace_sc_hit() - the callback of system call entry points
 * @ip: the ftrace site hit (a __x64_sys_NAME)
 * @parent_ip: its caller
 * @ops: ktap_ftrace_sc_ops
 * @fregs: the argument registers only (x86's ftrace_regs: a pt_regs of
 *	which the arguments are filled)
 *
 * Runs the system call probes of @ip (syscall.h) with no registers.
 */
static void notrace ktap_ftrace_sc_hit(unsigned long ip, unsigned long parent_ip,
				       struct ftrace_ops *ops,
				       struct ftrace_regs *fregs)
{
	const struct pt_regs *uregs = (const struct pt_regs *)fregs->regs.di;
	int bit, i;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0) {
		ktap_count_skipped();
		return;
	}
	i = ktap_ftrace_first(ip);
	if (unlikely(i < 0))
		goto out;
	if (unlikely(in_nmi())) {
		ktap_count_skipped();
		goto out;
	}
	for (; i < ktap_ftrace_nsites && ktap_ftrace_sites[i].ip == ip; i++)
		if (ktap_ftrace_sites[i].probe->syscall_nr)
			ktap_syscall_hit(ktap_ftrace_sites[i].probe, NULL, uregs);
out:
	ftrace_test_recursion_unlock(bit);
}
#endif

/**
 * ktap_ftrace_add() - take a probe whose kprobe address is an ftrace site
 * @probe: the probe
 * @ip: the address
 *
 * Process context, before ktap_ftrace_attach().
 *
 * Return: 0, or -ENOMEM (then the caller uses the kprobe).
 */
static int ktap_ftrace_add(const struct ktap_probe *probe, unsigned long ip)
{
	if (!ktap_ftrace_sites) {
		ktap_ftrace_sites = kcalloc(KTAP_NR_PROBES,
					    sizeof(*ktap_ftrace_sites),
					    GFP_KERNEL);
		if (!ktap_ftrace_sites)
			return -ENOMEM;
	}
	ktap_ftrace_sites[ktap_ftrace_nsites].ip = ip;
	ktap_ftrace_sites[ktap_ftrace_nsites].probe = probe;
	ktap_ftrace_nsites++;
	return 0;
}

static int ktap_ftrace_cmp_site(const void *a, const void *b)
{
	const struct ktap_ftrace_site *x = a, *y = b;

	if (x->ip != y->ip)
		return x->ip < y->ip ? -1 : 1;
	/* a stable order: probes of one site run in script order */
	return x->probe < y->probe ? -1 : x->probe > y->probe;
}

/**
 * ktap_ftrace_reset() - forget the sites (after a failed attach, or detach)
 */
static void ktap_ftrace_reset(void)
{
	kfree(ktap_ftrace_sites);
	ktap_ftrace_sites = NULL;
	ktap_ftrace_nsites = 0;
}

static void ktap_ftrace_detach(void);

/**
 * ktap_ftrace_attach() - hook every site taken by ktap_ftrace_add()
 *
 * Return: 0 (also with no sites), or a negative errno; then no site is
 * hooked and the table is empty, so the caller enables the kprobes.
 */
static int ktap_ftrace_attach(void)
{
	bool plain = false, sc = false;
	int i, ret = 0;

	if (!ktap_ftrace_nsites)
		return 0;
	sort(ktap_ftrace_sites, ktap_ftrace_nsites, sizeof(*ktap_ftrace_sites),
	     ktap_ftrace_cmp_site, NULL);
	for (i = 0; i < ktap_ftrace_nsites && !ret; i++) {
		struct ftrace_ops *ops = ktap_ftrace_ops_of(ktap_ftrace_sites[i].probe);

		ret = ftrace_set_filter_ip(ops, ktap_ftrace_sites[i].ip, 0, 0);
		if (ops == &ktap_ftrace_ops)
			plain = true;
		else
			sc = true;
	}
	/* a filter is freed once (ftrace_free_filter() leaves its pointer) */
	ktap_ftrace_filtered = plain;
#if KTAP_FTRACE_SC_OPS
	ktap_ftrace_sc_filtered = sc;
#endif
	if (!ret && plain)
		ret = register_ftrace_function(&ktap_ftrace_ops);
	ktap_ftrace_attached = !ret && plain;
#if KTAP_FTRACE_SC_OPS
	if (!ret && sc) {
		ret = register_ftrace_function(&ktap_ftrace_sc_ops);
		ktap_ftrace_sc_attached = !ret;
	}
#endif
	if (ret) {
		ktap_ftrace_detach();
		return ret;
	}
	return 0;
}

/**
 * ktap_ftrace_detach() - unhook every site
 *
 * Waits until no callback runs any more.
 */
static void ktap_ftrace_detach(void)
{
	if (ktap_ftrace_attached)
		unregister_ftrace_function(&ktap_ftrace_ops);
	if (ktap_ftrace_filtered)
		ftrace_free_filter(&ktap_ftrace_ops);
	ktap_ftrace_attached = ktap_ftrace_filtered = false;
#if KTAP_FTRACE_SC_OPS
	if (ktap_ftrace_sc_attached)
		unregister_ftrace_function(&ktap_ftrace_sc_ops);
	if (ktap_ftrace_sc_filtered)
		ftrace_free_filter(&ktap_ftrace_sc_ops);
	ktap_ftrace_sc_attached = ktap_ftrace_sc_filtered = false;
#endif
	ktap_ftrace_reset();
}

#else /* no DYNAMIC_FTRACE_WITH_REGS, or -D KTAP_NO_FTRACE: kprobes stay kprobes */

static inline int ktap_ftrace_add(const struct ktap_probe *probe,
				  unsigned long ip)
{
	return -EOPNOTSUPP;
}

static inline int ktap_ftrace_attach(void)
{
	return 0;
}

static inline void ktap_ftrace_detach(void)
{
}

#endif /* CONFIG_DYNAMIC_FTRACE_WITH_REGS && !KTAP_NO_FTRACE */

#endif /* _KTAP_FTRACE_H */
