// SPDX-License-Identifier: GPL-2.0
/*
 * selftest - a hand-written module in the shape the translator generates,
 * used to test the runtime in the guest (run-tests.sh). It stands for:
 *
 *   global opens, rets, ticks
 *   probe begin { printf conversions; sprintf/strcat/memory helpers }
 *   probe timer.ms(100) { ticks++; printf("tick %d\n", ticks)
 *                         + the failure selected by target() }
 *   probe kprobe.function("__x64_sys_openat") {
 *           if (execname() != "ktapread") next
 *           opens++; printf("open %d %s %s\n", pid(), execname(),
 *                           user_string(@cast(regs->di, "pt_regs")->si)) }
 *   probe kprobe.function("__x64_sys_openat").return { rets++ }
 *   probe end { printf("end opens=%d rets=%d ticks=%d\n", ...) }
 *
 * target() (module parameter ktap_target) selects a failure, on tick 3:
 *   1 division by zero   2 exit()             3 user_string fault
 *   4 MAXACTION          5 MAXNESTING         6 frame space exhausted
 *   7 a 20 KB print on tick 1 (several records; no failure)
 *   8 exit() in begin    9 error in end
 *   10 41 warnings in begin: more than the control ring holds
 */
#define KTAP_MODULE_NAME "ktap_selftest"
#include "runtime.h"
#include "fmtcases.h"

/* globals */
static int64_t g_opens;
static KTAP_DEFINE_RWLOCK(g_opens_lock);
static int64_t g_rets;
static KTAP_DEFINE_RWLOCK(g_rets_lock);
static int64_t g_ticks;
static KTAP_DEFINE_RWLOCK(g_ticks_lock);

static int g_kint = -5;
static const char g_kbytes[] = "\xff" "ABC";

/* function recurse:long (n:long) { return n ? recurse(n - 1) + 1 : 0 } */
static int64_t function_recurse(struct ktap_context *c, int64_t n)
{
	int64_t ret = 0;
	char *s;

	if (!ktap_nest_enter(c, "near identifier 'recurse' at selftest.stp:9:20"))
		return 0;
	s = ktap_frame_push(c, MAXSTRINGLEN);	/* a string local */
	if (unlikely(c->error))
		goto out;
	ktap_sprintf(c, s, "%d", n);
	if (n)
		ret = function_recurse(c, n - 1) + 1;
	ktap_frame_pop(c, MAXSTRINGLEN);
out:
	ktap_nest_leave(c);
	return ret;
}

