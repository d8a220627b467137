/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap runtime: the one header a generated module includes first.
 *
 * The runtime is header-only: the generated file is its only translation
 * unit. It defines KTAP_MODULE_NAME (the debugfs directory; defaults to
 * the module name), includes this file, then its globals, functions and
 * handlers, the ktap_probes[] table, ktap_globals_init(), and finally
 * module.h. See doc/internals.md, section 1.
 *
 * The headers, in the order they build on each other:
 *   limits.h     MAXSTRINGLEN and friends, -D overridable
 *   transport.h  relay files, record framing, control file, counters
 *   context.h    per-CPU context, enter/leave, errors, frames, locks
 *   print.h      print buffer, printf/sprintf
 *   json.h       --json: values as data records
 *   kstring.h    string operations
 *   regex.h      =~ and !~: a Pike VM for translated patterns; matched()
 *   stat.h       statistics: per-CPU accumulation, merging, histograms
 *   map.h        associative arrays (statistics arrays are per CPU)
 *   uaccess.h    no-fault reads of kernel and user memory
 *   target.h     target variables: registers, kernel reads by DWARF/BTF
 *   stack.h      backtraces (the kernel's unwinder) and symbol names
 *   usyms.h      user-space files, symbols and unwind rows of the module
 *   ustack.h     user stacks: unwinding by the rows (DWARF CFI)
 *   time.h       timer probes, clocks
 *   procfs.h     procfs probes: /proc/ktap/MODULE/NAME and their $value
 *   perf.h       perf event probes: a kernel counter per CPU
 *   netfilter.h  netfilter hook probes
 *   hwbkpt.h     hardware watchpoint probes (kernel.data)
 *   module.h     (included last by the generated file) state machine,
 *                probe registration, module init/exit; it includes
 *   ftrace.h     function-entry kprobes hooked through one ftrace_ops
 */
#ifndef _KTAP_RUNTIME_H
#define _KTAP_RUNTIME_H

#include <linux/atomic.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/tracepoint.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/percpu.h>
#include <linux/poll.h>
#include <linux/ptrace.h>
#include <linux/random.h>
#include <linux/relay.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/types.h>
#include <linux/uprobes.h>
#include <linux/uaccess.h>
#include <linux/user_namespace.h>
#include <linux/cred.h>
#include <linux/pid_namespace.h>
#include <linux/wait.h>
#include <asm/irq_regs.h>
#include <asm/vsyscall.h>

#ifndef KTAP_MODULE_NAME
#define KTAP_MODULE_NAME KBUILD_MODNAME
#endif

/* what a light unit defines for the prebuilt object (api.h) */
#define KTAP_UNIT_DEF static

#include "kcompat.h"
#include "limits.h"
#include "transport.h"
#include "context.h"
#include "print.h"
#include "json.h"
#include "kstring.h"
#include "regex.h"
#include "stat.h"
#include "map.h"
#include "uaccess.h"
#include "target.h"
#include "stack.h"
#include "usyms.h"
#include "ustack.h"
#include "time.h"
#include "procfs.h"
#include "perf.h"
#include "netfilter.h"
#include "hwbkpt.h"

#endif /* _KTAP_RUNTIME_H */
