/* sysvars GROUP - make system calls with known arguments and print what
 * was passed, "guest KEY VALUE", for testsuite/ktap.syscalls: the script
 * prints "ktap KEY VALUE" from syscall.NAME's documented variables and the
 * test compares the two (lib/ktap.exp, .cmp files).
 *
 * Descriptors the script must tell apart from the C library's own are
 * moved to fixed numbers (100...), and paths are under /tmp/ktapsv, so
 * each probe can pick the one call it is about. The symbolic names are
 * made here from the C library's own constants, independently of ktap's
 * decoders. GROUP is "files", "mem" or "proc". */
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
#include <linux/futex.h>

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

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && strcmp(argv[1], "files") == 0)
		files();
	else if (argc > 1 && strcmp(argv[1], "mem") == 0)
		mem();
	else if (argc > 1 && strcmp(argv[1], "proc") == 0)
		proc();
	else {
		fprintf(stderr, "usage: sysvars files|mem|proc\n");
		return 2;
	}
	return 0;
}
