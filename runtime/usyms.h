/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap runtime: user-space symbols and modules (umodname(), usymname()).
 *
 * The translator emits, for every program or library the script probes
 * in user space, its functions by file offset (struct ktap_usym_file,
 * in ktap_usym_files[]). At "start" each file's inode is looked up
 * (ktap_usyms_open()); an address is then named by the current task's
 * mapping that holds it: the mapped file, and the offset in it, which
 * is the same in every process that maps the file.
 *
 * The task's mmap lock is only tried (handlers do not sleep): when it is
 * held elsewhere the address is not known, and the functions say so.
 */
#ifndef _KTAP_USYMS_H
#define _KTAP_USYMS_H

/**
 * struct ktap_usym - one function of a probed file
 * @offset: its first byte's offset in the file
 * @size: its length in bytes (0: unknown)
 * @name: its name
 */
struct ktap_usym {
	unsigned long offset;
	unsigned long size;
	const char *name;
};

/**
 * struct ktap_ucfi - one row of a file's unwind table (runtime/ustack.h)
 * @start: the file offset the row starts at; it ends where the next starts
 * @cfa_off: the caller's stack pointer (the CFA) is the register + this
 * @cfa_reg: 7 (rsp) or 6 (rbp), the DWARF numbers; -1: a stop row
 * @ra_off: the return address is saved at CFA + this
 * @rbp_off: the caller's rbp: 0 unchanged, KTAP_UCFI_RBP_LOST not known,
 *	else saved at CFA + this
 *
 * The translator turns the file's DWARF CFI (.eh_frame, .debug_frame)
 * into these rows (translator/target/cfi.c).
 */
struct ktap_ucfi {
	unsigned int start;
	int cfa_off;
	signed char cfa_reg;
	signed char ra_off;
	signed char rbp_off;
};

#define KTAP_UCFI_RBP_LOST 127

/**
 * struct ktap_usym_file - the functions of one probed file
 * @path: the file, as this machine names it
 * @syms: its functions, sorted by offset
 * @nsyms: how many
 * @cfi: its unwind rows, sorted by offset, the last a stop row; NULL
 *	when the script unwinds no user stack
 * @ncfi: how many
 */
struct ktap_usym_file {
	const char *path;
	const struct ktap_usym *syms;
	unsigned int nsyms;
	const struct ktap_ucfi *cfi;
	unsigned int ncfi;
};

#ifdef KTAP_PREBUILT
/* the light unit linked with the prebuilt object defines them */
extern const struct ktap_usym_file ktap_usym_files[];
extern const unsigned int ktap_nr_usym_files;
#endif

/* the generated table and its files' inodes, set at "start" */
static const struct ktap_usym_file *ktap_usym_table;
static unsigned int ktap_usym_ntable;
static struct inode **ktap_usym_inodes;

/**
 * ktap_usyms_open() - look up the inodes of the probed files
 * @files: the generated table
 * @n: its length
 *
 * Process context ("start"). A file that cannot be found is left out.
 */
static __maybe_unused void ktap_usyms_open(const struct ktap_usym_file *files,
					   unsigned int n)
{
	unsigned int i;
	struct path path;

	if (!n)
		return;
	ktap_usym_inodes = kcalloc(n, sizeof(*ktap_usym_inodes), GFP_KERNEL);
	if (!ktap_usym_inodes)
		return;
	for (i = 0; i < n; i++)
		if (!kern_path(files[i].path, LOOKUP_FOLLOW, &path)) {
			ktap_usym_inodes[i] = igrab(d_real_inode(path.dentry));
			path_put(&path);
		}
	ktap_usym_table = files;
	WRITE_ONCE(ktap_usym_ntable, n);
}

/* once no handler runs any more */
static __maybe_unused void ktap_usyms_close(void)
{
	unsigned int i;

	for (i = 0; ktap_usym_inodes && i < ktap_usym_ntable; i++)
		if (ktap_usym_inodes[i])
			iput(ktap_usym_inodes[i]);
	kfree(ktap_usym_inodes);
	ktap_usym_inodes = NULL;
	ktap_usym_ntable = 0;
}

