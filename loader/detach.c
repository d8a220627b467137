/* detach.c - ktap-run's long runs: flight recorder, attach, stop, list,
 * output rotation. Included by ktap-run.c (one static binary), whose
 * run, output and merger it drives.
 *
 * ktap-run -F forks before it loads the module; the child calls setsid()
 * and becomes the detached loader: it loads and starts the script, then
 * registers it (KTAP_DETACH_DIR/<name>.info and .sock, runtime/uapi.h),
 * tells the parent, which prints the module name and exits, and serves
 * clients until the script ends:
 *
 *   ring (no -o): the module runs as a flight recorder (ktap_flight=1,
 *      its relay buffer keeps the last records); the loader reads it only
 *      while a client is attached or stopping, so a client sees what the
 *      ring holds first, then the live output.
 *   file (-o FILE, -S MB[,N]): the loader reads all the time and writes
 *      FILE (FILE.0, FILE.1 ... with -S); an attached client gets a copy
 *      of what is written from then on.
 *
 * A client (ktap-run -A NAME, -X NAME) connects to the socket and sends
 * one request word with its own stdout and stderr (SCM_RIGHTS): the
 * loader writes the output and its messages to them directly, and sends
 * one byte, the exit status, when it is done with the client. One client
 * at a time is attached; a second is told who is. Stopping unregisters
 * the script first, so that a second stop finds nothing to stop.
 */
#include <sys/socket.h>
#include <sys/un.h>

/* ---- output rotation: -S MB[,N] ---- */

/* -S MB[,N]: a new file every MB megabytes, the last N kept (0: all) */
static void parse_rotation(struct options *o, const char *arg)
{
	char *end;

	errno = 0;
	o->rotate_mb = strtol(arg, &end, 10);
	o->rotate_keep = 0;
	if (!errno && end != arg && *end == ',' && end[1]) {
		const char *n = end + 1;

		o->rotate_keep = strtol(n, &end, 10);
		if (end == n || o->rotate_keep < 1 || o->rotate_keep > 100000)
			errno = EINVAL;
	}
	if (errno || end == arg || *end || o->rotate_mb < 1 || o->rotate_mb > 1000000) {
		err("-S wants MB[,N]: megabytes per file (1-1000000), then how many "
		    "files to keep (1-100000), not '%s'", arg);
		exit(1);
	}
}

/* FILE.<index> */
static char *rotate_name(const struct output *o, long index)
{
	char *name = xmalloc(strlen(o->name) + 24);

	sprintf(name, "%s.%ld", o->name, index);
	return name;
}

static int rotate_create(struct output *o)
{
	char *name = rotate_name(o, o->index);

	o->fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (o->fd < 0)
		err("cannot create %s: %s", name, strerror(errno));
	else
		info("output to %s", name);
	free(name);
	o->written = 0;
	return o->fd < 0 ? -1 : 0;
}

/* -o FILE with -S: the first file is FILE.0 */
static int rotate_open(struct output *o, const char *file)
{
	o->name = file;
	o->index = 0;
	return rotate_create(o);
}

/*
 * Before a record of len bytes goes into the buffer: if it would take the
 * file past the limit, everything before it is written to this file and
 * the record starts the next one (a file holds whole records; one larger
 * than the limit gets a file of its own). The file N back goes.
 */
static void out_rotate(struct output *o, size_t len)
{
	if (o->fd < 0 || o->written + (long long)(o->len + len) <= o->limit ||
	    o->written + (long long)o->len == 0)
		return;
	out_flush(o);
	if (close(o->fd) < 0)
		err("cannot write %s.%ld: %s", o->name, o->index, strerror(errno));
	o->index++;
	if (o->keep && o->index >= o->keep) {
		char *old = rotate_name(o, o->index - o->keep);

		unlink(old);
		free(old);
	}
	if (rotate_create(o) < 0)
		o->broken = true;
}

/* ---- a full disk ---- */

/*
 * A write to a full file system (ENOSPC, EDQUOT) loses that output, not
 * the script: the loss is said once, counted, and writing goes on when
 * there is room again (a long run must not end because a disk filled).
 * Return: true when this was such a write.
 */
