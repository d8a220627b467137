/* build.c - pass 4: the generated C as a kernel module for the target
 * kernel's build tree.
 *
 * kbuild is the reference, but make alone costs it ~2 s per module. So
 * the first kbuild run for a build tree is also a lesson: the commands it
 * recorded in its .*.cmd files (gcc for NAME.o and objtool, modpost, gcc
 * for NAME.mod.o, ld -r for NAME.ko) are kept, with the build directory,
 * module name and runtime directory as placeholders, as a recipe in
 * <cache>/kbuild/<tree key>/. Later builds for that tree run the commands
 * directly. If a step other than the compile fails, or no recipe can be
 * learned, kbuild builds the module (and -v says so).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"
#include "program.h"
#include "prebuilt.h"
#include "target.h"

#define RECIPE_FORMAT "ktap-kbuild-recipe 1"

static char *build_dir_path;
static bool build_dir_keep;

static void remove_build_dir(void)
{
	char *cmd;

	if (!build_dir_path)
		return;
	if (build_dir_keep) {
		fprintf(stderr, "Keeping temporary directory \"%s\"\n", build_dir_path);
		return;
	}
	cmd = xasprintf("rm -rf '%s'", build_dir_path);
	if (system(cmd) != 0)
		fprintf(stderr, "ktap: could not remove %s\n", build_dir_path);
	free(cmd);
}

/* killed while building: leave no temporary directory behind */
static void remove_build_dir_and_die(int sig)
{
	build_dir_keep = false;
	remove_build_dir();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void clean_up_on_signals(void)
{
	signal(SIGTERM, remove_build_dir_and_die);
	signal(SIGHUP, remove_build_dir_and_die);
	signal(SIGINT, remove_build_dir_and_die);
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		fprintf(stderr, "ktap: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* a line of make's chatter or of gcc's include chain: not worth showing */
static bool build_noise(const char *line)
{
	while (*line == ' ')
		line++;
	return strncmp(line, "make", 4) == 0 || strncmp(line, "In file included from", 21) == 0 ||
	       strncmp(line, "from ", 5) == 0 || strncmp(line, "CC [M]", 6) == 0;
}

/* show what the compiler said; #line makes script errors name the script */
static void show_build_log(const char *log_path)
{
	size_t len;
	char *log = read_whole_file(log_path, &len);
	char *line, *save = NULL;

	fprintf(stderr, "ktap: building the module failed:\n");
	if (!log)
		return;
	for (line = strtok_r(log, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!build_noise(line))
			fprintf(stderr, "%s\n", line);
	free(log);
}

/* a program on PATH */
static bool on_path(const char *prog)
{
	const char *path = getenv("PATH");
	char *dirs = xstrdup(path ? path : "/usr/bin:/bin"), *d, *save = NULL;

	for (d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save))
		if (access(xasprintf("%s/%s", d, prog), X_OK) == 0)
			return true;
	return false;
}

/*
 * What make is told besides the module: a tree that holds a vmlinux and
 * has CONFIG_DEBUG_INFO_BTF_MODULES (a kernel developer's, Debian 6.12's
 * headers) makes kbuild run pahole on every module, and fail without it;
 * ktap's modules need no BTF of their own, so without pahole they are
 * built without it (a command-line variable overrides auto.conf's).
 */
static const char *kbuild_args(const char *kdir, const struct options *opt)
{
	static const char *args;
	const char *v;

	if (args)
		return args;
	args = "";
	if (access(xasprintf("%s/vmlinux", kdir), R_OK) != 0 || on_path("pahole"))
		return args;
	v = target_config_value(target_kernel(), "CONFIG_DEBUG_INFO_BTF_MODULES");
	if (v && !strcmp(v, "y")) {
		args = " CONFIG_DEBUG_INFO_BTF_MODULES=";
		if (opt->verbose)
			fprintf(stderr, "Pass 4: no pahole (package pahole): building without "
				"module BTF\n");
	}
	return args;
}

static int run_kbuild(const char *kdir, const char *dir, const struct options *opt)
{
	char *log = xasprintf("%s/build.log", dir);
	char *cmd = xasprintf("make -C '%s' M='%s'%s modules -j2 >'%s' 2>&1",
			      kdir, dir, kbuild_args(kdir, opt), log);
	int rc;

	if (opt->verbose > 1)
		fprintf(stderr, "Running %s\n", cmd);
	rc = system(cmd);
	if (rc != 0) {
		show_build_log(log);
		return -1;
	}
	return 0;
}

/* ---- kbuild's commands, replayed ---- */

/* the steps of a module build, in order, and the .cmd file kbuild
 * records each one in (@M@ is the module name) */
enum step { STEP_COMPILE, STEP_MODPOST, STEP_MOD_COMPILE, STEP_LINK, NSTEPS };
static const char *const step_cmd_file[NSTEPS] = {
	".@M@.o.cmd", ".Module.symvers.cmd", ".@M@.mod.o.cmd", ".@M@.ko.cmd",
};
static const char *const step_name[NSTEPS] = {
	"compile", "modpost", "compile the .mod.c", "link",
};

/* a recipe: the commands with @D@ (build directory), @M@ (module name)
 * and @R@ (ktap's runtime headers) in place of the real ones */
struct recipe {
	char *dir;			/* <cache>/kbuild/<key> */
	char *cc;			/* the compiler: path, size, mtime */
	char *step[NSTEPS];
};

/* the values put into a recipe's placeholders */
struct build_names {
	const char *dir, *name, *runtime;
};

static char *replace_all(const char *s, const char *from, const char *to)
{
	struct strbuf sb = { 0 };
	size_t n = strlen(from);
	const char *p;

	sb_puts(&sb, "");
	while ((p = strstr(s, from))) {
		sb_printf(&sb, "%.*s%s", (int)(p - s), s, to);
		s = p + n;
	}
	sb_puts(&sb, s);
	return sb.buf;
}

/* a name the shell takes literally, so it can go into a command as is */
static bool shell_safe(const char *s)
{
	return *s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			       "0123456789_./+-") == strlen(s);
}

static bool names_safe(const struct build_names *bn)
{
	return shell_safe(bn->dir) && shell_safe(bn->name) && shell_safe(bn->runtime);
}

static char *fill_in(const char *tmpl, const struct build_names *bn)
{
	char *a = replace_all(tmpl, "@D@", bn->dir);
	char *b = replace_all(a, "@M@", bn->name);

	return replace_all(b, "@R@", bn->runtime);
}

/* where a command's program is, with its size and mtime: a compiler
 * upgraded in place makes the recipe stale */
static char *program_stamp(const char *cmd)
{
	const char *path = getenv("PATH");
	struct stat st;
	char *prog, *dirs, *d, *save = NULL;

	cmd += strspn(cmd, " \t");
	prog = xstrndup(cmd, strcspn(cmd, " \t"));
	if (strchr(prog, '/'))
		return stat(prog, &st) ? NULL : xasprintf("%s %lld %lld", prog,
				(long long)st.st_size, (long long)st.st_mtime);
	dirs = xstrdup(path ? path : "/usr/bin:/bin");
	for (d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		char *full = xasprintf("%s/%s", d, prog);

		if (stat(full, &st) == 0 && S_ISREG(st.st_mode))
			return xasprintf("%s %lld %lld", full, (long long)st.st_size,
					 (long long)st.st_mtime);
	}
	return NULL;
}

/* <cache>/kbuild/<key>: the key hashes the tree's path and identity */
static char *recipe_dir(const char *kdir, bool create)
{
	char real[PATH_MAX], hex[SHA256_HEX_LEN + 1];
	char *base, *dir;
	struct sha256 s;
	struct stat st;

	if (!realpath(kdir, real) || !(base = cache_private_dir("kbuild", create)))
		return NULL;
	sha256_init(&s);
	sha256_update(&s, RECIPE_FORMAT, strlen(RECIPE_FORMAT) + 1);
	sha256_update(&s, KTAP_VERSION, strlen(KTAP_VERSION) + 1);
	sha256_update(&s, real, strlen(real) + 1);
	sha256_update(&s, target_tree_id(kdir), SHA256_HEX_LEN);
	sha256_final_hex(&s, hex);
	dir = xasprintf("%s/%s", base, hex);
	if (create)
		mkdir(dir, 0700);
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & (S_IWGRP | S_IWOTH)))
		return NULL;
	return dir;
}

