/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap runtime: time.
 *
 * timer.ms(N) / timer.us(N) / timer.ns(N) / timer.s(N) / timer.hz(N)
 * probes: one hrtimer per probe, relative mode, re-armed from its own
 * callback with hrtimer_forward_now(); the translator converts every
 * variant to period_ns. .randomize(M) draws each period anew from
 * period_ns +- randomize_ns.
 *
 * The clock helpers use the NMI-safe fast accessors: a probe may fire
 * inside the timekeeping code, where the ordinary ones would spin on the
 * seqcount the interrupted writer holds.
 */
#ifndef _KTAP_TIME_H
#define _KTAP_TIME_H

/**
 * struct ktap_timer - the hrtimer of one timer probe
 * @hrt: the timer
 * @probe: its probe
 */
struct ktap_timer {
	struct hrtimer hrt;
	const struct ktap_probe *probe;
};

/**
 * ktap_timer_period() - the next period of a timer probe
 * @probe: the probe
 *
 * Return: @probe->period_ns, +- up to @probe->randomize_ns drawn
 * uniformly (the translator keeps randomize_ns below period_ns).
 */
static ktime_t ktap_timer_period(const struct ktap_probe *probe)
{
	u64 r = probe->randomize_ns;

	if (!r)
		return ns_to_ktime(probe->period_ns);
	return ns_to_ktime(probe->period_ns - r + get_random_u64() % (2 * r + 1));
}

/**
 * ktap_timer_fire() - hrtimer callback: run the probe, re-arm
 * @hrt: the timer
 *
 * Return: HRTIMER_RESTART while the script runs, else HRTIMER_NORESTART.
 */
static enum hrtimer_restart ktap_timer_fire(struct hrtimer *hrt)
{
	struct ktap_timer *t = container_of(hrt, struct ktap_timer, hrt);

	if (READ_ONCE(ktap_state) != KTAP_STATE_RUNNING ||
	    atomic_read(&ktap_exit_requested))
		return HRTIMER_NORESTART;

	preempt_disable();
	ktap_run_probe(t->probe, get_irq_regs());
	preempt_enable();

	hrtimer_forward_now(hrt, ktap_timer_period(t->probe));
	return HRTIMER_RESTART;
}

/**
 * ktap_timer_start() - arm a timer probe
 * @t: its timer
 * @probe: the probe (kind KTAP_PROBE_TIMER)
 *
 * Return: 0, or -EINVAL for a zero period.
 */
static int ktap_timer_start(struct ktap_timer *t,
			    const struct ktap_probe *probe)
{
	if (!probe->period_ns)
		return -EINVAL;
	t->probe = probe;
	/* _HARD: under PREEMPT_RT a timer without it fires in a softirq
	 * thread, preemptible and without the interrupted registers; the
	 * same mode as before elsewhere */
	hrtimer_init(&t->hrt, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	t->hrt.function = ktap_timer_fire;
	hrtimer_start(&t->hrt, ktap_timer_period(probe), HRTIMER_MODE_REL_HARD);
	return 0;
}

/**
 * ktap_timer_stop() - disarm a timer probe, waiting for a running callback
 * @t: its timer
 */
static void ktap_timer_stop(struct ktap_timer *t)
{
	hrtimer_cancel(&t->hrt);
}

/* runs on the CPU whose timer it starts: profile timers stay pinned there */
static void ktap_timer_start_here(void *arg)
{
	struct ktap_timer *t = arg;

	hrtimer_start(&t->hrt, ns_to_ktime(t->probe->period_ns),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

/**
 * ktap_profile_start() - arm timer.profile: one pinned timer per online CPU
 * @timers: where the per-CPU timers go (allocated here)
 * @probe: the probe (kind KTAP_PROBE_TIMER, per_cpu)
 *
 * Each timer fires on its own CPU every tick with the interrupted context's
 * registers, so pid() and backtraces describe what that CPU was running.
 * CPUs brought online later are not sampled.
 *
 * Return: 0, -EINVAL for a zero period, or -ENOMEM.
 */
static int ktap_profile_start(struct ktap_timer __percpu **timers,
			      const struct ktap_probe *probe)
{
	int cpu;

	if (!probe->period_ns)
		return -EINVAL;
	*timers = alloc_percpu(struct ktap_timer);
	if (!*timers)
		return -ENOMEM;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct ktap_timer *t = per_cpu_ptr(*timers, cpu);

		t->probe = probe;
		/* _HARD: see ktap_timer_start() */
		hrtimer_init(&t->hrt, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
		t->hrt.function = ktap_timer_fire;
		smp_call_function_single(cpu, ktap_timer_start_here, t, 1);
	}
	cpus_read_unlock();
	return 0;
}

/**
 * ktap_profile_stop() - disarm timer.profile and free its timers
 * @timers: as set by ktap_profile_start()
 */
static void ktap_profile_stop(struct ktap_timer __percpu **timers)
{
	int cpu;

	if (!*timers)
		return;
	for_each_possible_cpu(cpu) {
		struct ktap_timer *t = per_cpu_ptr(*timers, cpu);

		if (t->probe)
			hrtimer_cancel(&t->hrt);
	}
	free_percpu(*timers);
	*timers = NULL;
}

/**
 * ktap_gettimeofday_ns() - gettimeofday_ns(): wall-clock time
 *
 * Return: nanoseconds since the epoch.
 */
static inline int64_t ktap_gettimeofday_ns(void)
{
	return ktime_get_real_fast_ns();
}

/**
 * ktap_gettimeofday_us() - gettimeofday_us()
 *
 * Return: microseconds since the epoch.
 */
static inline int64_t ktap_gettimeofday_us(void)
{
	return div_u64(ktime_get_real_fast_ns(), NSEC_PER_USEC);
}

/**
 * ktap_gettimeofday_ms() - gettimeofday_ms()
 *
 * Return: milliseconds since the epoch.
 */
static inline int64_t ktap_gettimeofday_ms(void)
{
	return div_u64(ktime_get_real_fast_ns(), NSEC_PER_MSEC);
}

/**
 * ktap_gettimeofday_s() - gettimeofday_s()
 *
 * Return: seconds since the epoch.
 */
static inline int64_t ktap_gettimeofday_s(void)
{
	return div_u64(ktime_get_real_fast_ns(), NSEC_PER_SEC);
}

/**
 * ktap_monotonic_ns() - monotonic clock, for measuring intervals
 *
 * Return: nanoseconds since boot (not counting suspend).
 */
static inline int64_t ktap_monotonic_ns(void)
{
	return ktime_get_mono_fast_ns();
}

/*
 * The local time zone, which the kernel does not know: ktap-run passes
 * its own (TZ, /etc/localtime) when it loads the module, as staprun does
 * for SystemTap. tz_gmtoff() and tz_name() (tapsets/time.stp) read them.
 */
static long ktap_tz_gmtoff;	/* seconds west of UTC */
module_param(ktap_tz_gmtoff, long, 0444);
MODULE_PARM_DESC(ktap_tz_gmtoff, "the local time zone, seconds west of UTC");
static char ktap_tz_name[16] = "UTC";
module_param_string(ktap_tz_name, ktap_tz_name, sizeof(ktap_tz_name), 0444);
MODULE_PARM_DESC(ktap_tz_name, "the local time zone's name");

#endif /* _KTAP_TIME_H */
