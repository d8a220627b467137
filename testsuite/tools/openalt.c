/* openalt ROUNDS BATCH PATH - the cost of a syscall.openat probe hit,
 * measured against the same work without the hit.
 *
 * Opens and closes PATH in batches of BATCH, alternating between open(2)
 * (SYS_open: no openat hit) and openat(2) (SYS_openat: one hit per call),
 * ROUNDS times each, and prints the minimum and median ns per call of
 * each kind and their difference (alt.h). Both kinds do the same VFS work
 * and pass the same raw sys_enter tracepoint, so the difference is what
 * the handler of the openat hit costs. x86_64 only (SYS_open). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "alt.h"

/* kind 0: open(2), kind 1: openat(2), each followed by close(2) */
static double batch(int kind, long n, void *path)
{
	double t0 = alt_now_ns();

	for (long i = 0; i < n; i++) {
		long fd = kind == 0 ? syscall(SYS_open, path, O_RDONLY)
				    : syscall(SYS_openat, AT_FDCWD, path, O_RDONLY);

		if (fd < 0) {
			perror(path);
			exit(1);
		}
		close(fd);
	}
	return (alt_now_ns() - t0) / n;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 200;
	long n = argc > 2 ? atol(argv[2]) : 50;
	char *path = argc > 3 ? argv[3] : "/dev/null";

	if (rounds < 1 || n < 1) {
		fprintf(stderr, "usage: openalt ROUNDS BATCH [PATH]\n");
		return 2;
	}
	return alt_run("openalt", "open", "openat", rounds, n, batch, path);
}
