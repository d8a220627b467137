/* ustk.c - the program of ktap.uprobes/ustack.exp: built -O2 without
 * frame pointers (Debian's default), so only its CFI unwinds it. main
 * calls a, b, c, and alloc_it, which calls libc's malloc. */
#include <stdio.h>
#include <stdlib.h>

volatile long sink;
void *volatile kept;

__attribute__((noinline, noclone)) long c(long x)
{
	sink += x;
	return sink * 3;
}

__attribute__((noinline, noclone)) long b(long x)
{
	long r = c(x + 1);

	return r + sink;
}

__attribute__((noinline, noclone)) long a(long x)
{
	long r = b(x * 2);

	return r - 1;
}

__attribute__((noinline, noclone)) void alloc_it(size_t n)
{
	kept = malloc(n);
	free(kept);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1, t = 0;

	for (long i = 0; i < n; i++)
		t += a(i);
	alloc_it(12345);
	printf("%ld\n", t);
	return 0;
}
