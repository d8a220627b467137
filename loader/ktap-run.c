/* ktap-run - load a ktap module, stream its output, unload it.
 *
 * usage: ktap-run [-o FILE [-S MB[,N]] | -O FD] [-c CMD | -x PID] [-s MB] [-T SECONDS] [-F] [-j | -J] [-v] MODULE.ko
 *        ktap-run -A NAME | -X NAME | -R     (detached scripts: loader/detach.c)
 *        ktap-run -d FILE                    (a -J stream as JSON lines)
 *
 * The contract with the module is section 2 of doc/internals.md: after
 * finit_module() the module has /sys/kernel/debug/<name>/ with one relay
 * file per CPU (records: struct ktap_rec_hdr + payload, seq from one global
 * counter) and a control file (we write start/stop; it answers exit,
 * error, warn and done lines). ktap-run merges the per-CPU streams back
 * into seq order while the script runs, stops on exit, a signal or the end
 * of the -c command, and always unloads the module it loaded.
 *
 * Static binary, no dependencies: it runs in the ktap guest as well as on
 * a real host. Build: gcc -static -O2 -Wall -Wextra -pthread -o ktap-run ktap-run.c json.c progress.c
 * (-j, JSON lines: json.c; -J, the records for JSON made elsewhere: stream.h)
 * (the module's side of the contract is ../runtime/uapi.h, included here)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../runtime/uapi.h"
#include "json.h"
#include "progress.h"
#include "stream.h"

#define DEBUGFS		"/sys/kernel/debug"
#define DEBUGFS_MAGIC	0x64626720
#define POLL_MS		30		/* relay wakes readers only per sub-buffer */
#define PACE_MS		10		/* after a read, let records gather */
#define PACE_BYTES	(64u << 10)	/* ... unless a pass read this much */
#define GAP_WAIT	0.02		/* s a record waits for a missing lower seq */
#define DONE_TIMEOUT	120.0		/* s to wait for "done" after "stop": unhooking
					 * 37,000 functions takes 10-40 s in a TCG guest */
#define MAX_REC		((16u << 20) - 1)	/* larger lengths mean a corrupt stream
						 * (and do not fit -J's 24 bits) */
#define OUT_FLUSH	(1u << 20)

/* ---- messages ---- */

static int verbose;

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	char line[4096];

	vsnprintf(line, sizeof(line), fmt, ap);
	fprintf(stderr, "%s%s\n", prefix, line);
}

static void __attribute__((format(printf, 1, 2))) err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("ktap-run: ", fmt, ap);
	va_end(ap);
}

static void __attribute__((format(printf, 1, 2))) info(const char *fmt, ...)
{
	va_list ap;

	if (!verbose)
		return;
	va_start(ap, fmt);
	vmsg("ktap-run: ", fmt, ap);
	va_end(ap);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The clock of the main loop: a tick's resolution, read from the vDSO
 * without a system call. In the TCG guest the clocksource is the HPET, so
 * every CLOCK_MONOTONIC reading is a system call and an emulated device
 * read, several times per pass while a flood streams in.
 */
static double now_coarse(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n);

	if (!p) {
		err("out of memory");
		exit(1);
	}
	return p;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		err("out of memory");
		exit(1);
	}
	return p;
}

/* ---- options ---- */

struct options {
	const char *out_file;	/* -o */
	const char *command;	/* -c */
	long target;		/* -x, or the -c command's pid */
	long buf_mb;		/* -s, 0 = the module's default */
	long seconds;		/* -T, 0 = no time limit */
	char globals[4096];	/* -G NAME=VALUE...: the parameters that set them */
	bool trace_loader;	/* -L: our own work fires probes too */
	bool json;		/* -j: JSON lines (json.c) */
	bool stream;		/* -J: the records for JSON lines (stream.h) */
	int out_fd;		/* -O FD: the output's file descriptor, or -1 */
	const char *decode;	/* -d FILE: print a -J stream as JSON lines */
	bool quiet;		/* -q: no progress line (progress.c) */
	const char *module;	/* MODULE.ko */
	char name[64];		/* module name: basename, no .ko, '-' -> '_' */
	/* detach.c */
	bool detach;		/* -F: run detached */
	const char *about;	/* -n TEXT: the script, for -R */
	long rotate_mb, rotate_keep;	/* -S MB[,N] */
	char client;		/* 'A' attach, 'X' stop, 'R' list, 0: none */
	const char *client_name;	/* -A/-X NAME */
};

/* detach.c */
static void parse_rotation(struct options *o, const char *arg);

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ktap-run [-o FILE | -O FD] [-c CMD | -x PID] [-s MB] [-T SECONDS] [-G NAME=VALUE] [-L] [-j | -J] [-q] [-v] MODULE.ko\n"
		"  -o FILE  write the script's output to FILE\n"
		"  -O FD    write it to the open file descriptor FD\n"
		"  -c CMD   run CMD (/bin/sh -c) once the probes are armed; target() is\n"
		"           its pid; stop when it exits\n"
		"  -x PID   target() is PID\n"
		"  -s MB    relay buffer per CPU, in MiB\n"
		"  -T SECS  stop the script SECS seconds after it started\n"
		"  -G NAME=VALUE\n"
		"           set the script's global NAME as the module loads\n"
		"  -L       trace the loader too: ktap-run's own work (and its\n"
		"           ktap or guest agent parent's) fires the script's probes\n"
		"  -j       print JSON lines: records, messages, the exit (doc/json.md)\n"
		"  -J       write what -j prints as records, for JSON lines made by\n"
		"           another program (ktap --vm --json on the host; stream.h)\n"
		"  -d FILE  print the JSON lines of FILE, a -J stream (- : stdin)\n"
		"  -q       no progress line when arming the probes is slow\n"
		"  -F       flight recorder: start the script detached, print its name;\n"
		"           output to the buffer, a ring (-s MB), or with -o to FILE\n"
		"  -S MB[,N] with -o: FILE.0, FILE.1 ... of MB megabytes each,\n"
		"           keep the last N\n"
		"  -n TEXT  what the script is, for -R\n"
		"  -A NAME  attach to the detached script NAME (its buffer, then live)\n"
		"  -X NAME  stop the detached script NAME\n"
		"  -R       list the detached scripts\n"
		"  -v       say what happens\n");
}

static long parse_long(const char *s, const char *what, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		err("bad %s '%s' (%ld..%ld)", what, s, min, max);
		exit(1);
	}
	return v;
}

