/* tapdoc.c - the tapset library described: --dump-functions,
 * --dump-probe-aliases, --dump-doc (the ktap-tapsets(7) man page) and
 * --check-doc.
 *
 * Every file on the tapset path (tapindex.c lists it, as pass 2 sees it)
 * is parsed, and its functions and alias bodies resolved and typed by
 * pass 2's own code (symbols.c, types.c), so a signature is what a script
 * gets. Doc comments are read from the source text: a comment opened
 * with two stars whose lines read
 *
 *   sfunction NAME - summary
 *   @param: what it is,
 *	continued on the next line
 *
 *   Description, after an empty line.
 *
 * and "probe NAME - summary" with an @var line per variable for aliases.
 * Names that start with '_' are the tapsets' own helpers: not listed, no
 * doc comment needed.
 */
#include <stdlib.h>
#include <string.h>

#include "resolve.h"
#include "tapindex.h"
#include "tapdoc.h"

/* ---- doc comments ---- */

struct doc_param {
	char *name;
	char *text;
};

struct doc {
	bool is_probe;			/* "probe NAME", else "sfunction NAME" */
	char *name;
	char *summary;
	struct doc_param *params;
	int nparams;
	struct strbuf body;		/* paragraphs, separated by "\n\n" */
};

/* one line of a comment without its leading " * " */
static char *comment_line(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p < end && *p == '*')
		p++;
	if (p < end && (*p == ' ' || *p == '\t'))
		p++;
	while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		end--;
	return xstrndup(p, end - p);
}

static void append_text(char **dst, const char *more)
{
	char *p = *dst;

	while (*more == ' ' || *more == '\t')
		more++;
	*dst = *p ? xasprintf("%s %s", p, more) : xstrdup(more);
}

/* "sfunction NAME - summary" or "probe NAME - summary"; false if not */
static bool doc_head(struct doc *d, const char *line)
{
	const char *name, *dash;

	if (!strncmp(line, "sfunction ", 10))
		name = line + 10;
	else if (!strncmp(line, "probe ", 6)) {
		name = line + 6;
		d->is_probe = true;
	} else
		return false;
	name += strspn(name, " \t");
	dash = strstr(name, " - ");
	d->name = xstrndup(name, dash ? (size_t)(dash - name) : strcspn(name, " \t"));
	d->summary = xstrdup(dash ? dash + 3 : "");
	return *d->name != '\0';
}

/* "@name: text" starts a parameter; false if the line is not one */
static bool doc_param(struct doc *d, const char *line)
{
	size_t n;

	if (line[0] != '@')
		return false;
	n = strcspn(line + 1, ": \t");
	if (!n || line[1 + n] != ':')
		return false;
	d->params = xrealloc(d->params, (d->nparams + 1) * sizeof(*d->params));
	d->params[d->nparams].name = xstrndup(line + 1, n);
	d->params[d->nparams].text = xstrdup("");
	append_text(&d->params[d->nparams].text, line + 2 + n);
	d->nparams++;
	return true;
}

/* the lines of one comment after its head */
static void doc_lines(struct doc *d, char **lines, int n)
{
	bool in_body = false, blank = false;
	int i;

	for (i = 0; i < n; i++) {
		const char *l = lines[i];

		if (!*l) {
			blank = true;
			continue;
		}
		if (!in_body && !blank && doc_param(d, l))
			continue;
		if (!in_body && !blank) {	/* continues the summary or a param */
			append_text(d->nparams ? &d->params[d->nparams - 1].text : &d->summary, l);
			continue;
		}
		if (in_body && blank)
			sb_puts(&d->body, "\n\n");
		else if (in_body)
			sb_putc(&d->body, '\n');
		sb_puts(&d->body, l);
		in_body = true;
		blank = false;
	}
}

/* a doc comment from the text between its slash-star-star and star-slash;
 * NULL if it does not start with a head */
static struct doc *doc_parse(const char *p, const char *end)
{
	char **lines = NULL;
	int n = 0, first = 0, i;
	struct doc *d = xalloc(sizeof(*d));

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		const char *le = nl ? nl : end;

		lines = xrealloc(lines, (n + 1) * sizeof(*lines));
		lines[n++] = comment_line(p, le);
		p = le + 1;
	}
	while (first < n && !*lines[first])
		first++;
	if (first < n && doc_head(d, lines[first]))
		doc_lines(d, lines + first + 1, n - first - 1);
	else
		d = NULL;
	for (i = 0; i < n; i++)
		xfree(lines[i]);
	xfree(lines);
	return d;
}

