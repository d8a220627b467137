/* sysdoc.c - what SystemTap's documented syscall variables mean in ktap.
 *
 * tapset::syscalls(3stap) names, for each syscall.NAME probe, the
 * variables it offers (sysdoc-table.h, generated from the page by
 * scripts/sysdoc-gen); stapprobes(3stap) gives their naming rules. A name
 * is a base and a form:
 *   BASE          the argument's value; of a string argument its text
 *                 quoted and escaped ("\"/etc/passwd\"")
 *   BASE_uaddr    the user address the argument is
 *   BASE_unquoted a string argument's text as it is
 *   BASE_str      the value decoded to symbols (flags_str "O_RDONLY|O_CLOEXEC",
 *                 sig_str "SIGUSR1"), a structure shown as text (req_str),
 *                 or of a string argument its quoted text (name_str)
 * and the base is one of the call's arguments: the kernel's parameter of
 * that name, or, where SystemTap names it otherwise (accept's sockfd is
 * the kernel's fd; socket's arguments have no names in the headers), the
 * position given below. A BASE_str of a structure the argument points to
 * is decoded from user memory by a tapset function (struct_decoders,
 * tapsets/syscall_decoders.stp); a name that is no argument in one of
 * these forms (pipe0, utime's actime, sethostname's name_str of len
 * bytes) is spelled out whole (specials). A name this cannot give a
 * value is not set, and the warning for reading it says it is documented
 * but not computed (resolve's warning, alias_vars_note()): never a
 * silent 0.
 */
#include <string.h>

#include "sysdoc.h"

struct sysdoc_entry {
	const char *probe;
	const char *vars;
};

static const struct sysdoc_entry documented[] = {
#define SYSDOC(probe, vars) { probe, vars },
#include "sysdoc-table.h"
#undef SYSDOC
};

/* kernel calls that SystemTap documents under another probe's name */
static const char *const doc_names[][2] = {
	{ "pread64", "pread" }, { "pwrite64", "pwrite" }, { "mmap", "mmap2" },
	{ "umount2", "umount" }, { "newfstatat", "fstatat" }, { "pipe2", "pipe" },
	{ "eventfd2", "eventfd" }, { "epoll_create1", "epoll_create" },
	{ "inotify_init1", "inotify_init" }, { "signalfd4", "signalfd" },
	{ "getdents64", "getdents" }, { "epoll_pwait2", "epoll_pwait" },
};

/*
 * Where a documented base is not the kernel parameter of the same name:
 * "BASE=N" is argument N (1-6) of the kernel call; "BASE=0" is a value
 * the call does not take (dup2's and pipe's flags: 0).
 */
