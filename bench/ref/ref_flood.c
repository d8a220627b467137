// SPDX-License-Identifier: GPL-2.0
/*
 * ref_flood - bench/overhead's floor for case 2, written by hand: what
 *
 *	probe syscall.openat { printf("%s(%d) open %s\n", execname(), pid(), filename) }
 *
 * costs with nothing but the work itself. openat's entry point
 * (__x64_sys_openat) is hooked the way ktap's runtime/ftrace.h hooks a
 * system call's (an ftrace_ops of its own that asks for the argument
 * registers only, behind ftrace's recursion guard); each hit copies the
 * file name from user memory without faulting (pagefault_disable(), as
 * ktap's runtime/uaccess.h), formats the line by hand and writes it into
 * this CPU's relay buffer, which is large enough for a bench run (no reader: the reader runs on another CPU and is not a
 * hit's cost). A full buffer drops the line and counts it; the lines
 * written and dropped go to the kernel log at unload. No translator, no
 * ktap runtime: the difference between this and ktap's module is what
 * ktap adds.
 */
#include <linux/debugfs.h>
#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/relay.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#define REF_SUBBUF (1 << 20)	/* 8 MiB per CPU: a bench run's lines */
#define REF_NSUBBUFS 8
#define REF_LINE 640		/* a task name, a pid, a file name */

/* the argument registers, as ktap's kcompat.h finds them (6.12: opaque) */
#ifdef arch_ftrace_regs
#define ref_fregs_pt_regs(fregs) (&arch_ftrace_regs(fregs)->regs)
#else
#define ref_fregs_pt_regs(fregs) (&(fregs)->regs)
#endif

struct ref_cpu {
	char line[REF_LINE];
	u64 lines, dropped;
};

static DEFINE_PER_CPU(struct ref_cpu, ref_cpus);
static struct rchan *ref_chan;
static struct dentry *ref_dir;

/* the decimal digits of @v before @end; returns the first */
static char *ref_decimal(char *end, long v)
{
	unsigned long u = v < 0 ? -(unsigned long)v : v;

	do {
		*--end = '0' + u % 10;
		u /= 10;
	} while (u);
	if (v < 0)
		*--end = '-';
	return end;
}

/* "NAME(PID) open FILE\n" into @d (REF_LINE bytes); returns its length */
static size_t ref_format(char *d, const char __user *filename)
{
	char num[24], *p = ref_decimal(num + sizeof(num), task_tgid_nr(current));
	size_t n = strnlen(current->comm, TASK_COMM_LEN);
	long len;

	memcpy(d, current->comm, n);
	d[n++] = '(';
	memcpy(d + n, p, num + sizeof(num) - p);
	n += num + sizeof(num) - p;
	memcpy(d + n, ") open ", 7);
	n += 7;
	/* as ktap's uaccess.h: strncpy_from_user_nofault() is not exported */
	pagefault_disable();
	len = strncpy_from_user(d + n, filename, REF_LINE - n - 1);
	pagefault_enable();
	if (len > 0)
		n += min_t(long, len, REF_LINE - n - 2);
	d[n++] = '\n';
	return n;
}

static void notrace ref_hit(unsigned long ip, unsigned long parent_ip,
			    struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	int bit = ftrace_test_recursion_trylock(ip, parent_ip);
	const struct pt_regs *uregs;
	struct ref_cpu *rc;
	size_t n;
	void *p;

	if (bit < 0)
		return;
	/* __x64_sys_openat(regs): the user's registers; si is the file name */
	uregs = (const struct pt_regs *)ref_fregs_pt_regs(fregs)->di;
	rc = this_cpu_ptr(&ref_cpus);
	n = ref_format(rc->line, (const char __user *)uregs->si);
	p = relay_reserve(ref_chan, n);
	if (p) {
		memcpy(p, rc->line, n);
		rc->lines++;
	} else {
		rc->dropped++;
	}
	ftrace_test_recursion_unlock(bit);
}

static struct ftrace_ops ref_ops = {
	.func = ref_hit,	/* no FTRACE_OPS_FL_SAVE_REGS: as ktap's */
};

static struct dentry *ref_create_buf(const char *name, struct dentry *parent,
				     umode_t mode, struct rchan_buf *buf,
				     int *is_global)
{
	return debugfs_create_file(name, mode, parent, buf, &relay_file_operations);
}

static int ref_remove_buf(struct dentry *d)
{
	debugfs_remove(d);
	return 0;
}

static const struct rchan_callbacks ref_relay_cb = {
	.create_buf_file = ref_create_buf,
	.remove_buf_file = ref_remove_buf,
};

static int __init ref_init(void)
{
	static char name[] = "__x64_sys_openat";
	int ret;

	ref_dir = debugfs_create_dir("ref_flood", NULL);
	ref_chan = relay_open("cpu", ref_dir, REF_SUBBUF, REF_NSUBBUFS,
			      &ref_relay_cb, NULL);
	if (!ref_chan) {
		debugfs_remove(ref_dir);
		return -ENOMEM;
	}
	ret = ftrace_set_filter(&ref_ops, name, strlen(name), 0);
	if (!ret)
		ret = register_ftrace_function(&ref_ops);
	if (ret) {
		ftrace_free_filter(&ref_ops);
		relay_close(ref_chan);
		debugfs_remove(ref_dir);
	}
	return ret;
}

static void __exit ref_exit(void)
{
	u64 lines = 0, dropped = 0;
	int cpu;

	unregister_ftrace_function(&ref_ops);
	ftrace_free_filter(&ref_ops);
	relay_close(ref_chan);
	debugfs_remove(ref_dir);
	for_each_possible_cpu(cpu) {
		lines += per_cpu_ptr(&ref_cpus, cpu)->lines;
		dropped += per_cpu_ptr(&ref_cpus, cpu)->dropped;
	}
	pr_info("ref_flood: %llu lines, %llu dropped\n", lines, dropped);
}

module_init(ref_init);
module_exit(ref_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("bench/overhead: case 2 by hand (openat's entry, a relay line per call)");