static bool out_full(struct output *o, size_t len)
{
	if (errno != ENOSPC && errno != EDQUOT)
		return false;
	if (!o->full)
		err("cannot write %s: %s; the script goes on, its output is lost "
		    "until there is room", o->name, strerror(errno));
	o->full = true;
	o->lost += len;
	return true;
}

/* a write went through: say so after a full disk */
static void out_room_again(struct output *o)
{
	if (!o->full)
		return;
	o->full = false;
	err("writing %s again, after %llu bytes were lost", o->name, o->lost);
}

/* ---- the client attached or stopping ---- */

struct detached {
	int listen_fd;		/* -1 once stopping */
	int client;		/* the client's socket, -1: none */
	bool stopping;		/* the client asked to stop */
	pid_t client_pid;
	int log_fd;		/* stderr while no client has it */
	int notify;		/* pipe to the waiting parent, -1 once told */
	bool ring;		/* no -o: read only for a client */
	int cmd_fd;		/* the -c command's stdout and stderr, -1 */
	char info[300], sock[300], kept[300];
	const char *log_name;	/* the script's name: its log */
	bool ended;		/* over with nobody attached: waits for one */
	int status;		/* ... its exit status */
	time_t started;
};

static struct detached dt = { .listen_fd = -1, .client = -1, .log_fd = -1,
			      .notify = -1, .cmd_fd = -1 };

/* copy what is about to be written to the attached client's stdout */
static void out_tee(struct output *o)
{
	size_t off = 0;

	while (o->tee >= 0 && off < o->len) {
		ssize_t n = write(o->tee, o->buf + off, o->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			o->tee_broken = true;
			close(o->tee);
			o->tee = -1;
			break;
		}
		off += n;
	}
}

/* the client's status byte, and its files back */
static void client_done(struct run *r, int status)
{
	unsigned char b = status;

	if (dt.client < 0)
		return;
	out_flush(&r->out);
	if (write(dt.client, &b, 1) < 0)
		(void)0;	/* it went away first */
	close(dt.client);
	dt.client = -1;
	if (r->out.tee >= 0)
		close(r->out.tee);
	r->out.tee = -1;
	r->out.tee_broken = false;
	fflush(stderr);
	dup2(dt.log_fd, 2);
}

