/* footprint.c - what a module asks of the kernel's memory, and whether the
 * target has that much.
 *
 * A script that probes 300,000 points or declares global a[100000000]
 * builds fine and then fails at load (ENOMEM; before kvmalloc, a WARNING
 * in __alloc_pages). Pass 3 writes its estimate of the memory the module
 * allocates at load into the module's .modinfo ("ktap_memory=ONCE,PERCPU"
 * bytes, PERCPU for each possible CPU); before loading, the module's own
 * size (its SHF_ALLOC sections) is added and the sum compared with what
 * the target has: the guest's memory, or this machine's MemAvailable.
 * Arrays follow runtime/map.h's table of sizes; each probe point costs
 * its slot, its ftrace site and kprobe bookkeeping.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ktap.h"
#include "program.h"

#define PER_POINT	512	/* struct ktap_slot (a kretprobe), site, ips */
#define ITER_DEPTH	2	/* runtime/map.h: KTAP_MAP_ITER_DEPTH */

/* a -D NAME=VALUE the runtime sees, else def */
static long long define_value(const struct options *opt, const char *name, long long def)
{
	size_t len = strlen(name);
	int i;

	for (i = 0; i < opt->ndefines; i++)
		if (!strncmp(opt->defines[i], name, len) && opt->defines[i][len] == '=')
			def = atoll(opt->defines[i] + len + 1);
	return def;
}

static unsigned long long pow2_at_least(long long n)
{
	unsigned long long p = 16;

	while ((long long)p < n)
		p *= 2;
	return p;
}

/* one table of an array (runtime/map.h) */
static unsigned long long table_bytes(const struct symbol *g, long long entries, long long s)
{
	unsigned long long entry = 48 + 8ULL * g->nkeys, value = 8;
	int i;

	for (i = 0; i < g->nkeys; i++)
		if (g->key_types[i] == TY_STRING)
			entry += s;
	if (g->type == TY_STRING)
		value = s;
	else if (g->type == TY_STATS)
		value = 56 + 8 * (g->hist_kind == 1 ? 128 :
				  g->hist_kind == 2 && g->hist_step > 0 ?
				  (g->hist_hi - g->hist_lo) / g->hist_step + 3 : 1);
	return (entry + value) * entries + 8 * pow2_at_least(entries) +
	       24ULL * ITER_DEPTH * entries;
}

char *footprint_modinfo(const struct program *prog, const struct options *opt)
{
	long long maxentries = define_value(opt, "MAXMAPENTRIES", 2048);
	long long s = define_value(opt, "MAXSTRINGLEN", 512);
	unsigned long long once = 0, percpu = 0;
	const struct concrete_point *cp;
	int i;

	for (i = 0; i < prog->nprobes; i++)
		for (cp = prog->probes[i]->points; cp; cp = cp->next)
			once += PER_POINT;
	for (i = 0; i < prog->nglobals; i++) {
		const struct symbol *g = prog->globals[i];
		long long n = g->global && g->global->max_entries ? g->global->max_entries : maxentries;

		if (g->kind != SYM_GLOBAL || !(g->nkeys > 0 || g->type == TY_STATS))
			continue;
		if (g->type == TY_STATS)
			percpu += table_bytes(g, g->nkeys ? n : 1, s);
		else
			once += table_bytes(g, n, s);
	}
	return xasprintf("ktap_memory=%llu,%llu", once, percpu);
}

/* the .ko's loaded size and its ktap_memory= figures; false if unreadable */
static bool read_module(const char *ko, unsigned long long *size,
			unsigned long long *once, unsigned long long *percpu)
{
	int fd = open(ko, O_RDONLY | O_CLOEXEC);
	Elf_Scn *scn = NULL;
	bool found = false;
	size_t shstr;
	Elf *e;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	*size = 0;
	if (!e || elf_getshdrstrndx(e, &shstr))
		goto out;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;
		size_t off;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_flags & SHF_ALLOC)
			*size += sh.sh_size;
		name = elf_strptr(e, shstr, sh.sh_name);
		if (!name || strcmp(name, ".modinfo") || !(d = elf_getdata(scn, NULL)))
			continue;
		for (off = 0; off < d->d_size; off += strlen((char *)d->d_buf + off) + 1)
			if (sscanf((char *)d->d_buf + off, "ktap_memory=%llu,%llu", once, percpu) == 2)
				found = true;
	}
out:
	if (e)
		elf_end(e);
	close(fd);
	return found;
}

static const char *mib(unsigned long long b)
{
	return b >= 10ULL << 30 ? xasprintf("%.1f GiB", b / 1073741824.0)
				: xasprintf("%.1f MiB", b / 1048576.0);
}

static bool fits(const char *ko, unsigned long long avail, int ncpus, const char *target)
{
	unsigned long long size, once, percpu, need;

	if (!avail || !read_module(ko, &size, &once, &percpu))
		return true;	/* an old module or an unknown target: load and see */
	need = size + once + percpu * ncpus;
	if (need <= avail)
		return true;
	fprintf(stderr, "ktap: the module needs about %s of kernel memory (%s of code and "
		"tables, %s allocated at load, %s per CPU x %d), more than %s has (%s): "
		"probe fewer points or make the arrays smaller (global a[N], -D MAXMAPENTRIES)\n",
		mib(need), mib(size), mib(once), mib(percpu), ncpus, target, mib(avail));
	return false;
}

static unsigned long long local_available(void)
{
	char *text = read_whole_file("/proc/meminfo", NULL);
	char *p = text ? strstr(text, "MemAvailable:") : NULL;
	unsigned long long kb = p ? strtoull(p + 13, NULL, 10) : 0;

	free(text);
	return kb * 1024;
}

bool footprint_check(const char *ko, const struct options *opt)
{
	int ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	unsigned long long avail;

	if (opt->vm) {
		avail = vm_guest_memory(&ncpus);
		return fits(ko, avail, ncpus, "the guest");
	}
	return fits(ko, local_available(), ncpus > 0 ? ncpus : 1, "this machine");
}