static bool module_name(const char *path, char *name, size_t size)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	if (n > 3 && !strcmp(base + n - 3, ".ko"))
		n -= 3;
	if (n == 0 || n >= size)
		return false;
	for (size_t i = 0; i < n; i++)
		name[i] = base[i] == '-' ? '_' : base[i];
	name[n] = '\0';
	return true;
}

/* -G NAME=VALUE: the module parameter KTAP_PARAM_GLOBAL_PREFIX NAME,
 * quoted for the kernel's parser (a value may hold spaces, not '"') */
static void add_global(struct options *o, const char *set)
{
	size_t n = strlen(o->globals), eq = strcspn(set, "=");
	int len;

	if (!set[eq] || eq == 0 || strchr(set, '"')) {
		err("-G wants NAME=VALUE without '\"', not '%s'", set);
		exit(1);
	}
	len = snprintf(o->globals + n, sizeof(o->globals) - n, "%s%.*s=\"%s\" ",
		       KTAP_PARAM_GLOBAL_PREFIX, (int)eq, set, set + eq + 1);
	if (len < 0 || (size_t)len >= sizeof(o->globals) - n) {
		err("the -G settings are too long");
		exit(1);
	}
}

static void parse_options(int argc, char **argv, struct options *o)
{
	int c;

	while ((c = getopt(argc, argv, "+o:O:c:x:s:T:G:LjJd:qvhFS:n:A:X:R")) != -1) {
		switch (c) {
		case 'o': o->out_file = optarg; break;
		case 'O': o->out_fd = parse_long(optarg, "file descriptor", 1, INT_MAX); break;
		case 'c': o->command = optarg; break;
		case 'x': o->target = parse_long(optarg, "pid", 1, INT_MAX); break;
		case 's': o->buf_mb = parse_long(optarg, "buffer size", 1, 4095); break;
		case 'T': o->seconds = parse_long(optarg, "time limit", 1, INT_MAX); break;
		case 'G': add_global(o, optarg); break;
		case 'L': o->trace_loader = true; break;
		case 'j': o->json = true; break;
		case 'J': o->stream = true; break;
		case 'd': o->decode = optarg; break;
		case 'q': o->quiet = true; break;
		case 'v': verbose++; break;
		case 'F': o->detach = true; break;
		case 'S': parse_rotation(o, optarg); break;
		case 'n': o->about = optarg; break;
		case 'A': case 'X': o->client_name = optarg; /* fall through */
		case 'R': o->client = c; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); exit(1);
		}
	}
	if ((o->client || o->decode) && optind == argc)
		return;
	if (optind != argc - 1) {
		usage(stderr);
		exit(1);
	}
	if (o->command && o->target) {
		err("-c and -x exclude each other");
		exit(1);
	}
	if (o->out_file && o->out_fd >= 0) {
		err("-o and -O exclude each other");
		exit(1);
	}
	/* a stream is read whole by one reader: not split, not a ring */
	if (o->stream && (o->json || o->detach || o->rotate_mb)) {
		err("-J excludes -j, -F and -S");
		exit(1);
	}
	o->module = argv[optind];
	if (!module_name(o->module, o->name, sizeof(o->name))) {
		err("bad module file name '%s'", o->module);
		exit(1);
	}
}

/* ---- the -c command ----
 * Forked before the module loads, so that its pid can be passed as
 * ktap_target; it waits on a pipe and execs only once "start" returned.
 * It runs in its own process group, so that when the script ends first,
 * the whole command (a pipeline, its children) can be ended.
 */

struct command {
	pid_t pid;
	int go_fd;		/* write end: a byte means exec, EOF means quit */
	bool exited;
	int status;
};

/* out >= 0 (-F): the command's stdout and stderr, its stdin /dev/null */
static void command_fork(struct command *cmd, const char *line,
			 const sigset_t *blocked, int out)
{
	int p[2];
	char go;

	if (pipe2(p, O_CLOEXEC) < 0) {
		err("pipe: %s", strerror(errno));
		exit(1);
	}
	cmd->pid = fork();
	if (cmd->pid < 0) {
		err("fork: %s", strerror(errno));
		exit(1);
	}
	if (cmd->pid == 0) {
		setpgid(0, 0);
		close(p[1]);
		if (read(p[0], &go, 1) != 1)
			_exit(127);
		signal(SIGPIPE, SIG_DFL);
		sigprocmask(SIG_UNBLOCK, blocked, NULL);
		if (out >= 0) {
			int null = open("/dev/null", O_RDONLY);

			dup2(null, 0);
			dup2(out, 1);
			dup2(out, 2);
		}
		execl("/bin/sh", "sh", "-c", line, (char *)NULL);
		fprintf(stderr, "ktap-run: /bin/sh: %s\n", strerror(errno));
		_exit(127);
	}
	setpgid(cmd->pid, cmd->pid);
	close(p[0]);
	if (out >= 0)
		close(out);
	cmd->go_fd = p[1];
}

static void command_release(struct command *cmd, bool go)
{
	if (cmd->go_fd < 0)
		return;
	if (go && write(cmd->go_fd, "g", 1) != 1)
		err("cannot start the command: %s", strerror(errno));
	close(cmd->go_fd);
	cmd->go_fd = -1;
}

/* reap: true if the command has exited (now or before) */
static bool command_reap(struct command *cmd)
{
	if (cmd->pid <= 0 || cmd->exited)
		return cmd->exited;
	if (waitpid(cmd->pid, &cmd->status, WNOHANG) == cmd->pid) {
		cmd->exited = true;
		if (WIFEXITED(cmd->status))
			info("command exited with status %d", WEXITSTATUS(cmd->status));
		else if (WIFSIGNALED(cmd->status))
			info("command killed by signal %d", WTERMSIG(cmd->status));
	}
	return cmd->exited;
}

/* the script ended: what is left of the command goes too (SIGTERM, then
 * SIGKILL), also its children when the shell itself has exited */
static void command_end(struct command *cmd)
{
	if (cmd->pid <= 0)
		return;
	command_release(cmd, false);
	if (kill(-cmd->pid, 0) < 0 && command_reap(cmd))
		return;
	info("stopping the command (process group %d)", (int)cmd->pid);
	kill(-cmd->pid, SIGTERM);
	for (int i = 0; i < 50 && !command_reap(cmd); i++)
		usleep(20000);
	if (!command_reap(cmd) || kill(-cmd->pid, 0) == 0) {
		kill(-cmd->pid, SIGKILL);
		if (!cmd->exited)
			waitpid(cmd->pid, &cmd->status, 0);
		cmd->exited = true;
	}
}

/* the shell's 127 and 126: the command was not found, or could not be
 * executed; a run whose workload never ran is a failed run */
