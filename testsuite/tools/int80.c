/* int80 N - N getpid(2) calls through the 32-bit (ia32) entry, int $0x80
 * with i386's number 20, then one writev(2) of "int80 PID\n" to stdout.
 *
 * 20 is writev's number on x86_64: a syscall.writev probe that keyed on
 * the raw sys_enter tracepoint's id without asking which table the call
 * came through would count the N ia32 getpids as writevs too. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>

static long ia32_getpid(void)
{
	long ret = 20;	/* __NR_getpid in i386's table */

	/* the kernel zeroes r8-r11 on return to a 64-bit caller */
	__asm__ volatile("int $0x80" : "+a"(ret) : : "r8", "r9", "r10", "r11", "cc", "memory");
	return ret;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3;
	char line[64];
	struct iovec iov = { line, 0 };

	for (long i = 0; i < n; i++) {
		long pid = ia32_getpid();

		if (pid != getpid()) {
			fprintf(stderr, "int80: the ia32 getpid answered %ld, not %d\n",
				pid, getpid());
			return 1;
		}
	}
	iov.iov_len = snprintf(line, sizeof(line), "int80 %d\n", getpid());
	return writev(1, &iov, 1) == (ssize_t)iov.iov_len ? 0 : 1;
}