/* every doc comment of a source text */
static struct doc **doc_comments(const struct source *src, int *n)
{
	struct doc **docs = NULL;
	const char *p = src->text;

	*n = 0;
	while ((p = strstr(p, "/**"))) {
		const char *end = strstr(p + 3, "*/");
		struct doc *d;

		if (!end)
			break;
		if (p[3] != '/' && (d = doc_parse(p + 3, end))) {
			docs = xrealloc(docs, (*n + 1) * sizeof(*docs));
			docs[(*n)++] = d;
		}
		p = end + 2;
	}
	return docs;
}

/* the file's own summary: its first line, "// NAME.stp - summary" */
static char *file_summary(const struct source *src)
{
	const char *t = src->text, *dash, *nl;

	if (strncmp(t, "//", 2))
		return xstrdup("");
	nl = strchr(t, '\n');
	dash = strstr(t, " - ");
	if (!dash || (nl && dash > nl))
		return xstrdup("");
	dash += 3;
	return xstrndup(dash, nl ? (size_t)(nl - dash) : strlen(dash));
}

/* ---- the library: files, functions, aliases ---- */

struct tap_alias {
	char *name;			/* "syscall.open" */
	struct alias *first;		/* where it is defined (first '=') */
	struct alias **defs;		/* its '=' definitions */
	struct resolved_probe **bodies;	/* each one's prologue, resolved */
	int ndefs;
	struct symbol **vars;		/* the prologues' variables, then those
					 * of the aliases it expands to */
	int nvars;
	int state;			/* 0, 1 merging, 2 merged (cycles) */
	bool helper;			/* "__vm.pagefault.user": not listed */
};

struct tap_file {
	const char *path;
	const char *base;		/* "context.stp" */
	struct file *file;
	char *summary;
	struct doc **docs;
	int ndocs;
	struct function **functions;	/* public, sorted by name */
	int nfunctions;
	struct tap_alias *aliases;	/* sorted by name */
	int naliases;
};

struct library {
	struct tap_file *files;
	int nfiles;
};

static bool is_helper(const char *name)
{
	return name[0] == '_';
}

static const struct doc *find_doc(const struct tap_file *tf, bool is_probe,
				  const char *name)
{
	int i;

	for (i = 0; i < tf->ndocs; i++)
		if (tf->docs[i]->is_probe == is_probe && !strcmp(tf->docs[i]->name, name))
			return tf->docs[i];
	return NULL;
}

/* parse every tapset file; false after parse errors (reported) */
static bool library_parse(struct library *lib, struct resolver *r)
{
	struct tapset_index *ix = tapindex_open(r->opt);
	struct file **tail = &r->files;
	int i;

	r->tapsets = ix;
	lib->files = xalloc((ix->n + 1) * sizeof(*lib->files));
	for (i = 0; i < ix->n; i++) {
		struct tap_file *tf = &lib->files[lib->nfiles];
		struct file *f = tapindex_parse(ix, &ix->entries[i]);
		const char *slash;

		if (!f)
			continue;
		ix->entries[i].loaded = true;
		*tail = f;
		tail = &f->next;
		tf->path = ix->entries[i].path;
		slash = strrchr(tf->path, '/');
		tf->base = slash ? slash + 1 : tf->path;
		tf->file = f;
		tf->summary = file_summary(f->src);
		tf->docs = doc_comments(f->src, &tf->ndocs);
		lib->nfiles++;
	}
	return diag_error_count() == 0;
}

/* a function's parameters as symbols, its body resolved (as resolve.c's
 * resolve_function does, less the target variables) */
static void resolve_one_function(struct resolver *r, struct function *fn,
				 struct file *file)
{
	sym_resolve_function(r, fn, file);
	r->prog->functions = xrealloc(r->prog->functions,
				      (r->prog->nfunctions + 1) * sizeof(fn));
	r->prog->functions[r->prog->nfunctions++] = fn;
}

/* an alias body resolved as the handler it becomes */
static void resolve_alias_body(struct resolver *r, struct alias *a,
			       struct file *file)
{
	struct scope sc = { .file = file };
	struct resolved_probe *rp = xalloc(sizeof(*rp));