static bool command_not_run(const struct command *cmd)
{
	return cmd->pid > 0 && cmd->exited && WIFEXITED(cmd->status) &&
	       (WEXITSTATUS(cmd->status) == 127 || WEXITSTATUS(cmd->status) == 126);
}

/* ---- loading and unloading ---- */

static int load_module(const char *path, const char *params)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int e;

	if (fd < 0)
		return -2;
	if (syscall(SYS_finit_module, fd, params, 0) == 0) {
		close(fd);
		return 0;
	}
	e = errno;
	if (e == ENOSYS) {	/* kernels before 3.8 */
		struct stat st;
		void *image;

		if (fstat(fd, &st) == 0 && (image = malloc(st.st_size + 1))) {
			if (pread(fd, image, st.st_size, 0) == st.st_size &&
			    syscall(SYS_init_module, image, st.st_size, params) == 0) {
				free(image);
				close(fd);
				return 0;
			}
			e = errno;
			free(image);
		}
	}
	close(fd);
	errno = e;
	return -1;
}

static const char *load_hint(int e)
{
	switch (e) {
	case EEXIST: return " (a module of that name is already loaded)";
	case ENOEXEC: return " (not built for this kernel? compare with uname -r)";
	case EPERM: return " (loading modules needs root, and no lockdown)";
	case ENOENT: return " (an unknown symbol?)";
	case EINVAL: return " (a bad parameter or a version mismatch?)";
	case ENOSYS: return " (this kernel cannot load modules)";
	default: return "";
	}
}

static bool module_loaded(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/%s", name);
	return access(path, F_OK) == 0;
}

static int unload_module(const char *name)
{
	/* a reader's module reference may linger for a moment */
	for (int i = 0; i < 50; i++) {
		if (syscall(SYS_delete_module, name, O_NONBLOCK) == 0)
			return 0;
		if (errno != EAGAIN && errno != EBUSY)
			break;
		usleep(100000);
	}
	err("cannot unload %s: %s; unload it with: rmmod %s", name,
	    strerror(errno), name);
	return -1;
}

/*
 * A module of our name left by a loader that was killed: its ktap_loader
 * parameter names that loader's tgid (uapi.h), and no such process runs.
 * Its probes were disarmed when the dead loader's ctl closed; unload it,
 * so that the script runs again instead of "already loaded".
 */
static bool remove_stale_module(const char *name)
{
	char path[160], buf[64] = "";
	FILE *f;
	long tgid;

	snprintf(path, sizeof(path), "/sys/module/%s/parameters/" KTAP_PARAM_LOADER, name);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	tgid = strtol(buf, NULL, 10);
	if (tgid <= 0 || kill(tgid, 0) == 0 || errno != ESRCH)
		return false;
	if (syscall(SYS_delete_module, name, O_NONBLOCK) < 0)
		return false;
	err("removed the module %s, left loaded by a ktap-run (pid %ld) that was killed",
	    name, tgid);
	return true;
}

/* ---- the module's debugfs files ---- */

/* a relay file and the bytes read from it that do not make a record yet */
struct cpufile {
	int fd;			/* -1: no such cpu (yet) */
	char *buf;
	size_t len, cap;
	bool warned;
};

struct channels {
	char dir[128];
	int ctl;
	struct cpufile *cpu;	/* indexed by cpu number */
	int ncpu;
	int nopen;		/* relay files open */
	char ctlbuf[4096];	/* a partial control line */
	size_t ctllen;
};

static void debugfs_mount(void)
{
	struct statfs sf;

	if (statfs(DEBUGFS, &sf) == 0 && sf.f_type == DEBUGFS_MAGIC)
		return;
	if (mount("debugfs", DEBUGFS, "debugfs", 0, NULL) == 0)
		info("mounted debugfs on %s", DEBUGFS);
}

/* CPUs we may run on: grows when one comes online (a syscall, no open) */
static int online_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 0;
	return CPU_COUNT(&set);
}

/* open the cpuN files not open yet (a CPU may come online later) */
static int scan_cpus(struct channels *ch)
{
	char path[512];
	struct dirent *de;
	DIR *d = opendir(ch->dir);
	unsigned n;
	int rc = 0;

	if (!d) {
		err("cannot list %s: %s", ch->dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		char extra;
		int fd;

		if (sscanf(de->d_name, KTAP_RELAY_FILE "%u%c", &n, &extra) != 1 || n > 65535)
			continue;
		if ((int)n < ch->ncpu && ch->cpu[n].fd >= 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", ch->dir, de->d_name);
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0) {
			err("cannot open %s: %s", path, strerror(errno));
			rc = -1;
			break;
		}
		if ((int)n >= ch->ncpu) {
			ch->cpu = xrealloc(ch->cpu, (n + 1) * sizeof(*ch->cpu));
			while (ch->ncpu <= (int)n)
				ch->cpu[ch->ncpu++] = (struct cpufile){ .fd = -1 };
		}
		ch->cpu[n].fd = fd;
		ch->nopen++;
	}
	closedir(d);
	return rc;
}

static int open_channels(struct channels *ch, const char *name)
{
	char path[512];

	snprintf(ch->dir, sizeof(ch->dir), DEBUGFS "/%s", name);
	if (access(ch->dir, F_OK) != 0)
		debugfs_mount();
	snprintf(path, sizeof(path), "%s/" KTAP_CTL_FILE, ch->dir);
	ch->ctl = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (ch->ctl < 0) {
		err("cannot open %s: %s (is debugfs mounted, is this a ktap module?)",
		    path, strerror(errno));
		return -1;
	}
	if (scan_cpus(ch) < 0)
		return -1;
	if (ch->ncpu == 0) {
		err("no relay files (cpuN) in %s", ch->dir);
		return -1;
	}
	info("%s: ctl and %d relay files", ch->dir, ch->ncpu);
	return 0;
}

static void close_channels(struct channels *ch)
{
	if (ch->ctl >= 0)
		close(ch->ctl);
	ch->ctl = -1;
	for (int i = 0; i < ch->ncpu; i++) {
		if (ch->cpu[i].fd >= 0)
			close(ch->cpu[i].fd);
		free(ch->cpu[i].buf);
	}
	free(ch->cpu);
	ch->cpu = NULL;
	ch->ncpu = 0;
	ch->nopen = 0;
}

static int ctl_write(struct channels *ch, const char *cmd)
{
	ssize_t n = write(ch->ctl, cmd, strlen(cmd));

	if (n == (ssize_t)strlen(cmd))
		return 0;
	if (n >= 0)
		errno = EIO;
	return -1;
}

/* ---- output: records merged on seq ----
 * Each CPU's records arrive in seq order, but a record may be read before
 * a lower seq that another CPU is still writing, or that was dropped. The
 * heap releases a record when its seq is the next one expected, or once
 * it has waited one more full read pass and GAP_WAIT seconds.
 */

struct rec {
	uint64_t seq;
	uint64_t tsc;
	uint32_t magic;
	int cpu;
	unsigned long pass;	/* read pass that found it */
	double when;
	uint32_t len;
	char data[];
};

struct merger {
	struct rec **heap;
	size_t n, cap;
	uint64_t next_seq;	/* 1: the first seq may be 0 or 1 */
	unsigned long pass;
	unsigned long long records, bytes, gaps;
};

static void heap_push(struct merger *m, struct rec *r)
{
	size_t i;

	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 256;
		m->heap = xrealloc(m->heap, m->cap * sizeof(*m->heap));
	}
	for (i = m->n++; i > 0; i = (i - 1) / 2) {
		struct rec *parent = m->heap[(i - 1) / 2];

		if (parent->seq <= r->seq)
			break;
		m->heap[i] = parent;
	}
	m->heap[i] = r;
}

