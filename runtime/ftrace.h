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
 * Where the translator knew the function's ftrace site (probe->ftrace_site,
 * read from the image's __mcount_loc) module.h takes it directly, moved
 * by the KASLR offset (ksyms.h): no kprobe, no kallsyms search (linear on
 * 6.1: 25 ms each in a TCG guest, 15 minutes for 37,000 functions). Elsewhere it registers the
 * kprobe disabled, and the kernel resolves the symbol, applies its
 * blacklist and says whether the address is an ftrace site. Sites go into
 * one table, and one ftrace_ops (registered once, since unregistering an
 * ops waits for RCU tasks) filters on all their addresses, given to
 * ftrace a batch at a time (each call copies the filter hash); its
 * callback finds the probes of the address hit by binary search. A site
 * ftrace refuses goes back to module.h as a kprobe; when ftrace cannot
 * take any (no DYNAMIC_FTRACE_WITH_REGS, or an error), module.h uses
 * kprobes for all, so a script behaves the same either way:
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
 * syscall tracepoint. There are a few of them at most (syscall.c's
 * bound), so that ops takes its sites one by one, after the first's.
 */
#ifndef _KTAP_FTRACE_H
#define _KTAP_FTRACE_H

#include <linux/ftrace.h>
#include <linux/mm.h>
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

/*
 * Addresses go to ftrace this many at a time: one copy of the filter hash
 * per call (instead of one per site), one round of code patching (about
 * 0.7 s in a TCG guest), and a look for a signal between two.
 */
#define KTAP_FTRACE_BATCH 1024

/*
 * Unhooking needs no look for a signal: fewer, larger steps (each goes
 * over all of ftrace's records once more), still well within the
 * soft-lockup watchdog's 20 s.
 */
#define KTAP_FTRACE_DETACH_BATCH 4096

/* the sites, sorted by address once attached; several probes may share one */
static struct ktap_ftrace_site *ktap_ftrace_sites;
static int ktap_ftrace_nsites;
static bool ktap_ftrace_attached;

/* the probes whose address ftrace refused (module.h makes them kprobes) */
static const struct ktap_probe **ktap_ftrace_refused;
static int ktap_ftrace_nrefused;

/* the distinct addresses: the first ktap_ftrace_nhooked are in the filter */
static unsigned long *ktap_ftrace_hooked;
static int ktap_ftrace_nips, ktap_ftrace_nhooked;
/* the ops has a filter to free (ftrace_free_filter() frees it twice) */
static bool ktap_ftrace_filtered;

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

/* whether a probe's site goes to ktap_ftrace_sc_ops, not ktap_ftrace_ops */
static inline bool ktap_ftrace_on_sc_ops(const struct ktap_probe *probe)
{
	return KTAP_FTRACE_SC_OPS && probe->syscall_nr;
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

	if (hi == 1)	/* one function probed: no search */
		return ktap_ftrace_sites[0].ip == ip ? 0 : -1;
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
 * ktap_ftrace_enter() - a callback's start: take ftrace's recursion guard
 * @ip: the ftrace site hit
 * @parent_ip: its caller
 * @bit: set to the guard's bit (negative: refused, counted as skipped;
 *	return at once), else ftrace_test_recursion_unlock() it
 *
 * Disables preemption: handlers run with it disabled.
 *
 * Return: the index of @ip's first site, or -1 (none, or a hit in NMI
 * context: unlike an int3 kprobe's, a real one here, skipped and counted).
 */
