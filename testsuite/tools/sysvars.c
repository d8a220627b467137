/* sysvars GROUP - make system calls with known arguments and print what
 * was passed, "guest KEY VALUE", for testsuite/ktap.syscalls: the script
 * prints "ktap KEY VALUE" from syscall.NAME's documented variables and the
 * test compares the two (lib/ktap.exp, .cmp files).
 *
 * Descriptors the script must tell apart from the C library's own are
 * moved to fixed numbers (100...), and paths are under /tmp/ktapsv, so
 * each probe can pick the one call it is about. The symbolic names are
 * made here from the C library's own constants, independently of ktap's
 * decoders. GROUP is "files", "mem", "proc" or "decoded" (the flags,
 * commands and structures of the rarer calls; several of them fail on
 * purpose, after the probe at entry saw their arguments). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/sysmacros.h>
#include <sys/timex.h>
#include <sys/xattr.h>
#include <linux/futex.h>
#include <linux/reboot.h>
#include <linux/seccomp.h>
#include <linux/membarrier.h>
#include <linux/kcmp.h>
#include <linux/bpf.h>
#include <sys/quota.h>
#include <sys/swap.h>
#include <sys/inotify.h>
#include <sys/timerfd.h>
#include <utime.h>

#define DIR "/tmp/ktapsv"

struct bit {
	long value;
	const char *name;
};
#define BIT(x) { x, #x }

/* "A|B" of the bits of v a table names, in the table's order */
static const char *bits(const struct bit *t, long v)
{
	static char ring[4][512];
	static int next;
	char *s = ring[next++ % 4];	/* several in one printf */

	s[0] = '\0';
	for (; t->name; t++)
		if (t->value && (v & t->value) == t->value) {
			if (s[0])
				strcat(s, "|");
			strcat(s, t->name);
		}
	return s[0] ? s : "0";
}

static const struct bit open_flags[] = { BIT(O_CREAT), BIT(O_TRUNC), BIT(O_APPEND),
	BIT(O_NONBLOCK), BIT(O_DIRECTORY), BIT(O_NOFOLLOW), BIT(O_CLOEXEC), { 0, NULL } };
static const struct bit fd_flags[] = { BIT(O_CLOEXEC), BIT(O_NONBLOCK), { 0, NULL } };
static const struct bit prot[] = { BIT(PROT_READ), BIT(PROT_WRITE), BIT(PROT_EXEC), { 0, NULL } };
static const struct bit map[] = { BIT(MAP_SHARED), BIT(MAP_PRIVATE), BIT(MAP_FIXED),
	BIT(MAP_ANONYMOUS), BIT(MAP_POPULATE), { 0, NULL } };
static const struct bit msg[] = { BIT(MSG_PEEK), BIT(MSG_DONTWAIT), BIT(MSG_NOSIGNAL),
	{ 0, NULL } };
static const struct bit ms[] = { BIT(MS_RDONLY), BIT(MS_NOSUID), BIT(MS_NODEV),
	BIT(MS_NOEXEC), { 0, NULL } };
static const struct bit access_bits[] = { BIT(R_OK), BIT(W_OK), BIT(X_OK), { 0, NULL } };
static const struct bit wait_bits[] = { BIT(WNOHANG), BIT(WUNTRACED), { 0, NULL } };

static const char *open_str(int f)
{
	static char s[600];
	int acc = f & O_ACCMODE;
	const char *rest = bits(open_flags, f);

	snprintf(s, sizeof(s), "%s%s%s", acc == O_RDONLY ? "O_RDONLY" : acc == O_WRONLY ?
		 "O_WRONLY" : "O_RDWR", strcmp(rest, "0") ? "|" : "", strcmp(rest, "0") ? rest : "");
	return s;
}

/* a fixed descriptor number for fd */
static int at(int fd, int to)
{
	if (syscall(SYS_dup2, fd, to) < 0) {
		perror("dup2");
		exit(1);
	}
	close(fd);
	return to;
}