static const char *const positions[][2] = {
	{ "accept", "sockfd=1 addr=2 addrlen=3" },
	{ "accept4", "sockfd=1 addr=2 addrlen=3 flags=4" },
	{ "bind", "sockfd=1 my_addr=2 addrlen=3" },
	{ "connect", "sockfd=1 serv_addr=2 addrlen=3" },
	{ "listen", "sockfd=1 backlog=2" },
	{ "socket", "family=1 type=2 protocol=3" },
	{ "socketpair", "family=1 type=2 protocol=3 sv=4" },
	{ "sendto", "s=1 buf=2 len=3 flags=4 to=5 tolen=6" },
	{ "recvfrom", "s=1 buf=2 len=3 flags=4 addr=5 addrlen=6" },
	{ "sendmsg", "s=1 msg=2 flags=3" }, { "recvmsg", "s=1 msg=2 flags=3" },
	{ "sendmmsg", "s=1 mmsg=2 vlen=3 flags=4" },
	{ "recvmmsg", "s=1 mmsg=2 vlen=3 flags=4 timeout=5" },
	{ "shutdown", "s=1 how=2" },
	{ "getsockname", "s=1 name=2 namelen=3" }, { "getpeername", "s=1 name=2 namelen=3" },
	{ "setsockopt", "fd=1 level=2 optname=3 optval=4 optlen=5" },
	{ "getsockopt", "fd=1 level=2 optname=3 optval=4 optlen=5" },
	{ "clone", "clone_flags=1 stack_start=2 parent_tid=3 child_tid=4" },
	{ "pread64", "offset=4" }, { "pwrite64", "offset=4" },
	{ "readv", "vector=2 count=3" }, { "writev", "vector=2 count=3" },
	{ "preadv", "vector=2 count=3 offset=4" }, { "pwritev", "vector=2 count=3 offset=4" },
	{ "preadv2", "vector=2 count=3 offset=4 flags=6" },
	{ "pwritev2", "vector=2 count=3 offset=4 flags=6" },
	{ "stat", "filename=1 buf=2" }, { "lstat", "path=1 buf=2" },
	{ "fstat", "filedes=1 buf=2" },
	{ "newfstatat", "dirfd=1 path=2 buf=3 flags=4" },
	{ "statx", "dfd=1 filename=2 flags=3 mask=4 buf=5" },
	{ "statfs", "path=1 buf=2" }, { "fstatfs", "fd=1 buf=2" },
	{ "mmap", "start=1 length=2 prot=3 flags=4 fd=5 pgoffset=6" },
	{ "munmap", "start=1 length=2" }, { "mprotect", "addr=1 len=2 prot=3" },
	{ "pkey_mprotect", "addr=1 len=2 prot=3 pkey=4" },
	{ "madvise", "start=1 length=2 advice=3" }, { "msync", "start=1 length=2 flags=3" },
	{ "mlock", "addr=1 len=2" }, { "munlock", "addr=1 len=2" },
	{ "mlock2", "addr=1 len=2 flags=3" }, { "mincore", "start=1 length=2 vec=3" },
	{ "mremap", "old_address=1 old_size=2 new_size=3 flags=4 new_address=5" },
	{ "ioctl", "fd=1 request=2 argp=3" },
	{ "execve", "filename=1 args=2 env=3" },
	{ "execveat", "dirfd=1 filename=2 args=3 env=4 flags=5" },
	{ "exit", "status=1" }, { "exit_group", "status=1" },
	{ "wait4", "pid=1 status=2 options=3 rusage=4" },
	{ "waitid", "which=1 pid=2 infop=3 options=4 rusage=5" },
	{ "unlinkat", "dfd=1 pathname=2 flag=3" },
	{ "rename", "oldpath=1 newpath=2" },
	{ "renameat", "olddfd=1 oldname=2 newdfd=3 newname=4" },
	{ "renameat2", "olddfd=1 oldname=2 newdfd=3 newname=4 flags=5" },
	{ "mkdirat", "dirfd=1 pathname=2 pahtname=2 mode=3" },
	{ "mknod", "pathname=1 mode=2 dev=3" }, { "mknodat", "dirfd=1 pathname=2 mode=3 dev=4" },
	{ "chdir", "path=1" }, { "chroot", "path=1" }, { "chmod", "path=1 mode=2" },
	{ "chown", "path=1 owner=2 group=3" }, { "lchown", "path=1 owner=2 group=3" },
	{ "fchown", "fd=1 owner=2 group=3" }, { "fchmod", "fildes=1 mode=2" },
	{ "fchmodat", "dirfd=1 pathname=2 mode=3" },
	{ "fchownat", "dirfd=1 pathname=2 owner=3 group=4 flags=5" },
	{ "access", "pathname=1 mode=2" }, { "faccessat", "dirfd=1 pathname=2 mode=3" },
	{ "faccessat2", "dirfd=1 pathname=2 mode=3 flags=4" },
	{ "dup", "oldfd=1" }, { "dup2", "oldfd=1 newfd=2 flags=0" },
	{ "pipe", "fildes=1 flags=0 flag=0" }, { "pipe2", "fildes=1 flags=2 flag=2" },
	{ "poll", "ufds=1 nfds=2 timeout=3" },
	{ "ppoll", "fds=1 nfds=2 tsp=3 sigmask=4 sigsetsize=5" },
	{ "select", "n=1 readfds=2 writefds=3 exceptfds=4 timeout=5" },
	{ "pselect6", "nfds=1 readfds=2 writefds=3 exceptfds=4 timeout=5 sigmask=6" },
	{ "epoll_create", "size=1 flags=0" }, { "epoll_create1", "flags=1" },
	{ "futex", "futex=1 op=2 val=3 utime=4 uaddr2=5 val3=6" },
	{ "nanosleep", "req=1 rem=2" },
	{ "clock_nanosleep", "clk_id=1 flags=2 req=3 rem=4" },
	{ "clock_gettime", "clk_id=1 tp=2" }, { "clock_settime", "clk_id=1 tp=2" },
	{ "clock_getres", "clk_id=1 res=2" },
	{ "mount", "source=1 target=2 filesystemtype=3 mountflags=4 data=5" },
	{ "umount2", "target=1 flags=2" },
	{ "lseek", "fildes=1 offset=2 whence=3" },
	{ "getdents", "fd=1 dirp=2 count=3" }, { "getdents64", "fd=1 dirp=2 count=3" },
	{ "readlink", "path=1 buf=2 bufsiz=3" },
	{ "readlinkat", "dfd=1 path=2 buf=3 bufsiz=4" },
	{ "truncate", "path=1 length=2" },
	{ "symlink", "oldpath=1 newpath=2" }, { "link", "oldpath=1 newpath=2" },
	{ "symlinkat", "oldname=1 newdfd=2 newname=3" },
	{ "linkat", "olddirfd=1 oldpath=2 newdirfd=3 newpath=4 flags=5" },
	{ "rt_sigaction", "sig=1 act=2 oact=3 sigsetsize=4" },
	{ "rt_sigprocmask", "how=1 set=2 oldset=3 sigsetsize=4" },
	{ "uname", "name=1" }, { "getrandom", "buf=1 count=2 flags=3" },
	{ "set_tid_address", "tidptr=1" }, { "set_robust_list", "list_head=1 len=2" },
	{ "inotify_add_watch", "fd=1 path=2 mask=3" },
	{ "sched_setaffinity", "pid=1 len=2 mask=3" },
	{ "sched_getaffinity", "pid=1 len=2 mask=3" },
	{ "eventfd", "count=1 flags=0" }, { "eventfd2", "count=1 flags=2" },
	{ "sendfile", "out_fd=1 in_fd=2 offset=3 count=4" },
	{ "fadvise64", "fd=1 offset=2 len=3 advice=4" },
	{ "fallocate", "fd=1 mode=2 offset=3 len=4" },
	{ "getrlimit", "resource=1 rlim=2" }, { "setrlimit", "resource=1 rlim=2" },
	{ "prlimit64", "pid=1 resource=2 new_rlim=3 old_rlim=4" },
	{ "getrusage", "who=1 usage=2" }, { "gettimeofday", "tv=1 tz=2" },
	{ "settimeofday", "tv=1 tz=2" }, { "sysinfo", "info=1" }, { "times", "buf=1" },
	{ "getcwd", "buf=1 size=2" }, { "flock", "fd=1 operation=2" },
	{ "fcntl", "fd=1 cmd=2 arg=3" }, { "fsync", "fd=1" }, { "fdatasync", "fd=1" },
	{ "ftruncate", "fd=1 length=2" }, { "fchdir", "fd=1" },
	{ "memfd_create", "uname=1 flags=2" }, { "kcmp", "pid1=1 pid2=2 type=3 idx1=4 idx2=5" },
	{ "timerfd_create", "clockid=1 flags=2" },
	{ "signalfd4", "flags=4" }, { "inotify_init1", "flags=1" },
	{ "splice", "fd_in=1 off_in=2 fd_out=3 off_out=4 len=5 flags=6" },
	{ "tee", "fdin=1 fdout=2 len=3 flags=4" },
	{ "copy_file_range", "fd_in=1 off_in=2 fd_out=3 off_out=4 len=5 flags=6" },
	{ "getpriority", "which=1 who=2" }, { "setpriority", "which=1 who=2 prio=3" },
	{ "setns", "fd=1 nstype=2" }, { "unshare", "unshare_flags=1" },
	{ "personality", "persona=1" }, { "alarm", "seconds=1" },
	{ "getitimer", "which=1 value=2" }, { "setitimer", "which=1 value=2 ovalue=3" },
	{ "rt_sigqueueinfo", "pid=1 sig=2 uinfo=3" },
	{ "rt_tgsigqueueinfo", "tgid=1 tid=2 sig=3 uinfo=4" },
	{ "rt_sigsuspend", "set=1 sigsetsize=2" }, { "rt_sigpending", "set=1 sigsetsize=2" },
	{ "sigaltstack", "uss=1 uoss=2" },
	{ "arch_prctl", "code=1 addr=2" }, { "acct", "filename=1" },
	{ "swapon", "path=1 swapflags=2" }, { "swapoff", "path=1" },
	{ "sethostname", "hostname=1 name=1 len=2" },
	{ "setdomainname", "domainname=1 len=2" },
	{ "getgroups", "size=1 list=2" }, { "setgroups", "size=1 list=2" },
	{ "setfsuid", "fsuid=1" }, { "setfsgid", "fsgid=1" },
	{ "capget", "header=1 data=2" }, { "capset", "header=1 data=2" },
	{ "time", "t=1" }, { "timer_create", "clockid=1 evp=2 timerid=3" },
	{ "timer_settime", "timerid=1 flags=2 value=3 ovalue=4" },
	{ "timer_gettime", "timerid=1 value=2" }, { "timer_getoverrun", "timerid=1" },
	{ "timer_delete", "timerid=1" },
	{ "timerfd_settime", "fd=1 flags=2 value=3 ovalue=4" },
	{ "timerfd_gettime", "fd=1 value=2" },
	{ "utime", "filename=1 buf=2" }, { "utimes", "filename=1 tvp=2" },
	{ "utimensat", "dfd=1 filename=2 tsp=3 flags=4" },
	{ "futimesat", "dirfd=1 filename=2 tvp=3" },
	{ "name_to_handle_at", "dfd=1 pathname=2 handle=3 mnt_id=4 flags=5" },
	{ "open_by_handle_at", "mount_dfd=1 handle=2 flags=3" },
	{ "clock_adjtime", "clk_id=1 tx=2" },
	{ "io_setup", "maxevents=1 ctxp=2" }, { "io_submit", "ctx_id=1 nr=2 iocbpp=3" },
	{ "syslog", "type=1 bufp=2 len=3" },
	{ "sched_setparam", "pid=1 p=2" }, { "sched_getparam", "pid=1 p=2" },
	{ "sched_setscheduler", "pid=1 policy=2 p=3" },
	{ "sched_rr_get_interval", "pid=1 tp=2" },
	{ "sched_get_priority_max", "policy=1" }, { "sched_get_priority_min", "policy=1" },
	{ "mq_open", "filename=1 name=1 oflag=2 mode=3 u_attr=4" }, { "mq_unlink", "u_name=1" },
	{ "mq_getsetattr", "mqdes=1 u_mqstat=2 u_omqstat=3" },
	{ "process_vm_readv", "pid=1 local_iov=2 liovcnt=3 remote_iov=4 riovcnt=5 flags=6" },
	{ "process_vm_writev", "pid=1 local_iov=2 liovcnt=3 remote_iov=4 riovcnt=5 flags=6" },
	{ "get_robust_list", "pid=1 list_head=2 len=3" },
	{ "getcpu", "cpu=1 node=2 tcache=3" },
	{ "migrate_pages", "pid=1 maxnode=2 old_nodes=3 new_nodes=4" },
	{ "kexec_file_load", "kernel_fd=1 initrd_fd=2 cmdline_len=3 cmdline=4 flags=5" },
	{ "sched_setattr", "pid=1 sched_attr=2 flags=3" },
	{ "sched_getattr", "pid=1 sched_attr=2 size=3 flags=4" },
	{ "fanotify_mark", "fanotify_fd=1 flags=2 mask=3 dirfd=4 pathname=5" },
	{ "add_key", "type=1 description=2 payload=3 plen=4 ringid=5" },
	{ "request_key", "type=1 description=2 callout_info=3 destringid=4" },
	{ "keyctl", "option=1 arg2=2 arg3=3 arg4=4 arg5=5" },
	{ "ioperm", "from=1 num=2 turn_on=3" },
	{ "fsetxattr", "filedes=1 name=2 value=3 size=4 flags=5" },
	{ "fgetxattr", "filedes=1 name=2 value=3 size=4" },
	{ "flistxattr", "filedes=1 list=2 size=3" }, { "fremovexattr", "filedes=1 name=2" },
	{ "lookup_dcookie", "cookie=1 buffer=2 len=3" },
	{ "inotify_init", "flags=0" }, { "signalfd", "flags=0" }, { "epoll_create1", "flags=1 size=0" },
	{ "reboot", "magic=1 magic2=2 flag=3 arg=4" },
	{ "io_getevents", "ctx_id=1 min_nr=2 nr=3 events=4 timeout=5" },
	{ "rt_sigtimedwait", "uthese=1 uinfo=2 uts=3 sigsetsize=4" },
	{ "pivot_root", "new_root=1 old_root=2" }, { "rt_sigqueueinfo", "siginfo=3" },
	{ "io_getevents", "time=5" }, { "adjtimex", "buf=1" }, { "perf_event_open", "attr=1" },
};

