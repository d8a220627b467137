/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap runtime: kernel.syscall("NAME") on the call's own entry point.
 *
 * A raw syscall tracepoint (sys_enter, sys_exit), once anything is
 * registered on it, sends every system call of the machine through the
 * kernel's slow path. A script that probes a few calls is attached to
 * their entry points instead (translator/probes/syscall.c decides): a
 * kprobe on __x64_sys_NAME, which ftrace.h hooks as an ftrace site, and
 * a kretprobe there for .return. Calls not probed pay nothing.
 *
 * The handler sees what the tracepoint would give it: c->tp_args[0] is
 * the caller's saved user registers (the entry point's only argument),
 * c->tp_args[1] the call's number at entry (sys_enter's id) or its return
 * value (sys_exit's ret). A hit whose saved orig_ax is not the probe's
 * number is not the call probed (an entry point that several numbers
 * share, such as sys_ni_syscall's, or an x32 call): skipped, as the
 * tracepoint's dispatcher would not run it. A 32-bit (ia32) call enters
 * through __ia32_sys_NAME and is never seen, as the dispatcher, which
 * keys on x86_64 numbers, should not see it either.
 */
#ifndef _KTAP_SYSCALL_H
#define _KTAP_SYSCALL_H

/**
 * ktap_syscall_is() - whether an entry point's hit is the call probed
 * @probe: a probe with @syscall_nr
 * @uregs: the entry point's argument (the caller's saved user registers)
 *
 * Return: true when @uregs is a call of @probe's number.
 */
static __always_inline bool ktap_syscall_is(const struct ktap_probe *probe,
					    const struct pt_regs *uregs)
{
	return likely(uregs && uregs->orig_ax == probe->syscall_nr - 1);
}

/**
 * ktap_syscall_run() - run a system call probe with the tracepoint's arguments
 * @probe: the probe
 * @regs: the registers at the entry point (or its return), or NULL
 * @uregs: the caller's saved user registers
 * @arg1: the call's number (entry) or return value (.return)
 */
static __always_inline void ktap_syscall_run(const struct ktap_probe *probe,
					     struct pt_regs *regs,
					     const struct pt_regs *uregs,
					     unsigned long arg1)
{
	unsigned long args[2] = { (unsigned long)uregs, arg1 };
	struct ktap_context *c = ktap_enter(probe, regs);

	if (c) {
		c->tp_args = args;
		ktap_run_handler(probe, c);
		ktap_leave(c);
	}
}

/**
 * ktap_syscall_hit() - a system call's entry point is hit
 * @probe: the probe (@syscall_nr set)
 * @regs: the registers there, or NULL (ftrace.h's argument-only hook)
 * @uregs: the entry point's argument
 *
 * From ftrace.h's callbacks or the kprobe pre-handler, preemption disabled.
 */
static __always_inline void ktap_syscall_hit(const struct ktap_probe *probe,
					     struct pt_regs *regs,
					     const struct pt_regs *uregs)
{
	if (ktap_syscall_is(probe, uregs))
		ktap_syscall_run(probe, regs, uregs, uregs->orig_ax);
}

/* the probe of a kretprobe instance (module.h's slot) */
static const struct ktap_probe *ktap_kretprobe_probe(struct kretprobe_instance *ri);

/**
 * ktap_syscall_ret_entry() - kretprobe entry handler of a .return
 * @ri: the instance; its data keeps the user registers for the return
 * @regs: the registers at the entry point
 *
 * Return: 0, or 1 (no return handler) when this is not the call probed.
 */
static int ktap_syscall_ret_entry(struct kretprobe_instance *ri,
				  struct pt_regs *regs)
{
	const struct ktap_probe *probe = ktap_kretprobe_probe(ri);
	const struct pt_regs *uregs = (const struct pt_regs *)regs->di;

	*(const struct pt_regs **)ri->data = uregs;
	return probe && ktap_syscall_is(probe, uregs) ? 0 : 1;
}

/**
 * ktap_syscall_ret() - kretprobe handler of a .return: run the probe
 * @ri: the instance (data: the user registers, from the entry handler)
 * @regs: the registers at the return
 *
 * Return: 0.
 */
static int ktap_syscall_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	const struct ktap_probe *probe = ktap_kretprobe_probe(ri);

	if (!probe)
		return 0;
	preempt_disable();
	ktap_syscall_run(probe, regs, *(const struct pt_regs **)ri->data,
			 regs_return_value(regs));
	preempt_enable();
	return 0;
}

#endif /* _KTAP_SYSCALL_H */
