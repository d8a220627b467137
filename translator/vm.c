/* vm.c - ktap --vm: run modules in the ktap guest.
 *
 * The guest is QEMU (TCG) booting Debian's own 6.1 kernel, provisioned
 * into the cache by guest/provision, with a busybox initramfs that runs
 * ktap-agent (guest/agent.c). One guest is booted on demand and reused by
 * every later run. Runs share it: each holds <cache>/vm/run/lock shared
 * (booting, restarting and stopping the guest take it exclusively) and
 * one of KTAP_AGENT_PORTS session slots (slot-K, a flock each; its own
 * virtio port and socket ctlK.sock), so that a second script, ktap -A,
 * --stop, --running or --vm-exec never waits for a running script. Files go through a 9p share (<cache>/vm/run/share is the
 * guest's /mnt/host); commands and their output through a virtio-serial
 * port that qemu connects to a unix socket (protocol: doc/internals.md,
 * section 4). The host's root is a second, read-only share (the guest's
 * KTAP_HOSTROOT, guest/frames.h): -c CMD that starts with a host program's
 * path runs chrooted into it.
 *
 * Layout of ${KTAP_CACHE:-~/.cache/ktap}/vm:
 *   <ABI>/       one provisioned kernel: vmlinux-pvh (booted), vmlinux
 *                (debug), System.map, kimg/ (the unpacked image package),
 *                initramfs.cpio.gz, qemu/ (QEMU unpacked from
 *                bookworm-backports), provisioned (stamp)
 *   current      symlink to the <ABI> in use
 *   run/         the running guest: guest (pid, ABI, initramfs time),
 *                ctl0.sock ... ctl7.sock, console.log (+ .1 of the boot
 *                before), qemu.log, share/, lock, slot-0 ... slot-7
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>

#include "ktap.h"
#include "../guest/frames.h"	/* the agent's protocol */
#include "../loader/json.h"	/* --json: ktap-run -J's records as JSON lines */

#define BOOT_TIMEOUT	300.0	/* s; TCG on a loaded host is slow */
#define PING_TIMEOUT	20.0
#define STOP_TIMEOUT	60.0	/* s of silence after a stop before giving up;
				 * KTAP_VM_STOP_TIMEOUT overrides it */
#define CONSOLE_TAIL	40	/* lines shown when the guest dies */
#define MAX_FRAME	(16u << 20)

/*
 * tsc=reliable: TCG's TSC comes from the host's monotonic clock, the same
 * on every vCPU, but the kernel's synchronisation check fails it and falls
 * back to the HPET, whose every read is an exit to QEMU: clock_gettime()
 * then leaves the vDSO, and local_clock() (ktap's overload guard) costs
 * about 0.2 us.
 */
static const char *const qemu_append =
	"console=ttyS0 loglevel=5 panic=-1 oops=panic softlockup_panic=1 tsc=reliable";

/*
 * loglevel=5 rather than quiet: a WARNING (and its "cut here" and
 * registers) is printed at KERN_WARNING, which quiet keeps off the
 * console, so neither a panic it causes nor the check after each run
 * (console_warnings()) could show it.
 *
 * KTAP_VM_PANIC_ON_WARN=1 (the test suite sets it) boots the guest with
 * panic_on_warn=1: a WARNING panics the guest and fails the run that
 * caused it. It is off by default: a WARNING from a user's own script is
 * reported after the run, but does not take the guest and whatever else
 * runs there down with it. A running guest booted the other way is
 * restarted; which way it was booted is read from qemu's command line.
 */
#define PANIC_ON_WARN_ARG "panic_on_warn=1"

static bool want_panic_on_warn(void)
{
	const char *env = getenv("KTAP_VM_PANIC_ON_WARN");

	return env && *env && strcmp(env, "0") != 0;
}

/* the guest kernel's command line; the caller frees it */
static char *kernel_cmdline(void)
{
	return xasprintf("%s%s", qemu_append,
			 want_panic_on_warn() ? " " PANIC_ON_WARN_ARG : "");
}

/*
 * qemu/ (boot_guest()): the guest runs in the QEMU that guest/provision
 * unpacked from bookworm-backports, with a TCG thread per vCPU. The
 * kernel rewrites a probed function's entry (text_poke_bp: int3, tail,
 * first byte) whenever a probe is registered or removed; bookworm's
 * QEMU 7.2 can translate that code on one vCPU while another rewrites it
 * and keep the translation of the old bytes for good (both vCPUs then
 * trap forever on an int3 that memory no longer holds, or run a freed
 * ftrace trampoline). QEMU 10.0 holds the page lock across translation.
 * doc/qemu-mttcg-smc.md has the evidence; ktap.run/live_patch.exp checks.
 *
 * softlockup_panic=1: a guest stuck like that, or by a guru script, dies
 * and ktap reports it with the console instead of waiting on it.
 */

/* ---- messages and small helpers ---- */

static void __attribute__((format(printf, 1, 2))) vm_err(const char *fmt, ...)
{
	va_list ap;

	fputs("ktap: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int vm_verbose;

static void __attribute__((format(printf, 1, 2))) vm_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	note_line(vm_verbose, fmt, ap);
	va_end(ap);
}

static long long file_mtime_ns(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -1;
	return st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
}

static bool file_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static void mkdir_p(const char *path)
{
	char *p = xstrdup(path);

	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	mkdir(p, 0755);
	free(p);
}


static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	ssize_t n = 0;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n) {
			n = -1;
			break;
		}
	close(in);
	if (close(out) < 0)
		n = -1;
	return n < 0 ? -1 : 0;
}

/* 'it'\''s' */
static void shell_quote(struct strbuf *sb, const char *s)
{
	sb_putc(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			sb_puts(sb, "'\\''");
		else
			sb_putc(sb, *s);
	}
	sb_putc(sb, '\'');
}

/* ---- paths ---- */

/*
 * Several kernels may be provisioned side by side (<cache>/vm/ABI each);
 * KTAP_VM_KERNEL (ktap --kernel ABI) picks one, else <vm>/current is the
 * default. Each kernel has a guest of its own: the default's runs in
 * <vm>/run, another's in <vm>/run-ABI, so that runs on two kernels
 * neither wait for nor reboot each other's guest.
 */

/* the ABI asked for with --kernel or KTAP_VM_KERNEL, or NULL */
static const char *wanted_kernel(void)
{
	const char *want = getenv("KTAP_VM_KERNEL");

	return want && *want ? want : NULL;
}

/* the ABI <vm>/current names (the default kernel), or NULL */
static char *default_kernel(const char *vm)
{
	char link[PATH_MAX], *cur = xasprintf("%s/current", vm);
	ssize_t n = readlink(cur, link, sizeof(link) - 1);

	free(cur);
	if (n <= 0)
		return NULL;
	link[n] = '\0';
	return xstrdup(link);
}

static char *kernel_run_dir(const char *vm)
{
	const char *want = wanted_kernel();
	char *def = want ? default_kernel(vm) : NULL;
	char *dir;

	if (!want || (def && !strcmp(def, want)))
		dir = xasprintf("%s/run", vm);
	else
		dir = xasprintf("%s/run-%s", vm, want);
	free(def);
	return dir;
}


struct vm_paths {
	char *vm;		/* <cache>/vm */
	char *run;		/* <cache>/vm/run */
	char *share, *sock, *guest, *console, *qemu_log, *lock;
};

static const struct vm_paths *paths(void)
{
	static struct vm_paths p;

	if (p.vm)
		return &p;
	p.vm = xasprintf("%s/vm", ktap_cache_dir());
	p.run = kernel_run_dir(p.vm);
	p.share = xasprintf("%s/share", p.run);
	p.sock = xasprintf("%s/ctl0.sock", p.run);	/* slot 0's; names our qemu */
	p.guest = xasprintf("%s/guest", p.run);
	p.console = xasprintf("%s/console.log", p.run);
	p.qemu_log = xasprintf("%s/qemu.log", p.run);
	p.lock = xasprintf("%s/lock", p.run);
	mkdir_p(p.share);
	return &p;
}

static char *data_file(const struct options *opt, const char *rel)
{
	return xasprintf("%s/%s", opt->data_dir ? opt->data_dir : ".", rel);
}

/* the static guest binaries, built next to the sources */
static char *agent_bin(const struct options *opt)
{
	return data_file(opt, "guest/ktap-agent");
}

static char *ktap_run_bin(const struct options *opt)
{
	return data_file(opt, "loader/ktap-run");
}

/* ---- provisioning ---- */

/* the QEMU that guest/provision unpacked for the kernel abi */
static char *qemu_path(const char *abi)
{
	return xasprintf("%s/%s/qemu/usr/bin/qemu-system-x86_64", paths()->vm, abi);
}