static void files(void)
{
	char buf[64] = "hello", rbuf[64], lbuf[64];
	struct iovec iov[2] = { { buf, 2 }, { buf + 2, 3 } };
	struct stat st;
	int mode = 0640, flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, fd, p[2];
	long ret;

	mkdir(DIR, 0755);
	fd = syscall(SYS_openat, AT_FDCWD, DIR "/f", flags, mode);
	printf("guest nd.openat.filename \"%s\"\nguest nd.openat.flags_str %s\n", DIR "/f",
	       open_str(flags));
	printf("guest openat.filename \"%s\"\nguest openat.filename_unquoted %s\n"
	       "guest openat.flags_str %s\nguest openat.mode %#o\nguest openat.dfd_str AT_FDCWD\n",
	       DIR "/f", DIR "/f", open_str(flags), mode);
	fd = at(fd, 100);
	syscall(SYS_write, fd, buf, 5);
	printf("guest nd1.write.buf_str \"%.5s\"\n", buf);
	printf("guest write.fd %d\nguest write.buf_uaddr %#lx\nguest write.count 5\n"
	       "guest write.buf_str \"%.5s\"\n", fd, (unsigned long)buf, buf);
	syscall(SYS_pwrite64, fd, buf, 3, 7L);
	printf("guest pwrite.offset 7\nguest pwrite.count 3\n");
	syscall(SYS_writev, fd, iov, 2);
	printf("guest writev.vector_uaddr %#lx\nguest writev.count 2\n", (unsigned long)iov);
	syscall(SYS_close, fd);
	printf("guest close.fd %d\n", fd);

	fd = at(syscall(SYS_openat, AT_FDCWD, DIR "/f", O_RDONLY), 101);
	syscall(SYS_read, fd, rbuf, 4);
	printf("guest read.fd %d\nguest read.buf_uaddr %#lx\nguest read.count 4\n", fd,
	       (unsigned long)rbuf);
	ret = syscall(SYS_pread64, fd, rbuf, 2, 3L);
	printf("guest pread.offset 3\nguest pread.buf_uaddr %#lx\n", (unsigned long)rbuf);
	/* for nd.stp: the same call through nd2_syscall and syscall_any */
	printf("guest nd2.pread.offset 3\nguest nd2.pread.name pread\nguest any.pread.syscall_nr %d\nguest any.pread.name pread64\n"
	       "guest any.pread.retval %ld\n", SYS_pread64, ret);
	syscall(SYS_readv, fd, iov, 1);
	printf("guest readv.count 1\nguest readv.vector_uaddr %#lx\n", (unsigned long)iov);
	syscall(SYS_lseek, fd, 2L, SEEK_CUR);
	printf("guest lseek.fildes %d\nguest lseek.offset 2\nguest lseek.whence_str SEEK_CUR\n", fd);
	syscall(SYS_fstat, fd, &st);
	printf("guest fstat.filedes %d\nguest fstat.buf_uaddr %#lx\n", fd, (unsigned long)&st);
	syscall(SYS_fcntl, fd, F_GETFL, 0);
	printf("guest fcntl.cmd_str F_GETFL\n");
	syscall(SYS_ioctl, fd, FIONREAD, rbuf);
	printf("guest ioctl.request %d\nguest ioctl.argp %#lx\n", FIONREAD, (unsigned long)rbuf);
	syscall(SYS_dup3, fd, 102, O_CLOEXEC);
	printf("guest dup3.oldfd %d\nguest dup3.newfd 102\nguest dup3.flags_str %s\n", fd,
	       bits(fd_flags, O_CLOEXEC));
	syscall(SYS_dup2, 102, 103);
	printf("guest dup2.oldfd 102\nguest dup2.newfd 103\n");
	syscall(SYS_close, 102);
	syscall(SYS_close, 103);

	syscall(SYS_stat, DIR "/f", &st);
	printf("guest stat.filename \"%s\"\nguest stat.buf_uaddr %#lx\n", DIR "/f", (unsigned long)&st);
	syscall(SYS_lstat, DIR "/f", &st);
	printf("guest lstat.path \"%s\"\n", DIR "/f");
	syscall(SYS_newfstatat, AT_FDCWD, DIR "/f", &st, AT_SYMLINK_NOFOLLOW);
	printf("guest fstatat.path \"%s\"\nguest fstatat.dirfd_str AT_FDCWD\n"
	       "guest fstatat.flags_str AT_SYMLINK_NOFOLLOW\n", DIR "/f");
	syscall(SYS_access, DIR "/f", R_OK | W_OK);
	printf("guest access.pathname \"%s\"\nguest access.mode_str %s\n", DIR "/f",
	       bits(access_bits, R_OK | W_OK));
	syscall(SYS_chmod, DIR "/f", 0600);
	printf("guest chmod.path \"%s\"\nguest chmod.mode %#o\n", DIR "/f", 0600);
	syscall(SYS_chown, DIR "/f", 12, 34);
	printf("guest chown.owner 12\nguest chown.group 34\n");
	syscall(SYS_truncate, DIR "/f", 1L);
	printf("guest truncate.path_unquoted %s\nguest truncate.length 1\n", DIR "/f");
	syscall(SYS_rename, DIR "/f", DIR "/g");
	printf("guest rename.oldpath \"%s\"\nguest rename.newpath \"%s\"\n", DIR "/f", DIR "/g");
	syscall(SYS_symlink, DIR "/g", DIR "/l");
	printf("guest symlink.oldpath \"%s\"\n", DIR "/g");
	syscall(SYS_readlink, DIR "/l", lbuf, 40);
	printf("guest readlink.path \"%s\"\nguest readlink.bufsiz 40\nguest readlink.buf_uaddr %#lx\n",
	       DIR "/l", (unsigned long)lbuf);
	syscall(SYS_unlink, DIR "/l");
	printf("guest unlink.pathname \"%s\"\n", DIR "/l");
	syscall(SYS_mkdir, DIR "/d", 0711);
	printf("guest mkdir.pathname \"%s\"\nguest mkdir.mode %#o\n", DIR "/d", 0711);
	syscall(SYS_chdir, DIR "/d");
	printf("guest chdir.path \"%s\"\n", DIR "/d");
	syscall(SYS_chdir, "/");
	syscall(SYS_rmdir, DIR "/d");
	printf("guest rmdir.pathname \"%s\"\n", DIR "/d");
	syscall(SYS_mkdir, DIR "/e", 0700);
	syscall(SYS_unlinkat, AT_FDCWD, DIR "/e", AT_REMOVEDIR);
	printf("guest unlinkat.pathname \"%s\"\nguest unlinkat.flag_str AT_REMOVEDIR\n"
	       "guest unlinkat.dfd_str AT_FDCWD\n", DIR "/e");
	syscall(SYS_unlink, DIR "/g");
	syscall(SYS_pipe2, p, O_NONBLOCK | O_CLOEXEC);
	printf("guest pipe.fildes_uaddr %#lx\nguest pipe.flag_str %s\n", (unsigned long)p,
	       bits(fd_flags, O_NONBLOCK | O_CLOEXEC));
}

