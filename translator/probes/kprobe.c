/* kprobe.c - kprobe.function("sym") and kprobe.function("sym").return:
 * raw kprobes by symbol name, no debuginfo needed. */
#include <string.h>

#include "../program.h"

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
	out->kind = is_return ? PK_KRETPROBE : PK_KPROBE;
	out->symbol = fn->str_arg;
	out->pp = probe_point_text(pp);
	return 1;
}