static struct rec *heap_pop(struct merger *m)
{
	struct rec *top = m->heap[0], *last = m->heap[--m->n];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= m->n)
			break;
		if (c + 1 < m->n && m->heap[c + 1]->seq < m->heap[c]->seq)
			c++;
		if (last->seq <= m->heap[c]->seq)
			break;
		m->heap[i] = m->heap[c];
		i = c;
	}
	if (m->n)
		m->heap[i] = last;
	return top;
}

struct output {
	int fd;
	const char *name;
	char *buf;
	size_t len, cap;
	bool broken;		/* reader gone or write error: discard */
	bool json;		/* -j: each record a JSON line */
	bool stream;		/* -J: each record and message an item (stream.h) */
	int stream_cpu;		/* ... the reader's CPU (-1: none yet) */
	uint64_t stream_seq;	/* ... the seq it expects next */
	uint64_t stream_tsc;	/* ... the last record's tsc */
	struct json_buf jb;	/* the line being made */
	struct json_clock clock;	/* records' tsc to time */
	/* detach.c */
	int tee;		/* a client's stdout: gets the output too, -1 */
	bool tee_broken;	/* ... which went away */
	long long written;	/* bytes in the current file */
	long long total;	/* bytes written in all */
	long long limit;	/* -S: bytes per file, 0: one file */
	long keep, index;	/* -S: files kept; the current one's number */
	unsigned long long lost;	/* bytes lost to a full disk */
	bool full;		/* ... now */
};

/* detach.c */
static void out_tee(struct output *o);
static void out_rotate(struct output *o, size_t len);
static int rotate_open(struct output *o, const char *file);
static bool out_full(struct output *o, size_t len);
static void out_room_again(struct output *o);

static void out_flush(struct output *o)
{
	size_t off = 0;

	out_tee(o);
	while (o->fd >= 0 && off < o->len && !o->broken) {
		ssize_t n = write(o->fd, o->buf + off, o->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && out_full(o, o->len - off))
			break;
		if (n <= 0) {
			if (errno != EPIPE)
				err("cannot write %s: %s", o->name, strerror(errno));
			o->broken = true;
			break;
		}
		off += n;
		o->written += n;
		o->total += n;
		out_room_again(o);
	}
	o->len = 0;
}

static void out_put(struct output *o, const char *data, size_t len)
{
	if (o->broken)
		return;
	if (o->limit)
		out_rotate(o, len);
	if (o->len + len > o->cap) {
		o->cap = o->len + len > 2 * o->cap ? o->len + len : 2 * o->cap;
		o->buf = xrealloc(o->buf, o->cap);
	}
	memcpy(o->buf + o->len, data, len);
	o->len += len;
	if (o->len >= OUT_FLUSH)
		out_flush(o);
}

/* -j: a JSON line made in o->jb goes out */
static void out_json(struct output *o)
{
	out_put(o, o->jb.p, o->jb.len);
	o->jb.len = 0;
}

/* -J: an item of the stream (stream.h) whose payload is len bytes at data
 * and, when data2 is not NULL, len2 more at data2 */
static void out_item2(struct output *o, int kind, int32_t dtsc, const void *data,
		      uint32_t len, const void *data2, uint32_t len2)
{
	struct ktap_stream_hdr h = { .kind_len = KTAP_STREAM_WORD(kind, len + len2),
				     .dtsc = dtsc };

	out_put(o, (const char *)&h, sizeof(h));
	if (len)
		out_put(o, data, len);
	if (len2)
		out_put(o, data2, len2);
}

static void out_item(struct output *o, int kind, const void *data, uint32_t len)
{
	out_item2(o, kind, 0, data, len, NULL, 0);
}

/* -J: the items that make the reader's CPU, next seq and last tsc this
 * record's, when they are not yet (rare: a CPU change, a gap, a pause) */
static int32_t out_stream_state(struct output *o, int cpu, uint64_t seq, uint64_t tsc)
{
	int64_t d = (int64_t)(tsc - o->stream_tsc);

	if (cpu != o->stream_cpu) {
		uint32_t c = cpu;

		out_item(o, KTAP_STREAM_CPU, &c, sizeof(c));
		o->stream_cpu = cpu;
	}
	if (seq != o->stream_seq)
		out_item(o, KTAP_STREAM_SEQ, &seq, sizeof(seq));
	o->stream_seq = seq + 1;
	if (d != (int32_t)d) {
		out_item(o, KTAP_STREAM_TSC, &tsc, sizeof(tsc));
		d = 0;
	}
	o->stream_tsc = tsc;
	return (int32_t)d;
}

/*
 * -J: a record's payload behind an 8-byte header, built in place at the
 * end of the output buffer: as cheap as text's out_put(), since the JSON
 * is made on the host (stream.h says why).
 */
static void out_stream_record(struct output *o, uint32_t magic, int cpu, uint64_t seq,
			      uint64_t tsc, const char *data, uint32_t len)
{
	int kind = magic == KTAP_REC_MAGIC ? KTAP_STREAM_TEXT : KTAP_STREAM_DATA;
	struct ktap_stream_hdr h;
	size_t n = sizeof(h) + len;

	h.dtsc = out_stream_state(o, cpu, seq, tsc);
	h.kind_len = KTAP_STREAM_WORD(kind, len);
	if (o->broken)
		return;
	if (o->len + n > o->cap) {
		o->cap = o->len + n > 2 * o->cap ? o->len + n : 2 * o->cap;
		o->buf = xrealloc(o->buf, o->cap);
	}
	memcpy(o->buf + o->len, &h, sizeof(h));
	memcpy(o->buf + o->len + sizeof(h), data, len);
	o->len += n;
	if (o->len >= OUT_FLUSH)
		out_flush(o);
}