static void mem(void)
{
	long len = 3 * 4096;
	char *a = (char *)syscall(SYS_mmap, NULL, len, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct timespec req = { 0, 1000000 }, rem;
	struct timeval tv = { 0, 500 };
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(5555),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct pollfd pfd = { .fd = 0, .events = POLLIN };
	struct epoll_event ev = { .events = EPOLLIN };
	int futex_word = 0, s, ep, type = SOCK_DGRAM | SOCK_CLOEXEC;
	char rbuf[16];

	printf("guest mmap2.length %ld\nguest mmap2.prot_str %s\nguest mmap2.flags_str %s\n"
	       "guest mmap2.fd -1\nguest mmap2.start 0\nguest mmap2.pgoffset 0\n", len,
	       bits(prot, PROT_READ | PROT_WRITE), bits(map, MAP_PRIVATE | MAP_ANONYMOUS));
	syscall(SYS_mprotect, a, 4096, PROT_READ);
	printf("guest mprotect.addr %#lx\nguest mprotect.len 4096\nguest mprotect.prot_str %s\n",
	       (unsigned long)a, bits(prot, PROT_READ));
	syscall(SYS_munmap, a, len);
	printf("guest munmap.start %#lx\nguest munmap.length %ld\n", (unsigned long)a, len);
	/* below the heap: brk changes nothing, and the C library's own
	 * brk(0) is told apart */
	syscall(SYS_brk, 4096L);
	printf("guest brk.brk 4096\n");

	s = at(syscall(SYS_socket, AF_INET, type, IPPROTO_UDP), 110);
	printf("guest socket.family_str AF_INET\nguest socket.type_str SOCK_DGRAM|SOCK_CLOEXEC\n"
	       "guest socket.protocol_str IPPROTO_UDP\nguest socket.family %d\n", AF_INET);
	syscall(SYS_bind, s, &sin, sizeof(sin));
	printf("guest bind.sockfd %d\nguest bind.addrlen %zu\nguest bind.my_addr_uaddr %#lx\n", s,
	       sizeof(sin), (unsigned long)&sin);
	syscall(SYS_connect, s, &sin, sizeof(sin));
	printf("guest connect.sockfd %d\nguest connect.serv_addr_uaddr %#lx\n"
	       "guest connect.uaddr_af AF_INET\nguest connect.uaddr_ip %s\n"
	       "guest connect.uaddr_ip_port %d\n", s, (unsigned long)&sin,
	       inet_ntoa(sin.sin_addr), ntohs(sin.sin_port));
	syscall(SYS_sendto, s, "ping", 4, MSG_DONTWAIT, &sin, sizeof(sin));
	printf("guest sendto.s %d\nguest sendto.len 4\nguest sendto.flags_str %s\n"
	       "guest sendto.buf \"ping\"\nguest sendto.tolen %zu\n"
	       "guest sendto.to_str {AF_INET, %s, %d}\n", s, bits(msg, MSG_DONTWAIT),
	       sizeof(sin), inet_ntoa(sin.sin_addr), ntohs(sin.sin_port));
	syscall(SYS_recvfrom, s, rbuf, sizeof(rbuf), MSG_DONTWAIT, NULL, NULL);
	printf("guest recvfrom.s %d\nguest recvfrom.len %zu\nguest recvfrom.buf_uaddr %#lx\n"
	       "guest recvfrom.flags_str %s\n", s, sizeof(rbuf), (unsigned long)rbuf,
	       bits(msg, MSG_DONTWAIT));
	syscall(SYS_close, s);

	syscall(SYS_nanosleep, &req, &rem);
	printf("guest nanosleep.req_str [0.001000000]\nguest nanosleep.req_uaddr %#lx\n"
	       "guest nanosleep.rem_uaddr %#lx\n", (unsigned long)&req, (unsigned long)&rem);
	syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &req, NULL);
	printf("guest clock_nanosleep.clk_id_str CLOCK_MONOTONIC\nguest clock_nanosleep.flags_str 0\n");
	syscall(SYS_poll, &pfd, 1, 3);
	printf("guest poll.ufds_uaddr %#lx\nguest poll.nfds 1\nguest poll.timeout 3\n",
	       (unsigned long)&pfd);
	syscall(SYS_select, 0, NULL, NULL, NULL, &tv);
	printf("guest select.n 0\nguest select.timeout_str [0.000500]\n");
	ep = at(syscall(SYS_epoll_create1, EPOLL_CLOEXEC), 111);
	printf("guest epoll_create.flags %#x\n", EPOLL_CLOEXEC);
	syscall(SYS_epoll_ctl, ep, EPOLL_CTL_ADD, 0, &ev);
	printf("guest epoll_ctl.epfd %d\nguest epoll_ctl.op_str EPOLL_CTL_ADD\nguest epoll_ctl.fd 0\n",
	       ep);
	syscall(SYS_epoll_wait, ep, &ev, 1, 2);
	printf("guest epoll_wait.epfd %d\nguest epoll_wait.maxevents 1\nguest epoll_wait.timeout 2\n",
	       ep);
	syscall(SYS_futex, &futex_word, FUTEX_WAKE, 1, NULL, NULL, 0);
	printf("guest futex.futex_uaddr %#lx\nguest futex.op %d\nguest futex.val 1\n",
	       (unsigned long)&futex_word, FUTEX_WAKE);
	syscall(SYS_gettimeofday, &tv, NULL);
	printf("guest gettimeofday.tv_uaddr %#lx\nguest gettimeofday.tz_uaddr 0\n", (unsigned long)&tv);
	mkdir(DIR, 0755);
	mkdir(DIR "/m", 0755);
	syscall(SYS_mount, "none", DIR "/m", "tmpfs", MS_NOSUID | MS_NODEV, "size=1m");
	printf("guest mount.source \"none\"\nguest mount.target \"%s\"\nguest mount.filesystemtype "
	       "\"tmpfs\"\nguest mount.mountflags_str %s\nguest mount.data \"size=1m\"\n", DIR "/m",
	       bits(ms, MS_NOSUID | MS_NODEV));
	syscall(SYS_umount2, DIR "/m", MNT_DETACH);
	printf("guest umount.target \"%s\"\nguest umount.flags_str MNT_DETACH\n", DIR "/m");
}

