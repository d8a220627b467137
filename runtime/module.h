/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap runtime: the module.
 *
 * Included at the end of the generated file, after ktap_probes[],
 * KTAP_NR_PROBES and ktap_globals_init(). Loading the module only creates
 * the debugfs files; ktap-run then drives it through ctl:
 *
 *   start: LOADED -> STARTING (begin probes run) -> RUNNING (the other
 *          probes are armed). A required probe that cannot be armed fails
 *          the write, queues "error cannot probe <pp>: <ENAME>" and leaves
 *          the module STOPPED with everything disarmed.
 *   stop:  -> STOPPING (probes disarmed, in-flight handlers waited for, end
 *          probes run, or error probes if errors stopped the script)
 *          -> STOPPED, then "done <dropped> <skipped>". Every
 *          stop is answered by one "done", whatever the state.
 *
 * Unloading is safe in every state: whatever is armed is disarmed first.
 */
#ifndef _KTAP_MODULE_H
#define _KTAP_MODULE_H

#ifdef KTAP_PREBUILT
/*
 * Compiled once per tree into the prebuilt object (api.c): the light unit
 * linked with it defines the probe table (context.h) and the globals'
 * set-up.
 */
int ktap_globals_init(void);
void ktap_globals_exit(void);
static int ktap_api_check(void);
#else
/*
 * Generated code that must free globals at exit defines the function and
 * "#define ktap_globals_exit ktap_globals_exit" before including this.
 */
#ifndef ktap_globals_exit
static inline void ktap_globals_exit(void)
{
}
#endif
#endif /* KTAP_PREBUILT */

#include "ksyms.h"
#include "uprobes.h"

/**
 * struct ktap_slot - the attachment of one probe
 * @probe: its entry in ktap_probes[]
 * @armed: currently registered / started
 * @on_ftrace: a kprobe probe whose site ftrace.h hooks
 * @has_kprobe: @kp is registered (disabled while @on_ftrace)
 * @kp: kprobe
 * @rp: kretprobe
 * @timer: timer probe
 */
struct ktap_slot {
	const struct ktap_probe *probe;
	bool armed;
	bool on_ftrace;
	bool has_kprobe;
	union {
		struct kprobe kp;
		struct kretprobe rp;
		struct ktap_timer timer;
		struct ktap_timer __percpu *profile;
		struct tracepoint *tp;
		struct ktap_uprobe up;
		struct ktap_procprobe *proc;
		struct ktap_perf *perf;
		struct ktap_nf *nf;
		struct perf_event * __percpu *hwbkpt;
	};
};

static DEFINE_MUTEX(ktap_cmd_lock);

/* the probe of a kretprobe instance, or NULL once it is unregistered */
static const struct ktap_probe *ktap_kretprobe_probe(struct kretprobe_instance *ri)
{
	struct kretprobe *rp = get_kretprobe(ri);

	return rp ? container_of(rp, struct ktap_slot, rp)->probe : NULL;
}

#include "syscall.h"
#include "ftrace.h"

#ifdef KTAP_PREBUILT
/* the table's length is the light unit's: allocated at load */
static struct ktap_slot *ktap_slots;

static int ktap_slots_alloc(void)
{
	int ret = ktap_api_check();

	if (ret)
		return ret;
	/* kernel.function("*"): megabytes, more than kmalloc gives */
	ktap_slots = kvcalloc(KTAP_NR_PROBES, sizeof(*ktap_slots), GFP_KERNEL);
	return ktap_slots ? 0 : -ENOMEM;
}

static void ktap_slots_free(void)
{
	kvfree(ktap_slots);
	ktap_slots = NULL;
}
#else
static struct ktap_slot ktap_slots[KTAP_NR_PROBES];

static inline int ktap_slots_alloc(void)
{
	return 0;
}

static inline void ktap_slots_free(void)
{
}
#endif

/**
 * ktap_kprobe_pre() - kprobe pre-handler: run the probe
 * @kp: the kprobe, inside a struct ktap_slot
 * @regs: registers at the probe point
 *
 * Return: 0 (continue normally).
 */
static int ktap_kprobe_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct ktap_slot *slot = container_of(kp, struct ktap_slot, kp);

	preempt_disable();
	if (slot->probe->syscall_nr)
		ktap_syscall_hit(slot->probe, regs, (const struct pt_regs *)regs->di);
	else
		ktap_run_probe(slot->probe, regs);
	preempt_enable();
	return 0;
}