/* one record's payload: as it is, or as a JSON line, made in place at
 * the end of the output buffer (the flood's path: no second copy) */
static void out_record(struct output *o, uint32_t magic, int cpu, uint64_t seq,
		       uint64_t tsc, const char *data, uint32_t len)
{
	struct json_origin at = { .cpu = cpu, .seq = seq };
	struct json_buf b;

	if (o->stream) {
		out_stream_record(o, magic, cpu, seq, tsc, data, len);
		return;
	}
	if (!o->json) {
		if (magic == KTAP_REC_MAGIC)
			out_put(o, data, len);
		return;
	}
	if (o->broken)
		return;
	at.time_ns = json_clock_ns(&o->clock, tsc);
	b = (struct json_buf){ o->buf, o->len, o->cap };
	if (magic == KTAP_REC_MAGIC)
		json_text(&b, &at, data, len);
	else if (!json_data(&b, &at, data, len))
		json_message(&b, "warning", "a malformed data record was left out");
	o->buf = b.p;
	o->len = b.len;
	o->cap = b.cap;
	if (o->len >= OUT_FLUSH)
		out_flush(o);
}

/* move records that are ready (all of them when final) to the output */
static void merger_emit(struct merger *m, struct output *o, bool final)
{
	double t = now_coarse();

	while (m->n) {
		struct rec *top = m->heap[0];

		if (!final && top->seq > m->next_seq &&
		    !(top->pass < m->pass && t - top->when >= GAP_WAIT))
			break;
		heap_pop(m);
		if (top->seq > m->next_seq)
			m->gaps += top->seq - m->next_seq;
		if (top->seq >= m->next_seq)
			m->next_seq = top->seq + 1;
		out_record(o, top->magic, top->cpu, top->seq, top->tsc,
			   top->data, top->len);
		free(top);
	}
}

/* ---- reading the relay files ---- */

/*
 * Cut complete records out of b; keep a partial one. A record that is the
 * next in seq while none waits goes straight to the output (the usual
 * case: no copy, no allocation); the others wait in the merger. One clock
 * reading serves the whole batch: in a guest without a fast clock every
 * reading is a system call, and the flood reads thousands of records a
 * pass.
 */
static void parse_records(struct merger *m, struct output *o,
			  struct cpufile *b, int cpu)
{
	double t = now_coarse();
	size_t off = 0;
	struct ktap_rec_hdr h;

	while (b->len - off >= sizeof(h)) {
		memcpy(&h, b->buf + off, sizeof(h));
		if ((h.magic != KTAP_REC_MAGIC && h.magic != KTAP_REC_MAGIC_DATA) ||
		    h.len > MAX_REC) {
			if (!b->warned)
				err("corrupt record on cpu%d, resynchronizing", cpu);
			b->warned = true;
			off++;
			continue;
		}
		if (b->len - off < sizeof(h) + h.len)
			break;
		m->records++;
		m->bytes += h.len;
		if (!m->n && h.seq == m->next_seq) {
			out_record(o, h.magic, cpu, h.seq, h.tsc,
				   b->buf + off + sizeof(h), h.len);
			m->next_seq++;
			off += sizeof(h) + h.len;
			continue;
		}
		struct rec *r = xmalloc(sizeof(*r) + h.len);
		r->seq = h.seq;
		r->tsc = h.tsc;
		r->magic = h.magic;
		r->cpu = cpu;
		r->pass = m->pass;
		r->when = t;
		r->len = h.len;
		memcpy(r->data, b->buf + off + sizeof(h), h.len);
		heap_push(m, r);
		off += sizeof(h) + h.len;
	}
	memmove(b->buf, b->buf + off, b->len - off);
	b->len -= off;
}

/* one pass over every relay file; returns the bytes read */
/* at most this much per CPU file per pass: a writer that never pauses
 * must not keep us reading (and buffering) without ever writing out */
#define READ_PASS_LIMIT (4u << 20)

static size_t read_relay(struct channels *ch, struct merger *m,
			 struct output *o)
{
	size_t total = 0;

	m->pass++;
	for (int i = 0; i < ch->ncpu; i++) {
		struct cpufile *b = &ch->cpu[i];
		size_t this_file = 0;

		if (b->fd < 0)
			continue;
		while (this_file < READ_PASS_LIMIT) {
			ssize_t n;

			/* room for the largest record the runtime writes */
			if (b->cap - b->len < 65536) {
				b->cap = b->cap ? 2 * b->cap : 262144;
				b->buf = xrealloc(b->buf, b->cap);
			}
			n = read(b->fd, b->buf + b->len, b->cap - b->len);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno != EAGAIN && !b->warned) {
				err("cannot read cpu%d: %s", i, strerror(errno));
				b->warned = true;
			}
			if (n <= 0)
				break;
			b->len += n;
			total += n;
			this_file += n;
			parse_records(m, o, b, i);
		}
	}
	return total;
}

/* ---- the control channel ---- */

enum state { RUNNING, STOPPING, DONE };

struct run {
	struct options *opt;
	struct channels ch;
	struct merger m;
	struct output out;
	struct command cmd;
	enum state state;
	double stop_time;
	double deadline;	/* -T: when to stop, 0 = never */
	int nsignals;
	int status;		/* exit status */
	sigset_t stops;		/* SIGINT, SIGTERM, SIGHUP */
	int errors;		/* error lines from the module */
	const char *why;	/* what stopped the script, NULL: not yet */
	unsigned long long dropped, skipped;
	void (*loop)(struct run *r, int sfd);	/* run_loop, or detach.c's */
};

static void request_stop(struct run *r, const char *why)
{
	if (r->state != RUNNING)
		return;
	info("stopping: %s", why);
	r->why = why;
	/* empty the buffers first, so the end probes' output has room
	 * (a few passes: probes still running may keep adding) */
	for (int pass = 0; pass < 8 && read_relay(&r->ch, &r->m, &r->out) > 0; pass++)
		;
	r->stop_time = now_coarse();
	if (ctl_write(&r->ch, KTAP_CMD_STOP) < 0) {
		err("cannot stop the script: %s", strerror(errno));
		r->status = 1;
		r->state = DONE;
		return;
	}
	r->state = STOPPING;
}

