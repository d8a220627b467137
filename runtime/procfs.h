/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap runtime: procfs probes.
 *
 * procfs("NAME").read and .write make the file /proc/ktap/MODULE/NAME
 * while the script runs (MODULE is the module's name, ktap_<hash> or
 * -m NAME). Reading the file runs the .read probe once per open file, at
 * the first read, and returns what the probe put in $value (up to its
 * .maxsize, default MAXSTRINGLEN bytes); each write runs the .write probe
 * with up to MAXSTRINGLEN - 1 bytes written in $value (a longer write is
 * taken in pieces, a probe run each). The probe's $value is the buffer
 * of the open file: ktap_procfs_cur points at it on this CPU while the
 * handler runs (preemption is off, and one CPU runs one handler at a
 * time).
 *
 * /proc/ktap itself is shared by every ktap module and stays, empty, when
 * the last one is gone: procfs has no way to ask whether an entry exists
 * or is empty without a warning, so it is looked up by path once and
 * never removed.
 */
#ifndef _KTAP_PROCFS_H
#define _KTAP_PROCFS_H

#include <linux/namei.h>
#include <linux/proc_fs.h>

#define KTAP_PROCFS_ROOT "ktap"

/**
 * struct ktap_procfs_buf - the data of one open procfs file
 * @size: bytes @data holds, its NUL included
 * @len: bytes in use
 * @filled: the .read probe has run for this open file
 * @data: the contents
 */
struct ktap_procfs_buf {
	size_t size;
	size_t len;
	bool filled;
	char data[];
};

/**
 * struct ktap_procfs_file - one file in /proc/ktap/MODULE
 * @name: its name
 * @read: its .read probe, or NULL
 * @write: its .write probe, or NULL
 * @next: the next file
 */
struct ktap_procfs_file {
	const char *name;
	const struct ktap_probe *read;
	const struct ktap_probe *write;
	struct ktap_procfs_file *next;
};

static struct ktap_procfs_file *ktap_procfs_files;
static struct proc_dir_entry *ktap_procfs_dir;
static DEFINE_PER_CPU(struct ktap_procfs_buf *, ktap_procfs_cur);

/**
 * ktap_procfs_get() - $value: copy the open file's contents
 * @c: the context
 * @dst: a string of MAXSTRINGLEN bytes
 */
static __maybe_unused void ktap_procfs_get(struct ktap_context *c, char *dst)
{
	struct ktap_procfs_buf *b = this_cpu_read(ktap_procfs_cur);

	strscpy(dst, b ? b->data : "", MAXSTRINGLEN);
}

/**
 * ktap_procfs_set() - $value = @v: the contents become @v (truncated)
 * @c: the context
 * @v: the string
 */
static __maybe_unused void ktap_procfs_set(struct ktap_context *c, const char *v)
{
	struct ktap_procfs_buf *b = this_cpu_read(ktap_procfs_cur);
	ssize_t n;

	if (!b)
		return;
	n = strscpy(b->data, v, b->size);
	b->len = n < 0 ? b->size - 1 : n;
}

/**
 * ktap_procfs_append() - $value .= @v: append @v, up to the buffer's size
 * @c: the context
 * @v: the string
 *
 * With .maxsize(N) the contents may grow past MAXSTRINGLEN this way.
 */
static __maybe_unused void ktap_procfs_append(struct ktap_context *c, const char *v)
{
	struct ktap_procfs_buf *b = this_cpu_read(ktap_procfs_cur);
	ssize_t n;

	if (!b || b->len + 1 >= b->size)
		return;
	n = strscpy(b->data + b->len, v, b->size - b->len);
	b->len = n < 0 ? b->size - 1 : b->len + n;
}

/* run @probe with @b as its $value */
static void ktap_procfs_run(const struct ktap_probe *probe, struct ktap_procfs_buf *b)
{
	preempt_disable();
	this_cpu_write(ktap_procfs_cur, b);
	ktap_run_probe(probe, NULL);
	this_cpu_write(ktap_procfs_cur, NULL);
	preempt_enable();
}

