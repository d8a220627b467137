/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap runtime: probe context.
 *
 * Every probe hit runs a generated handler, probe_N(struct ktap_context *c),
 * between ktap_enter() and ktap_leave(), with preemption disabled. The
 * context is per CPU; a hit that arrives while this CPU is already inside
 * a handler (an interrupt, a probe inside the runtime) is skipped and
 * counted, never nested.
 *
 * Errors: the first ktap_error() of a hit wins; generated code checks
 * c->error after each statement that can fail and bails out. ktap_leave()
 * reports it as "error <msg> near <loc>" and, once MAXERRORS is exceeded,
 * asks the script to stop.
 *
 * Generated code keeps string locals and temporaries in a per-CPU frame
 * arena (ktap_frame_push()/ktap_frame_pop()), not on the kernel stack.
 */
#ifndef _KTAP_CONTEXT_H
#define _KTAP_CONTEXT_H

/**
 * enum ktap_state - life of the module
 * @KTAP_STATE_LOADED: loaded, nothing armed; waiting for "start"
 * @KTAP_STATE_STARTING: running the begin probes
 * @KTAP_STATE_RUNNING: probes armed
 * @KTAP_STATE_STOPPING: disarming, then running the end probes
 * @KTAP_STATE_STOPPED: done; only unloading is left
 */
enum ktap_state {
	KTAP_STATE_LOADED,
	KTAP_STATE_STARTING,
	KTAP_STATE_RUNNING,
	KTAP_STATE_STOPPING,
	KTAP_STATE_STOPPED,
};

static int ktap_state = KTAP_STATE_LOADED;
static atomic_t ktap_exit_requested = ATOMIC_INIT(0);
static atomic_t ktap_nr_errors = ATOMIC_INIT(0);
/* the stop was caused by errors: error probes run instead of end probes */
static atomic_t ktap_ended_by_error = ATOMIC_INIT(0);

static long ktap_target;
module_param(ktap_target, long, 0444);
MODULE_PARM_DESC(ktap_target, "pid returned by target()");

/**
 * enum ktap_probe_kind - how a probe is attached
 * @KTAP_PROBE_BEGIN: runs once at "start", before the others are armed
 * @KTAP_PROBE_END: runs once at "stop", after the others are disarmed
 * @KTAP_PROBE_TIMER: hrtimer every @period_ns
 * @KTAP_PROBE_KPROBE: kprobe on @symbol + @offset
 * @KTAP_PROBE_KRETPROBE: kretprobe on @symbol (function return)
 * @KTAP_PROBE_TRACEPOINT: kernel tracepoint @tracepoint
 * @KTAP_PROBE_ERROR: runs once at "stop" instead of the end probes when
 *	the script ends because of an error
 * @KTAP_PROBE_NEVER: never runs (the 'never' probe point)
 * @KTAP_PROBE_PROCFS_READ: a read of /proc/ktap/MODULE/@procfs_name
 * @KTAP_PROBE_PROCFS_WRITE: a write of it (procfs.h)
 * @KTAP_PROBE_UPROBE: uprobe on the file @path at @offset (uprobes.h)
 * @KTAP_PROBE_URETPROBE: uretprobe there (a user function's return)
 * @KTAP_PROBE_PROC_BEGIN: a process execs (@path's program; @pid), uprobes.h
 * @KTAP_PROBE_PROC_END: a process ends
 * @KTAP_PROBE_PERF: a perf event's overflow, on every CPU (perf.h)
 * @KTAP_PROBE_NETFILTER: a netfilter hook function (netfilter.h)
 * @KTAP_PROBE_HWBKPT: a hardware watchpoint on every CPU (hwbkpt.h)
 */
enum ktap_probe_kind {
	KTAP_PROBE_BEGIN,
	KTAP_PROBE_END,
	KTAP_PROBE_TIMER,
	KTAP_PROBE_KPROBE,
	KTAP_PROBE_KRETPROBE,
	KTAP_PROBE_TRACEPOINT,
	KTAP_PROBE_ERROR,
	KTAP_PROBE_NEVER,
	KTAP_PROBE_PROCFS_READ,
	KTAP_PROBE_PROCFS_WRITE,
	KTAP_PROBE_UPROBE,
	KTAP_PROBE_URETPROBE,
	KTAP_PROBE_PROC_BEGIN,
	KTAP_PROBE_PROC_END,
	KTAP_PROBE_PERF,
	KTAP_PROBE_NETFILTER,
	KTAP_PROBE_HWBKPT,
};

struct ktap_context;

