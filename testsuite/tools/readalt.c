/* readalt ROUNDS BATCH - the cost of a vfs_read probe hit, measured
 * against the same work without the hit.
 *
 * Reads one byte of /dev/zero in batches of BATCH, alternating between
 * read(2) (through vfs_read: one hit per call) and readv(2) with one
 * iovec (through vfs_readv: no hit), ROUNDS times each, and prints the
 * minimum and median ns per call of each and their difference. As with
 * openalt, alternating in one process keeps a busy host from favouring
 * either kind. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/* ns per call of BATCH one-byte reads, with read(2) or readv(2) */
static double batch(int fd, int vectored, long n)
{
	char c;
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	double t0 = now_ns();

	for (long i = 0; i < n; i++) {
		ssize_t r = vectored ? readv(fd, &iov, 1) : read(fd, &c, 1);

		if (r != 1) {
			perror("/dev/zero");
			exit(1);
		}
	}
	return (now_ns() - t0) / n;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 200;
	long n = argc > 2 ? atol(argv[2]) : 50;
	int fd = open("/dev/zero", O_RDONLY);
	double *rv, *rd;

	if (rounds < 1 || n < 1 || fd < 0) {
		fprintf(stderr, "usage: readalt ROUNDS BATCH (and a readable /dev/zero)\n");
		return 2;
	}
	rv = calloc(rounds, sizeof(double));
	rd = calloc(rounds, sizeof(double));
	if (!rv || !rd)
		return 1;
	for (long r = 0; r < rounds; r++) {
		rv[r] = batch(fd, 1, n);
		rd[r] = batch(fd, 0, n);
	}
	qsort(rv, rounds, sizeof(double), cmp);
	qsort(rd, rounds, sizeof(double), cmp);
	fprintf(stderr, "readalt: readv %.0f ns (median %.0f), read %.0f ns (median %.0f), hit %+.0f ns (median %+.0f)\n",
		rv[0], rv[rounds / 2], rd[0], rd[rounds / 2],
		rd[0] - rv[0], rd[rounds / 2] - rv[rounds / 2]);
	return 0;
}
