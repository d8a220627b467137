/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap runtime: what differs between the kernels ktap builds for.
 *
 * The one place where the runtime follows a kernel API that changed
 * between Debian 12's kernel lines (6.1, 6.12) or flavours (amd64,
 * cloud-amd64, rt-amd64). Each difference is decided by the target's own
 * headers and configuration, at build time: a config option, or a macro
 * the header that changed defines. LINUX_VERSION_CODE only where no such
 * test exists, and never a table of releases.
 */
#ifndef _KTAP_KCOMPAT_H
#define _KTAP_KCOMPAT_H

#include <linux/spinlock.h>

/*
 * The script globals' locks (context.h). Handlers take them with
 * preemption disabled and only ever try them. Under PREEMPT_RT rwlock_t
 * is a sleeping lock (rwbase_rt on an rt_mutex), not to be taken in that
 * context, and its unlocked state is not all zero bytes, which a light
 * unit's zero-initialised lock assumes (api.h): there the lock is the
 * architecture's raw queued rwlock, which rwlock_t wraps elsewhere.
 */
#ifdef CONFIG_PREEMPT_RT
typedef arch_rwlock_t ktap_rwlock_t;
#define KTAP_RWLOCK_UNLOCKED(name)	__ARCH_RW_LOCK_UNLOCKED
#define ktap_read_trylock(l)		arch_read_trylock(l)
#define ktap_write_trylock(l)		arch_write_trylock(l)
#define ktap_read_unlock(l)		arch_read_unlock(l)
#define ktap_write_unlock(l)		arch_write_unlock(l)
#else
typedef rwlock_t ktap_rwlock_t;
#define KTAP_RWLOCK_UNLOCKED(name)	__RW_LOCK_UNLOCKED(name)
#define ktap_read_trylock(l)		read_trylock(l)
#define ktap_write_trylock(l)		write_trylock(l)
#define ktap_read_unlock(l)		read_unlock(l)
#define ktap_write_unlock(l)		write_unlock(l)
#endif
#define KTAP_DEFINE_RWLOCK(name) ktap_rwlock_t name = KTAP_RWLOCK_UNLOCKED(name)

/*
 * ftrace callbacks (ftrace.h): 6.12 made struct ftrace_regs opaque, its
 * x86 pt_regs reached through arch_ftrace_regs(), which came with it.
 */
#include <linux/ftrace.h>
#ifdef arch_ftrace_regs
#define ktap_fregs_pt_regs(fregs)	(&arch_ftrace_regs(fregs)->regs)
#else
#define ktap_fregs_pt_regs(fregs)	(&(fregs)->regs)
#endif

/*
 * uprobes (uprobes.h): 6.12 folded uprobe_register_refctr() into
 * uprobe_register(), which now returns the uprobe, and split
 * unregistering into uprobe_unregister_nosync() of that uprobe and one
 * uprobe_unregister_sync(). linux/uprobes.h defines no macro that came
 * with the change, so the release decides.
 */
#include <linux/version.h>
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define KTAP_UPROBE_HANDLES 1
#endif

#endif /* _KTAP_KCOMPAT_H */
