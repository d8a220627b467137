/* program.h - what pass 2 hands to pass 3: the resolved program.
 *
 * resolve.c fills it from the user's file and the tapsets it uses;
 * probes/...c turn probe points into concrete probes; emit.c reads it.
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
};

struct ctype;
struct cvar;

/* what $names mean at one concrete point (target.c binds them) */
struct target_scope {
	const char *where;		/* the point, for messages */
	struct cvar *vars;		/* parameters, then locals: read them with */
	int nvars;			/* target_scope_vars(), which loads them */
	void (*load)(struct target_scope *sc);	/* on first use, or NULL */
	void *load_arg;
	bool is_return;			/* $return; variables read at entry */
	struct ctype *return_type;	/* NULL: void */
	bool no_regs;			/* tracepoints: no registers */
};

/* one armed probe point: a provider's answer for one probe point */
struct concrete_point {
	enum probe_kind kind;
	const char *pp;			/* canonical text, for pp() and -p2 */
	const char *symbol;		/* kprobes: symbol+offset */
	uint64_t offset;
	const char *tracepoint;		/* PK_TRACEPOINT: its name */
	struct cvar *tp_args;		/* ... and arguments (C types by size) */
	int tp_nargs;
	bool tp_keyed;			/* one of many on the tracepoint, run when */
	int64_t tp_key;			/* ... the C tp_key_c of its arguments */
	const char *tp_key_c;		/* (a0, a1, ...) equals tp_key */
	struct target_scope *scope;	/* debuginfo points, else NULL */
	uint64_t period_ns;		/* timers */
	bool per_cpu;			/* timer.profile: on every CPU */
	int maxactive;			/* kretprobes, 0 = default */
	bool optional;
	struct expr *cond;		/* probe-point condition, or NULL */
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
	struct source **sources_used;	/* tapsets of called functions, matched aliases */
	int nsources_used;
};

/* ---- probes/...c: providers ----
 * Each returns 1 when it knows the point (and fills *out), 0 when the point
 * is not its own, -1 after reporting an error on the point.
 */
int probe_begin_end(const struct probe_point *pp, struct concrete_point *out);
int probe_timer(const struct probe_point *pp, struct concrete_point *out);
int probe_kprobe(const struct probe_point *pp, struct concrete_point *out);
int probe_dwarf(const struct probe_point *pp, struct concrete_point *out);
int probe_trace(const struct probe_point *pp, struct concrete_point *out);
int probe_syscall(const struct probe_point *pp, struct concrete_point *out);
void probes_set_syscall_target(const struct options *opt);

/* ---- syscalls.c: the target's system call table, from its headers ---- */
bool syscall_table_known(const struct options *opt);
int syscall_number(const struct options *opt, const char *name);	/* -1: none */
const char *syscall_name(const struct options *opt, int nr);
const char *syscalls_tapset_dir(const struct options *opt);	/* generated syscalls.stp */
int probes_resolve(const struct probe_point *pp, struct concrete_point *out);
void probes_load_symbols(const char *path);	/* kprobe.c: System.map or kallsyms */
const char *const *probes_known_points(int *n);	/* for "did you mean" */
char *probe_point_text(const struct probe_point *pp);
bool pp_is(const struct probe_point *pp, int i, const char *name);

/* ---- target.c: $var, @cast, @var, @entry, @defined ----
 * target_bind_probe() resolves every target expression of a probe whose
 * points all share one scope (resolve.c splits probes so that they do):
 * reports unknown names and fields, folds @defined, turns reads of
 * parameters in .return probes into @entry, and leaves e->access for
 * emit.c, which calls target_emit_c().
 */
void target_bind_probe(struct resolved_probe *rp);
int target_scope_vars(struct target_scope *sc, struct cvar **vars);
void target_bind_function(struct function *fn);	/* @cast/@var only */
bool target_stmt_uses_scope(struct stmt *s);	/* $var, $$vars, @entry */
/* C for an access: index_c/cast_c are the emitted index expressions and
 * @cast pointer, str_temp a string temporary for pretty-printing */
char *target_emit_c(const struct target_access *a, char **index_c,
		    const char *cast_c, const char *str_temp, const char *near_c);
int target_index_count(const struct target_access *a, struct expr ***index);
struct expr *target_cast_pointer(const struct target_access *a);
bool target_is_string(const struct target_access *a);
/* guru `$var = v`: C that stores value_c into the variable, or NULL */
char *target_store_c(const struct target_access *a, const char *value_c);

/* ---- probes/dwarf.c: the kernel's debuginfo for providers and -l/-L ---- */
struct options;
void probes_set_target(const struct options *opt);
struct dw *probes_dwarf(char **why);		/* NULL: none (why says) */
struct btf_kernel *probes_btf(char **why);

/* ---- builtins: functions the translator implements itself ---- */
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

#endif
