/* cache.c - the module cache: a script built once loads at once.
 *
 * ${KTAP_CACHE:-~/.cache/ktap}/modules/<key>/ holds NAME.ko and a manifest.
 * The key is a SHA-256 of everything that shapes the module:
 *   - the script (text, and name: error locations in the module quote it)
 *     and its arguments;
 *   - ktap itself: its version, the translator binary, every runtime header;
 *   - the options that change code (-g -D -I -m -r --vm -W) and what %(
 *     conditions test (kernel version, arch, the kernel .config);
 *   - the tapset directories' file names, and the .stpm macro files;
 *   - the target kernel: the guest's ABI and the GNU build-id of its
 *     vmlinux (--vm), else the build tree's .config, Module.symvers and
 *     include/generated/utsrelease.h.
 * The manifest names the module, its target kernel, and the tapset files
 * the build took code from, with their hashes: a lookup hashes them again
 * (cheap), so editing one makes the next run rebuild. It also holds the
 * module's own SHA-256: a hit whose .ko no longer has it (a disk error, a
 * stray write) is dropped with a warning and built again, rather than
 * failing to load on every run. Before a hit is loaded, its target is
 * checked against the kernel that will load it.
 *
 * Modules are loaded as root, so the cache must be private: the modules
 * directory and every entry owned by us and not writable by group or
 * others, every directory above it owned by root or us and not writable
 * by others unless sticky. Otherwise ktap warns and builds without it.
 *
 * Entries are filled in a temporary directory and renamed into place, and
 * removed by renaming them away first: a reader never sees half an entry,
 * and a failed or interrupted build leaves none. LRU: a hit touches the
 * entry's mtime; a store evicts the oldest entries while the cache is over
 * KTAP_CACHE_SIZE_MB (default 256).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"
#include "lexer.h"
#include "program.h"
#include "target.h"

#define CACHE_FORMAT		"ktap-cache 2"	/* 2: the "ko" line */
#define CACHE_DEFAULT_MB	256
#define CACHE_STALE_TMP_S	3600	/* a temporary dir this old is debris */

struct cache {
	const struct options *opt;
	char *dir;			/* <root>/modules, checked private */
	char key[SHA256_HEX_LEN + 1];
	char *entry;			/* <dir>/<key> */
	char *script;			/* the text the key was made from */
	struct target_identity target;	/* the kernel it is for (target.h) */
	double t0;			/* cache_open(), for -v */
	bool entry_unusable;		/* an entry is there but untrusted */
	/* the hit */
	const char *module_name;
	struct target_identity built_for;
	char ko_sha256[SHA256_HEX_LEN + 1];	/* of the .ko, as stored */
	char *ko;
};

/* ---- messages ---- */