/* what a BASE_str is made of, by the base (and, where the same base means
 * other things in other calls, the documented probe): a function of the
 * value (the tapsets' decoders, tapsets/syscall.stp) */
static const char *const decoders[][3] = {
	{ "open", "flags", "_open_flags_str" }, { "openat", "flags", "_open_flags_str" },
	{ "openat2", "flags", "_open_flags_str" },
	{ "mmap2", "flags", "_mmap_flags_str" },
	{ "accept4", "flags", "_sc_fd_flags_str" }, { "dup2", "flags", "_sc_fd_flags_str" },
	{ "dup3", "flags", "_sc_fd_flags_str" }, { "pipe", "flags", "_sc_fd_flags_str" },
	{ "eventfd", "flags", "_sc_fd_flags_str" }, { "epoll_create", "flags", "_sc_fd_flags_str" },
	{ "inotify_init", "flags", "_sc_fd_flags_str" }, { "signalfd", "flags", "_sc_fd_flags_str" },
	{ "timerfd_create", "flags", "_sc_fd_flags_str" }, { "pipe", "flag", "_sc_fd_flags_str" },
	{ "socket", "protocol", "_sc_ipproto_str" }, { "socketpair", "protocol", "_sc_ipproto_str" },
	{ "unlinkat", "flag", "_sc_at_flags_str" }, { "fstatat", "flags", "_sc_at_flags_str" },
	{ "statx", "flags", "_sc_at_flags_str" }, { "faccessat2", "flags", "_sc_at_flags_str" },
	{ "fchownat", "flags", "_sc_at_flags_str" }, { "linkat", "flags", "_sc_at_flags_str" },
	{ "execveat", "flags", "_sc_at_flags_str" }, { "utimensat", "flags", "_sc_at_flags_str" },
	{ "name_to_handle_at", "flags", "_sc_at_flags_str" },
	{ "recv", "flags", "_sc_msg_flags_str" }, { "recvfrom", "flags", "_sc_msg_flags_str" },
	{ "recvmsg", "flags", "_sc_msg_flags_str" }, { "recvmmsg", "flags", "_sc_msg_flags_str" },
	{ "send", "flags", "_sc_msg_flags_str" }, { "sendto", "flags", "_sc_msg_flags_str" },
	{ "sendmsg", "flags", "_sc_msg_flags_str" }, { "sendmmsg", "flags", "_sc_msg_flags_str" },
	{ "renameat2", "flags", "_sc_rename_flags_str" },
	{ "umount", "flags", "_sc_umount_flags_str" },
	{ "clock_nanosleep", "flags", "_sc_timer_flags_str" },
	{ "mount", "mountflags", "_sc_mount_flags_str" },
	{ "access", "mode", "_sc_access_mode_str" }, { "faccessat", "mode", "_sc_access_mode_str" },
	{ "faccessat2", "mode", "_sc_access_mode_str" },
	{ "shutdown", "how", "_sc_shutdown_how_str" },
	{ "rt_sigprocmask", "how", "_sc_sigprocmask_how_str" },
	{ "wait4", "options", "_sc_wait_options_str" }, { "waitid", "options", "_sc_wait_options_str" },
	{ "waitpid", "options", "_sc_wait_options_str" },
	{ "lseek", "whence", "_sc_seek_whence_str" },
	{ "epoll_ctl", "op", "_sc_epoll_op_str" },
	{ "fcntl", "cmd", "_sc_fcntl_cmd_str" },
	{ "socket", "family", "_sc_af_str" }, { "socketpair", "family", "_sc_af_str" },
	{ "socket", "type", "_sc_sock_type_str" }, { "socketpair", "type", "_sc_sock_type_str" },
	{ "nanosleep", "req", "_sc_timespec_str" }, { "clock_nanosleep", "req", "_sc_timespec_str" },
	{ "ppoll", "tsp", "_sc_timespec_str" }, { "pselect6", "timeout", "_sc_timespec_str" },
	{ "select", "timeout", "_sc_timeval_str" },
	{ "write", "buf", "_sc_buf_str" }, { "pwrite", "buf", "_sc_buf_str" },
	{ "arch_prctl", "code", "_arch_prctl_option_str" }, { "statx", "mask", "_sc_statx_mask_str" },
	{ "getrandom", "flags", "_sc_getrandom_flags_str" },
	{ "memfd_create", "flags", "_sc_memfd_flags_str" },
	{ "madvise", "advice", "_sc_madvise_advice_str" },
	{ "fadvise64", "advice", "_sc_fadvise_advice_str" },
	{ "mlockall", "flags", "_sc_mlockall_flags_str" }, { "msync", "flags", "_sc_msync_flags_str" },
	{ "mremap", "flags", "_sc_mremap_flags_str" },
	{ "setitimer", "which", "_sc_itimer_which_str" }, { "getitimer", "which", "_sc_itimer_which_str" },
	{ "getrusage", "who", "_sc_rusage_who_str" },
	{ "setrlimit", "resource", "_sc_rlimit_str" }, { "prlimit64", "resource", "_sc_rlimit_str" },
	{ "rt_sigprocmask", "set", "_sc_sigset_str" }, { "rt_sigsuspend", "set", "_sc_sigset_str" },
	{ "rt_sigtimedwait", "uthese", "_sc_sigset_str" },
	{ "execveat", "flags", "_sc_at_flags_str" },
	{ "timerfd_settime", "flags", "_sc_timer_flags_str" },
	{ "timer_settime", "flags", "_sc_timer_flags_str" },
	{ "utimensat", "tsp", "_sc_timespec_str" }, { "io_getevents", "time", "_sc_timespec_str" },
	{ "semtimedop", "timeout", "_sc_timespec_str" }, { "recvmmsg", "timeout", "_sc_timespec_str" },
	{ "rt_sigtimedwait", "uts", "_sc_timespec_str" },
	{ "shmat", "shmflg", "_sc_shmat_flags_str" },
	{ "msgsnd", "msgflg", "_sc_msg_ipc_flags_str" }, { "msgrcv", "msgflg", "_sc_msg_ipc_flags_str" },
	{ "setsockopt", "level", "_sc_sockopt_level_str" },
	{ "getsockopt", "level", "_sc_sockopt_level_str" },
	{ "setpriority", "which", "_sc_prio_which_str" },
	{ "sched_setscheduler", "policy", "_sc_sched_policy_str" },
	{ "sched_get_priority_max", "policy", "_sc_sched_policy_str" },
	{ "sched_get_priority_min", "policy", "_sc_sched_policy_str" },
	{ "mknod", "mode", "_sc_file_mode_str" }, { "mknodat", "mode", "_sc_file_mode_str" },
	{ "swapon", "swapflags", "_sc_swapon_flags_str" },
	{ "reboot", "magic", "_sc_reboot_magic_str" }, { "reboot", "magic2", "_sc_reboot_magic2_str" },
	{ "reboot", "flag", "_sc_reboot_cmd_str" },
	{ "delete_module", "flags", "_sc_delete_module_flags_str" },
	{ "quotactl", "cmd", "_sc_quotactl_cmd_str" },
	{ "setxattr", "flags", "_sc_xattr_flags_str" }, { "lsetxattr", "flags", "_sc_xattr_flags_str" },
	{ "fsetxattr", "flags", "_sc_xattr_flags_str" },
	{ "remap_file_pages", "flags", "_mmap_flags_str" },
	{ "mbind", "flags", "_sc_mpol_mf_flags_str" }, { "mbind", "mode", "_sc_mempolicy_mode_str" },
	{ "set_mempolicy", "mode", "_sc_mempolicy_mode_str" },
	{ "get_mempolicy", "flags", "_sc_get_mempolicy_flags_str" },
	{ "mq_open", "oflag", "_open_flags_str" },
	{ "kexec_load", "flags", "_sc_kexec_load_flags_str" },
	{ "kexec_file_load", "flags", "_sc_kexec_file_flags_str" },
	{ "waitid", "which", "_sc_waitid_which_str" },
	{ "ioprio_set", "which", "_sc_ioprio_which_str" }, { "ioprio_get", "which", "_sc_ioprio_which_str" },
	{ "ioprio_set", "ioprio", "_sc_ioprio_str" },
	{ "inotify_add_watch", "mask", "_sc_inotify_mask_str" },
	{ "unshare", "unshare_flags", "_sc_clone_flags_str" }, { "setns", "nstype", "_sc_clone_flags_str" },
	{ "splice", "flags", "_sc_splice_flags_str" }, { "vmsplice", "flags", "_sc_splice_flags_str" },
	{ "sync_file_range", "flags", "_sc_sync_file_range_flags_str" },
	{ "move_pages", "flags", "_sc_mpol_mf_flags_str" },
	{ "fallocate", "mode", "_sc_fallocate_mode_str" },
	{ "perf_event_open", "flags", "_sc_perf_flags_str" },
	{ "fanotify_init", "flags", "_sc_fanotify_init_flags_str" },
	{ "fanotify_init", "event_f_flags", "_open_flags_str" },
	{ "fanotify_mark", "flags", "_sc_fanotify_mark_flags_str" },
	{ "fanotify_mark", "mask", "_sc_fanotify_mask_str" },
	{ "open_by_handle_at", "flags", "_open_flags_str" },
	{ "kcmp", "type", "_sc_kcmp_type_str" },
	{ "finit_module", "flags", "_sc_finit_module_flags_str" },
	{ "seccomp", "op", "_sc_seccomp_op_str" }, { "seccomp", "flags", "_sc_seccomp_flags_str" },
	{ "bpf", "cmd", "_sc_bpf_cmd_str" }, { "userfaultfd", "flags", "_sc_userfaultfd_flags_str" },
	{ "membarrier", "cmd", "_sc_membarrier_cmd_str" }, { "mlock2", "flags", "_sc_mlock2_flags_str" },
	{ "preadv2", "flags", "_sc_rwf_flags_str" }, { "pwritev2", "flags", "_sc_rwf_flags_str" },
	{ "pkey_alloc", "init_val", "_sc_pkey_rights_str" },
	{ "memfd_secret", "flags", "_sc_fd_flags_str" },
	{ "*", "prot", "_mmap_prot_str" },
	{ "*", "sig", "_signal_name" },
	{ "*", "clk_id", "_sc_clockid_str" }, { "*", "clockid", "_sc_clockid_str" },
	{ "*", "dfd", "_dfd_str" }, { "*", "dirfd", "_dfd_str" }, { "*", "olddfd", "_dfd_str" },
	{ "*", "newdfd", "_dfd_str" }, { "*", "olddirfd", "_dfd_str" },
	{ "*", "newdirfd", "_dfd_str" }, { "*", "mount_dfd", "_dfd_str" },
};

