/* vmfork - memory and process events for the tests of the vm.* and
 * scheduler.* aliases, with what they should see printed as
 * "guest KEY VALUE": maps 16 anonymous pages, writes to each (16 write
 * faults), unmaps them, grows the heap by 4 pages with sbrk(), writes
 * to a private page, forks a child that writes to it too (a copy on
 * write) and exits with status 3, and waits for it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = 16 * page;
	char *p, *brk0, *cow;
	pid_t child;
	int i, status;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	printf("guest mmap_start %lu\nguest mmap_end %lu\nguest mmap_len %zu\n",
	       (unsigned long)p, (unsigned long)p + len, len);
	for (i = 0; i < 16; i++)
		p[i * page] = 1;
	munmap(p, len);
	brk0 = sbrk(0);
	if (sbrk(4 * page) == (void *)-1) {
		perror("sbrk");
		return 1;
	}
	/* the kernel grows the heap from the page boundary after the old end */
	printf("guest brk_start %lu\nguest brk_len %ld\n",
	       ((unsigned long)brk0 + page - 1) & ~(page - 1), 4 * page);
	cow = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (cow == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	cow[0] = 1;
	printf("guest cow %lu\n", (unsigned long)cow);
	fflush(stdout);
	child = fork();
	if (child == 0) {
		cow[0] = 2;
		_exit(3);
	}
	waitpid(child, &status, 0);
	printf("guest parent %d\nguest child %d\nguest child_status %d\n", getpid(), child,
	       WEXITSTATUS(status));
	return 0;
}
