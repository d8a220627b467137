/* tapindex.c - what each tapset file defines, kept in the cache.
 *
 * Parsing every tapset on every run costs more than the rest of pass 2:
 * the generated syscall tapset alone is ~10,000 lines. The index says,
 * for each file on the tapset path, which probe aliases (their names'
 * components), public functions (with arity) and public globals it
 * defines, so resolve.c parses a file only when the script reaches one
 * of them.
 *
 * <cache>/tapindex/index is text, one block per file:
 *   file<TAB>PATH<TAB>IDENTITY     (cachefile_identity(): size, mtime,
 *                                   ctime, inode, device)
 *   alias<TAB>KIND<TAB>NAME<TAB>ARG...   (per component: KIND '-' no
 *                                   argument, 's' a string, 'n' a number)
 *   function<TAB>NAME<TAB>ARITY
 *   global<TAB>NAME
 *   eager                          (what it defines depends on %(
 *                                   conditions: loaded every time)
 * A file whose identity changed is parsed and indexed again, and the
 * index rewritten whole (cachefile.c). The header names the .stpm macro
 * files as they were: macros could expand to definitions, so when one of
 * them changes the whole index is made again.
 */
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "tapindex.h"
#include "cachefile.h"

#define INDEX_FORMAT "ktap-tapindex 1"

/* ---- the tapset path ---- */

static void add_entry(struct tapset_index *ix, const char *path)
{
	struct tapset_entry *e;

	ix->entries = xrealloc(ix->entries, (ix->n + 1) * sizeof(*ix->entries));
	e = &ix->entries[ix->n];
	memset(e, 0, sizeof(*e));
	e->path = xstrdup(path);
	e->rank = ix->n++;
}

static bool has_suffix(const char *name, const char *suffix)
{
	size_t n = strlen(name), k = strlen(suffix);

	return n > k && strcmp(name + n - k, suffix) == 0;
}

/* the files DIR/ *SUFFIX in name order */
static char **list_dir(const char *dir, const char *suffix, int *n)
{
	struct dirent **names;
	char **paths = NULL;
	int count, i;

	*n = 0;
	count = scandir(dir, &names, NULL, alphasort);
	for (i = 0; i < count; i++) {
		if (has_suffix(names[i]->d_name, suffix)) {
			paths = xrealloc(paths, (*n + 1) * sizeof(*paths));
			paths[(*n)++] = xasprintf("%s/%s", dir, names[i]->d_name);
		}
		free(names[i]);
	}
	if (count >= 0)
		free(names);
	return paths;
}

static void add_dir(struct tapset_index *ix, const char *dir)
{
	int n, i;
	char **paths = list_dir(dir, ".stp", &n);

	for (i = 0; i < n; i++)
		add_entry(ix, paths[i]);
}

/* the tapset directories, in the order their files are searched */
static char **tapset_dirs(const struct options *opt, int *n)
{
	char **dirs = xalloc((opt->ninclude_dirs + 2) * sizeof(*dirs));
	const char *gen;
	int i;

	*n = 0;
	for (i = 0; i < opt->ninclude_dirs; i++)
		dirs[(*n)++] = xstrdup(opt->include_dirs[i]);
	dirs[(*n)++] = xasprintf("%s/tapsets", opt->data_dir);
	/* syscall.NAME for every system call of the target kernel */
	if ((gen = syscalls_tapset_dir(opt)))
		dirs[(*n)++] = xstrdup(gen);
	return dirs;
}

/* the .stpm files as they are: a change to one invalidates the index */
static char *macros_stamp(char **dirs, int ndirs)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */
	int d, n, i;

	for (d = 0; d < ndirs; d++) {
		char **paths = list_dir(dirs[d], ".stpm", &n);

		for (i = 0; i < n; i++) {
			char *id = cachefile_identity(paths[i]);
			char *line = xasprintf("%s %s\n", paths[i], id ? id : "missing");
			const char *p;

			for (p = line; *p; p++)
				h = (h ^ (unsigned char)*p) * 1099511628211ULL;
		}
	}
	return xasprintf("%s %s macros %016llx", INDEX_FORMAT, KTAP_VERSION,
			 (unsigned long long)h);
}

/* ---- what one file defines ---- */

static void push_name(char ***list, int *n, const char *name)
{
	*list = xrealloc(*list, (*n + 1) * sizeof(**list));
	(*list)[(*n)++] = xstrdup(name);
}

static void add_function(struct tapset_entry *e, const char *name, int arity)
{
	e->arities = xrealloc(e->arities, (e->nfunctions + 1) * sizeof(int));
	e->arities[e->nfunctions] = arity;
	push_name(&e->functions, &e->nfunctions, name);
}

