/* kernel.c - the kernel probed, and its loadable modules.
 *
 * The kernel is -r's (a release, or a build tree), else --vm's (the ktap
 * guest's), else this machine's. From that follow, in one place: its
 * release; the guest's cache of that release, when it has one
 * (<cache>/vm/REL: the bootable image, the debug vmlinux, System.map,
 * the modules' debug files); the build-id of the image that runs; the
 * build tree; System.map; .config; where its DWARF and BTF are; and what
 * the module cache keys it by. A module's debug .ko is found by name in
 * the guest's modules-dbg/ or /usr/lib/debug/lib/modules/REL/, and must
 * have the build-id of the guest's own .ko when that is at hand.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../ktap.h"
#include "../debuginfo.h"
#include "../target.h"
#include "target-private.h"

static const struct options *selected;
static int selection;		/* target_select() calls so far */
static struct target *kernel, *guest;
static struct target **modules;
static int nmodules;

void target_select(const struct options *opt)
{
	/* a fresh start: what an earlier input opened may be gone (the
	 * fuzzer frees every allocation between inputs) */
	selected = opt;
	kernel = guest = NULL;
	modules = NULL;
	nmodules = 0;
	target_forget_debuginfo();
	selection++;
}

int target_selection(void)
{
	return selection;
}

/* ---- facts about files ---- */

static bool readable(const char *path)
{
	return access(path, R_OK) == 0;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static const char *running_release(void)
{
	struct utsname u;

	return uname(&u) == 0 ? xstrdup(u.release) : NULL;
}

/* UTS_RELEASE of a build tree (include/generated/utsrelease.h), NULL if
 * it has none */
static const char *tree_release(const char *dir)
{
	char *text = read_whole_file(xasprintf("%s/include/generated/utsrelease.h", dir), NULL);
	char *q = text ? strchr(text, '"') : NULL;
	char *end = q ? strchr(q + 1, '"') : NULL;

	if (!end || memchr(q + 1, ' ', end - q - 1))
		return NULL;
	return xstrndup(q + 1, end - q - 1);
}

/* the release a build tree's directory is named after: .../REL, or
 * Debian's .../linux-headers-REL */
static const char *tree_dir_release(const char *dir)
{
	const char *base = strrchr(dir, '/') + 1;

	if (!*base) {
		char *copy = xstrndup(dir, strlen(dir) - 1);

		base = strrchr(copy, '/') ? strrchr(copy, '/') + 1 : copy;
	}
	if (strncmp(base, "linux-headers-", 14) == 0)
		base += 14;
	return base;
}

char *target_tree_id(const char *dir)
{
	static const char *const files[] = {
		".config", "Module.symvers", "include/generated/utsrelease.h",
	};
	char hex[SHA256_HEX_LEN + 1];
	struct sha256 s;
	size_t i;

	sha256_init(&s);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (!sha256_file_hex(xasprintf("%s/%s", dir, files[i]), hex))
			strcpy(hex, "missing");
		sha256_update(&s, hex, strlen(hex) + 1);
	}
	sha256_final_hex(&s, hex);
	return xstrdup(hex);
}

/* ---- the kernel ---- */

static char *kernel_mismatch_why(const struct target *k, const char *path, const char *id)
{
	return xasprintf("%s has build-id %s, but the kernel's is %s", path,
			 id ? id : "(none)", k->build_id);
}

static char *kernel_no_debug_why(const struct target *k, const char *looked,
				 const char *mismatch)
{
	const char *rel = k->release;

	if (!rel)
		return xstrdup("the target kernel's release is not known");
	if (mismatch)
		return xasprintf("no matching debuginfo for kernel %s: %s; install "
				 "linux-image-%s-dbg of the same build", rel, mismatch, rel);
	return xasprintf("no debuginfo for kernel %s (looked in %s%s): install "
			 "linux-image-%s-dbg, or set DEBUGINFOD_URLS; without DWARF, "
			 "kprobe.function, kernel.trace and BTF-typed kernel.function "
			 "entry probes still work", rel, looked,
			 getenv("DEBUGINFOD_URLS") ? " and debuginfod" : "", rel);
}

static const struct target_ops kernel_ops = { kernel_mismatch_why, kernel_no_debug_why };

static void add_candidate(struct target *t, char *path)
{
	t->debug_candidates = xrealloc(t->debug_candidates,
				       (t->ndebug_candidates + 1) * sizeof(char *));
	t->debug_candidates[t->ndebug_candidates++] = path;
}