static void proc(void)
{
	int status;
	long child;
	/* on the stack: a fork child's page tables have its anonymous pages,
	 * not yet the binary's (read-only data would be read as
	 * "<unknown>" by a probe, which must not fault) */
	char sh[] = "/bin/sh", a0[] = "sh", a1[] = "-c", a2[] = "exit 0";
	char *argv[] = { a0, a1, a2, NULL };

	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	/* no old set: the C library's own calls always ask for it */
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, NULL, 8);
	printf("guest rt_sigprocmask.how_str SIG_BLOCK\nguest rt_sigprocmask.set_str [SIGUSR1|SIGTERM]\n"
	       "guest rt_sigprocmask.set_uaddr %#lx\n", (unsigned long)&set);
	syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &set, NULL, 8);
	signal(SIGUSR1, SIG_IGN);
	syscall(SYS_kill, getpid(), SIGUSR1);
	printf("guest kill.pid %d\nguest kill.sig_name SIGUSR1\n", getpid());
	syscall(SYS_tgkill, getpid(), getpid(), SIGUSR1);
	printf("guest tgkill.tgid %d\nguest tgkill.sig_str SIGUSR1\n", getpid());
	fflush(stdout);
	/* a raw clone with no new stack: a fork */
	child = syscall(SYS_clone, (long)SIGCHLD, 0L, NULL, NULL, 0L);
	if (child == 0)
		syscall(SYS_exit_group, 3);
	printf("guest clone.clone_flags %#x\nguest clone.stack_start 0\n", SIGCHLD);
	syscall(SYS_wait4, child, &status, 0, NULL);
	printf("guest wait4.pid %ld\nguest wait4.status_uaddr %#lx\nguest wait4.options_str 0\n"
	       "guest exit_group.status 3\n", child, (unsigned long)&status);
	fflush(stdout);
	child = fork();
	if (child == 0) {
		syscall(SYS_execve, sh, argv, NULL);
		_exit(127);
	}
	printf("guest execve.filename \"/bin/sh\"\nguest execve.args [\"sh\", \"-c\", \"exit 0\"]\n");
	syscall(SYS_wait4, child, &status, WNOHANG, NULL);
	waitpid(child, &status, __WALL);	/* not the wait4 the script checks */
	printf("guest wait4nohang.options_str %s\n", bits(wait_bits, WNOHANG));
}

