/* procfs.c - procfs("NAME").read / .write: a file /proc/ktap/MODULE/NAME
 * that runs the probe when a program reads or writes it.
 *
 * A read runs the .read probe once per open file (at its first read) and
 * hands out what the probe left in $value, up to .maxsize(N) bytes
 * (default MAXSTRINGLEN); each write runs the .write probe with the bytes
 * written in $value. NAME defaults to "command". The file's mode is the
 * union of its probes' bits: 0444 & ~umask for .read, 0222 & ~umask for
 * .write, the umask defaulting to 0044 and 0022 (0400, 0200; 0600 for a
 * file with both), as stapprobes(3stap) describes.
 */
#include <string.h>

#include "../debuginfo.h"
#include "../program.h"

#define DEFAULT_NAME "command"

struct procfs_spec {
	const char *name;
	int64_t umask;		/* -1: none given */
	int64_t maxsize;	/* 0: none given */
	int dir;		/* 'r' or 'w' */
};

static bool name_ok(const struct pp_component *c, const char *name)
{
	const char *why = NULL;

	if (!*name)
		why = "it is empty";
	else if (strchr(name, '/'))
		why = "ktap makes files, not directories: no '/'";
	else if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		why = "it is a directory";
	else if (strcmp(name, "__stdin") == 0)
		why = "it is reserved for input probes";
	else if (strlen(name) > 64)
		why = "it is longer than 64 bytes";
	if (!why)
		return true;
	diag_error(&c->loc, "procfs file name '%s': %s", name, why);
	return false;
}

/* umask(N) and maxsize(N): a number in range */
static bool number_ok(const struct pp_component *c, int64_t lo, int64_t hi)
{
	if (c->has_arg && !c->arg_is_string && c->num_arg >= lo && c->num_arg <= hi)
		return true;
	diag_error(&c->loc, "procfs %s wants a number from %lld to %lld", c->name,
		   (long long)lo, (long long)hi);
	return false;
}

/* the components after procfs[(NAME)]; 0: not a procfs point we know */
static int parse_rest(const struct probe_point *pp, struct procfs_spec *s)
{
	int i;

	for (i = 1; i < pp->ncomps; i++) {
		const struct pp_component *c = &pp->comps[i];

		if (pp_is(pp, i, "umask") && s->dir == 0 && s->umask < 0) {
			if (!number_ok(c, 0, 0777))
				return -1;
			s->umask = c->num_arg;
		} else if (pp_is(pp, i, "maxsize") && s->dir != 'w' && !s->maxsize) {
			/* procfs("P").umask(U).maxsize(M) is a read too */
			if (!number_ok(c, 1, 1 << 20))
				return -1;
			s->maxsize = c->num_arg;
			s->dir = 'r';
		} else if ((pp_is(pp, i, "read") || pp_is(pp, i, "write")) && s->dir == 0 &&
			   !c->has_arg) {
			s->dir = c->name[0];
		} else {
			return 0;
		}
	}
	return s->dir ? 1 : 0;
}

/* $value: the probe's own string, not kernel data (runtime/procfs.h) */
static struct tvar_scope *value_scope(const char *where)
{
	struct tvar_scope *sc = xalloc(sizeof(*sc));
	struct cvar *v = xalloc(sizeof(*v));
	struct ctype *t = xalloc(sizeof(*t));

	t->kind = CT_VOID;
	t->name = "string";
	v->name = "value";
	v->type = t;
	v->str_read_c = "ktap_procfs_get(c, \1S)";
	v->str_store_c = "ktap_procfs_set(c, \1V)";
	v->str_append_c = "ktap_procfs_append(c, \1V)";
	sc->where = where;
	sc->vars = v;
	sc->nvars = 1;
	sc->no_regs = true;
	return sc;
}

int probe_procfs(const struct probe_point *pp, struct concrete_point *out)
{
	const struct pp_component *c = &pp->comps[0];
	struct procfs_spec s = { .name = DEFAULT_NAME, .umask = -1 };
	int rc;

	if (!pp_is(pp, 0, "procfs"))
		return 0;
	if (c->has_arg) {
		if (!c->arg_is_string) {
			diag_error(&c->loc, "procfs wants a file name, e.g. procfs(\"%s\")",
				   DEFAULT_NAME);
			return -1;
		}
		s.name = c->str_arg;
	}
	rc = parse_rest(pp, &s);
	if (rc <= 0)
		return rc;
	if (!name_ok(c, s.name))
		return -1;
	if (s.umask < 0)
		s.umask = s.dir == 'r' ? 0044 : 0022;
	out->kind = s.dir == 'r' ? PK_PROCFS_READ : PK_PROCFS_WRITE;
	out->procfs_name = s.name;
	out->procfs_mode = (s.dir == 'r' ? 0444 : 0222) & ~(unsigned)s.umask;
	out->procfs_maxsize = s.maxsize;
	out->pp = probe_point_text(pp);
	out->scope = value_scope(out->pp);
	return 1;
}
