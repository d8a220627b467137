/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap runtime: the API of a light unit.
 *
 * A generated file compiled with -DKTAP_LIGHT includes this instead of
 * runtime.h. It sees no kernel header but linux/types.h: the runtime,
 * module.h and the tapsets' embedded C are compiled once per kernel tree
 * into a prebuilt object (see api.c and doc/internals.md, section 1f),
 * and the light unit calls them. So a module's build compiles only the
 * script's own code, in a fraction of the time and memory.
 *
 * What the unit may use:
 *   - the functions of api-list.h, each declared here under its runtime
 *     name but bound to the prebuilt object's symbol ktapx_<name>;
 *   - hot.h's inline helpers (statement counting, nesting, the frame
 *     arena, the lock table loop), the same code as the full build's, on
 *     the members below;
 *   - struct ktap_context: the members of api-list.h at the offsets the
 *     prebuilt object measured (api-layout.h, found on the include path
 *     in the prebuilt directory); the rest is opaque;
 *   - the plain types generated code fills in or reads (struct
 *     ktap_probe, ktap_lock_use, ktap_map_desc, ktap_hist_desc,
 *     ktap_stat_agg, ktap_re_inst, union ktap_key), declared here again
 *     under an _api name; api.c checks each member against the
 *     runtime's own;
 *   - the globals' rwlocks as opaque storage of the measured size, and
 *     the statistics' per-CPU locks (cpulock.h, the runtime's own).
 * Anything else fails the light compile, and build.c then compiles the
 * file the full way.
 */
#ifndef _KTAP_API_H
#define _KTAP_API_H

#include <linux/types.h>

#include "cpulock.h"

#ifndef KTAP_API_EXPORT
/* the light unit: declarations only */
#include <uapi/asm-generic/errno-base.h>

#include "limits.h"
#include "api-layout.h"

/* what linux/compiler.h and friends would give (kbuild's -include
 * compiler_types.h gives some of them already) */
#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif
#ifndef __maybe_unused
#define __maybe_unused __attribute__((__unused__))
#endif
#ifndef __printf
#define __printf(a, b) __attribute__((__format__(printf, a, b)))
#endif
#ifndef __percpu
#define __percpu
#endif
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* opaque storage of the size the kernel's lock types have on this tree */
typedef struct {
	unsigned char bytes[KTAP_API_SIZE_rwlock];
} __attribute__((__aligned__(sizeof(long)))) ktap_rwlock_t;

/* unlocked is all zero bytes; api.c checks that at module load */
#define KTAP_DEFINE_RWLOCK(name) ktap_rwlock_t name = { { 0 } }
#define DEFINE_PER_CPU(type, name) \
	__attribute__((__section__(".data..percpu"))) __typeof__(type) name

#define KTAP_MAX_KEYS KTAP_API_SIZE_max_keys
#define KTAP_TASK_OFF_COMM KTAP_API_SIZE_task_comm
#define KTAP_TASK_COMM_LEN KTAP_API_SIZE_task_comm_len
#define KTAP_TASK_OFF_TGID KTAP_API_SIZE_task_tgid
#define KTAP_TASK_OFF_PID KTAP_API_SIZE_task_pid
#define KTAP_HIST_MAX_BUCKETS KTAP_API_SIZE_hist_max_buckets
#define KTAP_PRINT_HDR_SIZE KTAP_API_SIZE_print_hdr
#define KTAP_REGS_OFF_DI KTAP_API_SIZE_regs_di
#define KTAP_REGS_OFF_SI KTAP_API_SIZE_regs_si
#define KTAP_REGS_OFF_DX KTAP_API_SIZE_regs_dx
#define KTAP_REGS_OFF_R10 KTAP_API_SIZE_regs_r10
#define KTAP_REGS_OFF_R8 KTAP_API_SIZE_regs_r8
#define KTAP_REGS_OFF_R9 KTAP_API_SIZE_regs_r9
#define KTAP_REGS_OFF_ORIG_AX KTAP_API_SIZE_regs_orig_ax
#define KTAP_PAGE_SIZE KTAP_API_SIZE_page_size
#define KTAP_MAP_OFF_TABLES KTAP_API_SIZE_map_tables
#define KTAP_MAP_OFF_VAL_OFF KTAP_API_SIZE_map_val_off
#define KTAP_MAP_TABLE_SIZE KTAP_API_SIZE_map_table_size
#define KTAP_MAP_TABLE_OFF_HEADS KTAP_API_SIZE_map_table_heads
#define KTAP_MAP_TABLE_OFF_MASK KTAP_API_SIZE_map_table_mask
#define KTAP_MAP_ENTRY_OFF_HNODE KTAP_API_SIZE_map_entry_hnode
#define KTAP_MAP_ENTRY_OFF_HASH KTAP_API_SIZE_map_entry_hash
#define KTAP_MAP_ENTRY_OFF_KEYS KTAP_API_SIZE_map_entry_keys
#define KTAP_STAT_OFF_COUNT KTAP_API_SIZE_stat_count
#define KTAP_STAT_OFF_SUM KTAP_API_SIZE_stat_sum
#define KTAP_STAT_OFF_MIN KTAP_API_SIZE_stat_min
#define KTAP_STAT_OFF_MAX KTAP_API_SIZE_stat_max

