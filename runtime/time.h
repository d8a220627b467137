/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap runtime: time.
 *
 * timer.ms(N) / timer.us(N) / timer.ns(N) / timer.s(N) / timer.hz(N)
 * probes: one hrtimer per probe, relative mode, re-armed from its own
 * callback with hrtimer_forward_now(); the translator converts every
 * variant to period_ns.
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
 * ktap_timer_fire() - hrtimer callback: run the probe, re-arm
 * @hrt: the timer
 *
 * Return: HRTIMER_RESTART while the script runs, else HRTIMER_NORESTART.
 */
static enum hrtimer_restart ktap_timer_fire(struct hrtimer *hrt)
{
	struct ktap_timer *t = container_of(hrt, struct ktap_timer, hrt);
	struct ktap_context *c;

	if (READ_ONCE(ktap_state) != KTAP_STATE_RUNNING ||
	    atomic_read(&ktap_exit_requested))
		return HRTIMER_NORESTART;

	preempt_disable();
	c = ktap_enter(t->probe, get_irq_regs());
	if (c) {
		t->probe->handler(c);
		ktap_leave(c);
	}
	preempt_enable();

	hrtimer_forward_now(hrt, ns_to_ktime(t->probe->period_ns));
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
	hrtimer_init(&t->hrt, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	t->hrt.function = ktap_timer_fire;
	hrtimer_start(&t->hrt, ns_to_ktime(probe->period_ns),
		      HRTIMER_MODE_REL);
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

#endif /* _KTAP_TIME_H */