/* abi is fully provisioned: its stamp, headers and QEMU are there */
static bool kernel_ready(const char *abi)
{
	char *stamp = xasprintf("%s/%s/provisioned", paths()->vm, abi);
	char *headers = xasprintf("/usr/src/linux-headers-%s/Makefile", abi);
	char *qemu = qemu_path(abi);
	bool ok = file_exists(stamp) && file_exists(headers) && file_exists(qemu);

	free(stamp);
	free(headers);
	free(qemu);
	return ok;
}

/* the wanted ABI (else the default one) if it is fully provisioned */
static char *provisioned_abi(void)
{
	const char *want = wanted_kernel();
	char *abi = want ? xstrdup(want) : default_kernel(paths()->vm);

	if (abi && !kernel_ready(abi)) {
		free(abi);
		abi = NULL;
	}
	return abi;
}

/* a kernel the archive does not have gets no guest: the run directory
 * paths() made for it goes (the default's stays) */
static void forget_run_dir(void)
{
	if (!wanted_kernel() || !strcmp(strrchr(paths()->run, '/'), "/run"))
		return;
	rmdir(paths()->share);
	rmdir(paths()->run);
}

/* run guest/provision; its stdout's last line is the ABI */
static char *run_provision(const struct options *opt, bool newest)
{
	char *script = data_file(opt, "guest/provision");
	char *agent = agent_bin(opt), *runbin = ktap_run_bin(opt);
	char out[256] = "", *nl;
	int p[2], status;
	ssize_t n, len = 0;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return NULL;
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		setenv("KTAP_AGENT", agent, 1);
		setenv("KTAP_RUN_BIN", runbin, 1);
		if (progress_quiet)	/* -q: its progress lines too */
			setenv("KTAP_QUIET", "1", 1);
		execl("/bin/bash", "bash", script, newest ? "--newest" : NULL, (char *)NULL);
		fprintf(stderr, "ktap: cannot run %s: %s\n", script, strerror(errno));
		_exit(127);
	}
	close(p[1]);
	while (pid > 0 && (n = read(p[0], out + len, sizeof(out) - 1 - len)) > 0)
		len += n;
	close(p[0]);
	out[len] = '\0';
	free(agent);
	free(runbin);
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		/* 3: the kernel asked for is not to be had, and provision said
		 * what is missing and how to get it */
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 3)
			vm_err("provisioning the guest failed (%s)", script);
		else
			forget_run_dir();
		free(script);
		return NULL;
	}
	free(script);
	while (len > 0 && out[len - 1] == '\n')
		out[--len] = '\0';
	nl = strrchr(out, '\n');
	return xstrdup(nl ? nl + 1 : out);
}

static char *ensure_provisioned(const struct options *opt)
{
	char *abi = provisioned_abi();

	if (abi)
		return abi;
	/* guest/provision says which kernel it fetches, once it knows the
	 * archive has it */
	if (!wanted_kernel())
		progress("provisioning the ktap guest (first use; downloads ~930 MB)");
	return run_provision(opt, false);
}

static char *initramfs_path(const char *abi)
{
	return xasprintf("%s/%s/initramfs.cpio.gz", paths()->vm, abi);
}

/* what the initramfs is built from: "path mtime size" per input */
static char *initramfs_inputs(char *const *inputs, size_t n)
{
	struct strbuf sb = { 0 };

	for (size_t i = 0; i < n; i++) {
		struct stat st;

		if (stat(inputs[i], &st) < 0)
			memset(&st, 0, sizeof(st));
		sb_printf(&sb, "%s %lld.%09ld %lld\n", inputs[i], (long long)st.st_mtim.tv_sec,
			  st.st_mtim.tv_nsec, (long long)st.st_size);
	}
	return sb.buf;
}