/**
 * ktap_kretprobe_run() - run a kretprobe's probe, or its @entry() saver
 * @ri: the instance; its data holds the @entry() values (c->tp_args)
 * @regs: registers at the return, or at the function's entry
 * @at_entry: run the probe's entry function, not its handler
 *
 * Return: 0 (the return probe always runs).
 */
static int ktap_kretprobe_run(struct kretprobe_instance *ri,
			      struct pt_regs *regs, bool at_entry)
{
	struct kretprobe *rp = get_kretprobe(ri);
	const struct ktap_probe *probe;
	struct ktap_context *c;

	if (!rp)
		return 0;
	probe = container_of(rp, struct ktap_slot, rp)->probe;
	if (at_entry)
		memset(ri->data, 0, probe->entry_size);
	preempt_disable();
	c = ktap_enter(probe, regs);
	if (c) {
		c->tp_args = (const unsigned long *)ri->data;
		if (at_entry) {
			probe->entry(c);
		} else {
			c->retval = regs_return_value(regs);
			ktap_run_handler(probe, c);
		}
		ktap_leave(c);
	}
	preempt_enable();
	return 0;
}

/* kretprobe handler: the .return probe; c->retval is the return value */
static int ktap_kretprobe_ret(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	return ktap_kretprobe_run(ri, regs, false);
}

/* kretprobe entry handler: save the probe's @entry() values */
static int ktap_kretprobe_entry(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	return ktap_kretprobe_run(ri, regs, true);
}

/**
 * ktap_tracepoint_run() - run a tracepoint probe
 * @slot: the probe's slot (the data registered with the tracepoint)
 * @args: the tracepoint's arguments, each widened to unsigned long
 *
 * Inline in both callers below: on a flood of system calls every call
 * level of a hit counts.
 */
static __always_inline void ktap_tracepoint_run(void *slot,
						const unsigned long *args)
{
	const struct ktap_probe *probe = ((struct ktap_slot *)slot)->probe;
	struct ktap_context *c;

	preempt_disable_notrace();
	c = ktap_enter(probe, NULL);
	if (c) {
		c->tp_args = args;
		ktap_run_handler(probe, c);
		ktap_leave(c);
	}
	preempt_enable_notrace();
}

/**
 * ktap_tracepoint_hit() - run a tracepoint probe
 * @slot: the probe's slot (the data registered with the tracepoint)
 * @args: the tracepoint's arguments, each widened to unsigned long
 *
 * Called by the generated function registered on the tracepoint, with
 * preemption already disabled by the tracepoint machinery.
 */
static __maybe_unused void ktap_tracepoint_hit(void *slot,
					       const unsigned long *args)
{
	ktap_tracepoint_run(slot, args);
}

/**
 * ktap_tracepoint_hit_index() - run probe @i of ktap_probes[]
 * @i: its index
 * @args: the tracepoint's arguments
 *
 * For the generated dispatchers that serve many probes on one tracepoint
 * (system calls by number); only the first of them is registered. The
 * numbers are x86_64's: a 32-bit (ia32) call passes the same tracepoint
 * with its own table's number (int $0x80's 20 is getpid, x86_64's 20 is
 * writev), so it is not run, as on the call's entry point (syscall.h).
 */
static __maybe_unused void ktap_tracepoint_hit_index(int i,
						     const unsigned long *args)
{
	if (READ_ONCE(ktap_slots[i].armed) && !in_compat_syscall())
		ktap_tracepoint_run(&ktap_slots[i], args);
}

struct ktap_tp_search {
	const char *name;
	struct tracepoint *found;
};

static void ktap_tp_match(struct tracepoint *tp, void *priv)
{
	struct ktap_tp_search *s = priv;

	if (!s->found && strcmp(tp->name, s->name) == 0)
		s->found = tp;
}

/**
 * ktap_tracepoint_arm() - register on the kernel tracepoint of that name
 * @slot: the probe's slot
 *
 * Return: 0, -ENOENT if the kernel has no such tracepoint, or the error
 * of tracepoint_probe_register().
 */