static void __attribute__((format(printf, 2, 3)))
say(const struct cache *c, const char *fmt, ...)
{
	va_list ap;

	if (!c->opt->verbose)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static double ms_since(double t0)
{
	return (now_seconds() - t0) * 1000.0;
}

/* ---- files ---- */

static bool hash_file(const char *path, char hex[SHA256_HEX_LEN + 1])
{
	return sha256_file_hex(path, hex);
}

static void hash_text(const char *text, size_t len, char hex[SHA256_HEX_LEN + 1])
{
	struct sha256 s;

	sha256_init(&s);
	sha256_update(&s, text, len);
	sha256_final_hex(&s, hex);
}

/* write a new file (never an existing one) and flush it to disk */
static int write_new_file(const char *path, const char *data, size_t len,
			  mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	ssize_t n = 0;
	size_t done = 0;

	if (fd < 0)
		return -1;
	while (done < len && (n = write(fd, data + done, len - done)) > 0)
		done += n;
	if (done < len || fsync(fd) < 0) {
		close(fd);
		return -1;
	}
	return close(fd);
}

static int copy_to_new_file(const char *from, const char *to, mode_t mode)
{
	size_t len;
	char *data = read_whole_file(from, &len);
	int rc;

	if (!data)
		return -1;
	rc = write_new_file(to, data, len, mode);
	xfree(data);
	return rc;
}

/* an entry, a temporary or a retired directory: files only */
static void remove_flat_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;

	if (d) {
		while ((de = readdir(d)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
				unlinkat(dirfd(d), de->d_name, 0);
		closedir(d);
	}
	rmdir(path);
}

/* take an entry away at once (a rename), then delete it */
static void retire(const struct cache *c, const char *path)
{
	static unsigned counter;
	char *trash = xasprintf("%s/.trash-%d-%u", c->dir, (int)getpid(), counter++);

	if (rename(path, trash) == 0)
		remove_flat_dir(trash);
	xfree(trash);
}

/* ---- where the cache is, and whether it can be trusted ---- */

static char *cache_root(void)
{
	return xstrdup(ktap_cache_dir());
}

/* why a directory or a file of the cache is not ours alone, or NULL */
static const char *not_private(const struct stat *st, bool dir)
{
	if (dir ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode))
		return dir ? "is not a directory" : "is not a regular file";
	if (st->st_uid != geteuid())
		return "is owned by another user";
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return "is writable by group or others";
	return NULL;
}

/* why a directory above the cache (an absolute path) would let someone
 * else swap it, or NULL; *which is that directory */
static const char *unsafe_parent(const char *real, char **which)
{
	char *p = xstrdup(real), *slash;
	struct stat st;

	*which = p;
	do {
		slash = strrchr(p, '/');
		if (slash == p)
			slash++;		/* the parent of "/a" is "/" */
		*slash = '\0';
		if (stat(p, &st) < 0)
			return "cannot be checked";
		if (st.st_uid != 0 && st.st_uid != geteuid())
			return "is owned by another user";
		if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX))
			return "is writable by others";
	} while (strcmp(p, "/") != 0);
	return NULL;
}

static void warn_unsafe(const char *path, const char *why)
{
	fprintf(stderr, "ktap: warning: not using the module cache: %s %s "
		"(modules loaded as root must come from a private place; "
		"chmod 700 it, or use --disable-cache)\n", path, why);
}

/* mkdir -p, private: the directories made here are 0700 */
static void mkdir_private(const char *path)
{
	char *p = xstrdup(path), *s;

	for (s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0700);
			*s = '/';
		}
	mkdir(p, 0700);
	xfree(p);
}

/* <root>/NAME, made if needed and checked private; NULL after a warning */
char *cache_private_dir(const char *name, bool create)
{
	char *dir = xasprintf("%s/%s", cache_root(), name);
	char real[PATH_MAX], *which = NULL;
	const char *why;
	struct stat st;

	if (create)
		mkdir_private(dir);
	if (lstat(dir, &st) < 0) {
		if (create)
			fprintf(stderr, "ktap: warning: not using the module cache: cannot make %s: %s\n",
				dir, strerror(errno));
		return NULL;
	}
	if ((why = not_private(&st, true))) {
		warn_unsafe(dir, why);
		return NULL;
	}
	if (!realpath(dir, real)) {
		warn_unsafe(dir, "cannot be resolved");
		return NULL;
	}
	if ((why = unsafe_parent(real, &which))) {
		warn_unsafe(which, why);
		return NULL;
	}
	return xstrdup(real);
}

static char *modules_dir(bool create)
{
	return cache_private_dir("modules", create);
}

/* ---- the key ---- */

/* one named input: "tag=<len>:<bytes>\n", so no two inputs run together */
static void key_add(struct sha256 *s, const char *tag, const char *data, size_t len)
{
	char head[64];

	snprintf(head, sizeof(head), "%s=%zu:", tag, len);
	sha256_update(s, head, strlen(head));
	sha256_update(s, data, len);
	sha256_update(s, "\n", 1);
}

static void key_str(struct sha256 *s, const char *tag, const char *str)
{
	key_add(s, tag, str ? str : "(none)", strlen(str ? str : "(none)"));
}

static void key_file(struct sha256 *s, const char *tag, const char *path)
{
	char hex[SHA256_HEX_LEN + 1];

	key_str(s, tag, path);
	key_str(s, "content", hash_file(path, hex) ? hex : "missing");
}