/**
 * struct ktap_probe - one entry of the generated ktap_probes[] table
 * @kind: enum ktap_probe_kind
 * @pp: the probe point as the script spells it (pp(), error messages)
 * @symbol: kprobe/kretprobe: the function
 * @offset: kprobe: byte offset into @symbol (usually 0)
 * @period_ns: timer: period
 * @per_cpu: timer: one timer on every CPU (timer.profile)
 * @maxactive: kretprobe: concurrent instances, 0 for the kernel default
 * @optional: a failure to register skips the probe instead of failing start
 * @tracepoint: tracepoint: its name
 * @tp_func: tracepoint: the generated function registered on it
 * @entry: kretprobe: saves the @entry() values at the function's entry
 *	into c->tp_args (kretprobe instance data), or NULL
 * @entry_size: bytes of instance data @entry needs
 * @priority: begin/end/error: the sequence number, lowest runs first
 * @randomize_ns: timer: each period is @period_ns +- a random amount up
 *	to this (timer.ms(N).randomize(M))
 * @procfs_name: procfs: the file's name in /proc/ktap/MODULE (procfs.h)
 * @procfs_mode: procfs: the permission bits this probe gives the file
 * @procfs_maxsize: procfs .read: bytes a read returns, 0 for MAXSTRINGLEN
 * @path: uprobe/uretprobe: the probed file (@offset: the byte in it;
 *	@symbol: its function, for probefunc())
 * @ref_ctr_offset: uprobe: an SDT marker's semaphore, its file offset (0: none)
 * @pid: process.begin/.end: only this process (0: any)
 * @address: kprobe: an absolute address instead of @symbol (guru mode)
 * @perf_type: perf: perf_event_attr.type (perf.h)
 * @perf_config: perf: perf_event_attr.config
 * @perf_sample: perf: run the probe every this many events, or
 * @perf_freq: ... this many times a second
 * @perf_task: perf: count the target process only (.process), not every CPU
 * @perf_counter: perf: .counter("NAME"): a counter @perf("NAME") reads,
 *	which runs no handler (its name has no quote or backslash)
 * @nf_hook: netfilter: the hook number (NF_INET_LOCAL_IN, ...)
 * @nf_pf: netfilter: the protocol family (NFPROTO_IPV4, ...)
 * @nf_priority: netfilter: the hook's priority
 * @bp_len: kernel.data: bytes watched at @address (@symbol: the symbol
 *	that must be there)
 * @bp_type: kernel.data: HW_BREAKPOINT_W or HW_BREAKPOINT_RW
 * @link_addr: kprobe in the kernel image: the link-time address of
 *	@symbol + @offset, 0 if not known; ksyms.h moves it by the KASLR
 *	offset (ktap_link_kfree)
 * @ftrace_site: @link_addr is a function's ftrace site (the translator
 *	read the image's __mcount_loc)
 * @syscall_nr: kprobe/kretprobe on a system call's entry point
 *	(__x64_sys_NAME) that stands for kernel.syscall("NAME"): the call's
 *	number + 1, so that 0 is every other probe (syscall.h)
 */
