/* begin_end.c - 'begin' and 'end': run once when the script starts or stops. */
#include "../program.h"

int probe_begin_end(const struct probe_point *pp, struct concrete_point *out)
{
	if (pp->ncomps != 1)
		return 0;
	if (pp_is(pp, 0, "begin"))
		out->kind = PK_BEGIN;
	else if (pp_is(pp, 0, "end"))
		out->kind = PK_END;
	else
		return 0;
	if (pp->comps[0].has_arg) {
		diag_error(&pp->comps[0].loc, "'%s' takes no argument here",
			   pp->comps[0].name);
		return -1;
	}
	out->pp = probe_point_text(pp);
	return 1;
}