struct pt_regs;
struct task_struct;
struct ktap_probe;
struct ktap_map;
struct ktap_map_iter;

/* struct ktap_context: the listed members where the runtime has them */
#define KTAP_API_CTX(type, name) \
	struct { char ktap_before_##name[KTAP_API_OFF_##name]; type name; };
struct ktap_context {
	union {
		char ktap_bytes[KTAP_API_SIZE_context];
#include "api-list.h"
	};
};
#undef KTAP_API_CTX

#endif /* KTAP_API_EXPORT */

/* as context.h declares them; api.c checks each member's offset */
enum ktap_probe_kind_api {
	KTAP_API_PROBE_BEGIN,
	KTAP_API_PROBE_END,
	KTAP_API_PROBE_TIMER,
	KTAP_API_PROBE_KPROBE,
	KTAP_API_PROBE_KRETPROBE,
	KTAP_API_PROBE_TRACEPOINT,
	KTAP_API_PROBE_ERROR,
	KTAP_API_PROBE_NEVER,
	KTAP_API_PROBE_PROCFS_READ,
	KTAP_API_PROBE_PROCFS_WRITE,
	KTAP_API_PROBE_UPROBE,
	KTAP_API_PROBE_URETPROBE,
	KTAP_API_PROBE_PROC_BEGIN,
	KTAP_API_PROBE_PROC_END,
	KTAP_API_PROBE_PERF,
	KTAP_API_PROBE_NETFILTER,
	KTAP_API_PROBE_HWBKPT,
};

struct ktap_probe_api {
	enum ktap_probe_kind_api kind;
	const char *pp;
	const char *symbol;
	unsigned int offset;
	u64 period_ns;
	bool per_cpu;
	int maxactive;
	bool optional;
	const char *tracepoint;
	void *tp_func;
	void (*entry)(struct ktap_context *c);
	size_t entry_size;
	s64 priority;
	u64 randomize_ns;
	const char *procfs_name;
	unsigned int procfs_mode;
	size_t procfs_maxsize;
	const char *path;
	unsigned long ref_ctr_offset;
	pid_t pid;
	unsigned long address;
	u32 perf_type;
	u64 perf_config;
	u64 perf_sample;
	bool perf_freq;
	bool perf_task;
	const char *perf_counter;
	int nf_hook;
	int nf_pf;
	int nf_priority;
	int bp_len;
	int bp_type;
	unsigned long link_addr;
	bool ftrace_site;
	unsigned int syscall_nr;
};

enum ktap_lock_mode_api {
	KTAP_API_LOCK_READ,
	KTAP_API_LOCK_WRITE,
	KTAP_API_LOCK_THIS_CPU,
	KTAP_API_LOCK_ALL_CPUS,
};

struct ktap_lock_use_api {
	union {
		ktap_rwlock_t *rw;
		ktap_cpulock_t __percpu *cpu;
	};
	enum ktap_lock_mode_api mode;
};

enum ktap_vtype_api {
	KTAP_API_LONG,
	KTAP_API_STRING,
	KTAP_API_STATS,
};

union ktap_key_api {
	int64_t n;
	const char *s;
};

struct ktap_hist_desc_api {
	int kind;
	int64_t lo, hi, step;
};

struct ktap_map_desc_api {
	const char *name;
	int nkeys;
	enum ktap_vtype_api key_types[KTAP_MAX_KEYS];
	enum ktap_vtype_api value_type;
	int64_t max_entries;
	bool wrap;
	struct ktap_hist_desc_api hist;
	int var_shift;
};

enum ktap_re_op_api {
	KTAP_API_RE_CHAR,
	KTAP_API_RE_ANY,
	KTAP_API_RE_CLASS,
	KTAP_API_RE_SPLIT,
	KTAP_API_RE_JMP,
	KTAP_API_RE_SAVE,
	KTAP_API_RE_BOL,
	KTAP_API_RE_EOL,
	KTAP_API_RE_MATCH,
};

struct ktap_re_inst_api {
	u8 op;
	u8 ch;
	u16 x;
	u16 y;
	const unsigned char *set;
};

struct ktap_stat_agg_api {
	int64_t count, sum, min, max;
	int64_t avg_s, variance_s;
	int shift;
	int64_t nbuckets;
	int64_t buckets[KTAP_HIST_MAX_BUCKETS];
};

struct ktap_usym_api {
	unsigned long offset;
	unsigned long size;
	const char *name;
};

struct ktap_ucfi_api {
	unsigned int start;
	int cfa_off;
	signed char cfa_reg;
	signed char ra_off;
	signed char rbp_off;
};

struct ktap_usym_file_api {
	const char *path;
	const struct ktap_usym_api *syms;
	unsigned int nsyms;
	const struct ktap_ucfi_api *cfi;
	unsigned int ncfi;
};

#ifndef KTAP_API_EXPORT
/* in the light unit, the declarations above are the runtime's types */
#define ktap_usym ktap_usym_api
#define ktap_usym_file ktap_usym_file_api
#define ktap_ucfi ktap_ucfi_api
#define ktap_probe ktap_probe_api
#define ktap_lock_use ktap_lock_use_api
#define ktap_key ktap_key_api
#define ktap_hist_desc ktap_hist_desc_api
#define ktap_map_desc ktap_map_desc_api
#define ktap_stat_agg ktap_stat_agg_api
#define ktap_re_inst ktap_re_inst_api
#define KTAP_RE_CHAR KTAP_API_RE_CHAR
#define KTAP_RE_ANY KTAP_API_RE_ANY
#define KTAP_RE_CLASS KTAP_API_RE_CLASS
#define KTAP_RE_SPLIT KTAP_API_RE_SPLIT
#define KTAP_RE_JMP KTAP_API_RE_JMP
#define KTAP_RE_SAVE KTAP_API_RE_SAVE
#define KTAP_RE_BOL KTAP_API_RE_BOL
#define KTAP_RE_EOL KTAP_API_RE_EOL
#define KTAP_RE_MATCH KTAP_API_RE_MATCH
#define KTAP_LONG KTAP_API_LONG
#define KTAP_STRING KTAP_API_STRING
#define KTAP_STATS KTAP_API_STATS
#define KTAP_PROBE_BEGIN KTAP_API_PROBE_BEGIN
#define KTAP_PROBE_END KTAP_API_PROBE_END
#define KTAP_PROBE_TIMER KTAP_API_PROBE_TIMER
#define KTAP_PROBE_KPROBE KTAP_API_PROBE_KPROBE
#define KTAP_PROBE_KRETPROBE KTAP_API_PROBE_KRETPROBE
#define KTAP_PROBE_TRACEPOINT KTAP_API_PROBE_TRACEPOINT
#define KTAP_PROBE_ERROR KTAP_API_PROBE_ERROR
#define KTAP_PROBE_NEVER KTAP_API_PROBE_NEVER
#define KTAP_PROBE_PROCFS_READ KTAP_API_PROBE_PROCFS_READ
#define KTAP_PROBE_PROCFS_WRITE KTAP_API_PROBE_PROCFS_WRITE
#define KTAP_PROBE_UPROBE KTAP_API_PROBE_UPROBE
#define KTAP_PROBE_URETPROBE KTAP_API_PROBE_URETPROBE
#define KTAP_PROBE_PROC_BEGIN KTAP_API_PROBE_PROC_BEGIN
#define KTAP_PROBE_PROC_END KTAP_API_PROBE_PROC_END
#define KTAP_PROBE_PERF KTAP_API_PROBE_PERF
#define KTAP_PROBE_NETFILTER KTAP_API_PROBE_NETFILTER
#define KTAP_PROBE_HWBKPT KTAP_API_PROBE_HWBKPT
#define KTAP_LOCK_READ KTAP_API_LOCK_READ
#define KTAP_LOCK_WRITE KTAP_API_LOCK_WRITE
#define KTAP_LOCK_THIS_CPU KTAP_API_LOCK_THIS_CPU
#define KTAP_LOCK_ALL_CPUS KTAP_API_LOCK_ALL_CPUS

#define KTAP_API_FN(ret, name, params, args) \
	ret name params __asm__("ktapx_" #name);
#include "api-list.h"
#undef KTAP_API_FN

/* every hit's counting, frames and lock table, inline as in the full build */
#include "hot.h"
/* a[k] <<< v on a key that is there, inline as in the full build */
#include "hotmap.h"

/* the kernel's own, exported: string comparisons of generated code */
int strcmp(const char *a, const char *b);

void ktap_printf(struct ktap_context *c, const char *fmt, ...) __asm__("ktapx_ktap_printf");
void ktap_sprintf(struct ktap_context *c, char *dst, const char *fmt, ...)
	__asm__("ktapx_ktap_sprintf");
void ktap_sprintf_at(struct ktap_context *c, const char *loc, char *dst, const char *fmt, ...)
	__asm__("ktapx_ktap_sprintf_at");
__printf(3, 4) void ktap_errorf(struct ktap_context *c, const char *loc, const char *fmt, ...)
	__asm__("ktapx_ktap_errorf");
__printf(3, 4) size_t ktap_tgt_printf(char *dst, size_t n, const char *fmt, ...)
	__asm__("ktapx_ktap_tgt_printf");

/*
 * What the light unit defines for the prebuilt module.h: the probe
 * table, its length, and the globals' set-up; KTAP_UNIT_DEF gives them
 * external linkage (runtime.h defines it as static).
 */
#define KTAP_UNIT_DEF
#define KTAP_LIGHT_TAIL \
	const unsigned int ktap_nr_probes = KTAP_NR_PROBES; \
	static const char ktap_modinfo_description[] \
	__attribute__((__used__, __section__(".modinfo"), __aligned__(1))) = \
		"description=ktap script " KTAP_MODULE_NAME;
#endif /* KTAP_API_EXPORT */

#endif /* _KTAP_API_H */
