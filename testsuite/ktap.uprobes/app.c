/* app.c - the probed program of ktap.uprobes/uprobes.exp: built with and
 * without -g, PIE and static. Prints what the probes must see. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>

struct point {
	int x;
	long y;
	char name[8];
};

__attribute__((noinline)) long add(long a, long b)
{
	long s = a + b;

	return s * 2;
}

__attribute__((noinline)) int show(struct point *p)
{
	printf("show %s %d %ld\n", p->name, p->x, p->y);
	return p->x + 1;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	long t = 0;
	struct point p = { 42, -7, "pt" };

	for (int i = 0; i < n; i++) {
		t += add(i, 10);
		DTRACE_PROBE2(app, tick, i, t);
	}
	printf("total %ld\n", t);
	return show(&p) == 43 ? 0 : 1;
}
