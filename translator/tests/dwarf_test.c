/* dwarf_test.c - translator/libdw.c over the real kernel DWARF: the
 * guest kernel's vmlinux in the ktap cache (vm/6.1.0-57-amd64), checked
 * against facts about that build and against its System.map.
 *
 * usage: dwarf_test [VM_DIR [RELEASE]]
 *        dwarf_test --dump VM_DIR FUNCTION_GLOB   (functions and variables)
 * Prints one line per failed check, the timings, and a summary; exit
 * status 1 on a failure, 77 when there is no vmlinux to test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../ktap.h"
#include "../debuginfo.h"
#include "../target.h"

static int passed, failed;

static void check(bool ok, const char *what)
{
	if (ok)
		passed++;
	else {
		failed++;
		printf("FAIL: %s\n", what);
	}
}

static const char *or_null(const char *s)
{
	return s ? s : "(null)";
}

/* the address of a symbol in System.map, 0 if absent */
static uint64_t system_map_addr(const char *vm_dir, const char *name)
{
	FILE *f = fopen(xasprintf("%s/System.map", vm_dir), "r");
	char line[512], sym[256], type;
	unsigned long long addr;
	uint64_t found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) == 3 &&
		    strcmp(sym, name) == 0)
			found = addr;
	fclose(f);
	return found;
}

static const struct ctype_member *find_member(struct ctype *t, const char *name)
{
	struct ctype_member *m;
	int n = ctype_members(t, &m), i;

	for (i = 0; i < n; i++)
		if (m[i].name && strcmp(m[i].name, name) == 0)
			return &m[i];
	return NULL;
}

static void print_var(const struct cvar *v)
{
	printf("    $%s:%s%s\n", v->name, v->type ? or_null(v->type->name) : "void",
	       v->is_param ? " (param)" : "");
	if (v->value_c)
		printf("      value: %s\n", v->value_c);
	if (v->addr_c)
		printf("      addr:  %s\n", v->addr_c);
	if (v->unavailable)
		printf("      unavailable: %s\n", v->unavailable);
}

static int dump(struct dw *dw, const char *glob)
{
	struct kfunc *f;
	int n = dw_functions(dw, glob, NULL, true, true, &f), i, j;

	for (i = 0; i < n; i++) {
		struct cvar *v;
		int nv = dw_variables(dw, &f[i], f[i].addr, &v);

		printf("%s@%s:%d %#llx %s+%llu%s%s\n", f[i].name, or_null(f[i].decl_file),
		       f[i].decl_line, (unsigned long long)f[i].addr, or_null(f[i].symbol),
		       (unsigned long long)f[i].offset, f[i].inlined ? " inlined" : "",
		       f[i].exported ? " exported" : "");
		for (j = 0; j < nv; j++)
			print_var(&v[j]);
	}
	return 0;
}