struct ktap_probe {
	enum ktap_probe_kind kind;
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

/*
 * ktap_run_handler() - run a probe's handler: the generated code's switch
 * over its probe table, with direct calls (handlers called once are
 * inlined into it: the table holds no pointer to them). A pointer to call
 * would go through a retpoline, and every indirect jump or return is a
 * lookup in a TCG guest.
 */
#ifdef KTAP_PREBUILT
void ktap_run_handler(const struct ktap_probe *probe, struct ktap_context *c);
/* the light unit linked with the prebuilt object defines the table */
extern const struct ktap_probe ktap_probes[];
extern const unsigned int ktap_nr_probes;
/* kfree()'s link-time address (0: unknown), for the KASLR offset */
extern const unsigned long ktap_link_kfree;
#define KTAP_LINK_KFREE ktap_link_kfree
#define KTAP_NR_PROBES ktap_nr_probes
#else
static void ktap_run_handler(const struct ktap_probe *probe,
			     struct ktap_context *c);
#endif

/* Groups a regex may have, group 0 (the whole match) included (regex.h). */
#define KTAP_RE_MAXGROUPS 16

/**
 * struct ktap_context - state of the probe hit running on this CPU
 * @regs: registers at the probe (kprobe, kretprobe, timer); else NULL
 * @probe: the probe being run
 * @pp: @probe->pp
 * @retval: kretprobe: the function's return value
 * @actions: statements executed (KTAP_ACTION())
 * @nesting: depth of function calls (ktap_nest_enter())
 * @error: NULL, or the first error of this hit ("<msg> near <loc>")
 * @error_site: NULL, or "near f() at FILE:L:C": the script's call through
 *	which @error came, reported with an @error that names no place
 * @frame: this CPU's frame arena, KTAP_FRAME_SIZE bytes
 * @frame_used: bytes of @frame in use
 * @print_buf: this CPU's print buffer: a record header, then output
 * @print_len: bytes of output in @print_buf
 * @scratch: KTAP_SCRATCH_SIZE bytes for runtime helpers (ktap_sprintf())
 * @re_ngroups: regex.h: groups of the last =~ of this hit; 0 if it failed
 * @re_caps: regex.h: its groups' start and end offsets in @re_subject, -1 unset
 * @re_subject: regex.h: MAXSTRINGLEN bytes, a copy of its subject
 * @tp_args: tracepoint probes: the tracepoint's arguments (target.h)
 * @target_loc: "near $var at FILE:L:C" of the target expression being
 *	read, for fault messages (target.h)
 * @cpu_offset: what this_cpu_ptr() adds to a per-CPU address on this
 *	context's CPU: hot.h finds the CPU's lock of a statistic with it
 * @cpu: this context's CPU: hotmap.h finds the CPU's table of a
 *	statistics array with it
 * @task: current, for hot.h's ktap_task_*() (tapset functions that a
 *	light unit compiles itself)
 * @errbuf: storage of @error
 */
struct ktap_context {
	struct pt_regs *regs;
	const struct ktap_probe *probe;
	const char *pp;
	int64_t retval;
	unsigned long actions;
	int nesting;
	const char *error;
	const char *error_site;
	char *frame;
	size_t frame_used;
	char *print_buf;
	size_t print_len;
	char *scratch;
	int re_ngroups;
	int re_caps[2 * KTAP_RE_MAXGROUPS];
	char *re_subject;
	const unsigned long *tp_args;
	const char *target_loc;
	unsigned long cpu_offset;
	int cpu;
	struct task_struct *task;
	char errbuf[KTAP_ERRLEN];
};

static struct ktap_context __percpu *ktap_contexts;

/* ktap_vsprintf() formats one byte more than a string holds, plus a NUL */
#define KTAP_SCRATCH_SIZE ALIGN(MAXSTRINGLEN + 1, 8)

#ifndef KTAP_NO_OVERLOAD
/**
 * struct ktap_overload - this CPU's overload guard
 * @window_start: local_clock() at the start of the current window
 * @busy_ns: estimated handler time in the current window
 * @hit_start: local_clock() at the start of the hit being timed; 0 while
 *	the running hit is not timed
 * @weight: the hits the next timed hit stands for
 * @countdown: hits until the next timed one (0 or 1: the next hit)
 * @rand: xorshift state that draws the gaps
 *
 * Reading the clock twice per hit costs more than a small handler (the
 * clock is slow to read in a guest without a stable TSC), so only about
 * one hit in KTAP_OVERLOAD_SAMPLE is timed, and it counts for the hits
 * since the previous timed one. The gaps are random, 1 to
 * 2 * KTAP_OVERLOAD_SAMPLE - 1 hits, so that a script whose slow hits come
 * at a fixed period cannot hide them between samples. Slow hits are
 * timed one by one (ktap_overload_account()). -D KTAP_OVERLOAD_SAMPLE=1
 * times every hit.
 */
struct ktap_overload {
	u64 window_start;
	u64 busy_ns;
	u64 hit_start;
	u32 weight;
	u32 countdown;
	u32 rand;
};
static DEFINE_PER_CPU(struct ktap_overload, ktap_overload);
#endif


/* print.h: write this CPU's print buffer out as one record. */
static inline void ktap_print_flush(struct ktap_context *c);

/*
 * The process that loads the module (ktap-run; SystemTap's stapio): its
 * pid, pid namespace, user namespace and uid, taken when the module
 * initializes in its context, for stp_pid(), the ns_*() functions and
 * is_myproc() (tapsets/context.stp).
 */
static struct pid *ktap_loader_pid;
static struct user_namespace *ktap_loader_user_ns;
static kuid_t ktap_loader_uid;

/* the pid namespace of ktap-run, which loaded the module */
static inline __maybe_unused struct pid_namespace *ktap_loader_pid_ns(void)
{
	return ns_of_pid(ktap_loader_pid);
}

/**
 * ktap_context_init() - allocate the per-CPU contexts and their buffers
 *
 * Return: 0 or -ENOMEM.
 */
static int ktap_context_init(void)
{
	int cpu;

	ktap_loader_pid = get_pid(task_tgid(current));
	ktap_loader_user_ns = get_user_ns(current_user_ns());
	ktap_loader_uid = current_uid();
	ktap_contexts = alloc_percpu(struct ktap_context);
	if (!ktap_contexts)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct ktap_context *c = per_cpu_ptr(ktap_contexts, cpu);
		char *mem = kvzalloc_node(KTAP_FRAME_SIZE + KTAP_PRINT_BUFSIZE +
					  KTAP_SCRATCH_SIZE + MAXSTRINGLEN,
					  GFP_KERNEL, cpu_to_node(cpu));

		if (!mem)
			return -ENOMEM;	/* ktap_context_exit() frees the rest */
		c->cpu_offset = (unsigned long)c - (unsigned long)ktap_contexts;
		c->cpu = cpu;
		c->frame = mem;
		c->print_buf = mem + KTAP_FRAME_SIZE;
		c->scratch = c->print_buf + KTAP_PRINT_BUFSIZE;
		c->re_subject = c->scratch + KTAP_SCRATCH_SIZE;
	}
	return 0;
}

/**
 * ktap_context_exit() - free what ktap_context_init() allocated
 */
static void ktap_context_exit(void)
{
	int cpu;

	put_pid(ktap_loader_pid);
	ktap_loader_pid = NULL;
	if (ktap_loader_user_ns)
		put_user_ns(ktap_loader_user_ns);
	ktap_loader_user_ns = NULL;
	if (!ktap_contexts)
		return;
	for_each_possible_cpu(cpu)
		kvfree(per_cpu_ptr(ktap_contexts, cpu)->frame);
	free_percpu(ktap_contexts);
	ktap_contexts = NULL;
}

/**
 * ktap_probe_allowed() - may this probe run in the current state?
 * @probe: the probe
 *
 * begin probes run only while starting, end probes only while stopping,
 * all others only while running; after exit() only end probes run.
 *
 * Return: true if the handler may run.
 */