static int ktap_tracepoint_arm(struct ktap_slot *slot)
{
	struct ktap_tp_search s = { .name = slot->probe->tracepoint };

	/* served by another slot's dispatcher (ktap_tracepoint_hit_index) */
	if (!slot->probe->tp_func) {
		slot->tp = NULL;
		return 0;
	}
	for_each_kernel_tracepoint(ktap_tp_match, &s);
	if (!s.found)
		return -ENOENT;
	slot->tp = s.found;
	return tracepoint_probe_register(s.found, slot->probe->tp_func, slot);
}

/**
 * ktap_kprobe_register() - register a slot's kprobe, disabled
 * @slot: the probe's slot
 * @addr: its address (ksyms.h), or 0: the kernel resolves the symbol (a
 *	linear kallsyms search on 6.1)
 *
 * The kernel vets the address and says whether it is an ftrace site.
 *
 * Return: 0 or a negative errno.
 */
static int ktap_kprobe_register(struct ktap_slot *slot, unsigned long addr)
{
	const struct ktap_probe *p = slot->probe;
	int ret;

	memset(&slot->kp, 0, sizeof(slot->kp));
	if (p->address) {
		slot->kp.addr = (kprobe_opcode_t *)p->address;
		slot->kp.offset = p->offset;
	} else if (addr) {
		slot->kp.addr = (kprobe_opcode_t *)addr;
	} else {
		slot->kp.symbol_name = p->symbol;
		slot->kp.offset = p->offset;
	}
	slot->kp.pre_handler = ktap_kprobe_pre;
	slot->kp.flags = KPROBE_FLAG_DISABLED;
	ret = register_kprobe(&slot->kp);
	slot->has_kprobe = !ret;
	return ret;
}

/**
 * ktap_kprobe_enable() - run a slot's probe as a kprobe
 * @slot: the probe's slot, its kprobe registered or not yet
 *
 * Return: 0 or a negative errno (then no kprobe is left registered).
 */
static int ktap_kprobe_enable(struct ktap_slot *slot)
{
	int ret = 0;

	if (!slot->has_kprobe)
		ret = ktap_kprobe_register(slot, ktap_ksyms_addr(slot->probe));

	if (ret)
		return ret;
	ret = enable_kprobe(&slot->kp);
	if (ret) {
		unregister_kprobe(&slot->kp);
		slot->has_kprobe = false;
	}
	return ret;
}

/**
 * ktap_kprobe_arm() - take a probe's site for ftrace, or make a kprobe
 * @slot: the probe's slot
 *
 * A function entry whose ftrace site the translator knew goes straight to
 * ftrace.h. Elsewhere the kprobe is registered disabled first, and the
 * kernel says whether its address is a site. Sites are hooked by
 * ktap_arm_ftrace_sites() once all probes are armed; anything else is
 * enabled as a kprobe.
 *
 * Return: 0 or a negative errno.
 */
static int ktap_kprobe_arm(struct ktap_slot *slot)
{
	const struct ktap_probe *p = slot->probe;
	unsigned long addr = ktap_ksyms_addr(p);
	int ret;

	if (addr && p->ftrace_site && !ktap_ftrace_add(p, addr)) {
		slot->on_ftrace = true;
		return 0;
	}
	ret = ktap_kprobe_register(slot, addr);
	if (ret)
		return ret;
	slot->on_ftrace = kprobe_ftrace(&slot->kp) &&
			  !ktap_ftrace_add(p, (unsigned long)slot->kp.addr);
	if (slot->on_ftrace)
		return 0;
	return ktap_kprobe_enable(slot);
}

/**
 * ktap_arm() - register or start one probe
 * @slot: the probe's slot
 *
 * Return: 0 (also for begin/end, which are not armed) or a negative errno.
 */
