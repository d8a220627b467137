/* readalt ROUNDS BATCH - the cost of a vfs_read probe hit, measured
 * against the same work without the hit.
 *
 * Reads one byte of /dev/zero in batches of BATCH, alternating between
 * readv(2) with one iovec (through vfs_readv: no hit) and read(2)
 * (through vfs_read: one hit per call), ROUNDS times each, and prints the
 * minimum and median ns per call of each and their difference (alt.h). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>
#include "alt.h"

/* kind 0: readv(2), kind 1: read(2), of one byte */
static double batch(int kind, long n, void *arg)
{
	int fd = *(int *)arg;
	double t0 = alt_now_ns();
	char c;
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };

	for (long i = 0; i < n; i++) {
		ssize_t r = kind == 0 ? readv(fd, &iov, 1) : read(fd, &c, 1);

		if (r != 1) {
			perror("/dev/zero");
			exit(1);
		}
	}
	return (alt_now_ns() - t0) / n;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 200;
	long n = argc > 2 ? atol(argv[2]) : 50;
	int fd = open("/dev/zero", O_RDONLY);

	if (rounds < 1 || n < 1 || fd < 0) {
		fprintf(stderr, "usage: readalt ROUNDS BATCH (and a readable /dev/zero)\n");
		return 2;
	}
	return alt_run("readalt", "readv", "read", rounds, n, batch, &fd);
}
