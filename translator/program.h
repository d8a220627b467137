/* program.h - what pass 2 hands to pass 3: the resolved program.
 *
 * resolve.c fills it from the user's file and the tapsets it uses;
 * probes/...c turn probe points into concrete probes (asking the target,
 * target.h, what the kernel has); tvar.c binds target variables; emit.c
 * reads it. Each section names the file that defines what it declares.
 */
#ifndef KTAP_PROGRAM_H
#define KTAP_PROGRAM_H

#include "ktap.h"

/* the concrete kinds of probe the runtime can arm (runtime/module.h) */
enum probe_kind {
	PK_BEGIN,
	PK_END,
	PK_TIMER,
	PK_KPROBE,
	PK_KRETPROBE,
	PK_TRACEPOINT,
	PK_ERROR,		/* at stop, instead of PK_END, after errors */
	PK_NEVER,		/* checked, never armed */
	PK_PROCFS_READ,		/* procfs("name").read */
	PK_PROCFS_WRITE,	/* procfs("name").write */
	PK_UPROBE,		/* user space: inode of path + offset */
	PK_URETPROBE,
	PK_PROC_BEGIN,		/* process.begin/.end: path or pid, or any */
	PK_PROC_END,
	PK_PERF,		/* perf.*: a perf event's overflow */
	PK_NETFILTER,		/* netfilter.hook(...).pf(...) */
	PK_HWBKPT,		/* kernel.data(...): a hardware watchpoint */
};

struct ctype;
struct cvar;

/* what $names mean at one concrete point (tvar.c binds them) */
struct tvar_scope {
	const char *where;		/* the point, for messages */
	struct cvar *vars;		/* parameters, then locals: read them with */
	int nvars;			/* tvar_scope_vars(), which loads them */
	void (*load)(struct tvar_scope *sc);	/* on first use, or NULL */
	void *load_arg;
	bool is_return;			/* $return; variables read at entry */
	struct ctype *return_type;	/* NULL: void */
	bool no_regs;			/* tracepoints: no registers */
	bool user;			/* a user-space point: memory is read
					 * with ktap_uread() */
};

/* one armed probe point: a provider's answer for one probe point */
struct concrete_point {
	enum probe_kind kind;
	const char *pp;			/* canonical text, for pp() and -p2 */
	const char *alias_point;	/* "syscall.read": the alias the user named */
	const char *symbol;		/* kprobes: symbol+offset; uprobes: the
					 * function (probefunc()) */
	const char *path;		/* uprobes: the file, as the module's
					 * machine names it; offset in it */
	uint64_t ref_ctr_offset;	/* uprobes: an SDT semaphore's file offset */
	int64_t pid;			/* process(PID).begin/.end; 0: any */
	struct target *file;		/* uprobes: the program or library, whose
					 * functions usymname() names */
	uint64_t offset;
	uint64_t address;		/* a kprobe at this address (.absolute) */
	uint64_t link_addr;		/* kprobes in the kernel image: the
					 * link-time address of symbol+offset,
					 * 0: the kernel resolves the symbol */
	bool ftrace_site;		/* ... a function entry ftrace hooks */
	bool guru_only;			/* resolve.c: an error without -g */
	const char *tracepoint;		/* PK_TRACEPOINT: its name */
	struct cvar *tp_args;		/* ... and arguments (C types by size) */
	int tp_nargs;
	bool tp_keyed;			/* one of many on the tracepoint, run when */
	int64_t tp_key;			/* ... the C tp_key_c of its arguments */
	const char *tp_key_c;		/* (a0, a1, ...) equals tp_key */
	bool sc_direct;			/* kernel.syscall("NAME"): on the call's
					 * own entry point, not sys_enter/exit
					 * (probes/syscall.c); tp_key: its number */
	struct tvar_scope *scope;	/* debuginfo points, else NULL */
	int64_t priority;		/* begin/end/error(N): lowest runs first */
	uint64_t period_ns;		/* timers */
	uint64_t randomize_ns;		/* ... each period +- up to this */
	bool per_cpu;			/* timer.profile: on every CPU */
	int maxactive;			/* kretprobes, 0 = default */
	const char *procfs_name;	/* procfs: the file in /proc/ktap/MODULE */
	unsigned int procfs_mode;	/* ... the permission bits it adds */
	int64_t procfs_maxsize;		/* ... .read: bytes, 0 = MAXSTRINGLEN */
	uint32_t perf_type;		/* perf: perf_event_attr's type, config, */
	uint64_t perf_config;
	uint64_t perf_sample;		/* ... sample period (frequency if */
	bool perf_freq;			/* ... perf_freq) */
	bool perf_task;			/* ... only the target process (.process) */
	const char *perf_counter;	/* ... .counter("NAME"): read by @perf */
	int nf_hook, nf_pf, nf_priority;	/* netfilter: nf_hook_ops' */
	int bp_len, bp_type;		/* kernel.data at address (symbol): bytes,
					 * HW_BREAKPOINT_W or _RW */
	bool optional;
	struct expr *cond;		/* probe-point condition, or NULL */
	const char *from;		/* the user's probe point it came from (-t) */
	struct concrete_point *next;
};

