/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap runtime: user-space stacks (ubacktrace(), ucallers(), ustack(),
 * print_ubacktrace() and their kin).
 *
 * Programs built without frame pointers (Debian's default) are unwound
 * by their DWARF call frame information, which the translator turned
 * into rows per file (struct ktap_ucfi in usyms.h, from
 * translator/target/cfi.c): for the file of each frame, found by the
 * task's mapping of the address (its inode among the table's, the offset
 * vm_start - vm_pgoff gives), the row of the address says where the CFA
 * is (rsp or rbp plus a constant), where the return address and rbp were
 * saved. A frame in a file the module has no rows for (a library not
 * named with -d or --ldd), a stop row, a failed read or a stack that
 * does not grow ends the walk, as does KTAP_MAXBACKTRACE.
 *
 * Handlers do not sleep: the task's mmap lock is only tried (held
 * elsewhere, the stack is the probe's address alone), and the stack is
 * read with copy_from_user_nofault(), so a page that is not present ends
 * the walk rather than faulting it in.
 *
 * A user backtrace as a script value is hex addresses separated by
 * spaces, like the kernel's (stack.h): the probed address first, then
 * return addresses, innermost first.
 */
#ifndef _KTAP_USTACK_H
#define _KTAP_USTACK_H

#define KTAP_UREG_RBP 6
#define KTAP_UREG_RSP 7

static DEFINE_PER_CPU(unsigned long [KTAP_MAXBACKTRACE], ktap_ustack_buf);
static DEFINE_PER_CPU(char [MAXSTRINGLEN], ktap_upath_buf);
static DEFINE_PER_CPU(char [MAXSTRINGLEN + 64], ktap_uline_buf);

/**
 * ktap_user_regs() - the current task's user registers
 * @c: the context
 *
 * A user-space probe's own; else (a kernel probe in a task) those the
 * task saved on entering the kernel.
 *
 * Return: the registers, or NULL for a kernel thread.
 */
static struct pt_regs *ktap_user_regs(struct ktap_context *c)
{
	if (c->regs && user_mode(c->regs))
		return c->regs;
	if ((current->flags & PF_KTHREAD) || !current->mm)
		return NULL;
	return task_pt_regs(current);
}