/* a BASE_str that is the structure the argument points to, read from
 * user memory (tapsets/syscall_decoders.stp); also _sc_timespec_str,
 * _sc_timeval_str and _sc_sigset_str of the table above */
static const char *const struct_decoders[][3] = {
	{ "rt_sigaction", "act", "_sc_sigaction_str" },
	{ "setitimer", "value", "_sc_timeval_pair_str" },
	{ "timer_settime", "value", "_sc_itimerspec_str" },
	{ "timerfd_settime", "value", "_sc_itimerspec_str" },
	{ "sysinfo", "info", "_sc_sysinfo_str" }, { "times", "buf", "_sc_tms_str" },
	{ "rt_sigtimedwait", "uinfo", "_sc_siginfo_str" },
	{ "rt_sigqueueinfo", "siginfo", "_sc_siginfo_str" },
	{ "rt_tgsigqueueinfo", "uinfo", "_sc_siginfo_str" },
	{ "sigaltstack", "uss", "_sc_stack_t_str" },
	{ "setrlimit", "rlim", "_sc_rlimit_struct_str" },
	{ "prlimit64", "new_rlim", "_sc_rlimit_struct_str" },
	{ "settimeofday", "tv", "_sc_timeval_str" }, { "settimeofday", "tz", "_sc_timezone_str" },
	{ "clock_settime", "tp", "_sc_timespec_str" },
	{ "utimes", "tvp", "_sc_timeval_pair_str" }, { "futimesat", "tvp", "_sc_timeval_pair_str" },
	{ "adjtimex", "buf", "_sc_timex_str" }, { "clock_adjtime", "tx", "_sc_timex_str" },
	{ "sched_setattr", "sched_attr", "_sc_sched_attr_str" },
	{ "sched_getattr", "sched_attr", "_sc_sched_attr_str" },
};

