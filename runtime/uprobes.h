/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap runtime: user-space probes (process("PATH").function(...),
 * .statement, .mark), through the kernel's uprobes; process.begin and
 * process.end, through the scheduler's exec and exit tracepoints.
 *
 * A probe is the inode of the file at @path (as the machine running the
 * module names it: the ktap guest sees the host's files under /host) and
 * a byte offset in the file; the kernel puts a breakpoint there in every
 * process that maps it, now or later. A .return probe is a uretprobe on
 * the function's entry. An SDT marker's semaphore (its file offset in
 * @ref_ctr_offset) is counted up by the kernel while the probe is
 * registered, so the program's "is it enabled?" tests see it.
 *
 * Handlers run in the probed task's context (process context, from its
 * breakpoint trap), with preemption disabled around the script's code
 * like every other probe. Unregistering waits for the consumer's running
 * handlers (the uprobe's register_rwsem), and the module's exit disarms
 * whatever is armed, so a script that ends in any way leaves no uprobe.
 */
#ifndef _KTAP_UPROBES_H
#define _KTAP_UPROBES_H

#include <linux/binfmts.h>
#include <linux/file.h>
#include <linux/namei.h>
#include <linux/sched/signal.h>
#include <linux/uprobes.h>

/**
 * struct ktap_uprobe - one registered user-space probe
 * @uc: the consumer registered with the kernel
 * @inode: the probed file's inode, referenced while registered
 * @probe: its entry in ktap_probes[]
 * @handle: (6.12 on) the kernel's uprobe, to unregister
 */
struct ktap_uprobe {
	struct uprobe_consumer uc;
	struct inode *inode;
	const struct ktap_probe *probe;
#ifdef KTAP_UPROBE_HANDLES
	struct uprobe *handle;		/* what uprobe_register() returned */
#endif
};

/* run the probe of @uc with @regs; c->retval set for a return probe */
static int ktap_uprobe_run(struct uprobe_consumer *uc, struct pt_regs *regs,
			   bool ret)
{
	const struct ktap_probe *probe = container_of(uc, struct ktap_uprobe, uc)->probe;
	struct ktap_context *c;

	preempt_disable();
	c = ktap_enter(probe, regs);
	if (c) {
		if (ret)
			c->retval = regs_return_value(regs);
		ktap_run_handler(probe, c);
		ktap_leave(c);
	}
	preempt_enable();
	return 0;
}

static int ktap_uprobe_hit(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	return ktap_uprobe_run(uc, regs, false);
}

static int ktap_uretprobe_hit(struct uprobe_consumer *uc, unsigned long func,
			      struct pt_regs *regs)
{
	return ktap_uprobe_run(uc, regs, true);
}

/* the kernel's registration, either API (kcompat.h) */
static int ktap_uprobe_register(struct ktap_uprobe *up, const struct ktap_probe *p)
{
#ifdef KTAP_UPROBE_HANDLES
	up->handle = uprobe_register(up->inode, p->offset, p->ref_ctr_offset, &up->uc);
	return PTR_ERR_OR_ZERO(up->handle);
#else
	return uprobe_register_refctr(up->inode, p->offset, p->ref_ctr_offset, &up->uc);
#endif
}

/**
 * ktap_uprobe_arm() - register a uprobe or uretprobe
 * @up: the slot's uprobe
 * @p: the probe (KTAP_PROBE_UPROBE or KTAP_PROBE_URETPROBE)
 *
 * Return: 0, -ENOENT if @p->path does not exist, or uprobe_register()'s
 * error (-EINVAL: not a place an instruction starts, ...).
 */
static int ktap_uprobe_arm(struct ktap_uprobe *up, const struct ktap_probe *p)
{
	struct path path;
	int ret;

	memset(up, 0, sizeof(*up));
	up->probe = p;
	ret = kern_path(p->path, LOOKUP_FOLLOW, &path);
	if (ret)
		return ret;
	/* an overlay's file maps its real inode: the one uprobes see */
	up->inode = igrab(d_real_inode(path.dentry));
	path_put(&path);
	if (!up->inode)
		return -ENOENT;
	if (!S_ISREG(up->inode->i_mode)) {
		iput(up->inode);
		return -EINVAL;
	}
	if (p->kind == KTAP_PROBE_URETPROBE)
		up->uc.ret_handler = ktap_uretprobe_hit;
	else
		up->uc.handler = ktap_uprobe_hit;
	ret = ktap_uprobe_register(up, p);
	if (ret)
		iput(up->inode);
	return ret;
}

/**
 * ktap_uprobe_disarm() - unregister what ktap_uprobe_arm() registered
 * @up: the slot's uprobe
 *
 * Returns once no handler of it runs any more.
 */
static void ktap_uprobe_disarm(struct ktap_uprobe *up)
{
#ifdef KTAP_UPROBE_HANDLES
	uprobe_unregister_nosync(up->handle, &up->uc);
	uprobe_unregister_sync();
#else
	uprobe_unregister(up->inode, up->probe->offset, &up->uc);
#endif
	iput(up->inode);
	up->inode = NULL;
}

/*
 * process.begin / process.end: a process that execs (sched_process_exec,
 * in the new program's context), and the last thread of a process that
 * exits (sched_process_exit once the thread group is dead). @path limits
 * them to one program, @pid to one process. At exit the task has no mm
 * any more, so process("PATH").end knows its processes by their tgids,
 * noted when they exec PATH and, for those already running, when the
 * probe is armed: KTAP_PROC_WATCH of them per probe (more are counted as
 * skipped).
 */
#define KTAP_PROC_WATCH 256

/**
 * struct ktap_procprobe - one armed process.begin or process.end
 * @tp: the tracepoint registered on
 * @exit_tp: process("PATH").end: sched_process_exit, registered too
 * @inode: the inode of @probe->path, referenced; NULL: any program
 * @probe: its entry in ktap_probes[]
 * @tgids: process.end with a path: the processes running it (0: free)
 */
struct ktap_procprobe {
	struct tracepoint *tp, *exit_tp;
	struct inode *inode;
	const struct ktap_probe *probe;
	pid_t tgids[KTAP_PROC_WATCH];
};

static void ktap_proc_watch(struct ktap_procprobe *pp, pid_t tgid)
{
	int i;

	for (i = 0; i < KTAP_PROC_WATCH; i++)
		if (READ_ONCE(pp->tgids[i]) == tgid)
			return;
	for (i = 0; i < KTAP_PROC_WATCH; i++)
		if (!READ_ONCE(pp->tgids[i]) && !cmpxchg(&pp->tgids[i], 0, tgid))
			return;
	ktap_count_skipped();
}

/* was tgid watched? it is not any more */
static bool ktap_proc_unwatch(struct ktap_procprobe *pp, pid_t tgid)
{
	int i;

	for (i = 0; i < KTAP_PROC_WATCH; i++)
		if (READ_ONCE(pp->tgids[i]) == tgid && cmpxchg(&pp->tgids[i], tgid, 0) == tgid)
			return true;
	return false;
}

static void ktap_proc_run(struct ktap_procprobe *pp)
{
	struct ktap_context *c;

	preempt_disable_notrace();
	c = ktap_enter(pp->probe, NULL);
	if (c) {
		ktap_run_handler(pp->probe, c);
		ktap_leave(c);
	}
	preempt_enable_notrace();
}

/* a task's program is the probe's (@inode NULL: any) */
static bool ktap_proc_file_is(struct ktap_procprobe *pp, struct file *f)
{
	return !pp->inode || (f && file_inode(f) == pp->inode);
}

static void ktap_proc_exec_hit(void *data, struct task_struct *p, pid_t old_pid,
			       struct linux_binprm *bprm)
{
	struct ktap_procprobe *pp = data;
	const struct ktap_probe *probe = pp->probe;

	if (probe->pid && probe->pid != current->tgid)
		return;
	if (!ktap_proc_file_is(pp, bprm->file))
		return;
	if (probe->kind == KTAP_PROBE_PROC_END)
		ktap_proc_watch(pp, current->tgid);
	else
		ktap_proc_run(pp);
}

static void ktap_proc_exit_hit(void *data, struct task_struct *p)
{
	struct ktap_procprobe *pp = data;
	const struct ktap_probe *probe = pp->probe;

	if ((current->flags & PF_KTHREAD) || atomic_read(&current->signal->live))
		return;		/* a kernel thread, or not the last thread */
	if (probe->pid && probe->pid != current->tgid)
		return;
	if (pp->inode && !ktap_proc_unwatch(pp, current->tgid))
		return;
	ktap_proc_run(pp);
}

struct ktap_proc_tp_search {
	const char *name;
	struct tracepoint *found;
};

static void ktap_proc_tp_match(struct tracepoint *tp, void *priv)
{
	struct ktap_proc_tp_search *s = priv;

	if (!s->found && strcmp(tp->name, s->name) == 0)
		s->found = tp;
}

/* process("PATH").end: the processes already running PATH */
static void ktap_proc_watch_running(struct ktap_procprobe *pp)
{
	struct task_struct *t;

	/* files are freed after an RCU grace period, and task_lock keeps
	 * t->mm (get_task_exe_file() is not exported) */
	rcu_read_lock();
	for_each_process(t) {
		struct file *exe;

		if (t->flags & PF_KTHREAD)
			continue;
		task_lock(t);
		exe = t->mm ? rcu_dereference(t->mm->exe_file) : NULL;
		if (exe && file_inode(exe) == pp->inode)
			ktap_proc_watch(pp, t->tgid);
		task_unlock(t);
	}
	rcu_read_unlock();
}

/**
 * ktap_proc_arm() - register a process.begin or process.end probe
 * @pp: the slot's state
 * @p: the probe
 *
 * Return: 0, -ENOENT (no such file or tracepoint), or the error of
 * tracepoint_probe_register().
 */
static int ktap_proc_arm(struct ktap_procprobe *pp, const struct ktap_probe *p)
{
	struct ktap_proc_tp_search s = { .name = "sched_process_exec" };
	struct path path;
	int ret;

	memset(pp, 0, sizeof(*pp));
	pp->probe = p;
	if (p->path) {
		ret = kern_path(p->path, LOOKUP_FOLLOW, &path);
		if (ret)
			return ret;
		pp->inode = igrab(d_real_inode(path.dentry));
		path_put(&path);
		if (!pp->inode)
			return -ENOENT;
	}
	if (p->kind == KTAP_PROBE_PROC_END && !pp->inode)
		s.name = "sched_process_exit";
	for_each_kernel_tracepoint(ktap_proc_tp_match, &s);
	ret = -ENOENT;
	if (s.found) {
		pp->tp = s.found;
		if (p->kind == KTAP_PROBE_PROC_END && pp->inode)
			ktap_proc_watch_running(pp);
		ret = tracepoint_probe_register(s.found, p->kind == KTAP_PROBE_PROC_BEGIN ||
						pp->inode ? (void *)ktap_proc_exec_hit :
						(void *)ktap_proc_exit_hit, pp);
	}
	/* process("PATH").end hooks both: exec to note, exit to run */
	if (!ret && p->kind == KTAP_PROBE_PROC_END && pp->inode) {
		struct ktap_proc_tp_search e = { .name = "sched_process_exit" };

		for_each_kernel_tracepoint(ktap_proc_tp_match, &e);
		ret = e.found ? tracepoint_probe_register(e.found, (void *)ktap_proc_exit_hit, pp)
			      : -ENOENT;
		if (ret)
			tracepoint_probe_unregister(pp->tp, (void *)ktap_proc_exec_hit, pp);
		else
			pp->exit_tp = e.found;
	}
	if (ret && pp->inode)
		iput(pp->inode);
	return ret;
}

/**
 * ktap_proc_disarm() - unregister what ktap_proc_arm() registered
 * @pp: the slot's state
 *
 * The caller waits for running handlers (tracepoint_synchronize_unregister())
 * before the inode's reference goes: ktap_proc_release().
 */
static void ktap_proc_disarm(struct ktap_procprobe *pp)
{
	const struct ktap_probe *p = pp->probe;
	bool exec = p->kind == KTAP_PROBE_PROC_BEGIN || pp->inode;

	tracepoint_probe_unregister(pp->tp, exec ? (void *)ktap_proc_exec_hit :
				    (void *)ktap_proc_exit_hit, pp);
	if (pp->exit_tp)
		tracepoint_probe_unregister(pp->exit_tp, (void *)ktap_proc_exit_hit, pp);
}

static void ktap_proc_release(struct ktap_procprobe *pp)
{
	if (pp->inode)
		iput(pp->inode);
	pp->inode = NULL;
}

#endif /* _KTAP_UPROBES_H */