static bool has_suffix(const char *name, const char *suffix)
{
	size_t n = strlen(name), k = strlen(suffix);

	return n > k && strcmp(name + n - k, suffix) == 0;
}

/* the files NAME*SUFFIX of a directory, in name order: their names, and
 * with content, what is in them */
static void key_dir(struct sha256 *s, const char *dir, const char *suffix,
		    bool content)
{
	struct dirent **names;
	int n, i;

	key_str(s, "dir", dir);
	n = scandir(dir, &names, NULL, alphasort);
	for (i = 0; i < n; i++) {
		if (has_suffix(names[i]->d_name, suffix)) {
			if (content)
				key_file(s, suffix, xasprintf("%s/%s", dir, names[i]->d_name));
			else
				key_str(s, suffix, names[i]->d_name);
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

/* what %( conditions see besides the script's arguments */
static void key_pp_env(struct sha256 *s)
{
	const struct pp_env *env = lexer_env();
	const char *kconfig = env->kconfig_path;

	key_str(s, "kernel_v", env->kernel_v);
	key_str(s, "kernel_vr", env->kernel_vr);
	key_str(s, "arch", env->arch);
	key_str(s, "runtime", env->runtime);
	key_str(s, "systemtap_v", env->systemtap_v);
	key_str(s, "privilege", env->privilege);
	if (!kconfig) {
		kconfig = xasprintf("/boot/config-%s", env->kernel_vr);
		if (access(kconfig, R_OK) != 0)
			kconfig = xasprintf("/lib/modules/%s/build/.config", env->kernel_vr);
	}
	key_file(s, "kconfig", kconfig);
}

/* the environment variables that change which probe points resolve, so
 * a module built with a family's fallback source is not reused without,
 * or where they attach (probes/syscall.c) */
static void key_resolve_env(struct sha256 *s)
{
	key_str(s, "KTAP_DEBUGINFO", getenv("KTAP_DEBUGINFO"));
	key_str(s, "KTAP_IGNORE_POINTS", getenv("KTAP_IGNORE_POINTS"));
	key_str(s, "KTAP_SYSCALL_DIRECT_MAX", getenv("KTAP_SYSCALL_DIRECT_MAX"));
}

static void key_options(struct sha256 *s, const struct options *opt)
{
	int i;

	key_str(s, "guru", opt->guru ? "yes" : "no");
	for (i = 0; i < opt->ndefines; i++)
		key_str(s, "-D", opt->defines[i]);
	key_str(s, "-m", opt->module_name);
	key_str(s, "-r", opt->release);
	key_str(s, "--vm", opt->vm ? "yes" : "no");
	key_str(s, "-W", diag_warnings_are_errors ? "yes" : "no");
	/* options that change the generated code (main.c) */
	key_str(s, "-u", opt->unoptimized ? "yes" : "no");
	key_str(s, "-t", opt->timing ? "yes" : "no");
	key_str(s, "--skip-badvars", opt->skip_badvars ? "yes" : "no");
	for (i = 0; i < opt->nglobal_settings; i++)
		key_str(s, "-G", opt->global_settings[i]);
	for (i = 0; i < opt->nsymbol_modules; i++)
		key_str(s, "-d", opt->symbol_modules[i]);
	key_str(s, "--ldd", opt->ldd ? "yes" : "no");
	for (i = 0; i < opt->ninclude_dirs; i++) {
		key_dir(s, opt->include_dirs[i], ".stp", false);
		key_dir(s, opt->include_dirs[i], ".stpm", true);
	}
	key_dir(s, xasprintf("%s/tapsets", opt->data_dir), ".stp", false);
	key_dir(s, xasprintf("%s/tapsets", opt->data_dir), ".stpm", true);
}

static void make_key(const struct cache *c, const struct target_identity *t,
		     char key[SHA256_HEX_LEN + 1])
{
	const struct options *opt = c->opt;
	struct sha256 s;
	int i;

	sha256_init(&s);
	key_str(&s, "format", CACHE_FORMAT);
	key_str(&s, "version", KTAP_VERSION);
	key_file(&s, "translator", "/proc/self/exe");
	key_str(&s, "data", opt->data_dir);
	key_dir(&s, xasprintf("%s/runtime", opt->data_dir), ".h", true);
	key_dir(&s, xasprintf("%s/runtime", opt->data_dir), ".c", true);
	key_str(&s, "script", opt->script_file ? opt->script_file : "<input>");
	key_str(&s, "text", c->script);
	for (i = 0; i < opt->nscript_args; i++)
		key_str(&s, "arg", opt->script_args[i]);
	key_options(&s, opt);
	key_pp_env(&s);
	key_resolve_env(&s);
	key_str(&s, "target", t->kind);
	key_str(&s, "release", t->release);
	key_str(&s, "id", t->id);
	sha256_final_hex(&s, key);
}

/* the script as pass 1 will read it; NULL if it cannot be read twice */
static char *script_text(const struct options *opt)
{
	struct stat st;

	if (opt->script_text)
		return xstrdup(opt->script_text);
	if (stat(opt->script_file, &st) < 0 || !S_ISREG(st.st_mode))
		return NULL;
	return read_whole_file(opt->script_file, NULL);
}

struct cache *cache_open(const struct options *opt)
{
	struct cache *c = xalloc(sizeof(*c));

	c->opt = opt;
	c->t0 = now_seconds();
	if (opt->no_cache || !(c->script = script_text(opt)))
		return NULL;
	if (!target_identity(target_kernel(), &c->target)) {
		say(c, "Cache: not used: the target kernel has no build-id");
		return NULL;
	}
	if (!(c->dir = modules_dir(true)))
		return NULL;
	make_key(c, &c->target, c->key);
	c->entry = xasprintf("%s/%s", c->dir, c->key);
	return c;
}

/* ---- manifests ---- */

static char *manifest_text(const struct cache *c, const char *name,
			   const struct source **srcs, int n)
{
	struct strbuf sb = { 0 };
	char hex[SHA256_HEX_LEN + 1];
	int i;

	sb_printf(&sb, "%s\nkey %s\nmodule %s\ntarget %s %s %s\n", CACHE_FORMAT,
		  c->key, name, c->target.kind, c->target.release, c->target.id);
	for (i = 0; i < n; i++) {
		if (strchr(srcs[i]->name, '\n'))
			return NULL;
		hash_text(srcs[i]->text, srcs[i]->len, hex);
		sb_printf(&sb, "source %s %s\n", hex, srcs[i]->name);
	}
	return sb.buf;
}

/* a source file the build used, hashed again: is it as it was? */
static bool source_unchanged(const struct cache *c, const char *line)
{
	char hex[SHA256_HEX_LEN + 1];
	const char *path = line + SHA256_HEX_LEN + 1;

	if (strlen(line) <= SHA256_HEX_LEN + 1 || line[SHA256_HEX_LEN] != ' ')
		return false;
	if (!hash_file(path, hex) || strncmp(hex, line, SHA256_HEX_LEN) != 0) {
		say(c, "Cache: %s changed since the module was built", path);
		return false;
	}
	return true;
}

/* read and check a manifest; fills the hit's name and target */
static bool manifest_ok(struct cache *c, char *text)
{
	char *line, *save = NULL;
	bool have_module = false, have_target = false;
	int nline = 0;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char kind[16], release[256], id[256];

		if (nline++ == 0) {
			if (strcmp(line, CACHE_FORMAT))
				return false;
		} else if (!strncmp(line, "key ", 4)) {
			if (strcmp(line + 4, c->key))
				return false;
		} else if (!strncmp(line, "module ", 7)) {
			c->module_name = xstrdup(line + 7);
			have_module = is_module_name(c->module_name);
		} else if (!strncmp(line, "target ", 7)) {
			if (sscanf(line + 7, "%15s %255s %255s", kind, release, id) != 3)
				return false;
			c->built_for.kind = xstrdup(kind);
			c->built_for.release = xstrdup(release);
			c->built_for.id = xstrdup(id);
			have_target = true;
		} else if (!strncmp(line, "source ", 7)) {
			if (!source_unchanged(c, line + 7))
				return false;
		} else if (!strncmp(line, "ko ", 3)) {
			if (strlen(line + 3) != SHA256_HEX_LEN)
				return false;
			strcpy(c->ko_sha256, line + 3);
		}
	}
	return have_module && have_target && c->ko_sha256[0];
}

/* ---- lookup ---- */

/* the hit's module still the one stored? Else say so, once: the entry
 * is dropped and this run builds and stores it again */
static bool module_intact(const struct cache *c)
{
	char hex[SHA256_HEX_LEN + 1];

	if (hash_file(c->ko, hex) && !strcmp(hex, c->ko_sha256))
		return true;
	fprintf(stderr, "ktap: warning: the cached module %s is damaged (its SHA-256 "
		"is not the one stored with it): dropping it and building the "
		"script again\n", c->ko);
	return false;
}

/* is there a good entry for the key? */
static bool lookup(struct cache *c)
{
	char *manifest = xasprintf("%s/manifest", c->entry);
	const char *why;
	struct stat st;
	char *text;

	if (lstat(c->entry, &st) < 0)
		return false;
	if ((why = not_private(&st, true)) ||
	    (lstat(manifest, &st) == 0 && (why = not_private(&st, false)))) {
		warn_unsafe(c->entry, why);
		c->entry_unusable = true;
		return false;
	}
	text = read_whole_file(manifest, NULL);
	if (!text || !manifest_ok(c, text)) {
		say(c, "Cache: dropping the stale entry %s", c->entry);
		retire(c, c->entry);
		return false;
	}
	c->ko = xasprintf("%s/%s.ko", c->entry, c->module_name);
	if (lstat(c->ko, &st) < 0 || (why = not_private(&st, false))) {
		warn_unsafe(c->ko, why ? why : "is missing");
		c->entry_unusable = true;
		return false;
	}
	if (!module_intact(c)) {
		retire(c, c->entry);
		return false;
	}
	utimensat(AT_FDCWD, c->entry, NULL, 0);		/* LRU: used now */
	return true;
}

static bool same_target(const struct target_identity *a, const struct target_identity *b)
{
	return !strcmp(a->kind, b->kind) && !strcmp(a->release, b->release) &&
	       !strcmp(a->id, b->id);
}

/* the kernel that will load a hit: the guest's, or this machine's */
static int check_loadable(const struct cache *c, const struct options *opt)
{
	const struct target_identity *b = &c->built_for;
	struct target_identity now = { 0 };
	struct utsname u;

	if (opt->vm) {
		if (!target_identity(target_guest(), &now) ||
		    (!strcmp(b->kind, "vm") ? !same_target(b, &now)
					    : strcmp(b->release, now.release) != 0)) {
			fprintf(stderr, "ktap: the cached module %s was built for kernel %s "
				"(build-id %s), but the guest's kernel is %s (build-id %s): not loading "
				"it (ktap --clean-cache empties the cache)\n", c->ko, b->release,
				b->id, now.release ? now.release : "?", now.id ? now.id : "?");
			return -1;
		}
		return 0;
	}
	if (uname(&u) == 0 && strcmp(u.release, b->release) != 0) {
		fprintf(stderr, "ktap: the cached module %s was built for kernel %s, but this "
			"machine runs %s: not loading it\n", c->ko, b->release, u.release);
		return -1;
	}
	return 0;
}

/* the warnings the passes a hit skips gave when the entry was made
 * (diag_messages()), said again: a script that reads a variable no alias
 * sets is told so on every run, not only the first */
static void say_messages_again(const struct cache *c)
{
	char *path = xasprintf("%s/messages", c->entry), *text;
	struct stat st;

	if (diag_no_warnings || lstat(path, &st) < 0 || not_private(&st, false))
		return;
	text = read_whole_file(path, NULL);
	if (text)
		fputs(text, stderr);
}

int cache_fetch(struct cache *c, const struct options *opt, char **ko_path)
{
	char *dest;
	bool hit;

	if (!c)
		return 0;
	if (opt->keep_build) {
		say(c, "Cache: not looked up: -k keeps a build directory");
		return 0;
	}
	hit = lookup(c);
	if (hit && opt->last_pass == 4 && !same_target(&c->built_for, &c->target)) {
		/* the key says otherwise: a damaged entry; build anew */
		say(c, "Cache: dropping %s: built for another kernel", c->entry);
		retire(c, c->entry);
		hit = false;
	}
	if (!hit) {
		say(c, "Cache miss: %s (%.0f ms)", c->entry, ms_since(c->t0));
		return 0;
	}
	if (opt->last_pass == 4) {
		/* like pass 4: the module in the current directory */
		dest = xasprintf("%s.ko", c->module_name);
		unlink(dest);
		if (copy_to_new_file(c->ko, dest, 0666) < 0) {
			fprintf(stderr, "ktap: cannot write %s: %s\n", dest, strerror(errno));
			return -1;
		}
		*ko_path = dest;
	} else {
		if (check_loadable(c, opt) < 0)
			return -1;
		*ko_path = c->ko;
	}
	say(c, "Cache hit: %s (%.0f ms), passes 1-4 skipped", c->entry, ms_since(c->t0));
	say_messages_again(c);
	return 1;
}

/* ---- store and evict ---- */

struct entry_info {
	char *path;
	long long size;
	struct timespec mtime;
};

static int older_first(const void *a, const void *b)
{
	const struct entry_info *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	return 0;
}

static bool is_key(const char *name)
{
	return strlen(name) == SHA256_HEX_LEN &&
	       strspn(name, "0123456789abcdef") == SHA256_HEX_LEN;
}

static long long dir_size(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	struct stat st;
	long long size = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode))
			size += st.st_size;
	closedir(d);
	return size;
}