/* the image that runs and its build-id: the guest's bootable image (else
 * its debug vmlinux, the same build), else this machine's kernel */
static void kernel_image(struct target *k)
{
	static const char *const images[] = { "vmlinux-pvh", "vmlinux" };

	for (size_t i = 0; k->vm_dir && !k->build_id && i < 2; i++) {
		k->image = xasprintf("%s/%s", k->vm_dir, images[i]);
		k->build_id = target_build_id_of(k->image);
	}
	if (!k->build_id) {
		k->image = NULL;
		if (k->this_machine)
			k->build_id = target_running_build_id();
	}
}

/* where its DWARF may be: the guest's debug vmlinux, the build-id's
 * debug file, Debian's -dbg package, the build tree */
static void kernel_debug_files(struct target *k)
{
	const char *id = k->build_id, *rel = k->release;

	if (k->vm_dir)
		add_candidate(k, xasprintf("%s/vmlinux", k->vm_dir));
	if (id && strlen(id) > 2)
		add_candidate(k, xasprintf("/usr/lib/debug/.build-id/%.2s/%s.debug", id, id + 2));
	if (rel) {
		add_candidate(k, xasprintf("/usr/lib/debug/boot/vmlinux-%s", rel));
		add_candidate(k, xasprintf("/lib/modules/%s/build/vmlinux", rel));
	}
}

/* System.map: the guest's, the build tree's, /boot's */
static const char *kernel_system_map(const struct target *k)
{
	char *path;

	if (k->vm_dir)
		path = xasprintf("%s/System.map", k->vm_dir);
	else if (k->origin == TARGET_TREE)
		path = xasprintf("%s/System.map", k->build_dir);
	else if (k->release)
		path = xasprintf("/boot/System.map-%s", k->release);
	else
		return NULL;
	return readable(path) ? path : NULL;
}

/* .config: a build tree's (-r DIR, the guest's headers), else /boot's,
 * else the installed build tree's */
static const char *kernel_config(const struct target *k)
{
	char *boot;

	if (k->origin == TARGET_TREE)
		return xasprintf("%s/.config", k->build_dir);
	if (!k->release)
		return NULL;
	if (k->origin == TARGET_GUEST)
		return xasprintf("/usr/src/linux-headers-%s/.config", k->release);
	boot = xasprintf("/boot/config-%s", k->release);
	if (readable(boot))
		return boot;
	/* where target_build_dir() looks, in its order */
	boot = xasprintf("/lib/modules/%s/build/.config", k->release);
	if (readable(boot))
		return boot;
	return xasprintf("/usr/src/linux-headers-%s/.config", k->release);
}

static struct target *new_kernel(enum target_origin origin, const char *release,
				 const char *tree)
{
	struct target *k = xalloc(sizeof(*k));
	const char *running = running_release();

	k->kind = TARGET_KERNEL;
	k->name = "kernel";
	k->ops = &kernel_ops;
	k->origin = origin;
	k->release = release;
	if (tree) {
		k->build_dir = tree;
		k->build_dir_asked = true;
	}
	if (release) {
		char *dir = xasprintf("%s/vm/%s", ktap_cache_dir(), release);

		/* the guest's cache, or one that has this very kernel */
		if (origin == TARGET_GUEST || readable(xasprintf("%s/vmlinux-pvh", dir)))
			k->vm_dir = dir;
		k->this_machine = running && strcmp(running, release) == 0;
	}
	kernel_image(k);
	kernel_debug_files(k);
	k->system_map = kernel_system_map(k);
	k->config = kernel_config(k);
	return k;
}

/* -r BUILD_DIR, -r RELEASE, --vm, or this machine */
static struct target *selected_kernel(const struct options *opt)
{
	const char *rel = opt ? opt->release : NULL;

	if (rel && strchr(rel, '/')) {
		const char *named = tree_release(rel);

		return new_kernel(TARGET_TREE, named ? named : tree_dir_release(rel), rel);
	}
	if (rel)
		return new_kernel(TARGET_RELEASE, rel, NULL);
	if (opt && opt->vm)
		return new_kernel(TARGET_GUEST, vm_kernel_release(opt), NULL);
	return new_kernel(TARGET_RUNNING, running_release(), NULL);
}

struct target *target_kernel(void)
{
	if (!kernel)
		kernel = selected_kernel(selected);
	return kernel;
}

struct target *target_guest(void)
{
	struct target *k = target_kernel();

