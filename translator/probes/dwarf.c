/* dwarf.c - kernel.function("PATTERN") and kernel.statement("PATTERN"):
 * probes placed and typed by the kernel's debuginfo.
 *
 * PATTERN is func[@file][:line | :* | :first-last]. The DWARF (dwarf.c,
 * libdw) gives every instance, inlined copies included, and the variables
 * at each address; without DWARF, BTF (btf.c) still gives out-of-line
 * function entries and their parameters.
 */
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../ktap.h"
#include "../debuginfo.h"
#include "../program.h"

/* ---- the target kernel's debuginfo, opened once ---- */

static struct {
	bool set;
	const char *release;
	const char *build_id;		/* of the image that runs, when known */
	const char *vm_dir;
	bool tried_dwarf, tried_btf;
	struct dw *dw;
	struct btf_kernel *btf;
	char *dw_why, *btf_why;
} target;

static bool target_is_this_machine(void);

/* the running kernel's build-id, from its raw notes */
static char *running_kernel_build_id(void)
{
	size_t len, off = 0;
	char *notes = read_whole_file("/sys/kernel/notes", &len);
	struct strbuf hex = { 0 };

	while (notes && off + 12 <= len) {
		const uint32_t *h = (const uint32_t *)(notes + off);
		size_t name = off + 12, desc = name + ((h[0] + 3) & ~3u);

		if (desc + h[1] > len)
			break;
		if (h[2] == 3 && h[0] == 4 && memcmp(notes + name, "GNU", 4) == 0) {
			for (uint32_t i = 0; i < h[1]; i++)
				sb_printf(&hex, "%02x", (unsigned char)notes[desc + i]);
			return hex.buf;
		}
		off = desc + ((h[1] + 3) & ~3u);
	}
	return NULL;
}

