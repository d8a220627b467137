/* main.c - ktap's command line and the pass driver.
 *
 * ktap [options] [SCRIPT.stp | -e 'SCRIPT'] [ARGS...]
 * Passes: 1 parse, 2 resolve, 3 emit C, 4 build the module, 5 run it.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ktap.h"
#include "lexer.h"
#include "program.h"
#include "tapdoc.h"

static void usage(FILE *out)
{
	fprintf(out,
"Usage: ktap [options] SCRIPT.stp [ARGS...]   (ARGS starting with '-': after --)\n"
"       ktap [options] -e 'SCRIPT' [ARGS...]\n"
"\n"
"  -e SCRIPT     run the script given on the command line\n"
"  -c CMD        run CMD; target() is its pid; stop when it exits\n"
"  -x PID        set target() to PID\n"
"  -o FILE       write the script's output to FILE\n"
"  -p N          stop after pass N (1 parse, 2 resolve, 3 C, 4 module, 5 run)\n"
"  -v            more messages: per-pass time and memory (repeatable)\n"
"  -k            keep the build directory and print its path\n"
"  -g            guru mode: allow embedded C in the script\n"
"  -D NAME=VAL   set a runtime limit or macro (MAXACTION=..., ...)\n"
"  -I DIR        also look for tapsets in DIR\n"
"  -r REL|DIR    build for kernel release REL or against build tree DIR\n"
"  -m NAME       name the module NAME\n"
"  -s MB         per-CPU output buffer size in MiB\n"
"  -w / -W       no warnings / warnings are errors\n"
"  -l POINT      list the probe points POINT matches (kernel.function(\"vfs_*\"))\n"
"  -L POINT      ... with their variables and C types\n"
"  --disable-cache\n"
"                build the module anew; neither use nor fill the module cache\n"
"  --clean-cache empty the module cache (${KTAP_CACHE:-~/.cache/ktap}/modules;\n"
"                KTAP_CACHE_SIZE_MB caps its size, default 256)\n"
"  --vm          run in the ktap guest (a QEMU copy of a Debian kernel)\n"
"  --vm-setup, --vm-start, --vm-stop, --vm-status\n"
"                provision, boot, stop or describe the ktap guest\n"
"  --vm-exec CMD run a shell command in the ktap guest (to look around)\n"
"  --dump-functions\n"
"                list the tapset functions: name:type (param:type, ...)\n"
"  --dump-probe-aliases\n"
"                list the tapset probe aliases with their variables\n"
"  --dump-doc    write the tapsets' manual page, ktap-tapsets(7)\n"
"  --check-doc   say which tapset functions and aliases lack a doc comment\n"
"  -V, --version print the version\n"
"  -h, --help    this text\n");
}

/* Where runtime/, tapsets/, guest/ and loader/ live: next to the binary
 * when running from the build tree, else the installed data directory. */
static const char *find_data_dir(void)
{
	static char exe[4096];
	const char *env = getenv("KTAP_DATA_DIR");
	ssize_t n;

	if (env)
		return env;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char probe[4200];
		char *dir;

		exe[n] = '\0';
		dir = dirname(exe);
		snprintf(probe, sizeof(probe), "%s/runtime/runtime.h", dir);
		if (access(probe, R_OK) == 0)
			return dir;
	}
#ifdef KTAP_DATADIR
	return KTAP_DATADIR;
#else
	return ".";
#endif
}

enum long_opt {
	OPT_VM = 256,
	OPT_VM_SETUP,
	OPT_VM_START,
	OPT_VM_STOP,
	OPT_VM_STATUS,
	OPT_VM_EXEC,
	OPT_DISABLE_CACHE,
	OPT_CLEAN_CACHE,
	OPT_DUMP_FUNCTIONS,
	OPT_DUMP_PROBE_ALIASES,
	OPT_DUMP_DOC,
	OPT_CHECK_DOC,
};

static const struct option long_options[] = {
	{ "vm", no_argument, NULL, OPT_VM },
	{ "vm-setup", no_argument, NULL, OPT_VM_SETUP },
	{ "vm-start", no_argument, NULL, OPT_VM_START },
	{ "vm-stop", no_argument, NULL, OPT_VM_STOP },
	{ "vm-status", no_argument, NULL, OPT_VM_STATUS },
	{ "vm-exec", required_argument, NULL, OPT_VM_EXEC },
	{ "disable-cache", no_argument, NULL, OPT_DISABLE_CACHE },
	{ "clean-cache", no_argument, NULL, OPT_CLEAN_CACHE },
	{ "dump-functions", no_argument, NULL, OPT_DUMP_FUNCTIONS },
	{ "dump-probe-aliases", no_argument, NULL, OPT_DUMP_PROBE_ALIASES },
	{ "dump-doc", no_argument, NULL, OPT_DUMP_DOC },
	{ "check-doc", no_argument, NULL, OPT_CHECK_DOC },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* --dump-functions and friends (tapdoc.c): what to describe, or -1 */
static int tapdoc_what = -1;

static void add_string(char ***list, int *n, const char *s)
{
	*list = xrealloc(*list, (*n + 1) * sizeof(**list));
	(*list)[(*n)++] = (char *)s;
}

static long parse_number_option(int opt, const char *arg, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || end == arg || v < lo || v > hi) {
		fprintf(stderr, "ktap: -%c wants a number from %ld to %ld, not '%s'\n",
			opt, lo, hi, arg);
		exit(1);
	}
	return v;
}

