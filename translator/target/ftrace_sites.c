/* ftrace_sites.c - the function entries of the kernel that ftrace hooks.
 *
 * The kernel's build records the address of every function's fentry call
 * between __start_mcount_loc and __stop_mcount_loc; ftrace turns each into
 * a site at boot (ftrace_init()). A probe on a function's entry that is
 * such a site needs no kprobe: runtime/ftrace.h puts it in the filter of
 * one ftrace_ops. Knowing the sites here, pass 2 hands the runtime their
 * link-time addresses, so that loading a script with 40,000 function
 * entries does not ask kallsyms (a linear search on 6.1) 40,000 times.
 *
 * The runtime moves each address by the KASLR offset and ftrace refuses
 * any that is not one of its sites, so a wrong one costs a kprobe, not a
 * wrong probe.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../ktap.h"
#include "../target.h"

struct sites {
	uint64_t *addr;			/* sorted */
	int n;
	bool loaded;
};

static struct sites fs;

static int by_addr(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* the words at [start, stop) of an ELF file's loaded image, or NULL */
static uint64_t *read_words(const char *path, uint64_t start, uint64_t stop, int *n)
{
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	uint64_t *words = NULL;
	Elf_Scn *scn = NULL;
	Elf *e;

	if (fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	while (e && !words && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    start < sh.sh_addr || stop > sh.sh_addr + sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size < stop - sh.sh_addr)
			break;
		*n = (stop - start) / 8;
		words = xalloc((*n + 1) * sizeof(*words));
		memcpy(words, (char *)d->d_buf + (start - sh.sh_addr), *n * 8);
	}
	if (e)
		elf_end(e);
	close(fd);
	return words;
}

static void load(struct target *k)
{
	uint64_t start = target_symbol_address(k, "__start_mcount_loc");
	uint64_t stop = target_symbol_address(k, "__stop_mcount_loc");
	char *why = NULL;

	fs.loaded = true;
	if (!start || stop <= start)
		return;
	fs.addr = read_words(k->image, start, stop, &fs.n);
	if (!fs.addr)
		fs.addr = read_words(target_debug_file(k, &why), start, stop, &fs.n);
	if (fs.addr)
		qsort(fs.addr, fs.n, sizeof(*fs.addr), by_addr);
}

/* the first site at or after addr, or 0 */
static uint64_t site_from(uint64_t addr)
{
	int lo = 0, hi = fs.n;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (fs.addr[mid] < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < fs.n ? fs.addr[lo] : 0;
}

uint64_t target_ftrace_site(struct target *k, uint64_t func)
{
	uint64_t site;

	if (!k || !func)
		return 0;
	if (!fs.loaded)
		load(k);
	site = fs.n ? site_from(func) : 0;
	/* the fentry call is the first instruction, or follows an endbr64 */
	return site && site - func <= 4 ? site : 0;
}

bool target_ftrace_sites_known(struct target *k)
{
	if (!k)
		return false;
	if (!fs.loaded)
		load(k);
	return fs.n > 0;
}
