/* uloop.c - N calls of a user function, for bench/uprobes: prints
 * "ns X", the wall time per call in nanoseconds. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) int f(int x)
{
	__asm__ volatile("");
	return x + 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000, i;
	struct timespec a, b;
	int s = 0;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++)
		s = f(s);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("ns %.1f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
	return s == n ? 0 : 1;
}