/* documented variables that are no one argument in one of the forms
 * above, by the documented probe: the whole expression */
static const char *const specials[][3] = {
	/* the two descriptors of the array (at entry, what it holds before
	 * the call fills it in) */
	{ "pipe", "pipe0", "user_int(__sc_arg(1))" }, { "pipe", "pipe1", "user_int(__sc_arg(1) + 4)" },
	/* struct utimbuf: access and modification time; 0 for no buffer */
	{ "utime", "actime", "__sc_arg(2) ? user_long(__sc_arg(2)) : 0" },
	{ "utime", "modtime", "__sc_arg(2) ? user_long(__sc_arg(2) + 8) : 0" },
	/* a name of len bytes, not NUL-terminated */
	{ "sethostname", "name_str", "string_quoted(user_string_n(__sc_arg(1), __sc_int(2)))" },
	{ "sethostname", "name_str_unquoted", "user_string_n(__sc_arg(1), __sc_int(2))" },
	{ "setdomainname", "domainname_str", "string_quoted(user_string_n(__sc_arg(1), __sc_int(2)))" },
	{ "setdomainname", "domainname_str_unquoted", "user_string_n(__sc_arg(1), __sc_int(2))" },
	/* the value's size bytes */
	{ "setxattr", "value_str", "_sc_buf_str(__sc_arg(3), __sc_arg(4))" },
	{ "lsetxattr", "value_str", "_sc_buf_str(__sc_arg(3), __sc_arg(4))" },
	{ "fsetxattr", "value_str", "_sc_buf_str(__sc_arg(3), __sc_arg(4))" },
	/* System V IPC: the kernel's shmget names its flags "flag" */
	{ "shmget", "shmflg", "__sc_int(3)" },
	{ "shmget", "shmflg_str", "_sc_ipc_flags_str(__sc_int(3), 1)" },
	{ "semget", "semflg_str", "_sc_ipc_flags_str(__sc_int(3), 0)" },
	{ "msgget", "msgflg_str", "_sc_ipc_flags_str(__sc_int(2), 0)" },
	{ "semget", "key_str", "_sc_ipc_key_str(__sc_int(1))" },
	{ "msgget", "key_str", "_sc_ipc_key_str(__sc_int(1))" },
	{ "shmctl", "cmd_str", "_sc_ipc_cmd_str(\"shm\", __sc_int(2))" },
	{ "semctl", "cmdstr", "_sc_ipc_cmd_str(\"sem\", __sc_int(3))" },
	{ "msgctl", "cmd_str", "_sc_ipc_cmd_str(\"msg\", __sc_int(2))" },
	/* an option's name depends on its level */
	{ "setsockopt", "optname_str", "_sc_sockopt_name_str(__sc_int(2), __sc_int(3))" },
	{ "getsockopt", "optname_str", "_sc_sockopt_name_str(__sc_int(2), __sc_int(3))" },
};

