/* run.c - pass 5 on this machine: hand the module to ktap-run. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"

/* why this kernel cannot take a module, or NULL when it can */
static const char *cannot_load_modules(void)
{
	if (geteuid() != 0)
		return "loading a kernel module needs root";
	if (access("/proc/modules", F_OK) != 0)
		return "this kernel has no module support";
	if (access("/sys/kernel/debug", F_OK) != 0)
		return "debugfs is not available at /sys/kernel/debug";
	return NULL;
}

/* one line saying why a script cannot run on this machine, or NULL */
const char *local_run_refusal(void)
{
	const char *why = cannot_load_modules();

	if (!why)
		return NULL;
	return xasprintf("ktap: cannot run here: %s; use --vm to run in the ktap guest", why);
}

/* the arguments ktap-run takes, shared with the guest (vm.c) */
char **ktap_run_argv(const char *loader, const char *ko, const struct options *opt,
		     bool with_output_file)
{
	char **argv = xalloc((24 + 2 * opt->nglobal_settings) * sizeof(*argv));
	int i, n = 0;

	argv[n++] = (char *)loader;
	if (opt->verbose)
		argv[n++] = "-v";
	if (with_output_file && opt->output_file) {
		argv[n++] = "-o";
		argv[n++] = (char *)opt->output_file;
	}
	if (opt->command) {
		argv[n++] = "-c";
		argv[n++] = (char *)opt->command;
	}
	if (opt->target_pid) {
		argv[n++] = "-x";
		argv[n++] = xasprintf("%ld", opt->target_pid);
	}
	if (opt->buffer_mb) {
		argv[n++] = "-s";
		argv[n++] = xasprintf("%d", opt->buffer_mb);
	}
	if (opt->time_limit) {
		argv[n++] = "-T";
		argv[n++] = xasprintf("%ld", opt->time_limit);
	}
	for (i = 0; i < opt->nglobal_settings; i++) {
		argv[n++] = "-G";
		argv[n++] = opt->global_settings[i];
	}
	if (opt->trace_loader)
		argv[n++] = "-L";
	if (opt->json)
		argv[n++] = "-j";
	if (progress_quiet)
		argv[n++] = "-q";
	if (opt->detach) {
		argv[n++] = "-F";
		argv[n++] = "-n";
		argv[n++] = (char *)script_about(opt);
	}
	if (opt->rotate) {
		argv[n++] = "-S";
		argv[n++] = (char *)opt->rotate;
	}
	argv[n++] = (char *)ko;
	argv[n] = NULL;
	return argv;
}

static volatile pid_t loader_pid;

/* pass SIGINT/SIGTERM/SIGHUP on to ktap-run, which stops the script
 * cleanly; repeated signals only repeat the request */
static void forward_signal(int sig)
{
	if (loader_pid > 0)
		kill(loader_pid, sig);
}

static void forward_stop_signals(void)
{
	struct sigaction sa = { 0 };

	sa.sa_handler = forward_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* what -F runs, for --running: the script's file, or the one-liner on
 * one line (at most 160 bytes) */
const char *script_about(const struct options *opt)
{
	static char *about;
	char *p;

	if (about)
		return about;
	if (opt->script_file)
		return about = xstrdup(opt->script_file);
	about = xasprintf("-e '%.160s'", opt->script_text ? opt->script_text : "");
	for (p = about; *p; p++)
		if (*p == '\n' || *p == '\t')
			*p = ' ';
	return about;
}

/* -A NAME, --stop NAME, --running as ktap-run's options */
char *detached_cmd_line(const struct options *opt)
{
	if (opt->detached_cmd == 'R')
		return xstrdup("-R");
	return xasprintf("-%c %s", opt->detached_cmd, opt->detached_name);
}

static int wait_loader(pid_t pid);

/* ktap-run with argv, here; its exit status */
static int run_loader(const char *loader, char **argv)
{
	pid_t pid = fork();

	if (pid < 0) {
		fprintf(stderr, "ktap: fork: %s\n", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		execv(loader, argv);
		fprintf(stderr, "ktap: cannot run %s: %s\n", loader, strerror(errno));
		_exit(127);
	}
	return wait_loader(pid);
}

/* ktap -A NAME, --stop NAME, --running here: ktap-run does them */
int run_detached_cmd(const struct options *opt)
{
	char *loader = xasprintf("%s/loader/ktap-run", opt->data_dir);
	char flag[3] = { '-', opt->detached_cmd, 0 };
	char *argv[] = { loader, flag, (char *)opt->detached_name, NULL };

	return run_loader(loader, argv);
}

int run_local(const char *ko_path, const struct options *opt)
{
	const char *why = local_run_refusal();
	char *loader = xasprintf("%s/loader/ktap-run", opt->data_dir);
	char **argv;

	if (why) {
		fprintf(stderr, "%s\n", why);
		return 1;
	}
	argv = ktap_run_argv(loader, ko_path, opt, true);
	return run_loader(loader, argv);
}

/* signals go on to the loader (pid); its exit status */
static int wait_loader(pid_t pid)
{
	int status;

	loader_pid = pid;
	forward_stop_signals();
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