	if (!guest)
		guest = k->origin == TARGET_GUEST ? k :
			new_kernel(TARGET_GUEST, vm_kernel_release(selected), NULL);
	return guest;
}

/*
 * -r DIR: a tree that modules can be built against: configured, prepared
 * (make modules_prepare: the generated headers and kbuild's tools) and
 * with the kernel's Module.symvers (made by the kernel's own build, or
 * Debian's headers); else one line on what is missing and how to get it
 */
static bool tree_complete(const char *dir)
{
	static const struct { const char *file, *fix; } need[] = {
		{ "Makefile", "not a kernel build tree (a source tree, or make O=DIR's DIR)" },
		{ ".config", "not configured: make O=DIR olddefconfig (or copy a .config)" },
		{ "include/generated/autoconf.h", "not prepared: make O=DIR modules_prepare" },
		{ "scripts/mod/modpost", "not prepared: make O=DIR modules_prepare" },
		{ "Module.symvers", "build the kernel there (make O=DIR), or copy the one of the kernel that runs" },
	};

	if (!is_dir(dir)) {
		fprintf(stderr, "ktap: -r %s: no such directory\n", dir);
		return false;
	}
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!readable(xasprintf("%s/%s", dir, need[i].file))) {
			fprintf(stderr, "ktap: -r %s: incomplete build tree, no %s: %s\n", dir,
				need[i].file, need[i].fix);
			return false;
		}
	return true;
}

const char *target_build_dir(struct target *k)
{
	const char *rel = k->release;
	char *dir;

	if (k->build_dir_asked && k->origin == TARGET_TREE && !k->tree_checked) {
		k->tree_checked = true;
		if (!tree_complete(k->build_dir))
			k->build_dir = NULL;
	}
	if (k->build_dir_asked)
		return k->build_dir;
	k->build_dir_asked = true;
	if (k->origin == TARGET_GUEST) {
		if (rel)
			k->build_dir = xasprintf("/usr/src/linux-headers-%s", rel);
		return k->build_dir;
	}
	dir = xasprintf("/lib/modules/%s/build", rel);
	if (!is_dir(dir))
		dir = xasprintf("/usr/src/linux-headers-%s", rel);
	if (is_dir(dir))
		return k->build_dir = dir;
	fprintf(stderr, "ktap: no build tree for kernel %s (looked in /lib/modules/%s/build): "
		"install linux-headers-%s, pass -r, or run in the ktap guest with --vm\n",
		rel, rel, rel);
	return NULL;
}

/* the source tree of a Debian headers package: the -common directory the
 * arch directory's Makefile includes; else the build tree itself */
const char *target_source_dir(const char *build_dir)
{
	char *mk = read_whole_file(xasprintf("%s/Makefile", build_dir), NULL);
	char *inc, *end;

	if (mk && (inc = strstr(mk, "include /")) && (end = strstr(inc, "/Makefile")))
		return xstrndup(inc + 8, (size_t)(end - inc - 8));
	return xstrdup(build_dir);
}

bool target_identity(struct target *k, struct target_identity *out)
{
	const char *dir = target_build_dir(k);

	if (!dir)
		return false;
	if (k->origin == TARGET_GUEST) {
		/* read again: the cache checks it has not changed meanwhile */
		out->kind = "vm";
		out->release = k->release;
		out->id = k->image ? target_build_id_of(k->image) : NULL;
		return out->id != NULL;
	}
	out->kind = "tree";
	out->release = tree_release(dir);
	if (!out->release)
		out->release = "unknown";
	out->id = target_tree_id(dir);
	return true;
}

/* ---- facts from its .config ---- */

const char *target_config_value(struct target *k, const char *name)
{
	char *text = k->config ? read_whole_file(k->config, NULL) : NULL;
	char *key = xasprintf("\n%s=", name), *p, *all;

	if (!text)
		return NULL;
	all = xasprintf("\n%s", text);
	p = strstr(all, key);
	if (!p)
		return NULL;
	p += strlen(key);
	return xstrndup(p, strcspn(p, "\n"));
}

long target_hz(struct target *k, char **why)
{
	const char *v = target_config_value(k, "CONFIG_HZ");
	char *end;
	long hz = v ? strtol(v, &end, 10) : 0;

	if (v && *end == '\0' && hz >= 24 && hz <= 10000)
		return hz;
	*why = k->config && v ? xasprintf("%s has CONFIG_HZ=%s", k->config, v) :
	       k->config ? xasprintf("%s has no CONFIG_HZ (or cannot be read)", k->config) :
	       xasprintf("kernel %s has no .config here: install linux-headers-%s, or pass -r or --vm",
			 k->release ? k->release : "(unknown)", k->release ? k->release : "REL");
	return 0;
}