static __always_inline int ktap_ftrace_enter(unsigned long ip, unsigned long parent_ip,
					     int *bit)
{
	*bit = ftrace_test_recursion_trylock(ip, parent_ip);
	/* one branch for both refusals (the caller unlocks a taken bit) */
	if (unlikely((*bit < 0) | in_nmi())) {
		ktap_count_skipped();
		return -1;
	}
	return ktap_ftrace_first(ip);
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

	i = ktap_ftrace_enter(ip, parent_ip, &bit);
	if (bit < 0)
		return;
	if (unlikely(i < 0 || !regs))
		goto out;
	resume_ip = instruction_pointer(regs);
	instruction_pointer_set(regs, ip + sizeof(kprobe_opcode_t));
	for (; i < ktap_ftrace_nsites && ktap_ftrace_sites[i].ip == ip; i++) {
		const struct ktap_probe *probe = ktap_ftrace_sites[i].probe;

		/* only kprobes take ftrace sites; NMI was refused above */
		if (!probe->syscall_nr)
			ktap_run_probe_kind(probe, regs, KTAP_PROBE_KPROBE, true);
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
	const struct pt_regs *uregs = (const struct pt_regs *)ktap_fregs_pt_regs(fregs)->di;
	int bit, i;

	i = ktap_ftrace_enter(ip, parent_ip, &bit);
	if (bit < 0)
		return;
	if (unlikely(i < 0))
		goto out;
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
		/* kernel.function("*"): 40,000 sites, more than kmalloc gives */
		ktap_ftrace_sites = kvcalloc(KTAP_NR_PROBES,
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
	kvfree(ktap_ftrace_sites);
	ktap_ftrace_sites = NULL;
	ktap_ftrace_nsites = 0;
	kvfree(ktap_ftrace_refused);
	ktap_ftrace_refused = NULL;
	ktap_ftrace_nrefused = 0;
}

/* ftrace refused @ip: its probes go to ktap_ftrace_refused[] */
static void ktap_ftrace_refuse(unsigned long ip)
{
	int i;

	if (!ktap_ftrace_refused) {
		ktap_ftrace_refused = kvcalloc(ktap_ftrace_nsites,
					       sizeof(*ktap_ftrace_refused),
					       GFP_KERNEL);
		if (!ktap_ftrace_refused)
			return;
	}
	/* the site stays in the table: ftrace never calls us there */
	for (i = 0; i < ktap_ftrace_nsites; i++)
		if (ktap_ftrace_sites[i].ip == ip)
			ktap_ftrace_refused[ktap_ftrace_nrefused++] =
				ktap_ftrace_sites[i].probe;
}

/*
 * A batch ftrace refused: take its addresses one by one, refuse the bad
 * ones and keep the good ones at the start of @ips. Return: how many are
 * good, or a negative errno.
 */
static int ktap_ftrace_filter_each(unsigned long *ips, int n)
{
	int i, ret, good = 0;

	for (i = 0; i < n; i++) {
		ret = ftrace_set_filter_ip(&ktap_ftrace_ops, ips[i], 0, 0);
		if (!ret) {
			ips[good++] = ips[i];
			continue;
		}
		if (ret != -EINVAL && ret != -ENOENT)
			return ret;
		ktap_ftrace_refuse(ips[i]);
		if (!ktap_ftrace_refused)
			return -ENOMEM;
	}
	return good;
}

/* add a batch to the filter; return how many of @ips it took (now first) */
static int ktap_ftrace_filter_add(unsigned long *ips, int n)
{
	int ret;

	ktap_ftrace_filtered = true;
	ret = ftrace_set_filter_ips(&ktap_ftrace_ops, ips, n, 0, 0);

	if (ret == -EINVAL || ret == -ENOENT)
		return ktap_ftrace_filter_each(ips, n);
	return ret ? ret : n;
}

/* the distinct addresses of the sorted table, or NULL */
static unsigned long *ktap_ftrace_ips(int *n)
{
	unsigned long *ips = kvmalloc_array(ktap_ftrace_nsites, sizeof(*ips),
					    GFP_KERNEL);
	int i;

	*n = 0;
	if (!ips)
		return NULL;
	for (i = 0; i < ktap_ftrace_nsites; i++)
		if (!ktap_ftrace_on_sc_ops(ktap_ftrace_sites[i].probe) &&
		    (!*n || ips[*n - 1] != ktap_ftrace_sites[i].ip))
			ips[(*n)++] = ktap_ftrace_sites[i].ip;
	return ips;
}

#if KTAP_FTRACE_SC_OPS
/* hook the system call entry points (a few: one by one) with their ops */
static int ktap_ftrace_sc_attach(void)
{
	int i, ret = 0;
	bool any = false;

	for (i = 0; i < ktap_ftrace_nsites && !ret; i++)
		if (ktap_ftrace_on_sc_ops(ktap_ftrace_sites[i].probe)) {
			ktap_ftrace_sc_filtered = true;
			any = true;
			ret = ftrace_set_filter_ip(&ktap_ftrace_sc_ops,
						   ktap_ftrace_sites[i].ip, 0, 0);
		}
	if (!ret && any) {
		ret = register_ftrace_function(&ktap_ftrace_sc_ops);
		ktap_ftrace_sc_attached = !ret;
	}
	return ret;
}

static void ktap_ftrace_sc_detach(void)
{
	if (ktap_ftrace_sc_attached)
		unregister_ftrace_function(&ktap_ftrace_sc_ops);
	/* a filter is freed once (ftrace_free_filter() leaves its pointer) */
	if (ktap_ftrace_sc_filtered)
		ftrace_free_filter(&ktap_ftrace_sc_ops);
	ktap_ftrace_sc_attached = ktap_ftrace_sc_filtered = false;
}
#else
static inline int ktap_ftrace_sc_attach(void)
{
	return 0;
}

static inline void ktap_ftrace_sc_detach(void)
{
}
#endif

/**
 * ktap_ftrace_detach() - unhook every site
 *
 * The reverse of ktap_ftrace_attach(): the filter shrinks a batch at a
 * time while the ops stays registered, then the ops goes with its last
 * batch (an empty filter would mean every function). Each step patches
 * a batch of sites only: unregistering 40,000 at once kept a TCG guest's
 * CPU for longer than the soft-lockup watchdog allows. Waits until no
 * callback runs any more.
 */
static void ktap_ftrace_detach(void)
{
	int n = ktap_ftrace_nhooked;

	if (ktap_ftrace_attached) {
		while (n > KTAP_FTRACE_DETACH_BATCH) {
			int cnt = (n - 1) % KTAP_FTRACE_DETACH_BATCH + 1;

			if (ftrace_set_filter_ips(&ktap_ftrace_ops,
						  ktap_ftrace_hooked + n - cnt,
						  cnt, 1, 0))
				break;	/* no memory: the rest in one go */
			n -= cnt;
			cond_resched();
		}
		unregister_ftrace_function(&ktap_ftrace_ops);
		ktap_ftrace_attached = false;
	}
	if (ktap_ftrace_filtered)
		ftrace_free_filter(&ktap_ftrace_ops);
	ktap_ftrace_filtered = false;
	ktap_ftrace_sc_detach();
	kvfree(ktap_ftrace_hooked);
	ktap_ftrace_hooked = NULL;
	ktap_ftrace_nhooked = 0;
	ktap_ftrace_reset();
}

/**
 * ktap_ftrace_attach() - hook every site taken by ktap_ftrace_add()
 *
 * Process context: the writer of "start". The ops is registered with the
 * first batch of addresses and the others are added to its filter while
 * it runs, so that ftrace patches a batch of sites per step (all at once
 * trips the soft-lockup watchdog in a TCG guest) and a signal is seen
 * between two. The sites ftrace refuses are left in ktap_ftrace_refused[]
 * for the caller to probe another way.
 *
 * Return: 0 (also with no sites), or a negative errno (-EINTR: a signal
 * came). Then the sites hooked so far stay hooked until
 * ktap_ftrace_detach(), which the caller calls before it stops (or uses
 * kprobes for all).
 */
static int ktap_ftrace_attach(void)
{
	int i, cnt, ret = 0;
	unsigned long *ips;

	if (!ktap_ftrace_nsites)
		return 0;
	sort(ktap_ftrace_sites, ktap_ftrace_nsites, sizeof(*ktap_ftrace_sites),
	     ktap_ftrace_cmp_site, NULL);
	ktap_ftrace_hooked = ips = ktap_ftrace_ips(&ktap_ftrace_nips);
	if (!ips)
		return -ENOMEM;
	for (i = 0; i < ktap_ftrace_nips && ret >= 0; i += cnt) {
		cnt = min(ktap_ftrace_nips - i, KTAP_FTRACE_BATCH);
		if (signal_pending(current))
			return -EINTR;
		/* the good ones of the batch move down, after those hooked */
		memmove(ips + ktap_ftrace_nhooked, ips + i, cnt * sizeof(*ips));
		ret = ktap_ftrace_filter_add(ips + ktap_ftrace_nhooked, cnt);
		if (ret <= 0)
			continue;
		ktap_ftrace_nhooked += ret;
		if (!ktap_ftrace_attached) {
			ret = register_ftrace_function(&ktap_ftrace_ops);
			ktap_ftrace_attached = !ret;
		}
		cond_resched();
	}
	if (ret >= 0)
		ret = ktap_ftrace_sc_attach();
	return ret < 0 ? ret : 0;
}

#else /* no DYNAMIC_FTRACE_WITH_REGS, or -D KTAP_NO_FTRACE: kprobes stay kprobes */

static inline int ktap_ftrace_add(const struct ktap_probe *probe,
				  unsigned long ip)
{
	return -EOPNOTSUPP;
}

#define ktap_ftrace_refused ((const struct ktap_probe **)NULL)
#define ktap_ftrace_nrefused 0

static inline int ktap_ftrace_attach(void)
{
	return 0;
}

static inline void ktap_ftrace_detach(void)
{
}

#endif /* CONFIG_DYNAMIC_FTRACE_WITH_REGS && !KTAP_NO_FTRACE */

#endif /* _KTAP_FTRACE_H */