static int run_mkinitramfs(char *const *inputs, const char *abi, const char *img)
{
	char *kdir = xasprintf("%s/%s", paths()->vm, abi);
	pid_t pid = fork();
	int status, rc = 0;

	if (pid == 0) {
		if (progress_quiet)	/* -q: no summary line */
			setenv("KTAP_QUIET", "1", 1);
		execl("/bin/bash", "bash", inputs[3], kdir, inputs[0], inputs[1], img,
		      (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		vm_err("building the guest's initramfs failed");
		rc = -1;
	}
	free(kdir);
	return rc;
}

/* rebuild the initramfs when the guest binaries or scripts it was built
 * from (inputs[3] is mkinitramfs itself) changed (another build dir counts
 * as a change) */
static int ensure_initramfs(const struct options *opt, const char *abi, bool rebuild)
{
	char *img = initramfs_path(abi);
	char *stamp = xasprintf("%s.src", img);
	char *inputs[] = {
		agent_bin(opt), ktap_run_bin(opt),
		data_file(opt, "guest/init"), data_file(opt, "guest/mkinitramfs"),
		data_file(opt, "guest/guest-modules"),
	};
	const size_t n = sizeof(inputs) / sizeof(inputs[0]);
	char *want = NULL, *have;
	int rc = 0;

	for (size_t i = 0; i < n; i++)
		if (!file_exists(inputs[i])) {
			vm_err("%s is missing%s", inputs[i], i < 2 ? " (run make)" : "");
			rc = -1;
		}
	if (rc == 0) {
		want = initramfs_inputs(inputs, n);
		have = read_whole_file(stamp, NULL);
		if ((!file_exists(img) || !have || strcmp(have, want)) && !rebuild) {
			rc = 1;		/* stale */
		} else if (!file_exists(img) || !have || strcmp(have, want)) {
			rc = run_mkinitramfs(inputs, abi, img);
			if (rc == 0) {
				FILE *f = fopen(stamp, "w");

				if (f) {
					fputs(want, f);
					fclose(f);
				}
			}
		}
		free(have);
	}
	for (size_t i = 0; i < n; i++)
		free(inputs[i]);
	free(want);
	free(stamp);
	free(img);
	return rc;
}

/* the guest's kernel ABI (provisioning first if needed), or NULL */
const char *vm_kernel_release(const struct options *opt)
{
	static char *abi;

	if (!abi)
		abi = ensure_provisioned(opt);
	return abi;
}

/* ---- the locks: the guest (shared by runs) and a session slot each ---- */

/* the guest lock, open; taken by the callers */
static int open_guest_lock(void)
{
	int fd = open(paths()->lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0)
		vm_err("cannot open %s: %s", paths()->lock, strerror(errno));
	return fd;
}

/* take the guest lock as how says (LOCK_SH, LOCK_EX), saying why we wait */
static int take_guest_lock(int fd, int how, const char *why)
{
	if (flock(fd, how | LOCK_NB) == 0)
		return 0;
	progress("waiting for the guest (%s)", why);
	return flock(fd, how);
}

/* the guest, exclusively: boot, restart, stop */
static int lock_guest(void)
{
	int fd = open_guest_lock();

	if (fd >= 0 && take_guest_lock(fd, LOCK_EX, "other ktap commands are using it") < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static int slot_fd = -1;	/* the session slot session_open() took */
/* -A, --stop, --running: the running guest as it is, also when ktap was
 * rebuilt since it booted (its detached scripts run there) */
static bool use_running_guest;

static void unlock_guest(int fd)
{
	if (fd >= 0)
		close(fd);
	if (slot_fd >= 0)
		close(slot_fd);
	slot_fd = -1;
}

/* the slot this process's connection uses (conn_open) */
static int cur_slot;

static char *slot_sock(int k)
{
	return xasprintf("%s/ctl%d.sock", paths()->run, k);
}

/* slot k if it is free: its lock fd, else -1 */
static int try_slot(int k)
{
	char *path = xasprintf("%s/slot-%d", paths()->run, k);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	free(path);
	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* a free session slot: its lock fd, cur_slot set; waits (for whichever
 * frees first) only when all KTAP_AGENT_PORTS are in use */
static int take_slot(void)
{
	for (int round = 0;; round++) {
		for (int k = 0; k < KTAP_AGENT_PORTS; k++) {
			int fd = try_slot(k);

			if (fd >= 0) {
				cur_slot = k;
				return fd;
			}
		}
		if (round == 0)
			fprintf(stderr, "ktap: waiting for the guest (all %d sessions are in use)\n",
				KTAP_AGENT_PORTS);
		usleep(100000);
	}
}

/* ---- the running guest ---- */

struct guest {
	pid_t pid;
	char abi[64];
	long long initrd_mtime;	/* ns */
	long booted;		/* time(), for status */
};

/* pid's command line, its words joined by spaces, into cmd; false if
 * there is no such process */
static bool proc_cmdline(pid_t pid, char *cmd, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	if (pid <= 0 || kill(pid, 0) < 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, cmd, size - 1);
	close(fd);
	if (n <= 0)
		return false;
	for (ssize_t i = 0; i < n; i++)
		if (!cmd[i])
			cmd[i] = ' ';
	cmd[n] = '\0';
	return true;
}

static bool qemu_alive(pid_t pid)
{
	char cmd[8192];

	/* the pid may have been reused: check it is our qemu */
	return proc_cmdline(pid, cmd, sizeof(cmd)) && strstr(cmd, paths()->sock);
}

/* was the guest's kernel booted with panic_on_warn=1? */
static bool guest_panics_on_warn(const struct guest *g)
{
	char cmd[8192];

	return proc_cmdline(g->pid, cmd, sizeof(cmd)) &&
	       strstr(cmd, " " PANIC_ON_WARN_ARG) != NULL;
}

/* was the guest's kernel booted with the command line we would give it
 * (kernel_cmdline(): panic_on_warn, or an older ktap's)? */
static bool guest_cmdline_current(const struct guest *g)
{
	char cmd[8192], *want = kernel_cmdline(), *arg = xasprintf(" -append %s -", want);
	bool ok = proc_cmdline(g->pid, cmd, sizeof(cmd)) && strstr(cmd, arg);

	free(want);
	free(arg);
	return ok;
}

/* does the running guest g run abi, the current initramfs (of mtime)
 * and the kernel command line wanted now? */
static bool guest_matches(const struct guest *g, const char *abi, long long mtime)
{
	return !strcmp(g->abi, abi) && g->initrd_mtime == mtime &&
	       guest_cmdline_current(g);
}

/* true if the guest recorded in run/guest is alive; fields that do not
 * parse stay zero, so that the guest no longer matches and is restarted */
static bool guest_read(struct guest *g)
{
	FILE *f = fopen(paths()->guest, "r");

	memset(g, 0, sizeof(*g));
	if (!f)
		return false;
	if (fscanf(f, "pid %d abi %63s initrd %lld booted %ld", &g->pid, g->abi,
		   &g->initrd_mtime, &g->booted) != 4)
		g->abi[0] = '\0';
	fclose(f);
	return qemu_alive(g->pid);
}

static void guest_write(const struct guest *g)
{
	FILE *f = fopen(paths()->guest, "w");

	if (!f)
		return;
	fprintf(f, "pid %d abi %s initrd %lld booted %ld\n", (int)g->pid, g->abi,
		g->initrd_mtime, g->booted);
	fclose(f);
}

static void guest_kill(pid_t pid)
{
	if (qemu_alive(pid)) {
		kill(pid, SIGTERM);
		for (int i = 0; i < 100 && qemu_alive(pid); i++)
			usleep(50000);
		if (qemu_alive(pid))
			kill(pid, SIGKILL);
	}
	unlink(paths()->guest);
	for (int k = 0; k < KTAP_AGENT_PORTS; k++) {
		char *sock = slot_sock(k);

		unlink(sock);
		free(sock);
	}
}

/* an oops starts before the last lines: show it from its first line */
static char *oops_start(char *text, char *tail)
{
	static const char *const marks[] = {
		"[ cut here ]", "BUG: ", "Oops: ", "general protection fault", "WARNING: CPU",
		"Kernel panic", "watchdog: BUG",
	};
	char *first = NULL;

	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		char *m = strstr(text, marks[i]);

		if (m && (!first || m < first))
			first = m;
	}
	if (!first || first >= tail)
		return tail;
	while (first > text && first[-1] != '\n')
		first--;
	return first;
}

/* the console log from offset 'from' on (its last MiB at most), NUL
 * ended, its length in *len; NULL if there is no log */
static char *console_since(long from, long *len)
{
	FILE *f = fopen(paths()->console, "r");
	char *text;
	long size;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	if (from > size || from < 0)
		from = 0;
	if (size - from > 1 << 20)
		from = size - (1 << 20);
	text = xalloc(size - from + 1);
	fseek(f, from, SEEK_SET);
	size = fread(text, 1, size - from, f);
	fclose(f);
	text[size] = '\0';
	*len = size;
	return text;
}

/* print the last lines of the console log, from offset 'from' on */
static void console_tail(long from, int lines)
{
	char *text, *start;
	long size;
	int n = 0;

	if (!(text = console_since(from, &size)))
		return;
	if (size == 0) {
		fprintf(stderr, "ktap: (nothing on the guest console: %s)\n",
			paths()->console);
		free(text);
		return;
	}
	start = text + size;
	while (start > text && n <= lines)
		if (*--start == '\n' && start[1])
			n++;
	if (*start == '\n')
		start++;
	start = oops_start(text, start);
	fprintf(stderr, "ktap: ---- guest console (%s) ----\n%s", paths()->console, start);
	if (size && text[size - 1] != '\n')
		fputc('\n', stderr);
	fprintf(stderr, "ktap: ---- end of guest console ----\n");
	free(text);
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) < 0 ? 0 : st.st_size;
}

/* double fork: qemu lives on in its own session after ktap exits */
/* run argv detached (its own session), output to log (appended if
 * append): qemu, and the virtiofsd daemons of a virtiofs guest */
static pid_t spawn_detached(char **argv, const char *logpath, bool append)
{
	int p[2];
	pid_t child, qemu = -1;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	child = fork();
	if (child == 0) {
		setsid();
		qemu = fork();
		if (qemu == 0) {
			int null = open("/dev/null", O_RDWR);
			int log = open(logpath, O_WRONLY | O_CREAT |
					(append ? O_APPEND : O_TRUNC), 0644);

			dup2(null, 0);
			dup2(log, 1);
			dup2(log, 2);
			/* keep p[1] (close-on-exec): its EOF tells exec happened */
			close_range(3, p[1] - 1, 0);
			close_range(p[1] + 1, ~0u, 0);
			if (chdir("/") < 0)
				_exit(127);
			signal(SIGINT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			signal(SIGHUP, SIG_DFL);
			signal(SIGPIPE, SIG_DFL);
			execvp(argv[0], argv);
			fprintf(stderr, "ktap: cannot run %s: %s\n", argv[0], strerror(errno));
			_exit(127);
		}
		if (write(p[1], &qemu, sizeof(qemu)) != sizeof(qemu))
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	if (child > 0) {
		char c;

		if (read(p[0], &qemu, sizeof(qemu)) != sizeof(qemu))
			qemu = -1;
		waitpid(child, NULL, 0);
		while (read(p[0], &c, 1) > 0)	/* until qemu's exec */
			;
	}
	close(p[0]);
	return qemu;
}

static bool console_has_marker(void)
{
	FILE *f = fopen(paths()->console, "r");
	char line[1024];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, KTAP_AGENT_READY) != NULL;
	fclose(f);
	return found;
}

/* wait for the agent's ready marker; a guest that does not come up is killed */
static int wait_ready(struct guest *g, double t0)
{
	const struct vm_paths *p = paths();
	double next_note = t0 + 15;
	char *log;

	while (g->pid > 0) {
		if (console_has_marker()) {
			progress("guest ready in %.1f s", now_seconds() - t0);
			return 0;
		}
		if (!qemu_alive(g->pid)) {
			vm_err("the guest did not boot: qemu exited (%s)", p->qemu_log);
			break;
		}
		if (now_seconds() - t0 > BOOT_TIMEOUT) {
			vm_err("the guest did not boot in %.0f s", BOOT_TIMEOUT);
			break;
		}
		if (now_seconds() > next_note) {
			progress("still booting (%.0f s)...", now_seconds() - t0);
			next_note += 15;
		}
		usleep(50000);
	}
	log = read_whole_file(p->qemu_log, NULL);
	if (log && *log)
		fprintf(stderr, "ktap: qemu says:\n%s", log);
	free(log);
	console_tail(0, CONSOLE_TAIL);
	guest_kill(g->pid);
	return -1;
}

/* ---- the guest's file systems ---- */

/*
 * The share (<cache>/vm/run/share, the guest's /mnt/host) and the host's
 * root (KTAP_HOSTROOT) reach the guest over virtio-9p where the kernel has
 * 9p, else over virtiofs (the cloud flavours: CONFIG_VIRTIO_FS, no
 * CONFIG_NET_9P). guest/guest-modules --share decides from the kernel's
 * config; guest/mkinitramfs records its answer in <initramfs>.share.
 * virtiofs needs a vhost-user daemon per file system on the host
 * (qemu-system-common's virtiofsd, which exits when qemu does) and the
 * guest's memory shared with it (a memfd backend).
 */
#define VIRTIOFSD	"/usr/lib/qemu/virtiofsd"
#define GUEST_MEM	"1024"	/* MB */

struct argvec {
	char *v[96];
	int n;
	char *owned[16];	/* freed by argvec_free() */
	int nowned;
};

static void arg(struct argvec *a, const char *s)
{
	if (a->n < (int)(sizeof(a->v) / sizeof(a->v[0])) - 1)
		a->v[a->n++] = (char *)s;
}

/* an argument made with xasprintf(), freed with the vector */
static void arg_own(struct argvec *a, char *s)
{
	if (a->nowned < (int)(sizeof(a->owned) / sizeof(a->owned[0])))
		a->owned[a->nowned++] = s;
	arg(a, s);
}

static void argvec_free(struct argvec *a)
{
	for (int i = 0; i < a->nowned; i++)
		free(a->owned[i]);
}

static bool guest_uses_virtiofs(const char *abi)
{
	char *img = initramfs_path(abi);
	char *rec = xasprintf("%s.share", img);
	char *fs = read_whole_file(rec, NULL);
	bool v = fs && !strncmp(fs, "virtiofs", 8);

	free(fs);
	free(rec);
	free(img);
	return v;
}

static char *virtiofs_sock(const char *tag)
{
	return xasprintf("%s/%s.vfs.sock", paths()->run, tag);
}

/*
 * virtiofsd serving dir as tag, -1 if it does not come up. cache=always
 * for the host's root (the guest keeps one inode per file, which uprobes
 * need, as 9p's cache=loose does); none for the share, whose files the
 * host writes just before the guest reads them. announce_submounts: the
 * host's / spans file systems, whose inode numbers may collide.
 * sandbox=chroot: the namespace sandbox's pivot_root() fails on the
 * host's own / (EBUSY).
 */
static pid_t start_virtiofsd(const char *tag, const char *dir, const char *cache)
{
	char *sock = virtiofs_sock(tag);
	char *log = xasprintf("%s/virtiofsd.log", paths()->run);
	char *sockarg = xasprintf("--socket-path=%s", sock);
	char *src = xasprintf("source=%s", dir);
	char *c = xasprintf("cache=%s", cache);
	char *argv[] = { VIRTIOFSD, sockarg, "-o", src, "-o", c,
			 "-o", "announce_submounts", "-o", "sandbox=chroot", NULL };
	pid_t pid;

	unlink(sock);
	pid = spawn_detached(argv, log, true);
	for (int i = 0; pid > 0 && i < 200 && !file_exists(sock); i++)
		usleep(25000);
	if (pid > 0 && !file_exists(sock)) {
		vm_err("virtiofsd for %s did not start (%s)", dir, log);
		kill(pid, SIGKILL);
		pid = -1;
	}
	free(sock);
	free(log);
	free(sockarg);
	free(src);
	free(c);
	return pid;
}

/* qemu's side of a virtiofs file system: its socket and device */
static void virtiofs_args(struct argvec *a, const char *tag)
{
	char *sock = virtiofs_sock(tag);

	arg(a, "-chardev");
	arg_own(a, xasprintf("socket,id=vfs-%s,path=%s", tag, sock));
	arg(a, "-device");
	arg_own(a, xasprintf("vhost-user-fs-pci,chardev=vfs-%s,tag=%s", tag, tag));
	free(sock);
}

/* the share and the host's root for a guest without 9p; false if a
 * daemon did not start (those that did are stopped) */
static bool virtiofs_start(struct argvec *a, pid_t daemons[2])
{
	daemons[0] = start_virtiofsd("host0", paths()->share, "none");
	daemons[1] = daemons[0] > 0 ? start_virtiofsd(KTAP_HOSTROOT_TAG, "/", "always") : -1;
	if (daemons[1] < 0) {
		if (daemons[0] > 0)
			kill(daemons[0], SIGTERM);
		return false;
	}
	arg(a, "-object");
	arg(a, "memory-backend-memfd,id=mem,size=" GUEST_MEM "M,share=on");
	arg(a, "-machine");
	arg(a, "memory-backend=mem");
	virtiofs_args(a, "host0");
	virtiofs_args(a, KTAP_HOSTROOT_TAG);
	return true;
}

/* the 9p shares: the share, and the host's root read-only */
static void virtfs_args(struct argvec *a)
{
	arg(a, "-virtfs");
	arg_own(a, xasprintf("local,path=%s,mount_tag=host0,security_model=none,id=host0",
			     paths()->share));
	/* cache=loose in the guest (guest/init) keeps one inode per file, which
	 * uprobes need; multidevs=remap: the host's / spans file systems */
	arg(a, "-virtfs");
	arg(a, "local,path=/,mount_tag=" KTAP_HOSTROOT_TAG
	       ",security_model=none,readonly=on,multidevs=remap,id=" KTAP_HOSTROOT_TAG);
}

/* a port, its chardev and its socket per session slot */
static void port_args(struct argvec *a)
{
	arg(a, "-device");
	arg(a, "virtio-serial-pci");
	for (int k = 0; k < KTAP_AGENT_PORTS; k++) {
		char *sock = slot_sock(k);

		unlink(sock);
		arg(a, "-chardev");
		arg_own(a, xasprintf("socket,id=ctl%d,path=%s,server=on,wait=off", k, sock));
		arg(a, "-device");
		arg_own(a, xasprintf("virtserialport,chardev=ctl%d,name=" KTAP_AGENT_PORT "%d",
				     k, k));
		free(sock);
	}
}

static int boot_guest(const char *abi, struct guest *g)
{
	const struct vm_paths *p = paths();
	char *kdir = xasprintf("%s/%s", p->vm, abi);
	char *initrd = initramfs_path(abi);
	char *old = xasprintf("%s.1", p->console);
	struct argvec a = { .n = 0 };
	bool virtiofs = guest_uses_virtiofs(abi);
	pid_t daemons[2] = { -1, -1 };
	double t0 = now_seconds();
	int rc = -1;

	arg_own(&a, qemu_path(abi));
	arg(&a, "-L");
	arg_own(&a, xasprintf("%s/qemu/usr/share/qemu", kdir));
	arg(&a, "-name"), arg(&a, "ktap-guest");
	arg(&a, "-accel"), arg(&a, "tcg,thread=multi");
	arg(&a, "-cpu"), arg(&a, "qemu64");
	arg(&a, "-m"), arg(&a, GUEST_MEM);
	arg(&a, "-smp"), arg(&a, "2");
	arg(&a, "-nodefaults"), arg(&a, "-display"), arg(&a, "none"), arg(&a, "-no-reboot");
	arg(&a, "-kernel"), arg_own(&a, xasprintf("%s/vmlinux-pvh", kdir));
	arg(&a, "-initrd"), arg(&a, initrd);
	arg(&a, "-append"), arg_own(&a, kernel_cmdline());
	arg(&a, "-serial"), arg_own(&a, xasprintf("file:%s", p->console));
	rename(p->console, old);
	remove_tree(p->share);
	mkdir_p(p->share);
	if (virtiofs && !file_exists(VIRTIOFSD)) {
		vm_err("kernel %s has no 9p: its guest shares files over virtiofs, "
		       "which needs %s (apt-get install qemu-system-common)", abi, VIRTIOFSD);
		goto out;
	}
	if (virtiofs && !virtiofs_start(&a, daemons))
		goto out;
	if (!virtiofs)
		virtfs_args(&a);
	port_args(&a);
	progress("booting the guest (kernel %s, qemu TCG%s)...", abi,
		 virtiofs ? ", virtiofs" : "");
	memset(g, 0, sizeof(*g));
	g->pid = spawn_detached(a.v, p->qemu_log, false);
	snprintf(g->abi, sizeof(g->abi), "%s", abi);
	g->initrd_mtime = file_mtime_ns(initrd);
	g->booted = time(NULL);
	if (g->pid > 0)
		guest_write(g);
	rc = wait_ready(g, t0);
	/* a daemon whose qemu never connected would wait for ever */
	for (int i = 0; rc && i < 2; i++)
		if (daemons[i] > 0)
			kill(daemons[i], SIGTERM);
out:
	argvec_free(&a);
	free(kdir);
	free(initrd);
	free(old);
	return rc;
}

/* a guest running the wanted kernel and initramfs, booted if needed */
static int ensure_running(const char *abi, struct guest *g)
{
	char *initrd = initramfs_path(abi);
	long long mtime = file_mtime_ns(initrd);

	free(initrd);
	if (guest_read(g)) {
		if (guest_matches(g, abi, mtime)) {
			if (console_has_marker())
				return 0;
			/* booted by a ktap that was interrupted */
			progress("waiting for the guest to finish booting...");
			return wait_ready(g, now_seconds() - (double)(time(NULL) - g->booted));
		}
		if (strcmp(g->abi, abi) || g->initrd_mtime != mtime)
			progress("restarting the guest (new kernel or initramfs)");
		else if (guest_panics_on_warn(g) != want_panic_on_warn())
			progress("restarting the guest (%s panic_on_warn: KTAP_VM_PANIC_ON_WARN)",
				 want_panic_on_warn() ? "with" : "without");
		else
			progress("restarting the guest (a new kernel command line)");
		guest_kill(g->pid);
	}
	return boot_guest(abi, g);
}

/* ---- talking to the agent ---- */

struct conn {
	int fd;
	char *buf;
	size_t len, cap;
};

static int conn_open(struct conn *c)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	char *sock = slot_sock(cur_slot);
	int rc = -1;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	if (strlen(sock) >= sizeof(sa.sun_path)) {
		vm_err("socket path too long: %s (set KTAP_CACHE)", sock);
		goto out;
	}
	strcpy(sa.sun_path, sock);
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		vm_err("cannot connect to the guest (%s): %s", sock, strerror(errno));
		if (c->fd >= 0)
			close(c->fd);
		c->fd = -1;
		goto out;
	}
	rc = 0;
out:
	free(sock);
	return rc;
}

static void conn_close(struct conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->buf);
	c->buf = NULL;
}

static int conn_send(struct conn *c, char type, const void *data, uint32_t len)
{
	unsigned char h[KTAP_FRAME_HDR_LEN];
	const char *parts[2] = { (const char *)h, data };
	size_t sizes[2] = { sizeof(h), len };

	ktap_frame_header(h, type, len);

	for (int i = 0; i < 2; i++) {
		size_t off = 0;

		while (off < sizes[i]) {
			ssize_t n = write(c->fd, parts[i] + off, sizes[i] - off);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return -1;
			off += n;
		}
	}
	return 0;
}

/* read what the socket has: >0 bytes, 0 at EOF, -1 on error */
static ssize_t conn_fill(struct conn *c)
{
	ssize_t n;

	if (c->cap - c->len < 65536) {
		c->cap = c->cap ? 2 * c->cap : 131072;
		c->buf = xrealloc(c->buf, c->cap);
	}
	do
		n = read(c->fd, c->buf + c->len, c->cap - c->len);
	while (n < 0 && errno == EINTR);
	if (n > 0)
		c->len += n;
	return n;
}

struct frame {
	char type;
	uint32_t len;
	char *data;		/* NUL-terminated copy */
};

/* take one complete frame from the buffer: 1, 0 if none, -1 if garbage */
static int conn_frame(struct conn *c, struct frame *f)
{
	unsigned char *h = (unsigned char *)c->buf;
	const size_t hl = KTAP_FRAME_HDR_LEN;

	if (c->len < hl)
		return 0;
	f->type = h[0];
	f->len = ktap_frame_len(h);
	if (f->len > MAX_FRAME)
		return -1;
	if (c->len < hl + f->len)
		return 0;
	f->data = xalloc(f->len + 1);
	memcpy(f->data, c->buf + hl, f->len);
	memmove(c->buf, c->buf + hl + f->len, c->len - hl - f->len);
	c->len -= hl + f->len;
	return 1;
}

/* ping with a random nonce; skip stale frames until the matching pong */
static int conn_ping(struct conn *c, double timeout, pid_t qemu)
{
	unsigned char rnd[16];
	char nonce[33];
	double t0 = now_seconds();

	if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd)) {
		unsigned long x = (unsigned long)getpid() ^ (unsigned long)(t0 * 1e9);

		for (size_t i = 0; i < sizeof(rnd); i++, x = x * 6364136223846793005ul + 1)
			rnd[i] = x >> 56;
	}
	for (size_t i = 0; i < sizeof(rnd); i++)
		sprintf(nonce + 2 * i, "%02x", rnd[i]);
	if (conn_send(c, KTAP_FRAME_PING, nonce, strlen(nonce)) < 0)
		return -1;
	for (;;) {
		struct pollfd p = { .fd = c->fd, .events = POLLIN };
		struct frame f;
		int r;

		while ((r = conn_frame(c, &f)) == 1) {
			bool match = f.type == KTAP_FRAME_PING && !strcmp(f.data, nonce);

			free(f.data);
			if (match) {
				vm_info("guest answered in %.0f ms", (now_seconds() - t0) * 1e3);
				return 0;
			}
		}
		if (r < 0)
			c->len = 0;	/* garbage: the pong comes after it */
		if (now_seconds() - t0 > timeout || !qemu_alive(qemu))
			return -1;
		if (poll(&p, 1, 200) > 0 && conn_fill(c) <= 0)
			return -1;
	}
}