/* ---- the kernel's BTF ---- */

/* the guest's kernel: its bootable image, else its debug vmlinux; never
 * this machine's /sys/kernel/btf/vmlinux, which describes another kernel
 * and would give wrong offsets without any error */
static struct btf_kernel *guest_btf(const struct target *k, char **why)
{
	static const char *const images[] = { "vmlinux-pvh", "vmlinux" };
	struct strbuf tried = { 0 };
	struct btf_kernel *b;
	size_t i;

	for (i = 0; i < sizeof(images) / sizeof(images[0]); i++) {
		char *err;

		b = btfk_open(xasprintf("%s/%s", k->vm_dir, images[i]), true, k->system_map, &err);
		if (b)
			return b;
		sb_printf(&tried, "%s%s", i ? "; " : "", err);
	}
	*why = xasprintf("no BTF for the guest's kernel: %s", tried.buf);
	return NULL;
}

static struct btf_kernel *open_btf(const struct target *k, char **why)
{
	struct btf_kernel *b;
	char *err;

	if (target_btf_disabled()) {
		*why = xstrdup("debuginfo is disabled (KTAP_DEBUGINFO=none)");
		return NULL;
	}
	/* without the guest's image, only this machine's own BTF is at
	 * hand, and it describes only this machine's kernel */
	if (!k->vm_dir && !k->this_machine) {
		*why = xasprintf("no BTF for kernel %s here (this machine runs another kernel)",
				 k->release);
		return NULL;
	}
	if (k->vm_dir)
		return guest_btf(k, why);
	b = btfk_open("/sys/kernel/btf/vmlinux", false, k->system_map, &err);
	if (!b)
		*why = xasprintf("no BTF for the running kernel: %s (it needs CONFIG_DEBUG_INFO_BTF)",
				 err);
	return b;
}

struct btf_kernel *target_btf(struct target *k, char **why)
{
	struct target_debuginfo *di = target_di(k);

	if (!di->btf_tried) {
		di->btf_tried = true;
		di->btf = open_btf(k, &di->btf_why);
	}
	if (!di->btf && why)
		*why = di->btf_why;
	return di->btf;
}

/* ---- loadable modules ---- */

/* a module's name as the kernel spells it: '-' in file names is '_' */
static char *module_name_of(const char *file)
{
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	char *name = xstrndup(base, strcspn(base, ".")), *c;

	for (c = name; *c; c++)
		if (*c == '-')
			*c = '_';
	return name;
}

static bool is_ko(const char *file)
{
	size_t n = strlen(file);

	return n > 3 && strcmp(file + n - 3, ".ko") == 0;
}

/* the .ko files under dir (a lib/modules/REL-like tree), appended */
static void ko_files(const char *dir, int depth, const char ***v, int *n)
{
	DIR *d = depth < 8 ? opendir(dir) : NULL;
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char *path;

		if (e->d_name[0] == '.')
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		if (e->d_type == DT_DIR)
			ko_files(path, depth + 1, v, n);
		else if (is_ko(e->d_name)) {
			*v = xrealloc(*v, (*n + 1) * sizeof(**v));
			(*v)[(*n)++] = path;
		}
	}
	if (d)
		closedir(d);
}

/* where debug .ko files of this release are: the guest's, the system's */
static int module_debug_dirs(const struct target *k, char **dirs)
{
	int n = 0;

	if (k->vm_dir)
		dirs[n++] = xasprintf("%s/modules-dbg", k->vm_dir);
	dirs[n++] = xasprintf("/usr/lib/debug/lib/modules/%s", k->release);
	return n;
}

/* the first .ko named name under the dirs, or NULL */
static char *ko_named(char **dirs, int ndirs, const char *name)
{
	for (int i = 0; i < ndirs; i++) {
		const char **files = NULL;
		int n = 0;

		ko_files(dirs[i], 0, &files, &n);
		for (int j = 0; j < n; j++)
			if (strcmp(module_name_of(files[j]), name) == 0)
				return xstrdup(files[j]);
	}
	return NULL;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* names from modules.dep lines ("kernel/fs/9p/9p.ko: deps") */
static void names_from_modules_dep(const char *path, const char ***v, int *n)
{
	char *text = read_whole_file(path, NULL), *line, *save = NULL;

	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		*colon = '\0';
		*v = xrealloc(*v, (*n + 1) * sizeof(**v));
		(*v)[(*n)++] = module_name_of(line);
	}
}