static void add_alias(struct tapset_entry *e, struct probe_point *name)
{
	e->aliases = xrealloc(e->aliases, (e->naliases + 1) * sizeof(*e->aliases));
	e->aliases[e->naliases++] = name;
}

static void clear_definitions(struct tapset_entry *e)
{
	e->naliases = e->nfunctions = e->nglobals = 0;
	e->eager = false;
}

/* text the index format can hold in a field */
static bool storable(const char *s)
{
	return s && !strpbrk(s, "\t\n");
}

static bool alias_storable(const struct probe_point *pp)
{
	int i;

	for (i = 0; i < pp->ncomps; i++)
		if (!storable(pp->comps[i].name) ||
		    (pp->comps[i].arg_is_string && !storable(pp->comps[i].str_arg)))
			return false;
	return true;
}

/* take the definitions from a parsed file */
static void describe(struct tapset_entry *e, const struct file *f)
{
	const struct alias *a;
	const struct function *fn;
	const struct global_decl *g;

	clear_definitions(e);
	/* what a file defines under %( conditions depends on the kernel,
	 * the options and the arguments: such files are always parsed (a
	 * @define body's %( %) is not a condition) */
	if (f->src->has_conditional) {
		e->eager = true;
		return;
	}
	for (a = f->aliases; a; a = a->next) {
		if (!alias_storable(a->name))
			e->eager = true;
		add_alias(e, a->name);
	}
	for (fn = f->functions; fn; fn = fn->next)
		if (!fn->is_private)
			add_function(e, fn->name, fn->nparams);
	for (g = f->globals; g; g = g->next)
		if (!g->is_private)
			push_name(&e->globals, &e->nglobals, g->name);
}

struct file *tapindex_parse(struct tapset_index *ix, struct tapset_entry *e)
{
	struct source *src;

	if (e->file)
		return e->file;
	src = source_from_file(e->path);
	if (!src)
		return NULL;
	src->is_tapset = true;
	if (ix->verbose >= 2)
		fprintf(stderr, "Pass 2: parsing tapset %s\n", e->path);
	e->file = parse_source(src);
	return e->file;
}

/* parse a file that is new or changed and describe it; a file with
 * errors is not indexed (they are reported, and pass 2 stops) */
static bool index_file(struct tapset_index *ix, struct tapset_entry *e)
{
	int errors = diag_error_count();
	struct file *f;

	e->identity = cachefile_identity(e->path);
	f = tapindex_parse(ix, e);
	if (!f || !e->identity || diag_error_count() != errors) {
		e->identity = NULL;
		e->eager = true;	/* loaded, so it is as today */
		return false;
	}
	describe(e, f);
	return true;
}

/* ---- the index on disk ---- */

static struct tapset_entry *find_entry(struct tapset_index *ix, const char *path)
{
	int i;

	for (i = 0; i < ix->n; i++)
		if (strcmp(ix->entries[i].path, path) == 0)
			return &ix->entries[i];
	return NULL;
}

/* a file on the path twice (-I of tapsets/): what the first says */
static bool share_definitions(struct tapset_index *ix, struct tapset_entry *e)
{
	struct tapset_entry *first = find_entry(ix, e->path);

	if (first == e || !first->identity)
		return false;
	e->identity = first->identity;
	e->eager = first->eager;
	e->aliases = first->aliases;
	e->naliases = first->naliases;
	e->functions = first->functions;
	e->arities = first->arities;
	e->nfunctions = first->nfunctions;
	e->globals = first->globals;
	e->nglobals = first->nglobals;
	return true;
}

static char **split_tabs(char *line, int *n)
{
	char **fields = NULL, *save = NULL, *tok;

	*n = 0;
	for (tok = strtok_r(line, "\t", &save); tok; tok = strtok_r(NULL, "\t", &save)) {
		fields = xrealloc(fields, (*n + 1) * sizeof(*fields));
		fields[(*n)++] = tok;
	}
	return fields;
}

/* alias<TAB>KIND<TAB>NAME<TAB>ARG ... back into a probe point */
static struct probe_point *read_alias(char **fields, int n)
{
	struct probe_point *pp = xalloc(sizeof(*pp));
	int i;