static inline bool ktap_probe_allowed(const struct ktap_probe *probe)
{
	int state = READ_ONCE(ktap_state);

	switch (probe->kind) {
	case KTAP_PROBE_BEGIN:
		return state == KTAP_STATE_STARTING &&
		       !atomic_read(&ktap_exit_requested);
	case KTAP_PROBE_END:
	case KTAP_PROBE_ERROR:
		return state == KTAP_STATE_STOPPING;
	case KTAP_PROBE_NEVER:
		return false;
	default:
		return state == KTAP_STATE_RUNNING &&
		       !atomic_read(&ktap_exit_requested);
	}
}

/* the tgids of ktap-run and of the guest agent that started it */
static int ktap_loader[KTAP_MAX_LOADERS];
static int ktap_nr_loaders;
module_param_array(ktap_loader, int, &ktap_nr_loaders, 0444);
MODULE_PARM_DESC(ktap_loader, "tgids whose own work is not traced (the loader)");

/**
 * ktap_from_loader() - did a probe fire in ktap-run (or its agent) itself?
 * @probe: the probe that fired
 *
 * ktap-run reads the relay and control files and writes the output, the
 * guest agent carries it to the host: a probe on those paths (a kprobe
 * on vfs_read, syscall.read, a tracepoint on the writes) that prints
 * would feed itself without end, and counts the tracer as the workload.
 * Their hits are ignored (not counted as skipped), for every family but
 * begin, end, error and timers: those do not fire from what the loader
 * does (end and error run in the loader's own "stop").
 * Interrupt context hits are never ignored either: current is whoever
 * was interrupted. ktap-run gives no tgids with --trace-loader.
 *
 * Return: true if the hit must be ignored.
 */
static inline bool ktap_from_loader(const struct ktap_probe *probe)
{
	pid_t tgid;
	int i;

	if (likely(!ktap_nr_loaders) || probe->kind == KTAP_PROBE_BEGIN ||
	    probe->kind == KTAP_PROBE_END || probe->kind == KTAP_PROBE_ERROR ||
	    probe->kind == KTAP_PROBE_TIMER || in_interrupt())
		return false;
	tgid = current->tgid;
	for (i = 0; i < ktap_nr_loaders; i++)
		if (tgid == ktap_loader[i])
			return true;
	return false;
}

/**
 * ktap_overload_hit_start() - time this hit if it is the one sampled
 * @kind: the kind of the probe that fired
 *
 * See struct ktap_overload. Preemption disabled. begin and end probes are
 * not timed (as in SystemTap): they run once, so they cannot load the
 * system the way a hot probe can, and a long one (a begin probe printing
 * megabytes, on a vCPU the host does not always run) must not stop the
 * script.
 */
static __always_inline void ktap_overload_hit_start(enum ktap_probe_kind kind)
{
#ifndef KTAP_NO_OVERLOAD
	struct ktap_overload *o = this_cpu_ptr(&ktap_overload);

	if (unlikely(kind == KTAP_PROBE_BEGIN || kind == KTAP_PROBE_END ||
		     kind == KTAP_PROBE_ERROR))
		return;
	if (likely(o->countdown > 1)) {
		o->countdown--;
		return;
	}
	o->hit_start = local_clock();
#endif
}

/**
 * ktap_hit_refused() - the checks of a hit before it may claim the CPU
 * @probe: the probe that fired
 * @kind: @probe->kind, or the constant the caller knows it to be
 *
 * Folded into one word so that the hot path takes a single branch: in a
 * TCG guest every taken branch ends a translation block, and a hit paid
 * for a dozen of them here before it ran any of the script.
 *
 * Return: nonzero if the handler must not run (not allowed in the current
 * state, or a hit in the loader's own work): not counted as skipped.
 */
static __always_inline unsigned long
ktap_hit_refused(const struct ktap_probe *probe, enum ktap_probe_kind kind)
{
	unsigned long bad, mine = 0;
	pid_t tgid;
	int i;

	if (kind == KTAP_PROBE_BEGIN || kind == KTAP_PROBE_END ||
	    kind == KTAP_PROBE_ERROR || kind == KTAP_PROBE_NEVER ||
	    kind == KTAP_PROBE_TIMER)
		return !ktap_probe_allowed(probe) || ktap_from_loader(probe);
	/* ktap_probe_allowed()'s default case: running, and no exit() yet */
	bad = (READ_ONCE(ktap_state) ^ KTAP_STATE_RUNNING) |
	      atomic_read(&ktap_exit_requested);
	/* ktap_from_loader(), without a loop: unused slots never match */
	tgid = current->tgid;
	for (i = 0; i < KTAP_MAX_LOADERS; i++)
		mine |= (i < READ_ONCE(ktap_nr_loaders)) & (tgid == ktap_loader[i]);
	return bad | (mine & !in_interrupt());
}

/**
 * ktap_enter_kind() - start a probe hit whose kind the caller may know
 * @probe: the probe that fired
 * @regs: its registers, or NULL
 * @kind: @probe->kind; a constant where the caller knows it (a function
 *	entry hooked through ftrace), so that the checks for other kinds
 *	fold away
 * @nmi_checked: the caller refused NMI context already (ftrace.h)
 *
 * Preemption must be disabled. Claims this CPU's context and resets it.
 *
 * Return: the context, or NULL if the handler must not run: in NMI or
 * reentered (both counted as skipped), or not allowed in the current state.
 */