static void check_vfs_read(struct dw *dw)
{
	static const char *const names[] = { "file", "buf", "count", "pos" };
	static const char *const types[] = { "struct file*", "char*", "size_t", "loff_t*" };
	static const char *const regs[] = { "ktap_reg(c, 5)", "ktap_reg(c, 4)",
					    "ktap_reg(c, 1)", "ktap_reg(c, 2)" };
	struct kfunc *f;
	struct cvar *v;
	int n = dw_functions(dw, "vfs_read", NULL, true, false, &f), nv, i;
	uint64_t *addrs;
	int *lines;

	check(n == 1, "vfs_read: one out-of-line instance");
	if (n != 1)
		return;
	check(!f->inlined && f->symbol && strcmp(f->symbol, "vfs_read") == 0 &&
	      f->offset == 0, "vfs_read: symbol vfs_read+0");
	check(f->decl_file && strcmp(f->decl_file, "fs/read_write.c") == 0,
	      "vfs_read: declared in fs/read_write.c");
	f->return_type = dw_return_type(dw, f);
	check(f->return_type && strcmp(or_null(f->return_type->name), "ssize_t") == 0 &&
	      f->return_type->size == 8 && f->return_type->is_signed,
	      "vfs_read: returns ssize_t, 8 signed bytes");
	nv = dw_variables(dw, f, f->addr, &v);
	check(nv >= 4, "vfs_read: at least 4 variables");
	for (i = 0; i < 4 && i < nv; i++) {
		char *what = xasprintf("vfs_read: parameter %d is %s %s in %s, got %s %s %s",
				       i, types[i], names[i], regs[i], v[i].name,
				       v[i].type ? or_null(v[i].type->name) : "void",
				       or_null(v[i].value_c));

		check(v[i].is_param && strcmp(v[i].name, names[i]) == 0 && v[i].type &&
		      v[i].type->name && strcmp(v[i].type->name, types[i]) == 0 &&
		      v[i].value_c && strcmp(v[i].value_c, regs[i]) == 0, what);
	}
	check(nv >= 4 && v[0].type && v[0].type->kind == CT_POINTER && v[0].type->target &&
	      v[0].type->target->kind == CT_STRUCT && find_member(v[0].type->target, "f_pos"),
	      "vfs_read: $file->f_pos exists");
	check(nv >= 2 && v[1].type && v[1].type->target && v[1].type->target->is_char,
	      "vfs_read: $buf points to char");
	n = dw_statements(dw, f, NULL, f->decl_line, f->decl_line + 40, &addrs, &lines);
	check(n > 3, "vfs_read: statements in its first 40 lines");
	for (i = 0; i < n; i++)
		if (addrs[i] < f->addr || addrs[i] > f->addr + 4096 ||
		    lines[i] < f->decl_line || (i && lines[i] <= lines[i - 1]))
			break;
	check(n > 0 && i == n, "vfs_read: statement addresses inside it, lines ascending");
}

static void check_types(struct dw *dw)
{
	struct ctype *t = dw_type_named(dw, "task_struct");
	struct ctype *ts = dw_type_named(dw, "struct task_struct");
	const struct ctype_member *pid, *tgid, *comm;
	struct ctype *pid_t_ = dw_type_named(dw, "pid_t");
	struct ctype *e = dw_type_named(dw, "enum pid_type");

	check(t && t == ts && t->kind == CT_STRUCT && t->size > 1000,
	      "task_struct: a struct of more than 1000 bytes, same by both names");
	if (!t)
		return;
	pid = find_member(t, "pid");
	tgid = find_member(t, "tgid");
	comm = find_member(t, "comm");
	check(pid && pid->type && strcmp(or_null(pid->type->name), "pid_t") == 0 &&
	      pid->type->size == 4 && pid->type->is_signed && pid->type->kind == CT_INT,
	      "task_struct.pid: pid_t, 4 signed bytes");
	check(pid && tgid && tgid->offset == pid->offset + 4, "task_struct: tgid 4 bytes after pid");
	check(comm && comm->type && comm->type->kind == CT_ARRAY && comm->type->nelems == 16 &&
	      comm->type->target && comm->type->target->is_char,
	      "task_struct.comm: char[16]");
	check(pid_t_ && pid_t_->kind == CT_INT && pid_t_->size == 4, "pid_t: a 4-byte int");
	check(e && e->kind == CT_ENUM && e->nenumerators > 2 &&
	      strcmp(e->enumerators[0].name, "PIDTYPE_PID") == 0 && e->enumerators[0].value == 0,
	      "enum pid_type: PIDTYPE_PID = 0 first");
	check(!dw_type_named(dw, "struct no_such_struct_xyz"), "an unknown struct is NULL");
}

