/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap runtime: the per-CPU locks of statistics.
 *
 * a[k] <<< v takes its own CPU's lock of the statistic; a reader takes
 * every CPU's (context.h explains the scheme). These locks are only ever
 * tried, MAXTRYLOCK times: nobody queues on them, so they need none of a
 * kernel spinlock's machinery, only a word set by one compare-and-swap
 * and cleared by one store. That lets a light unit take its own CPU's
 * lock inline (hot.h), with no call into the prebuilt object: so this
 * file uses linux/types.h and the compiler's atomics only.
 */
#ifndef _KTAP_CPULOCK_H
#define _KTAP_CPULOCK_H

/**
 * typedef ktap_cpulock_t - one CPU's lock of a statistic
 * @locked: 1 while held; zero-initialised storage is unlocked
 */
typedef struct {
	u32 locked;
} ktap_cpulock_t;

/**
 * ktap_cpulock_try() - take a lock if it is free
 * @l: the lock
 *
 * Return: true if taken (with acquire ordering).
 */
static inline bool ktap_cpulock_try(ktap_cpulock_t *l)
{
	u32 unlocked = 0;

	return __atomic_compare_exchange_n(&l->locked, &unlocked, 1, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/**
 * ktap_cpulock_release() - release a lock taken by ktap_cpulock_try()
 * @l: the lock
 */
static inline void ktap_cpulock_release(ktap_cpulock_t *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

#endif /* _KTAP_CPULOCK_H */
