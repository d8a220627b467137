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
#include "target.h"

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
"  -q            quiet: no progress lines for slow steps on stderr\n"
"  --json        the run's output as JSON lines: output with its CPU and\n"
"                time; histograms, backtraces, arrays as data; messages;\n"
"                the exit (doc/json.md)\n"
"  -k            keep the build directory and print its path\n"
"  -g            guru mode: allow embedded C in the script\n"
"  -D NAME=VAL   set a runtime limit or macro (MAXACTION=..., ...)\n"
"  -I DIR        also look for tapsets in DIR\n"
"  -r REL|DIR    build for kernel release REL or against build tree DIR\n"
"  -m NAME       name the module NAME\n"
"  -s MB         per-CPU output buffer size in MiB\n"
"  -T SECONDS    stop the script after SECONDS (end probes run)\n"
"  -F            flight recorder: start the script detached, print its name;\n"
"                output to an in-kernel ring of -s MB, or with -o to FILE\n"
"  -S MB[,N]     with -o: FILE.0, FILE.1 ... of MB megabytes, keep the last N\n"
"  -A NAME       attach to the detached script NAME (ring first, then live);\n"
"                Ctrl-C detaches\n"
"  --stop NAME   stop the detached script NAME (end probes' output to you)\n"
"  --running     list the detached scripts\n"
"  --vm-stop --force  stop the guest even while detached scripts run in it\n"
"  -w / -W       no warnings / warnings are errors\n"
"  -u            unoptimized: keep the code that elision would drop\n"
"  -t            at exit, report each probe's hits and cycles per hit\n"
"  -G NAME=VAL   set the script's scalar global NAME when the module loads\n"
"  -b            bulk mode (accepted: ktap's output is per-CPU already)\n"
"  -d PATH       usymname() and ubacktrace() know program or library PATH\n"
"  --ldd         ... and the shared libraries the probed and -d files need\n"
"                (-d MODULE, --all-modules: accepted)\n"
"  -P            prologue searching (accepted: parameters are read at entry)\n"
"  --compatible=VERSION\n"
"                %%( systemtap_v %%) conditions see VERSION, not 4.8\n"
"  --skip-badvars\n"
"                an unresolvable $var reads as 0, with a warning\n"
"  --suppress-time-limits\n"
"                no MAXACTION or overload limit (needs -g)\n"
"  -l POINT      list the probe points POINT matches (kernel.function(\"vfs_*\"))\n"
"  -L POINT      ... with their variables and C types\n"
"  --trace-loader\n"
"                let ktap's own work (ktap-run, the guest agent) fire probes\n"
"  --disable-cache\n"
"                build the module anew; neither use nor fill the module cache\n"
"  --clean-cache empty the module cache (${KTAP_CACHE:-~/.cache/ktap}/modules;\n"
"                KTAP_CACHE_SIZE_MB caps its size, default 256)\n"
"  --vm          run in the ktap guest (a QEMU copy of a Debian kernel)\n"
"  --vm-setup, --vm-start, --vm-stop, --vm-status\n"
"                provision, boot, stop or describe the ktap guest\n"
"  --vm-exec CMD run a shell command in the ktap guest (to look around)\n"
"  --kernel ABI  the guest's kernel: any Debian 12 kernel, e.g. 6.12.117+deb12-amd64\n"
"                or 6.1.0-57-rt-amd64 (implies --vm); --kernel list shows them\n"
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
 * when running from the build tree, else PREFIX/share/ktap for a binary in
 * PREFIX/bin (so an installed tree works wherever it is copied, DESTDIR
 * included), else the data directory it was built for. */
static const char *find_data_dir(void)
{
	static char exe[4096], probe[4200];
	const char *env = getenv("KTAP_DATA_DIR");
	ssize_t n;

	if (env)
		return env;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *dir;

		exe[n] = '\0';
		dir = dirname(exe);
		snprintf(probe, sizeof(probe), "%s/runtime/runtime.h", dir);
		if (access(probe, R_OK) == 0)
			return dir;
		snprintf(probe, sizeof(probe), "%s/../share/ktap/runtime/runtime.h", dir);
		if (access(probe, R_OK) == 0) {
			probe[strlen(probe) - strlen("/runtime/runtime.h")] = '\0';
			return realpath(probe, NULL) ? : probe;
		}
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
	OPT_KERNEL,
	OPT_DISABLE_CACHE,
	OPT_CLEAN_CACHE,
	OPT_DUMP_FUNCTIONS,
	OPT_DUMP_PROBE_ALIASES,
	OPT_DUMP_DOC,
	OPT_CHECK_DOC,
	OPT_COMPATIBLE,
	OPT_SUPPRESS_TIME_LIMITS,
	OPT_ALL_MODULES,
	OPT_LDD,
	OPT_SKIP_BADVARS,
	OPT_PROLOGUE_SEARCHING,
	OPT_TRACE_LOADER,
	OPT_JSON,
	OPT_STOP,
	OPT_RUNNING,
	OPT_FORCE,
};