static const char *table_lookup(const char *const (*t)[3], size_t n, const char *probe,
				const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(t[i][0], probe) == 0 && strcmp(t[i][1], key) == 0)
			return t[i][2];
	return NULL;
}

const char *sysdoc_probe_name(const char *call)
{
	for (size_t i = 0; i < sizeof(doc_names) / sizeof(doc_names[0]); i++)
		if (strcmp(doc_names[i][0], call) == 0)
			return doc_names[i][1];
	return call;
}

const char *sysdoc_documented(const char *call)
{
	const char *probe = sysdoc_probe_name(call);

	for (size_t i = 0; i < sizeof(documented) / sizeof(documented[0]); i++)
		if (strcmp(documented[i].probe, probe) == 0)
			return documented[i].vars;
	return NULL;
}

/* the position of BASE in the call's table above: 1-6, 0 for a constant
 * 0, -1 when the table does not say */
static int table_position(const char *call, const char *base)
{
	size_t len = strlen(base);

	for (size_t i = 0; i < sizeof(positions) / sizeof(positions[0]); i++) {
		const char *p = positions[i][1];

		if (strcmp(positions[i][0], call) != 0)
			continue;
		while ((p = strstr(p, base))) {
			if ((p == positions[i][1] || p[-1] == ' ') && p[len] == '=')
				return p[len + 1] - '0';
			p += len;
		}
	}
	return -1;
}