/* a request and the client's two files: 0, or -1 */
static int client_request(int fd, char *word, size_t size, int fds[2])
{
	char cbuf[CMSG_SPACE(2 * sizeof(int))];
	struct iovec iov = { .iov_base = word, .iov_len = size - 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct timeval tv = { .tv_sec = 2 };
	struct cmsghdr *cm;
	ssize_t n;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
	cm = CMSG_FIRSTHDR(&msg);
	if (n <= 0 || !cm || cm->cmsg_type != SCM_RIGHTS ||
	    cm->cmsg_len != CMSG_LEN(2 * sizeof(int)))
		return -1;
	memcpy(fds, CMSG_DATA(cm), 2 * sizeof(int));
	word[n] = '\0';
	return 0;
}

/* no more clients: a second stop finds nothing */
static void unregister(void)
{
	if (dt.listen_fd >= 0)
		close(dt.listen_fd);
	dt.listen_fd = -1;
	unlink(dt.sock);
	unlink(dt.info);
}

/* tell a client why not, in one line, and send it away */
static void refuse(int fd, int fds[2], const char *why)
{
	unsigned char b = 1;

	if (write(fds[1], why, strlen(why)) < 0 || write(fd, &b, 1) < 0)
		(void)0;
	close(fds[0]);
	close(fds[1]);
	close(fd);
}

/* the whole of file path to fd (a client's), if it exists */
static void copy_file(const char *path, int fd)
{
	char buf[16384];
	int in = *path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	ssize_t n;

	while (in >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(fd, buf, n) != n)
			break;
	if (in >= 0)
		close(in);
}

/* what the loader said while nobody was attached goes to the client that
 * comes, first; the log starts again */
static void log_replay(int fd)
{
	char path[320];

	if (!dt.log_name)
		return;		/* a client before the log: nothing said yet */
	snprintf(path, sizeof(path), KTAP_DETACH_DIR "/%s.log", dt.log_name);
	copy_file(path, fd);
	if (dt.log_fd >= 0 && ftruncate(dt.log_fd, 0) < 0)
		(void)0;	/* a tmpfs file: cannot fail */
}

static void take_client(struct run *r)
{
	int fd = accept4(dt.listen_fd, NULL, NULL, SOCK_CLOEXEC);
	struct ucred cred;
	socklen_t len = sizeof(cred);
	char word[32], why[200];
	int fds[2];

	if (fd < 0)
		return;
	if (client_request(fd, word, sizeof(word), fds) < 0) {
		close(fd);
		return;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		cred.pid = 0;
	if (!strcmp(word, KTAP_DETACH_STOP)) {
		if (dt.client >= 0) {
			fprintf(stderr, "ktap-run: %s is being stopped by pid %d\n",
				r->opt->name, (int)cred.pid);
			client_done(r, 0);
		}
		unregister();
		dt.stopping = true;
	} else if (strcmp(word, KTAP_DETACH_ATTACH)) {
		refuse(fd, fds, "ktap-run: unknown request\n");
		return;
	} else if (dt.client >= 0) {
		snprintf(why, sizeof(why), "ktap-run: %s is already attached (pid %d); "
			 "one attach at a time\n", r->opt->name, (int)dt.client_pid);
		refuse(fd, fds, why);
		return;
	}
	dt.client = fd;
	dt.client_pid = cred.pid;
	out_flush(&r->out);
	copy_file(dt.kept, fds[0]);
	r->out.tee = fds[0];
	fflush(stderr);
	log_replay(fds[1]);
	dup2(fds[1], 2);
	close(fds[1]);
	if (dt.stopping)
		request_stop(r, "ktap --stop");
}

/* ---- registering: the info file and the socket ---- */

static int detach_dir(void)
{
	char parent[] = KTAP_DETACH_DIR;

	*strrchr(parent, '/') = '\0';
	mkdir(parent, 0755);	/* a minimal system may have no /run */
	if (mkdir(KTAP_DETACH_DIR, 0700) < 0 && errno != EEXIST) {
		err("cannot create %s: %s", KTAP_DETACH_DIR, strerror(errno));
		return -1;
	}
	return 0;
}

static int listen_on(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -1;
	strcpy(sa.sun_path, path);
	unlink(path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 8) < 0) {
		err("cannot listen on %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static int write_info(const struct run *r)
{
	const struct options *o = r->opt;
	char tmp[320];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", dt.info);
	f = fopen(tmp, "we");
	if (!f)
		return -1;
	fprintf(f, "pid %d\nstarted %ld\ntarget %ld\noutput %s\nscript %s\n",
		(int)getpid(), (long)dt.started, o->target,
		o->out_file ? o->out_file : "ring", o->about ? o->about : o->module);
	if (dt.ended)
		fprintf(f, "ended %d\nbytes %lld\ndropped %llu\n", dt.status,
			r->out.total, r->dropped);
	if (fclose(f) < 0 || rename(tmp, dt.info) < 0)
		return -1;
	return 0;
}

static int register_script(struct run *r)
{
	const char *name = r->opt->name;

	if (!dt.started)
		dt.started = time(NULL);
	snprintf(dt.info, sizeof(dt.info), KTAP_DETACH_DIR "/%s.info", name);
	snprintf(dt.sock, sizeof(dt.sock), KTAP_DETACH_DIR "/%s.sock", name);
	if (detach_dir() < 0 || (dt.listen_fd = listen_on(dt.sock)) < 0)
		return -1;
	if (write_info(r) < 0) {
		err("cannot write %s: %s", dt.info, strerror(errno));
		unregister();
		return -1;
	}
	return 0;
}

/* the log of a detached script: its messages while no client has them */
static int open_log(const char *name)
{
	char path[320];

	snprintf(path, sizeof(path), KTAP_DETACH_DIR "/%s.log", name);
	dt.log_name = name;
	/* O_APPEND: log_replay() truncates it under the loader's stderr */
	return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
}

/* started: the parent prints the name and exits; we let go of the
 * terminal */
static void tell_parent(struct run *r)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	dt.log_fd = open_log(r->opt->name);
	if (dt.log_fd < 0)
		dt.log_fd = null;
	fflush(stdout);
	fflush(stderr);
	dup2(null, 0);
	dup2(null, 1);
	dup2(dt.log_fd, 2);
	if (write(dt.notify, "ok", 2) < 0)
		(void)0;
	close(dt.notify);
	dt.notify = -1;
}

/* ---- the detached loader ---- */

/* -F: the checks the parent can still report; also refuses what only
 * makes sense with -o */
static int detach_check(const struct options *o, struct output *out)
{
	out->tee = -1;
	if (o->rotate_mb && !o->out_file) {
		err("-S needs -o FILE");
		return -1;
	}
	out->limit = o->rotate_mb << 20;
	out->keep = o->rotate_keep;
	return 0;
}

/* -F: fork; the parent waits for "started" and prints the module name */
static void detach_fork(struct run *r)
{
	int p[2];
	char buf[4];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0 || (pid = fork()) < 0) {
		err("cannot detach: %s", strerror(errno));
		exit(1);
	}
	if (pid == 0) {
		close(p[0]);
		setsid();
		dt.notify = p[1];
		dt.ring = !r->opt->out_file;
		if (dt.ring)
			r->out.fd = -1;	/* output only to a client */
		return;
	}
	close(p[1]);
	if (r->out.fd > 2)
		close(r->out.fd);
	if (read(p[0], buf, 2) != 2) {
		/* the loader said why on our stderr */
		waitpid(pid, NULL, 0);
		exit(1);
	}
	printf("%s\n", r->opt->name);
	exit(0);
}

static bool detach_reading(const struct run *r)
{
	return !dt.ring || dt.client >= 0 || r->state != RUNNING;
}

/*
 * The script is ending (exit(), the -c command's end, -T) with nobody
 * attached and no -o: what the ring still holds and the end probes' output
 * go to KTAP_DETACH_DIR/<name>.out, which the next -A or --stop gets
 * (detach_collect()); without it they would be lost with the module.
 */
static void keep_if_alone(struct run *r)
{
	if (!dt.ring || dt.client >= 0 || r->state == RUNNING || r->out.fd >= 0)
		return;
	snprintf(dt.kept, sizeof(dt.kept), KTAP_DETACH_DIR "/%s.out", r->opt->name);
	r->out.name = dt.kept;
	r->out.fd = open(dt.kept, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (r->out.fd < 0) {
		err("cannot create %s: %s", dt.kept, strerror(errno));
		dt.kept[0] = '\0';
	}
}

/* -F -c: the command's stdout and stderr, a pipe whose read end the
 * loader forwards to its own stderr (the log, or an attached client's);
 * a terminal or an agent session that went away must not end it with
 * SIGPIPE. Returns the write end for the command, or -1. */
static int detach_command_pipe(void)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0) {
		err("pipe: %s", strerror(errno));
		return -1;
	}
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	dt.cmd_fd = p[0];
	return p[1];
}

/* what the command wrote, to our stderr; false at its end */
static bool command_forward(void)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(dt.cmd_fd, buf, sizeof(buf))) > 0)
		if (write(2, buf, n) < 0)
			(void)0;	/* the client went: its loss */
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		close(dt.cmd_fd);
		dt.cmd_fd = -1;
		return false;
	}
	return true;
}