static const struct option long_options[] = {
	{ "vm", no_argument, NULL, OPT_VM },
	{ "vm-setup", no_argument, NULL, OPT_VM_SETUP },
	{ "vm-start", no_argument, NULL, OPT_VM_START },
	{ "vm-stop", no_argument, NULL, OPT_VM_STOP },
	{ "vm-status", no_argument, NULL, OPT_VM_STATUS },
	{ "vm-exec", required_argument, NULL, OPT_VM_EXEC },
	{ "kernel", required_argument, NULL, OPT_KERNEL },
	{ "disable-cache", no_argument, NULL, OPT_DISABLE_CACHE },
	{ "clean-cache", no_argument, NULL, OPT_CLEAN_CACHE },
	{ "dump-functions", no_argument, NULL, OPT_DUMP_FUNCTIONS },
	{ "dump-probe-aliases", no_argument, NULL, OPT_DUMP_PROBE_ALIASES },
	{ "dump-doc", no_argument, NULL, OPT_DUMP_DOC },
	{ "check-doc", no_argument, NULL, OPT_CHECK_DOC },
	{ "compatible", required_argument, NULL, OPT_COMPATIBLE },
	{ "suppress-time-limits", no_argument, NULL, OPT_SUPPRESS_TIME_LIMITS },
	{ "all-modules", no_argument, NULL, OPT_ALL_MODULES },
	{ "ldd", no_argument, NULL, OPT_LDD },
	{ "skip-badvars", no_argument, NULL, OPT_SKIP_BADVARS },
	{ "prologue-searching", optional_argument, NULL, OPT_PROLOGUE_SEARCHING },
	{ "trace-loader", no_argument, NULL, OPT_TRACE_LOADER },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "stop", required_argument, NULL, OPT_STOP },
	{ "running", no_argument, NULL, OPT_RUNNING },
	{ "force", no_argument, NULL, OPT_FORCE },
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

/* -m NAME becomes file names in the build directory and the kernel's
 * module name: only what both take as they are */
static const char *module_name_option(const char *what, const char *arg)
{
	if (!is_module_name(arg)) {
		fprintf(stderr, "ktap: %s wants a module name of 1 to %d letters, digits "
			"and '_', not '%s'\n", what, KTAP_MODULE_NAME_MAX, arg);
		exit(1);
	}
	return arg;
}

/* -S MB[,N]: megabytes per output file, files kept */
static const char *rotate_option(const char *arg)
{
	char *end;
	long mb, n = 1;

	errno = 0;
	mb = strtol(arg, &end, 10);
	if (!errno && end != arg && *end == ',' && end[1])
		n = strtol(end + 1, &end, 10);
	if (errno || end == arg || *end || mb < 1 || mb > 1000000 || n < 1 || n > 100000) {
		fprintf(stderr, "ktap: -S wants MB[,N]: megabytes per output file "
			"(1-1000000), then how many files to keep (1-100000), not '%s'\n", arg);
		exit(1);
	}
	return arg;
}

/* An option getopt does not know, in one line: what a SystemTap user
 * typed that ktap lacks is named, without the whole usage text. */
static void reject_option(int c, char **argv)
{
	const char *text = argv[optind - 1];

	if (c == ':') {
		fprintf(stderr, "ktap: option %s needs an argument\n", text);
		exit(1);
	}
	if (optopt)
		fprintf(stderr, "ktap: option -%c is not supported by ktap\n", optopt);
	else
		fprintf(stderr, "ktap: option %.*s is not supported by ktap\n",
			(int)strcspn(text, "="), text);
	exit(1);
}

/* --compatible=VERSION: a SystemTap version, N[.N[.N]] */
static const char *parse_version_option(const char *arg)
{
	const char *p = arg;

	while (*p >= '0' && *p <= '9') {
		while (*p >= '0' && *p <= '9')
			p++;
		if (*p == '\0')
			return arg;
		if (*p++ != '.')
			break;
	}
	fprintf(stderr, "ktap: --compatible wants a SystemTap version such as 4.0, not '%s'\n",
		arg);
	exit(1);
}

/* --prologue-searching[=never|always|auto]; -P is =always */
static const char *parse_when_option(const char *arg)
{
	if (!arg)
		return "always";
	if (strcmp(arg, "never") && strcmp(arg, "always") && strcmp(arg, "auto")) {
		fprintf(stderr, "ktap: --prologue-searching wants never, always or auto, not '%s'\n",
			arg);
		exit(1);
	}
	return arg;
}