/* what follows word at the start of line, or NULL */
static const char *ctl_word(const char *line, const char *word)
{
	size_t n = strlen(word);

	return strncmp(line, word, n) ? NULL : line + n;
}

/* system(): run a command line the module sent (a backslash and 'n' is a
 * newline, two backslashes one) in the background, with ktap-run's
 * output but none of its other files (an open ctl would keep the module
 * loaded); a second fork, so that nothing is left to reap */
static void run_system(char *cmd)
{
	char *in = cmd, *out = cmd;
	pid_t pid;

	for (; *in; in++) {
		if (*in == '\\' && (in[1] == 'n' || in[1] == '\\'))
			*out++ = *++in == 'n' ? '\n' : '\\';
		else
			*out++ = *in;
	}
	*out = '\0';
	pid = fork();
	if (pid < 0) {
		err("system: fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		if (fork() == 0) {
			if (syscall(SYS_close_range, 3, ~0U, 0) < 0)
				for (int fd = 3; fd < 1024; fd++)
					close(fd);
			execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
			fprintf(stderr, "ktap-run: system: /bin/sh: %s\n", strerror(errno));
			_exit(127);
		}
		_exit(0);
	}
	waitpid(pid, NULL, 0);
}

/* an error or warning of the script: on stderr, or a JSON line (-j),
 * or an item (-J) */
static void report_message(struct run *r, const char *type, const char *label,
			   const char *text)
{
	if (r->out.stream) {
		out_item(&r->out, *type == 'e' ? KTAP_STREAM_ERROR : KTAP_STREAM_WARNING,
			 text, strlen(text));
		return;
	}
	if (!r->out.json) {
		fprintf(stderr, "%s: %s\n", label, text);
		return;
	}
	json_message(&r->out.jb, type, text);
	out_json(&r->out);
}

static void ctl_message(struct run *r, char *line)
{
	const char *text;

	if (!strcmp(line, KTAP_MSG_EXIT)) {
		/* the module also asks to stop past MAXERRORS errors */
		request_stop(r, r->errors ? "a runtime error" : "the script called exit()");
	} else if ((text = ctl_word(line, KTAP_MSG_ERROR " "))) {
		report_message(r, "error", "ERROR", text);
		r->status = 1;
		r->errors++;
	} else if ((text = ctl_word(line, KTAP_MSG_WARN " "))) {
		report_message(r, "warning", "WARNING", text);
	} else if ((text = ctl_word(line, KTAP_MSG_SYSTEM " "))) {
		fflush(stdout);
		run_system((char *)text);
	} else if ((text = ctl_word(line, KTAP_MSG_DONE))) {
		if (sscanf(text, "%llu %llu", &r->dropped, &r->skipped) != 2)
			err("bad control message '%s'", line);
		r->state = DONE;
	} else if (*line) {
		err("unknown control message '%s'", line);
	}
}

/* read what the control file has; false if it had nothing */
static bool ctl_read(struct run *r)
{
	struct channels *ch = &r->ch;
	char *nl;
	ssize_t n;

	n = read(ch->ctl, ch->ctlbuf + ch->ctllen, sizeof(ch->ctlbuf) - 1 - ch->ctllen);
	if (n <= 0)
		return false;
	ch->ctllen += n;
	ch->ctlbuf[ch->ctllen] = '\0';
	while ((nl = strchr(ch->ctlbuf, '\n'))) {
		*nl = '\0';
		ctl_message(r, ch->ctlbuf);
		ch->ctllen -= nl + 1 - ch->ctlbuf;
		memmove(ch->ctlbuf, nl + 1, ch->ctllen + 1);
	}
	if (ch->ctllen == sizeof(ch->ctlbuf) - 1) {	/* no newline: take it */
		ctl_message(r, ch->ctlbuf);
		ch->ctllen = 0;
	}
	return true;
}

/* ---- signals ---- */

static void on_signal(struct run *r, int sfd)
{
	struct signalfd_siginfo si;

	while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			if (r->cmd.pid > 0 && !r->cmd.exited && command_reap(&r->cmd))
				request_stop(r, "the command exited");
			continue;
		}
		r->nsignals++;
		if (r->state == RUNNING) {
			request_stop(r, strsignal(si.ssi_signo));
		} else if (r->nsignals >= 3) {
			err("giving up waiting for the script to stop");
			r->status = 1;
			r->state = DONE;
		} else {
			err("still stopping (the end probes run)");
		}
	}
}

/* ---- the main loop ---- */

static void run_loop(struct run *r, int sfd)
{
	struct pollfd *pfd = NULL;
	bool quiet = false;	/* readable yet nothing to read: skip a round */
	/*
	 * The last pass read records: wait PACE_MS (for signals and ctl only)
	 * before the next, instead of polling the relay files, which are
	 * readable again at the next record. Unpaced, a steady flood kept
	 * this loop reading a record or two per pass, a poll, a read and a
	 * write each time: a whole vCPU, taken from the traced work on a
	 * busy host. The buffers hold far more than PACE_MS of records; a
	 * pass that read PACE_BYTES goes on at once.
	 */
	bool pace = false;
	double rescan = now_coarse() + 1;

	while (r->state != DONE) {
		bool relay = !quiet && !pace;
		size_t got;
		int n = 0;

		pfd = xrealloc(pfd, (2 + r->ch.ncpu) * sizeof(*pfd));
		pfd[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = quiet ? -1 : r->ch.ctl, .events = POLLIN };
		for (int i = 0; i < r->ch.ncpu; i++)
			pfd[n++] = (struct pollfd){ .fd = relay ? r->ch.cpu[i].fd : -1,
						    .events = POLLIN };
		if (poll(pfd, n, pace ? PACE_MS : POLL_MS) < 0 && errno != EINTR) {
			err("poll: %s", strerror(errno));
			r->status = 1;
			break;
		}
		quiet = false;
		if (pfd[0].revents)
			on_signal(r, sfd);
		if (pfd[1].revents && !ctl_read(r))
			quiet = true;
		got = read_relay(&r->ch, &r->m, &r->out);
		if (got == 0)
			for (int i = 2; i < n; i++)
				quiet |= pfd[i].revents != 0;
		pace = got > 0 && got < PACE_BYTES;
		merger_emit(&r->m, &r->out, false);
		out_flush(&r->out);
		if (r->out.broken)
			request_stop(r, "the output is closed");
		if (r->deadline && now_coarse() >= r->deadline)
			request_stop(r, "the time limit (-T) is up");
		if (r->state == STOPPING && now_coarse() - r->stop_time > DONE_TIMEOUT) {
			err("no answer to stop after %.0f s, unloading anyway", DONE_TIMEOUT);
			r->status = 1;
			break;
		}
		if (now_coarse() > rescan) {
			/* no file opens here: scripts may trace them */
			if (online_cpus() > r->ch.nopen)
				scan_cpus(&r->ch);
			rescan = now_coarse() + 1;
		}
	}
	free(pfd);
	/* "done": all output is in relay; drain it */
	while (read_relay(&r->ch, &r->m, &r->out) > 0)
		;
	while (ctl_read(r))	/* late error/warn lines */
		;
	merger_emit(&r->m, &r->out, true);
	out_flush(&r->out);
}