/* one pass of the detached loop; false to leave it */
static bool detach_pass(struct run *r, int sfd, struct pollfd *pfd)
{
	bool reading = detach_reading(r);
	int n = 0;

	pfd[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	pfd[n++] = (struct pollfd){ .fd = r->ch.ctl, .events = POLLIN };
	pfd[n++] = (struct pollfd){ .fd = dt.listen_fd, .events = POLLIN };
	pfd[n++] = (struct pollfd){ .fd = dt.client, .events = POLLIN };
	pfd[n++] = (struct pollfd){ .fd = dt.cmd_fd, .events = POLLIN };
	if (poll(pfd, n, reading ? POLL_MS : 200) < 0 && errno != EINTR)
		return false;
	if (pfd[4].revents)
		command_forward();
	if (pfd[0].revents)
		on_signal(r, sfd);
	if (pfd[1].revents)
		ctl_read(r);
	if (pfd[2].revents)
		take_client(r);
	/* an attached client that left (Ctrl-C, SIGTERM): detached again */
	if (dt.client >= 0 && !dt.stopping && (pfd[3].revents || r->out.tee_broken))
		client_done(r, 0);
	keep_if_alone(r);
	if (detach_reading(r)) {
		read_relay(&r->ch, &r->m, &r->out);
		merger_emit(&r->m, &r->out, false);
		out_flush(&r->out);
	}
	if (r->out.broken)
		request_stop(r, "the output is broken");
	if (r->deadline && now_coarse() >= r->deadline)
		request_stop(r, "the time limit (-T) is up");
	if (r->state == STOPPING && now_coarse() - r->stop_time > DONE_TIMEOUT) {
		err("no answer to stop after %.0f s, unloading anyway", DONE_TIMEOUT);
		r->status = 1;
		return false;
	}
	return true;
}

/* r->loop of a detached loader */
static void detach_loop(struct run *r, int sfd)
{
	struct pollfd pfd[5];

	if (r->state != RUNNING || register_script(r) < 0) {
		if (r->state == RUNNING)
			request_stop(r, "it could not be registered");
		run_loop(r, sfd);	/* the parent is still waiting: it fails */
		return;
	}
	tell_parent(r);
	while (r->state != DONE && detach_pass(r, sfd, pfd))
		;
	unregister();
	keep_if_alone(r);
	while (read_relay(&r->ch, &r->m, &r->out) > 0)
		;
	while (ctl_read(r))
		;
	merger_emit(&r->m, &r->out, true);
	out_flush(&r->out);
}

/*
 * The script is over and unloaded, and nobody was attached at its end:
 * the loader stays registered as ended (ktap --running lists it) until a
 * client (-A or --stop) comes for what it kept: the output of the ring's
 * last records and of the end probes, then its messages, then the status.
 */
static void detach_collect(struct run *r, int status)
{
	char word[32];
	int fd, fds[2];

	dt.ended = true;
	dt.status = status;
	if (register_script(r) < 0)
		return;
	while (dt.client < 0) {
		struct pollfd p = { .fd = dt.listen_fd, .events = POLLIN };

		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			break;
		fd = accept4(dt.listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (fd < 0)
			break;
		if (client_request(fd, word, sizeof(word), fds) < 0) {
			close(fd);
			continue;
		}
		if (strcmp(word, KTAP_DETACH_ATTACH) && strcmp(word, KTAP_DETACH_STOP)) {
			refuse(fd, fds, "ktap-run: unknown request\n");
			continue;
		}
		copy_file(dt.kept, fds[0]);
		log_replay(fds[1]);
		close(fds[0]);
		close(fds[1]);
		dt.client = fd;
	}
	unregister();
}

/* the script is over and unloaded: the client gets the status */
static int detach_end(struct run *r, int status)
{
	char path[320];

	if (dt.notify >= 0)
		return status;	/* never started */
	/* what the command wrote last; one pass, as a child it left in the
	 * background may hold the pipe open for ever */
	if (dt.cmd_fd >= 0)
		command_forward();
	if (dt.client < 0)
		detach_collect(r, status);
	client_done(r, status);
	snprintf(path, sizeof(path), KTAP_DETACH_DIR "/%s.log", r->opt->name);
	unlink(path);
	if (dt.kept[0])
		unlink(dt.kept);
	return status;
}

/* ---- clients: -A NAME, -X NAME, -R ---- */

static volatile sig_atomic_t client_signal;

static void note_client_signal(int sig)
{
	client_signal = sig;
}

static int connect_to(const char *name)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (!*name || strlen(name) > 56 || strspn(name, "abcdefghijklmnopqrstuvwxyz"
			"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != strlen(name)) {
		err("'%s' is not a script's name (a module name: letters, digits, '_')", name);
		return -1;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), KTAP_DETACH_DIR "/%s.sock", name);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
		return fd;
	err("no detached script named %s is running (ktap --running lists them)", name);
	if (fd >= 0)
		close(fd);
	return -1;
}

static int send_request(int fd, const char *word)
{
	int fds[2] = { 1, 2 };
	char cbuf[CMSG_SPACE(sizeof(fds))];
	struct iovec iov = { .iov_base = (char *)word, .iov_len = strlen(word) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(cm), fds, sizeof(fds));
	return sendmsg(fd, &msg, 0) < 0 ? -1 : 0;
}

/* -A NAME, -X NAME: the loader writes to our stdout and stderr; we wait
 * for its status byte. A signal on an attached client detaches it. */
static int client_session(const struct options *o)
{
	struct sigaction sa = { .sa_handler = note_client_signal };
	const char *word = o->client == 'A' ? KTAP_DETACH_ATTACH : KTAP_DETACH_STOP;
	unsigned char status;
	int fd = connect_to(o->client_name);
	ssize_t n;

	if (fd < 0)
		return 1;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (send_request(fd, word) < 0) {
		err("cannot talk to %s: %s", o->client_name, strerror(errno));
		return 1;
	}
	while ((n = read(fd, &status, 1)) < 0 && errno == EINTR)
		if (client_signal && o->client == 'A') {
			fprintf(stderr, "ktap: detached from %s, which goes on "
				"(ktap --stop %s ends it)\n", o->client_name, o->client_name);
			return 0;
		}
	if (n != 1) {
		err("%s ended without a word", o->client_name);
		return 1;
	}
	return status;
}

/* "key value" of an info file */
static bool info_field(const char *text, const char *key, char *val, size_t size)
{
	const char *p = text;
	size_t k = strlen(key);

	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, k) && p[k] == ' ') {
			snprintf(val, size, "%.*s", (int)strcspn(p + k + 1, "\n"), p + k + 1);
			return true;
		}
	val[0] = '\0';
	return false;
}

