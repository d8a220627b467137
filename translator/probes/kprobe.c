/* kprobe.c - kprobe.function("sym") and kprobe.function("sym").return:
 * raw kprobes by symbol name, no debuginfo needed.
 *
 * A kprobe on a symbol fires where that symbol's code runs: the
 * out-of-line copy. Where the kernel also inlines the function into its
 * callers (signal_wake_up_state into complete_signal and six more), those
 * calls never reach the symbol, and the probe can look dead. When the
 * kernel's DWARF is there, such a point is warned about, with the
 * inlined places; kernel.function probes them too. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../debuginfo.h"
#include "../program.h"
#include "../cachefile.h"
#include "../target.h"

/*
 * The target kernel's function names (System.map), if known: a kprobe on
 * a name the kernel does not have fails at translate time, so '?' and '!'
 * can pick another point. System.map is ~5 MB and most scripts have no
 * kprobe, so it is read on the first kprobe point only, and its names are
 * kept sorted in the cache (one per line) for the next run.
 */
static const char *kernel_symbols_file;
static bool kernel_symbols_loaded;
static char **kernel_symbols;
static size_t nkernel_symbols;

#define SYMBOLS_FORMAT "ktap-symbols 1"

/* where the names will come from when a kprobe needs them */
void probe_kprobe_symbols(const char *path)
{
	kernel_symbols_file = path;
	kernel_symbols_loaded = false;
	kernel_symbols = NULL;	/* (the fuzzer frees each run's memory) */
	nkernel_symbols = 0;
}

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_symbol(char *name, size_t *cap)
{
	if (nkernel_symbols == *cap) {
		*cap = *cap ? 2 * *cap : 65536;
		kernel_symbols = xrealloc(kernel_symbols, *cap * sizeof(char *));
	}
	kernel_symbols[nkernel_symbols++] = name;
}

/* "ffffffff81000000 T _stext" lines: the text (function) symbols */
static void parse_system_map(char *text)
{
	char *line, *next;
	size_t cap = 0;

	for (line = text; *line; line = next) {
		char *type, *name, *end;

		next = strchr(line, '\n');
		next = next ? next + 1 : line + strlen(line);
		type = strchr(line, ' ');
		if (!type || type >= next || type[1] == '\n' || type[2] != ' ')
			continue;
		type++;
		if (*type != 't' && *type != 'T' && *type != 'w' && *type != 'W')
			continue;
		name = type + 2;
		end = name + strcspn(name, " \t\n");
		if (end == name)
			continue;
		*end = '\0';
		add_symbol(name, &cap);
	}
	qsort(kernel_symbols, nkernel_symbols, sizeof(char *), compare_strings);
}

/* the cache's sorted names for this System.map (as it is now), if any */
static char *names_cache_path(const char *identity)
{
	char *dir = cachefile_dir("symbols");
	char *id = xasprintf("%s %s", kernel_symbols_file, identity);
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */
	const char *p;

	if (!dir)
		return NULL;
	for (p = id; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	return xasprintf("%s/%016llx", dir, (unsigned long long)h);
}

static bool read_cached_names(const char *path, const char *header)
{
	char *body, *line, *next;
	size_t cap = 0;

	if (!cachefile_read(path, header, &body))
		return false;
	for (line = body; *line; line = next) {
		next = strchr(line, '\n');
		*next++ = '\0';
		add_symbol(line, &cap);
	}
	return true;
}

static void write_cached_names(const char *path, const char *header)
{
	struct strbuf sb = { 0 };
	size_t i;

	sb_printf(&sb, "%s\n", header);
	for (i = 0; i < nkernel_symbols; i++)
		sb_printf(&sb, "%s\n", kernel_symbols[i]);
	sb_puts(&sb, "end\n");
	cachefile_write(path, sb.buf, sb.len);
	xfree(sb.buf);
}

static void load_kernel_symbols(void)
{
	char *identity, *cached, *header, *text;

	kernel_symbols_loaded = true;
	if (!kernel_symbols_file || !(identity = cachefile_identity(kernel_symbols_file)))
		return;
	cached = names_cache_path(identity);
	header = xasprintf("%s %s %s", SYMBOLS_FORMAT, identity, kernel_symbols_file);
	if (cached && read_cached_names(cached, header))
		return;
	text = read_whole_file(kernel_symbols_file, NULL);
	if (!text)
		return;
	parse_system_map(text);
	if (cached)
		write_cached_names(cached, header);
}

static bool kernel_has_symbol(const char *name)
{
	if (!kernel_symbols_loaded)
		load_kernel_symbols();
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

/* the warning for a function the kernel inlines into callers (only
 * where its DWARF is at hand: kprobes need none) */
static void warn_inlined_copies(const struct pp_component *fn)
{
	char *why = NULL;
	struct dw *dw;
	struct kfunc *copies = NULL;
	const struct kfunc *first = NULL;
	int n, i, elsewhere = 0;

	/* a tapset's own point is the tapset's business */
	if (fn->loc.src && fn->loc.src->is_tapset)
		return;
	/* a refused point gets its error, not this too */
	if (target_kprobe_refusal(target_kernel(), fn->str_arg, 0))
		return;
	dw = target_dwarf(target_kernel(), &why);
	if (!dw)
		return;
	n = dw_functions(dw, fn->str_arg, NULL, false, true, &copies);
	/* a copy inside its own out-of-line body (gcc splits some) still
	 * runs under the symbol */
	for (i = 0; i < n; i++)
		if (!copies[i].symbol || strcmp(copies[i].symbol, fn->str_arg) != 0) {
			elsewhere++;
			first = first ? first : &copies[i];
		}
	if (!elsewhere)
		return;
	diag_warning(&fn->loc, "kprobe.function(\"%s\") fires only when the out-of-line %s "
		     "is called: the kernel inlines it into %d other place%s (%s+%#llx%s), "
		     "which kernel.function(\"%s\") probes too", fn->str_arg, fn->str_arg,
		     elsewhere, elsewhere == 1 ? "" : "s", first->symbol ? first->symbol : "?",
		     (unsigned long long)first->offset, elsewhere > 1 ? " ..." : "", fn->str_arg);
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
	warn_inlined_copies(fn);
	out->kind = is_return ? PK_KRETPROBE : PK_KPROBE;
	out->symbol = fn->str_arg;
	out->pp = probe_point_text(pp);
	return 1;
}