/* probe begin: printf conversions and string helpers */
static void probe_0(struct ktap_context *c)
{
	char *s, *t;
	int n = 0;

	s = ktap_frame_push(c, MAXSTRINGLEN);
	t = ktap_frame_push(c, MAXSTRINGLEN);
	if (unlikely(c->error))
		goto out;

	ktap_printf(c, "begin %s\n", c->pp);
#define FMT_I(f, v) ktap_printf(c, "fmt %d [" f "]\n", (int64_t)n++, (int64_t)(v));
#define FMT_S(f, s) ktap_printf(c, "fmt %d [" f "]\n", (int64_t)n++, (const char *)(s));
#define FMT_WI(f, w, v) ktap_printf(c, "fmt %d [" f "]\n", (int64_t)n++, (int64_t)(w), (int64_t)(v));
#define FMT_WS(f, w, s) ktap_printf(c, "fmt %d [" f "]\n", (int64_t)n++, (int64_t)(w), (const char *)(s));
#define FMT_WPS(f, w, p, s) ktap_printf(c, "fmt %d [" f "]\n", (int64_t)n++, (int64_t)(w), (int64_t)(p), (const char *)(s));
	KTAP_FMT_CASES

	/* SystemTap-specific conversions (expected-special.txt) */
	ktap_printf(c, "special p [%p] [%p]\n", (int64_t)0x1234, (int64_t)-1);
	ktap_printf(c, "special #x0 [%#x] [%#o]\n", (int64_t)0, (int64_t)0);
	ktap_printf(c, "special len [%ld] [%lld] [%hd] [%lu]\n", (int64_t)5,
		    (int64_t)-6, (int64_t)70000, (int64_t)7);
	ktap_printf(c, "special b [%4b] [%1b] [%2b]\n", (int64_t)0x44434241,
		    (int64_t)0x45, (int64_t)0x4746);
	ktap_printf(c, "special m [%.3m] [%5.2m|] [%-4m|] [%m]\n", "hello",
		    "hello", "hello", "hello");
	ktap_printf(c, "special M [%.3M] [%8.2M|] [%M]\n", "ABC", "ABC", "\n");
	ktap_print_str(c, "special print_str");
	ktap_print_char(c, ' ');
	ktap_print_long(c, -1234567890123LL);
	ktap_print_char(c, '\n');

	/* sprintf into one of its own arguments */
	ktap_strcpy(s, "abc");
	ktap_sprintf(c, s, "<%s:%d>", s, (int64_t)strlen(s));
	ktap_printf(c, "string sprintf-alias [%s]\n", s);
	/* strcat with every aliasing */
	ktap_strcpy(s, "foo");
	ktap_strcat(s, s, "bar");
	ktap_printf(c, "string strcat-a [%s]\n", s);
	ktap_strcat(s, "x", s);
	ktap_printf(c, "string strcat-b [%s]\n", s);
	ktap_strcat(s, s, s);
	ktap_printf(c, "string strcat-ab [%s]\n", s);
	/* truncation at MAXSTRINGLEN - 1 */
	memset(t, 'y', 400);
	t[400] = '\0';
	ktap_strcat(s, t, t);
	ktap_printf(c, "string strcat-trunc %d\n", ktap_strlen(s));
	ktap_sprintf(c, s, "%s%s%d", t, t, (int64_t)12345);
	ktap_printf(c, "string sprintf-trunc %d\n", ktap_strlen(s));
	ktap_substr(s, "hello world", 6, 100);
	ktap_printf(c, "string substr [%s] %d %d\n", s,
		    ktap_isinstr("hello", "ell"), ktap_isinstr("hello", "xyz"));

	/* no-fault memory helpers */
	ktap_kernel_string(c, s, (unsigned long)"kernel-literal",
			   "near identifier 'kernel_string' at selftest.stp:5:3");
	ktap_printf(c, "mem kernel_string [%s]\n", s);
	ktap_kernel_string_n(c, s, (unsigned long)"kernel-literal", 6,
			     "near identifier 'kernel_string_n' at selftest.stp:5:3");
	ktap_printf(c, "mem kernel_string_n [%s]\n", s);
	ktap_kernel_string_or(s, 16, "kfallback");
	ktap_user_string_or(t, 1, "ufallback");
	ktap_printf(c, "mem fallback [%s] [%s]\n", s, t);
	ktap_printf(c, "mem read [%d] [%d] [%d] [%x]\n",
		    ktap_read_kernel_int(c, (unsigned long)&g_kint, NULL),
		    ktap_read_kernel_char(c, (unsigned long)g_kbytes, NULL),
		    ktap_read_kernel_short(c, (unsigned long)g_kbytes + 1, NULL),
		    ktap_read_kernel_pointer(c, (unsigned long)g_kbytes, NULL) &
		    0xffffffff);
	ktap_printf(c, "mem recurse %d\n", function_recurse(c, 5));
	if (unlikely(c->error))
		goto out;
	ktap_printf(c, "target %d\n", (int64_t)ktap_target);

	if (ktap_target == 10) {
		ktap_warn("selftest\nwarning");
		for (n = 0; n < 40; n++) {
			ktap_sprintf(c, s, "flood %d", (int64_t)n);
			ktap_warn(s);
		}
	}
	if (ktap_target == 8) {
		ktap_printf(c, "begin exit\n");
		ktap_request_exit(c);
		goto out;
	}
out:
	;
}

/* probe timer.ms(100) */
static const struct ktap_lock_use probe_1_locks[] = {
	{ .rw = &g_ticks_lock, .mode = KTAP_LOCK_WRITE },
};

static void probe_1(struct ktap_context *c)
{
	int64_t ticks, i;
	char *s;

	if (!ktap_lock_globals(c, probe_1_locks, 1))
		return;
	ticks = ++g_ticks;
	ktap_printf(c, "tick %d\n", ticks);

	if (ticks != (ktap_target == 7 ? 1 : 3))
		goto out;
	switch (ktap_target) {
	case 1: {
		int64_t a = 10, b = ticks - ticks;

		if (unlikely(b == 0)) {
			ktap_error(c, "division by zero",
				   "near operator '/' at selftest.stp:21:12");
			goto out;
		}
		ktap_printf(c, "not reached %d\n", a / b);
		break;
	}
	case 2:
		ktap_printf(c, "timer exit\n");
		ktap_request_exit(c);
		goto out;
	case 3:
		s = ktap_frame_push(c, MAXSTRINGLEN);
		if (unlikely(c->error))
			goto out;
		ktap_user_string(c, s, 1,
				 "near identifier 'user_string' at selftest.stp:30:5");
		if (unlikely(c->error))
			goto out;
		ktap_printf(c, "not reached\n");
		break;
	case 4:
		for (i = 0;; i++) {
			if (KTAP_ACTION(c, "near keyword 'for' at selftest.stp:40:3"))
				goto out;
		}
		break;
	case 5:
		function_recurse(c, 100);
		if (unlikely(c->error))
			goto out;
		break;
	case 6:
		for (i = 0; i < 100; i++) {
			if (!ktap_frame_push(c, 2000))
				goto out;
		}
		break;
	case 7:
		s = ktap_frame_push(c, MAXSTRINGLEN);
		if (unlikely(c->error))
			goto out;
		memset(s, 'z', 480);
		s[480] = '\0';
		for (i = 0; i < 40; i++)
			ktap_printf(c, "big %02d %s\n", i, s);
		ktap_printf(c, "big end\n");
		break;
	}
out:
	ktap_unlock_globals(c, probe_1_locks, 1);
}

