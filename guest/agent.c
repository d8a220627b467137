/* ktap-agent - serves commands from the host in the ktap guest.
 *
 * The protocol is section 4 of doc/internals.md, and frames.h, which
 * translator/vm.c includes too. One virtio-serial port,
 * ktap.ctl, which qemu connects to a unix socket on the host. Frames both
 * ways: 1 byte type, 4 bytes length (little endian), payload.
 *   host -> guest: P ping (nonce, echoed as P), R run (a shell command
 *                  line, /bin/sh -c in /mnt/host, in its own process
 *                  group), S signal (number in ASCII, sent to that group)
 *   guest -> host: O stdout, E stderr, D the command's fd 3 (ktap-run
 *                  -J's records), X exit status (ASCII; 128+N when
 *                  killed by signal N), P pong
 *
 * KTAP_AGENT_PORTS ports (frames.h), each a session of its own: one host
 * client and one command at a time per port, so that as many ktap
 * commands as there are ports run at once (a script, ktap -A, --stop,
 * --vm-exec). When a port's client goes away (the port reports HUP) or a
 * new client pings while its command runs, that command is orphaned: it
 * gets SIGHUP (ktap-run then stops its script and unloads the module), its
 * output is discarded, and a command asked for meanwhile on that port
 * waits for it. A detached loader (ktap-run -F) is in a session of its
 * own (setsid), no port's command: it outlives its host client.
 *
 * Static binary, started by the guest's /init. Prints KTAP-AGENT-READY on
 * its stdout (the console) once it serves the port.
 * Build: gcc -static -O2 -Wall -Wextra -o ktap-agent agent.c
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "frames.h"

#define MAX_FRAME	(1u << 20)	/* larger host frames are garbage */
#define OUT_HIGH	(256u << 10)	/* stop reading the command above this */
#define CHUNK		32768
#define ORPHAN_GRACE	40.0		/* s before SIGKILL; ktap-run gives up at 30 */
#define EOF_GRACE	2.0		/* s to wait for output after the exit */

static void __attribute__((format(printf, 1, 2))) logmsg(const char *fmt, ...)
{
	va_list ap;

	fputs("ktap-agent: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		logmsg("out of memory");
		exit(1);
	}
	return p;
}

/* ---- byte buffers ---- */

struct buf {
	char *p;
	size_t len, cap;
};

static void buf_add(struct buf *b, const void *data, size_t len)
{
	if (b->len + len > b->cap) {
		b->cap = b->len + len > 2 * b->cap ? b->len + len : 2 * b->cap;
		b->p = xrealloc(b->p, b->cap);
	}
	if (len)
		memcpy(b->p + b->len, data, len);
	b->len += len;
}

static void buf_drop(struct buf *b, size_t n)
{
	memmove(b->p, b->p + n, b->len - n);
	b->len -= n;
}

/* ---- sessions: one per port ---- */

struct command {
	pid_t pid;		/* also its process group; 0: none */
	int out, err, rec;	/* pipes: stdout, stderr, fd 3; -1 once at EOF */
	bool exited;
	int status;
	double exit_time;
	bool orphan;		/* its host left: no output, no X */
	double kill_time;	/* orphan: SIGKILL then */
};

struct session {
	int slot;
	int port_fd;
	bool connected;		/* a host client is on the port's socket */
	struct buf outq;	/* frames to the host */
	struct buf inq;		/* bytes from the host */
	struct command cmd;
	char *waiting;		/* a command line waiting for an orphan */
};

static struct session sessions[KTAP_AGENT_PORTS];

static void send_frame(struct session *s, char type, const void *data, uint32_t len)
{
	unsigned char h[KTAP_FRAME_HDR_LEN];

	ktap_frame_header(h, type, len);
	if (!s->connected)
		return;
	buf_add(&s->outq, h, sizeof(h));
	buf_add(&s->outq, data, len);
}