	if (a->body)
		sym_resolve_stmt(r, &sc, a->body);
	rp->index = r->prog->nprobes;
	rp->loc = a->loc;
	rp->body = a->body;
	rp->locals = sc.syms;
	rp->nlocals = sc.n;
	r->prog->probes = xrealloc(r->prog->probes,
				   (r->prog->nprobes + 1) * sizeof(rp));
	r->prog->probes[r->prog->nprobes++] = rp;
}

/* pass 2's resolution and type inference, done by @work, with their
 * complaints dropped: an alias alone has no $variables' types, and a
 * tapset may call what only a generated tapset defines */
static void quietly(void (*work)(struct library *, struct resolver *),
		    struct library *lib, struct resolver *r)
{
	FILE *devnull = fopen("/dev/null", "w");

	if (devnull)
		diag_set_stream(devnull);
	work(lib, r);
	diag_set_stream(NULL);
	if (devnull)
		fclose(devnull);
	diag_reset();
}

static void infer_types(struct library *lib, struct resolver *r)
{
	(void)lib;
	types_infer(r);
}

/* types of every function and alias variable, by pass 2's inference */
static void library_types(struct library *lib, struct resolver *r)
{
	struct global_decl *g;
	struct function *fn;
	struct alias *a;
	int i;

	for (i = 0; i < lib->nfiles; i++)
		for (g = lib->files[i].file->globals; g; g = g->next)
			sym_add_global(r, g);
	for (i = 0; i < lib->nfiles; i++) {
		for (fn = lib->files[i].file->functions; fn; fn = fn->next)
			resolve_one_function(r, fn, lib->files[i].file);
		for (a = lib->files[i].file->aliases; a; a = a->next)
			resolve_alias_body(r, a, lib->files[i].file);
	}
	r->nworklist = 0;	/* every function is resolved already */
	types_infer(r);
}