/* connect and ping; a guest that does not answer is rebooted once */
static int connect_guest(const char *abi, struct guest *g, struct conn *c)
{
	for (int attempt = 0; attempt < 2; attempt++) {
		if (ensure_running(abi, g) < 0)
			return -1;
		if (conn_open(c) == 0 && conn_ping(c, PING_TIMEOUT, g->pid) == 0)
			return 0;
		conn_close(c);
		vm_err("the guest does not answer%s", attempt ? "" : "; restarting it");
		console_tail(0, CONSOLE_TAIL);
		guest_kill(g->pid);
	}
	return -1;
}

/* the guest runs abi with the current initramfs and its agent is up */
static bool guest_current(const struct options *opt, const char *abi)
{
	struct guest g;
	char *initrd = initramfs_path(abi);
	long long mtime = file_mtime_ns(initrd);
	bool ok;

	free(initrd);
	ok = ensure_initramfs(opt, abi, false) == 0 && guest_read(&g) &&
	     guest_matches(&g, abi, mtime) && console_has_marker();
	return ok;
}

/* the detached scripts a running guest has (vm_detached_cmd() below) */
static char *detached_in(const struct guest *g);

/*
 * The guest lock, shared: a current guest is used as it is. Booting or
 * restarting it takes the lock exclusively (waiting for the runs that
 * use the old guest to end), then shares it again.
 */
