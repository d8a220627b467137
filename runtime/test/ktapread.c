// SPDX-License-Identifier: GPL-2.0
/*
 * ktapread - a minimal, test-only driver for a ktap module's debugfs files
 * (the real one is loader/ktap-run). Built static on the host, run in the
 * guest.
 *
 *   ktapread run DIR [-c CMD] [-t MS] [-n] [-o OUT]
 *	write "start" to DIR/ctl; run CMD under /bin/sh -c; stream the
 *	records of DIR/cpu* (unless -n: read nothing until "done"); write
 *	"stop" when CMD exits, after MS milliseconds, or on "exit"; wait for
 *	"done"; drain; write the output in seq order to OUT (or stdout).
 *	Checks every record (magic, length, seq increasing per CPU, no seq
 *	twice) and that records + dropped == highest seq. Prints a summary
 *	and the control messages on stderr. Exit status: 0, 1 after an
 *	"error" message, 2 on a failed check or start.
 *   ktapread ctl DIR	print the queued control messages, do not block
 *   ktapread drain DIR	print the records ready in DIR/cpu*, in seq order
 *   ktapread wait DIR MS	drain, then block in poll() (at most MS) until
 *			a cpu file is readable; print how long that took
 *   ktapread openloop N PREFIX	open(PREFIX<i>) for i in 0..N-1
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../uapi.h"

#define MAX_CPUS 64
#define READ_SIZE (1 << 20)

struct rec {
	uint64_t seq;
	uint32_t len;
	char *data;
};

static struct rec *recs;
static size_t nrecs, caprecs, nbytes;
static uint64_t last_seq[MAX_CPUS];
static int bad;

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Parse the records of one read() of cpu file @cpu. */
static void take_records(int cpu, const char *buf, ssize_t n)
{
	ssize_t off = 0;

	while (off < n) {
		struct ktap_rec_hdr h;

		if (n - off < (ssize_t)sizeof(h)) {
			fprintf(stderr, "ktapread: cpu%d: partial header\n", cpu);
			bad = 1;
			return;
		}
		memcpy(&h, buf + off, sizeof(h));
		if (h.magic != KTAP_REC_MAGIC || h.len > n - off - sizeof(h)) {
			fprintf(stderr, "ktapread: cpu%d: bad record (magic %#x len %u)\n",
				cpu, h.magic, h.len);
			bad = 1;
			return;
		}
		if (h.seq <= last_seq[cpu]) {
			fprintf(stderr, "ktapread: cpu%d: seq %llu after %llu\n", cpu,
				(unsigned long long)h.seq,
				(unsigned long long)last_seq[cpu]);
			bad = 1;
		}
		last_seq[cpu] = h.seq;
		if (nrecs == caprecs) {
			caprecs = caprecs ? 2 * caprecs : 4096;
			recs = realloc(recs, caprecs * sizeof(*recs));
			if (!recs)
				die("realloc");
		}
		recs[nrecs].seq = h.seq;
		recs[nrecs].len = h.len;
		recs[nrecs].data = malloc(h.len ? h.len : 1);
		if (!recs[nrecs].data)
			die("malloc");
		memcpy(recs[nrecs].data, buf + off + sizeof(h), h.len);
		nrecs++;
		nbytes += h.len;
		off += sizeof(h) + h.len;
	}
}

/* Read cpu file @cpu once; return bytes read. */
static ssize_t read_cpu(int cpu, int fd, char *buf)
{
	ssize_t n = read(fd, buf, READ_SIZE);

	if (n < 0) {
		fprintf(stderr, "ktapread: read cpu%d: %s\n", cpu, strerror(errno));
		bad = 1;
		return 0;
	}
	take_records(cpu, buf, n);
	return n;
}