static __always_inline struct ktap_context *
ktap_enter_kind(const struct ktap_probe *probe, struct pt_regs *regs,
		enum ktap_probe_kind kind, bool nmi_checked)
{
	struct ktap_context *c;
	unsigned long refused;
	int busy;

	lockdep_assert_preemption_disabled();
	/*
	 * A kernel int3 is entered like an NMI, so in_nmi() is true in every
	 * int3-based kprobe handler (probes off a function's first
	 * instruction): one NMI level in a kprobe is that int3, not an NMI,
	 * and the busy claim below still keeps it out of the runtime's own
	 * critical sections. Deeper nesting is a real NMI: skipped. A
	 * watchpoint's kernel #DB is entered the same way.
	 */
	if (!nmi_checked && unlikely(in_nmi()) &&
	    !((kind == KTAP_PROBE_KPROBE || kind == KTAP_PROBE_HWBKPT) &&
	      (preempt_count() & NMI_MASK) == NMI_OFFSET)) {
		ktap_count_skipped();
		return NULL;
	}
	/* claim first, decide once: one branch on the common path */
	refused = ktap_hit_refused(probe, kind);
	busy = this_cpu_inc_return(ktap_stats->busy);
	if (unlikely(refused | (busy != 1))) {
		this_cpu_dec(ktap_stats->busy);
		if (!refused)	/* fired inside a handler or critical section */
			this_cpu_inc(ktap_stats->skipped);
		return NULL;
	}

	c = this_cpu_ptr(ktap_contexts);
	ktap_overload_hit_start(kind);
	c->regs = regs;
	c->probe = probe;
	c->pp = probe->pp;
	c->retval = 0;
	c->actions = 0;
	c->nesting = 0;
	c->error = NULL;
	c->error_site = NULL;
	c->frame_used = 0;
	c->print_len = 0;
	c->re_ngroups = 0;
	c->tp_args = NULL;
	c->target_loc = NULL;
	c->task = current;
	return c;
}

/**
 * ktap_enter() - start a probe hit
 * @probe: the probe that fired
 * @regs: its registers, or NULL
 *
 * ktap_enter_kind() for a probe of any kind.
 *
 * Return: the context, or NULL if the handler must not run.
 */
static __always_inline struct ktap_context *
ktap_enter(const struct ktap_probe *probe, struct pt_regs *regs)
{
	return ktap_enter_kind(probe, regs, probe->kind, false);
}

/**
 * ktap_request_exit() - the script asks to stop: exit(), or too many errors
 * @c: the context (may be NULL)
 *
 * Sets the flag that keeps probe handlers (other than end probes) from
 * running, and queues "exit" on ctl once; ktap-run answers with "stop".
 */
static __maybe_unused void ktap_request_exit(struct ktap_context *c)
{
	if (atomic_cmpxchg(&ktap_exit_requested, 0, 1))
		return;
	if (READ_ONCE(ktap_state) < KTAP_STATE_STOPPING)
		__ktap_ctl_send(KTAP_CTL_EXIT, KTAP_MSG_EXIT);
}

/**
 * ktap_report_error() - send the hit's error to ktap-run
 * @c: the context, with c->error set
 *
 * Stops the script once more than MAXERRORS errors have occurred.
 */
static void ktap_report_error(struct ktap_context *c)
{
	if (c->error_site && !strstr(c->error, " near "))
		ktap_ctl_send(KTAP_MSG_ERROR " %s %s", c->error, c->error_site);
	else
		ktap_ctl_send(KTAP_MSG_ERROR " %s", c->error);
	if (atomic_inc_return(&ktap_nr_errors) > MAXERRORS) {
		atomic_set(&ktap_ended_by_error, 1);
		ktap_request_exit(c);
	}
}

static atomic_t ktap_limit_reported = ATOMIC_INIT(0);

/* hits skipped because a global's lock stayed busy for MAXTRYLOCK tries */
static atomic_t ktap_lock_timeouts = ATOMIC_INIT(0);
/* the probe point of the first of them, for the MAXSKIPPED message */
static const char *ktap_lock_timeout_pp;

/**
 * ktap_stop_for_limit() - stop the script because a limit was passed
 * @c: the context
 * @msg: the message for ktap-run, naming the limit
 *
 * Only the first limit passed is reported.
 */
static void ktap_stop_for_limit(struct ktap_context *c, const char *msg)
{
	if (atomic_cmpxchg(&ktap_limit_reported, 0, 1))
		return;
	ktap_ctl_send(KTAP_MSG_ERROR " %s", msg);
	atomic_set(&ktap_ended_by_error, 1);
	ktap_request_exit(c);
}