static void check_bitfield(struct dw *dw)
{
	struct ctype *t = dw_type_named(dw, "struct sk_buff");
	struct ctype_member *m;
	int n = t ? ctype_members(t, &m) : 0, i, bitfields = 0, anon = 0;
	const struct ctype_member *cloned = NULL;

	for (i = 0; i < n; i++) {
		bitfields += m[i].bit_size != 0;
		anon += m[i].name == NULL;
	}
	check(anon > 0, "sk_buff: anonymous members kept with name NULL");
	/* `cloned:1`, a direct member in 6.1 (in an anonymous struct later) */
	cloned = t ? find_member(t, "cloned") : NULL;
	for (i = 0; i < n && !cloned; i++)
		if (!m[i].name && m[i].type) {
			struct ctype_member *mm;
			int nn = ctype_members(m[i].type, &mm), j;

			for (j = 0; j < nn; j++)
				if (mm[j].name && strcmp(mm[j].name, "cloned") == 0)
					cloned = &mm[j];
		}
	check(cloned && cloned->bit_size == 1 && cloned->bit_offset / 8 >= (int)cloned->offset &&
	      cloned->bit_offset < (int)(cloned->offset + cloned->type->size) * 8,
	      "sk_buff.cloned: a 1-bit field inside the unit at its offset");
	check(bitfields >= 4, xasprintf("sk_buff: at least 4 direct bitfields, got %d", bitfields));
}

static void check_global(struct dw *dw, const char *vm_dir)
{
	struct cvar v;
	uint64_t want = system_map_addr(vm_dir, "jiffies");
	char *addr;

	check(dw_global(dw, "jiffies", &v), "jiffies: a global");
	addr = xasprintf("0x%llxUL", (unsigned long long)want);
	check(want && v.addr_c && strcmp(v.addr_c, addr) == 0,
	      xasprintf("jiffies: addr_c %s is System.map's %s", or_null(v.addr_c), addr));
	check(v.value_c && strstr(v.value_c, "ktap_kread"), "jiffies: value read from memory");
	check(dw_global(dw, "runqueues", &v) && v.unavailable && !v.addr_c,
	      "runqueues: per-CPU, unavailable");
	check(!dw_global(dw, "no_such_global_xyz", &v), "an unknown global is absent");
}

static const struct ktracepoint *one_tracepoint(struct dw *dw, const char *name)
{
	struct ktracepoint *tp;
	int n = dw_tracepoints(dw, NULL, name, &tp);

	return n == 1 ? tp : NULL;
}

static void check_tracepoints(struct dw *dw)
{
	static const char *const args[] = { "preempt", "prev", "next", "prev_state" };
	const struct ktracepoint *tp = one_tracepoint(dw, "sched_switch");
	struct ktracepoint *all;
	int i, n;

	check(tp && strcmp(tp->system, "sched") == 0, "sched_switch: system sched");
	check(tp && tp->nargs == 4, "sched_switch: 4 arguments");
	for (i = 0; tp && i < tp->nargs && i < 4; i++)
		check(strcmp(tp->args[i].name, args[i]) == 0 &&
		      strcmp(tp->args[i].value_c, xasprintf("c->tp_args[%d]", i)) == 0,
		      xasprintf("sched_switch: argument %d is %s", i, args[i]));
	tp = one_tracepoint(dw, "block_rq_issue");
	check(tp && strcmp(tp->system, "block") == 0, "block_rq_issue: system block");
	tp = one_tracepoint(dw, "sys_enter");
	check(tp && strcmp(tp->system, "raw_syscalls") == 0,
	      xasprintf("sys_enter: system raw_syscalls, got %s", tp ? tp->system : "none"));
	n = dw_tracepoints(dw, "sched", "*", &all);
	check(n > 10, "sched:*: more than 10 tracepoints");
	for (i = 0; i < n; i++)
		if (strcmp(all[i].system, "sched") != 0)
			break;
	check(i == n, "sched:*: all in system sched");
}

