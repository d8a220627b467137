/* ppidloop ROUNDS BATCH - what an unprobed system call costs: getppid(2)
 * in ROUNDS batches of BATCH calls, printing the minimum and median ns per
 * call over the batches:
 *
 *   ppidloop: getppid MIN ns (median MED)
 *
 * getppid does next to nothing in the kernel, so a probe that every
 * system call pays for (the raw sys_enter tracepoint: the kernel's slow
 * syscall path) shows up whole in its time (bench/overhead's tax row). */
#define _GNU_SOURCE
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

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 200;
	long n = argc > 2 ? atol(argv[2]) : 100;
	double *t;

	if (rounds < 1 || n < 1) {
		fprintf(stderr, "usage: ppidloop ROUNDS BATCH\n");
		return 2;
	}
	t = calloc(rounds, sizeof(*t));
	if (!t)
		return 1;
	for (long r = 0; r < rounds; r++) {
		double t0 = now_ns();

		for (long i = 0; i < n; i++)
			syscall(SYS_getppid);	/* not libc's: it may cache */
		t[r] = (now_ns() - t0) / n;
	}
	qsort(t, rounds, sizeof(*t), cmp);
	fprintf(stderr, "ppidloop: getppid %.0f ns (median %.0f)\n", t[0], t[rounds / 2]);
	return 0;
}
