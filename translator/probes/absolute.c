/* absolute.c - kernel.statement(ADDR).absolute and
 * kprobe.statement(ADDR).absolute: a kprobe at a raw kernel address,
 * guru mode only (stapprobes(3stap)): nothing checks that ADDR is the
 * start of an instruction, so only the kprobes layer's own vetting
 * (kernel text, not blacklisted, an instruction boundary it can decode)
 * stands between a wrong number and the kernel. No target variables:
 * there is no debuginfo scope at an address nobody named. */
#include "../ktap.h"
#include "../program.h"

int probe_absolute(const struct probe_point *pp, struct concrete_point *out)
{
	const struct pp_component *c = &pp->comps[1];

	if (pp->ncomps != 3 || !(pp_is(pp, 0, "kernel") || pp_is(pp, 0, "kprobe")) ||
	    !pp_is(pp, 1, "statement") || !pp_is(pp, 2, "absolute") || c->arg_is_string)
		return 0;
	if (!c->has_arg || c->num_arg == 0 || pp->comps[2].has_arg) {
		diag_error(&c->loc, "%s.statement(ADDRESS).absolute wants a kernel address, "
			   "e.g. 0xffffffff81000000", pp->comps[0].name);
		return -1;
	}
	out->kind = PK_KPROBE;
	out->address = (uint64_t)c->num_arg;
	out->guru_only = true;
	/* as stap spells it: the address in hex, not the parser's int64 */
	out->pp = xasprintf("%s.statement(0x%llx).absolute", pp->comps[0].name,
			    (unsigned long long)out->address);
	return 1;
}
