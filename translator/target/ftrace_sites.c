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
#include <stdlib.h>
#include <string.h>

#include "../ktap.h"
#include "../target.h"
#include "target-private.h"

struct sites {
	uint64_t *addr;			/* sorted */
	int n;
	bool loaded;
};

static struct sites fs;

static void load(struct target *k)
{
	uint64_t start = target_symbol_address(k, "__start_mcount_loc");
	uint64_t stop = target_symbol_address(k, "__stop_mcount_loc");

	fs.loaded = true;
	fs.addr = target_image_words(k, start, stop, &fs.n);
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
