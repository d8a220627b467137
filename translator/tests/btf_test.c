/* btf_test.c - btf.c against the real kernel image of the ktap guest.
 *
 * Checks facts about Debian's 6.1.0-57-amd64 that any correct reading of
 * its BTF must give (vfs_read's parameters and registers, task_struct's
 * pid and comm, sk_buff's bitfields, do_mmap's stack parameters), compares
 * with the DWARF when libdw.c is linked in, and prints timings.
 *
 * usage: btf_test [VM_DIR]   (default: the cache's vm/6.1.0-57-amd64)
 * BTF_TEST_GLOB=GLOB also compares those functions' parameters with DWARF.
 * Exits 1 if any check fails.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../debuginfo.h"
#include "../ktap.h"
#include "../target.h"

/* the provisioned guest kernel's ABI: vm/current points at it */
static const char *release_name(void)
{
	char *current = realpath(xasprintf("%s/vm/current", ktap_cache_dir()), NULL);

	return current && strrchr(current, '/') ? strrchr(current, '/') + 1 : "unknown";
}
#define RELEASE release_name()

static int failures;

#define CHECK(cond, ...) check((cond), #cond, __VA_ARGS__)

static void check(bool ok, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void check(bool ok, const char *what, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		return;
	failures++;
	printf("FAIL: %s: ", what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/*
 * libdw.c owns ctype_members(); until it is linked in, this copy does the
 * same (a weak symbol: the real one wins when present). The DWARF side of
 * the comparison is weak too, and skipped when absent.
 */
__attribute__((weak)) int ctype_members(struct ctype *t,
					 struct ctype_member **members)
{
	if (t->kind != CT_STRUCT && t->kind != CT_UNION) {
		*members = NULL;
		return 0;
	}
	if (!t->members_loaded && t->load_members)
		t->load_members(t);
	t->members_loaded = true;
	*members = t->members;
	return t->nmembers;
}

extern struct dw *dw_open(const char *, const char *, char **)
	__attribute__((weak));
extern struct ctype *dw_type_named(struct dw *, const char *)
	__attribute__((weak));
extern int dw_functions(struct dw *, const char *, const char *, bool, bool,
			struct kfunc **) __attribute__((weak));
extern int dw_variables(struct dw *, const struct kfunc *, uint64_t,
			struct cvar **) __attribute__((weak));

static const struct ctype_member *member(struct ctype *t, const char *name)
{
	struct ctype_member *m;
	int i, n = ctype_members(t, &m);

	for (i = 0; i < n; i++)
		if (m[i].name && strcmp(m[i].name, name) == 0)
			return &m[i];
	return NULL;
}

static const char *str(const char *s)
{
	return s ? s : "(null)";
}

/* ---- functions and parameters ---- */

static void check_param(const struct cvar *v, const char *name,
			const char *type, int reg)
{
	char want[32];

	snprintf(want, sizeof(want), "ktap_reg(c, %d)", reg);
	CHECK(v->name && !strcmp(v->name, name), "param %s: name %s", name, str(v->name));
	CHECK(!strcmp(v->type->name, type), "param %s: type '%s', want '%s'",
	      name, v->type->name, type);
	CHECK(v->value_c && !strcmp(v->value_c, want), "param %s: value_c %s, want %s",
	      name, str(v->value_c), want);
	CHECK(v->is_param && !v->unavailable && !v->addr_c, "param %s: unavailable %s",
	      name, str(v->unavailable));
}

static void check_vfs_read_types(const struct cvar *p, const struct kfunc *f)
{
	CHECK(p[0].type->kind == CT_POINTER && p[0].type->target &&
	      p[0].type->target->kind == CT_STRUCT &&
	      !strcmp(p[0].type->target->name, "struct file") &&
	      p[0].type->target->size > 0, "file: a pointer to a complete struct file");
	CHECK(p[1].type->target && p[1].type->target->is_char, "buf points to char");
	CHECK(p[2].type->kind == CT_INT && p[2].type->size == 8 &&
	      !p[2].type->is_signed, "size_t: 8-byte unsigned int");
	CHECK(p[3].type->target && p[3].type->target->kind == CT_INT &&
	      p[3].type->target->is_signed && !strcmp(p[3].type->target->name, "loff_t"),
	      "pos: a pointer to signed loff_t");
	CHECK(f->return_type && !strcmp(f->return_type->name, "ssize_t") &&
	      f->return_type->is_signed, "vfs_read returns ssize_t, got %s",
	      f->return_type ? f->return_type->name : "void");
}

static void check_vfs_read(struct btf_kernel *b)
{
	struct kfunc *f;
	struct cvar *p;
	double t0 = now_seconds();
	int n = btfk_functions(b, "vfs_read", &f), np = 0;

	if (n == 1)
		np = btfk_parameters(b, &f[0], &p);
	printf("vfs_read lookup + parameters: %.1f ms\n", (now_seconds() - t0) * 1e3);
	CHECK(n == 1, "vfs_read found %d times", n);
	if (n != 1)
		return;
	CHECK(!strcmp(f->symbol, "vfs_read") && f->offset == 0 && !f->inlined,
	      "symbol %s+%llu", f->symbol, (unsigned long long)f->offset);
	CHECK(f->addr >= 0xffffffff81000000ULL, "System.map address %#llx",
	      (unsigned long long)f->addr);
	CHECK(!f->exported, "vfs_read is not EXPORT_SYMBOL'd in 6.1");
	CHECK(np == 4, "vfs_read has %d parameters", np);
	if (np != 4)
		return;
	check_param(&p[0], "file", "struct file*", 5);
	check_param(&p[1], "buf", "char*", 4);
	check_param(&p[2], "count", "size_t", 1);
	check_param(&p[3], "pos", "loff_t*", 2);
	check_vfs_read_types(p, f);
}

static struct cvar *parameters_of(struct btf_kernel *b, const char *name, int *n)
{
	struct kfunc *f;
	struct cvar *p = NULL;

	*n = 0;
	if (btfk_functions(b, name, &f) == 1)
		*n = btfk_parameters(b, f, &p);
	return p;
}

/* do_mmap(file, addr, len, prot, flags, pgoff, populate, uf): 8 params */
static void check_stack_parameters(struct btf_kernel *b)
{
	int i, n;
	struct cvar *p = parameters_of(b, "do_mmap", &n);

	CHECK(n == 8, "do_mmap has %d parameters", n);
	if (n != 8)
		return;
	for (i = 0; i < 6; i++)
		CHECK(p[i].value_c != NULL, "do_mmap param %d (%s) in a register",
		      i + 1, p[i].name);
	CHECK(!strcmp(p[5].value_c ? p[5].value_c : "", "ktap_reg(c, 9)"),
	      "6th parameter in r9");
	CHECK(!strcmp(p[6].name, "populate") && !p[6].value_c && p[6].unavailable,
	      "7th parameter (%s) unavailable: %s", p[6].name, str(p[6].unavailable));
	CHECK(!p[7].value_c && p[7].unavailable, "8th parameter unavailable");
	printf("do_mmap $%s: %s\n", p[6].name, str(p[6].unavailable));
}

/* set_pte_vaddr(unsigned long vaddr, pte_t pteval): pte_t is a struct */
static void check_struct_by_value(struct btf_kernel *b)
{
	int n;
	struct cvar *p = parameters_of(b, "set_pte_vaddr", &n);

	CHECK(n == 2, "set_pte_vaddr has %d parameters", n);
	if (n != 2)
		return;
	CHECK(p[0].value_c && !strcmp(p[0].value_c, "ktap_reg(c, 5)"), "vaddr in rdi");
	CHECK(!strcmp(p[1].type->name, "pte_t") && p[1].type->kind == CT_STRUCT &&
	      !p[1].value_c && p[1].unavailable, "pteval (a pte_t) unavailable");
}

/* __copy_xstate_to_uabi_buf(struct membuf to, struct fpstate *fpstate,
 * u64 xfeatures, u32 pkru_val, enum xstate_copy_mode copy_mode): the
 * 16-byte struct takes rdi and rsi, so the rest move along by two */
static void check_two_register_struct(struct btf_kernel *b)
{
	static const int regs[] = { 1, 2, 8, 9 };
	int i, n;
	struct cvar *p = parameters_of(b, "__copy_xstate_to_uabi_buf", &n);

	CHECK(n == 5, "__copy_xstate_to_uabi_buf has %d parameters", n);
	if (n != 5)
		return;
	CHECK(p[0].type->size == 16 && !p[0].value_c && p[0].unavailable,
	      "a 16-byte struct by value is unavailable");
	for (i = 1; i < 5; i++) {
		char want[32];

		snprintf(want, sizeof(want), "ktap_reg(c, %d)", regs[i - 1]);
		CHECK(p[i].value_c && !strcmp(p[i].value_c, want),
		      "__copy_xstate_to_uabi_buf $%s in %s, want %s", p[i].name,
		      str(p[i].value_c), want);
	}
}

/* struct open_how build_open_how(int flags, umode_t mode): the 24-byte
 * result goes through memory whose address the caller passes in rdi */
static void check_struct_return(struct btf_kernel *b)
{
	int n;
	struct cvar *p = parameters_of(b, "build_open_how", &n);

	CHECK(n == 2 && p[0].value_c && !strcmp(p[0].value_c, "ktap_reg(c, 4)") &&
	      p[1].value_c && !strcmp(p[1].value_c, "ktap_reg(c, 1)"),
	      "build_open_how's parameters in rsi and rdx, got %s and %s",
	      n == 2 ? str(p[0].value_c) : "?", n == 2 ? str(p[1].value_c) : "?");
}

static void check_glob(struct btf_kernel *b)
{
	struct kfunc *f;
	int i, n = btfk_functions(b, "vfs_*", &f);
	bool sorted = true, has_read = false, has_write = false;

	for (i = 0; i < n; i++) {
		sorted &= i == 0 || strcmp(f[i - 1].name, f[i].name) < 0;
		has_read |= !strcmp(f[i].name, "vfs_read");
		has_write |= !strcmp(f[i].name, "vfs_write");
	}
	CHECK(n > 20 && sorted && has_read && has_write,
	      "vfs_*: %d functions, sorted %d", n, sorted);
	CHECK(btfk_functions(b, "no_such_function_here", &f) == 0, "unknown name");
	CHECK(btfk_functions(b, "kernel_read", &f) == 1 && f->exported,
	      "kernel_read is EXPORT_SYMBOL'd");
}

/* ---- types ---- */

/* task_struct: unsigned sched_reset_on_fork:1 lies in an aligned
 * 4-byte storage unit, which is its offset */
static void check_wide_bitfield(struct ctype *task)
{
	const struct ctype_member *m = member(task, "sched_reset_on_fork");

	CHECK(m && m->bit_size == 1 && m->type->size == 4 && m->offset % 4 == 0 &&
	      (uint64_t)m->bit_offset >= m->offset * 8 &&
	      (uint64_t)m->bit_offset < m->offset * 8 + 32,
	      "sched_reset_on_fork:1 in its unsigned int at %llu, bit %d",
	      m ? (unsigned long long)m->offset : 0ULL, m ? m->bit_offset : -1);
}

static void check_task_struct(struct btf_kernel *b, uint64_t *pid_offset)
{
	struct ctype *t = btfk_type_named(b, "task_struct");
	const struct ctype_member *pid, *tgid, *comm;

	*pid_offset = 0;
	CHECK(t && t == btfk_type_named(b, "struct task_struct"),
	      "task_struct by both spellings");
	if (!t)
		return;
	CHECK(t->kind == CT_STRUCT && t->size > 1000, "task_struct size %llu",
	      (unsigned long long)t->size);
	pid = member(t, "pid");
	tgid = member(t, "tgid");
	comm = member(t, "comm");
	CHECK(pid && tgid && comm, "pid, tgid, comm members");
	if (!pid || !tgid || !comm)
		return;
	CHECK(!strcmp(pid->type->name, "pid_t") && pid->type->kind == CT_INT &&
	      pid->type->size == 4 && pid->type->is_signed, "pid is pid_t");
	CHECK(pid->offset > 0 && tgid->offset == pid->offset + 4 && !pid->bit_size,
	      "pid at %llu, tgid at %llu", (unsigned long long)pid->offset,
	      (unsigned long long)tgid->offset);
	CHECK(comm->type->kind == CT_ARRAY && comm->type->nelems == 16 &&
	      comm->type->size == 16 && comm->type->target->is_char &&
	      !strcmp(comm->type->name, "char[16]"), "comm is char[16], got %s",
	      comm->type->name);
	*pid_offset = pid->offset;
	check_wide_bitfield(t);
}

/* sk_buff: __u8 __cloned_offset[0]; __u8 cloned:1, nohdr:1, fclone:2, ... */
static void check_bitfields(struct btf_kernel *b)
{
	struct ctype *t = btfk_type_named(b, "struct sk_buff");
	const struct ctype_member *mark, *cloned, *nohdr, *fclone;

	if (!t) {
		CHECK(false, "struct sk_buff missing");
		return;
	}
	mark = member(t, "__cloned_offset");
	cloned = member(t, "cloned");
	nohdr = member(t, "nohdr");
	fclone = member(t, "fclone");
	CHECK(mark && cloned && nohdr && fclone, "sk_buff bitfield members");
	if (!mark || !cloned || !nohdr || !fclone)
		return;
	CHECK(cloned->bit_size == 1 && cloned->bit_offset == (int)mark->offset * 8,
	      "cloned:1 at bit %d, marker at byte %llu", cloned->bit_offset,
	      (unsigned long long)mark->offset);
	CHECK(nohdr->bit_size == 1 && nohdr->bit_offset == cloned->bit_offset + 1,
	      "nohdr:1 right after cloned");
	CHECK(fclone->bit_size == 2 && fclone->bit_offset == cloned->bit_offset + 2 &&
	      fclone->offset == mark->offset, "fclone:2 at bit %d", fclone->bit_offset);
}

static void check_enum_and_typedef(struct btf_kernel *b)
{
	struct ctype *e = btfk_type_named(b, "enum pid_type");
	struct ctype *s = btfk_type_named(b, "size_t");
	int i;
	bool ok = e && e->kind == CT_ENUM && e->nenumerators == 5;

	for (i = 0; ok && i < e->nenumerators; i++)
		ok = e->enumerators[i].value == i;
	CHECK(ok && !strcmp(e->enumerators[4].name, "PIDTYPE_MAX"),
	      "enum pid_type: PIDTYPE_PID .. PIDTYPE_MAX = 0 .. 4");
	CHECK(s && s->kind == CT_INT && s->size == 8 && !strcmp(s->name, "size_t"),
	      "typedef size_t");
	CHECK(!btfk_type_named(b, "struct no_such_struct"), "unknown struct");
}

/* the BTF has intel_pinctrl_context.communities pointing to a forward
 * declaration of struct intel_community_context, and also its definition */
static void check_forward_declaration(struct btf_kernel *b)
{
	struct ctype *t = btfk_type_named(b, "struct intel_pinctrl_context");
	const struct ctype_member *m = t ? member(t, "communities") : NULL;
	struct ctype *target = m ? m->type->target : NULL;

	CHECK(target && target->kind == CT_STRUCT && target->size > 0 &&
	      target == btfk_type_named(b, "struct intel_community_context"),
	      "a forward declaration resolves to the complete struct");
	CHECK(m && !strcmp(m->type->name, "struct intel_community_context*"),
	      "pointer to a forward-declared struct spelled %s",
	      m ? m->type->name : "?");
}

/* ssize_t vfs_write(struct file *, const char __user *, size_t, loff_t *) */
static void check_const_spelling(struct btf_kernel *b)
{
	int n;
	struct cvar *p = parameters_of(b, "vfs_write", &n);

	CHECK(n == 4 && !strcmp(p[1].type->name, "const char*") &&
	      p[1].type->target->is_char, "vfs_write's buf is const char*, got %s",
	      n == 4 ? p[1].type->name : "?");
}

/* an anonymous union inside struct page keeps a NULL name */
static void check_anonymous_members(struct btf_kernel *b)
{
	struct ctype *t = btfk_type_named(b, "struct page");
	struct ctype_member *m;
	int i, n = t ? ctype_members(t, &m) : 0, anonymous = 0;

	for (i = 0; i < n; i++)
		anonymous += !m[i].name && (m[i].type->kind == CT_UNION ||
					    m[i].type->kind == CT_STRUCT);
	CHECK(anonymous > 0, "struct page has an anonymous union");
}

/* every member's place, size and kind the same in BTF and DWARF; type
 * names too, except function pointers (DWARF spells them "func*") */
static void compare_members(struct btf_kernel *b, struct dw *dw, const char *name)
{
	struct ctype *bt = btfk_type_named(b, name), *dt = dw_type_named(dw, name);
	struct ctype_member *bm, *dm;
	int i, n = bt ? ctype_members(bt, &bm) : -1, same = 0;

	CHECK(bt && dt && ctype_members(dt, &dm) == n && bt->size == dt->size,
	      "%s: %d members in BTF, %d in DWARF", name, n,
	      dt ? ctype_members(dt, &dm) : -1);
	if (!bt || !dt || ctype_members(dt, &dm) != n)
		return;
	for (i = 0; i < n; i++) {
		bool names = !strcmp(str(bm[i].name), str(dm[i].name)) &&
			(strstr(bm[i].type->name, "(*)") ||
			 !strcmp(bm[i].type->name, dm[i].type->name));
		bool ok = names && bm[i].offset == dm[i].offset &&
			bm[i].bit_offset == dm[i].bit_offset &&
			bm[i].bit_size == dm[i].bit_size &&
			bm[i].type->kind == dm[i].type->kind &&
			bm[i].type->size == dm[i].type->size;

		CHECK(ok, "%s.%s: BTF %s at %llu (bit %d:%d), DWARF %s %s at %llu (bit %d:%d)",
		      name, str(bm[i].name), bm[i].type->name,
		      (unsigned long long)bm[i].offset, bm[i].bit_offset, bm[i].bit_size,
		      dm[i].type->name, str(dm[i].name), (unsigned long long)dm[i].offset,
		      dm[i].bit_offset, dm[i].bit_size);
		same += ok;
	}
	printf("%s: %d of %d members the same in BTF and DWARF\n", name, same, n);
}

/* one parameter: the same name and spelling, and where BTF has a
 * register, DWARF's location at the entry is that register */
static bool same_parameter(const struct cvar *bv, const struct cvar *dv)
{
	return !strcmp(bv->name, dv->name) && dv->is_param &&
		(strstr(bv->type->name, "(*)") || !strcmp(bv->type->name, dv->type->name)) &&
		(!bv->value_c || (dv->value_c && !strcmp(bv->value_c, dv->value_c)));
}

/* 1: all parameters agree; 0: not comparable; -1: they differ */
static int compare_function(struct btf_kernel *b, struct dw *dw,
			    const struct kfunc *bf)
{
	struct kfunc *df;
	struct cvar *bv, *dv;
	int i, nb, nd;

	if (dw_functions(dw, bf->name, NULL, true, false, &df) != 1 ||
	    df->addr != bf->addr)
		return 0;
	nb = btfk_parameters(b, bf, &bv);
	nd = dw_variables(dw, df, df->addr, &dv);
	for (i = 0; i < nb; i++) {
		if (i < nd && same_parameter(&bv[i], &dv[i]))
			continue;
		printf("FAIL: %s $%s: BTF %s %s, DWARF %s %s %s\n", bf->name, bv[i].name,
		       bv[i].type->name, str(bv[i].value_c),
		       i < nd ? dv[i].type->name : "-", i < nd ? dv[i].name : "-",
		       i < nd ? str(dv[i].value_c) : "-");
		return -1;
	}
	return 1;
}

/* the parameters of every function matching glob, BTF against DWARF */
static void compare_parameters(struct btf_kernel *b, struct dw *dw,
			       const char *glob)
{
	struct kfunc *f;
	int i, n = btfk_functions(b, glob, &f), same = 0, compared = 0;

	for (i = 0; i < n; i++) {
		int r = compare_function(b, dw, &f[i]);

		compared += r != 0;
		same += r > 0;
	}
	CHECK(compared > 0 && same == compared, "%s: %d of %d functions' parameters agree",
	      glob, same, compared);
	printf("%s: parameters of %d of %d functions agree with DWARF\n", glob, same,
	       compared);
}

static void compare_with_dwarf(struct btf_kernel *b, const char *vm_dir,
			       uint64_t btf_pid_offset)
{
	char *why = NULL, *path;
	struct dw *dw;
	struct ctype *t;
	const struct ctype_member *pid;

	if (!dw_open || !dw_type_named || !dw_functions || !dw_variables) {
		printf("DWARF comparison skipped: libdw.c not linked in\n");
		return;
	}
	path = xasprintf("%s/vmlinux", vm_dir);
	dw = dw_open(path, target_build_id_of(path), &why);
	if (!dw) {
		printf("DWARF comparison skipped: %s\n", why ? why : path);
		return;
	}
	compare_parameters(b, dw, "vfs_*");
	compare_parameters(b, dw, "tcp_*");
	if (getenv("BTF_TEST_GLOB"))	/* e.g. '*': every function (slow) */
		compare_parameters(b, dw, getenv("BTF_TEST_GLOB"));
	compare_members(b, dw, "struct task_struct");
	compare_members(b, dw, "struct sk_buff");
	compare_members(b, dw, "struct file");
	t = dw_type_named(dw, "task_struct");
	pid = t ? member(t, "pid") : NULL;
	CHECK(pid && pid->offset == btf_pid_offset,
	      "task_struct.pid: BTF %llu, DWARF %llu", (unsigned long long)btf_pid_offset,
	      pid ? (unsigned long long)pid->offset : 0ULL);
	printf("task_struct.pid at %llu in both BTF and DWARF\n",
	       (unsigned long long)btf_pid_offset);
}

static void check_open_errors(void)
{
	char *why = NULL;
	struct btf_kernel *b = btfk_open("/nonexistent-vm-dir/vmlinux-pvh", true, NULL, &why);

	CHECK(!b && why && strstr(why, "/nonexistent-vm-dir/vmlinux-pvh"),
	      "a missing image is an error naming it: %s", str(why));
}

int main(int argc, char **argv)
{
	const char *vm_dir = argc > 1 ? argv[1] :
		xasprintf("%s/vm/%s", ktap_cache_dir(), RELEASE);
	char *why = NULL;
	double t0 = now_seconds();
	struct btf_kernel *b = btfk_open(xasprintf("%s/vmlinux-pvh", vm_dir), true,
					 xasprintf("%s/System.map", vm_dir), &why);
	uint64_t pid_offset;

	printf("btfk_open: %.1f ms\n", (now_seconds() - t0) * 1e3);
	if (!b) {
		printf("FAIL: btfk_open: %s\n", str(why));
		return 1;
	}
	check_vfs_read(b);
	check_stack_parameters(b);
	check_struct_by_value(b);
	check_two_register_struct(b);
	check_struct_return(b);
	check_glob(b);
	check_task_struct(b, &pid_offset);
	check_bitfields(b);
	check_enum_and_typedef(b);
	check_anonymous_members(b);
	check_forward_declaration(b);
	check_const_spelling(b);
	check_open_errors();
	printf("peak RSS before DWARF: %ld KiB\n", peak_rss_kb());
	compare_with_dwarf(b, vm_dir, pid_offset);
	printf("%s: %d failed checks\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}
