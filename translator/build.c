/* build.c - pass 4: the generated C as a kernel module, built by kbuild
 * against the target kernel's build tree. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"

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

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* -r RELEASE|DIR, the guest's kernel with --vm, else the running kernel */
const char *kernel_build_dir(const struct options *opt)
{
	const char *rel = opt->release;
	struct utsname u;
	char *dir;

	if (rel && strchr(rel, '/'))
		return rel;
	if (!rel && opt->vm)
		return vm_kernel_build_dir(opt);
	if (!rel) {
		uname(&u);
		rel = xstrdup(u.release);
	}
	dir = xasprintf("/lib/modules/%s/build", rel);
	if (is_dir(dir))
		return dir;
	dir = xasprintf("/usr/src/linux-headers-%s", rel);
	if (is_dir(dir))
		return dir;
	fprintf(stderr, "ktap: no build tree for kernel %s (looked in /lib/modules/%s/build): "
		"install linux-headers-%s, pass -r, or run in the ktap guest with --vm\n",
		rel, rel, rel);
	return NULL;
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

static int run_kbuild(const char *kdir, const char *dir, const struct options *opt)
{
	char *log = xasprintf("%s/build.log", dir);
	char *cmd = xasprintf("make -C '%s' M='%s' modules -j2 >'%s' 2>&1",
			      kdir, dir, log);
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

static const char *module_name_of(const char *c_code)
{
	const char *p = strstr(c_code, "#define KTAP_MODULE_NAME \"");
	const char *q;

	if (!p)
		return "ktap_module";
	p += strlen("#define KTAP_MODULE_NAME \"");
	q = strchr(p, '"');
	return xstrndup(p, q - p);
}

int build_module(const char *c_code, const struct options *opt, char **ko_path)
{
	const char *kdir = kernel_build_dir(opt);
	const char *name = module_name_of(c_code);
	const char *tmpdir = getenv("TMPDIR");
	char *tmpl = xasprintf("%s/ktapXXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
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
	if (write_file(xasprintf("%s/%s.c", tmpl, name), c_code) ||
	    write_file(xasprintf("%s/Kbuild", tmpl),
		       xasprintf("obj-m := %s.o\nccflags-y := -I%s/runtime\n",
				 name, opt->data_dir)))
		return -1;
	if (run_kbuild(kdir, tmpl, opt))
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
