/* aliasvars.c - the variables a probe alias sets.
 *
 * An alias's body is the handler's prologue: its locals first seen in
 * tapset code and given a value there are what the alias offers a script
 * (syscall.read's name, fd, buf_uaddr, count, argstr). A ported script
 * that reads one the alias does not set (SystemTap's buf_uaddr spelt as
 * the kernel's buf, or the other way round) reads 0 or "", which is a
 * warning (an error with -W); the note names the alias's variables and
 * the closest of them, and for a syscall says when SystemTap documents the
 * name but ktap does not compute it.
 */
#include <string.h>

#include "aliasvars.h"
#include "sysdoc.h"

static bool set_by_alias(const struct symbol *s)
{
	return s->kind == SYM_LOCAL && s->written && s->loc.src && s->loc.src->is_tapset;
}

char *alias_vars_text(const struct resolved_probe *rp)
{
	struct strbuf sb = { 0 };

	sb_puts(&sb, "");
	if (!rp->alias_point)
		return sb.buf;
	for (int i = 0; i < rp->nlocals; i++)
		if (set_by_alias(rp->locals[i]))
			sb_printf(&sb, " %s:%s", rp->locals[i]->name,
				  rp->locals[i]->type == TY_UNKNOWN ? "unknown" :
				  type_name(rp->locals[i]->type));
	return sb.buf;
}

/* "syscall.mmap2" -> "mmap2"; NULL for an alias of no syscall family */
static const char *syscall_of(const char *alias)
{
	static const char *const families[] = { "syscall.", "nd_syscall.", "nd1_syscall.",
						"nd2_syscall." };

	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (strncmp(alias, families[i], strlen(families[i])) == 0)
			return alias + strlen(families[i]);
	return NULL;
}

static bool in_words(const char *words, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = words; p && (p = strstr(p, word)); p += n)
		if ((p == words || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

void alias_vars_note(const struct resolved_probe *rp, const struct symbol *s)
{
	const char **names;
	const char *best, *call;
	struct strbuf list = { 0 };
	int n = 0;

	if (!rp->alias_point || (diag_no_warnings && !diag_warnings_are_errors) ||
	    diag_said_before(&s->loc, s->name))
		return;
	names = xalloc((rp->nlocals + 1) * sizeof(*names));
	sb_puts(&list, "");
	for (int i = 0; i < rp->nlocals; i++)
		if (set_by_alias(rp->locals[i])) {
			names[n++] = rp->locals[i]->name;
			sb_printf(&list, "%s%s", list.len ? ", " : "", rp->locals[i]->name);
		}
	call = syscall_of(rp->alias_point);
	if (call && in_words(sysdoc_documented(call), s->name))
		diag_note(&s->loc, "SystemTap documents '%s' for %s, but ktap does not compute it yet",
			  s->name, rp->alias_point);
	best = n ? diag_closest(s->name, names, n) : NULL;
	if (best)
		diag_note(&s->loc, "%s does not set '%s': did you mean '%s'?", rp->alias_point,
			  s->name, best);
	else
		diag_note(&s->loc, "%s does not set '%s'", rp->alias_point, s->name);
	diag_note(&s->loc, "%s sets: %s", rp->alias_point, n ? list.buf : "nothing");
	xfree(names);
}

static const char *const nd_families[] = { "nd_syscall", "nd1_syscall", "nd2_syscall" };

/* (One name each instead of an alias per call and family: the tapset
 * index, which every run reads, stays a third of the size.) */
const struct probe_point *alias_family_point(const struct probe_point *pp,
					     const char **family)
{
	struct probe_point *copy;

	*family = NULL;
	if (pp->ncomps < 2)
		return pp;
	for (size_t i = 0; i < sizeof(nd_families) / sizeof(nd_families[0]); i++) {
		if (strcmp(pp->comps[0].name, nd_families[i]) != 0 || pp->comps[0].has_arg)
			continue;
		copy = xalloc(sizeof(*copy));
		*copy = *pp;
		copy->comps = xalloc(pp->ncomps * sizeof(*copy->comps));
		memcpy(copy->comps, pp->comps, pp->ncomps * sizeof(*copy->comps));
		copy->comps[0].name = "syscall";
		copy->next = NULL;
		*family = nd_families[i];
		return copy;
	}
	return pp;
}

char *alias_family_name(const char *alias_text, const char *family)
{
	if (family && strncmp(alias_text, "syscall.", 8) == 0)
		return xasprintf("%s.%s", family, alias_text + 8);
	return xstrdup(alias_text);
}