static int ktap_arm(struct ktap_slot *slot)
{
	const struct ktap_probe *p = slot->probe;
	int ret;

	switch (p->kind) {
	case KTAP_PROBE_TIMER:
		ret = p->per_cpu ? ktap_profile_start(&slot->profile, p) :
				   ktap_timer_start(&slot->timer, p);
		break;
	case KTAP_PROBE_KPROBE:
		ret = ktap_kprobe_arm(slot);
		break;
	case KTAP_PROBE_KRETPROBE:
		memset(&slot->rp, 0, sizeof(slot->rp));
		slot->rp.kp.symbol_name = p->symbol;
		slot->rp.kp.offset = p->offset;
		slot->rp.handler = ktap_kretprobe_ret;
		if (p->syscall_nr) {	/* syscall.h */
			slot->rp.handler = ktap_syscall_ret;
			slot->rp.entry_handler = ktap_syscall_ret_entry;
			slot->rp.data_size = sizeof(struct pt_regs *);
		} else if (p->entry) {
			slot->rp.entry_handler = ktap_kretprobe_entry;
			slot->rp.data_size = p->entry_size;
		}
		slot->rp.maxactive = p->maxactive;
		ret = register_kretprobe(&slot->rp);
		break;
	case KTAP_PROBE_TRACEPOINT:
		ret = ktap_tracepoint_arm(slot);
		break;
	case KTAP_PROBE_PROCFS_READ:
	case KTAP_PROBE_PROCFS_WRITE:
		ret = ktap_procfs_arm(p, ktap_probes, KTAP_NR_PROBES);
		break;
	case KTAP_PROBE_UPROBE:
	case KTAP_PROBE_URETPROBE:
		ret = ktap_uprobe_arm(&slot->up, p);
		break;
	case KTAP_PROBE_PROC_BEGIN:
	case KTAP_PROBE_PROC_END:
		slot->proc = kzalloc(sizeof(*slot->proc), GFP_KERNEL);
		ret = slot->proc ? ktap_proc_arm(slot->proc, p) : -ENOMEM;
		if (ret) {
			kfree(slot->proc);
			slot->proc = NULL;
		}
		break;
	case KTAP_PROBE_PERF:
		ret = ktap_perf_start(&slot->perf, p);
		break;
	case KTAP_PROBE_NETFILTER:
		ret = ktap_nf_start(&slot->nf, p);
		break;
	case KTAP_PROBE_HWBKPT:
		ret = ktap_hwbkpt_start(&slot->hwbkpt, p);
		break;
	default:
		return 0;
	}
	slot->armed = !ret;
	return ret;
}

/**
 * ktap_disarm_all() - unregister / cancel every armed probe
 *
 * Timers are cancelled one by one (waiting for a running callback);
 * kprobes and kretprobes are unregistered in two batches, so that a
 * script with many probes waits for one RCU grace period, not one each.
 * Handlers may still be running when this returns: see ktap_quiesce().
 */
static void ktap_disarm_all(void)
{
	struct kprobe **kps = kvmalloc_array(KTAP_NR_PROBES, sizeof(*kps),
					     GFP_KERNEL);
	struct kretprobe **rps = kvmalloc_array(KTAP_NR_PROBES, sizeof(*rps),
						GFP_KERNEL);
	int i, nk = 0, nr = 0, ntp = 0;

	ktap_ftrace_detach();
	for (i = 0; i < KTAP_NR_PROBES; i++) {
		struct ktap_slot *slot = &ktap_slots[i];

		if (!slot->armed)
			continue;
		slot->armed = false;
		slot->on_ftrace = false;
		switch (slot->probe->kind) {
		case KTAP_PROBE_TIMER:
			if (slot->probe->per_cpu)
				ktap_profile_stop(&slot->profile);
			else
				ktap_timer_stop(&slot->timer);
			break;
		case KTAP_PROBE_KPROBE:
			if (!slot->has_kprobe)
				break;
			slot->has_kprobe = false;
			if (kps)
				kps[nk++] = &slot->kp;
			else
				unregister_kprobe(&slot->kp);
			break;
		case KTAP_PROBE_KRETPROBE:
			if (rps)
				rps[nr++] = &slot->rp;
			else
				unregister_kretprobe(&slot->rp);
			break;
		case KTAP_PROBE_PERF:
			ktap_perf_stop(&slot->perf);
			break;
		case KTAP_PROBE_NETFILTER:
			ktap_nf_stop(&slot->nf);
			break;
		case KTAP_PROBE_HWBKPT:
			ktap_hwbkpt_stop(&slot->hwbkpt);
			break;
		case KTAP_PROBE_TRACEPOINT:
			if (!slot->tp)
				break;
			tracepoint_probe_unregister(slot->tp, slot->probe->tp_func,
						    slot);
			ntp++;
			break;
		case KTAP_PROBE_UPROBE:
		case KTAP_PROBE_URETPROBE:
			ktap_uprobe_disarm(&slot->up);
			break;
		case KTAP_PROBE_PROC_BEGIN:
		case KTAP_PROBE_PROC_END:
			ktap_proc_disarm(slot->proc);
			ntp++;
			break;
		default:
			break;
		}
	}
	ktap_procfs_remove();
	if (ntp)
		tracepoint_synchronize_unregister();
	/* no process.begin/.end handler runs now: drop their inodes */
	for (i = 0; i < KTAP_NR_PROBES; i++) {
		struct ktap_slot *slot = &ktap_slots[i];

		if ((slot->probe->kind == KTAP_PROBE_PROC_BEGIN ||
		     slot->probe->kind == KTAP_PROBE_PROC_END) && slot->proc) {
			ktap_proc_release(slot->proc);
			kfree(slot->proc);
			slot->proc = NULL;
		}
	}
	if (nk)
		unregister_kprobes(kps, nk);
	if (nr)
		unregister_kretprobes(rps, nr);
	kvfree(kps);
	kvfree(rps);
}

