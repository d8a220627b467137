/* kprobe_refusal.c - the kernel code a kprobe cannot be put on.
 *
 * register_kprobe() refuses an address outside the core kernel's text
 * (.init.text is freed after boot) and one on its blacklist: the symbols
 * that NOKPROBE_SYMBOL() lists between __start_kprobe_blacklist and
 * __stop_kprobe_blacklist, and the .kprobes.text, .noinstr.text and (x86)
 * entry text areas (kernel/kprobes.c, populate_kprobe_blacklist(),
 * arch/x86/kernel/kprobes/core.c). Pass 2 asks here, so a script learns
 * it at its probe point instead of finding no probe armed at run time.
 *
 * System.map gives the symbols and the areas' bounds; the listed symbols
 * are the addresses the image (else the debug vmlinux) holds there.
 */
#include <stdlib.h>
#include <string.h>

#include "../ktap.h"
#include "../target.h"
#include "target-private.h"

struct ksym {
	const char *name;
	uint64_t addr;
};

struct refusals {
	struct ksym *syms;		/* System.map, hashed by name: a */
	unsigned nslots;		/* kernel.function("*") asks 350,000 times */
	uint64_t *listed;		/* NOKPROBE_SYMBOL()s, sorted */
	int nlisted;
	uint64_t init[2];		/* .init.text */
	uint64_t refused[3][2];		/* .kprobes.text, .noinstr.text, entry text */
	bool loaded;
};

static struct refusals kr;

static int by_addr(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static unsigned hash_name(const char *name)
{
	unsigned h = 2166136261u;	/* FNV-1a */

	while (*name)
		h = (h ^ (unsigned char)*name++) * 16777619u;
	return h;
}

static void add_symbol(const char *name, uint64_t addr)
{
	unsigned i = hash_name(name) & (kr.nslots - 1);

	while (kr.syms[i].name) {
		if (strcmp(kr.syms[i].name, name) == 0)
			return;		/* the first of a name, as kallsyms */
		i = (i + 1) & (kr.nslots - 1);
	}
	kr.syms[i] = (struct ksym){ name, addr };
}

static void read_system_map(const char *path)
{
	char *text = path ? read_whole_file(path, NULL) : NULL;
	char *line, *save = NULL;
	size_t lines = 0;
	const char *p;

	if (!text)
		return;
	for (p = text; *p; p++)
		lines += *p == '\n';
	for (kr.nslots = 1024; kr.nslots < 2 * lines; kr.nslots *= 2)
		;
	kr.syms = xalloc(kr.nslots * sizeof(*kr.syms));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *end;
		uint64_t addr = strtoull(line, &end, 16);

		if (end[0] == ' ' && end[1] && end[2] == ' ' && end[3])
			add_symbol(end + 3, addr);
	}
}

static uint64_t symbol_addr(const char *name)
{
	unsigned i;

	if (!kr.nslots)
		return 0;
	for (i = hash_name(name) & (kr.nslots - 1); kr.syms[i].name;
	     i = (i + 1) & (kr.nslots - 1))
		if (strcmp(kr.syms[i].name, name) == 0)
			return kr.syms[i].addr;
	return 0;
}

static void area(uint64_t bounds[2], const char *first, const char *end)
{
	bounds[0] = symbol_addr(first);
	bounds[1] = symbol_addr(end);
}

static void load(struct target *k)
{
	uint64_t start, stop;

	kr.loaded = true;
	read_system_map(k->system_map);
	area(kr.init, "_sinittext", "_einittext");
	area(kr.refused[0], "__kprobes_text_start", "__kprobes_text_end");
	area(kr.refused[1], "__noinstr_text_start", "__noinstr_text_end");
	area(kr.refused[2], "__entry_text_start", "__entry_text_end");
	start = symbol_addr("__start_kprobe_blacklist");
	stop = symbol_addr("__stop_kprobe_blacklist");
	kr.listed = target_image_words(k, start, stop, &kr.nlisted);
}

static bool within(uint64_t addr, const uint64_t bounds[2])
{
	return bounds[0] && addr >= bounds[0] && addr < bounds[1];
}

static bool listed(uint64_t addr)
{
	return kr.nlisted && bsearch(&addr, kr.listed, kr.nlisted, sizeof(addr), by_addr);
}

const char *target_kprobe_refusal(struct target *k, const char *symbol, uint64_t offset)
{
	uint64_t addr;

	if (!k || strchr(symbol, ':'))		/* a module's: not known here */
		return NULL;
	if (!kr.loaded)
		load(k);
	addr = symbol_addr(symbol);
	if (!addr)
		return NULL;
	if (within(addr, kr.init))
		return "it is in .init.text, which the kernel frees after boot";
	if (listed(addr))
		return "the kernel's kprobe blacklist has it (NOKPROBE_SYMBOL)";
	addr += offset;
	if (within(addr, kr.refused[0]) || within(addr, kr.refused[1]) ||
	    within(addr, kr.refused[2]))
		return "it is in code the kernel does not let kprobes into "
		       "(.noinstr.text, .entry.text or .kprobes.text)";
	return NULL;
}