/* -G NAME=VALUE: the form here; the global and its type in pass 2 */
static void parse_global_setting(const char *arg, struct options *opt)
{
	const char *p = arg;

	if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_')
		while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		       (*p >= '0' && *p <= '9') || *p == '_')
			p++;
	if (p == arg || *p != '=') {
		fprintf(stderr, "ktap: -G wants NAME=VALUE with NAME a global's name, not '%s'\n",
			arg);
		exit(1);
	}
	add_string(&opt->global_settings, &opt->nglobal_settings, arg);
}

static bool defines_name(const struct options *opt, const char *name)
{
	size_t n = strlen(name);
	int i;

	for (i = 0; i < opt->ndefines; i++)
		if (strncmp(opt->defines[i], name, n) == 0 &&
		    (opt->defines[i][n] == '\0' || opt->defines[i][n] == '='))
			return true;
	return false;
}

/* --suppress-time-limits: SystemTap drops MAXACTION and the overload
 * guard (guru mode only). The lock tries stay bounded, higher: a handler
 * spinning on a lock forever with preemption off would hang the CPU. */
static void suppress_time_limits(struct options *opt)
{
	static const char *const defs[][2] = {
		{ "MAXACTION", "MAXACTION=9223372036854775807L" },
		{ "MAXTRYLOCK", "MAXTRYLOCK=1000000" },
		{ "KTAP_NO_OVERLOAD", "KTAP_NO_OVERLOAD" },
	};
	size_t i;

	if (!opt->guru) {
		fprintf(stderr, "ktap: --suppress-time-limits needs guru mode: add -g\n");
		exit(1);
	}
	for (i = 0; i < sizeof(defs) / sizeof(defs[0]); i++)
		if (!defines_name(opt, defs[i][0]))
			add_string(&opt->defines, &opt->ndefines, defs[i][1]);
}

/* --kernel ABI: the guest's kernel (KTAP_VM_KERNEL, which vm.c and
 * guest/provision read); "list" is a command of its own */
static void kernel_option(const char *abi, struct options *opt, const char **vm_cmd)
{
	if (!strcmp(abi, "list")) {
		*vm_cmd = "list";
		return;
	}
	if (!*abi || strchr(abi, '/')) {
		fprintf(stderr, "ktap: --kernel wants a kernel ABI such as 6.12.117+deb12-amd64, "
			"not '%s' (ktap --kernel list shows them; -r takes a build tree)\n", abi);
		exit(1);
	}
	setenv("KTAP_VM_KERNEL", abi, 1);
	opt->vm = true;
}