int target_module_names(struct target *k, bool with_debuginfo, const char ***names)
{
	const char **v = NULL;
	int n = 0, i, j = 0;

	if (!k->release) {
		*names = NULL;
		return 0;
	}
	if (with_debuginfo) {
		char *dirs[2];
		int nd = module_debug_dirs(k, dirs);

		for (i = 0; i < nd; i++)
			ko_files(dirs[i], 0, &v, &n);
		for (i = 0; i < n; i++)
			v[i] = module_name_of(v[i]);
	} else {
		if (k->vm_dir)
			names_from_modules_dep(xasprintf("%s/kimg/lib/modules/%s/modules.dep",
							 k->vm_dir, k->release), &v, &n);
		if (!n)
			names_from_modules_dep(xasprintf("/lib/modules/%s/modules.dep",
							 k->release), &v, &n);
	}
	if (n)
		qsort(v, n, sizeof(*v), str_cmp);
	for (i = 0; i < n; i++)
		if (j == 0 || strcmp(v[j - 1], v[i]) != 0)
			v[j++] = v[i];
	*names = v;
	return j;
}

static char *module_mismatch_why(const struct target *m, const char *path, const char *id)
{
	return xasprintf("%s has build-id %s, but the guest's %s.ko has %s; install "
			 "linux-image-%s-dbg of the same build", path, id ? id : "(none)",
			 m->name, m->build_id, m->release);
}

static char *module_no_debug_why(const struct target *m, const char *looked,
				 const char *mismatch)
{
	const char *rel = m->release;

	(void)looked;
	if (!rel)
		return xstrdup("the target kernel's release is not known");
	if (mismatch)
		return xstrdup(mismatch);
	return xasprintf("no debuginfo for module %s of kernel %s: install "
			 "linux-image-%s-dbg (its debug .ko files go to "
			 "/usr/lib/debug/lib/modules/%s)%s", m->name, rel, rel, rel,
			 m->kernel->vm_dir ? "; for the ktap guest, guest/provision "
			 "fetches those of the modules the guest loads" : "");
}

static const struct target_ops module_ops = { module_mismatch_why, module_no_debug_why };

static struct target *new_module(struct target *k, const char *name)
{
	struct target *m = xalloc(sizeof(*m));
	char *dirs[2], *debug;

	m->kind = TARGET_MODULE;
	m->name = name;
	m->kernel = k;
	m->release = k->release;
	m->ops = &module_ops;
	if (!k->release)
		return m;
	/* the guest's own .ko, when it is at hand: the debug file must
	 * describe that very build */
	if (k->vm_dir) {
		char *kimg = xasprintf("%s/kimg/lib/modules/%s/kernel", k->vm_dir, k->release);

		m->image = ko_named(&kimg, 1, name);
		m->build_id = m->image ? target_build_id_of(m->image) : NULL;
	}
	debug = ko_named(dirs, module_debug_dirs(k, dirs), name);
	if (debug)
		add_candidate(m, debug);
	return m;
}

struct target *target_module(struct target *k, const char *name)
{
	char *spelled = module_name_of(name);
	int i;

	for (i = 0; i < nmodules; i++)
		if (modules[i]->kernel == k && strcmp(modules[i]->name, spelled) == 0)
			return modules[i];
	modules = xrealloc(modules, (nmodules + 1) * sizeof(*modules));
	return modules[nmodules++] = new_module(k, spelled);
}

/* "ffffffff82a0c4c0 D pid_max" lines, scanned once per lookup: a script
 * names a few symbols at most */
unsigned long long target_symbol_address(struct target *k, const char *name)
{
	size_t len, nlen = strlen(name);
	char *text, *line, *next;
	unsigned long long addr = 0;

	if (!k->system_map || !(text = read_whole_file(k->system_map, &len)))
		return 0;
	for (line = text; *line && !addr; line = next) {
		char *nl = strchr(line, '\n');

		next = nl ? nl + 1 : line + strlen(line);
		if (next - line > 19 + (long)nlen && line[16] == ' ' && line[18] == ' ' &&
		    strncmp(line + 19, name, nlen) == 0 &&
		    (line[19 + nlen] == '\n' || line[19 + nlen] == '\0'))
			addr = strtoull(line, NULL, 16);
	}
	xfree(text);
	return addr;
}