/* the GNU build-id note of an ELF file, in hex; NULL if it has none */
static char *elf_file_build_id(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct strbuf hex = { 0 };
	const unsigned char *id;
	ssize_t n, i;
	Elf *e;

	if (fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	n = e ? dwelf_elf_gnu_build_id(e, (const void **)&id) : -1;
	for (i = 0; i < n; i++)
		sb_printf(&hex, "%02x", id[i]);
	if (e)
		elf_end(e);
	close(fd);
	return n > 0 ? hex.buf : NULL;
}

/* the build-id of the kernel that will run: the guest's bootable image,
 * or this machine's running kernel */
static const char *running_build_id(void)
{
	if (target.vm_dir) {
		char *id = elf_file_build_id(xasprintf("%s/vmlinux-pvh", target.vm_dir));

		if (id)
			return id;
	}
	return target_is_this_machine() ? running_kernel_build_id() : NULL;
}

/* -r BUILD_DIR (".../linux-headers-REL"), -r REL, --vm, or this machine */
void probes_set_target(const struct options *opt)
{
	const char *rel = opt->release;
	struct utsname u;

	target.set = true;
	if (opt->vm) {
		target.release = vm_kernel_release(opt);
		if (target.release)
			target.vm_dir = xasprintf("%s/vm/%s", ktap_cache_dir(), target.release);
	} else if (rel && strchr(rel, '/')) {
		const char *base = strrchr(rel, '/') + 1;

		if (!*base) {
			char *copy = xstrndup(rel, strlen(rel) - 1);

			base = strrchr(copy, '/') ? strrchr(copy, '/') + 1 : copy;
		}
		if (strncmp(base, "linux-headers-", 14) == 0)
			base += 14;
		target.release = base;
	} else if (rel) {
		target.release = rel;
	} else if (uname(&u) == 0) {
		target.release = xstrdup(u.release);
	}
	if (target.release && !target.vm_dir) {
		/* the ktap guest's cache, when it has this kernel */
		char *dir = xasprintf("%s/vm/%s", ktap_cache_dir(), target.release);
		char *probe = xasprintf("%s/vmlinux-pvh", dir);

		if (access(probe, R_OK) == 0)
			target.vm_dir = dir;
	}
	target.build_id = running_build_id();
}

static bool target_is_this_machine(void)
{
	struct utsname u;

	return target.release && uname(&u) == 0 && strcmp(u.release, target.release) == 0;
}

/* KTAP_DEBUGINFO=btf: ignore the DWARF (to test the BTF fallback) */
static bool dwarf_disabled(void)
{
	const char *v = getenv("KTAP_DEBUGINFO");

	return v && strcmp(v, "btf") == 0;
}

struct dw *probes_dwarf(char **why)
{
	if (!target.tried_dwarf) {
		target.tried_dwarf = true;
		if (dwarf_disabled())
			target.dw_why = xstrdup("DWARF is disabled (KTAP_DEBUGINFO=btf)");
		else if (!target.release)
			target.dw_why = xstrdup("the target kernel's release is not known");
		else
			target.dw = dw_open(target.release, target.build_id, target.vm_dir,
					   &target.dw_why);
	}
	if (!target.dw && why)
		*why = target.dw_why;
	return target.dw;
}

struct btf_kernel *probes_btf(char **why)
{
	if (!target.tried_btf) {
		target.tried_btf = true;
		/* without the guest's image, only this machine's own BTF is
		 * at hand, and it describes only this machine's kernel */
		if (!target.vm_dir && !target_is_this_machine())
			target.btf_why = xasprintf("no BTF for kernel %s here (this machine "
						   "runs another kernel)", target.release);
		else
			target.btf = btfk_open(target.vm_dir, &target.btf_why);
	}
	if (!target.btf && why)
		*why = target.btf_why;
	return target.btf;
}

/* ---- the pattern ---- */

struct fn_pattern {
	char *func;		/* name glob */
	char *file;		/* file glob, or NULL */
	bool has_lines;		/* :N, :N-M or :* */
	int first, last;	/* lines; 0..INT_MAX for :* */
};

static bool parse_pattern(const struct pp_component *c, struct fn_pattern *p)
{
	char *s = xstrdup(c->str_arg), *at, *colon;

	memset(p, 0, sizeof(*p));
	colon = strrchr(s, ':');
	at = strchr(s, '@');
	if (colon && at && colon > at) {
		char *end;

		*colon++ = '\0';
		p->has_lines = true;
		if (strcmp(colon, "*") == 0) {
			p->first = 0;
			p->last = 1 << 30;
		} else {
			p->first = (int)strtol(colon, &end, 10);
			p->last = *end == '-' ? (int)strtol(end + 1, &end, 10) : p->first;
			if (*end || p->first <= 0 || p->last < p->first) {
				diag_error(&c->loc, "bad line in '%s': want :N, :N-M or :*",
					   c->str_arg);
				return false;
			}
		}
	}
	if (at) {
		*at = '\0';
		p->file = at + 1;
	}
	p->func = s;
	if (!*p->func) {
		diag_error(&c->loc, "'%s' names no function", c->str_arg);
		return false;
	}
	return true;
}

static bool is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* ---- suffixes: .call .return .inline .exported .maxactive(N) ---- */

struct fn_suffix {
	bool is_return, call_only, inline_only, exported_only;
	int maxactive;
};

static bool parse_suffixes(const struct probe_point *pp, int first,
			   struct fn_suffix *sx, bool statement)
{
	int i;

	memset(sx, 0, sizeof(*sx));
	for (i = first; i < pp->ncomps; i++) {
		const struct pp_component *c = &pp->comps[i];
		const char *n = c->name;

		if (!statement && strcmp(n, "return") == 0 && !c->has_arg)
			sx->is_return = true;
		else if (!statement && strcmp(n, "call") == 0 && !c->has_arg)
			sx->call_only = true;
		else if (!statement && strcmp(n, "inline") == 0 && !c->has_arg)
			sx->inline_only = true;
		else if (strcmp(n, "exported") == 0 && !c->has_arg)
			sx->exported_only = true;
		else if (sx->is_return && strcmp(n, "maxactive") == 0 && c->has_arg &&
			 !c->arg_is_string && c->num_arg > 0)
			sx->maxactive = (int)c->num_arg;
		else
			return false;
	}
	if (sx->inline_only && (sx->is_return || sx->call_only)) {
		diag_error(&pp->comps[first].loc, ".inline cannot be combined with .call or .return");
		return false;
	}
	return true;
}

/* ---- concrete points ---- */

static char *point_text(const struct kfunc *f, const char *kind, int line,
			const struct fn_suffix *sx)
{
	const char *file = f->decl_file ? f->decl_file : "";
	const char *slash = strstr(file, "/linux-");

	/* DWARF paths may be absolute build paths: show them from the
	 * source tree's root, as users know them */
	if (slash && strchr(slash + 1, '/'))
		file = strchr(slash + 1, '/') + 1;
	return xasprintf("kernel.%s(\"%s%s%s:%d\")%s", kind, f->name, *file ? "@" : "",
			 file, line ? line : f->decl_line, sx && sx->is_return ? ".return" : "");
}

static struct target_scope *entry_scope(struct dw *dw, struct btf_kernel *btf,
					const struct kfunc *f, uint64_t pc,
					const char *where, bool is_return)
{
	struct target_scope *sc = xalloc(sizeof(*sc));

	sc->where = where;
	sc->is_return = is_return;
	sc->return_type = f->return_type;
	if (dw)
		sc->nvars = dw_variables(dw, f, pc, &sc->vars);
	else
		sc->nvars = btfk_parameters(btf, f, &sc->vars);
	return sc;
}

/* append a concrete point to the chain that starts at *out */
static struct concrete_point *next_point(struct concrete_point *out, int *n)
{
	struct concrete_point *cp;

	if ((*n)++ == 0)
		return out;
	for (cp = out; cp->next; cp = cp->next)
		;
	cp->next = xalloc(sizeof(*cp));
	return cp->next;
}

static void add_function_point(struct concrete_point *out, int *n, struct dw *dw,
			       struct btf_kernel *btf, const struct kfunc *f,
			       const struct fn_suffix *sx, bool wildcard)
{
	struct concrete_point *cp = next_point(out, n);

	cp->kind = sx->is_return ? PK_KRETPROBE : PK_KPROBE;
	cp->symbol = f->symbol;
	cp->offset = f->offset;
	cp->maxactive = sx->maxactive;
	cp->pp = dw ? point_text(f, "function", 0, sx)
		    : xasprintf("kernel.function(\"%s\")%s", f->name,
				sx->is_return ? ".return" : "");
	cp->scope = entry_scope(dw, btf, f, f->addr, cp->pp, sx->is_return);
	/* one point of many that the kernel will not let us probe (notrace,
	 * blacklisted) must not stop the others */
	cp->optional = wildcard;
}

static bool wanted(const struct kfunc *f, const struct fn_suffix *sx)
{
	if (sx->exported_only && !f->exported)
		return false;
	if (sx->inline_only && !f->inlined)
		return false;
	if ((sx->call_only || sx->is_return) && f->inlined)
		return false;
	return true;
}

static int statement_points(struct concrete_point *out, int *n, struct dw *dw,
			    const struct kfunc *f, const struct fn_pattern *p,
			    bool wildcard)
{
	uint64_t *addrs;
	int *lines, k, i;

	k = dw_statements(dw, f, p->file, p->first, p->last, &addrs, &lines);
	for (i = 0; i < k; i++) {
		struct concrete_point *cp = next_point(out, n);
		struct kfunc at = *f;

		at.offset = f->offset + (addrs[i] - f->addr);
		at.addr = addrs[i];
		cp->kind = PK_KPROBE;
		cp->symbol = f->symbol;
		cp->offset = at.offset;
		cp->pp = point_text(f, "statement", lines[i], NULL);
		cp->scope = entry_scope(dw, NULL, &at, addrs[i], cp->pp, false);
		cp->optional = wildcard || p->first != p->last;
	}
	return k;
}

static void no_match(const struct pp_component *c, const struct fn_pattern *p,
		     struct dw *dw, struct btf_kernel *btf)
{
	struct kfunc *all;
	const char **names;
	const char *best;
	int n, i;

	diag_error(&c->loc, "no kernel function matches '%s'", c->str_arg);
	if (is_glob(p->func))
		return;
	n = dw ? dw_functions(dw, "*", NULL, true, false, &all)
	       : btfk_functions(btf, "*", &all);
	names = xalloc((n + 1) * sizeof(*names));
	for (i = 0; i < n; i++)
		names[i] = all[i].name;
	best = diag_closest(p->func, names, n);
	if (best)
		diag_note(&c->loc, "did you mean '%s'?", best);
}

static int resolve_functions(const struct probe_point *pp, struct concrete_point *out,
			     bool statement)
{
	const struct pp_component *c = &pp->comps[1];
	struct fn_pattern p;
	struct fn_suffix sx;
	struct dw *dw;
	struct btf_kernel *btf = NULL;
	struct kfunc *fs;
	char *why = NULL, *bwhy = NULL;
	int nf, n = 0, i;

	if (!c->has_arg || !c->arg_is_string) {
		diag_error(&c->loc, "kernel.%s wants a pattern, e.g. kernel.%s(\"vfs_read\")",
			   c->name, c->name);
		return -1;
	}
	if (!parse_pattern(c, &p))
		return -1;
	if (!parse_suffixes(pp, 2, &sx, statement))
		return 0;
	dw = probes_dwarf(&why);
	if (!dw) {
		btf = (statement || p.has_lines || sx.inline_only || p.file) ? NULL
									  : probes_btf(&bwhy);
		if (!btf) {
			diag_error(&c->loc, "kernel.%s(\"%s\") needs the kernel's debuginfo: %s",
				   c->name, c->str_arg, why);
			if (bwhy)
				diag_note(&c->loc, "and its BTF cannot be used either: %s", bwhy);
			return -1;
		}
	}
	nf = dw ? dw_functions(dw, p.func, p.file, true, !sx.call_only && !sx.is_return, &fs)
		: btfk_functions(btf, p.func, &fs);
	for (i = 0; i < nf; i++) {
		if (!wanted(&fs[i], &sx))
			continue;
		if (statement || p.has_lines)
			statement_points(out, &n, dw, &fs[i], &p, is_glob(p.func));
		else
			add_function_point(out, &n, dw, btf, &fs[i], &sx,
					   is_glob(p.func) || nf > 1);
	}
	if (n)
		return 1;
	if (pp->optional || pp->sufficient)
		return 0;
	if (nf && (statement || p.has_lines))
		diag_error(&c->loc, "'%s': no statement at line%s %d%s%s in the function",
			   c->str_arg, p.first == p.last ? "" : "s", p.first,
			   p.first == p.last ? "" : "-", p.first == p.last ? "" :
			   xasprintf("%d", p.last));
	else if (nf)
		diag_error(&c->loc, "'%s' matches only functions that %s", c->str_arg,
			   sx.inline_only ? "are not inlined" : sx.exported_only ?
			   "are not exported" : "are always inlined (no .call/.return there)");
	else
		no_match(c, &p, dw, btf);
	return -1;
}

int probe_dwarf(const struct probe_point *pp, struct concrete_point *out)
{
	if (!pp_is(pp, 0, "kernel") || pp->ncomps < 2)
		return 0;
	if (pp_is(pp, 1, "function"))
		return resolve_functions(pp, out, false);
	if (pp_is(pp, 1, "statement"))
		return resolve_functions(pp, out, true);
	return 0;
}