static int share_guest(const struct options *opt, const char *abi)
{
	int lock = open_guest_lock();

	struct guest g;
	char *names;

	if (lock < 0 || take_guest_lock(lock, LOCK_SH, "another ktap is booting or stopping it") < 0)
		goto fail;
	if (guest_current(opt, abi) || (use_running_guest && guest_read(&g) && console_has_marker()))
		return lock;
	if (take_guest_lock(lock, LOCK_EX, "other ktap commands use the old guest") < 0)
		goto fail;
	/* a restart would end the detached scripts: they are stopped first */
	if (!guest_current(opt, abi) && guest_read(&g) && console_has_marker() &&
	    (names = detached_in(&g))) {
		vm_err("the guest must restart (a new kernel or initramfs, or "
		       "KTAP_VM_PANIC_ON_WARN changed) but runs detached "
		       "scripts (%s): ktap --vm --stop NAME each, or ktap --vm-stop --force", names);
		free(names);
		goto fail;
	}
	if (ensure_initramfs(opt, abi, true) < 0)
		goto fail;
	if (!guest_current(opt, abi)) {
		if (ensure_running(abi, &g) < 0)
			goto fail;
	}
	if (flock(lock, LOCK_SH) == 0)
		return lock;
fail:
	if (lock >= 0)
		close(lock);
	return -1;
}

/* lock, provision, boot: a guest answering on c in a session slot of its
 * own; returns the guest lock's fd (unlock_guest() frees both) */
static int session_open(const struct options *opt, struct guest *g, struct conn *c)
{
	char *abi;
	int lock;

	abi = ensure_provisioned(opt);
	if (!abi)
		return -1;
	lock = share_guest(opt, abi);
	if (lock >= 0 && (slot_fd = take_slot()) < 0) {
		unlock_guest(lock);
		lock = -1;
	}
	if (lock >= 0 && connect_guest(abi, g, c) < 0) {
		unlock_guest(lock);
		lock = -1;
	}
	free(abi);
	return lock;
}

/* ---- vm_run ---- */

/* qemu's -m (MiB); the kernel and the initramfs keep about a fifth */
#define VM_MEMORY_MB 1024

unsigned long long vm_guest_memory(int *ncpus)
{
	*ncpus = 2;	/* -smp 2 */
	return (unsigned long long)VM_MEMORY_MB * 4 / 5 << 20;
}

static int sig_pipe[2] = { -1, -1 };

static void on_signal(int sig)
{
	unsigned char s = sig;
	int e = errno;

	if (write(sig_pipe[1], &s, 1) < 0)
		(void)0;
	errno = e;
}

struct run_state {
	struct conn c;
	struct guest g;
	FILE *out;		/* the guest's stdout: ktap-run's, or the -c command's with -o */
	bool out_broken;
	char *share_out;	/* with -o: the file ktap-run writes in the share */
	FILE *share_in;		/* ... read from here as it grows */
	FILE *file_out;		/* ... and copied to the user's -o file */
	bool json_here;		/* --json: ktap-run sends records, we make the lines */
	FILE *json_out;		/* ... to stdout or the -o file */
	struct json_stream js;	/* ... the records read so far */
	struct json_buf jb;	/* ... the lines made of them */
	int nsignals;
	double stop_sent;	/* when a stop went to the guest, 0 if none */
	double last_frame;	/* when the guest last sent something */
	int status;		/* from X, -1 until then */
	bool dead;		/* the guest died or hangs */
	bool gave_up;
	double alive_asked;	/* when a silent guest was asked if it runs */
	bool said_busy;		/* ... and the user told it does */
	int stuck_cpu;		/* ... or a CPU of it stands still, else -1 */
};

/* ask ktap-run to stop the script as if it had got signal sig */
static void send_stop(struct run_state *r, int sig)
{
	char num[8];

	snprintf(num, sizeof(num), "%d", sig);
	conn_send(&r->c, KTAP_FRAME_SIGNAL, num, strlen(num));
	if (!r->stop_sent)
		r->stop_sent = now_seconds();
}