/**
 * ktap_quiesce() - disarm everything and wait for running handlers
 *
 * Handlers run with preemption disabled, so once the state no longer
 * admits them and an RCU grace period has passed, none is left running.
 */
static void ktap_quiesce(void)
{
	ktap_disarm_all();
	synchronize_rcu();
}

/* the smallest priority of a @kind probe above @after (any if !@above) */
static bool ktap_next_priority(enum ktap_probe_kind kind, bool above, s64 after,
			       s64 *next)
{
	bool found = false;
	int i;

	for (i = 0; i < KTAP_NR_PROBES; i++) {
		const struct ktap_probe *p = &ktap_probes[i];

		if (p->kind != kind || (above && p->priority <= after))
			continue;
		if (!found || p->priority < *next)
			*next = p->priority;
		found = true;
	}
	return found;
}

/**
 * ktap_run_probes() - run every begin (end, error) probe
 * @kind: KTAP_PROBE_BEGIN, KTAP_PROBE_END or KTAP_PROBE_ERROR
 *
 * In increasing priority (begin(N)); those of one priority in script
 * order. Process context; each handler runs with preemption disabled.
 */
static void ktap_run_probes(enum ktap_probe_kind kind)
{
	bool above = false;
	s64 prio = 0;
	int i;

	while (ktap_next_priority(kind, above, prio, &prio)) {
		above = true;
		for (i = 0; i < KTAP_NR_PROBES; i++) {
			const struct ktap_probe *p = &ktap_probes[i];

			if (p->kind != kind || p->priority != prio)
				continue;
			preempt_disable();
			ktap_run_probe(p, NULL);
			preempt_enable();
			cond_resched();
		}
	}
}

/**
 * ktap_skipped_total() - probe hits that did not run
 *
 * Return: reentrancy, NMI and lock-contention skips, plus the hits the
 * kprobes layer itself missed (kprobe reentrancy, kretprobe instances
 * beyond maxactive).
 */
static unsigned long ktap_skipped_total(void)
{
	unsigned long sum = ktap_sum_skipped();
	int i;

	for (i = 0; i < KTAP_NR_PROBES; i++) {
		struct ktap_slot *slot = &ktap_slots[i];

		if (slot->probe->kind == KTAP_PROBE_KPROBE)
			sum += slot->kp.nmissed;
		else if (slot->probe->kind == KTAP_PROBE_KRETPROBE)
			sum += slot->rp.nmissed + slot->rp.kp.nmissed;
	}
	return sum;
}

/**
 * ktap_errname() - symbolic name of an errno, for messages
 * @err: negative errno
 * @buf: room for the name
 * @size: size of @buf
 *
 * Return: "ENOENT" and the like (the number if it has no name).
 */
static const char *ktap_errname(int err, char *buf, size_t size)
{
	snprintf(buf, size, "%pe", ERR_PTR(err));
	return buf[0] == '-' ? buf + 1 : buf;
}

/**
 * ktap_start_failed() - a required probe could not be armed: undo "start"
 * @slot: the probe's slot
 * @err: why
 *
 * Return: @err.
 */
static int ktap_start_failed(struct ktap_slot *slot, int err)
{
	char ename[32];

	__ktap_ctl_send(KTAP_CTL_FINAL, KTAP_MSG_ERROR " cannot probe %s: %s",
			slot->probe->pp, ktap_errname(err, ename, sizeof(ename)));
	WRITE_ONCE(ktap_state, KTAP_STATE_STOPPING);
	ktap_quiesce();
	WRITE_ONCE(ktap_state, KTAP_STATE_STOPPED);
	return err;
}