	if ((n - 1) % 3 != 0 || n < 4)
		return NULL;
	pp->ncomps = (n - 1) / 3;
	pp->comps = xalloc(pp->ncomps * sizeof(*pp->comps));
	for (i = 0; i < pp->ncomps; i++) {
		struct pp_component *c = &pp->comps[i];
		const char *kind = fields[1 + 3 * i], *arg = fields[3 + 3 * i];

		c->name = xstrdup(fields[2 + 3 * i]);
		c->has_arg = kind[0] != '-';
		c->arg_is_string = kind[0] == 's';
		if (c->arg_is_string)
			c->str_arg = xstrdup(arg + 1);	/* "=text": may be empty */
		else if (c->has_arg)
			c->num_arg = strtoll(arg, NULL, 10);
	}
	return pp;
}

/* one line of a file's block; false if the index is damaged */
static bool read_definition(struct tapset_entry *e, char **fields, int n)
{
	if (strcmp(fields[0], "alias") == 0) {
		struct probe_point *pp = read_alias(fields, n);

		if (!pp)
			return false;
		add_alias(e, pp);
	} else if (strcmp(fields[0], "function") == 0 && n == 3) {
		add_function(e, fields[1], atoi(fields[2]));
	} else if (strcmp(fields[0], "global") == 0 && n == 2) {
		push_name(&e->globals, &e->nglobals, fields[1]);
	} else if (strcmp(fields[0], "eager") == 0) {
		e->eager = true;
	} else {
		return false;
	}
	return true;
}

/* the newest generation directory (by mtime) in a tree directory of the
 * generated syscall tapset, <cache>/syscalls/TREE/GEN; NULL when none */
/* what newest_generation() and superseded_generation() found in this
 * run: tapindex_open() forgets it (the fuzzer frees each run's memory) */
static char **gen_trees, **gen_newest, *gen_root;
static int gen_n;

static const char *newest_generation(const char *tree)
{
	DIR *d;
	struct dirent *de;
	struct stat st;
	time_t best = 0;
	char *found = NULL;
	int i;

	for (i = 0; i < gen_n; i++)
		if (strcmp(gen_trees[i], tree) == 0)
			return gen_newest[i];
	if ((d = opendir(tree))) {
		while ((de = readdir(d)))
			if (de->d_name[0] != '.' &&
			    fstatat(dirfd(d), de->d_name, &st, 0) == 0 &&
			    S_ISDIR(st.st_mode) && (!found || st.st_mtime > best)) {
				best = st.st_mtime;
				found = xasprintf("%s/%s", tree, de->d_name);
			}
		closedir(d);
	}
	gen_trees = xrealloc(gen_trees, (gen_n + 1) * sizeof(*gen_trees));
	gen_newest = xrealloc(gen_newest, (gen_n + 1) * sizeof(*gen_newest));
	gen_trees[gen_n] = xstrdup(tree);
	gen_newest[gen_n++] = found;
	return found;
}

/*
 * Whether a file outside this run's path is a generated syscall tapset
 * file that a newer generation of its tree replaced. Every change of ktap
 * (its binary is an input) makes a new generation, and the old ones stay
 * on disk for a while for runs still reading them: kept in the index, a
 * developer's index grew by ~400 blocks per rebuild, and pass 2 of hello
 * world went from 3 ms to 70-110 ms reading them.
 */
static bool superseded_generation(const char *path)
{
	char *gen, *tree, *slash;
	const char *newest;
	size_t len;

	if (!gen_root && !(gen_root = cachefile_dir("syscalls")))
		return false;
	len = strlen(gen_root);
	if (strncmp(path, gen_root, len) != 0 || path[len] != '/')
		return false;
	gen = xstrdup(path);
	if (!(slash = strrchr(gen, '/')))
		return false;
	*slash = '\0';			/* <root>/TREE/GEN */
	tree = xstrdup(gen);
	if (!(slash = strrchr(tree, '/')) || slash - tree <= (ptrdiff_t)len)
		return false;
	*slash = '\0';			/* <root>/TREE */
	newest = newest_generation(tree);
	return !newest || strcmp(newest, gen) != 0;
}

/* a block of a file that is not on this run's tapset path (another run's
 * -I directory, another kernel's generated syscall tapset): kept as it is
 * while the file is unchanged and not superseded */
static bool keep_other(struct strbuf *others, char **fields)
{
	char *now = cachefile_identity(fields[1]);

	if (!now || strcmp(now, fields[2]) != 0 || superseded_generation(fields[1]))
		return false;
	sb_printf(others, "file\t%s\t%s\n", fields[1], fields[2]);
	return true;
}