/* returns the vm sub-command asked for, or NULL */
static const char *parse_options(int argc, char **argv, struct options *opt)
{
	const char *vm_cmd = NULL;
	int c;

	opt->last_pass = 5;
	/* options may follow the script file too (`ktap t.stp -c CMD`), as with
	 * stap; script arguments that start with '-' go after "--" */
	while ((c = getopt_long(argc, argv, "e:c:x:o:p:vkgD:I:r:m:s:wWl:L:hV",
				long_options, NULL)) != -1) {
		switch (c) {
		case 'e': opt->script_text = optarg; break;
		case 'c': opt->command = optarg; break;
		case 'x': opt->target_pid = parse_number_option(c, optarg, 1, 1 << 30); break;
		case 'o': opt->output_file = optarg; break;
		case 'p': opt->last_pass = parse_number_option(c, optarg, 1, 5); break;
		case 'v': opt->verbose++; break;
		case 'k': opt->keep_build = true; break;
		case 'g': opt->guru = true; break;
		case 'D': add_string(&opt->defines, &opt->ndefines, optarg); break;
		case 'I': add_string(&opt->include_dirs, &opt->ninclude_dirs, optarg); break;
		case 'r': opt->release = optarg; break;
		case 'm': opt->module_name = optarg; break;
		case 's': opt->buffer_mb = parse_number_option(c, optarg, 1, 4095); break;
		case 'w': diag_no_warnings = true; break;
		case 'l':
		case 'L':
			opt->list_points = optarg;
			opt->list_vars = c == 'L';
			opt->script_text = xasprintf("probe %s {}", optarg);
			opt->last_pass = 2;
			break;
		case 'W': diag_warnings_are_errors = true; break;
		case OPT_VM: opt->vm = true; break;
		case OPT_VM_SETUP: vm_cmd = "setup"; break;
		case OPT_VM_START: vm_cmd = "start"; break;
		case OPT_VM_STOP: vm_cmd = "stop"; break;
		case OPT_VM_STATUS: vm_cmd = "status"; break;
		case OPT_VM_EXEC: vm_cmd = "exec"; opt->command = optarg; break;
		case OPT_DISABLE_CACHE: opt->no_cache = true; break;
		case OPT_CLEAN_CACHE: opt->clean_cache = true; break;
		case OPT_DUMP_FUNCTIONS: tapdoc_what = TAPDOC_FUNCTIONS; break;
		case OPT_DUMP_PROBE_ALIASES: tapdoc_what = TAPDOC_ALIASES; break;
		case OPT_DUMP_DOC: tapdoc_what = TAPDOC_MAN; break;
		case OPT_CHECK_DOC: tapdoc_what = TAPDOC_CHECK; break;
		case 'h': usage(stdout); exit(0);
		case 'V': printf("ktap %s\n", KTAP_VERSION); exit(0);
		default: usage(stderr); exit(1);
		}
	}
	if (!opt->script_text && !vm_cmd && tapdoc_what < 0 &&
	    !(opt->clean_cache && optind >= argc)) {
		if (optind >= argc) {
			fprintf(stderr, "ktap: no script given (a file, or -e 'SCRIPT')\n");
			usage(stderr);
			exit(1);
		}
		opt->script_file = argv[optind++];
	}
	opt->script_args = argv + optind;
	opt->nscript_args = argc - optind;
	if (opt->command && opt->target_pid) {
		fprintf(stderr, "ktap: -c and -x cannot be used together\n");
		exit(1);
	}
	return vm_cmd;
}

static void report_pass(const struct options *opt, int pass, double t0)
{
	if (opt->verbose)
		fprintf(stderr, "Pass %d: %.0f ms, peak RSS %ld KiB\n", pass,
			(now_seconds() - t0) * 1000.0, peak_rss_kb());
}

/* what %( conditions and $1/@1 see: the script's arguments and target */
static void set_preprocessor_env(const struct options *opt)
{
	struct pp_env env = { 0 };

	env.guru = opt->guru;
	env.argv = opt->script_args;
	env.argc = opt->nscript_args;
	if (opt->release && !strchr(opt->release, '/'))
		env.kernel_vr = opt->release;
	else if (!opt->release && opt->vm)
		env.kernel_vr = vm_kernel_release(opt);
	/* CONFIG_* tests read the target's own configuration */
	if (opt->release && strchr(opt->release, '/'))
		env.kconfig_path = xasprintf("%s/.config", opt->release);
	else if (env.kernel_vr && opt->vm && !opt->release)
		env.kconfig_path = xasprintf("/usr/src/linux-headers-%s/.config", env.kernel_vr);
	lexer_set_env(&env);
}