/* the row of @rows (the last a stop row) that holds file offset @off */
static const struct ktap_ucfi *ktap_ucfi_at(const struct ktap_usym_file *f,
					    unsigned long off)
{
	unsigned int lo = 0, hi = f->ncfi;

	while (lo < hi) {	/* the first row past @off */
		unsigned int mid = lo + (hi - lo) / 2;

		if (f->cfi[mid].start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &f->cfi[lo - 1] : NULL;
}

/* the row for @pc in the task's mappings, or NULL: not a file with rows */
static const struct ktap_ucfi *ktap_ucfi_find(struct mm_struct *mm, unsigned long pc)
{
	struct vm_area_struct *vma = vma_lookup(mm, pc);
	int i = vma ? ktap_ufile_of(vma) : -1;

	if (i < 0 || !ktap_usym_table[i].cfi)
		return NULL;
	return ktap_ucfi_at(&ktap_usym_table[i], ktap_ufile_offset(vma, pc));
}

static bool ktap_uread_word(unsigned long addr, unsigned long *v)
{
	return !copy_from_user_nofault(v, (const void __user *)addr, sizeof(*v));
}

/**
 * struct ktap_uframe - the registers the unwinder follows
 * @pc: where the frame is
 * @sp: its stack pointer
 * @bp: its rbp, when @bp_known
 * @bp_known: rbp is the frame's (not lost in a callee that reused it)
 */
struct ktap_uframe {
	unsigned long pc, sp, bp;
	bool bp_known;
};

/*
 * One step to the caller of @f by @row. A return address's row is that
 * of the call before it (@pc - 1): a call of a noreturn function may be
 * the last instruction of its function.
 */
static bool ktap_ustep(struct ktap_uframe *f, const struct ktap_ucfi *row)
{
	unsigned long cfa, ra, bp;

	if (row->cfa_reg == KTAP_UREG_RSP)
		cfa = f->sp + row->cfa_off;
	else if (row->cfa_reg == KTAP_UREG_RBP && f->bp_known)
		cfa = f->bp + row->cfa_off;
	else
		return false;
	if (cfa <= f->sp || !ktap_uread_word(cfa + row->ra_off, &ra) || !ra)
		return false;
	if (row->rbp_off == KTAP_UCFI_RBP_LOST)
		f->bp_known = false;
	else if (row->rbp_off) {
		f->bp_known = ktap_uread_word(cfa + row->rbp_off, &bp);
		f->bp = bp;
	}
	f->sp = cfa;
	f->pc = ra;
	return true;
}

/**
 * ktap_uunwind_from() - the current task's user stack from given registers
 * @f: the innermost frame's pc, sp and rbp
 * @entries: where the addresses go
 * @max: room in @entries
 *
 * Return: the number of addresses: @f->pc, then the return addresses.
 */
static unsigned int ktap_uunwind_from(struct ktap_uframe *f, unsigned long *entries,
				      unsigned int max)
{
	struct mm_struct *mm = (current->flags & PF_KTHREAD) ? NULL : current->mm;
	unsigned int n = 0;

	if (!mm || !max)
		return 0;
	entries[n++] = f->pc;
	if (!mmap_read_trylock(mm))
		return n;
	while (n < max) {
		const struct ktap_ucfi *row = ktap_ucfi_find(mm, n == 1 ? f->pc : f->pc - 1);

		if (!row || !ktap_ustep(f, row))
			break;
		entries[n++] = f->pc;
	}
	mmap_read_unlock(mm);
	return n;
}

/**
 * ktap_uunwind() - the current task's user stack
 * @c: the context
 * @entries: where the addresses go
 * @max: room in @entries
 *
 * Return: the number of addresses: the probed one (the task's user
 * address in a kernel probe), then the return addresses; 0 for a
 * kernel thread.
 */
static unsigned int ktap_uunwind(struct ktap_context *c, unsigned long *entries,
				 unsigned int max)
{
	struct pt_regs *regs = ktap_user_regs(c);
	struct ktap_uframe f;

	if (!regs)
		return 0;
	f = (struct ktap_uframe){ instruction_pointer(regs), user_stack_pointer(regs),
				  regs->bp, true };
	return ktap_uunwind_from(&f, entries, max);
}

/* the stack of this hit in this CPU's buffer; the count */
static unsigned int ktap_ustack_capture(struct ktap_context *c, unsigned long **entries)
{
	*entries = *this_cpu_ptr(&ktap_ustack_buf);
	return ktap_uunwind(c, *entries, KTAP_MAXBACKTRACE);
}

/* ---- the text of an address ---- */

#define KTAP_USYM_HEX		1	/* " 0xADDR : " first */
#define KTAP_USYM_MODULE	2	/* " [path]" */
#define KTAP_USYM_BASENAME	4	/* ... only the file's name */
#define KTAP_USYM_SIZE		8	/* "+off/size" */

#define KTAP_USYM_DATA		(KTAP_USYM_MODULE | KTAP_USYM_SIZE)	/* usymdata() */
#define KTAP_USYM_FULL		(KTAP_USYM_HEX | KTAP_USYM_DATA)	/* print_ubacktrace() */
#define KTAP_USYM_SIMPLE	(KTAP_USYM_MODULE | KTAP_USYM_BASENAME)	/* sprint_ubacktrace() */
#define KTAP_USYM_BRIEF		0		/* print_ubacktrace_brief() */

/**
 * ktap_usym_text() - an address as symbol, offset and file
 * @o: the sink
 * @addr: a user address of the current task
 * @flags: KTAP_USYM_*
 * @ret: @addr is a return address: named by the call before it
 * @whole: only append if it all fits (a string sink)
 *
 * "name+0xOFF[/0xSIZE] [file]" when the function is known; else, when a
 * file is mapped there, "0xADDR [file+0xOFF]" with the offset in the
 * file; else the address in hex. A return address is looked up a byte
 * back, since the call of a noreturn function (exit() calling
 * __run_exit_handlers()) may be its function's last instruction; the
 * offset is still @addr's.
 *
 * Return: false if @whole and it did not fit.
 */
static bool ktap_usym_text(struct ktap_out *o, unsigned long addr, unsigned int flags,
			   bool ret, bool whole)
{
	char *path = *this_cpu_ptr(&ktap_upath_buf), *line = *this_cpu_ptr(&ktap_uline_buf);
	const size_t size = sizeof(ktap_uline_buf);
	const char *mod = NULL;
	struct ktap_uplace at;
	size_t k = 0;

	if (!ktap_umod_lookup(addr - ret, path, &at) && (flags & KTAP_USYM_MODULE)) {
		mod = path;
		if ((flags & KTAP_USYM_BASENAME) && strrchr(path, '/'))
			mod = strrchr(path, '/') + 1;
	}
	at.sym_off += ret;
	at.file_off += ret;
	if (flags & KTAP_USYM_HEX)
		k += scnprintf(line, size, " %#lx : ", addr);
	if (at.sym) {
		k += scnprintf(line + k, size - k, "%s+%#lx", at.sym->name, at.sym_off);
		if (flags & KTAP_USYM_SIZE)
			k += scnprintf(line + k, size - k, "/%#lx", at.sym->size);
		if (mod)
			k += scnprintf(line + k, size - k, " [%s]", mod);
	} else if (mod) {
		k += scnprintf(line + k, size - k, "%#lx [%s+%#lx]", addr, mod, at.file_off);
	} else {
		k += scnprintf(line + k, size - k, "%#lx", addr);
	}
	if (whole && k > o->cap - o->len)
		return false;
	ktap_out_write(o, line, k);
	return true;
}

/* one frame a line, return addresses (@unwound: all but the first)
 * named by their call; a string sink keeps the lines that fit whole */
static void ktap_uframes_out(struct ktap_out *o, const unsigned long *entries,
			     unsigned int n, unsigned int flags, bool unwound, bool whole)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		size_t len = o->len;

		if (!ktap_usym_text(o, entries[i], flags, unwound && i, whole))
			return;
		if (whole && o->len == o->cap) {
			o->len = len;	/* no room for its newline */
			return;
		}
		ktap_out_write(o, "\n", 1);
	}
}

