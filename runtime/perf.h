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
	struct perf_event *events[];
};

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
	for_each_possible_cpu(cpu)
		if (kp->events[cpu])
			perf_event_release_kernel(kp->events[cpu]);
	kfree(kp);
	*kpp = NULL;
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