static int compare_functions(const void *a, const void *b)
{
	const struct function *x = *(struct function *const *)a;
	const struct function *y = *(struct function *const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->nparams - y->nparams;
}

static int compare_aliases(const void *a, const void *b)
{
	return strcmp(((const struct tap_alias *)a)->name,
		      ((const struct tap_alias *)b)->name);
}

static void add_var(struct tap_alias *ta, struct symbol *s)
{
	int j;

	for (j = 0; j < ta->nvars; j++)
		if (!strcmp(ta->vars[j]->name, s->name))
			return;
	ta->vars = xrealloc(ta->vars, (ta->nvars + 1) * sizeof(s));
	ta->vars[ta->nvars++] = s;
}

/* the variables a prologue gives the probe body: its written locals */
static void alias_vars(struct tap_alias *ta, const struct resolved_probe *rp)
{
	int i;

	for (i = 0; i < rp->nlocals; i++) {
		struct symbol *s = rp->locals[i];

		if (s->kind == SYM_LOCAL && s->written && !is_helper(s->name))
			add_var(ta, s);
	}
}

static struct tap_alias *alias_named(struct tap_file *tf, const char *name)
{
	int i;

	for (i = 0; i < tf->naliases; i++)
		if (!strcmp(tf->aliases[i].name, name))
			return &tf->aliases[i];
	tf->aliases = xrealloc(tf->aliases, (tf->naliases + 1) * sizeof(*tf->aliases));
	memset(&tf->aliases[tf->naliases], 0, sizeof(*tf->aliases));
	tf->aliases[tf->naliases].name = xstrdup(name);
	return &tf->aliases[tf->naliases++];
}

/* each file's public functions and aliases, sorted */
static void library_index(struct library *lib, const struct program *prog)
{
	int i, k = 0;

	for (i = 0; i < lib->nfiles; i++) {
		struct tap_file *tf = &lib->files[i];
		struct function *fn;
		struct alias *a;

		for (fn = tf->file->functions; fn; fn = fn->next) {
			if (fn->is_private || is_helper(fn->name))
				continue;
			tf->functions = xrealloc(tf->functions,
						 (tf->nfunctions + 1) * sizeof(fn));
			tf->functions[tf->nfunctions++] = fn;
		}
		for (a = tf->file->aliases; a; a = a->next, k++) {
			char *name = probe_point_text(a->name);
			struct tap_alias *ta;

			if (strchr(name, '*'))
				continue;
			ta = alias_named(tf, name);
			ta->helper = is_helper(name);
			if (!a->epilogue) {
				if (!ta->first)
					ta->first = a;
				alias_vars(ta, prog->probes[k]);
				ta->defs = xrealloc(ta->defs, (ta->ndefs + 1) * sizeof(a));
				ta->bodies = xrealloc(ta->bodies,
						      (ta->ndefs + 1) * sizeof(*ta->bodies));
				ta->bodies[ta->ndefs] = prog->probes[k];
				ta->defs[ta->ndefs++] = a;
			}
			if (!ta->first)
				ta->first = a;
		}
		if (tf->nfunctions > 1)
			qsort(tf->functions, tf->nfunctions, sizeof(*tf->functions),
			      compare_functions);
		if (tf->naliases > 1)
			qsort(tf->aliases, tf->naliases, sizeof(*tf->aliases),
			      compare_aliases);
	}
}

/* the alias of that name in any file, helpers too; NULL if none */
static struct tap_alias *find_alias(struct library *lib, const char *name)
{
	int i, j;

	for (i = 0; i < lib->nfiles; i++)
		for (j = 0; j < lib->files[i].naliases; j++)
			if (!strcmp(lib->files[i].aliases[j].name, name))
				return &lib->files[i].aliases[j];
	return NULL;
}

/* an alias that expands to other aliases (syscall.open = syscall.openat
 * ?, ...) also has their variables: the body runs in each expansion */
static void merge_alias_vars(struct library *lib, struct tap_alias *ta)
{
	const struct probe_point *pp;
	struct tap_alias *sub;
	int i, j;

	if (ta->state)
		return;
	ta->state = 1;
	for (i = 0; i < ta->ndefs; i++)
		for (pp = ta->defs[i]->points; pp; pp = pp->next) {
			sub = find_alias(lib, probe_point_text(pp));
			if (!sub || sub == ta)
				continue;
			merge_alias_vars(lib, sub);
			for (j = 0; j < sub->nvars; j++)
				add_var(ta, sub->vars[j]);
		}
	ta->state = 2;
}

/* the variable NAME an alias (or those it expands to) gives, if typed */
static struct symbol *typed_var(const struct tap_alias *ta, const char *name)
{
	int j;

	for (j = 0; j < ta->nvars; j++)
		if (!strcmp(ta->vars[j]->name, name) && ta->vars[j]->type != TY_UNKNOWN)
			return ta->vars[j];
	return NULL;
}

/* A prologue that reads what the aliases it is built on set (cpu_on's
 * "task_prev = prev_task") was typed alone, so that variable is unknown:
 * give it the inner alias's type. Returns whether any type was given,
 * for inference to run again and carry it on. */
static bool types_from_inner_aliases(struct library *lib)
{
	const struct probe_point *pp;
	struct tap_alias *ta, *sub;
	struct symbol *s, *typed;
	bool given = false;
	int i, j, d, k;

	for (i = 0; i < lib->nfiles; i++)
		for (j = 0; j < lib->files[i].naliases; j++) {
			ta = &lib->files[i].aliases[j];
			for (d = 0; d < ta->ndefs; d++)
				for (k = 0; k < ta->bodies[d]->nlocals; k++) {
					s = ta->bodies[d]->locals[k];
					if (s->type != TY_UNKNOWN || s->written)
						continue;
					for (pp = ta->defs[d]->points; pp; pp = pp->next) {
						sub = find_alias(lib, probe_point_text(pp));
						if (sub && sub != ta && (typed = typed_var(sub, s->name))) {
							s->type = typed->type;
							given = true;
							break;
						}
					}
				}
		}
	return given;
}

static struct library *library_load(struct options *opt)
{
	struct library *lib = xalloc(sizeof(*lib));
	struct resolver r = { 0 };
	int i, j;

	r.opt = opt;
	r.prog = xalloc(sizeof(*r.prog));
	if (!library_parse(lib, &r))
		return NULL;
	quietly(library_types, lib, &r);
	library_index(lib, r.prog);
	for (i = 0; i < lib->nfiles; i++)
		for (j = 0; j < lib->files[i].naliases; j++)
			merge_alias_vars(lib, &lib->files[i].aliases[j]);
	if (types_from_inner_aliases(lib))
		quietly(infer_types, lib, &r);
	return lib;
}

/* ---- signatures ---- */

static const char *type_of_symbol(const struct symbol *s)
{
	return type_name(s ? s->type : TY_UNKNOWN);
}

/* "substr:string (str:string, start:long, length:long)"; a function that
 * returns nothing is "exit:unknown ()", as stap --dump-functions has it */
static char *function_signature(const struct function *fn)
{
	struct strbuf sb = { 0 };
	int i;

	sb_printf(&sb, "%s:%s (", fn->name,
		  fn->ret_type == TY_VOID ? "unknown" : type_name(fn->ret_type));
	for (i = 0; i < fn->nparams; i++)
		sb_printf(&sb, "%s%s:%s", i ? ", " : "", fn->params[i].name,
			  type_of_symbol(fn->params[i].sym));
	sb_puts(&sb, ")");
	return sb.buf;
}

/* "syscall.open name:string filename:string ..." */
static char *alias_signature(const struct tap_alias *ta)
{
	struct strbuf sb = { 0 };
	int i;

	sb_puts(&sb, ta->name);
	for (i = 0; i < ta->nvars; i++)
		sb_printf(&sb, " %s:%s", ta->vars[i]->name, type_of_symbol(ta->vars[i]));
	return sb.buf;
}

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* print lines sorted, each once (an alias in two files is one line) */
static void print_sorted(char **lines, int n)
{
	int i;

	qsort(lines, n, sizeof(*lines), compare_strings);
	for (i = 0; i < n; i++)
		if (i == 0 || strcmp(lines[i], lines[i - 1]))
			printf("%s\n", lines[i]);
}

static void dump_functions(const struct library *lib)
{
	char **lines = NULL;
	int n = 0, i, j;

	for (i = 0; i < lib->nfiles; i++)
		for (j = 0; j < lib->files[i].nfunctions; j++) {
			lines = xrealloc(lines, (n + 1) * sizeof(*lines));
			lines[n++] = function_signature(lib->files[i].functions[j]);
		}
	print_sorted(lines, n);
}

static void dump_aliases(const struct library *lib)
{
	char **lines = NULL;
	int n = 0, i, j;

	for (i = 0; i < lib->nfiles; i++)
		for (j = 0; j < lib->files[i].naliases; j++) {
			if (lib->files[i].aliases[j].helper)
				continue;
			lines = xrealloc(lines, (n + 1) * sizeof(*lines));
			lines[n++] = alias_signature(&lib->files[i].aliases[j]);
		}
	print_sorted(lines, n);
}

/* ---- --check-doc ---- */

/* any doc comment of the function fn names @name (an overloaded
 * function has a comment per overload) */
static bool doc_has_param(const struct tap_file *tf, const char *fn, const char *name)
{
	for (int k = 0; k < tf->ndocs; k++) {
		const struct doc *d = tf->docs[k];

		if (d->is_probe || strcmp(d->name, fn))
			continue;
		for (int i = 0; i < d->nparams; i++)
			if (!strcmp(d->params[i].name, name))
				return true;
	}
	return false;
}

static void check_function(const struct tap_file *tf, const struct function *fn)
{
	const struct doc *d = find_doc(tf, false, fn->name);
	int i;

	if (!d) {
		diag_error(&fn->loc, "function '%s' has no doc comment (/** sfunction %s - ... */)",
			   fn->name, fn->name);
		return;
	}
	if (!*d->summary)
		diag_error(&fn->loc, "the doc comment of function '%s' has no summary ('sfunction %s - summary')",
			   fn->name, fn->name);
	for (i = 0; i < fn->nparams; i++)
		if (!doc_has_param(tf, fn->name, fn->params[i].name))
			diag_error(&fn->params[i].loc, "the doc comment of function '%s' does not describe '@%s:'",
				   fn->name, fn->params[i].name);
}

static void check_alias(const struct tap_file *tf, const struct tap_alias *ta)
{
	const struct doc *d = find_doc(tf, true, ta->name);

	if (!d)
		diag_error(&ta->first->loc, "probe alias '%s' has no doc comment (/** probe %s - ... */)",
			   ta->name, ta->name);
	else if (!*d->summary)
		diag_error(&ta->first->loc, "the doc comment of probe alias '%s' has no summary",
			   ta->name);
}

static int check_doc(const struct library *lib)
{
	int i, j;

	for (i = 0; i < lib->nfiles; i++) {
		for (j = 0; j < lib->files[i].nfunctions; j++)
			check_function(&lib->files[i], lib->files[i].functions[j]);
		for (j = 0; j < lib->files[i].naliases; j++)
			if (!lib->files[i].aliases[j].helper)
				check_alias(&lib->files[i], &lib->files[i].aliases[j]);
	}
	return diag_error_count() ? 1 : 0;
}

/* ---- --dump-doc: ktap-tapsets(7) ---- */

/* text for troff: backslashes doubled, no control character first */
static void troff_text(FILE *out, const char *s)
{
	bool line_start = true;

	for (; *s; s++) {
		if (line_start && (*s == '.' || *s == '\''))
			fputs("\\&", out);
		if (*s == '\\')
			fputs("\\e", out);
		else if (*s == '-')
			fputs("\\-", out);
		else
			fputc(*s, out);
		line_start = *s == '\n';
	}
}

static void troff_body(FILE *out, const struct doc *d)
{
	const char *p;

	if (!d || !d->body.len)
		return;
	for (p = d->body.buf; p; ) {
		const char *para = strstr(p, "\n\n");
		char *one = para ? xstrndup(p, para - p) : xstrdup(p);

		fputs(".PP\n", out);
		troff_text(out, one);
		fputs("\n", out);
		xfree(one);
		p = para ? para + 2 : NULL;
	}
}

static void troff_params(FILE *out, const struct doc *d)
{
	int i;

	for (i = 0; d && i < d->nparams; i++) {
		fputs(".TP\n.I ", out);
		troff_text(out, d->params[i].name);
		fputs("\n", out);
		troff_text(out, d->params[i].text);
		fputs("\n", out);
	}
}

static void troff_item(FILE *out, const char *signature, const struct doc *d)
{
	fputs(".SS \"", out);
	troff_text(out, signature);
	fputs("\"\n", out);
	troff_text(out, d && *d->summary ? d->summary : "(not documented)");
	fputs("\n", out);
	troff_params(out, d);
	troff_body(out, d);
}

static void troff_file(FILE *out, const struct tap_file *tf)
{
	int i, listed = tf->nfunctions;

	for (i = 0; i < tf->naliases; i++)
		listed += !tf->aliases[i].helper;
	if (!listed)
		return;
	fputs(".SH \"", out);
	troff_text(out, tf->base);
	fputs("\"\n", out);
	if (*tf->summary) {
		troff_text(out, tf->summary);
		fputs("\n", out);
	}
	for (i = 0; i < tf->nfunctions; i++)
		troff_item(out, function_signature(tf->functions[i]),
			   find_doc(tf, false, tf->functions[i]->name));
	for (i = 0; i < tf->naliases; i++)
		if (!tf->aliases[i].helper)
			troff_item(out, xasprintf("probe %s", alias_signature(&tf->aliases[i])),
				   find_doc(tf, true, tf->aliases[i].name));
}

static void dump_doc(FILE *out, const struct library *lib)
{
	int i;

	fputs(".\\\" ktap-tapsets.7 - GENERATED by `ktap --dump-doc` from the tapsets'\n"
	      ".\\\" doc comments: edit those, not this file.\n"
	      ".TH KTAP-TAPSETS 7 \"\" \"ktap " KTAP_VERSION "\" \"ktap manual\"\n"
	      ".SH NAME\n"
	      "ktap-tapsets \\- the functions and probe aliases of ktap's tapset library\n"
	      ".SH DESCRIPTION\n"
	      "Every script can call these functions and use these probe points.\n"
	      "A signature reads\n"
	      ".IR name : type \" (\" param : type \", ...)\";\n"
	      "a function of type\n"
	      ".I unknown\n"
	      "returns nothing.\n"
	      "A probe alias lists the variables its body gives the probe handler.\n"
	      "Each section is one file of the tapset directory.\n", out);
	for (i = 0; i < lib->nfiles; i++)
		troff_file(out, &lib->files[i]);
	fputs(".SH SEE ALSO\n.BR ktap (1)\n", out);
}

/* ---- entry point ---- */

int tapdoc_run(struct options *opt, enum tapdoc_what what)
{
	struct library *lib = library_load(opt);

	if (!lib)
		return 1;
	switch (what) {
	case TAPDOC_FUNCTIONS: dump_functions(lib); return 0;
	case TAPDOC_ALIASES: dump_aliases(lib); return 0;
	case TAPDOC_MAN: dump_doc(stdout, lib); return 0;
	case TAPDOC_CHECK: return check_doc(lib);
	}
	return 1;
}