/* how a handler locks a global it uses (runtime/context.h) */
enum global_lock {
	GLOBAL_LOCK_READ,	/* only reads it */
	GLOBAL_LOCK_WRITE,	/* changes it, or merges a statistic's per-CPU parts */
	GLOBAL_LOCK_ADD,	/* a statistic it only adds to (<<<): its own CPU's part */
};

/* a probe handler: one body, armed at one or more points */
struct resolved_probe {
	int index;
	struct srcloc loc;		/* the user's 'probe' keyword */
	struct stmt *body;		/* alias prologues + body + epilogues */
	struct concrete_point *points;
	const char *alias_point;	/* "syscall.read": the alias the user named */
	struct symbol **locals;
	int nlocals;
	struct expr **entry_exprs;	/* .return: @entry values, saved at entry */
	int nentry_exprs;
	struct symbol **globals_used;	/* sorted by index; the ones it uses */
	enum global_lock *global_lock;	/* parallel to globals_used */
	int nglobals_used;
};

struct program {
	struct file *user;
	struct file *files;		/* user file first, then tapsets used */
	struct resolved_probe **probes;
	int nprobes;
	struct function **functions;	/* only the ones that are called */
	int nfunctions;
	struct symbol **globals;
	int nglobals;
	struct embedded_block **embedded;
	int nembedded;
	const char *module_name;
	struct target **ufiles;		/* the user-space files whose symbols
					 * (and CFI) the module holds */
	int nufiles;
	struct source **sources_used;	/* tapsets of called functions, matched
					 * aliases, declared globals (the cache
					 * checks them again before a hit) */
	int nsources_used;
};

/* ---- probes/probes.c: asks each provider in turn ---- */
int probes_resolve(const struct probe_point *pp, struct concrete_point *out);
const char *const *probes_known_points(int *n);	/* for "did you mean" */

/* the points a provider has found so far, head being the caller's out:
 * appending must not walk the chain (kernel.function("*") has some
 * 350,000) */
struct point_list {
	struct concrete_point *head, *tail;
	int n;
};
static inline struct concrete_point *point_list_next(struct point_list *pl)
{
	if (pl->n++ == 0)
		pl->tail = pl->head;
	else
		pl->tail = pl->tail->next = xalloc(sizeof(*pl->tail));
	return pl->tail;
}

/* ---- probes/...c: providers, probe_FILE() ----
 * Each returns 1 when it knows the point (and fills *out), 0 when the point
 * is not its own, -1 after reporting an error on the point. A provider
 * never calls another: what they share is the target's (target.h).
 */