static void send_str(struct session *s, char type, const char *s_)
{
	send_frame(s, type, s_, strlen(s_));
}

/* the virtio port called name's /dev node, or "" */
static void find_port(const char *want, char *dev, size_t size)
{
	DIR *d = opendir("/sys/class/virtio-ports");
	struct dirent *de;

	dev[0] = '\0';
	while (d && (de = readdir(d))) {
		char path[300], name[64] = "";
		FILE *f;

		snprintf(path, sizeof(path), "/sys/class/virtio-ports/%s/name", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(name, sizeof(name), f))
			name[strcspn(name, "\n")] = '\0';
		fclose(f);
		if (!strcmp(name, want)) {
			snprintf(dev, size, "/dev/%s", de->d_name);
			break;
		}
	}
	if (d)
		closedir(d);
}

/* open the port of every slot, waiting for the first; a guest booted
 * with fewer ports (none past slot 0) serves what it has */
static int open_ports(void)
{
	char name[64], dev[300];
	int opened = 0;

	for (int tries = 0; tries < 300; tries++) {
		ktap_agent_port_name(name, sizeof(name), 0);
		find_port(name, dev, sizeof(dev));
		if (dev[0])
			break;
		usleep(100000);
	}
	for (int k = 0; k < KTAP_AGENT_PORTS; k++) {
		struct session *s = &sessions[k];

		s->slot = k;
		s->port_fd = -1;
		s->cmd = (struct command){ .out = -1, .err = -1, .rec = -1 };
		ktap_agent_port_name(name, sizeof(name), k);
		find_port(name, dev, sizeof(dev));
		if (!dev[0])
			continue;
		s->port_fd = open(dev, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (s->port_fd < 0)
			continue;
		/* SIGIO when the host connects or leaves, or sends data */
		fcntl(s->port_fd, F_SETOWN, getpid());
		fcntl(s->port_fd, F_SETFL, fcntl(s->port_fd, F_GETFL) | O_ASYNC);
		opened++;
	}
	if (!opened)
		errno = ENODEV;
	return opened ? 0 : -1;
}

/* the port says HUP while no host client is connected */
static bool port_hup(struct session *s)
{
	struct pollfd p = { .fd = s->port_fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLHUP);
}

static void port_write(struct session *s)
{
	while (s->outq.len) {
		ssize_t n = write(s->port_fd, s->outq.p, s->outq.len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;		/* EAGAIN: poll for POLLOUT */
		buf_drop(&s->outq, n);
	}
}

/* ---- the command ---- */

static void start_command(struct session *s, const char *line)
{
	int out[2], err[2], rec[2];
	pid_t pid;

	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0 ||
	    pipe2(rec, O_CLOEXEC) < 0) {
		send_str(s, KTAP_FRAME_STDERR, "ktap-agent: pipe failed\n");
		send_str(s, KTAP_FRAME_EXIT, "127");
		return;
	}
	pid = fork();
	if (pid == 0) {
		sigset_t none;
		int null = open("/dev/null", O_RDONLY);

		setpgid(0, 0);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		dup2(null, 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		dup2(rec[1], KTAP_AGENT_RECORDS_FD);
		if (chdir(KTAP_AGENT_SHARE) < 0 && chdir("/") < 0)
			_exit(127);
		execl("/bin/sh", "sh", "-c", line, (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	close(rec[1]);
	if (pid < 0) {
		close(out[0]);
		close(err[0]);
		close(rec[0]);
		send_str(s, KTAP_FRAME_STDERR, "ktap-agent: fork failed\n");
		send_str(s, KTAP_FRAME_EXIT, "127");
		return;
	}
	setpgid(pid, pid);
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	fcntl(err[0], F_SETFL, O_NONBLOCK);
	fcntl(rec[0], F_SETFL, O_NONBLOCK);
	s->cmd = (struct command){ .pid = pid, .out = out[0], .err = err[0], .rec = rec[0] };
}

static void orphan_command(struct session *s, const char *why)
{
	if (!s->cmd.pid || s->cmd.orphan)
		return;
	logmsg("port %d: %s: hanging up the running command", s->slot, why);
	s->cmd.orphan = true;
	s->cmd.kill_time = now() + ORPHAN_GRACE;
	kill(-s->cmd.pid, SIGHUP);
}

static void close_pipe(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* forward what the command wrote; false at EOF */
static bool pipe_read(struct session *s, int *fd, char type)
{
	char data[CHUNK];
	ssize_t n = read(*fd, data, sizeof(data));

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return true;
	if (n <= 0) {
		close_pipe(fd);
		return false;
	}
	if (!s->cmd.orphan)
		send_frame(s, type, data, n);
	return true;
}

/*
 * A ktap-run that was killed (SIGKILL: it could not unload) leaves its
 * module loaded, its probes disarmed when its ctl closed. The module's
 * ktap_loader parameter (runtime/uapi.h) names the loader's pid first:
 * unload the modules of the child just reaped. A detached loader
 * (ktap-run -F) is reaped here too once its parent exits: the agent is
 * the subreaper.
 */
static void reap_modules(pid_t loader)
{
	DIR *d = opendir("/sys/module");
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[320], buf[32] = "";
		FILE *f;

		if (strncmp(de->d_name, "ktap_", 5))
			continue;
		snprintf(path, sizeof(path), "/sys/module/%s/parameters/ktap_loader", de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
		if (atoi(buf) == loader &&
		    syscall(SYS_delete_module, de->d_name, O_NONBLOCK) == 0)
			logmsg("unloaded %s, left by the killed ktap-run %d", de->d_name, (int)loader);
	}
	closedir(d);
}

static void reap_children(void)
{
	int status;
	pid_t pid;

	/* a subreaper: orphaned grandchildren end up here too */
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (WIFSIGNALED(status))
			reap_modules(pid);
		for (int k = 0; k < KTAP_AGENT_PORTS; k++) {
			struct command *cmd = &sessions[k].cmd;

			if (pid == cmd->pid && !cmd->exited) {
				cmd->exited = true;
				cmd->status = status;
				cmd->exit_time = now();
			}
		}
	}
}

/* the command exited and its output is in: report, start a waiting one */
static void finish_command(struct session *s)
{
	char code[16];
	int st = s->cmd.status;

	if (!s->cmd.orphan) {
		snprintf(code, sizeof(code), "%d",
			 WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st));
		send_str(s, KTAP_FRAME_EXIT, code);
	}
	kill(-s->cmd.pid, SIGKILL);	/* leftovers of the group */
	close_pipe(&s->cmd.out);
	close_pipe(&s->cmd.err);
	close_pipe(&s->cmd.rec);
	s->cmd = (struct command){ .out = -1, .err = -1, .rec = -1 };
	if (s->waiting) {
		start_command(s, s->waiting);
		free(s->waiting);
		s->waiting = NULL;
	}
}

static void check_command(struct session *s)
{
	struct command *cmd = &s->cmd;
	double t = now();

	if (!cmd->pid)
		return;
	if (cmd->orphan && !cmd->exited && t >= cmd->kill_time) {
		logmsg("the orphaned command ignores SIGHUP: killing it");
		kill(-cmd->pid, SIGKILL);
		cmd->kill_time = t + 3600;
	}
	if (!cmd->exited)
		return;
	/* background children may hold the pipes: give them EOF_GRACE */
	if ((cmd->out < 0 && cmd->err < 0 && cmd->rec < 0) || t - cmd->exit_time >= EOF_GRACE)
		finish_command(s);
}

/* ---- frames from the host ---- */

static void on_ping(struct session *s, const char *nonce, uint32_t len)
{
	/* a host pings only when it starts a session: the old one is gone */
	orphan_command(s, "a new host session");
	send_frame(s, KTAP_FRAME_PING, nonce, len);
}

#define ALIVE_MAX_CPUS 64

/* each CPU's total time in /proc/stat (idle counted as it passes, also
 * on a tickless idle CPU); how many CPUs, or -1 */
static int cpu_times(unsigned long long *t)
{
	FILE *f = fopen("/proc/stat", "r");
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	while (n < ALIVE_MAX_CPUS && fgets(line, sizeof(line), f)) {
		unsigned long long v[8] = { 0 };

		if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
			continue;
		sscanf(line, "%*s %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
		       &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
		t[n++] = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
	}
	fclose(f);
	return n;
}

/*
 * The host asks whether the guest still runs while a command is silent:
 * ktap-run may be busy (unhooking thousands of probes takes a minute), or
 * a CPU may spin with interrupts off, its time standing still, where the
 * agent on another CPU would still answer. The answer says which.
 */
static void on_alive(struct session *s, const char *nonce, uint32_t len)
{
	unsigned long long a[ALIVE_MAX_CPUS], b[ALIVE_MAX_CPUS];
	struct timespec t0, t;
	int i, n = cpu_times(a), stuck = -1;
	char answer[16];

	(void)nonce;
	(void)len;
	/* waited out on this CPU: a sleep's timer may be queued on the one
	 * that stands still, and never fire */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 <
	       KTAP_ALIVE_SAMPLE_MS);
	if (n > 0 && cpu_times(b) == n)
		for (i = 0; i < n && stuck < 0; i++)
			if (b[i] == a[i])
				stuck = i;
	snprintf(answer, sizeof(answer), "%d", stuck);
	send_str(s, KTAP_FRAME_ALIVE, answer);
}

static void on_run(struct session *s, const char *line)
{
	if (!s->cmd.pid) {
		start_command(s, line);
	} else if (s->cmd.orphan) {
		free(s->waiting);
		s->waiting = strdup(line);
		send_str(s, KTAP_FRAME_STDERR, "ktap-agent: waiting for the previous command to end\n");
	} else {
		send_str(s, KTAP_FRAME_STDERR, "ktap-agent: a command is already running\n");
	}
}

static void on_signal(struct session *s, const char *num)
{
	int sig = atoi(num);

	if (sig <= 0 || sig >= NSIG)
		return;
	if (s->cmd.pid && !s->cmd.orphan)
		kill(-s->cmd.pid, sig);
}

static void handle_frames(struct session *s)
{
	struct buf *inq = &s->inq;

	while (inq->len >= KTAP_FRAME_HDR_LEN) {
		unsigned char *h = (unsigned char *)inq->p;
		uint32_t len = ktap_frame_len(h);
		char *payload;

		if (len > MAX_FRAME) {
			logmsg("bad frame from the host (type %u, %u bytes): resetting", h[0], len);
			inq->len = 0;
			return;
		}
		if (inq->len < KTAP_FRAME_HDR_LEN + len)
			return;
		payload = malloc(len + 1);
		if (!payload)
			return;
		memcpy(payload, inq->p + KTAP_FRAME_HDR_LEN, len);
		payload[len] = '\0';
		switch (h[0]) {
		case KTAP_FRAME_PING: on_ping(s, payload, len); break;
		case KTAP_FRAME_ALIVE: on_alive(s, payload, len); break;
		case KTAP_FRAME_RUN: on_run(s, payload); break;
		case KTAP_FRAME_SIGNAL: on_signal(s, payload); break;
		default: logmsg("unknown frame type %u from the host", h[0]);
		}
		free(payload);
		buf_drop(inq, KTAP_FRAME_HDR_LEN + len);
	}
}

static void port_read(struct session *s)
{
	char data[CHUNK];
	ssize_t n = read(s->port_fd, data, sizeof(data));

	if (n > 0) {
		buf_add(&s->inq, data, n);
		handle_frames(s);
	}
	/* 0: the host left; the HUP check at the top of the loop sees it */
}

/* ---- main loop ---- */

static volatile sig_atomic_t got_signal;

static void note_signal(int sig)
{
	(void)sig;
	got_signal = 1;
}

static void set_connected(struct session *s, bool now_connected)
{
	if (s->connected && !now_connected) {
		s->outq.len = 0;
		s->inq.len = 0;
		orphan_command(s, "the host left");
	}
	s->connected = now_connected;
}

#define SESSION_POLLS 4

/* this session's SESSION_POLLS poll entries; may it sleep without a timeout? */
static bool session_poll(struct session *s, struct pollfd *p)
{
	struct command *cmd = &s->cmd;
	bool room = s->outq.len < OUT_HIGH || cmd->orphan;

	if (s->port_fd >= 0)
		set_connected(s, !port_hup(s));
	p[0] = (struct pollfd){ .fd = s->connected ? s->port_fd : -1,
		.events = POLLIN | (s->outq.len ? POLLOUT : 0) };
	p[1] = (struct pollfd){ .fd = room ? cmd->out : -1, .events = POLLIN };
	p[2] = (struct pollfd){ .fd = room ? cmd->err : -1, .events = POLLIN };
	p[3] = (struct pollfd){ .fd = room ? cmd->rec : -1, .events = POLLIN };
	/* connected and idle, or not connected and nothing to time: sleep
	 * until something happens (SIGIO reports a change of the host
	 * connection) */
	return !cmd->pid || (!cmd->exited && !cmd->orphan && s->connected);
}

static void session_serve(struct session *s, const struct pollfd *p)
{
	if (p[0].revents & POLLIN)
		port_read(s);
	if (p[1].revents)
		pipe_read(s, &s->cmd.out, KTAP_FRAME_STDOUT);
	if (p[2].revents)
		pipe_read(s, &s->cmd.err, KTAP_FRAME_STDERR);
	if (p[3].revents)
		pipe_read(s, &s->cmd.rec, KTAP_FRAME_RECORDS);
	check_command(s);
	if (s->connected)
		port_write(s);
}

static void serve(const sigset_t *wait_mask)
{
	for (;;) {
		struct pollfd p[SESSION_POLLS * KTAP_AGENT_PORTS];
		struct timespec ts = { 0, 200000000 }, *tmo = NULL;
		bool any_disconnected = false;

		for (int k = 0; k < KTAP_AGENT_PORTS; k++) {
			if (!session_poll(&sessions[k], &p[SESSION_POLLS * k]))
				tmo = &ts;
			any_disconnected |= sessions[k].port_fd >= 0 && !sessions[k].connected;
		}
		/* a port without a client reports no connect but by SIGIO,
		 * which a virtio port sends for HUP changes only on some
		 * kernels: look again now and then */
		if (any_disconnected)
			tmo = &ts;
		got_signal = 0;
		if (ppoll(p, SESSION_POLLS * KTAP_AGENT_PORTS, tmo, wait_mask) < 0 && errno != EINTR) {
			logmsg("poll: %s", strerror(errno));
			sleep(1);
		}
		reap_children();
		for (int k = 0; k < KTAP_AGENT_PORTS; k++)
			session_serve(&sessions[k], &p[SESSION_POLLS * k]);
	}
}

int main(void)
{
	struct sigaction sa = { .sa_handler = note_signal };
	sigset_t block, wait_mask;

	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGIO, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigaddset(&block, SIGIO);
	sigprocmask(SIG_BLOCK, &block, &wait_mask);
	prctl(PR_SET_CHILD_SUBREAPER, 1);

	if (open_ports() < 0) {
		logmsg("no virtio port named %s: %s", KTAP_AGENT_PORT "0", strerror(errno));
		return 1;
	}
	printf(KTAP_AGENT_READY "\n");
	fflush(stdout);
	serve(&wait_mask);
	return 0;
}