/* ---- the functions ---- */

/**
 * ktap_ubacktrace() - ubacktrace(): the user stack as hex addresses
 * @c: the context
 * @dst: MAXSTRINGLEN bytes; "" when there is no user stack
 */
static __maybe_unused void ktap_ubacktrace(struct ktap_context *c, char *dst)
{
	unsigned long *entries;
	unsigned int n = ktap_ustack_capture(c, &entries);

	ktap_addrs_str(dst, entries, n);
}

/**
 * ktap_print_ubacktrace() - print_ubacktrace() and
 *	print_ubacktrace_brief(): print the user stack, a frame a line
 * @c: the context
 * @flags: KTAP_USYM_FULL or KTAP_USYM_BRIEF
 */
static __maybe_unused void ktap_print_ubacktrace(struct ktap_context *c,
						 unsigned int flags)
{
	unsigned long *entries;
	unsigned int n = ktap_ustack_capture(c, &entries);
	struct ktap_out o;

	ktap_out_print(&o, c);
	ktap_uframes_out(&o, entries, n, flags, true, false);
	c->print_len = o.len;
}

/**
 * ktap_print_ubacktrace_at() - print_ubacktrace(pc, sp, fp): print the
 *	user stack unwound from the given pc, stack pointer and rbp
 * @c: the context
 * @pc: the innermost frame's address
 * @sp: its stack pointer
 * @fp: its rbp (used where a frame's CFA is rbp-based)
 */
static __maybe_unused void ktap_print_ubacktrace_at(struct ktap_context *c, unsigned long pc,
						    unsigned long sp, unsigned long fp)
{
	unsigned long *entries = *this_cpu_ptr(&ktap_ustack_buf);
	struct ktap_uframe f = { pc, sp, fp, true };
	unsigned int n = ktap_uunwind_from(&f, entries, KTAP_MAXBACKTRACE);
	struct ktap_out o;

	ktap_out_print(&o, c);
	ktap_uframes_out(&o, entries, n, KTAP_USYM_FULL, true, false);
	c->print_len = o.len;
}

/**
 * ktap_sprint_ubacktrace() - sprint_ubacktrace(): the user stack as text,
 *	"name+0xOFF [file]" a line
 * @c: the context
 * @dst: MAXSTRINGLEN bytes; frames that do not fit whole are left out
 */