/* returns the vm sub-command asked for, or NULL */
static const char *parse_options(int argc, char **argv, struct options *opt)
{
	const char *vm_cmd = NULL;
	int c;

	opt->last_pass = 5;
	/* options may follow the script file too (`ktap t.stp -c CMD`), as with
	 * stap; script arguments that start with '-' go after "--" */
	opterr = 0;	/* reject_option() says it in one line */
	while ((c = getopt_long(argc, argv, ":e:c:x:o:p:vqkgD:I:r:m:s:T:wWl:L:hVutbPG:d:FA:S:",
				long_options, NULL)) != -1) {
		switch (c) {
		case 'e': opt->script_text = optarg; break;
		case 'c': opt->command = optarg; break;
		case 'x': opt->target_pid = parse_number_option(c, optarg, 1, 1 << 30); break;
		case 'o': opt->output_file = optarg; break;
		case 'p': opt->last_pass = parse_number_option(c, optarg, 1, 5); break;
		case 'v': opt->verbose++; break;
		case 'q': progress_quiet = true; break;
		case 'k': opt->keep_build = true; break;
		case 'g': opt->guru = true; break;
		case 'D': add_string(&opt->defines, &opt->ndefines, optarg); break;
		case 'I': add_string(&opt->include_dirs, &opt->ninclude_dirs, optarg); break;
		case 'r': opt->release = optarg; break;
		case 'm': opt->module_name = module_name_option("-m", optarg); break;
		case 's': opt->buffer_mb = parse_number_option(c, optarg, 1, 4095); break;
		case 'T': opt->time_limit = parse_number_option(c, optarg, 1, 1 << 30); break;
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
		case OPT_KERNEL: kernel_option(optarg, opt, &vm_cmd); break;
		case OPT_DISABLE_CACHE: opt->no_cache = true; break;
		case OPT_CLEAN_CACHE: opt->clean_cache = true; break;
		case OPT_DUMP_FUNCTIONS: tapdoc_what = TAPDOC_FUNCTIONS; break;
		case OPT_DUMP_PROBE_ALIASES: tapdoc_what = TAPDOC_ALIASES; break;
		case OPT_DUMP_DOC: tapdoc_what = TAPDOC_MAN; break;
		case OPT_CHECK_DOC: tapdoc_what = TAPDOC_CHECK; break;
		case 'u': opt->unoptimized = true; break;
		case 't': opt->timing = true; break;
		case 'b': opt->bulk = true; break;
		case 'P': opt->prologue_searching = "always"; break;
		case 'G': parse_global_setting(optarg, opt); break;
		case 'd': add_string(&opt->symbol_modules, &opt->nsymbol_modules, optarg); break;
		case OPT_COMPATIBLE: opt->compatible = parse_version_option(optarg); break;
		case OPT_SUPPRESS_TIME_LIMITS: opt->suppress_time_limits = true; break;
		case OPT_ALL_MODULES: opt->all_modules = true; break;
		case OPT_LDD: opt->ldd = true; break;
		case OPT_SKIP_BADVARS: opt->skip_badvars = tvar_skip_badvars = true; break;
		case OPT_PROLOGUE_SEARCHING:
			opt->prologue_searching = parse_when_option(optarg);
			break;
		case OPT_TRACE_LOADER: opt->trace_loader = true; break;
		case OPT_JSON: opt->json = true; break;
		case 'F': opt->detach = true; break;
		case OPT_FORCE: opt->force = true; break;
		case 'S': opt->rotate = rotate_option(optarg); break;
		case 'A': case OPT_STOP:
			opt->detached_name = module_name_option(c == 'A' ? "-A" : "--stop", optarg);
			/* fall through */
		case OPT_RUNNING: opt->detached_cmd = c == 'A' ? 'A' : c == OPT_STOP ? 'X' : 'R'; break;
		case 'h': usage(stdout); exit(0);
		case 'V': printf("ktap %s\n", KTAP_VERSION); exit(0);
		default: reject_option(c, argv);
		}
	}
	if (opt->suppress_time_limits)
		suppress_time_limits(opt);
	if (!opt->script_text && !vm_cmd && tapdoc_what < 0 && !opt->detached_cmd &&
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
	if (opt->rotate && !opt->output_file) {
		fprintf(stderr, "ktap: -S needs -o FILE (the files are FILE.0, FILE.1 ...)\n");
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
	env.systemtap_v = opt->compatible;	/* NULL: the default, 4.8 */
	env.argv = opt->script_args;
	env.argc = opt->nscript_args;
	/* the target's release; CONFIG_* tests read its own configuration */
	env.kernel_vr = target_kernel()->release;
	env.kconfig_path = target_kernel()->config;
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
	if (!src) {
		fprintf(stderr, "ktap: cannot read the script %s: %s\n",
			opt->script_file, strerror(errno));
		exit(1);
	}
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
	if (!footprint_check(ko, opt))
		return 1;
	t0 = now_seconds();
	rc = opt->vm ? vm_run(ko, opt) : run_local(ko, opt);
	report_pass(opt, 5, t0);
	return rc;
}

/* passes 4 and 5: build (and keep in the cache), then -p4 or run it */
static int build_and_run(const struct unit *unit, const struct program *prog,
			 struct cache *cache, const struct options *opt)
{
	char *ko = NULL;
	double t0 = now_seconds();
	int rc;

	rc = build_module(unit, opt, &ko);
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
	struct unit *unit;
	char *ko;
	double t0;
	int rc;

	vm_cmd = parse_options(argc, argv, &opt);
	/* before the cache's lookup, which reads the file too */
	if (opt.script_file && access(opt.script_file, R_OK) < 0) {
		fprintf(stderr, "ktap: cannot read the script %s: %s\n",
			opt.script_file, strerror(errno));
		return 1;
	}
	opt.data_dir = find_data_dir();
	target_select(&opt);
	if (opt.clean_cache) {
		rc = cache_clean(&opt);
		if (rc || (!opt.script_file && !opt.script_text && !vm_cmd))
			return rc;
	}
	if (opt.detached_cmd)
		return opt.vm ? vm_detached_cmd(&opt) : run_detached_cmd(&opt);
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
		if (!target_build_dir(target_kernel()))
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
	unit = emit_program(prog, &opt);
	report_pass(&opt, 3, t0);
	if (!unit || diag_error_count())
		return 1;
	if (opt.last_pass == 3) {
		fputs(unit->c, stdout);
		return 0;
	}
	return build_and_run(unit, prog, cache, &opt);
}
