/* firstline CMD [ARG...] - run CMD with its stdout on a pipe and print
 * how long it took from the fork to CMD's first complete line (ns), then
 * that line; CMD then gets SIGINT and is waited for (SIGKILL after 10 s:
 * staprun -A says it disconnects, then stays). bench/longrun's
 * attach latency: "command to first line". Exit status 1 if CMD wrote no
 * line within 60 s. */
#define _GNU_SOURCE
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	char line[4096];
	size_t len = 0;
	double t0, t1 = 0;
	int p[2], status;
	pid_t pid;

	if (argc < 2 || pipe(p) < 0)
		return 2;
	t0 = now_ns();
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	close(p[1]);
	while (len < sizeof(line) - 1) {
		struct pollfd pf = { .fd = p[0], .events = POLLIN };
		ssize_t n;

		if (poll(&pf, 1, 60000) <= 0)
			break;
		n = read(p[0], line + len, sizeof(line) - 1 - len);
		if (n <= 0)
			break;
		len += n;
		line[len] = '\0';
		if (strchr(line, '\n')) {
			t1 = now_ns();
			break;
		}
	}
	kill(pid, SIGINT);
	for (int i = 0; i < 1000 && waitpid(pid, &status, WNOHANG) == 0; i++)
		usleep(10000);
	if (waitpid(pid, &status, WNOHANG) == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	if (!t1)
		return 1;
	line[strcspn(line, "\n")] = '\0';
	printf("%.0f %s\n", t1 - t0, line);
	return 0;
}