static void check_functions(struct dw *dw)
{
	struct kfunc *f;
	int n = dw_functions(dw, "vfs_*", NULL, true, true, &f), i;

	check(n > 10, "vfs_*: more than 10");
	for (i = 1; i < n; i++)
		if (strcmp(f[i - 1].name, f[i].name) > 0)
			break;
	check(n > 0 && i == n, "vfs_*: sorted by name");
	n = dw_functions(dw, "*", "fs/read_write.c", true, false, &f);
	check(n > 20, "fs/read_write.c: more than 20 functions");
	n = dw_functions(dw, "vfs_read", "*read_write.c", true, false, &f);
	check(n == 1, "vfs_read@*read_write.c: found by a file glob");
	n = dw_functions(dw, "vfs_read", "*namei.c", true, false, &f);
	check(n == 0, "vfs_read@*namei.c: not found");
	n = dw_functions(dw, "kmalloc", NULL, false, true, &f);
	check(n > 100 && f[0].inlined && f[0].symbol && f[0].offset > 0,
	      "kmalloc: inlined many times, symbol+offset of the caller");
	n = dw_functions(dw, "vfs_create", NULL, true, false, &f);
	check(n == 1 && f[0].exported, "vfs_create: exported");
	n = dw_functions(dw, "vfs_read", NULL, true, false, &f);
	check(n == 1 && !f[0].exported, "vfs_read: not exported (since 5.10)");
	n = dw_functions(dw, "ksys_read", NULL, true, false, &f);
	check(n == 1 && !f[0].exported, "ksys_read: not exported");
}

/* the target finds the DWARF by release and build-id (target/kernel.c) */
static void check_target(const char *release)
{
	struct options opt = { .release = release };
	struct target *k;
	char *why = NULL;

	target_select(&opt);
	k = target_kernel();
	k->build_id = "00deadbeef";
	check(!target_dwarf(k, &why) && why && strstr(why, "build-id"),
	      "a wrong build-id is refused");
	opt.release = "0.0.0-none";
	target_select(&opt);
	check(!target_dwarf(target_kernel(), &why) && why &&
	      strstr(why, "linux-image-0.0.0-none-dbg"), "no debuginfo: names the package");
}

/* the debug vmlinux of a guest cache directory, as the target opens it */
static struct dw *open_vmlinux(const char *vm_dir, char **why)
{
	char *path = xasprintf("%s/vmlinux", vm_dir);

	*why = path;
	return dw_open(path, target_build_id_of(path), why);
}

int main(int argc, char **argv)
{
	/* default: the provisioned guest kernel (vm/current -> its ABI) */
	char *current = realpath(xasprintf("%s/vm/current", ktap_cache_dir()), NULL);
	const char *vm_dir = argc > 1 && strcmp(argv[1], "--dump") != 0 ? argv[1]
		: current ? current : "(no provisioned guest kernel)";
	const char *release = argc > 2 && strcmp(argv[1], "--dump") != 0 ? argv[2]
		: strrchr(vm_dir, '/') ? strrchr(vm_dir, '/') + 1 : vm_dir;
	char *why = NULL;
	struct dw *dw;
	double t0;
	struct kfunc *all;
	int n;

	if (argc == 4 && strcmp(argv[1], "--dump") == 0) {
		dw = open_vmlinux(argv[2], &why);
		if (!dw) {
			fprintf(stderr, "%s\n", why);
			return 1;
		}
		return dump(dw, argv[3]);
	}
	if (access(xasprintf("%s/vmlinux", vm_dir), R_OK) != 0) {
		printf("dwarf_test: no %s/vmlinux (run ./ktap --vm-setup)\n", vm_dir);
		return 77;
	}
	t0 = now_seconds();
	dw = open_vmlinux(vm_dir, &why);
	if (!dw) {
		printf("FAIL: dw_open: %s\n", why);
		return 1;
	}
	printf("dw_open (index built if missing): %.2f s\n", now_seconds() - t0);
	t0 = now_seconds();
	dw = open_vmlinux(vm_dir, &why);	/* warm: the index exists */
	check(dw != NULL, "dw_open again");
	if (!dw)
		return 1;
	check_vfs_read(dw);
	printf("warm dw_open + vfs_read lookup + variables + lines: %.3f s\n",
	       now_seconds() - t0);
	check_types(dw);
	check_bitfield(dw);
	check_global(dw, vm_dir);
	check_tracepoints(dw);
	check_functions(dw);
	t0 = now_seconds();
	n = dw_functions(dw, "*", NULL, true, true, &all);
	printf("dw_functions(\"*\"): %d instances in %.2f s\n", n, now_seconds() - t0);
	check(n > 200000, "*: more than 200000 instances");
	printf("peak RSS: %ld MB\n", peak_rss_kb() / 1024);
	check_target(release);
	printf("dwarf: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
