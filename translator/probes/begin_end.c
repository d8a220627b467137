/* begin_end.c - the session's own points: 'begin', 'end' and 'error' run
 * once when the script starts, stops, or stops because of errors, each
 * with an optional sequence number (begin(N): lowest first, equal ones in
 * script order); 'init' is begin with the lowest number of all, so it
 * runs before every begin; 'never' is checked and never runs. */
#include <stdint.h>

#include "../program.h"

struct session_point {
	const char *name;
	enum probe_kind kind;
	bool takes_number;
	bool first;		/* before every other (init) */
};

static const struct session_point points[] = {
	{ "begin", PK_BEGIN, true, false },
	{ "end", PK_END, true, false },
	{ "error", PK_ERROR, true, false },
	{ "init", PK_BEGIN, false, true },
	{ "never", PK_NEVER, false, false },
};

static const struct session_point *find_point(const struct probe_point *pp)
{
	size_t i;

	for (i = 0; i < sizeof(points) / sizeof(points[0]); i++)
		if (pp_is(pp, 0, points[i].name))
			return &points[i];
	return NULL;
}

int probe_begin_end(const struct probe_point *pp, struct concrete_point *out)
{
	const struct pp_component *c = &pp->comps[0];
	const struct session_point *sp;

	if (pp->ncomps != 1 || !(sp = find_point(pp)))
		return 0;
	if (c->has_arg && (!sp->takes_number || c->arg_is_string)) {
		diag_error(&c->loc, sp->takes_number ?
			   "'%s' takes a sequence number, e.g. %s(-1)" :
			   "'%s' takes no argument%s", c->name,
			   sp->takes_number ? c->name : "");
		return -1;
	}
	out->kind = sp->kind;
	out->priority = sp->first ? INT64_MIN : c->has_arg ? c->num_arg : 0;
	out->pp = probe_point_text(pp);
	return 1;
}