static struct recipe *recipe_parse(char *text)
{
	struct recipe *r = xalloc(sizeof(*r));
	char *line, *save = NULL;
	int nstep = 0;

	line = strtok_r(text, "\n", &save);
	if (!line || strcmp(line, RECIPE_FORMAT))
		return NULL;
	while ((line = strtok_r(NULL, "\n", &save))) {
		if (!strncmp(line, "cc ", 3))
			r->cc = line + 3;
		else if (!strncmp(line, "step ", 5) && nstep < NSTEPS)
			r->step[nstep++] = line + 5;
	}
	return nstep == NSTEPS && r->cc ? r : NULL;
}

/* the tree's recipe, if one was learned and the compiler is unchanged */
static struct recipe *recipe_load(const char *kdir, const struct options *opt)
{
	char *dir = recipe_dir(kdir, false);
	char *path, *text, *cc;
	struct recipe *r;
	struct stat st;

	if (!dir)
		return NULL;
	path = xasprintf("%s/recipe", dir);
	if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & (S_IWGRP | S_IWOTH)) || !(text = read_whole_file(path, NULL)))
		return NULL;
	if (!(r = recipe_parse(text))) {
		if (opt->verbose)
			fprintf(stderr, "Pass 4: ignoring the damaged recipe %s\n", path);
		return NULL;
	}
	cc = program_stamp(r->step[STEP_COMPILE]);
	if (!cc || strcmp(cc, r->cc)) {
		if (opt->verbose)
			fprintf(stderr, "Pass 4: the compiler changed since %s was learned\n", path);
		return NULL;
	}
	r->dir = dir;
	return r;
}

/* the command kbuild ran for one step, from its .cmd file, as a template */
static char *learn_step(enum step st, const struct build_names *bn)
{
	char *file = xasprintf("%s/%s", bn->dir, fill_in(step_cmd_file[st], bn));
	char *text = read_whole_file(file, NULL), *cmd, *tmpl;

	if (!text)
		return NULL;
	text[strcspn(text, "\n")] = '\0';
	if (!(cmd = strstr(text, " := ")))
		return NULL;
	cmd = replace_all(cmd + 4, "$$", "$");	/* make's quoting */
	tmpl = replace_all(cmd, bn->runtime, "@R@");
	tmpl = replace_all(tmpl, bn->dir, "@D@");
	tmpl = replace_all(tmpl, bn->name, "@M@");
	if (!strstr(tmpl, "@D@") || strchr(tmpl, '\r'))
		return NULL;
	return tmpl;
}

