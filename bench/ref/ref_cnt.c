// SPDX-License-Identifier: GPL-2.0
/*
 * ref_cnt - bench/overhead's floor for case 1, written by hand: what
 *
 *	global c; probe kprobe.function("vfs_read") { c[execname()] <<< 1 }
 *
 * costs with nothing but the work itself. vfs_read is hooked the way
 * ktap's runtime/ftrace.h hooks a function entry (an ftrace_ops of its
 * own, with the registers, behind ftrace's recursion guard), and each hit
 * adds one to its CPU's count for the task's name: a small open-addressed
 * table per CPU, merged at unload, where the counts of "readalt" are
 * printed to the kernel log. No translator, no ktap runtime: the
 * difference between this and ktap's module is what ktap adds.
 */
#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/string.h>

#define REF_SLOTS 64	/* task names per CPU; more are not counted */

struct ref_slot {
	char comm[TASK_COMM_LEN];
	u64 count;
};

struct ref_table {
	struct ref_slot slot[REF_SLOTS];
	u64 lost;
};

static DEFINE_PER_CPU(struct ref_table, ref_tables);

/* FNV-1a over the name's bytes */
static __always_inline u32 ref_hash(const char *s)
{
	u32 h = 2166136261u;
	int i;

	for (i = 0; i < TASK_COMM_LEN && s[i]; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/* one hit: this CPU's count of the current task's name, plus one */
static __always_inline void ref_count(struct ref_table *t, const char *comm)
{
	u32 h = ref_hash(comm);
	int i;

	for (i = 0; i < REF_SLOTS; i++) {
		struct ref_slot *s = &t->slot[(h + i) % REF_SLOTS];

		if (!s->comm[0])
			memcpy(s->comm, comm, TASK_COMM_LEN);
		if (!memcmp(s->comm, comm, TASK_COMM_LEN)) {
			s->count++;
			return;
		}
	}
	t->lost++;
}

static void notrace ref_hit(unsigned long ip, unsigned long parent_ip,
			    struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	int bit = ftrace_test_recursion_trylock(ip, parent_ip);

	if (bit < 0)
		return;
	ref_count(this_cpu_ptr(&ref_tables), current->comm);
	ftrace_test_recursion_unlock(bit);
}

static struct ftrace_ops ref_ops = {
	.func = ref_hit,
	.flags = FTRACE_OPS_FL_SAVE_REGS,	/* as ktap's: a kprobe's registers */
};

static int __init ref_init(void)
{
	static char name[] = "vfs_read";
	int ret = ftrace_set_filter(&ref_ops, name, strlen(name), 0);

	if (!ret)
		ret = register_ftrace_function(&ref_ops);
	if (ret)
		ftrace_free_filter(&ref_ops);
	return ret;
}

static void __exit ref_exit(void)
{
	u64 n = 0, lost = 0;
	int cpu, i;

	unregister_ftrace_function(&ref_ops);
	ftrace_free_filter(&ref_ops);
	for_each_possible_cpu(cpu) {
		struct ref_table *t = per_cpu_ptr(&ref_tables, cpu);

		for (i = 0; i < REF_SLOTS; i++)
			if (!strcmp(t->slot[i].comm, "readalt"))
				n += t->slot[i].count;
		lost += t->lost;
	}
	pr_info("ref_cnt: readalt %llu, not counted %llu\n", n, lost);
}

module_init(ref_init);
module_exit(ref_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("bench/overhead: case 1 by hand (vfs_read, a count per task name)");
