/* hwbkpt.c - kernel.data(ADDRESS)[.length(LEN)].write / .rw and
 * kernel.data("SYMBOL").write / .rw: a hardware watchpoint (one of the
 * CPU's four debug registers, on every CPU) that runs the probe after an
 * instruction writes (or reads or writes) the watched bytes.
 *
 * A symbol's address comes from the kernel's System.map (target.h); the
 * runtime checks that the kernel has the symbol there (KASLR would move
 * it) before it arms. LEN is rounded up to what x86 watches, 1, 2, 4 or
 * 8 bytes; a symbol is watched at its first byte, as stapprobes(3stap)
 * has it.
 */
#include "../ktap.h"
#include "../program.h"
#include "../target.h"

/* <linux/hw_breakpoint.h>: HW_BREAKPOINT_W and HW_BREAKPOINT_R */
#define BP_W 2
#define BP_RW 3

static int round_length(const struct pp_component *c)
{
	static const int lengths[] = { 1, 2, 4, 8 };
	size_t i;

	if (c->has_arg && !c->arg_is_string)
		for (i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++)
			if (c->num_arg >= 1 && c->num_arg <= lengths[i])
				return lengths[i];
	diag_error(&c->loc, "kernel.data length wants 1 to 8 bytes (x86 watches 1, 2, 4 or 8)");
	return 0;
}

/* the watched address: a number, or a symbol from System.map */
static bool data_address(const struct pp_component *c, struct concrete_point *out)
{
	if (!c->has_arg || (!c->arg_is_string && c->num_arg == 0)) {
		diag_error(&c->loc, "kernel.data wants an address or a symbol, e.g. "
			   "kernel.data(\"pid_max\")");
		return false;
	}
	if (!c->arg_is_string) {
		out->address = (uint64_t)c->num_arg;
		return true;
	}
	out->symbol = c->str_arg;
	out->address = target_symbol_address(target_kernel(), c->str_arg);
	if (out->address)
		return true;
	diag_error(&c->loc, "kernel.data(\"%s\"): %s", c->str_arg,
		   target_kernel()->system_map ? "the kernel's System.map has no such symbol" :
		   "no System.map for the kernel's symbols: give the target with --vm or -r");
	return false;
}

int probe_hwbkpt(const struct probe_point *pp, struct concrete_point *out)
{
	const struct pp_component *c = &pp->comps[1], *last = &pp->comps[pp->ncomps - 1];

	if (!pp_is(pp, 0, "kernel") || !pp_is(pp, 1, "data") || pp->ncomps < 3 ||
	    pp->ncomps > 4 || (!pp_is(pp, pp->ncomps - 1, "write") &&
			       !pp_is(pp, pp->ncomps - 1, "rw")) || last->has_arg ||
	    (pp->ncomps == 4 && !pp_is(pp, 2, "length")))
		return 0;
	if (!data_address(c, out))
		return -1;
	out->bp_len = 1;
	if (pp->ncomps == 4) {
		if (c->arg_is_string) {
			diag_error(&pp->comps[2].loc, "kernel.data(\"SYMBOL\") takes no length "
				   "(stapprobes(3stap)): give the address");
			return -1;
		}
		out->bp_len = round_length(&pp->comps[2]);
		if (!out->bp_len)
			return -1;
	}
	out->bp_type = pp_is(pp, pp->ncomps - 1, "rw") ? BP_RW : BP_W;
	out->kind = PK_HWBKPT;
	out->pp = probe_point_text(pp);
	if (!c->arg_is_string)	/* the address in hex, not the parser's int64 */
		out->pp = xasprintf("kernel.data(0x%llx)%s.%s", (unsigned long long)out->address,
				    pp->ncomps == 4 ? xasprintf(".length(%d)", out->bp_len) : "",
				    last->name);
	return 1;
}