#ifndef KTAP_NO_OVERLOAD
/**
 * ktap_overload_account() - add a timed hit to the overload guard
 * @c: the context
 * @o: this CPU's guard, @o->hit_start set
 *
 * A fast hit counts for the @o->weight hits since the previous timed one,
 * and the next timed hit is drawn at random. A slow one (at least
 * KTAP_OVERLOAD_SLOW_NS: a heavy handler, or a vCPU the host did not run)
 * counts once, as it is, and the next hit is timed too: scaling a rare
 * stall would stop a script that is not overloaded, and a handler that is
 * slow every time is then measured hit by hit.
 */
static noinline void ktap_overload_account(struct ktap_context *c,
					   struct ktap_overload *o)
{
	u64 now = local_clock();
	u64 spent = now - o->hit_start;
	u32 x;

	if (now - o->window_start > KTAP_OVERLOAD_INTERVAL_NS) {
		o->window_start = now;
		o->busy_ns = 0;
	}
	o->hit_start = 0;
	if (spent >= KTAP_OVERLOAD_SLOW_NS) {
		o->busy_ns += spent;
		o->weight = o->countdown = 1;
	} else {
		o->busy_ns += spent * (o->weight ?: 1);
		x = o->rand ?: smp_processor_id() + 0x6b746170;	/* nonzero seed */
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		o->rand = x;
		o->weight = o->countdown = 1 + x % (2 * KTAP_OVERLOAD_SAMPLE - 1);
	}
	if (unlikely(o->busy_ns > KTAP_OVERLOAD_THRESHOLD_NS))
		ktap_stop_for_limit(c, "probe overhead exceeded the overload threshold "
				    "(KTAP_OVERLOAD_THRESHOLD_NS); -D KTAP_NO_OVERLOAD disables the guard");
}
#endif

/**
 * ktap_stop_for_skipped() - stop the script: more than MAXSKIPPED skips
 * @c: the context
 *
 * Names MAXTRYLOCK and the probe point when a global's lock was the
 * reason a hit was skipped.
 */
static noinline void ktap_stop_for_skipped(struct ktap_context *c)
{
	const char *pp = READ_ONCE(ktap_lock_timeout_pp);
	char msg[KTAP_ERRLEN];

	if (!atomic_read(&ktap_lock_timeouts) || !pp) {
		ktap_stop_for_limit(c, "skipped too many probe hits (MAXSKIPPED "
				    __stringify(MAXSKIPPED) ")");
		return;
	}
	scnprintf(msg, sizeof(msg),
		  "skipped too many probe hits (MAXSKIPPED %d): %d could not take a global's lock within MAXTRYLOCK (%d) tries, the first near probe %s",
		  MAXSKIPPED, atomic_read(&ktap_lock_timeouts), MAXTRYLOCK, pp);
	ktap_stop_for_limit(c, msg);
}

/**
 * ktap_leave_slow() - the rare work at the end of a hit
 * @c: the context
 *
 * Reports an error, accounts a timed hit to the overload guard, and
 * checks MAXSKIPPED: the limits that span probe hits. The overload
 * guard: this CPU spent more than KTAP_OVERLOAD_THRESHOLD_NS in handlers
 * within KTAP_OVERLOAD_INTERVAL_NS, as estimated from the timed hits
 * (struct ktap_overload). MAXSKIPPED: too many hits could not run
 * (reentered, lock contention, missed kprobes).
 */
static noinline void ktap_leave_slow(struct ktap_context *c)
{
#ifndef KTAP_NO_OVERLOAD
	struct ktap_overload *o = this_cpu_ptr(&ktap_overload);
#endif

	if (c->error)
		ktap_report_error(c);
#ifndef KTAP_NO_OVERLOAD
	if (o->hit_start)
		ktap_overload_account(c, o);
#endif
	if (atomic_read(&ktap_skipped_atomic) > MAXSKIPPED)
		ktap_stop_for_skipped(c);
}

/**
 * ktap_leave_pending() - is there rare work for ktap_leave_slow()?
 * @c: the context
 *
 * Return: nonzero if the hit had an error, was timed, or MAXSKIPPED is
 * passed; one test for the three.
 */
static __always_inline unsigned long ktap_leave_pending(struct ktap_context *c)
{
	unsigned long p = (unsigned long)c->error |
			  (atomic_read(&ktap_skipped_atomic) > MAXSKIPPED);

#ifndef KTAP_NO_OVERLOAD
	p |= this_cpu_read(ktap_overload.hit_start);
#endif
	return p;
}

/**
 * ktap_leave() - end a probe hit started by ktap_enter()
 * @c: the context
 *
 * Flushes the hit's output as one relay record (after those already
 * flushed by a long print), reports an error if one occurred, and
 * releases the CPU. Frames left on the arena are discarded.
 */
static __always_inline void ktap_leave(struct ktap_context *c)
{
	ktap_print_flush(c);
	if (unlikely(ktap_leave_pending(c)))
		ktap_leave_slow(c);
	ktap_busy_dec();
}

/**
 * ktap_run_probe_kind() - one hit of a probe: enter, run its handler, leave
 * @probe: the probe that fired
 * @regs: its registers, or NULL
 * @kind: as for ktap_enter_kind()
 * @nmi_checked: as for ktap_enter_kind()
 */
static __always_inline void ktap_run_probe_kind(const struct ktap_probe *probe,
						struct pt_regs *regs,
						enum ktap_probe_kind kind,
						bool nmi_checked)
{
	struct ktap_context *c = ktap_enter_kind(probe, regs, kind, nmi_checked);

	if (c) {
		ktap_run_handler(probe, c);
		ktap_leave(c);
	}
}