static long long size_limit(void)
{
	const char *env = getenv("KTAP_CACHE_SIZE_MB");
	char *end;
	long long mb;

	if (!env || !*env)
		return (long long)CACHE_DEFAULT_MB << 20;
	mb = strtoll(env, &end, 10);
	if (*end || mb < 0 || mb > (1LL << 30)) {
		fprintf(stderr, "ktap: warning: KTAP_CACHE_SIZE_MB=%s is not a size in MiB; "
			"using %d\n", env, CACHE_DEFAULT_MB);
		return (long long)CACHE_DEFAULT_MB << 20;
	}
	return mb << 20;
}

/* the entries of the cache; debris of killed runs is removed on the way */
static struct entry_info *list_entries(const struct cache *c, int *n)
{
	struct entry_info *v = NULL;
	DIR *d = opendir(c->dir);
	struct dirent *de;
	struct stat st;

	*n = 0;
	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		char *path = xasprintf("%s/%s", c->dir, de->d_name);

		if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		if (is_key(de->d_name)) {
			v = xrealloc(v, (*n + 1) * sizeof(*v));
			v[*n] = (struct entry_info){ path, dir_size(path), st.st_mtim };
			++*n;
		} else if ((!strncmp(de->d_name, ".tmp-", 5) || !strncmp(de->d_name, ".trash-", 7)) &&
			   st.st_mtime < time(NULL) - CACHE_STALE_TMP_S) {
			remove_flat_dir(path);
		}
	}
	closedir(d);
	return v;
}

