/* readloop N PATH - open PATH, read 1 byte, close it, N times, as fast as
 * it can; prints the time per iteration. A static workload for the
 * overhead benchmark in the guest: one vfs_read per iteration. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	const char *path = argc > 2 ? argv[2] : "/dev/zero";
	struct timespec a, b;
	double s;
	char c;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++) {
		int fd = open(path, O_RDONLY);

		if (fd < 0) {
			perror(path);
			return 1;
		}
		if (read(fd, &c, 1) < 0) {
			perror(path);
			return 1;
		}
		close(fd);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	s = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	fprintf(stderr, "readloop: %ld iterations in %.3f s, %.0f ns per iteration\n",
		n, s, n > 0 ? s * 1e9 / n : 0.0);
	return 0;
}