int probe_begin_end(const struct probe_point *pp, struct concrete_point *out);
int probe_timer(const struct probe_point *pp, struct concrete_point *out);
int probe_kprobe(const struct probe_point *pp, struct concrete_point *out);
void probe_kprobe_symbols(const char *path);	/* the kernel's System.map, or NULL */
int probe_function(const struct probe_point *pp, struct concrete_point *out);
int probe_trace(const struct probe_point *pp, struct concrete_point *out);
int probe_syscall(const struct probe_point *pp, struct concrete_point *out);
int probe_procfs(const struct probe_point *pp, struct concrete_point *out);
int probe_process(const struct probe_point *pp, struct concrete_point *out);
int probe_absolute(const struct probe_point *pp, struct concrete_point *out);
int probe_perf(const struct probe_point *pp, struct concrete_point *out);
int probe_netfilter(const struct probe_point *pp, struct concrete_point *out);
int probe_hwbkpt(const struct probe_point *pp, struct concrete_point *out);
void probe_syscall_options(const struct options *opt);	/* for syscalls.c */
/* few system calls probed: on their own entry points, not sys_enter/exit */
void syscall_choose_attach(const struct program *prog);

/* ---- syscalls.c: the target's system call table, from its headers ---- */
bool syscall_table_known(const struct options *opt);
int syscall_number(const struct options *opt, const char *name);	/* -1: none */
const char *syscall_name(const struct options *opt, int nr);
const char *syscall_entry(const struct options *opt, int nr);	/* "sys_openat" */
bool syscall_has_entry_points(const struct options *opt);
const char *syscalls_tapset_dir(const struct options *opt);	/* generated syscalls.stp */

/* ---- tvar.c: $var, @cast, @var, @entry, @defined ----
 * tvar_bind_probe() resolves every target expression of a probe whose
 * points all share one scope (resolve.c splits probes so that they do):
 * reports unknown names and fields, folds @defined, turns reads of
 * parameters in .return probes into @entry, and leaves e->access for
 * emit.c, which calls tvar_emit_c().
 */
void tvar_bind_probe(struct resolved_probe *rp);
extern bool tvar_skip_badvars;		/* --skip-badvars: bad $vars read 0 */
int tvar_scope_vars(struct tvar_scope *sc, struct cvar **vars);
void tvar_bind_function(struct function *fn);	/* @cast/@var only */
bool tvar_stmt_uses_scope(struct stmt *s);	/* $var, $$vars, @entry */
/* C for an access: index_c/cast_c are the emitted index expressions and
 * @cast pointer, str_temp a string temporary for pretty-printing */
char *tvar_emit_c(const struct tvar_access *a, char **index_c,
		    const char *cast_c, const char *str_temp, const char *near_c);
int tvar_index_count(const struct tvar_access *a, struct expr ***index);
struct expr *tvar_cast_pointer(const struct tvar_access *a);
bool tvar_is_string(const struct tvar_access *a);
/* guru `$var = v`: C that stores value_c into the variable, or NULL */
char *tvar_store_c(const struct tvar_access *a, const char *value_c);
/* a string the probe holds (procfs $value): assigned without guru mode,
 * and `.=` appends with tvar_append_c() */
bool tvar_is_probe_string(const struct tvar_access *a);
char *tvar_append_c(const struct tvar_access *a, const char *value_c);

/* ---- symbols.c: builtins, functions the translator implements itself ---- */
enum builtin {
	BI_NONE,
	BI_PRINTF,
	BI_SPRINTF,
	BI_PRINT,
	BI_PRINTLN,
	BI_SPRINT,
	BI_SPRINTLN,
	BI_PRINTD,
	BI_PRINTDLN,
	BI_SPRINTD,
	BI_SPRINTDLN,
};

/* the sprint family: they return a string and print nothing */
bool builtin_returns_string(int id);
/* print(a)/println(a) of a whole array or statistic (ktap's extension) */
bool builtin_prints_whole_global(const struct expr *call);

#endif