/* LRU: drop the least recently used entries while over the limit */
static void evict(const struct cache *c)
{
	long long limit = size_limit(), total = 0;
	int n, i, dropped = 0;
	struct entry_info *v = list_entries(c, &n);

	for (i = 0; i < n; i++)
		total += v[i].size;
	if (total > limit)
		qsort(v, n, sizeof(*v), older_first);
	for (i = 0; i < n && total > limit; i++) {
		if (!strcmp(v[i].path, c->entry))
			continue;		/* the one just stored stays */
		retire(c, v[i].path);
		total -= v[i].size;
		dropped++;
	}
	if (dropped)
		say(c, "Cache: evicted %d least recently used entr%s (limit %lld MiB)",
		    dropped, dropped == 1 ? "y" : "ies", limit >> 20);
}

/* the inputs still as they were when the key was made? */
static bool inputs_unchanged(const struct cache *c, const struct program *prog)
{
	char key[SHA256_HEX_LEN + 1];
	struct target_identity t = { 0 };

	if (strcmp(prog->user->src->text, c->script) != 0)
		return false;
	if (!target_identity(target_kernel(), &t) || !same_target(&t, &c->target))
		return false;
	make_key(c, &t, key);
	return strcmp(key, c->key) == 0;
}

/* copy the module into the entry; the manifest gets the copy's hash */
static int store_module(const char *ko, const char *dest, char **manifest)
{
	char hex[SHA256_HEX_LEN + 1];

	if (copy_to_new_file(ko, dest, 0600) < 0)
		return -1;
	if (!hash_file(dest, hex))
		return -1;
	*manifest = xasprintf("%sko %s\n", *manifest, hex);
	return 0;
}

