/* openalt ROUNDS BATCH PATH - the cost of a syscall.openat probe hit,
 * measured against the same work without the hit.
 *
 * Opens and closes PATH in batches of BATCH, alternating between open(2)
 * (SYS_open: no openat hit) and openat(2) (SYS_openat: one hit per call),
 * ROUNDS times each, and prints the minimum and median ns per call of
 * each kind and their difference. Both kinds do the same VFS work and
 * pass the same raw sys_enter tracepoint, so the difference is what the
 * handler of the openat hit costs, and alternating at this grain keeps
 * a busy host (a TCG guest's vCPUs are host threads) from favouring
 * either kind. x86_64 only (SYS_open). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/* ns per open+close of BATCH calls of one kind */
static double batch(long nr, long n, const char *path)
{
	double t0 = now_ns();

	for (long i = 0; i < n; i++) {
		long fd = nr == SYS_open ? syscall(SYS_open, path, O_RDONLY)
					 : syscall(SYS_openat, AT_FDCWD, path, O_RDONLY);

		if (fd < 0) {
			perror(path);
			exit(1);
		}
		close(fd);
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
	const char *path = argc > 3 ? argv[3] : "/dev/null";
	double *open_ns, *openat_ns;

	if (rounds < 1 || n < 1) {
		fprintf(stderr, "usage: openalt ROUNDS BATCH [PATH]\n");
		return 2;
	}
	open_ns = calloc(rounds, sizeof(double));
	openat_ns = calloc(rounds, sizeof(double));
	if (!open_ns || !openat_ns)
		return 1;
	for (long r = 0; r < rounds; r++) {
		open_ns[r] = batch(SYS_open, n, path);
		openat_ns[r] = batch(SYS_openat, n, path);
	}
	qsort(open_ns, rounds, sizeof(double), cmp);
	qsort(openat_ns, rounds, sizeof(double), cmp);
	fprintf(stderr, "openalt: open %.0f ns (median %.0f), openat %.0f ns (median %.0f), hit %+.0f ns (median %+.0f)\n",
		open_ns[0], open_ns[rounds / 2], openat_ns[0], openat_ns[rounds / 2],
		openat_ns[0] - open_ns[0], openat_ns[rounds / 2] - open_ns[rounds / 2]);
	return 0;
}