/* take from the saved index the blocks of files still as they were */
static void read_index(struct tapset_index *ix, const char *path, const char *header)
{
	char *body, *line, *save = NULL;
	struct tapset_entry *cur = NULL;
	bool other = false;

	if (!path || !cachefile_read(path, header, &body))
		return;
	for (line = strtok_r(body, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *raw = xstrdup(line);
		int n;
		char **fields = split_tabs(line, &n);

		if (n == 3 && strcmp(fields[0], "file") == 0) {
			cur = find_entry(ix, fields[1]);
			other = !cur && keep_other(&ix->others, fields);
			if (cur && cur->identity)
				cur = NULL;	/* a second block: keep the first */
			if (cur) {
				char *now = cachefile_identity(cur->path);

				if (now && strcmp(now, fields[2]) == 0)
					cur->identity = xstrdup(fields[2]);
				else
					cur = NULL;
			}
		} else if (other) {
			sb_printf(&ix->others, "%s\n", raw);
		} else if (cur && (n == 0 || !read_definition(cur, fields, n))) {
			cur->identity = NULL;	/* damaged: index it again */
			clear_definitions(cur);
			cur = NULL;
		}
		xfree(raw);
		xfree(fields);
	}
}

static void write_alias(struct strbuf *sb, const struct probe_point *pp)
{
	int i;

	sb_puts(sb, "alias");
	for (i = 0; i < pp->ncomps; i++) {
		const struct pp_component *c = &pp->comps[i];

		if (c->arg_is_string)
			sb_printf(sb, "\ts\t%s\t=%s", c->name, c->str_arg);
		else if (c->has_arg)
			sb_printf(sb, "\tn\t%s\t%lld", c->name, (long long)c->num_arg);
		else
			sb_printf(sb, "\t-\t%s\t-", c->name);
	}
	sb_puts(sb, "\n");
}

static void write_index(const struct tapset_index *ix, const char *path,
			const char *header)
{
	struct strbuf sb = { 0 };
	int i, j;

	sb_printf(&sb, "%s\n", header);
	for (i = 0; i < ix->n; i++) {
		const struct tapset_entry *e = &ix->entries[i];

		if (!e->identity || !storable(e->path) ||
		    find_entry((struct tapset_index *)ix, e->path) != e)
			continue;
		sb_printf(&sb, "file\t%s\t%s\n", e->path, e->identity);
		if (e->eager) {
			sb_puts(&sb, "eager\n");
			continue;
		}
		for (j = 0; j < e->naliases; j++)
			write_alias(&sb, e->aliases[j]);
		for (j = 0; j < e->nfunctions; j++)
			sb_printf(&sb, "function\t%s\t%d\n", e->functions[j], e->arities[j]);
		for (j = 0; j < e->nglobals; j++)
			sb_printf(&sb, "global\t%s\n", e->globals[j]);
	}
	if (ix->others.len)
		sb_puts(&sb, ix->others.buf);
	sb_puts(&sb, "end\n");
	cachefile_write(path, sb.buf, sb.len);
	xfree(sb.buf);
}

struct tapset_index *tapindex_open(const struct options *opt)
{
	struct tapset_index *ix = xalloc(sizeof(*ix));
	char *dir = cachefile_dir("tapindex");
	char *path = dir ? xasprintf("%s/index", dir) : NULL;
	char *header;
	char **dirs;
	int ndirs, i, indexed = 0;

	gen_trees = gen_newest = NULL;
	gen_root = NULL;
	gen_n = 0;
	ix->verbose = opt->verbose;
	dirs = tapset_dirs(opt, &ndirs);
	for (i = 0; i < ndirs; i++)
		add_dir(ix, dirs[i]);
	header = macros_stamp(dirs, ndirs);
	read_index(ix, path, header);
	for (i = 0; i < ix->n; i++) {
		struct tapset_entry *e = &ix->entries[i];

		if (e->identity || share_definitions(ix, e))
			continue;
		if (index_file(ix, e))
			indexed++;
	}
	if (indexed && path)
		write_index(ix, path, header);
	if (indexed && opt->verbose >= 2)
		fprintf(stderr, "Pass 2: indexed %d tapset file%s in %s\n", indexed,
			indexed == 1 ? "" : "s", path ? path : "memory (no cache)");
	return ix;
}

bool tapindex_defines_function(const struct tapset_entry *e, const char *name)
{
	int i;

	for (i = 0; i < e->nfunctions; i++)
		if (strcmp(e->functions[i], name) == 0)
			return true;
	return false;
}

bool tapindex_defines_global(const struct tapset_entry *e, const char *name)
{
	int i;

	for (i = 0; i < e->nglobals; i++)
		if (strcmp(e->globals[i], name) == 0)
			return true;
	return false;
}
