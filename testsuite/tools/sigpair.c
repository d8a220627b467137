/* sigpair - signal events for the tests of the signal.* aliases, with
 * what they should see printed as "guest KEY VALUE": installs a SIGUSR1
 * and a SIGUSR2 handler, sends itself SIGUSR1 with tgkill(2) and SIGUSR2
 * with tkill(2), blocks SIGUSR1 (sigprocmask), raises it with tgkill,
 * asks for its pending set (sigpending), unblocks it, then has a POSIX
 * timer (SIGEV_SIGNAL, SIGALRM) fire once after 1 ms and waits for it.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t got;

static void on_signal(int sig)
{
	got |= 1 << sig;
}

int main(void)
{
	struct sigevent ev;
	struct itimerspec its;
	struct sigaction sa;
	sigset_t set, pend;
	timer_t t;
	pid_t pid = getpid(), tid = (pid_t)syscall(SYS_gettid);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	printf("guest pid %d\nguest tid %d\n", pid, tid);
	fflush(stdout);
	syscall(SYS_tgkill, pid, tid, SIGUSR1);
	syscall(SYS_tkill, tid, SIGUSR2);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	syscall(SYS_tgkill, pid, tid, SIGUSR1);
	sigpending(&pend);
	printf("guest pending_usr1 %d\n", sigismember(&pend, SIGUSR1));
	sigprocmask(SIG_UNBLOCK, &set, NULL);

	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_SIGNAL;
	ev.sigev_signo = SIGALRM;
	if (timer_create(CLOCK_MONOTONIC, &ev, &t))
		return 1;
	memset(&its, 0, sizeof(its));
	its.it_value.tv_nsec = 1000000;
	/* SIGALRM blocked until sigsuspend(), so it cannot come before */
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	sigprocmask(SIG_BLOCK, &set, &pend);
	timer_settime(t, 0, &its, NULL);
	while (!(got & (1 << SIGALRM)))
		sigsuspend(&pend);
	printf("guest got %#x\n", (unsigned)got);
	return 0;
}
