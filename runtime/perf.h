/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap runtime: perf event probes.
 *
 * perf.type(T).config(C).sample(N) and the perf.hw.* / perf.sw.* names:
 * one kernel counter per online CPU (system-wide, every task), whose
 * overflow handler runs the probe with the interrupted registers. A
 * software event overflows where it happens (a page fault, a context
 * switch, the cpu_clock hrtimer); a hardware one in the PMU's NMI, where
 * ktap_enter() skips it (and counts it), as for any probe hit in NMI.
 * CPUs brought online later are not counted.
 *
 * .process makes one counter instead, on the target process (-c, -x),
 * inherited by the tasks it makes afterwards. .counter("NAME") is such a
 * counter, not inherited, with no handler: @perf("NAME") reads it
 * (ktap_perf_read()).
 */
#ifndef _KTAP_PERF_H
#define _KTAP_PERF_H

#include <linux/perf_event.h>

/**
 * struct ktap_perf - the counters of one perf probe
 * @probe: its probe
 * @events: one per possible CPU, NULL where none was made
 */
struct ktap_perf {
	const struct ktap_probe *probe;
	struct ktap_perf *next_counter;
	struct perf_event *events[];
};

/* the armed .counter probes, for ktap_perf_read(); changed only while
 * the probes are armed and disarmed, when no handler runs */
static struct ktap_perf *ktap_perf_counters;

static void ktap_perf_forget(struct ktap_perf *kp)
{
	struct ktap_perf **p;

	for (p = &ktap_perf_counters; *p; p = &(*p)->next_counter)
		if (*p == kp) {
			*p = kp->next_counter;
			return;
		}
}

/**
 * ktap_perf_read() - the value of a .counter("NAME") probe's counter
 * @name: the NAME
 * @value: where the count goes
 *
 * The count the event holds: a software event (page faults, context
 * switches) adds to it as it happens, so it is exact; a hardware or
 * clock event is brought up to date when the target is switched out.
 * A probe cannot wait for the exact read (perf_event_read_value()
 * sleeps).
 *
 * Return: 0, or -ENOENT when no armed counter has that name.
 */
static __maybe_unused int ktap_perf_read(const char *name, s64 *value)
{
	struct ktap_perf *kp;
	for (kp = ktap_perf_counters; kp; kp = kp->next_counter) {
		struct perf_event *e = kp->events[0];

		if (strcmp(kp->probe->perf_counter, name) != 0 || !e)
			continue;
		*value = local64_read(&e->count) + atomic64_read(&e->child_count);
		return 0;
	}
	return -ENOENT;
}

static void ktap_perf_overflow(struct perf_event *event,
			       struct perf_sample_data *data, struct pt_regs *regs)
{
	struct ktap_perf *kp = event->overflow_handler_context;

	preempt_disable_notrace();
	ktap_run_probe(kp->probe, regs);
	preempt_enable_notrace();
}

/**
 * ktap_perf_stop() - release a perf probe's counters and free them
 * @kpp: as set by ktap_perf_start(); NULL afterwards
 *
 * perf_event_release_kernel() waits for a running overflow handler.
 */
static void ktap_perf_stop(struct ktap_perf **kpp)
{
	struct ktap_perf *kp = *kpp;
	int cpu;

	if (!kp)
		return;
	ktap_perf_forget(kp);
	if (kp->probe->perf_task) {
		if (kp->events[0])
			perf_event_release_kernel(kp->events[0]);
		kfree(kp);
		*kpp = NULL;
		return;
	}
	for_each_possible_cpu(cpu)
		if (kp->events[cpu])
			perf_event_release_kernel(kp->events[cpu]);
	kfree(kp);
	*kpp = NULL;
}

/**
 * ktap_perf_start_task() - make a .process or .counter probe's counter
 * @kp: its counters, events[0] to be made
 * @attr: the event
 *
 * Return: 0, or -ESRCH without a target process, or the kernel's errno.
 */
static int ktap_perf_start_task(struct ktap_perf *kp, struct perf_event_attr *attr)
{
	struct pid *pid = ktap_target > 0 ? find_get_pid(ktap_target) : NULL;
	struct task_struct *task = pid ? get_pid_task(pid, PIDTYPE_PID) : NULL;
	struct perf_event *e;

	put_pid(pid);
	if (!task) {
		__ktap_ctl_send(KTAP_CTL_FINAL, KTAP_MSG_ERROR " %s counts the target process: "
				"run with -c CMD or -x PID", kp->probe->pp);
		return -ESRCH;
	}
	if (kp->probe->perf_counter) {
		attr->sample_period = 0;
		attr->freq = 0;
	} else {
		attr->inherit = 1;
	}
	e = perf_event_create_kernel_counter(attr, -1, task, kp->probe->perf_counter ? NULL :
					     ktap_perf_overflow, kp->probe->perf_counter ? NULL : kp);
	put_task_struct(task);
	if (IS_ERR(e))
		return PTR_ERR(e);
	kp->events[0] = e;
	if (kp->probe->perf_counter) {
		kp->next_counter = ktap_perf_counters;
		ktap_perf_counters = kp;
	}
	return 0;
}

/**
 * ktap_perf_start() - make a perf probe's counter on every online CPU
 * @kpp: where its counters go
 * @probe: the probe (KTAP_PROBE_PERF)
 *
 * Return: 0, or the kernel's errno for the event (ENOENT: no such event
 * on this machine, e.g. a hardware counter without a PMU), everything
 * made so far released.
 */
static int ktap_perf_start(struct ktap_perf **kpp, const struct ktap_probe *probe)
{
	struct perf_event_attr attr = {
		.type = probe->perf_type,
		.size = sizeof(attr),
		.config = probe->perf_config,
		.sample_period = probe->perf_sample,
		.freq = probe->perf_freq,
		.pinned = 1,
	};
	struct ktap_perf *kp;
	int cpu, ret = 0;

	kp = kzalloc(struct_size(kp, events, nr_cpu_ids), GFP_KERNEL);
	if (!kp)
		return -ENOMEM;
	kp->probe = probe;
	*kpp = kp;
	if (probe->perf_task) {
		attr.pinned = 0;
		ret = ktap_perf_start_task(kp, &attr);
		if (ret)
			ktap_perf_stop(kpp);
		return ret;
	}
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct perf_event *e;

		e = perf_event_create_kernel_counter(&attr, cpu, NULL,
						     ktap_perf_overflow, kp);
		if (IS_ERR(e)) {
			ret = PTR_ERR(e);
			break;
		}
		kp->events[cpu] = e;
	}
	cpus_read_unlock();
	if (ret)
		ktap_perf_stop(kpp);
	return ret;
}

#endif /* _KTAP_PERF_H */