void cache_store(struct cache *c, const char *ko, const struct program *prog)
{
	double t0 = now_seconds();
	const struct source **srcs;
	char *manifest, *tmp;
	int n;

	if (!c || c->entry_unusable)
		return;
	if (!inputs_unchanged(c, prog)) {
		say(c, "Cache: not storing: the script, ktap or the kernel changed during the build");
		return;
	}
	srcs = (const struct source **)prog->sources_used;
	n = prog->nsources_used;
	manifest = manifest_text(c, prog->module_name, srcs, n);
	if (!manifest || !is_module_name(prog->module_name))
		return;
	tmp = xasprintf("%s/.tmp-XXXXXX", c->dir);
	if (!mkdtemp(tmp)) {
		fprintf(stderr, "ktap: warning: cannot store the module in the cache: %s: %s\n",
			c->dir, strerror(errno));
		return;
	}
	if (store_module(ko, xasprintf("%s/%s.ko", tmp, prog->module_name), &manifest) < 0 ||
	    write_new_file(xasprintf("%s/manifest", tmp), manifest, strlen(manifest), 0600) < 0 ||
	    (*diag_messages() && write_new_file(xasprintf("%s/messages", tmp), diag_messages(),
						 strlen(diag_messages()), 0600) < 0)) {
		fprintf(stderr, "ktap: warning: cannot store the module in the cache: %s\n",
			strerror(errno));
		remove_flat_dir(tmp);
		return;
	}
	/* fails if another run stored the same entry meanwhile: keep theirs */
	if (rename(tmp, c->entry) < 0) {
		say(c, "Cache: %s is already there (%s)", c->entry, strerror(errno));
		remove_flat_dir(tmp);
		return;
	}
	say(c, "Cache store: %s (%.0f ms, %d tapset file%s)", c->entry, ms_since(t0),
	    n, n == 1 ? "" : "s");
	evict(c);
}

/* ---- --clean-cache ---- */

int cache_clean(const struct options *opt)
{
	struct cache c = { .opt = opt };
	struct dirent *de;
	struct stat st;
	int n = 0;
	DIR *d;

	if (lstat(xasprintf("%s/modules", cache_root()), &st) < 0)
		return 0;		/* no cache yet */
	if (!(c.dir = modules_dir(false)))
		return 1;		/* not ours to touch: said why */
	if (!(d = opendir(c.dir))) {
		fprintf(stderr, "ktap: cannot read %s: %s\n", c.dir, strerror(errno));
		return 1;
	}
	while ((de = readdir(d))) {
		char *path = xasprintf("%s/%s", c.dir, de->d_name);

		if (is_key(de->d_name)) {
			retire(&c, path);
			n++;
		} else if (!strncmp(de->d_name, ".tmp-", 5) || !strncmp(de->d_name, ".trash-", 7)) {
			remove_flat_dir(path);
		}
	}
	closedir(d);
	say(&c, "Cache: removed %d entr%s from %s", n, n == 1 ? "y" : "ies", c.dir);
	return 0;
}