static void report(struct run *r)
{
	struct merger *m = &r->m;

	info("%llu records, %llu bytes, %llu seq gaps", m->records, m->bytes, m->gaps);
	if (r->out.stream) {
		uint64_t n[2] = { r->dropped, r->skipped };

		out_item(&r->out, KTAP_STREAM_COUNTS, n, sizeof(n));
		return;
	}
	if (r->out.json) {	/* both counts, also when 0: a reader can rely on them */
		json_count(&r->out.jb, "dropped", r->dropped);
		json_count(&r->out.jb, "skipped", r->skipped);
		out_json(&r->out);
		return;
	}
	if (r->dropped > 0)
		fprintf(stderr, "ktap: %llu records dropped\n", r->dropped);
	if (r->skipped > 0)
		fprintf(stderr, "ktap: %llu probe hits skipped\n", r->skipped);
	if (r->out.lost > 0)
		fprintf(stderr, "ktap: %llu bytes of output lost to a full disk\n", r->out.lost);
}

static int open_output(struct output *o, const char *file, int fd)
{
	o->fd = 1;
	o->name = "stdout";
	if (fd >= 0) {
		/* the -c command and system() must not hold it open */
		if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
			err("-O %d: %s", fd, strerror(errno));
			return -1;
		}
		o->fd = fd;
		o->name = "the output (-O)";
		return 0;
	}
	if (!file)
		return 0;
	if (o->limit)
		return rotate_open(o, file);
	o->name = file;
	o->fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (o->fd < 0) {
		err("cannot create %s: %s", file, strerror(errno));
		return -1;
	}
	return 0;
}

/* is our parent the one that started us for ktap (ktap, the guest
 * agent)? Then its work for this run is the loader's too. */
static bool parent_is_ktap(void)
{
	char path[64], comm[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)getppid());
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	return !strcmp(comm, "ktap") || !strcmp(comm, "ktap-agent");
}

/* the module parameter naming the tgids it must not trace (uapi.h) */
static int loader_param(char *buf, size_t size, const struct options *o)
{
	if (o->trace_loader)
		return 0;
	if (parent_is_ktap())
		return snprintf(buf, size, KTAP_PARAM_LOADER "=%d,%d ",
				(int)getpid(), (int)getppid());
	return snprintf(buf, size, KTAP_PARAM_LOADER "=%d ", (int)getpid());
}

/*
 * "start" arms every probe before it returns, minutes for thousands of
 * kprobes in the TCG guest. Our stop signals are blocked (read through
 * the signalfd), which would keep the module from seeing them: during
 * the write they are unblocked, with a handler that only notes them and
 * no SA_RESTART, so that the module stops arming (and the write fails
 * with EINTR) within a batch of probes.
 */
static volatile sig_atomic_t start_signal;

static void note_start_signal(int sig)
{
	start_signal = sig;
}

static int start_script(struct channels *ch, const sigset_t *stops)
{
	struct sigaction sa = { .sa_handler = note_start_signal }, old[3];
	static const int sigs[3] = { SIGINT, SIGTERM, SIGHUP };
	int ret, e;

	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]);
	/* our ctl holds the run: if we die, the module disarms at once */
	if (ctl_write(ch, KTAP_CMD_HOLD) < 0)
		return -1;
	sigprocmask(SIG_UNBLOCK, stops, NULL);
	ret = start_signal ? (errno = EINTR, -1) : ctl_write(ch, KTAP_CMD_START);
	e = errno;
	sigprocmask(SIG_BLOCK, stops, NULL);
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	errno = e;
	return ret;
}

/* a read-only parameter the module set, 0 if it cannot be read */
static unsigned long long module_param_ull(const char *name, const char *param)
{
	char path[128];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/%s/parameters/%s", name, param);
	f = fopen(path, "re");
	if (!f || fscanf(f, "%llu", &v) != 1)
		err("cannot read %s: records have no time", path);
	if (f)
		fclose(f);
	return v;
}

/* -j: how the module's records' TSC readings become times (uapi.h);
 * -J: the same, as the stream's clock item */
static void read_clock(const char *name, struct output *o)
{
	struct json_clock *c = &o->clock;

	c->khz = module_param_ull(name, KTAP_PARAM_TSC_KHZ);
	c->tsc = module_param_ull(name, KTAP_PARAM_TSC_REF);
	c->ns = module_param_ull(name, KTAP_PARAM_NS_REF);
	json_clock_set(c);
	if (o->stream) {
		struct ktap_stream_clock sc = { .tsc_ref = c->tsc, .ns_ref = c->ns,
						.tsc_khz = c->khz };

		out_item(o, KTAP_STREAM_CLOCK, &sc, sizeof(sc));
	}
}