static void read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? 0 : read(fd, buf, size - 1);

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

/* one row of -R; a registration whose loader is gone is removed */
static void list_one(const char *name)
{
	char path[512], text[4096], stats[256], pid[32], started[32], target[32];
	char out[400], script[400], when[32] = "?", ended[16], state[24] = "running";
	unsigned long recs = 0, bytes = 0, dropped = 0, skipped = 0;
	time_t t;

	snprintf(path, sizeof(path), KTAP_DETACH_DIR "/%s.info", name);
	read_file(path, text, sizeof(text));
	info_field(text, "pid", pid, sizeof(pid));
	if (!*pid || (kill(atoi(pid), 0) < 0 && errno == ESRCH)) {
		unlink(path);
		snprintf(path, sizeof(path), KTAP_DETACH_DIR "/%s.sock", name);
		unlink(path);
		return;
	}
	info_field(text, "started", started, sizeof(started));
	info_field(text, "target", target, sizeof(target));
	info_field(text, "output", out, sizeof(out));
	info_field(text, "script", script, sizeof(script));
	t = atol(started);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime(&t));
	snprintf(path, sizeof(path), DEBUGFS "/%s/" KTAP_STATS_FILE, name);
	read_file(path, stats, sizeof(stats));
	if (sscanf(stats, KTAP_STATS_FORMAT, &recs, &bytes, &dropped, &skipped) != 4)
		recs = bytes = dropped = 0;
	if (info_field(text, "ended", ended, sizeof(ended))) {
		/* the module is gone: the loader's own figures */
		snprintf(state, sizeof(state), atoi(ended) ? "failed" : "ended");
		info_field(text, "bytes", stats, sizeof(stats));
		bytes = strtoul(stats, NULL, 10);
		info_field(text, "dropped", stats, sizeof(stats));
		dropped = strtoul(stats, NULL, 10);
	}
	printf("%-20s %-19s %7s %10lu %8lu  %-7s  %s  %s\n", name, when,
	       strcmp(target, "0") ? target : "-", bytes, dropped, state, out, script);
}

/* -R: the detached scripts running here */
static int list_running(void)
{
	struct dirent **names;
	int n = scandir(KTAP_DETACH_DIR, &names, NULL, alphasort);

	debugfs_mount();
	printf("%-20s %-19s %7s %10s %8s  %-7s  %s  %s\n", "NAME", "STARTED", "TARGET",
	       "OUTPUT", "DROPPED", "STATE", "TO", "SCRIPT");
	for (int i = 0; i < n; i++) {
		char *dot = strrchr(names[i]->d_name, '.');

		if (dot && !strcmp(dot, ".info")) {
			*dot = '\0';
			list_one(names[i]->d_name);
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	return 0;
}

static int detach_client(const struct options *o)
{
	if (o->client == 'R')
		return list_running();
	return client_session(o);
}