/* probe kprobe.function("__x64_sys_openat") */
static const struct ktap_lock_use probe_2_locks[] = {
	{ .rw = &g_opens_lock, .mode = KTAP_LOCK_WRITE },
};

static void probe_2(struct ktap_context *c)
{
	unsigned long uregs, filename;
	char *s;

	if (strcmp(current->comm, "ktapread"))	/* execname() != "ktapread" */
		goto out;
	s = ktap_frame_push(c, MAXSTRINGLEN);
	if (unlikely(c->error))
		goto out;
	uregs = c->regs->di;	/* the syscall's struct pt_regs * */
	filename = ktap_read_kernel_long(c, uregs + offsetof(struct pt_regs, si),
					 "near operator '->' at selftest.stp:14:40");
	if (unlikely(c->error))
		goto out;
	ktap_user_string(c, s, filename,
			 "near identifier 'user_string' at selftest.stp:14:30");
	if (unlikely(c->error))
		goto out;
	if (!ktap_lock_globals(c, probe_2_locks, 1))
		goto out;
	g_opens++;
	ktap_unlock_globals(c, probe_2_locks, 1);
	ktap_printf(c, "open %d %s %s\n", (int64_t)current->tgid,
		    current->comm, s);
out:
	;
}

/* probe kprobe.function("__x64_sys_openat").return */
static const struct ktap_lock_use probe_3_locks[] = {
	{ .rw = &g_rets_lock, .mode = KTAP_LOCK_WRITE },
};

static void probe_3(struct ktap_context *c)
{
	if (!ktap_lock_globals(c, probe_3_locks, 1))
		return;
	g_rets++;
	ktap_unlock_globals(c, probe_3_locks, 1);
}

/* probe end */
static const struct ktap_lock_use probe_4_locks[] = {
	{ .rw = &g_opens_lock, .mode = KTAP_LOCK_READ },
	{ .rw = &g_rets_lock, .mode = KTAP_LOCK_READ },
	{ .rw = &g_ticks_lock, .mode = KTAP_LOCK_READ },
};

static void probe_4(struct ktap_context *c)
{
	if (!ktap_lock_globals(c, probe_4_locks, 3))
		return;
	ktap_printf(c, "end opens=%d rets=%d ticks=%d\n", g_opens, g_rets,
		    g_ticks);
	if (ktap_target == 9)
		ktap_error(c, "error in end",
			   "near identifier 'error' at selftest.stp:50:3");
	ktap_unlock_globals(c, probe_4_locks, 3);
}

static const struct ktap_probe ktap_probes[] = {
	{ .kind = KTAP_PROBE_BEGIN, .pp = "begin" },
	{ .kind = KTAP_PROBE_TIMER, .pp = "timer.ms(100)",
	  .period_ns = 100000000 },
	{ .kind = KTAP_PROBE_KPROBE,
	  .pp = "kprobe.function(\"__x64_sys_openat\")",
	  .symbol = "__x64_sys_openat" },
	{ .kind = KTAP_PROBE_KRETPROBE,
	  .pp = "kprobe.function(\"__x64_sys_openat\").return",
	  .symbol = "__x64_sys_openat", .maxactive = 0 },
	{ .kind = KTAP_PROBE_END, .pp = "end" },
};
#define KTAP_NR_PROBES ARRAY_SIZE(ktap_probes)
/* no user-space probes: usymname() has no files (usyms.h) */
static const struct ktap_usym_file ktap_usym_files[] = { { 0 } };
static const unsigned int ktap_nr_usym_files;

/* the probes' handlers, in the table's order (run_handler.h) */
static void (*const ktap_handlers[])(struct ktap_context *c) = {
	probe_0, probe_1, probe_2, probe_3, probe_4,
};

#include "run_handler.h"

static int ktap_globals_init(void)
{
	g_opens = 0;
	g_rets = 0;
	g_ticks = 0;
	return 0;
}

#include "module.h"