/* the function of @file at offset @off, or NULL */
static const struct ktap_usym *ktap_usym_at(const struct ktap_usym_file *file,
					    unsigned long off)
{
	unsigned int lo = 0, hi = file->nsyms;

	while (lo < hi) {	/* the first one past @off */
		unsigned int mid = lo + (hi - lo) / 2;

		if (file->syms[mid].offset <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	if (file->syms[lo - 1].size && off - file->syms[lo - 1].offset >= file->syms[lo - 1].size)
		return NULL;
	return &file->syms[lo - 1];
}

/* the table's index of the file mapped by @vma, or -1 */
static int ktap_ufile_of(const struct vm_area_struct *vma)
{
	struct inode *inode;
	unsigned int i;

	if (!vma->vm_file || !ktap_usym_inodes)
		return -1;
	inode = file_inode(vma->vm_file);
	for (i = 0; i < READ_ONCE(ktap_usym_ntable); i++)
		if (ktap_usym_inodes[i] == inode)
			return i;
	return -1;
}

/* the offset in the mapped file of @addr, which @vma holds */
static inline unsigned long ktap_ufile_offset(const struct vm_area_struct *vma,
					      unsigned long addr)
{
	return addr - vma->vm_start + (vma->vm_pgoff << PAGE_SHIFT);
}

/**
 * struct ktap_uplace - what a user address is (ktap_umod_lookup())
 * @sym: the function there, when the file is one the module knows, or NULL
 * @sym_off: @addr's offset in @sym
 * @file_off: @addr's offset in the mapped file
 * @file_size: the mapped file's size
 */
struct ktap_uplace {
	const struct ktap_usym *sym;
	unsigned long sym_off, file_off;
	loff_t file_size;
};

/**
 * ktap_umod_lookup() - the mapping of the current task that holds @addr
 * @addr: a user address
 * @dst: MAXSTRINGLEN bytes for the mapped file's path, or NULL
 * @at: where the function and offsets go, or NULL
 *
 * Return: 0; -ESRCH without a user address space, -EAGAIN when its lock
 * is taken, -ENOENT when no file is mapped at @addr.
 */
static int ktap_umod_lookup(unsigned long addr, char *dst, struct ktap_uplace *at)
{
	struct mm_struct *mm = (current->flags & PF_KTHREAD) ? NULL : current->mm;
	struct vm_area_struct *vma;
	int ret = -ENOENT, i;

	if (at)
		memset(at, 0, sizeof(*at));
	if (!mm)
		return -ESRCH;
	if (!mmap_read_trylock(mm))
		return -EAGAIN;
	vma = vma_lookup(mm, addr);
	if (vma && vma->vm_file) {
		unsigned long off = ktap_ufile_offset(vma, addr);

		ret = 0;
		if (dst) {
			char *p = d_path(&vma->vm_file->f_path, dst, MAXSTRINGLEN);

			if (IS_ERR(p))
				strscpy(dst, "?", MAXSTRINGLEN);
			else
				memmove(dst, p, strlen(p) + 1);
		}
		i = ktap_ufile_of(vma);
		if (at) {
			at->file_off = off;
			at->file_size = i_size_read(file_inode(vma->vm_file));
			at->sym = i >= 0 ? ktap_usym_at(&ktap_usym_table[i], off) : NULL;
			at->sym_off = at->sym ? off - at->sym->offset : 0;
		}
	}
	mmap_read_unlock(mm);
	return ret;
}

/**
 * ktap_umodname() - umodname(): the file mapped at a user address
 * @c: the context
 * @dst: MAXSTRINGLEN bytes
 * @addr: the address, in the current task
 *
 * The path as the task sees it (a task chrooted into the ktap guest's
 * /host sees the host's paths). Sets an error when no file is mapped
 * there, as SystemTap does.
 */
static __maybe_unused void ktap_umodname(struct ktap_context *c, char *dst,
					 unsigned long addr)
{
	int ret = ktap_umod_lookup(addr, dst, NULL);

	if (ret) {
		dst[0] = '\0';
		ktap_errorf(c, NULL, "umodname: %s at 0x%lx", ret == -EAGAIN ?
			    "the address space is locked" : ret == -ESRCH ?
			    "no user address space" : "no file mapped", addr);
	}
}

/**
 * ktap_usymname() - usymname(): the function at a user address
 * @c: the context
 * @dst: MAXSTRINGLEN bytes
 * @addr: the address, in the current task
 *
 * Known for the files the script probes; else "0x" and the address.
 */
static __maybe_unused void ktap_usymname(struct ktap_context *c, char *dst,
					 unsigned long addr)
{
	struct ktap_uplace at;

	if (!ktap_umod_lookup(addr, NULL, &at) && at.sym)
		strscpy(dst, at.sym->name, MAXSTRINGLEN);
	else
		snprintf(dst, MAXSTRINGLEN, "0x%lx", addr);
}

/**
 * ktap_uaddr() - uaddr(): where the current task is in user space
 * @c: the context
 *
 * Return: the probe's user address, else the task's saved user address;
 * 0 for a kernel thread.
 */
static __maybe_unused unsigned long ktap_uaddr(struct ktap_context *c)
{
	if (c->regs && user_mode(c->regs))
		return instruction_pointer(c->regs);
	if ((current->flags & PF_KTHREAD) || !current->mm)
		return 0;
	return instruction_pointer(task_pt_regs(current));
}

#endif /* _KTAP_USYMS_H */