/* the argument BASE means: 1-6, 0 for a constant 0, -1 when none */
static int position_of(const char *call, const char *base, const struct sysdoc_arg *args,
		       int nargs)
{
	int pos = table_position(call, base);

	if (pos >= 0)
		return pos;
	for (int i = 0; i < nargs; i++)
		if (strcmp(args[i].name, base) == 0)
			return i + 1;
	return -1;
}

static const char *decoder(const char *probe, const char *base)
{
	for (size_t i = 0; i < sizeof(decoders) / sizeof(decoders[0]); i++)
		if ((strcmp(decoders[i][0], probe) == 0 || strcmp(decoders[i][0], "*") == 0) &&
		    strcmp(decoders[i][1], base) == 0)
			return decoders[i][2];
	return NULL;
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n > k && strcmp(s + n - k, suffix) == 0;
}

static char *strip(const char *s, const char *suffix)
{
	return xstrndup(s, strlen(s) - strlen(suffix));
}

enum form { F_VALUE, F_UADDR, F_UNQUOTED, F_STR };

/* "flags_str" is (flags, F_STR); "name_str_unquoted" (name, F_UNQUOTED);
 * "tvp_uaddr_str" (tvp, F_STR); "sig_name" (sig, F_STR) */
static char *split_name(const char *var, enum form *form)
{
	char *base;

	*form = F_VALUE;
	if (has_suffix(var, "_unquoted")) {
		*form = F_UNQUOTED;
		base = strip(var, "_unquoted");
		if (has_suffix(base, "_str"))
			base = strip(base, "_str");
		return base;
	}
	if (has_suffix(var, "_str") || strcmp(var, "sig_name") == 0) {
		*form = F_STR;
		base = strip(var, has_suffix(var, "_str") ? "_str" : "_name");
		if (has_suffix(base, "_uaddr"))
			base = strip(base, "_uaddr");
		return base;
	}
	if (strcmp(var, "cmdstr") == 0 || strcmp(var, "timestr") == 0) {
		*form = F_STR;
		return strip(var, "str");
	}
	if (has_suffix(var, "_uaddr")) {
		*form = F_UADDR;
		return strip(var, "_uaddr");
	}
	return xstrdup(var);
}

/* connect's and bind's uaddr_* (the address, argument 2, of length
 * argument 3), sendto's to_str (argument 5, of length 6) */