static int cmp_seq(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int open_cpus(const char *dir, int *fds)
{
	char path[512];
	int n = 0;

	for (;;) {
		snprintf(path, sizeof(path), "%s/" KTAP_RELAY_FILE "%d", dir, n);
		fds[n] = open(path, O_RDONLY | O_NONBLOCK);
		if (fds[n] < 0)
			break;
		if (++n == MAX_CPUS)
			break;
	}
	if (!n)
		die("open cpu0");
	return n;
}

struct ctl_state {
	int fd;
	int stopped;
	int done;
	int error;
	unsigned long long dropped, skipped;
	char line[1024];
	size_t len;
};

static void send_stop(struct ctl_state *s)
{
	if (s->stopped)
		return;
	s->stopped = 1;
	if (write(s->fd, KTAP_CMD_STOP, strlen(KTAP_CMD_STOP)) != (ssize_t)strlen(KTAP_CMD_STOP))
		die("write stop");
}

static void ctl_line(struct ctl_state *s, char *line)
{
	fprintf(stderr, "ctl: %s\n", line);
	if (!strcmp(line, KTAP_MSG_EXIT))
		send_stop(s);
	else if (!strncmp(line, KTAP_MSG_ERROR " ", strlen(KTAP_MSG_ERROR " ")))
		s->error = 1;
	else if (sscanf(line, KTAP_MSG_DONE " %llu %llu", &s->dropped, &s->skipped) == 2)
		s->done = 1;
}

/* Read what ctl has; return 0 at EAGAIN. */
static void read_ctl(struct ctl_state *s)
{
	char buf[4096];
	ssize_t n = read(s->fd, buf, sizeof(buf));
	ssize_t i;

	if (n < 0) {
		if (errno != EAGAIN)
			die("read ctl");
		return;
	}
	for (i = 0; i < n; i++) {
		if (buf[i] == '\n') {
			s->line[s->len] = '\0';
			ctl_line(s, s->line);
			s->len = 0;
		} else if (s->len < sizeof(s->line) - 1) {
			s->line[s->len++] = buf[i];
		}
	}
}

static int cmd_run(int argc, char **argv)
{
	const char *dir = argv[2], *cmd = NULL, *out = NULL;
	struct ctl_state s = { 0 };
	struct pollfd pfd[MAX_CPUS + 1];
	int fds[MAX_CPUS], ncpu, i, opt, noread = 0;
	double t_stop = 0, t0;
	pid_t child = 0;
	char *buf = malloc(READ_SIZE), path[512];
	FILE *fo = stdout;
	uint64_t maxseq = 0;

	optind = 3;
	while ((opt = getopt(argc, argv, "c:t:no:")) != -1) {
		switch (opt) {
		case 'c': cmd = optarg; break;
		case 't': t_stop = atof(optarg); break;
		case 'n': noread = 1; break;
		case 'o': out = optarg; break;
		default: return 2;
		}
	}
	snprintf(path, sizeof(path), "%s/" KTAP_CTL_FILE, dir);
	s.fd = open(path, O_RDWR | O_NONBLOCK);
	if (s.fd < 0)
		die(path);
	ncpu = open_cpus(dir, fds);

	t0 = now_ms();
	if (write(s.fd, KTAP_CMD_START, strlen(KTAP_CMD_START)) != (ssize_t)strlen(KTAP_CMD_START)) {
		fprintf(stderr, "ktapread: start: %s\n", strerror(errno));
		read_ctl(&s);
		return 2;
	}
	if (cmd) {
		child = fork();
		if (child < 0)
			die("fork");
		if (!child) {
			execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
			_exit(127);
		}
	}
	while (!s.done) {
		int np = 0;

		pfd[np++] = (struct pollfd){ .fd = s.fd, .events = POLLIN };
		for (i = 0; i < ncpu && !noread; i++)
			pfd[np++] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
		if (poll(pfd, np, 50) < 0 && errno != EINTR)
			die("poll");
		if (pfd[0].revents & POLLIN)
			read_ctl(&s);
		for (i = 1; i < np; i++)
			if (pfd[i].revents & POLLIN)
				read_cpu(i - 1, fds[i - 1], buf);
		if (child && waitpid(child, NULL, WNOHANG) == child) {
			child = 0;
			send_stop(&s);
		}
		if (t_stop && now_ms() - t0 >= t_stop)
			send_stop(&s);
	}
	/* drain: after "done" every record is in relay */
	for (i = 0; i < ncpu; i++)
		while (read_cpu(i, fds[i], buf) > 0)
			;
	qsort(recs, nrecs, sizeof(*recs), cmp_seq);
	if (out) {
		fo = fopen(out, "w");
		if (!fo)
			die(out);
	}
	for (size_t k = 0; k < nrecs; k++) {
		if (k && recs[k].seq == recs[k - 1].seq) {
			fprintf(stderr, "ktapread: seq %llu twice\n",
				(unsigned long long)recs[k].seq);
			bad = 1;
		}
		fwrite(recs[k].data, 1, recs[k].len, fo);
		if (recs[k].seq > maxseq)
			maxseq = recs[k].seq;
	}
	fflush(fo);
	/* Records dropped at the end leave no trace in maxseq: only check <=. */
	if (nrecs + s.dropped < maxseq) {
		fprintf(stderr, "ktapread: %llu records missing: %zu read + %llu dropped < seq %llu\n",
			(unsigned long long)(maxseq - nrecs - s.dropped), nrecs,
			s.dropped, (unsigned long long)maxseq);
		bad = 1;
	}
	fprintf(stderr, "ktapread: records=%zu bytes=%zu dropped=%llu skipped=%llu maxseq=%llu cpus=%d ms=%.0f%s\n",
		nrecs, nbytes, s.dropped, s.skipped, (unsigned long long)maxseq,
		ncpu, now_ms() - t0, bad ? " CHECK-FAILED" : "");
	return bad ? 2 : s.error;
}

static int cmd_ctl(const char *dir)
{
	struct ctl_state s = { 0 };
	char path[512];

	snprintf(path, sizeof(path), "%s/" KTAP_CTL_FILE, dir);
	s.fd = open(path, O_RDONLY | O_NONBLOCK);
	if (s.fd < 0)
		die(path);
	s.stopped = 1;	/* print only */
	read_ctl(&s);
	return 0;
}

static int cmd_drain(const char *dir)
{
	int fds[MAX_CPUS], ncpu = open_cpus(dir, fds), i;
	char *buf = malloc(READ_SIZE);
	size_t k;

	for (i = 0; i < ncpu; i++)
		while (read_cpu(i, fds[i], buf) > 0)
			;
	qsort(recs, nrecs, sizeof(*recs), cmp_seq);
	for (k = 0; k < nrecs; k++)
		fwrite(recs[k].data, 1, recs[k].len, stdout);
	return bad ? 2 : 0;
}

static int cmd_wait(const char *dir, int ms)
{
	int fds[MAX_CPUS], ncpu = open_cpus(dir, fds), i, n;
	struct pollfd pfd[MAX_CPUS];
	char *buf = malloc(READ_SIZE);
	double t0;

	for (i = 0; i < ncpu; i++) {
		while (read_cpu(i, fds[i], buf) > 0)
			;
		pfd[i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
	}
	t0 = now_ms();
	n = poll(pfd, ncpu, ms);
	if (n <= 0) {
		printf("wait: nothing readable after %d ms\n", ms);
		return 1;
	}
	printf("wait: readable after %.0f ms\n", now_ms() - t0);
	return 0;
}

static int cmd_openloop(long n, const char *prefix)
{
	char path[512];
	long i;

	for (i = 0; i < n; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s%ld", prefix, i);
		fd = open(path, O_RDONLY);
		if (fd >= 0)
			close(fd);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "run"))
		return cmd_run(argc, argv);
	if (argc == 3 && !strcmp(argv[1], "ctl"))
		return cmd_ctl(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "drain"))
		return cmd_drain(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "wait"))
		return cmd_wait(argv[2], atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "openloop"))
		return cmd_openloop(atol(argv[2]), argv[3]);
	fprintf(stderr, "usage: ktapread run DIR [-c CMD] [-t MS] [-n] [-o OUT]\n"
			"       ktapread ctl DIR\n"
			"       ktapread drain DIR\n"
			"       ktapread wait DIR MS\n"
			"       ktapread openloop N PREFIX\n");
	return 2;
}
