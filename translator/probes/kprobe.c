/* kprobe.c - kprobe.function("sym") and kprobe.function("sym").return:
 * raw kprobes by symbol name, no debuginfo needed. */
#include <stdlib.h>
#include <string.h>

#include "../program.h"

/* the target kernel's function names (System.map or /proc/kallsyms), if
 * known: a kprobe on a name the kernel does not have fails at translate
 * time, so '?' and '!' can pick another point */
static char **kernel_symbols;
static size_t nkernel_symbols;
static const char *kernel_symbols_file;

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void probes_load_symbols(const char *path)
{
	FILE *f = path ? fopen(path, "r") : NULL;
	char line[512];
	size_t cap = 0;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char type, name[256];

		if (sscanf(line, "%*s %c %255s", &type, name) != 2)
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (nkernel_symbols == cap) {
			cap = cap ? 2 * cap : 65536;
			kernel_symbols = xrealloc(kernel_symbols, cap * sizeof(char *));
		}
		kernel_symbols[nkernel_symbols++] = xstrdup(name);
	}
	fclose(f);
	qsort(kernel_symbols, nkernel_symbols, sizeof(char *), compare_strings);
	kernel_symbols_file = path;
}

static bool kernel_has_symbol(const char *name)
{
	if (!nkernel_symbols)
		return true;	/* nothing to check against */
	return bsearch(&name, kernel_symbols, nkernel_symbols, sizeof(char *),
		       compare_strings) != NULL;
}

static bool valid_symbol(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!(*s == '_' || *s == '.' || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

int probe_kprobe(const struct probe_point *pp, struct concrete_point *out)
{
	const struct pp_component *fn;
	bool is_return = false;

	if (!pp_is(pp, 0, "kprobe") || !pp_is(pp, 1, "function"))
		return 0;
	fn = &pp->comps[1];
	if (!fn->has_arg || !fn->arg_is_string) {
		diag_error(&fn->loc, "kprobe.function wants a symbol name, e.g. kprobe.function(\"vfs_read\")");
		return -1;
	}
	if (!valid_symbol(fn->str_arg)) {
		diag_error(&fn->loc, "'%s' is not a kernel symbol name (wildcards need debuginfo: use kernel.function)",
			   fn->str_arg);
		return -1;
	}
	if (pp->ncomps == 3 && pp_is(pp, 2, "return") && !pp->comps[2].has_arg)
		is_return = true;
	else if (pp->ncomps != 2)
		return 0;
	if (!kernel_has_symbol(fn->str_arg)) {
		const char *best;

		if (pp->optional || pp->sufficient)
			return 0;
		diag_error(&fn->loc, "the kernel has no function '%s' (looked in %s)",
			   fn->str_arg, kernel_symbols_file);
		best = diag_closest(fn->str_arg, (const char *const *)kernel_symbols,
				    (int)nkernel_symbols);
		if (best)
			diag_note(&fn->loc, "did you mean '%s'?", best);
		return -1;
	}
	out->kind = is_return ? PK_KRETPROBE : PK_KPROBE;
	out->symbol = fn->str_arg;
	out->pp = probe_point_text(pp);
	return 1;
}