/* a file written whole under a temporary name, then renamed into place */
static int write_atomically(const char *path, const char *text)
{
	char *tmp = xasprintf("%s.tmp-%d", path, (int)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	size_t len = strlen(text);

	if (fd < 0)
		return -1;
	if (write(fd, text, len) != (ssize_t)len || fsync(fd) < 0 || close(fd) < 0 ||
	    rename(tmp, path) < 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

static void per_tree_work(const struct recipe *r, const char *kdir, const struct unit *u,
			  const struct build_names *bn, const struct options *opt);

/* after a kbuild run that worked: keep its commands for the next build,
 * and do the per-tree work the next one would do */
static void recipe_learn(const char *kdir, const struct unit *u, const struct build_names *bn,
			 const struct options *opt)
{
	struct strbuf sb = { 0 };
	struct recipe *r;
	char *dir, *cc;
	int i;

	/* placeholders need names that occur nowhere else in a command */
	if (strlen(bn->name) < 8 || !names_safe(bn) || !(dir = recipe_dir(kdir, true)))
		return;
	sb_printf(&sb, "%s\n", RECIPE_FORMAT);
	for (i = 0; i < NSTEPS; i++) {
		char *tmpl = learn_step(i, bn);

		if (!tmpl || (i == STEP_COMPILE && !(cc = program_stamp(tmpl)))) {
			if (opt->verbose)
				fprintf(stderr, "Pass 4: kbuild's %s command could not be learned\n",
					step_name[i]);
			return;
		}
		if (i == STEP_COMPILE)
			sb_printf(&sb, "cc %s\n", cc);
		sb_printf(&sb, "step %s\n", tmpl);
	}
	if (write_atomically(xasprintf("%s/recipe", dir), sb.buf) < 0) {
		fprintf(stderr, "ktap: warning: cannot write %s/recipe: %s\n", dir, strerror(errno));
		return;
	}
	if (opt->verbose)
		fprintf(stderr, "Pass 4: learned kbuild's commands for %s in %s\n", kdir, dir);
	if ((r = recipe_load(kdir, opt)))
		per_tree_work(r, kdir, u, bn, opt);
}

/* one command, run by the shell in the build tree, its output to log */
static int run_step(const char *cmd, const char *kdir, const char *log)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);

		if (fd < 0 || chdir(kdir) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(127);
		/* what kbuild exports to its commands and a replayed recipe
		 * lacks: Debian 6.12's tools/objtool/objtool is a wrapper that
		 * runs objtool.real-$SRCARCH (ktap targets x86-64 only) */
		setenv("SRCARCH", "x86", 0);
		/* as kbuild runs them: a failing part stops the command */
		execl("/bin/sh", "sh", "-c", xasprintf("set -e; %s", cmd), (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* kbuild's record of the compile (modpost reads it): fixdep turns gcc's
 * dependency file into .NAME.o.cmd, as kbuild's rule_cc_o_c does */
static const char record_compile[] =
	"scripts/basic/fixdep @D@/.@M@.o.d @D@/@M@.o 'ktap direct build' > @D@/.@M@.o.cmd";

/* the small files kbuild writes between the steps */
static int write_step_inputs(const struct build_names *bn)
{
	return write_file(xasprintf("%s/modules.order", bn->dir),
			  xasprintf("%s/%s.ko\n", bn->dir, bn->name)) ||
	       write_file(xasprintf("%s/%s.mod", bn->dir, bn->name),
			  xasprintf("%s/%s.o\n", bn->dir, bn->name));
}

/* what a direct build left, so that kbuild starts from scratch */
static void remove_step_outputs(const struct build_names *bn)
{
	static const char *const outs[] = {
		"%s/%s.o", "%s/%s.mod.c", "%s/%s.mod.o", "%s/%s.ko", "%s/%s.mod",
		"%s/%s.ver.c", "%s/%s.ver.o",
	};
	size_t i;

	for (i = 0; i < sizeof(outs) / sizeof(outs[0]); i++)
		unlink(xasprintf(outs[i], bn->dir, bn->name));
	unlink(xasprintf("%s/Module.symvers", bn->dir));
	unlink(xasprintf("%s/modules.order", bn->dir));
	rename(xasprintf("%s/build.log", bn->dir), xasprintf("%s/direct.log", bn->dir));
}

/* ---- a precompiled header for the kernel headers ----
 * Most of the compile is gcc reading kernel headers. The three headers
 * kbuild passes with -include and the kernel headers the runtime includes
 * go into one header, precompiled once per recipe (and runtime include
 * list) as <recipe>/pch-<hash>.h.gch. A module's compile then includes
 * that header instead of the three. gcc only takes a PCH if every macro
 * defined on the command line was defined the same when it was made, so
 * KBUILD_BASENAME, KBUILD_MODNAME and __KBUILD_MODNAME move from the
 * command line to a small header included right after the PCH (no kernel
 * header tests them; macros that use them expand in the module's code).
 * If gcc refuses the PCH it reads the header's text: same result, slower.
 */

struct compile_split {
	struct strbuf flags;		/* the compile, minus the moved parts */
	struct strbuf includes;		/* #include lines for the -include's */
	struct strbuf names;		/* #define lines for the module's names */
	struct strbuf kernel_includes;	/* the -include's, as flags */
	const char *rest;		/* "; objtool ..." after the compile */
};

static bool is_name_define(const char *tok)
{
	return !strncmp(tok, "-DKBUILD_BASENAME=", 18) || !strncmp(tok, "-DKBUILD_MODNAME=", 17) ||
	       !strncmp(tok, "-D__KBUILD_MODNAME=", 19);
}

/* "-DNAME='"v"'" as "#define NAME "v"" (kbuild's shell quoting removed) */
static void add_define(struct strbuf *sb, const char *tok)
{
	char *def = replace_all(tok + 2, "'", "");

	*strchr(def, '=') = ' ';
	sb_printf(sb, "#define %s\n", def);
}

/* take the compile command of a recipe apart; false if it is not the
 * shape expected (then no PCH) */
static bool split_compile(const char *tmpl, struct compile_split *cs)
{
	const char *semi = strchr(tmpl, ';');
	char *compile = semi ? xstrndup(tmpl, semi - tmpl) : xstrdup(tmpl);
	char *tok, *save = NULL;
	int nincl = 0, nnames = 0;
	bool first = true;

	memset(cs, 0, sizeof(*cs));
	cs->rest = semi ? semi : "";
	if (strchr(compile, '"') && !strstr(compile, "'\""))
		return false;
	for (tok = strtok_r(compile, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if (!strcmp(tok, "-include")) {
			if (!(tok = strtok_r(NULL, " ", &save)))
				return false;
			sb_printf(&cs->includes, "#include \"%s\"\n", tok);
			sb_printf(&cs->kernel_includes, " -include %s", tok);
			if (nincl++ == 0)
				sb_puts(&cs->flags, " -include @P@ -include @D@/.@M@.names.h");
			continue;
		}
		if (is_name_define(tok)) {
			add_define(&cs->names, tok);
			nnames++;
			continue;
		}
		sb_printf(&cs->flags, "%s%s", first ? "" : " ", tok);
		first = false;
	}
	return nincl > 0 && nnames == 3 && strstr(cs->flags.buf, " -c -o @D@/@M@.o @D@/@M@.c");
}

/* the kernel headers the runtime includes: each "#include <...>" line at
 * the start of a line of the runtime headers, runtime.h first */
static void runtime_kernel_includes(const char *runtime, struct strbuf *sb)
{
	struct dirent **names;
	int n, i;

	n = scandir(runtime, &names, NULL, alphasort);
	for (i = -1; i < n; i++) {
		const char *base = i < 0 ? "runtime.h" : names[i]->d_name;
		size_t len = strlen(base);
		char *text, *line, *save = NULL;

		if (len < 3 || strcmp(base + len - 2, ".h") || (i >= 0 && !strcmp(base, "runtime.h")))
			continue;
		if (!(text = read_whole_file(xasprintf("%s/%s", runtime, base), NULL)))
			continue;
		for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			if (!strncmp(line, "#include <", 10))
				sb_printf(sb, "%s\n", line);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	if (n >= 0)
		free(names);
}

/* the PCH's header, made and precompiled if not there yet; NULL if it
 * cannot be (said under -v) */
static char *pch_header(const struct recipe *r, const struct compile_split *cs,
			const char *kdir, const struct build_names *bn, bool make,
			const struct options *opt)
{
	struct strbuf text = { 0 }, cmd = { 0 };
	char hex[SHA256_HEX_LEN + 1];
	char *h, *gch, *tmp, *flags;
	struct sha256 s;
	double t0 = now_seconds();

	sb_puts(&text, "/* ktap: the kernel headers of a module, precompiled */\n");
	sb_puts(&text, cs->includes.buf);
	runtime_kernel_includes(bn->runtime, &text);
	sha256_init(&s);
	sha256_update(&s, text.buf, text.len + 1);
	sha256_update(&s, cs->flags.buf, cs->flags.len + 1);
	sha256_final_hex(&s, hex);
	h = xasprintf("%s/pch-%.16s.h", r->dir, hex);
	gch = xasprintf("%s.gch", h);
	if (access(gch, R_OK) == 0)
		return h;
	if (!make || access(xasprintf("%s.failed", h), F_OK) == 0)
		return NULL;
	if (access(h, R_OK) != 0 && write_atomically(h, text.buf) < 0)
		return NULL;
	/* the module's compile, as a header's: no dependency file, no names */
	flags = replace_all(cs->flags.buf, " -include @P@ -include @D@/.@M@.names.h", "");
	flags = replace_all(flags, " -c -o @D@/@M@.o @D@/@M@.c", "");
	flags = replace_all(flags, "-Wp,-MMD,@D@/.@M@.o.d ", "");
	if (strstr(flags, "@D@") || strstr(flags, "@M@"))
		return NULL;
	tmp = xasprintf("%s.tmp-%d", gch, (int)getpid());
	sb_printf(&cmd, "%s -x c-header -o %s %s", fill_in(flags, bn), tmp, h);
	if (run_step(cmd.buf, kdir, xasprintf("%s.log", h)) < 0 || rename(tmp, gch) < 0) {
		unlink(tmp);
		write_atomically(xasprintf("%s.failed", h), "see the .log\n");
		if (opt->verbose)
			fprintf(stderr, "Pass 4: could not precompile %s (see %s.log); "
				"compiling without it\n", h, h);
		return NULL;
	}
	if (opt->verbose)
		fprintf(stderr, "Pass 4: precompiled the kernel headers into %s (%.0f ms)\n",
			gch, (now_seconds() - t0) * 1000.0);
	return h;
}

/* the compile command of the recipe, with the PCH if there is one (made
 * first if make_pch) */
static char *compile_command(const struct recipe *r, const char *kdir,
			     const struct build_names *bn, bool make_pch,
			     const struct options *opt)
{
	struct compile_split cs;
	char *h;

	if (getenv("KTAP_NO_PCH") || !split_compile(r->step[STEP_COMPILE], &cs) ||
	    !strstr(cs.flags.buf, "-Wp,-MMD,") ||
	    !(h = pch_header(r, &cs, kdir, bn, make_pch, opt)) ||
	    !shell_safe(h))
		return fill_in(r->step[STEP_COMPILE], bn);
	if (write_file(xasprintf("%s/.%s.names.h", bn->dir, bn->name), fill_in(cs.names.buf, bn)))
		return fill_in(r->step[STEP_COMPILE], bn);
	return fill_in(replace_all(xasprintf("%s %s", cs.flags.buf, cs.rest), "@P@", h), bn);
}

/* ---- NAME.mod.o from a per-tree template ----
 * modpost's NAME.mod.c includes linux/module.h: compiling it costs about
 * 0.4 s and 56 MB per module, yet only two parts of it differ between
 * ktap modules: the module's name (KBUILD_MODNAME, in struct module and
 * in .modinfo's name=) and the __versions table and depends= line that
 * modpost writes for the symbols the module uses. So the rest is
 * compiled once per tree and name length, with a placeholder name of the
 * same length, into <recipe>/modtmpl-<hash>.o; a module's .mod.o is a
 * copy with the placeholder's bytes changed to its name, linked with a
 * tiny unit (no headers) holding its own __versions and depends=.
 * modpost still runs, as kbuild runs it: it checks the symbols and
 * writes the CRCs. Anything unexpected in the .mod.c, and the .mod.c is
 * compiled as kbuild does.
 */

/* the versions table of a .mod.c: from its declaration to its "};" */
static bool cut_versions(const char *modc, const char **start, const char **end)
{
	const char *s = strstr(modc, "static const struct modversion_info ____versions[]");
	const char *e = s ? strstr(s, "\n};\n") : NULL;

	if (!s || !e)
		return false;
	*start = s;
	*end = e + 4;
	return true;
}

/* the .mod.c without what differs between modules; NULL if its shape is
 * not the one expected */
static char *modc_common_part(const char *modc, const char *name, char **versions,
			      char **depends)
{
	const char *vs, *ve, *ds, *de;
	char *rest;

	if (!cut_versions(modc, &vs, &ve) || !(ds = strstr(ve, "\nMODULE_INFO(depends, \"")))
		return NULL;
	ds++;
	if (!(de = strstr(ds, "\");\n")) || strchr(ds + 22, '\n') < de)
		return NULL;
	de += 4;
	*versions = xstrndup(vs, ve - vs);
	*depends = xstrndup(ds + 22, de - 4 - (ds + 22));
	rest = xasprintf("%.*s%.*s%s", (int)(vs - modc), modc, (int)(ds - ve), ve, de);
	/* the template must not use the module's name other than by macro */
	return strstr(rest, name) ? NULL : rest;
}

/* a name of the given length that no module of ktap's has: ktapZZZ... */
static char *placeholder_name(size_t len)
{
	char *p = xalloc(len + 1);

	memcpy(p, "ktap", 4);
	memset(p + 4, 'Z', len - 4);
	return p;
}

/* every occurrence of from (same length as to) replaced in a copy */
static int copy_replacing(const char *src, const char *dst, const char *from, const char *to)
{
	size_t len, n = strlen(from);
	char *data = read_whole_file(src, &len), *p;
	int found = 0;
	FILE *f;

	if (!data || strlen(to) != n)
		return -1;
	for (p = data; (p = memmem(p, len - (p - data), from, n)); p += n, found++)
		memcpy(p, to, n);
	/* struct module's name and .modinfo's name= at least */
	if (found < 2 || !(f = fopen(dst, "w")))
		return -1;
	if (fwrite(data, 1, len, f) != len || fclose(f) != 0)
		return -1;
	free(data);
	return 0;
}

/* <recipe>/modtmpl-<hash>.o for this .mod.c, compiled if not there yet */
static char *modtmpl_object(const struct recipe *r, const char *kdir, const char *common,
			    size_t name_len, const struct options *opt)
{
	char hex[SHA256_HEX_LEN + 1];
	struct build_names tb;
	char *obj, *tdir, *cmd;
	struct sha256 s;

	sha256_init(&s);
	sha256_update(&s, common, strlen(common) + 1);
	sha256_update(&s, r->step[STEP_MOD_COMPILE], strlen(r->step[STEP_MOD_COMPILE]) + 1);
	sha256_update(&s, &name_len, sizeof(name_len));
	sha256_final_hex(&s, hex);
	obj = xasprintf("%s/modtmpl-%.16s.o", r->dir, hex);
	if (access(obj, R_OK) == 0)
		return obj;
	tdir = xasprintf("%s/modtmpl-%.16s.tmp-%d", r->dir, hex, (int)getpid());
	tb = (struct build_names){ tdir, placeholder_name(name_len), "/nonexistent" };
	cmd = fill_in(r->step[STEP_MOD_COMPILE], &tb);
	if (mkdir(tdir, 0700) < 0 ||
	    write_file(xasprintf("%s/%s.mod.c", tdir, tb.name), common) ||
	    run_step(cmd, kdir, xasprintf("%s/log", tdir)) < 0 ||
	    rename(xasprintf("%s/%s.mod.o", tdir, tb.name), obj) < 0) {
		if (opt->verbose)
			fprintf(stderr, "Pass 4: could not compile the .mod.c template in %s\n", tdir);
		return NULL;
	}
	remove_tree(tdir);
	if (opt->verbose)
		fprintf(stderr, "Pass 4: compiled the .mod.c template %s\n", obj);
	return obj;
}

/* the module's own part of its .mod.c, as C that needs no header */
static char *versions_unit(const char *versions, const char *depends)
{
	const char *table = strchr(versions, '{');

	return xasprintf("/* ktap: this module's part of its .mod.c (see build.c) */\n"
			 "struct modversion_info {\n"
			 "\tunsigned long crc;\n"
			 "\tchar name[64 - sizeof(unsigned long)];\n"
			 "};\n\n"
			 "static const struct modversion_info ____versions[]\n"
			 "__attribute__((__used__, __section__(\"__versions\"))) = %s\n"
			 "static const char ktap_modinfo_depends[]\n"
			 "__attribute__((__used__, __section__(\".modinfo\"), __aligned__(1))) =\n"
			 "\t\"depends=%s\";\n",
			 table, depends);
}

/* the compiler of the recipe's compile, on the small unit: data only */
static char *versions_compile(const struct recipe *r, const struct build_names *bn)
{
	const char *cmd = r->step[STEP_MOD_COMPILE];
	size_t skip = strspn(cmd, " \t");

	return xasprintf("%.*s -c -O2 -fno-PIE -mcmodel=kernel -o %s/%s.ver.o %s/%s.ver.c",
			 (int)strcspn(cmd + skip, " \t"), cmd + skip,
			 bn->dir, bn->name, bn->dir, bn->name);
}

/* the template for the NAME.mod.c modpost wrote in bn->dir, made if not
 * there yet; NULL if there is none (*versions and *depends: the rest) */
static char *modtmpl_for(const struct recipe *r, const char *kdir,
			 const struct build_names *bn, char **versions, char **depends,
			 const struct options *opt)
{
	char *modc = read_whole_file(xasprintf("%s/%s.mod.c", bn->dir, bn->name), NULL);
	char *common;
	size_t len = strlen(bn->name);

	if (getenv("KTAP_NO_MODTMPL") || !modc || len < 12 ||
	    !(common = modc_common_part(modc, bn->name, versions, depends)))
		return NULL;
	return modtmpl_object(r, kdir, common, len, opt);
}

/* NAME.mod.o (and NAME.ver.o) without compiling linux/module.h; -1: compile
 * the .mod.c instead */
static int mod_object_from_template(const struct recipe *r, const char *kdir,
				    const struct build_names *bn, const struct options *opt)
{
	char *versions, *depends, *obj;
	size_t len = strlen(bn->name);

	if (!(obj = modtmpl_for(r, kdir, bn, &versions, &depends, opt)))
		return -1;
	if (copy_replacing(obj, xasprintf("%s/%s.mod.o", bn->dir, bn->name),
			   placeholder_name(len), bn->name) < 0 ||
	    write_file(xasprintf("%s/%s.ver.c", bn->dir, bn->name), versions_unit(versions, depends)) ||
	    run_step(versions_compile(r, bn), kdir, xasprintf("%s/build.log", bn->dir)) < 0)
		return -1;
	return 0;
}

/* ---- the light unit and the per-tree prebuilt object ----
 * A script whose unit emit.c made light (struct unit) compiles with
 * -DKTAP_LIGHT against runtime/api.h only (no kernel headers but
 * linux/types.h); the runtime, module.h and the tapsets' embedded C are
 * compiled once per tree, for the #defines the script sets, into
 * <recipe>/prebuilt-<hash>/ (ktap_prebuilt.o, api-layout.h, symbols),
 * made in a temporary directory and renamed into place whole. The hash
 * covers the ktap binary, the #defines, the compile command and every
 * file of runtime/ and tapsets/, so a changed tapset or runtime file
 * makes a new one (and a build that finds it parses no tapset). The
 * module's NAME.o is the light unit's object linked with it (ld -r, as
 * kbuild links a module of several objects); objtool runs on each, as
 * kbuild runs it. If anything of this fails, the file is compiled in
 * full (the PCH path), and -v says why.
 */

#define PREBUILT_NAME "ktap_prebuilt"
#define LAYOUT_NAME "ktap_layout"

/* hash of every regular file of a directory (names and contents), in
 * name order */
static void hash_dir(struct sha256 *s, const char *dir)
{
	struct dirent **names;
	int n, i;

	n = scandir(dir, &names, NULL, alphasort);
	for (i = 0; i < n; i++) {
		char *path = xasprintf("%s/%s", dir, names[i]->d_name);
		struct stat st;
		size_t len;
		char *text = stat(path, &st) == 0 && S_ISREG(st.st_mode) ?
			     read_whole_file(path, &len) : NULL;

		if (text) {
			sha256_update(s, names[i]->d_name, strlen(names[i]->d_name) + 1);
			sha256_update(s, text, len);
			free(text);
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

/* the compile of the recipe for another unit of dir (with objtool after
 * it), with the PCH if it is there already */
static char *unit_compile(const struct recipe *r, const char *kdir, const char *dir,
			  const char *name, const char *runtime, const struct options *opt)
{
	struct build_names ub = { dir, name, runtime };

	return compile_command(r, kdir, &ub, false, opt);
}

/* api-layout.h from the assembly of api.c's KTAP_API_LAYOUT unit */
static int write_layout_header(const char *asm_path, const char *h_path)
{
	struct strbuf sb = { 0 };
	char *text = read_whole_file(asm_path, NULL), *p;
	int n = 0;

	if (!text)
		return -1;
	sb_puts(&sb, "/* generated by ktap (runtime/api.c): offsets and sizes of this tree */\n");
	for (p = text; (p = strstr(p, "->")); p += 2) {
		char name[64];
		long long v;

		if (sscanf(p + 2, "%63s %lld", name, &v) == 2) {
			sb_printf(&sb, "#define %s %lld\n", name, v);
			n++;
		}
	}
	free(text);
	return n ? write_file(h_path, sb.buf) : -1;
}

/* run_step(), said under -vv */
static int run_logged(const char *cmd, const char *kdir, const char *log,
		      const struct options *opt)
{
	if (opt->verbose > 1)
		fprintf(stderr, "Running %s\n", cmd);
	return run_step(cmd, kdir, log);
}

/* a binutils program of the link step's linker (its prefix, if any):
 * "objcopy" for "ld", "x86_64-linux-gnu-objcopy" for "x86_64-linux-gnu-ld" */
static char *binutil(const struct recipe *r, const char *prog)
{
	const char *link = r->step[STEP_LINK] + strspn(r->step[STEP_LINK], " \t");
	size_t len = strcspn(link, " \t");

	if (len < 2 || strncmp(link + len - 2, "ld", 2))
		return NULL;
	return xasprintf("%.*s%s", (int)(len - 2), link, prog);
}

/* make the prebuilt object in tmp: the layout first, then the object.
 * It has no DWARF (compiled without -g, and stripped in case the flags
 * ask for it otherwise): it would be 1.7 of its 2 MB, in every module,
 * and the kernel does not use it (backtraces use objtool's ORC tables). */
static int make_prebuilt(const struct recipe *r, const char *kdir, const char *tmp,
			 const char *unit, const char *symbols, const char *defines,
			 const char *runtime, const struct options *opt)
{
	char *log = xasprintf("%s/build.log", tmp);
	char *lay = unit_compile(r, kdir, tmp, LAYOUT_NAME, runtime, opt);
	char *obj = unit_compile(r, kdir, tmp, PREBUILT_NAME, runtime, opt);
	char *objcopy = binutil(r, "objcopy");
	const char *semi;

	if (!lay || !obj || !objcopy || !(semi = strchr(lay, ';')))
		return -1;
	obj = replace_all(obj, " -g ", " ");	/* a third of the compile */
	/* the layout unit only to assembly, without objtool */
	lay = replace_all(xstrndup(lay, semi - lay),
			  xasprintf("-c -o %s/%s.o", tmp, LAYOUT_NAME),
			  xasprintf("-S -o %s/%s.s", tmp, LAYOUT_NAME));
	if (write_file(xasprintf("%s/%s.c", tmp, LAYOUT_NAME),
		       xasprintf("%s#include \"runtime.h\"\n#define KTAP_API_LAYOUT\n#include \"api.c\"\n",
				 defines)) ||
	    write_file(xasprintf("%s/%s.c", tmp, PREBUILT_NAME), unit) ||
	    write_file(xasprintf("%s/symbols", tmp), symbols) ||
	    run_logged(lay, kdir, log, opt) < 0 ||
	    write_layout_header(xasprintf("%s/%s.s", tmp, LAYOUT_NAME),
				xasprintf("%s/api-layout.h", tmp)) < 0 ||
	    run_logged(obj, kdir, log, opt) < 0 ||
	    run_logged(xasprintf("%s --strip-debug %s/%s.o", objcopy, tmp, PREBUILT_NAME),
		       kdir, log, opt) < 0)
		return -1;
	return 0;
}

/* prebuilt objects kept per tree: for the tapsets and runtime of now and
 * of a few edits back, and for scripts' different #defines */
#define PREBUILT_KEEP 4

struct aged_name {
	char *path;
	time_t mtime;
};

static int newest_first(const void *a, const void *b)
{
	const struct aged_name *x = a, *y = b;

	return (y->mtime > x->mtime) - (y->mtime < x->mtime);
}

/* remove all but the PREBUILT_KEEP most recently used prebuilt objects,
 * and temporary ones an interrupted build left over an hour ago */
static void prune_prebuilt(const char *recipe)
{
	struct aged_name *all = NULL;
	DIR *d = opendir(recipe);
	struct dirent *de;
	int n = 0, i;

	while (d && (de = readdir(d))) {
		char *path = xasprintf("%s/%s", recipe, de->d_name);
		struct stat st;

		if (strncmp(de->d_name, "prebuilt-", 9) || lstat(path, &st) < 0)
			continue;
		if (strstr(de->d_name, ".tmp-")) {
			if (st.st_mtime < time(NULL) - 3600)
				remove_tree(path);
			continue;
		}
		all = xrealloc(all, (n + 1) * sizeof(*all));
		all[n++] = (struct aged_name){ path, st.st_mtime };
	}
	if (d)
		closedir(d);
	if (n > PREBUILT_KEEP)
		qsort(all, n, sizeof(*all), newest_first);
	for (i = PREBUILT_KEEP; i < n; i++)
		remove_tree(all[i].path);
	free(all);
}

/* <recipe>/prebuilt-<hash> for a script's #defines, made if not there
 * yet; NULL (said under -v) if it cannot be */
static char *prebuilt_dir(const struct recipe *r, const char *kdir, const char *defines,
			  const char *runtime, const struct options *opt)
{
	char hex[SHA256_HEX_LEN + 1];
	char *unit, *symbols, *dir, *tmp;
	const char *gen;
	double t0 = now_seconds();
	struct sha256 s;
	struct stat st;
	bool made;

	/* the inputs, so that a build finds it without parsing the tapsets */
	if (stat("/proc/self/exe", &st) < 0)
		return NULL;
	sha256_init(&s);
	sha256_update(&s, KTAP_VERSION, strlen(KTAP_VERSION) + 1);
	sha256_update(&s, &st.st_size, sizeof(st.st_size));
	sha256_update(&s, &st.st_mtime, sizeof(st.st_mtime));
	sha256_update(&s, &st.st_ino, sizeof(st.st_ino));
	sha256_update(&s, defines, strlen(defines) + 1);
	sha256_update(&s, r->step[STEP_COMPILE], strlen(r->step[STEP_COMPILE]) + 1);
	hash_dir(&s, runtime);
	hash_dir(&s, xasprintf("%s/tapsets", opt->data_dir));
	/* the generated syscall tapset: its directory's name hashes its
	 * inputs, and it is never changed once made */
	gen = syscalls_tapset_dir(opt);
	sha256_update(&s, gen ? gen : "", strlen(gen ? gen : "") + 1);
	sha256_final_hex(&s, hex);
	dir = xasprintf("%s/prebuilt-%.16s", r->dir, hex);
	if (access(xasprintf("%s/%s.o", dir, PREBUILT_NAME), R_OK) == 0) {
		utimes(dir, NULL);	/* used: the last to be pruned */
		return dir;
	}
	if (access(xasprintf("%s.failed", dir), F_OK) == 0)
		return NULL;
	if (!(unit = emit_prebuilt_unit(opt, defines, &symbols)))
		return NULL;
	progress("compiling the runtime and tapsets for %s (once per kernel and ktap version)",
		 kdir);
	tmp = xasprintf("%s.tmp-%d", dir, (int)getpid());
	made = mkdir(tmp, 0700) == 0 &&
	       make_prebuilt(r, kdir, tmp, unit, symbols, defines, runtime, opt) == 0 &&
	       rename(tmp, dir) == 0;
	if (!made && access(xasprintf("%s/%s.o", dir, PREBUILT_NAME), R_OK) == 0) {
		/* another ktap made the same one meanwhile */
		remove_tree(tmp);
		return dir;
	}
	if (!made) {
		char *failed = xasprintf("%s.failed", dir);

		remove_tree(failed);
		rename(tmp, failed);
		if (opt->verbose)
			fprintf(stderr, "Pass 4: could not make the prebuilt runtime (see %s/build.log)\n",
				failed);
		return NULL;
	}
	if (opt->verbose)
		fprintf(stderr, "Pass 4: compiled the runtime and tapsets into %s (%.0f ms)\n",
			dir, (now_seconds() - t0) * 1000.0);
	prune_prebuilt(r->dir);
	return dir;
}

/* every prebuilt function the light unit calls is in the object */
static bool prebuilt_has_all(const char *dir, const struct unit *u)
{
	char *symbols = read_whole_file(xasprintf("%s/symbols", dir), NULL);

	for (int i = 0; symbols && i < u->nprebuilt; i++)
		if (!strstr(symbols, xasprintf("%s\n", u->prebuilt[i])))
			return false;
	return symbols != NULL;
}

/* the light compile: the recipe's, without the PCH and the names, with
 * -DKTAP_LIGHT and the prebuilt directory (for api-layout.h) */
static char *light_compile(const struct compile_split *cs, const char *prebuilt,
			   const struct build_names *bn)
{
	char *flags = replace_all(cs->flags.buf, " -include @P@ -include @D@/.@M@.names.h",
				  xasprintf("%s -DKTAP_LIGHT -I%s", cs->kernel_includes.buf, prebuilt));

	flags = replace_all(flags, " -c -o @D@/@M@.o ", " -c -o @D@/@M@.light.o ");
	return fill_in(xasprintf("%s %s", flags,
				 replace_all(cs->rest, "@D@/@M@.o", "@D@/@M@.light.o")), bn);
}

/* ld -r of the light object and the prebuilt one into NAME.o, with the
 * link step's linker and emulation */
static char *light_link(const struct recipe *r, const char *prebuilt,
			const struct build_names *bn)
{
	const char *link = r->step[STEP_LINK];
	const char *t = strstr(link, " -T ");
	char *ld;

	if (!t || !strstr(link, " -r "))
		return NULL;
	ld = replace_all(xstrndup(link, t - link), "--build-id=sha1", "");
	return fill_in(xasprintf("%s -o @D@/@M@.o @D@/@M@.light.o %s/%s.o", ld, prebuilt,
				 PREBUILT_NAME), bn);
}

/* NAME.o from the light unit; -1: compile the file in full instead */
static int light_object(const struct recipe *r, const char *kdir, const struct unit *u,
			const struct build_names *bn, const struct options *opt)
{
	char *log = xasprintf("%s/build.log", bn->dir), *dir, *link;
	struct compile_split cs;

	if (!u->light || getenv("KTAP_NO_LIGHT") ||
	    !split_compile(r->step[STEP_COMPILE], &cs) || !strstr(cs.flags.buf, "-Wp,-MMD,") ||
	    !(dir = prebuilt_dir(r, kdir, u->defines, bn->runtime, opt)) ||
	    !shell_safe(dir))
		return -1;
	if (!prebuilt_has_all(dir, u)) {
		if (opt->verbose)
			fprintf(stderr, "Pass 4: %s lacks a tapset function of the script\n", dir);
		return -1;
	}
	if (!(link = light_link(r, dir, bn)))
		return -1;
	if (run_logged(light_compile(&cs, dir, bn), kdir, log, opt) < 0 ||
	    run_logged(link, kdir, log, opt) < 0) {
		char *kept = xasprintf("%s/light.log", bn->dir);

		/* build.log is for the full compile's words */
		rename(log, kept);
		if (opt->verbose)
			fprintf(stderr, "Pass 4: the light unit did not build (see %s); "
				"compiling in full\n", kept);
		return -1;
	}
	return 0;
}

/* the precompiled headers and the .mod.c template */
static void headers_and_template(const struct recipe *r, const char *kdir,
				 const struct build_names *bn, const struct options *opt)
{
	char *versions, *depends;

	compile_command(r, kdir, bn, true, opt);
	modtmpl_for(r, kdir, bn, &versions, &depends, opt);
}

/* the per-tree work of a build, done by the first one (after kbuild):
 * the precompiled headers and the .mod.c template in a child process,
 * meanwhile the prebuilt runtime (without the PCH, not there yet) */
static void per_tree_work(const struct recipe *r, const char *kdir, const struct unit *u,
			  const struct build_names *bn, const struct options *opt)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		headers_and_template(r, kdir, bn, opt);
		_exit(0);
	}
	if (u->light && !getenv("KTAP_NO_LIGHT"))
		prebuilt_dir(r, kdir, u->defines, bn->runtime, opt);
	if (pid < 0)
		headers_and_template(r, kdir, bn, opt);
	else
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
}

enum direct_result { DIRECT_BUILT, DIRECT_FAILED, DIRECT_FALLBACK, DIRECT_NOT_LIGHT };

/* run the recipe's commands; a compile that fails is the script's C (the
 * same command fails under kbuild), anything else unexpected */
static enum direct_result direct_build(const struct recipe *r, const char *kdir,
				       const struct unit *u, bool try_light,
				       const struct build_names *bn,
				       const struct options *opt)
{
	char *log = xasprintf("%s/build.log", bn->dir);
	double t0 = now_seconds();
	bool from_template = false, light = false;
	int i;

	if (write_step_inputs(bn))
		return DIRECT_FALLBACK;
	for (i = 0; i < NSTEPS; i++) {
		char *cmd;
		int rc;

		if (i == STEP_COMPILE && try_light && light_object(r, kdir, u, bn, opt) == 0) {
			light = true;
			cmd = xstrdup("true");	/* NAME.o is there: on to its record */
		} else {
			cmd = i == STEP_COMPILE ? compile_command(r, kdir, bn, true, opt)
						: fill_in(r->step[i], bn);
		}
		if (i == STEP_MOD_COMPILE && mod_object_from_template(r, kdir, bn, opt) == 0) {
			from_template = true;
			continue;
		}
		if (i == STEP_LINK && from_template)
			cmd = replace_all(cmd, xasprintf("%s/%s.mod.o", bn->dir, bn->name),
					  xasprintf("%s/%s.mod.o %s/%s.ver.o", bn->dir, bn->name,
						    bn->dir, bn->name));
		if (opt->verbose > 1)
			fprintf(stderr, "Running %s\n", cmd);
		rc = run_step(cmd, kdir, log);

		if (rc < 0 && i == STEP_COMPILE) {
			show_build_log(log);
			return DIRECT_FAILED;
		}
		if (rc == 0 && i == STEP_COMPILE)
			rc = run_step(fill_in(record_compile, bn), kdir, log);
		if (rc == 0)
			continue;
		if (light) {
			if (opt->verbose)
				fprintf(stderr, "Pass 4: kbuild's %s command failed on the light "
					"unit (see %s/direct.log); compiling in full\n",
					step_name[i], bn->dir);
			remove_step_outputs(bn);
			return DIRECT_NOT_LIGHT;
		}
		if (opt->verbose)
			fprintf(stderr, "Pass 4: kbuild's %s command failed when run directly "
				"(recipe %s); building with kbuild instead\n", step_name[i], r->dir);
		remove_step_outputs(bn);
		return DIRECT_FALLBACK;
	}
	if (opt->verbose)
		fprintf(stderr, "Pass 4: built with kbuild's commands run directly: %s, %s (%.0f ms)\n",
			light ? "the light unit linked with the prebuilt runtime"
			      : "the whole unit compiled",
			from_template ? "the .mod.o from the tree's template" : "the .mod.c compiled",
			(now_seconds() - t0) * 1000.0);
	return DIRECT_BUILT;
}

/* the Kbuild file of a module's directory */
static char *kbuild_file(const struct build_names *bn)
{
	return xasprintf("obj-m := %s.o\nccflags-y := -I%s\n", bn->name, bn->runtime);
}

/* with init and exit, as a script's module has: the same .mod.c then */
static const char small_module[] =
	"#include <linux/module.h>\n"
	"static int __init ktap_learn_init(void) { return 0; }\n"
	"static void __exit ktap_learn_exit(void) { }\n"
	"module_init(ktap_learn_init);\nmodule_exit(ktap_learn_exit);\n"
	"MODULE_LICENSE(\"GPL\");\n";

/* a module of a few lines, for kbuild to show its commands on: learning
 * from it instead of from the script saves kbuild compiling the runtime
 * without the precompiled headers (the script then builds directly, as
 * every later one does); NULL if kbuild fails on it */
static struct recipe *learn_from_small_module(const char *kdir, const struct unit *u,
					      const struct build_names *bn,
					      const struct options *opt)
{
	struct build_names lb = { xasprintf("%s/learn", bn->dir), bn->name, bn->runtime };
	double t0 = now_seconds();

	progress("learning how kbuild builds modules for %s (first build for this kernel)", kdir);
	if (mkdir(lb.dir, 0700) < 0 ||
	    write_file(xasprintf("%s/%s.c", lb.dir, lb.name),
		       small_module) ||
	    write_file(xasprintf("%s/Kbuild", lb.dir), kbuild_file(&lb)) ||
	    run_step(xasprintf("make -C '%s' M='%s'%s modules -j2", kdir, lb.dir,
			       kbuild_args(kdir, opt)), kdir,
		     xasprintf("%s/build.log", lb.dir)) < 0) {
		if (opt->verbose)
			fprintf(stderr, "Pass 4: kbuild failed on it (see %s/build.log)\n", lb.dir);
		return NULL;
	}
	if (opt->verbose)
		fprintf(stderr, "Pass 4: kbuild built it (%.0f ms)\n", (now_seconds() - t0) * 1000.0);
	recipe_learn(kdir, u, &lb, opt);
	return recipe_load(kdir, opt);
}

/* the module NAME.ko in dir: directly if the tree's recipe is known, else
 * (or if that goes wrong) with kbuild, learning the recipe from it */
static int build_in(const char *kdir, const struct unit *u, const struct build_names *bn,
		    const struct options *opt)
{
	struct recipe *r = NULL;

	if (names_safe(bn) && !getenv("KTAP_KBUILD") &&
	    !(r = recipe_load(kdir, opt)))
		r = learn_from_small_module(kdir, u, bn, opt);
	if (r) {
		enum direct_result res = direct_build(r, kdir, u, true, bn, opt);

		if (res == DIRECT_NOT_LIGHT)
			res = direct_build(r, kdir, u, false, bn, opt);
		switch (res) {
		case DIRECT_BUILT:
			return 0;
		case DIRECT_FAILED:
			return -1;
		case DIRECT_FALLBACK:
		case DIRECT_NOT_LIGHT:
			break;
		}
	} else {
		progress("building the module with kbuild in %s (slower than a direct build)", kdir);
	}
	if (run_kbuild(kdir, bn->dir, opt))
		return -1;
	if (!getenv("KTAP_KBUILD"))
		recipe_learn(kdir, u, bn, opt);
	return 0;
}

static int copy_file(const char *from, const char *to)
{
	size_t len;
	char *data = read_whole_file(from, &len);
	FILE *f;

	if (!data)
		return -1;
	f = fopen(to, "w");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
		fprintf(stderr, "ktap: cannot write %s: %s\n", to, strerror(errno));
		free(data);
		return -1;
	}
	free(data);
	return 0;
}

/* a generated file this large takes more than two seconds to compile */
#define BIG_UNIT (64u << 10)

int build_module(const struct unit *u, const struct options *opt, char **ko_path)
{
	const char *kdir = target_build_dir(target_kernel());
	const char *name = u->module_name;
	const char *tmpdir = getenv("TMPDIR");
	char *tmpl = xasprintf("%s/ktapXXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	char *runtime = xasprintf("%s/runtime", opt->data_dir);
	struct build_names bn;
	char *ko;

	if (!kdir)
		return -1;
	if (!mkdtemp(tmpl)) {
		fprintf(stderr, "ktap: cannot make a build directory: %s\n", strerror(errno));
		return -1;
	}
	build_dir_path = xstrdup(tmpl);
	build_dir_keep = opt->keep_build;
	atexit(remove_build_dir);
	clean_up_on_signals();
	bn = (struct build_names){ tmpl, name, runtime };
	/* measured in the guest's tree: syscall.*, syscall.*.return is 185
	 * KiB of C and 7 s; a script of a few probes, 20 KiB and 0.6 s */
	if (strlen(u->c) > BIG_UNIT)
		progress("compiling %s (%zu KiB of C)", name, strlen(u->c) >> 10);
	if (write_file(xasprintf("%s/%s.c", tmpl, name), u->c) ||
	    write_file(xasprintf("%s/Kbuild", tmpl), kbuild_file(&bn)) ||
	    build_in(kdir, u, &bn, opt))
		return -1;
	ko = xasprintf("%s/%s.ko", tmpl, name);
	if (opt->last_pass == 4) {
		char *dest = xasprintf("%s.ko", name);

		if (copy_file(ko, dest))
			return -1;
		ko = dest;
	}
	*ko_path = ko;
	return 0;
}