/**
 * ktap_ftrace_fallback() - make a kprobe of a probe ftrace did not take
 * @slot: the probe's slot
 *
 * Return: 0, or the errno of a required probe.
 */
static int ktap_ftrace_fallback(struct ktap_slot *slot)
{
	int ret;

	slot->on_ftrace = false;
	ret = ktap_kprobe_enable(slot);
	if (!ret)
		return 0;
	slot->armed = false;
	return slot->probe->optional ? 0 : ktap_start_failed(slot, ret);
}

/**
 * ktap_start_interrupted() - a signal came while probes were being armed
 * @armed: how many were
 *
 * The loader was told to stop (Ctrl-C) or killed: registering thousands
 * of probes takes minutes, and neither may wait for it. What is armed is
 * disarmed and the end probes run, as for "stop"; a later "stop" only
 * answers "done".
 *
 * Return: -EINTR.
 */
static int ktap_start_interrupted(int armed)
{
	__ktap_ctl_send(KTAP_CTL_FINAL, KTAP_MSG_WARN " interrupted while arming "
			"probes: %d of %d were armed", armed, (int)KTAP_NR_PROBES);
	WRITE_ONCE(ktap_state, KTAP_STATE_STOPPING);
	ktap_quiesce();
	ktap_run_probes(KTAP_PROBE_END);
	WRITE_ONCE(ktap_state, KTAP_STATE_STOPPED);
	return -EINTR;
}

/**
 * ktap_arm_ftrace_sites() - hook the ftrace sites ktap_kprobe_arm() took
 *
 * The sites ftrace refuses become kprobes; after an error (no memory,
 * no ftrace), all of them do.
 *
 * Return: 0, -EINTR if a signal stopped it (everything is then disarmed),
 * or the errno of a required probe whose kprobe failed too.
 */
