/* readalt ROUNDS BATCH [open] - the cost of a vfs_read probe hit,
 * measured against the same work without the hit.
 *
 * Reads one byte of /dev/zero in batches of BATCH, alternating between
 * readv(2) with one iovec (through vfs_readv: no hit) and read(2)
 * (through vfs_read: one hit per call), ROUNDS times each, and prints the
 * minimum and median ns per call of each and their difference (alt.h).
 *
 * With "open", every call opens /dev/zero, reads and closes it: the
 * open+read+close loop of bench/overhead's case 1, whose separate runs
 * swing too much in a TCG guest to show a microsecond, alternated in
 * one process like the rest. It prints "readalt-open:" lines. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include "alt.h"

struct readalt {
	int fd;		/* /dev/zero, or -1: open it for every call */
};

static int open_zero(void)
{
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0) {
		perror("/dev/zero");
		exit(1);
	}
	return fd;
}

/* kind 0: readv(2), kind 1: read(2), of one byte */
static double batch(int kind, long n, void *arg)
{
	const struct readalt *ra = arg;
	double t0 = alt_now_ns();
	char c;
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };

	for (long i = 0; i < n; i++) {
		int fd = ra->fd >= 0 ? ra->fd : open_zero();
		ssize_t r = kind == 0 ? readv(fd, &iov, 1) : read(fd, &c, 1);

		if (r != 1) {
			perror("/dev/zero");
			exit(1);
		}
		if (ra->fd < 0)
			close(fd);
	}
	return (alt_now_ns() - t0) / n;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 200;
	long n = argc > 2 ? atol(argv[2]) : 50;
	int reopen = argc > 3 && strcmp(argv[3], "open") == 0;
	struct readalt ra = { .fd = reopen ? -1 : open_zero() };

	if (rounds < 1 || n < 1 || (argc > 3 && !reopen)) {
		fprintf(stderr, "usage: readalt ROUNDS BATCH [open]\n");
		return 2;
	}
	return alt_run(reopen ? "readalt-open" : "readalt", "readv", "read",
		       rounds, n, batch, &ra);
}