static int ktap_procfs_open(struct inode *inode, struct file *file)
{
	struct ktap_procfs_file *pf = pde_data(inode);
	struct ktap_procfs_buf *b;
	size_t size;

	if ((file->f_mode & FMODE_READ) && !pf->read)
		return -EACCES;
	if ((file->f_mode & FMODE_WRITE) && !pf->write)
		return -EACCES;
	size = pf->read && pf->read->procfs_maxsize ? pf->read->procfs_maxsize + 1 :
						       MAXSTRINGLEN;
	b = kvzalloc(sizeof(*b) + size, GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->size = size;
	file->private_data = b;
	return 0;
}

static int ktap_procfs_release(struct inode *inode, struct file *file)
{
	kvfree(file->private_data);
	return 0;
}

static ssize_t ktap_procfs_read(struct file *file, char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct ktap_procfs_file *pf = pde_data(file_inode(file));
	struct ktap_procfs_buf *b = file->private_data;

	if (!b->filled) {
		b->filled = true;
		ktap_procfs_run(pf->read, b);
	}
	return simple_read_from_buffer(ubuf, count, ppos, b->data, b->len);
}

static ssize_t ktap_procfs_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct ktap_procfs_file *pf = pde_data(file_inode(file));
	struct ktap_procfs_buf *b = file->private_data;
	size_t n = min_t(size_t, count, b->size - 1);

	if (copy_from_user(b->data, ubuf, n))
		return -EFAULT;
	b->data[n] = '\0';
	b->len = n;
	ktap_procfs_run(pf->write, b);
	*ppos += n;
	return n;
}

static const struct proc_ops ktap_procfs_ops = {
	.proc_open = ktap_procfs_open,
	.proc_release = ktap_procfs_release,
	.proc_read = ktap_procfs_read,
	.proc_write = ktap_procfs_write,
	.proc_lseek = noop_llseek,
};

/* /proc/ktap/MODULE, made on the first procfs probe */
static int ktap_procfs_mkdir(void)
{
	char path[MODULE_NAME_LEN + sizeof(KTAP_PROCFS_ROOT) + 1];
	struct path root;

	if (ktap_procfs_dir)
		return 0;
	if (kern_path("/proc/" KTAP_PROCFS_ROOT, LOOKUP_DIRECTORY, &root) == 0)
		path_put(&root);
	else if (!proc_mkdir(KTAP_PROCFS_ROOT, NULL))
		return -ENOMEM;
	snprintf(path, sizeof(path), KTAP_PROCFS_ROOT "/%s", THIS_MODULE->name);
	ktap_procfs_dir = proc_mkdir(path, NULL);
	return ktap_procfs_dir ? 0 : -ENOMEM;
}

/**
 * ktap_procfs_arm() - make the file of a procfs probe
 * @probe: a KTAP_PROBE_PROCFS_READ or _WRITE probe
 * @table: every probe of the script
 * @n: how many
 *
 * The first probe of a name makes its file, with the mode bits of every
 * probe on the name; the others find it made.
 *
 * Return: 0, -EEXIST for a second .read (or .write) on one file, or
 * -ENOMEM.
 */
static int ktap_procfs_arm(const struct ktap_probe *probe,
			   const struct ktap_probe *table, int n)
{
	struct ktap_procfs_file *pf;
	umode_t mode = 0;
	int i, ret;

	for (pf = ktap_procfs_files; pf; pf = pf->next)
		if (!strcmp(pf->name, probe->procfs_name))
			return 0;
	ret = ktap_procfs_mkdir();
	if (ret)
		return ret;
	pf = kzalloc(sizeof(*pf), GFP_KERNEL);
	if (!pf)
		return -ENOMEM;
	pf->name = probe->procfs_name;
	pf->next = ktap_procfs_files;
	ktap_procfs_files = pf;
	for (i = 0; i < n; i++) {
		const struct ktap_probe *p = &table[i];
		const struct ktap_probe **slot = p->kind == KTAP_PROBE_PROCFS_READ ?
						 &pf->read : &pf->write;

		if ((p->kind != KTAP_PROBE_PROCFS_READ && p->kind != KTAP_PROBE_PROCFS_WRITE) ||
		    strcmp(p->procfs_name, pf->name))
			continue;
		if (*slot)
			return -EEXIST;
		*slot = p;
		mode |= p->procfs_mode;
	}
	if (!proc_create_data(pf->name, S_IFREG | mode, ktap_procfs_dir,
			      &ktap_procfs_ops, pf))
		return -ENOMEM;
	return 0;
}

/**
 * ktap_procfs_remove() - remove /proc/ktap/MODULE and its files
 *
 * Waits for the reads and writes in progress; files still open are
 * released (procfs calls their release) and fail from then on.
 */
static void ktap_procfs_remove(void)
{
	struct ktap_procfs_file *pf, *next;

	if (ktap_procfs_dir)
		proc_remove(ktap_procfs_dir);
	ktap_procfs_dir = NULL;
	for (pf = ktap_procfs_files; pf; pf = next) {
		next = pf->next;
		kfree(pf);
	}
	ktap_procfs_files = NULL;
}

#endif /* _KTAP_PROCFS_H */