/* .stpm files on the tapset path hold @define macros every script sees */
static void load_macro_dir(const char *dir)
{
	struct dirent **names;
	int n, i;

	n = scandir(dir, &names, NULL, alphasort);
	for (i = 0; i < n; i++) {
		size_t len = strlen(names[i]->d_name);

		if (len > 5 && strcmp(names[i]->d_name + len - 5, ".stpm") == 0) {
			struct source *src =
				source_from_file(xasprintf("%s/%s", dir, names[i]->d_name));

			if (src) {
				src->is_tapset = true;
				parse_source(src);
			}
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

static void load_macro_files(const struct options *opt)
{
	int i;

	for (i = 0; i < opt->ninclude_dirs; i++)
		load_macro_dir(opt->include_dirs[i]);
	load_macro_dir(xasprintf("%s/tapsets", opt->data_dir));
}

static struct file *pass1_parse(const struct options *opt)
{
	struct source *src;

	set_preprocessor_env(opt);
	load_macro_files(opt);
	if (opt->script_text)
		src = source_from_string("<input>", opt->script_text);
	else
		src = source_from_file(opt->script_file);
	if (!src)
		exit(1);
	return parse_source(src);
}

/* pass 5, or after -p4 the module's file name */
static int run_module(const char *ko, const struct options *opt)
{
	double t0;
	int rc;

	if (opt->last_pass == 4) {
		printf("%s\n", ko);
		return 0;
	}
	t0 = now_seconds();
	rc = opt->vm ? vm_run(ko, opt) : run_local(ko, opt);
	report_pass(opt, 5, t0);
	return rc;
}

/* passes 4 and 5: build (and keep in the cache), then -p4 or run it */
static int build_and_run(const char *c_code, const struct program *prog,
			 struct cache *cache, const struct options *opt)
{
	char *ko = NULL;
	double t0 = now_seconds();
	int rc;

	rc = build_module(c_code, opt, &ko);
	report_pass(opt, 4, t0);
	if (rc)
		return 1;
	cache_store(cache, ko, prog);
	return run_module(ko, opt);
}

int main(int argc, char **argv)
{
	struct options opt = { 0 };
	const char *vm_cmd;
	struct file *file;
	struct program *prog;
	struct cache *cache = NULL;
	char *c_code, *ko;
	double t0;
	int rc;

	vm_cmd = parse_options(argc, argv, &opt);
	opt.data_dir = find_data_dir();
	if (opt.clean_cache) {
		rc = cache_clean(&opt);
		if (rc || (!opt.script_file && !opt.script_text && !vm_cmd))
			return rc;
	}
	if (vm_cmd && strcmp(vm_cmd, "exec") == 0)
		return vm_exec(opt.command, &opt);
	if (vm_cmd)
		return vm_command(vm_cmd, &opt);
	if (tapdoc_what >= 0) {
		/* the tapsets as pass 1 sees them: same %( conditions, macros */
		set_preprocessor_env(&opt);
		load_macro_files(&opt);
		return tapdoc_run(&opt, tapdoc_what);
	}

	/* say at once when the run cannot happen here, before any work */
	if (opt.last_pass == 5 && !opt.vm && local_run_refusal()) {
		fprintf(stderr, "%s\n", local_run_refusal());
		return 1;
	}

	/* a module in the cache skips passes 1-4; its key needs the kernel */
	if (opt.last_pass >= 4 && !opt.no_cache) {
		if (!kernel_build_dir(&opt))
			return 1;
		set_preprocessor_env(&opt);
		cache = cache_open(&opt);
		rc = cache_fetch(cache, &opt, &ko);
		if (rc)
			return rc < 0 ? 1 : run_module(ko, &opt);
	}

	t0 = now_seconds();
	file = pass1_parse(&opt);
	report_pass(&opt, 1, t0);
	if (diag_error_count())
		return 1;
	if (opt.last_pass == 1) {
		print_file(stdout, file);
		return 0;
	}

	t0 = now_seconds();
	prog = resolve_program(file, &opt);
	report_pass(&opt, 2, t0);
	if (!prog || diag_error_count())
		return 1;
	if (opt.list_points) {
		print_probe_list(stdout, prog, opt.list_vars);
		return 0;
	}
	if (opt.last_pass == 2) {
		print_resolved(stdout, prog);
		return 0;
	}

	t0 = now_seconds();
	c_code = emit_program(prog, &opt);
	report_pass(&opt, 3, t0);
	if (!c_code || diag_error_count())
		return 1;
	if (opt.last_pass == 3) {
		fputs(c_code, stdout);
		return 0;
	}
	return build_and_run(c_code, prog, cache, &opt);
}