/* load, start, run, stop; the module is unloaded on every path */
static int run_module(struct run *r, int sfd)
{
	struct options *o = r->opt;
	char params[256 + sizeof(o->globals)] = "";
	time_t now_s = time(NULL);
	struct tm tm;
	double t;
	int n = 0;

	n += loader_param(params, sizeof(params), o);
	if (o->target)
		n += snprintf(params + n, sizeof(params) - n, KTAP_PARAM_TARGET "=%ld ", o->target);
	if (o->buf_mb)
		n += snprintf(params + n, sizeof(params) - n, KTAP_PARAM_BUFSIZE "=%ld ", o->buf_mb << 20);
	if (o->json || o->stream)
		n += snprintf(params + n, sizeof(params) - n, KTAP_PARAM_JSON "=1 ");
	if (o->detach && !o->out_file)	/* a flight recorder: detach.c */
		n += snprintf(params + n, sizeof(params) - n, KTAP_PARAM_FLIGHT "=1 ");
	n += snprintf(params + n, sizeof(params) - n, "%s", o->globals);
	/* the local time zone, for tz_ctime() and friends: the kernel has none */
	if (localtime_r(&now_s, &tm) && tm.tm_zone && !strpbrk(tm.tm_zone, " \"="))
		snprintf(params + n, sizeof(params) - n, KTAP_PARAM_TZ_GMTOFF "=%ld " KTAP_PARAM_TZ_NAME "=%.15s",
			 -(long)tm.tm_gmtoff, tm.tm_zone);
	t = now();
	n = load_module(o->module, params);
	if (n == -2) {
		err("cannot open %s: %s", o->module, strerror(errno));
		return 1;
	}
	if (n < 0) {
		int e = errno;

		err("cannot load %s: %s%s; see dmesg for the kernel's reason",
		    o->module, strerror(e), load_hint(e));
		return 1;
	}
	info("loaded %s in %.0f ms (%s)", o->name, (now() - t) * 1e3,
	     *params ? params : "no parameters");
	if (o->json || o->stream)
		read_clock(o->name, &r->out);

	r->ch.ctl = -1;
	if (open_channels(&r->ch, o->name) == 0) {
		t = now();
		/* thousands of kprobes take minutes in the TCG guest */
		if (!o->quiet)
			progress_after(2, "arming the probes");
		n = start_script(&r->ch, &r->stops);
		progress_done();
		if (n < 0 && errno == EINTR && start_signal) {
			/* the module disarmed; "stop" gets its "done" */
			struct timespec up;

			/* on the clock of /proc/uptime, for who sent the signal */
			clock_gettime(CLOCK_BOOTTIME, &up);
			info("arming stopped, probes disarmed at uptime %.3f",
			     up.tv_sec + up.tv_nsec / 1e9);
			request_stop(r, strsignal(start_signal));
			r->loop(r, sfd);
		} else if (n == 0) {
			info("started in %.0f ms", (now() - t) * 1e3);
			if (o->seconds)
				r->deadline = now_coarse() + o->seconds;
			command_release(&r->cmd, true);
			if (start_signal)
				request_stop(r, strsignal(start_signal));
			r->loop(r, sfd);
		} else {
			int e = errno;

			r->status = 1;
			r->state = DONE;
			r->loop(r, sfd);	/* print its output and messages */
			if (!r->errors)
				err("the script failed to start: %s", strerror(e));
		}
		report(r);
	} else {
		r->status = 1;
	}
	close_channels(&r->ch);
	command_release(&r->cmd, false);
	if (unload_module(o->name) < 0)
		r->status = 1;
	else
		info("unloaded %s", o->name);
	return r->status;
}

#include "detach.c"

/* -d FILE: a -J stream's JSON lines on stdout, as ktap --vm prints them */
static int decode_stream(const char *file)
{
	int fd = strcmp(file, "-") ? open(file, O_RDONLY | O_CLOEXEC) : 0;
	struct json_stream s = { .cpu = -1 };
	struct json_buf b = { 0 };
	char buf[1 << 16];
	ssize_t n;
	int rc = 0;

	if (fd < 0) {
		err("cannot open %s: %s", file, strerror(errno));
		return 1;
	}
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err("cannot read %s: %s", file, strerror(errno));
			rc = 1;
			break;
		}
		if (json_stream_feed(&s, &b, buf, n) < 0) {
			err("%s: not a -J stream, or a corrupt one", file);
			rc = 1;
		}
		if (fwrite(b.p, 1, b.len, stdout) != b.len)
			rc = 1;
		b.len = 0;
		if (rc)
			break;
	}
	if (!rc && s.len) {
		err("%s: the stream ends inside an item", file);
		rc = 1;
	}
	if (fflush(stdout) != 0)
		rc = 1;
	if (fd > 0)
		close(fd);
	json_stream_free(&s);
	free(b.p);
	return rc;
}

int main(int argc, char **argv)
{
	struct options opt = { .out_fd = -1 };
	struct run r = { .opt = &opt, .m.next_seq = 1, .cmd.go_fd = -1,
			 .out.tee = -1, .loop = run_loop };
	sigset_t sigs;
	int sfd, status;

	parse_options(argc, argv, &opt);
	/* files inherited beyond stdio (the agent's -J stream on fd 3) are
	 * ktap-run's own: a -c command must not find them open (its first
	 * open(2) would not be fd 3) */
	for (int fd = 3; fd < 10; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			fcntl(fd, F_SETFD, FD_CLOEXEC);
	if (opt.decode)
		return decode_stream(opt.decode);
	if (opt.client)
		return detach_client(&opt);
	if (detach_check(&opt, &r.out) < 0)
		return 1;
	if (module_loaded(opt.name) && !remove_stale_module(opt.name)) {
		err("a module named %s is already loaded (another ktap-run?); "
		    "unload it with: rmmod %s", opt.name, opt.name);
		return 1;
	}
	if (opt.target && kill(opt.target, 0) < 0 && errno == ESRCH) {
		err("no process %ld", opt.target);
		return 1;
	}
	if (open_output(&r.out, opt.out_file, opt.out_fd) < 0)
		return 1;
	r.out.json = opt.json;
	r.out.stream = opt.stream;
	r.out.stream_cpu = -1;
	if (opt.detach) {
		detach_fork(&r);	/* the parent exits there */
		r.loop = detach_loop;
	}

	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGCHLD);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	r.stops = sigs;
	sigdelset(&r.stops, SIGCHLD);
	sfd = signalfd(-1, &sigs, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sfd < 0) {
		err("signalfd: %s", strerror(errno));
		return 1;
	}
	if (opt.command) {
		command_fork(&r.cmd, opt.command, &sigs,
			     opt.detach ? detach_command_pipe() : -1);
		opt.target = r.cmd.pid;
	}

	status = run_module(&r, sfd);
	command_end(&r.cmd);
	if (command_not_run(&r.cmd)) {
		err("the command could not be run (exit status %d: %s): %s",
		    WEXITSTATUS(r.cmd.status),
		    WEXITSTATUS(r.cmd.status) == 127 ? "not found" : "not executable",
		    opt.command);
		status = 1;
	}
	if (r.out.json) {
		json_exit(&r.out.jb, status, r.why);
		out_json(&r.out);
		out_flush(&r.out);
	}
	if (r.out.stream) {
		int32_t st = status;

		out_item2(&r.out, KTAP_STREAM_EXIT, 0, &st, sizeof(st), r.why,
			  r.why ? strlen(r.why) : 0);
		out_flush(&r.out);
	}
	if (r.out.fd > 2 && close(r.out.fd) < 0) {
		err("cannot write %s: %s", opt.out_file, strerror(errno));
		status = 1;
	}
	return opt.detach ? detach_end(&r, status) : status;
}