/* the first signal stops the script; a second Ctrl-C only says that it
 * is stopping, a third gives up (the guest is then restarted); a second
 * SIGTERM or SIGHUP, from a program rather than a person, gives up */
static void forward_signal(struct run_state *r, int sig)
{
	if (++r->nsignals == 1) {
		send_stop(r, sig);
	} else if (sig == SIGINT && r->nsignals == 2) {
		fprintf(stderr, "ktap: still stopping (the end probes run); "
			"Ctrl-C again to give up\n");
	} else {
		vm_err("giving up; the guest will be restarted");
		r->gave_up = true;
	}
}

static double stop_timeout(void)
{
	const char *env = getenv("KTAP_VM_STOP_TIMEOUT");
	double t = env ? atof(env) : 0;

	return t > 0 ? t : STOP_TIMEOUT;
}

/*
 * A guest that sends nothing for stop_timeout() after a stop may only be
 * busy (ktap-run unhooking 37,000 functions takes a minute under a loaded
 * TCG): the agent is asked whether it runs (KTAP_FRAME_ALIVE, which does
 * not disturb the command). An answer restarts the wait; none within
 * PING_TIMEOUT means the guest hangs or died.
 */
static bool stop_unanswered(struct run_state *r)
{
	double since = r->last_frame > r->stop_sent ? r->last_frame : r->stop_sent;
	double limit, now = now_seconds();

	if (!r->stop_sent)
		return false;
	limit = stop_timeout();
	if (r->stuck_cpu >= 0) {
		vm_err("the guest sent nothing for %.0f s after the stop request, and its "
		       "CPU %d stands still (interrupts off)", limit, r->stuck_cpu);
		return true;
	}
	if (now - since < limit)
		return false;
	if (!r->alive_asked || r->alive_asked < since) {
		conn_send(&r->c, KTAP_FRAME_ALIVE, "alive", 5);
		r->alive_asked = now;
		return false;
	}
	if (now - r->alive_asked < PING_TIMEOUT)
		return false;
	vm_err("the guest sent nothing for %.0f s after the stop request, and "
	       "does not answer", limit + PING_TIMEOUT);
	return true;
}

/* the agent answered stop_unanswered()'s question: the guest runs, but
 * one of its CPUs may stand still */
static void on_alive(struct run_state *r, const struct frame *f)
{
	int cpu = atoi(f->data);

	if (cpu >= 0) {
		r->stuck_cpu = cpu;
		return;
	}
	if (!r->said_busy)
		fprintf(stderr, "ktap: the guest is busy, still stopping the script\n");
	r->said_busy = true;
}

/*
 * --json: ktap-run's records (loader/stream.h) become JSON lines here,
 * not in the guest, where every instruction of the formatting would be
 * emulated on the traced workload's CPUs. A stream that stops making
 * sense is reported once; what came before it stays.
 */
static void on_records(struct run_state *r, const struct frame *f)
{
	bool bad = r->js.bad;

	if (r->out_broken && r->json_out == r->out)
		return;
	if (json_stream_feed(&r->js, &r->jb, f->data, f->len) < 0 && !bad)
		vm_err("the records from the guest are corrupt; the rest is left out");
	if (!r->jb.len)
		return;
	if ((fwrite(r->jb.p, 1, r->jb.len, r->json_out) != r->jb.len || fflush(r->json_out)) &&
	    r->json_out == r->out && !r->out_broken) {
		r->out_broken = true;	/* e.g. | head: stop the script */
		send_stop(r, SIGTERM);
	}
	r->jb.len = 0;
}

static void on_frame(struct run_state *r, struct frame *f)
{
	switch (f->type) {
	case KTAP_FRAME_RECORDS:
		if (r->json_here)
			on_records(r, f);
		break;
	case KTAP_FRAME_STDOUT:
		if (r->out_broken)
			break;
		if (fwrite(f->data, 1, f->len, r->out) != f->len || fflush(r->out)) {
			r->out_broken = true;	/* e.g. | head: stop the script */
			send_stop(r, SIGTERM);
		}
		break;
	case KTAP_FRAME_STDERR:
		fwrite(f->data, 1, f->len, stderr);
		fflush(stderr);
		break;
	case KTAP_FRAME_EXIT:
		r->status = atoi(f->data);
		break;
	case KTAP_FRAME_ALIVE:
		on_alive(r, f);
		break;
	default:	/* a late pong */
		break;
	}
}

/* with -o: copy what ktap-run has written to the share so far into the
 * user's file, so the file grows while the script runs */
static void drain_share_output(struct run_state *r)
{
	char buf[65536];
	size_t n;

	if (!r->share_out)
		return;
	if (!r->share_in && !(r->share_in = fopen(r->share_out, "r")))
		return;
	clearerr(r->share_in);
	while ((n = fread(buf, 1, sizeof(buf), r->share_in)) > 0)
		if (fwrite(buf, 1, n, r->file_out) != n)
			break;
	fflush(r->file_out);
}

/* relay frames until X; r->dead when the guest died or answers garbage */
static void relay(struct run_state *r)
{
	while (r->status < 0 && !r->gave_up) {
		struct pollfd p[2] = {
			{ .fd = r->c.fd, .events = POLLIN },
			{ .fd = sig_pipe[0], .events = POLLIN },
		};
		struct frame f;
		int n;

		n = poll(p, 2, r->share_out ? 100 : 500);
		if (n < 0 && errno != EINTR)
			break;
		drain_share_output(r);
		if (p[1].revents & POLLIN) {
			unsigned char s;

			while (read(sig_pipe[0], &s, 1) == 1)
				forward_signal(r, s);
		}
		if (p[0].revents && conn_fill(&r->c) <= 0) {
			r->dead = true;
			break;
		}
		while ((n = conn_frame(&r->c, &f)) == 1) {
			r->last_frame = now_seconds();
			on_frame(r, &f);
			free(f.data);
		}
		if (n < 0) {
			vm_err("garbage from the guest");
			r->dead = true;
			break;
		}
		if (!qemu_alive(r->g.pid) || stop_unanswered(r)) {
			r->dead = true;
			break;
		}
	}
}

/*
 * Does -c CMD start with a host program by its path ("./app", "/usr/bin/ls
 * -l")? A bare name ("dd", "sh -c ...") is the guest's busybox, as ever.
 */
static bool runs_host_program(const char *command)
{
	const char *s = command + strspn(command, " \t");
	char *word = xstrndup(s, strcspn(s, " \t\n;&|<>()"));
	struct stat st;
	bool host = strchr(word, '/') && strncmp(word, KTAP_AGENT_SHARE "/",
						    strlen(KTAP_AGENT_SHARE) + 1) != 0 &&
		    stat(word, &st) == 0 && S_ISREG(st.st_mode) && access(word, X_OK) == 0;

	free(word);
	return host;
}

/*
 * -c CMD that runs a host program runs chrooted into the host's root, in
 * the host's current directory, under the host's bash, which execs the
 * last command of CMD (so target() is that command's pid, as with a plain
 * "sh -c CMD" in the guest; the guest's busybox would run its own applets
 * for "ls" and the like, and dash forks even a lone command).
 */
static char *chrooted_command(const char *command)
{
	struct strbuf inner = { 0 }, sb = { 0 };
	char cwd[PATH_MAX];

	if (getcwd(cwd, sizeof(cwd))) {
		sb_puts(&inner, "cd ");
		shell_quote(&inner, cwd);
		sb_puts(&inner, " 2>/dev/null; ");
	}
	sb_puts(&inner, command);
	sb_puts(&sb, "exec chroot " KTAP_HOSTROOT " /bin/bash -c ");
	shell_quote(&sb, inner.buf);
	free(inner.buf);
	return sb.buf;
}

static char *module_of(const char *ko);
static char *realpath_or_self(const char *file);

/* the share's directory of a detached script's -o files: keep-NAME */
static char *keep_dir(const char *name)
{
	return xasprintf("keep-%s", name);
}

/*
 * --json: the lines are made here from ktap-run -J's records, which come
 * through the command's fd 3 (frames.h), except for a detached or
 * rotating run, whose output ktap-run writes itself into files and
 * buffers (those keep -j)
 */
static bool json_on_host(const struct options *opt)
{
	return opt->json && !opt->detach && !opt->rotate;
}

