/* alt.h - the half openalt and readalt share: time batches of two kinds
 * of call, alternating in one process, and print each kind's minimum and
 * median ns per call and their difference (the probe hit's cost):
 *
 *   TOOL: NAME0 N ns (median M), NAME1 N ns (median M), hit +D ns (median +E)
 *
 * Kind 0 is the unprobed call, kind 1 the probed one. Alternating at
 * this grain keeps a busy host (a TCG guest's vCPUs are host threads)
 * from favouring either kind. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* ns per call of one batch of n calls of a kind */
typedef double (*alt_batch_fn)(int kind, long n, void *arg);

static double alt_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static int alt_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* rounds of (kind 0, kind 1) batches of n calls; 0, or 1 without memory */
static int alt_run(const char *tool, const char *name0, const char *name1,
		   long rounds, long n, alt_batch_fn batch, void *arg)
{
	double *t0 = calloc(rounds, sizeof(double));
	double *t1 = calloc(rounds, sizeof(double));

	if (!t0 || !t1)
		return 1;
	for (long r = 0; r < rounds; r++) {
		t0[r] = batch(0, n, arg);
		t1[r] = batch(1, n, arg);
	}
	qsort(t0, rounds, sizeof(double), alt_cmp);
	qsort(t1, rounds, sizeof(double), alt_cmp);
	fprintf(stderr, "%s: %s %.0f ns (median %.0f), %s %.0f ns (median %.0f), hit %+.0f ns (median %+.0f)\n",
		tool, name0, t0[0], t0[rounds / 2], name1, t1[0], t1[rounds / 2],
		t1[0] - t0[0], t1[rounds / 2] - t0[rounds / 2]);
	return 0;
}