/**
 * ktap_run_probe() - one hit of a probe: enter, run its handler, leave
 * @probe: the probe that fired
 * @regs: its registers, or NULL
 *
 * Preemption must be disabled. For hits that set nothing in the context
 * but the registers; kretprobes and tracepoints set more and call
 * ktap_enter() themselves.
 */
static __always_inline void ktap_run_probe(const struct ktap_probe *probe,
					   struct pt_regs *regs)
{
	ktap_run_probe_kind(probe, regs, probe->kind, false);
}

/**
 * ktap_error() - record an error; the first one of a hit wins
 * @c: the context
 * @msg: what went wrong, e.g. "division by zero"
 * @loc: where, e.g. "near operator '/' at t.stp:3:12", or NULL
 *
 * Sets c->error to "@msg @loc". Generated code then bails out.
 */
static __maybe_unused void ktap_error(struct ktap_context *c,
				      const char *msg, const char *loc)
{
	if (c->error)
		return;
	scnprintf(c->errbuf, sizeof(c->errbuf), "%s%s%s", msg,
		  loc ? " " : "", loc ?: "");
	c->error = c->errbuf;
}

/**
 * ktap_errorf() - record a formatted error; the first one of a hit wins
 * @c: the context
 * @loc: where, or NULL
 * @fmt: printf format of the message (kernel printf)
 *
 * Like ktap_error(), for messages that carry values (an address, a pid).
 */
static __printf(3, 4) __maybe_unused void ktap_errorf(struct ktap_context *c,
				       const char *loc, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (c->error)
		return;
	va_start(ap, fmt);
	n = vscnprintf(c->errbuf, sizeof(c->errbuf), fmt, ap);
	va_end(ap);
	if (loc)
		scnprintf(c->errbuf + n, sizeof(c->errbuf) - n, " %s", loc);
	c->error = c->errbuf;
}

/*
 * Embedded C: raise an error with a formatted message and leave the
 * function. Needs CONTEXT (defined by the generated code around embedded
 * C) and an "out" label.
 */
#ifndef STAP_ERROR
#define STAP_ERROR(...) \
	do { ktap_errorf(CONTEXT, NULL, __VA_ARGS__); goto out; } while (0)
#endif

/* ---- locks of script globals ---- */

#include "cpulock.h"

/*
 * A script global other than a statistic has an rwlock (static
 * KTAP_DEFINE_RWLOCK(g_x_lock), kcompat.h): readers share it, writers have it alone.
 *
 * A statistic has one lock per CPU instead (static DEFINE_PER_CPU(
 * ktap_cpulock_t, g_x_lock)), so that <<< never shares a cache line with
 * another CPU: a handler that only adds to it (s <<< v, a[k] <<< v) takes
 * its own CPU's lock and changes only its own CPU's part (map.h); one that
 * reads it (an extractor, foreach, delete, 'in') takes every CPU's lock,
 * in CPU order, and so sees every part at rest, insertions included.
 * These are cpulock.h's bare words, not spinlocks: handlers run with
 * preemption disabled already, a reader holding every CPU's lock must not
 * raise the preemption count once per possible CPU (it has 8 bits), and a
 * light unit takes its own CPU's inline.
 *
 * A handler takes the locks of every global it uses before it starts, in
 * one fixed order (the order of the globals in the script, then of the
 * CPUs), and releases them when done. Locks are only ever tried,
 * MAXTRYLOCK times each: the holder may be the very context the probe
 * interrupted, on this CPU.
 */

/**
 * enum ktap_lock_mode - how a handler locks one global
 * @KTAP_LOCK_READ: the rwlock, shared
 * @KTAP_LOCK_WRITE: the rwlock, alone
 * @KTAP_LOCK_THIS_CPU: a statistic's lock of the CPU the hit runs on
 * @KTAP_LOCK_ALL_CPUS: every possible CPU's lock of a statistic
 */
enum ktap_lock_mode {
	KTAP_LOCK_READ,
	KTAP_LOCK_WRITE,
	KTAP_LOCK_THIS_CPU,
	KTAP_LOCK_ALL_CPUS,
};

/**
 * struct ktap_lock_use - one entry of a handler's generated lock table
 * @rw: the global's rwlock (KTAP_LOCK_READ, KTAP_LOCK_WRITE)
 * @cpu: the statistic's per-CPU locks (KTAP_LOCK_THIS_CPU, _ALL_CPUS)
 * @mode: enum ktap_lock_mode
 */
struct ktap_lock_use {
	union {
		ktap_rwlock_t *rw;
		ktap_cpulock_t __percpu *cpu;
	};
	enum ktap_lock_mode mode;
};

/**
 * ktap_trylock_rw() - take an rwlock, giving up after MAXTRYLOCK attempts
 * @l: the lock
 * @write: for writing (else for reading)
 *
 * Return: true if taken.
 */