static __maybe_unused void ktap_sprint_ubacktrace(struct ktap_context *c, char *dst)
{
	unsigned long *entries;
	unsigned int n = ktap_ustack_capture(c, &entries);
	struct ktap_out o = { .c = c, .buf = dst, .cap = MAXSTRINGLEN - 1 };

	ktap_uframes_out(&o, entries, n, KTAP_USYM_SIMPLE, true, true);
	dst[o.len] = '\0';
}

/**
 * ktap_ucallers() - ucallers(n): the first n + 1 addresses of the user
 *	stack (the probed one and n callers); n -1: all of them
 * @c: the context
 * @dst: MAXSTRINGLEN bytes
 * @depth: n
 *
 * An error when the stack has fewer, as SystemTap's.
 */
static __maybe_unused void ktap_ucallers(struct ktap_context *c, char *dst, int64_t depth)
{
	unsigned long *entries;
	unsigned int n = ktap_ustack_capture(c, &entries);

	dst[0] = '\0';
	if (depth >= 0 && depth >= n) {
		ktap_errorf(c, NULL, "ucallers: the user stack has %u frame%s, not %lld",
			    n, n == 1 ? "" : "s", depth + 1);
		return;
	}
	ktap_addrs_str(dst, entries, depth < 0 ? n : depth + 1);
}

/**
 * ktap_ustack() - ustack(n): the address at depth n of the user stack
 * @c: the context
 * @depth: 0 is the probed address, 1 its caller, ...
 *
 * Return: the address; an error when the stack is not that deep.
 */
static __maybe_unused unsigned long ktap_ustack(struct ktap_context *c, int64_t depth)
{
	unsigned long *entries;
	unsigned int n = ktap_ustack_capture(c, &entries);

	if (depth < 0 || depth >= n) {
		ktap_errorf(c, NULL, "ustack: no frame %lld in the user stack (%u frame%s)",
			    depth, n, n == 1 ? "" : "s");
		return 0;
	}
	return entries[depth];
}

/**
 * ktap_usymdata() - usymdata(addr): "name+0xOFF/0xSIZE [file]"
 * @c: the context
 * @dst: MAXSTRINGLEN bytes
 * @addr: a user address of the current task
 */
static __maybe_unused void ktap_usymdata(struct ktap_context *c, char *dst,
					 unsigned long addr)
{
	struct ktap_out o = { .c = c, .buf = dst, .cap = MAXSTRINGLEN - 1 };

	ktap_usym_text(&o, addr, KTAP_USYM_DATA, false, false);
	dst[o.len] = '\0';
}

/**
 * ktap_print_usyms() - print_usyms(list), print_ustack(list): a line per
 *	address of a hex list, " 0xADDR : " and its usymdata()
 * @c: the context
 * @list: hex addresses separated by spaces (ubacktrace(), ucallers())
 */
static __maybe_unused void ktap_print_usyms(struct ktap_context *c, const char *list)
{
	unsigned long *entries = *this_cpu_ptr(&ktap_ustack_buf);
	unsigned int n = ktap_stack_parse(list, entries, KTAP_MAXBACKTRACE);
	struct ktap_out o;

	ktap_out_print(&o, c);
	ktap_uframes_out(&o, entries, n, KTAP_USYM_FULL, false, false);
	c->print_len = o.len;
}

/**
 * ktap_sprint_usyms() - sprint_usyms(list), sprint_ustack(list): what
 *	print_usyms() prints, as a string
 * @c: the context
 * @dst: MAXSTRINGLEN bytes; lines that do not fit whole are left out
 * @list: hex addresses (may be @dst: it is read first)
 */
static __maybe_unused void ktap_sprint_usyms(struct ktap_context *c, char *dst,
					     const char *list)
{
	unsigned long *entries = *this_cpu_ptr(&ktap_ustack_buf);
	unsigned int n = ktap_stack_parse(list, entries, KTAP_MAXBACKTRACE);
	struct ktap_out o = { .c = c, .buf = dst, .cap = MAXSTRINGLEN - 1 };

	ktap_uframes_out(&o, entries, n, KTAP_USYM_FULL, false, true);
	dst[o.len] = '\0';
}

#endif /* _KTAP_USTACK_H */