static char *run_command_line(const struct options *opt, const char *rundir,
			      const char *ko)
{
	struct strbuf sb = { 0 };

	sb_puts(&sb, "exec ktap-run");
	if (opt->verbose)
		sb_puts(&sb, " -v");
	if (opt->detach) {
		sb_puts(&sb, " -F -n ");
		shell_quote(&sb, script_about(opt));
	}
	if (opt->rotate)
		sb_printf(&sb, " -S %s", opt->rotate);
	if (opt->output_file && (opt->detach || opt->rotate)) {
		char *name = module_of(ko), *keep = keep_dir(name), *base;

		base = strrchr(opt->output_file, '/');
		base = base ? base + 1 : (char *)opt->output_file;
		sb_printf(&sb, " -o " KTAP_AGENT_SHARE "/%s/", keep);
		shell_quote(&sb, base);
		free(name);
		free(keep);
	} else if (json_on_host(opt)) {
		sb_printf(&sb, " -J -O %d", KTAP_AGENT_RECORDS_FD);
	} else if (opt->output_file) {
		sb_printf(&sb, " -o " KTAP_AGENT_SHARE "/%s/ktap.out", rundir);
	}
	if (opt->command) {
		char *cmd = runs_host_program(opt->command) ? chrooted_command(opt->command) :
			    xstrdup(opt->command);

		sb_puts(&sb, " -c ");
		shell_quote(&sb, cmd);
		free(cmd);
	}
	if (opt->target_pid)
		sb_printf(&sb, " -x %ld", opt->target_pid);
	if (opt->buffer_mb)
		sb_printf(&sb, " -s %d", opt->buffer_mb);
	if (opt->time_limit)
		sb_printf(&sb, " -T %ld", opt->time_limit);
	for (int i = 0; i < opt->nglobal_settings; i++) {
		sb_puts(&sb, " -G ");
		shell_quote(&sb, opt->global_settings[i]);
	}
	if (opt->trace_loader)
		sb_puts(&sb, " -L");
	if (opt->json && !json_on_host(opt))
		sb_puts(&sb, " -j");
	if (progress_quiet)
		sb_puts(&sb, " -q");
	sb_printf(&sb, " " KTAP_AGENT_SHARE "/%s/", rundir);
	shell_quote(&sb, ko);
	return sb.buf;
}

static void install_signals(struct sigaction *old)
{
	struct sigaction sa = { .sa_handler = on_signal };
	const int sigs[] = { SIGINT, SIGTERM, SIGHUP };

	if (sig_pipe[0] < 0 && pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return;
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, &old[3]);
}

static void restore_signals(const struct sigaction *old)
{
	const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

	for (int i = 0; i < 4; i++)
		sigaction(sigs[i], &old[i], NULL);
}

/* the module name of NAME.ko */
static char *module_of(const char *ko)
{
	const char *base = strrchr(ko, '/');
	char *name = xstrdup(base ? base + 1 : ko), *p;

	if ((p = strstr(name, ".ko")) && !p[3])
		*p = '\0';
	for (p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	return name;
}

/*
 * -F -o FILE: the detached loader in the guest writes FILE (and FILE.N
 * with -S) into the share's keep-NAME/, where they are while it runs;
 * keep-NAME/.dest names FILE, and ktap --stop NAME moves them there.
 * An attached run with -o FILE -S does the same and moves its FILE.N
 * files when it ends.
 */
static int keep_prepare(const char *ko, const char *file, bool detach)
{
	char *name = module_of(ko), *rel = keep_dir(name);
	char *dir = xasprintf("%s/%s", paths()->share, rel);
	char *dest = xasprintf("%s/.dest", dir), *abs = realpath_or_self(file);
	FILE *f;
	int rc = -1;

	/* an earlier detached run's files wait for its --stop to move them */
	if (detach && file_exists(dest)) {
		vm_err("the output of an earlier detached %s is still in %s: "
		       "ktap --vm --stop %s moves it to where it goes", name, dir, name);
		goto out;
	}
	remove_tree(dir);
	if (mkdir(dir, 0755) == 0 && (f = fopen(dest, "w"))) {
		fprintf(f, "%s\n", abs);
		rc = fclose(f) == 0 ? 0 : -1;
		if (detach)
			fprintf(stderr, "ktap: with --vm the output goes to %s/ until "
			"ktap --vm --stop %s moves it to %s\n", dir, name, abs);
	}
	if (rc < 0)
		vm_err("cannot create %s: %s", dir, strerror(errno));
out:
	free(name);
	free(rel);
	free(dir);
	free(dest);
	free(abs);
	return rc;
}

/* FILE's absolute path, its directory resolved (it need not exist) */
static char *realpath_or_self(const char *file)
{
	char *copy = xstrdup(file), *slash = strrchr(copy, '/'), *dir, *abs;

	if (slash == copy)
		dir = xstrdup("/");
	else if (slash)
		*slash = '\0', dir = realpath(copy, NULL);
	else
		dir = realpath(".", NULL);
	abs = dir ? xasprintf("%s/%s", dir, slash ? slash + 1 : copy) : xstrdup(file);
	free(dir);
	free(copy);
	return abs;
}

/* after --stop NAME: keep-NAME's files go next to the FILE its .dest names */
static void keep_collect(const char *name)
{
	char *rel = keep_dir(name), *dir = xasprintf("%s/%s", paths()->share, rel);
	char *destf = xasprintf("%s/.dest", dir), *dest = read_whole_file(destf, NULL);
	char *slash;
	DIR *d;
	struct dirent *de;

	if (dest && (slash = strrchr(dest, '/')) && (d = opendir(dir))) {
		dest[strcspn(dest, "\n")] = '\0';
		*strrchr(dest, '/') = '\0';
		while ((de = readdir(d))) {
			char *from, *to;

			if (de->d_name[0] == '.')
				continue;
			from = xasprintf("%s/%s", dir, de->d_name);
			to = xasprintf("%s/%s", *dest ? dest : "", de->d_name);
			if (copy_file(from, to) < 0)
				vm_err("cannot copy %s to %s: %s", from, to, strerror(errno));
			free(from);
			free(to);
		}
		closedir(d);
		remove_tree(dir);
	}
	free(rel);
	free(dir);
	free(destf);
	free(dest);
}

/* a fresh run directory in the share, holding the module */
static char *stage_module(const char *ko_path, const char **ko_base)
{
	static unsigned counter;
	const char *base = strrchr(ko_path, '/');
	char *name, *dir, *dst;
	DIR *d;
	struct dirent *de;

	/* a run dir whose ktap is gone was left by a killed one (others
	 * belong to runs going on now) */
	if ((d = opendir(paths()->share))) {
		while ((de = readdir(d)))
			if (!strncmp(de->d_name, "run-", 4) &&
			    kill(atoi(de->d_name + 4), 0) < 0 && errno == ESRCH) {
				char *old = xasprintf("%s/%s", paths()->share, de->d_name);

				remove_tree(old);
				free(old);
			}
		closedir(d);
	}
	*ko_base = base ? base + 1 : ko_path;
	name = xasprintf("run-%d-%u", (int)getpid(), counter++);
	dir = xasprintf("%s/%s", paths()->share, name);
	dst = xasprintf("%s/%s", dir, *ko_base);
	if (mkdir(dir, 0755) < 0 || copy_file(ko_path, dst) < 0) {
		vm_err("cannot copy %s to %s: %s", ko_path, dst, strerror(errno));
		remove_tree(dir);
		free(name);
		name = NULL;
	}
	free(dir);
	free(dst);
	return name;
}

/* the reason of a panic on the console since from ("kernel:
 * panic_on_warn set ...", "Fatal exception"), or NULL; caller frees */
static char *panic_reason(long from)
{
	static const char mark[] = "Kernel panic - not syncing: ";
	long len;
	char *text = console_since(from, &len), *m, *reason = NULL;

	if (text && (m = strstr(text, mark))) {
		m += sizeof(mark) - 1;
		reason = xstrndup(m, strcspn(m, "\r\n"));
	}
	free(text);
	return reason;
}

static void report_dead_guest(struct run_state *r, long console_from)
{
	char *reason;

	if (r->gave_up) {
		guest_kill(r->g.pid);
		return;
	}
	/* qemu is gone (-no-reboot) once the panic is on the console */
	for (int i = 0; i < 20 && qemu_alive(r->g.pid); i++)
		usleep(100000);
	reason = panic_reason(console_from);
	if (reason)
		vm_err("the guest died during the run: its kernel panicked (%s)", reason);
	else
		vm_err("the guest died or stopped answering during the run");
	console_tail(console_from, CONSOLE_TAIL);
	free(reason);
	guest_kill(r->g.pid);
}

/*
 * A guest without panic_on_warn lives on after a WARNING (or a BUG that
 * did not oops): say so after the run, with the console from the first
 * one on, so that it is not found days later in dmesg.
 */
static void console_warnings(long from)
{
	static const char *const marks[] = { "WARNING: CPU", "BUG: " };
	long len;
	char *text = console_since(from, &len);
	bool found = false;

	for (size_t i = 0; text && i < sizeof(marks) / sizeof(marks[0]); i++)
		found |= strstr(text, marks[i]) != NULL;
	free(text);
	if (!found)
		return;
	vm_err("the guest kernel warned during the run (KTAP_VM_PANIC_ON_WARN=1 "
	       "makes a WARNING panic the guest instead):");
	console_tail(from, CONSOLE_TAIL);
}

/* send one command line to the guest and relay its output until it exits */
static void run_line(struct run_state *r, const char *line)
{
	struct sigaction old[4];
	long console_from;

	vm_info("guest: %s", line);
	console_from = file_size(paths()->console);
	install_signals(old);
	if (conn_send(&r->c, KTAP_FRAME_RUN, line, strlen(line)) < 0)
		r->dead = true;
	else
		relay(r);
	restore_signals(old);
	drain_share_output(r);
	if (r->dead || r->gave_up) {
		report_dead_guest(r, console_from);
		r->status = 1;
	} else {
		console_warnings(console_from);
	}
}

static void remove_run_dir(const char *rundir)
{
	char *dir = xasprintf("%s/%s", paths()->share, rundir);

	remove_tree(dir);
	free(dir);
}

int vm_run(const char *ko_path, const struct options *opt)
{
	struct run_state r = { .status = -1, .stuck_cpu = -1 };
	const char *ko_base;
	char *rundir, *line;
	double t0 = now_seconds();
	int lock;

	vm_verbose = opt->verbose;
	r.out = stdout;
	lock = session_open(opt, &r.g, &r.c);
	if (lock < 0)
		return 1;
	rundir = stage_module(ko_path, &ko_base);
	if (!rundir) {
		conn_close(&r.c);
		unlock_guest(lock);
		return 1;
	}
	if (opt->output_file && (opt->detach || opt->rotate)) {
		if (keep_prepare(ko_path, opt->output_file, opt->detach) < 0) {
			r.status = 1;
			goto out;
		}
	} else if (opt->output_file) {
		if (!json_on_host(opt))
			r.share_out = xasprintf("%s/%s/ktap.out", paths()->share, rundir);
		if (!(r.file_out = fopen(opt->output_file, "w"))) {
			vm_err("cannot create %s: %s", opt->output_file, strerror(errno));
			r.status = 1;
			goto out;
		}
	}
	r.json_here = json_on_host(opt);
	r.json_out = r.file_out ? r.file_out : r.out;
	r.js.cpu = -1;
	line = run_command_line(opt, rundir, ko_base);
	run_line(&r, line);
	free(line);
	if (r.json_here && r.js.len && !r.js.bad)
		vm_err("the records from the guest end inside one");
	json_stream_free(&r.js);
	free(r.jb.p);
	if (opt->rotate && !opt->detach) {	/* the run's FILE.N files */
		char *name = module_of(ko_base);

		keep_collect(name);
		free(name);
	}
	if (r.file_out && fclose(r.file_out) != 0) {
		vm_err("cannot write %s: %s", opt->output_file, strerror(errno));
		r.status = 1;
	}
	if (r.share_in)
		fclose(r.share_in);
	vm_info("run in the guest took %.2f s", now_seconds() - t0);
out:
	conn_close(&r.c);
	remove_run_dir(rundir);
	free(rundir);
	free(r.share_out);
	unlock_guest(lock);
	return r.status < 0 ? 1 : r.status;
}

/* ktap --vm-exec CMD: one shell command in the guest (to look around) */
int vm_exec(const char *command, const struct options *opt)
{
	struct run_state r = { .status = -1, .stuck_cpu = -1 };
	int lock;

	vm_verbose = opt->verbose;
	r.out = stdout;
	lock = session_open(opt, &r.g, &r.c);
	if (lock < 0)
		return 1;
	run_line(&r, command);
	conn_close(&r.c);
	unlock_guest(lock);
	return r.status < 0 ? 1 : r.status;
}

/* ktap --vm -A NAME, --stop NAME, --running: ktap-run in the guest */
int vm_detached_cmd(const struct options *opt)
{
	char *args = detached_cmd_line(opt), *line = xasprintf("exec ktap-run %s", args);
	int rc;

	use_running_guest = true;
	rc = vm_exec(line, opt);

	if (opt->detached_cmd == 'X')
		keep_collect(opt->detached_name);
	free(args);
	free(line);
	return rc;
}

/* ---- ktap --vm-setup / --vm-start / --vm-stop / --vm-status ---- */

static int cmd_setup(const struct options *opt)
{
	char *abi = run_provision(opt, true);
	int rc;

	if (!abi)
		return 1;
	rc = ensure_initramfs(opt, abi, true) < 0;
	if (!rc)
		printf("ktap: guest kernel %s in %s/%s; modules build against "
		       "/usr/src/linux-headers-%s\n", abi, paths()->vm, abi, abi);
	free(abi);
	return rc;
}

/* ktap --kernel list: guest/provision --list prints what is provisioned
 * and what the archive offers */
static int cmd_list(const struct options *opt)
{
	char *script = data_file(opt, "guest/provision");
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		execl("/bin/bash", "bash", script, "--list", (char *)NULL);
		fprintf(stderr, "ktap: cannot run %s: %s\n", script, strerror(errno));
		_exit(127);
	}
	free(script);
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return 1;
	return WEXITSTATUS(status);
}