static bool ktap_trylock_rw(ktap_rwlock_t *l, bool write)
{
	int i;

	for (i = 0; i < MAXTRYLOCK; i++) {
		if (write ? ktap_write_trylock(l) : ktap_read_trylock(l))
			return true;
		ndelay(KTAP_TRYLOCKDELAY_NS);
	}
	return false;
}

/**
 * ktap_trylock_cpulock() - take a CPU's lock, giving up after MAXTRYLOCK attempts
 * @l: the lock
 *
 * Return: true if taken.
 */
static inline bool ktap_trylock_cpulock(ktap_cpulock_t *l)
{
	int i;

	for (i = 0; i < MAXTRYLOCK; i++) {
		if (likely(ktap_cpulock_try(l)))
			return true;
		ndelay(KTAP_TRYLOCKDELAY_NS);
	}
	return false;
}

/**
 * ktap_unlock_cpus() - release a statistic's locks of the CPUs below @end
 * @l: the per-CPU locks
 * @end: the first CPU not locked (nr_cpu_ids for all)
 */
static void ktap_unlock_cpus(ktap_cpulock_t __percpu *l, int end)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		if (cpu >= end)
			break;
		ktap_cpulock_release(per_cpu_ptr(l, cpu));
	}
}

/**
 * ktap_trylock_cpus() - take every possible CPU's lock of a statistic
 * @l: the per-CPU locks
 *
 * In CPU order, each within MAXTRYLOCK attempts.
 *
 * Return: true if all are taken; false if one was not (none is held then).
 */
static bool ktap_trylock_cpus(ktap_cpulock_t __percpu *l)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		if (!ktap_trylock_cpulock(per_cpu_ptr(l, cpu))) {
			ktap_unlock_cpus(l, cpu);
			return false;
		}
	}
	return true;
}

/**
 * ktap_trylock() - take one global's lock(s) for a handler
 * @u: the global and the mode
 *
 * Preemption disabled (KTAP_LOCK_THIS_CPU: the CPU must not change
 * before ktap_unlock()).
 *
 * Return: true if taken.
 */
static inline bool ktap_trylock(const struct ktap_lock_use *u)
{
	switch (u->mode) {
	case KTAP_LOCK_THIS_CPU:
		return ktap_trylock_cpulock(this_cpu_ptr(u->cpu));
	case KTAP_LOCK_ALL_CPUS:
		return ktap_trylock_cpus(u->cpu);
	default:
		return ktap_trylock_rw(u->rw, u->mode == KTAP_LOCK_WRITE);
	}
}

/**
 * ktap_unlock() - release what ktap_trylock() took
 * @u: as given to ktap_trylock()
 */
static inline void ktap_unlock(const struct ktap_lock_use *u)
{
	switch (u->mode) {
	case KTAP_LOCK_THIS_CPU:
		ktap_cpulock_release(this_cpu_ptr(u->cpu));
		break;
	case KTAP_LOCK_ALL_CPUS:
		ktap_unlock_cpus(u->cpu, nr_cpu_ids);
		break;
	case KTAP_LOCK_WRITE:
		ktap_write_unlock(u->rw);
		break;
	default:
		ktap_read_unlock(u->rw);
	}
}

/**
 * ktap_lock_timeout() - count a hit skipped for a lock it could not take
 * @c: the context
 */
static noinline void ktap_lock_timeout(struct ktap_context *c)
{
	if (atomic_inc_return(&ktap_lock_timeouts) == 1)
		WRITE_ONCE(ktap_lock_timeout_pp, c->pp);
	ktap_count_skipped();
}

/* where hot.h's ktap_task_*() find the current task's name and ids */
#define KTAP_TASK_OFF_COMM offsetof(struct task_struct, comm)
#define KTAP_TASK_COMM_LEN TASK_COMM_LEN
#define KTAP_TASK_OFF_TGID offsetof(struct task_struct, tgid)
#define KTAP_TASK_OFF_PID offsetof(struct task_struct, pid)

/* where hot.h's ktap_syscall_arg() finds a system call's arguments */
#define KTAP_REGS_OFF_DI offsetof(struct pt_regs, di)
#define KTAP_REGS_OFF_SI offsetof(struct pt_regs, si)
#define KTAP_REGS_OFF_DX offsetof(struct pt_regs, dx)
#define KTAP_REGS_OFF_R10 offsetof(struct pt_regs, r10)
#define KTAP_REGS_OFF_R8 offsetof(struct pt_regs, r8)
#define KTAP_REGS_OFF_R9 offsetof(struct pt_regs, r9)
#define KTAP_REGS_OFF_ORIG_AX offsetof(struct pt_regs, orig_ax)

/* where hot.h's ktap_put_*() find the output, and print.h's slow paths */
#define KTAP_PRINT_HDR_SIZE sizeof(struct ktap_rec_hdr)
#define KTAP_PAGE_SIZE PAGE_SIZE
static inline void ktap_print_str(struct ktap_context *c, const char *s);
static inline void ktap_print_long(struct ktap_context *c, int64_t v);

/*
 * ktap_action(), KTAP_ACTION(), ktap_nest_enter()/_leave(), the frame
 * arena and ktap_lock_globals()/ktap_unlock_globals(): inline in a light
 * unit too, so they live in a header api.h includes as well.
 */
#include "hot.h"

#endif /* _KTAP_CONTEXT_H */