static char *sockaddr_expression(const char *probe, const char *var)
{
	static const char *const parts[][2] = {
		{ "uaddr_af", "_sc_sockaddr_af_str" }, { "uaddr_ip", "_sc_sockaddr_ip" },
		{ "uaddr_ip_port", "_sc_sockaddr_port" },
		{ "uaddr_ipv6_flowinfo", "_sc_sockaddr_flowinfo" },
		{ "uaddr_ipv6_scope_id", "_sc_sockaddr_scope_id" },
	};

	if (strcmp(var, "to_str") == 0)
		return strcmp(probe, "sendto") == 0 ?
		       xstrdup("_sc_sockaddr_str(__sc_arg(5), __sc_int(6))") : NULL;
	if (strcmp(probe, "connect") != 0 && strcmp(probe, "bind") != 0)
		return NULL;
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (strcmp(parts[i][0], var) == 0)
			return xasprintf("%s(__sc_arg(2), __sc_int(3))", parts[i][1]);
	return NULL;
}

/* the expression for VAR of the call, or NULL */
static char *expression(const char *call, const char *var, const struct sysdoc_arg *args,
			int nargs)
{
	const char *probe = sysdoc_probe_name(call), *fn;
	enum form form;
	char *base = split_name(var, &form);
	int pos = position_of(call, base, args, nargs);
	const struct sysdoc_arg *a;
	char *raw, *unquoted;
	bool is_string;

	if ((fn = table_lookup(specials, sizeof(specials) / sizeof(specials[0]), probe, var)))
		return xstrdup(fn);
	if (strncmp(var, "uaddr_", 6) == 0 || strcmp(var, "to_str") == 0)
		return sockaddr_expression(probe, var);
	if (pos == 0)
		return form == F_VALUE ? xstrdup("0") :
		       form == F_STR && (fn = decoder(probe, base)) ? xasprintf("%s(0)", fn) : NULL;
	if (pos < 0 || pos > nargs)
		return NULL;
	a = &args[pos - 1];
	raw = xasprintf("__sc_arg(%d)", pos);
	/* mount's data is a void pointer the page gives as text too */
	unquoted = xasprintf(" %s_unquoted ", base);
	is_string = a->is_string || (strchr(a->type, '*') &&
		strstr(xasprintf(" %s ", sysdoc_documented(call)), unquoted));
	switch (form) {
	case F_UADDR:
		return raw;
	case F_UNQUOTED:
		return is_string ? xasprintf("user_string2(%s, \"<unknown>\")", raw) : NULL;
	case F_VALUE:
		if (strcmp(var, "args") == 0)
			return xasprintf("_sc_argv_str(%s)", raw);
		if (strcmp(probe, "mmap2") == 0 && strcmp(var, "pgoffset") == 0)
			return xasprintf("%s >> 12", raw);
		/* sendto's and send's buf: the bytes, as getrandom's is the
		 * text it got (a string, like every BASE of a string) */
		if (is_string)
			return xasprintf("__sc_str_arg(%s)", raw);
		/* send's and sendto's buf: the bytes sent (len, argument 3) */
		if (strcmp(var, "buf") == 0 && (strcmp(probe, "sendto") == 0 || strcmp(probe, "send") == 0))
			return xasprintf("_sc_buf_str(%s, __sc_arg(3))", raw);
		return xstrdup(a->read);
	case F_STR:
		if ((strcmp(probe, "execve") == 0 || strcmp(probe, "execveat") == 0) &&
		    strcmp(base, "env") == 0)
			return xasprintf("_sc_envp_str(%s)", raw);
		if ((fn = table_lookup(struct_decoders,
				       sizeof(struct_decoders) / sizeof(struct_decoders[0]), probe, base)))
			return xasprintf("%s(%s)", fn, raw);
		if ((fn = decoder(probe, base))) {
			if (strcmp(fn, "_sc_buf_str") == 0)
				return xasprintf("%s(%s, __sc_arg(3))", fn, raw);
			/* these read the structure the argument points to */
			if (strcmp(fn, "_sc_timespec_str") == 0 || strcmp(fn, "_sc_timeval_str") == 0 ||
			    strcmp(fn, "_sc_sigset_str") == 0)
				return xasprintf("%s(%s)", fn, raw);
			return xasprintf("%s(%s)", fn, a->read);
		}
		if (is_string)
			return xasprintf("__sc_str_arg(%s)", raw);
		return NULL;
	}
	return NULL;
}

char **sysdoc_emit(struct strbuf *sb, const char *call, const struct sysdoc_arg *args,
		   int nargs, char **missing)
{
	const char *vars = sysdoc_documented(call);
	struct strbuf miss = { 0 };
	char **set = xalloc(sizeof(*set)), *list, *save = NULL, *var;
	int n = 0;

	sb_puts(&miss, "");
	if (vars) {
		list = xstrdup(vars);
		for (var = strtok_r(list, " ", &save); var; var = strtok_r(NULL, " ", &save)) {
			char *e = expression(call, var, args, nargs);

			if (!e) {
				sb_printf(&miss, "%s%s", miss.len ? " " : "", var);
				continue;
			}
			sb_printf(sb, "\t%s = %s\n", var, e);
			set = xrealloc(set, (n + 2) * sizeof(*set));
			set[n++] = xstrdup(var);
		}
	}
	set[n] = NULL;
	*missing = miss.buf;
	return set;
}