static int cmd_start(const struct options *opt)
{
	struct guest g;
	struct conn c;
	int lock = session_open(opt, &g, &c);

	if (lock < 0)
		return 1;
	conn_close(&c);
	unlock_guest(lock);
	printf("ktap: guest running: qemu pid %d, kernel %s, console %s\n",
	       (int)g.pid, g.abi, paths()->console);
	return 0;
}

/* the detached scripts the running guest g runs (ktap-run -R), comma-
 * separated, NULL if none or it cannot tell; with the guest lock held */
static char *detached_in(const struct guest *g)
{
	struct run_state r = { .status = -1, .stuck_cpu = -1, .g = *g };
	struct strbuf names = { 0 };
	char *text = NULL, *line, *save;
	size_t len = 0;

	r.out = open_memstream(&text, &len);
	slot_fd = take_slot();
	if (slot_fd >= 0 && conn_open(&r.c) == 0 && conn_ping(&r.c, PING_TIMEOUT, g->pid) == 0)
		run_line(&r, "exec ktap-run -R 2>/dev/null");
	conn_close(&r.c);
	unlock_guest(-1);	/* the slot */
	fclose(r.out);
	/* the first line is the header; each row starts with the name */
	for (line = strtok_r(text, "\n", &save); line && (line = strtok_r(NULL, "\n", &save));) {
		sb_puts(&names, names.buf ? ", " : "");
		sb_printf(&names, "%.*s", (int)strcspn(line, " "), line);
	}
	free(text);
	return names.buf;
}

static int cmd_stop(const struct options *opt)
{
	struct guest g;
	char *names = NULL;
	int lock;

	lock = lock_guest();
	if (guest_read(&g) && !opt->force && (names = detached_in(&g))) {
		vm_err("the guest runs detached scripts (%s): ktap --vm --stop NAME "
		       "each, or ktap --vm-stop --force", names);
		free(names);
		unlock_guest(lock);
		return 1;
	}
	if (!guest_read(&g)) {
		printf("ktap: the guest is not running\n");
	} else {
		guest_kill(g.pid);
		printf("ktap: guest stopped (qemu pid %d)\n", (int)g.pid);
	}
	unlock_guest(lock);
	return 0;
}

static long qemu_rss_mb(pid_t pid)
{
	char path[64], line[256];
	long kb = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "r")))
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb / 1024;
}

static int cmd_status(void)
{
	char *abi = provisioned_abi();
	struct guest g;
	int lock;

	if (abi)
		printf("kernel:  %s (%s/%s)\n", abi, paths()->vm, abi);
	else
		printf("kernel:  not provisioned (ktap --vm-setup)\n");
	free(abi);
	if (!guest_read(&g)) {
		printf("guest:   not running\n");
		return 0;
	}
	printf("guest:   running, qemu pid %d, kernel %s, up %ld s, RSS %ld MiB\n",
	       (int)g.pid, g.abi, (long)(time(NULL) - g.booted), qemu_rss_mb(g.pid));
	printf("console: %s\n", paths()->console);
	printf("panic_on_warn: %s\n", guest_panics_on_warn(&g) ? "on" : "off");
	lock = open(paths()->lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (lock >= 0 && flock(lock, LOCK_SH | LOCK_NB) == 0 &&
	    (slot_fd = take_slot()) >= 0) {
		struct conn c;
		double t0 = now_seconds();

		if (conn_open(&c) == 0 && conn_ping(&c, PING_TIMEOUT, g.pid) == 0)
			printf("agent:   answers in %.1f ms\n", (now_seconds() - t0) * 1e3);
		else
			printf("agent:   does not answer\n");
		conn_close(&c);
	} else {
		printf("agent:   busy (the guest is being booted or stopped)\n");
	}
	unlock_guest(lock);
	return 0;
}

int vm_command(const char *what, const struct options *opt)
{
	vm_verbose = opt->verbose;
	if (!strcmp(what, "setup"))
		return cmd_setup(opt);
	if (!strcmp(what, "start"))
		return cmd_start(opt);
	if (!strcmp(what, "stop"))
		return cmd_stop(opt);
	if (!strcmp(what, "status"))
		return cmd_status();
	if (!strcmp(what, "list"))
		return cmd_list(opt);
	vm_err("unknown guest command '%s' (setup, start, stop, status)", what);
	return 1;
}