static int ktap_arm_ftrace_sites(void)
{
	int i, ret = ktap_ftrace_attach();

	if (ret == -EINTR)
		return ktap_start_interrupted(KTAP_NR_PROBES);
	for (i = 0; !ret && i < ktap_ftrace_nrefused; i++) {
		const struct ktap_probe *p = ktap_ftrace_refused[i];

		if (signal_pending(current))
			return ktap_start_interrupted(KTAP_NR_PROBES);
		ret = ktap_ftrace_fallback(&ktap_slots[p - ktap_probes]);
		if (ret)
			return ret;
	}
	if (!ret)
		return 0;
	ktap_ftrace_detach();
	for (i = 0; i < KTAP_NR_PROBES; i++) {
		struct ktap_slot *slot = &ktap_slots[i];

		if (!slot->on_ftrace)
			continue;
		if (signal_pending(current))
			return ktap_start_interrupted(i);
		cond_resched();
		ret = ktap_ftrace_fallback(slot);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * ktap_cmd_start() - "start": run begin probes, then arm the others
 *
 * Looks for a signal to the writer (and gives the CPU away) before each
 * probe: registering one kprobe takes up to ~60 ms in the TCG guest, and
 * a script may have thousands.
 *
 * Return: 0 (also when a begin probe asked to exit, by exit() or an
 * error: then nothing is armed), -EBUSY if already started, -EINTR if a
 * signal stopped the arming, or the errno of a required probe that could
 * not be armed.
 */
static int ktap_cmd_start(void)
{
	int i, ret;

	if (ktap_state != KTAP_STATE_LOADED)
		return -EBUSY;
	ktap_usyms_open(ktap_usym_files, ktap_nr_usym_files);
	WRITE_ONCE(ktap_state, KTAP_STATE_STARTING);
	ktap_run_probes(KTAP_PROBE_BEGIN);
	WRITE_ONCE(ktap_state, KTAP_STATE_RUNNING);

	for (i = 0; i < KTAP_NR_PROBES; i++) {
		struct ktap_slot *slot = &ktap_slots[i];

		if (atomic_read(&ktap_exit_requested))
			break;
		if (signal_pending(current))
			return ktap_start_interrupted(i);
		cond_resched();
		ret = ktap_arm(slot);
		if (ret && !slot->probe->optional)
			return ktap_start_failed(slot, ret);
	}
	return ktap_arm_ftrace_sites();
}

/**
 * ktap_ctl_abandoned() - the ctl that held the run was closed before "stop"
 *
 * The loader died (SIGKILL, a crash): nothing will read the output or
 * say "stop". Every probe is disarmed at once, so no hook stays live in
 * the kernel; the module itself is removed by whoever reaps the loader
 * (the guest agent, or the next ktap-run of the same module: its
 * ktap_loader parameter names a process that is gone).
 */
static void ktap_ctl_abandoned(void)
{
	mutex_lock(&ktap_cmd_lock);
	if (ktap_state != KTAP_STATE_LOADED && ktap_state != KTAP_STATE_STOPPED) {
		WRITE_ONCE(ktap_state, KTAP_STATE_STOPPING);
		ktap_quiesce();
		WRITE_ONCE(ktap_state, KTAP_STATE_STOPPED);
	}
	mutex_unlock(&ktap_cmd_lock);
}

/**
 * ktap_cmd_stop() - "stop": disarm, run end probes, answer "done"
 *
 * Return: 0.
 */
static int ktap_cmd_stop(void)
{
	unsigned long lost;

	if (ktap_state == KTAP_STATE_LOADED) {
		WRITE_ONCE(ktap_state, KTAP_STATE_STOPPED);
	} else if (ktap_state != KTAP_STATE_STOPPED) {
		WRITE_ONCE(ktap_state, KTAP_STATE_STOPPING);
		ktap_quiesce();
		ktap_run_probes(atomic_read(&ktap_ended_by_error) ?
				KTAP_PROBE_ERROR : KTAP_PROBE_END);
		WRITE_ONCE(ktap_state, KTAP_STATE_STOPPED);
	}
	lost = ktap_ctl_take_lost();
	if (lost)
		__ktap_ctl_send(KTAP_CTL_FINAL,
				KTAP_MSG_WARN " %lu control messages lost", lost);
	__ktap_ctl_send(KTAP_CTL_FINAL, KTAP_MSG_DONE " %lu %lu", ktap_sum_dropped(),
			ktap_skipped_total());
	return 0;
}

/**
 * ktap_ctl_command() - run a command written to ctl
 * @cmd: "start" or "stop"
 *
 * Commands are serialized.
 *
 * Return: 0 or a negative errno (-EINVAL for an unknown command).
 */
static int ktap_ctl_command(const char *cmd)
{
	int ret;

	if (mutex_lock_interruptible(&ktap_cmd_lock))
		return -ERESTARTSYS;
	if (!strcmp(cmd, KTAP_CMD_START))
		ret = ktap_cmd_start();
	else if (!strcmp(cmd, KTAP_CMD_STOP))
		ret = ktap_cmd_stop();
	else
		ret = -EINVAL;
	mutex_unlock(&ktap_cmd_lock);
	return ret;
}

/**
 * ktap_module_init() - allocate, initialize globals, create debugfs files
 *
 * Return: 0 or a negative errno.
 */
static int __init ktap_module_init(void)
{
	int i, ret;

	ret = ktap_slots_alloc();
	if (ret)
		return ret;
	for (i = 0; i < KTAP_NR_PROBES; i++)
		ktap_slots[i].probe = &ktap_probes[i];
	ret = ktap_context_init();
	if (ret)
		goto err_context;
	ret = ktap_globals_init();
	if (ret) {
		ret = ret < 0 ? ret : -ENOMEM;
		goto err_context;
	}
	ret = ktap_transport_init(ktap_ctl_command, ktap_ctl_abandoned);
	if (ret)
		goto err_globals;
	return 0;

err_globals:
	ktap_globals_exit();
err_context:
	ktap_context_exit();
	ktap_slots_free();
	return ret;
}

/**
 * ktap_module_exit() - disarm whatever is armed, then free everything
 *
 * No command can be running: an open ctl holds a module reference.
 */
static void __exit ktap_module_exit(void)
{
	WRITE_ONCE(ktap_state, KTAP_STATE_STOPPED);
	ktap_quiesce();
	ktap_usyms_close();
	ktap_transport_exit();
	ktap_globals_exit();
	ktap_context_exit();
	ktap_slots_free();
}

module_init(ktap_module_init);
module_exit(ktap_module_exit);
MODULE_LICENSE("GPL");
#ifndef KTAP_PREBUILT
/* a light unit has its own (api.h): the name is not known here */
MODULE_DESCRIPTION("ktap script " KTAP_MODULE_NAME);
#endif

#endif /* _KTAP_MODULE_H */