/* linux/sched/types.h's, whose struct sched_param clashes with sched.h's */
struct sched_attr {
	unsigned int size, sched_policy;
	unsigned long long sched_flags;
	int sched_nice;
	unsigned int sched_priority;
	unsigned long long sched_runtime, sched_deadline, sched_period;
	unsigned int sched_util_min, sched_util_max;
};

static const struct bit inotify_bits[] = { BIT(IN_CREATE), BIT(IN_DELETE), { 0, NULL } };
static const struct bit falloc_bits[] = { BIT(FALLOC_FL_KEEP_SIZE), { 0, NULL } };
static const struct bit rwf_bits[] = { BIT(RWF_HIPRI), BIT(RWF_NOWAIT), { 0, NULL } };

static void sysv_ipc(void)
{
	struct { long mtype; char text[8]; } m = { 1, "ping" };
	int id;

	id = syscall(SYS_shmget, IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	printf("guest shmget.shmflg %d\nguest shmget.shmflg_str IPC_CREAT|0600\n", IPC_CREAT | 0600);
	syscall(SYS_shmat, id, NULL, SHM_RDONLY);
	printf("guest shmat.shmflg_str SHM_RDONLY\n");
	syscall(SYS_shmctl, id, IPC_RMID, NULL);
	printf("guest shmctl.cmd_str IPC_RMID\n");
	id = syscall(SYS_semget, IPC_PRIVATE, 1, IPC_CREAT | IPC_EXCL | 0640);
	printf("guest semget.key_str IPC_PRIVATE\nguest semget.semflg_str IPC_CREAT|IPC_EXCL|0640\n");
	syscall(SYS_semctl, id, 0, GETVAL, 0);
	printf("guest semctl.cmdstr GETVAL\n");
	syscall(SYS_semctl, id, 0, IPC_RMID, 0);
	id = syscall(SYS_msgget, 1234, IPC_CREAT | 0600);
	printf("guest msgget.key_str 1234\nguest msgget.msgflg_str IPC_CREAT|0600\n");
	syscall(SYS_msgsnd, id, &m, 4, IPC_NOWAIT);
	printf("guest msgsnd.msgflg_str IPC_NOWAIT\n");
	syscall(SYS_msgrcv, id, &m, 8, 0L, IPC_NOWAIT | MSG_NOERROR);
	printf("guest msgrcv.msgflg_str IPC_NOWAIT|MSG_NOERROR\n");
	syscall(SYS_msgctl, id, IPC_STAT, NULL);
	printf("guest msgctl.cmd_str IPC_STAT\n");
	syscall(SYS_msgctl, id, IPC_RMID, NULL);
}

static void decoded_signals(void)
{
	struct { unsigned long handler, flags, restorer, mask; } act = {
		(unsigned long)SIG_IGN, SA_RESTART, 0, 1UL << (SIGINT - 1) };
	siginfo_t si = { 0 };
	stack_t ss = { 0 };
	static char altstack[65536];

	syscall(SYS_rt_sigaction, SIGUSR2, &act, NULL, 8);
	printf("guest rt_sigaction.act_str {SIG_IGN, SA_RESTART, 0x0, [SIGINT]}\n");
	signal(SIGUSR1, SIG_IGN);
	si.si_signo = SIGUSR1;
	si.si_code = SI_QUEUE;
	si.si_pid = getpid();
	si.si_uid = getuid();
	syscall(SYS_rt_sigqueueinfo, getpid(), SIGUSR1, &si);
	printf("guest rt_sigqueueinfo.siginfo_str {si_signo=SIGUSR1, si_errno=0, si_code=SI_QUEUE, "
	       "si_pid=%d, si_uid=%d}\n", getpid(), getuid());
	ss.ss_sp = altstack;
	ss.ss_size = sizeof(altstack);
	syscall(SYS_sigaltstack, &ss, NULL);
	printf("guest sigaltstack.uss_str {ss_sp=%p, ss_flags=0, ss_size=%zu}\n", altstack,
	       sizeof(altstack));
}

static void decoded_time(int fd)
{
	struct itimerval itv = { { 0, 0 }, { 5, 250 } }, off = { 0 };
	struct itimerspec its = { { 1, 2 }, { 100, 0 } };
	struct timeval tv = { 5, 2000000 }, tvp[2] = { { 10, 1 }, { 20, 2 } };
	struct timezone tz = { -60, 0 };
	struct timespec ts = { 1, 5 };
	struct timex tx = { 0 };
	struct utimbuf ub = { 1000, 2000 };
	int tfd;

	syscall(SYS_setitimer, ITIMER_VIRTUAL, &itv, NULL);
	printf("guest setitimer.value_str [0.000000, 5.000250]\n");
	syscall(SYS_setitimer, ITIMER_VIRTUAL, &off, NULL);
	tfd = syscall(SYS_timerfd_create, CLOCK_MONOTONIC, 0);
	syscall(SYS_timerfd_settime, tfd, 0, &its, NULL);
	printf("guest timerfd_settime.value_str [1.000000002, 100.000000000]\n");
	close(tfd);
	/* an invalid timeval: EINVAL before anything is set */
	syscall(SYS_settimeofday, &tv, &tz);
	printf("guest settimeofday.tv_str [5.2000000]\nguest settimeofday.tz_str [-60, 0]\n");
	/* the monotonic clock cannot be set: EINVAL */
	syscall(SYS_clock_settime, CLOCK_MONOTONIC, &ts);
	printf("guest clock_settime.tp_uaddr_str [1.000000005]\n");
	/* modes 0 only reads the clock's state */
	syscall(SYS_adjtimex, &tx);
	printf("guest adjtimex.buf_uaddr %#lx\nguest adjtimex.buf_str {modes=0, offset=0, freq=0, "
	       "maxerror=0, esterror=0, status=0, constant=0, precision=0, tolerance=0, "
	       "time=[0.000000], tick=0}\n", (unsigned long)&tx);
	/* no AIO context 0: EINVAL */
	syscall(SYS_io_getevents, 0L, 1L, 1L, NULL, &ts);
	printf("guest io_getevents.timestr [1.000000005]\n");
	syscall(SYS_utime, DIR "/d1", &ub);
	printf("guest utime.actime 1000\nguest utime.modtime 2000\n");
	syscall(SYS_utimes, DIR "/d1", tvp);
	printf("guest utimes.tvp_uaddr_str [10.000001, 20.000002]\n");
	(void)fd;
}

static void decoded_files(void)
{
	struct iovec iov = { NULL, 0 };
	char buf[16];
	int fd, in;

	mkdir(DIR, 0755);
	fd = at(syscall(SYS_openat, AT_FDCWD, DIR "/d1", O_RDWR | O_CREAT | O_TRUNC, 0644), 120);
	syscall(SYS_fallocate, fd, FALLOC_FL_KEEP_SIZE, 0L, 4096L);
	printf("guest fallocate.mode_str %s\n", bits(falloc_bits, FALLOC_FL_KEEP_SIZE));
	syscall(SYS_sync_file_range, fd, 0L, 0L, SYNC_FILE_RANGE_WRITE);
	printf("guest sync_file_range.flags_str SYNC_FILE_RANGE_WRITE\n");
	iov.iov_base = buf;
	iov.iov_len = sizeof(buf);
	syscall(SYS_preadv2, fd, &iov, 1, 0L, 0L, RWF_HIPRI);
	printf("guest preadv2.flags_str %s\n", bits(rwf_bits, RWF_HIPRI));
	/* tmpfs has no user.* attributes in 6.1: the call fails */
	syscall(SYS_setxattr, DIR "/d1", "user.k", "abc", 3L, XATTR_CREATE);
	printf("guest setxattr.value_str \"abc\"\nguest setxattr.flags_str XATTR_CREATE\n");
	unlink(DIR "/fifo");
	syscall(SYS_mknod, DIR "/fifo", S_IFIFO | 0644, 0L);
	printf("guest mknod.mode_str S_IFIFO|%#o\n", 0644);
	unlink(DIR "/fifo");
	in = at(syscall(SYS_inotify_init1, IN_CLOEXEC), 121);
	syscall(SYS_inotify_add_watch, in, DIR, IN_CREATE | IN_DELETE);
	printf("guest inotify_add_watch.mask_str %s\n", bits(inotify_bits, IN_CREATE | IN_DELETE));
	close(in);
	decoded_time(fd);
	close(fd);
	/* fails: the path does not exist (and it is no swap file) */
	syscall(SYS_swapon, DIR "/noswap", SWAP_FLAG_PREFER | 5);
	printf("guest swapon.swapflags_str SWAP_FLAG_PREFER|5\n");
	syscall(SYS_quotactl, QCMD(Q_GETQUOTA, USRQUOTA), DIR "/noquota", 0, buf);
	printf("guest quotactl.cmd_str Q_GETQUOTA|USRQUOTA\n");
}

static void decoded_proc(void)
{
	struct rlimit rl;
	struct sched_attr attr = { .size = sizeof(attr), .sched_policy = SCHED_OTHER };
	unsigned int action = SECCOMP_RET_KILL_PROCESS;
	union bpf_attr battr = { 0 };
	char host[64];

	syscall(SYS_setpriority, PRIO_PROCESS, 0, 0);
	printf("guest setpriority.which_str PRIO_PROCESS\n");
	syscall(SYS_sched_get_priority_max, SCHED_FIFO);
	printf("guest sched_get_priority_max.policy_str SCHED_FIFO\n");
	syscall(SYS_sched_setattr, 0, &attr, 0);
	printf("guest sched_setattr.sched_attr_str {size=%zu, sched_policy=SCHED_OTHER, sched_flags=0x0, "
	       "sched_nice=0, sched_priority=0, sched_runtime=0, sched_deadline=0, sched_period=0}\n",
	       sizeof(attr));
	getrlimit(RLIMIT_CORE, &rl);
	rl.rlim_cur = 0;
	syscall(SYS_setrlimit, RLIMIT_CORE, &rl);
	printf("guest setrlimit.rlim_str [0,%s]\n", rl.rlim_max == RLIM_INFINITY ? "RLIM_INFINITY" :
	       "?");
	syscall(SYS_prlimit64, 0, RLIMIT_CORE, &rl, NULL);
	printf("guest prlimit64.new_rlim_str [0,%s]\n", rl.rlim_max == RLIM_INFINITY ?
	       "RLIM_INFINITY" : "?");
	syscall(SYS_ioprio_set, 1, 0, (2 << 13) | 4);	/* IOPRIO_WHO_PROCESS, class BE */
	printf("guest ioprio_set.which_str IOPRIO_WHO_PROCESS\nguest ioprio_set.ioprio_str IOPRIO_CLASS_BE|4\n");
	syscall(SYS_waitid, P_ALL, 0, NULL, WEXITED | WNOHANG, NULL);
	printf("guest waitid.which_str P_ALL\n");
	/* the magic numbers are checked first: a wrong second one is EINVAL */
	syscall(SYS_reboot, LINUX_REBOOT_MAGIC1, 12345, LINUX_REBOOT_CMD_CAD_ON, NULL);
	printf("guest reboot.magic_str LINUX_REBOOT_MAGIC1\nguest reboot.magic2_str %#x\n"
	       "guest reboot.flag_str LINUX_REBOOT_CMD_CAD_ON\n", 12345);
	/* a host name of its own, in a UTS namespace of its own */
	syscall(SYS_unshare, CLONE_NEWUTS);
	printf("guest unshare.unshare_flags_str CLONE_NEWUTS\n");
	strcpy(host, "ktapsv-host");
	syscall(SYS_sethostname, host, 6L);
	printf("guest sethostname.name_str \"ktapsv\"\nguest sethostname.name_str_unquoted ktapsv\n");
	syscall(SYS_setns, -1, CLONE_NEWNET);
	printf("guest setns.nstype_str CLONE_NEWNET\n");
	syscall(SYS_delete_module, "ktap_no_such_module", O_NONBLOCK);
	printf("guest delete_module.flags_str O_NONBLOCK\n");
	syscall(SYS_finit_module, -1, "", 2);	/* MODULE_INIT_IGNORE_VERMAGIC */
	printf("guest finit_module.flags_str MODULE_INIT_IGNORE_VERMAGIC\n");
	syscall(SYS_kcmp, getpid(), getpid(), KCMP_VM, 0L, 0L);
	printf("guest kcmp.type_str KCMP_VM\n");
	syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action);
	printf("guest seccomp.op_str SECCOMP_GET_ACTION_AVAIL\n");
	syscall(SYS_bpf, BPF_PROG_GET_NEXT_ID, &battr, sizeof(battr));
	printf("guest bpf.cmd_str BPF_PROG_GET_NEXT_ID\n");
	syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
	printf("guest membarrier.cmd_str MEMBARRIER_CMD_QUERY\n");
}

static void decoded(void)
{
	int s = at(syscall(SYS_socket, AF_INET, SOCK_DGRAM, 0), 122), one = 1;
	socklen_t len = sizeof(one);

	syscall(SYS_setsockopt, s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	printf("guest setsockopt.level_str SOL_SOCKET\nguest setsockopt.optname_str SO_REUSEADDR\n");
	syscall(SYS_getsockopt, s, IPPROTO_IP, IP_TTL, &one, &len);
	printf("guest getsockopt.level_str SOL_IP\nguest getsockopt.optname_str IP_TTL\n");
	close(s);
	sysv_ipc();
	decoded_signals();
	decoded_files();
	decoded_proc();
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && strcmp(argv[1], "files") == 0)
		files();
	else if (argc > 1 && strcmp(argv[1], "mem") == 0)
		mem();
	else if (argc > 1 && strcmp(argv[1], "proc") == 0)
		proc();
	else if (argc > 1 && strcmp(argv[1], "decoded") == 0)
		decoded();
	else {
		fprintf(stderr, "usage: sysvars files|mem|proc|decoded\n");
		return 2;
	}
	return 0;
}
