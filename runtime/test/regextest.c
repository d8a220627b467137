// SPDX-License-Identifier: GPL-2.0
/*
 * regextest - a hand-written module in the shape the translator generates,
 * testing regex.h in the guest. It stands for:
 *
 *   global opens, sum, resets, bad
 *   probe begin { foreach case (pattern, subject, expected):
 *                   if (subject =~ pattern) check matched(0) .. matched(n - 1)
 *                   else check that none was expected
 *                 the errors of matched(); =~ with the frame arena full;
 *                 printf("regextest: %d checks, %d failed\n", ...) }
 *   probe kprobe.function("__x64_sys_openat") {
 *           if (execname() == "cat" &&
 *               user_string(...) =~ "^/tmp/regex-([0-9]+)$") {
 *                   opens++; sum += strtol(matched(1), 10) } }
 *   probe timer.ms(10) { try { matched(0); bad++ } catch { resets++ }
 *                        if (!(sprintf("cpu%d:%d", cpu(), jiffies) =~
 *                              "^([^:]*):([0-9]+)$")) bad++ (and the offsets) }
 *   probe end { printf("end opens=%d sum=%d bad=%d resets %s\n", ...) }
 *
 * The programs re_N are what the translator emits for the patterns
 * (build/regex_test --emit re_N PATTERN); the expected groups are glibc's
 * regexec() results. Run with ktap-run -c "cat /tmp/regex-11 ...".
 */
#define KTAP_MODULE_NAME "regextest"
/* timer hits that land in the kprobe handler are skipped: not a failure */
#define MAXSKIPPED 1000000
#include "runtime.h"

/* globals */
static int64_t g_opens, g_sum, g_resets, g_bad;
static KTAP_DEFINE_RWLOCK(g_opens_lock);
static KTAP_DEFINE_RWLOCK(g_sum_lock);
static KTAP_DEFINE_RWLOCK(g_resets_lock);
static KTAP_DEFINE_RWLOCK(g_bad_lock);

/* ^/tmp/regex-([0-9]+)$ */
static const struct ktap_re_inst re_0[] = {
	{ .op = KTAP_RE_SAVE, .x = 0 },
	{ .op = KTAP_RE_BOL },
	{ .op = KTAP_RE_CHAR, .ch = 0x2f },
	{ .op = KTAP_RE_CHAR, .ch = 0x74 },
	{ .op = KTAP_RE_CHAR, .ch = 0x6d },
	{ .op = KTAP_RE_CHAR, .ch = 0x70 },
	{ .op = KTAP_RE_CHAR, .ch = 0x2f },
	{ .op = KTAP_RE_CHAR, .ch = 0x72 },
	{ .op = KTAP_RE_CHAR, .ch = 0x65 },
	{ .op = KTAP_RE_CHAR, .ch = 0x67 },
	{ .op = KTAP_RE_CHAR, .ch = 0x65 },
	{ .op = KTAP_RE_CHAR, .ch = 0x78 },
	{ .op = KTAP_RE_CHAR, .ch = 0x2d },
	{ .op = KTAP_RE_SAVE, .x = 2 },
	{ .op = KTAP_RE_CLASS,
	  .set = (const unsigned char *)"\000\000\000\000\000\000\377\003\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000" },
	{ .op = KTAP_RE_SPLIT, .x = 14, .y = 16 },
	{ .op = KTAP_RE_SAVE, .x = 3 },
	{ .op = KTAP_RE_EOL },
	{ .op = KTAP_RE_SAVE, .x = 1 },
	{ .op = KTAP_RE_MATCH },
};
#define re_0_NGROUPS 2

/* str(ing) */
static const struct ktap_re_inst re_1[] = {
	{ .op = KTAP_RE_SAVE, .x = 0 },
	{ .op = KTAP_RE_CHAR, .ch = 0x73 },
	{ .op = KTAP_RE_CHAR, .ch = 0x74 },
	{ .op = KTAP_RE_CHAR, .ch = 0x72 },
	{ .op = KTAP_RE_SAVE, .x = 2 },
	{ .op = KTAP_RE_CHAR, .ch = 0x69 },
	{ .op = KTAP_RE_CHAR, .ch = 0x6e },
	{ .op = KTAP_RE_CHAR, .ch = 0x67 },
	{ .op = KTAP_RE_SAVE, .x = 3 },
	{ .op = KTAP_RE_SAVE, .x = 1 },
	{ .op = KTAP_RE_MATCH },
};
#define re_1_NGROUPS 2

/* (a|ab)(c|bcd)(d*) */
static const struct ktap_re_inst re_2[] = {
	{ .op = KTAP_RE_SAVE, .x = 0 },
	{ .op = KTAP_RE_SAVE, .x = 2 },
	{ .op = KTAP_RE_SPLIT, .x = 3, .y = 5 },
	{ .op = KTAP_RE_CHAR, .ch = 0x61 },
	{ .op = KTAP_RE_JMP, .x = 7 },
	{ .op = KTAP_RE_CHAR, .ch = 0x61 },
	{ .op = KTAP_RE_CHAR, .ch = 0x62 },
	{ .op = KTAP_RE_SAVE, .x = 3 },
	{ .op = KTAP_RE_SAVE, .x = 4 },
	{ .op = KTAP_RE_SPLIT, .x = 10, .y = 12 },
	{ .op = KTAP_RE_CHAR, .ch = 0x63 },
	{ .op = KTAP_RE_JMP, .x = 15 },
	{ .op = KTAP_RE_CHAR, .ch = 0x62 },
	{ .op = KTAP_RE_CHAR, .ch = 0x63 },
	{ .op = KTAP_RE_CHAR, .ch = 0x64 },
	{ .op = KTAP_RE_SAVE, .x = 5 },
	{ .op = KTAP_RE_SAVE, .x = 6 },
	{ .op = KTAP_RE_SPLIT, .x = 18, .y = 20 },
	{ .op = KTAP_RE_CHAR, .ch = 0x64 },
	{ .op = KTAP_RE_SPLIT, .x = 18, .y = 20 },
	{ .op = KTAP_RE_SAVE, .x = 7 },
	{ .op = KTAP_RE_SAVE, .x = 1 },
	{ .op = KTAP_RE_MATCH },
};
#define re_2_NGROUPS 4

/* [[:alpha:]_][[:alnum:]_]* */
static const struct ktap_re_inst re_3[] = {
	{ .op = KTAP_RE_SAVE, .x = 0 },
	{ .op = KTAP_RE_CLASS,
	  .set = (const unsigned char *)"\000\000\000\000\000\000\000\000\376\377\377\207\376\377\377\007\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000" },
	{ .op = KTAP_RE_SPLIT, .x = 3, .y = 5 },
	{ .op = KTAP_RE_CLASS,
	  .set = (const unsigned char *)"\000\000\000\000\000\000\377\003\376\377\377\207\376\377\377\007\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000" },
	{ .op = KTAP_RE_SPLIT, .x = 3, .y = 5 },
	{ .op = KTAP_RE_SAVE, .x = 1 },
	{ .op = KTAP_RE_MATCH },
};
#define re_3_NGROUPS 1

/* ^([^:]*):([0-9]+)$ */
static const struct ktap_re_inst re_4[] = {
	{ .op = KTAP_RE_SAVE, .x = 0 },
	{ .op = KTAP_RE_BOL },
	{ .op = KTAP_RE_SAVE, .x = 2 },
	{ .op = KTAP_RE_SPLIT, .x = 4, .y = 6 },
	{ .op = KTAP_RE_CLASS,
	  .set = (const unsigned char *)"\376\377\377\377\377\377\377\373\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377" },
	{ .op = KTAP_RE_SPLIT, .x = 4, .y = 6 },
	{ .op = KTAP_RE_SAVE, .x = 3 },
	{ .op = KTAP_RE_CHAR, .ch = 0x3a },
	{ .op = KTAP_RE_SAVE, .x = 4 },
	{ .op = KTAP_RE_CLASS,
	  .set = (const unsigned char *)"\000\000\000\000\000\000\377\003\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000" },
	{ .op = KTAP_RE_SPLIT, .x = 9, .y = 11 },
	{ .op = KTAP_RE_SAVE, .x = 5 },
	{ .op = KTAP_RE_EOL },
	{ .op = KTAP_RE_SAVE, .x = 1 },
	{ .op = KTAP_RE_MATCH },
};
#define re_4_NGROUPS 3

/* (a)|(b)(c)? */
static const struct ktap_re_inst re_5[] = {
	{ .op = KTAP_RE_SAVE, .x = 0 },
	{ .op = KTAP_RE_SPLIT, .x = 2, .y = 6 },
	{ .op = KTAP_RE_SAVE, .x = 2 },
	{ .op = KTAP_RE_CHAR, .ch = 0x61 },
	{ .op = KTAP_RE_SAVE, .x = 3 },
	{ .op = KTAP_RE_JMP, .x = 13 },
	{ .op = KTAP_RE_SAVE, .x = 4 },
	{ .op = KTAP_RE_CHAR, .ch = 0x62 },
	{ .op = KTAP_RE_SAVE, .x = 5 },
	{ .op = KTAP_RE_SPLIT, .x = 10, .y = 13 },
	{ .op = KTAP_RE_SAVE, .x = 6 },
	{ .op = KTAP_RE_CHAR, .ch = 0x63 },
	{ .op = KTAP_RE_SAVE, .x = 7 },
	{ .op = KTAP_RE_SAVE, .x = 1 },
	{ .op = KTAP_RE_MATCH },
};
#define re_5_NGROUPS 4

/* [0-9]{1,3}(\.[0-9]{1,3}){3} */
static const struct ktap_re_inst re_6[] = {
	{ .op = KTAP_RE_SAVE, .x = 0 },
	{ .op = KTAP_RE_CLASS,
	  .set = (const unsigned char *)"\000\000\000\000\000\000\377\003\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000" },
	{ .op = KTAP_RE_SPLIT, .x = 3, .y = 6 },
	{ .op = KTAP_RE_CLASS,
	  .set = (const unsigned char *)"\000\000\000\000\000\000\377\003\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000" },
	{ .op = KTAP_RE_SPLIT, .x = 5, .y = 6 },
	{ .op = KTAP_RE_CLASS,
	  .set = (const unsigned char *)"\000\000\000\000\000\000\377\003\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000" },
	{ .op = KTAP_RE_SAVE, .x = 2 },
	{ .op = KTAP_RE_CHAR, .ch = 0x2e },
	{ .op = KTAP_RE_CLASS,
	  .set = (const unsigned char *)"\000\000\000\000\000\000\377\003\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000" },
	{ .op = KTAP_RE_SPLIT, .x = 10, .y = 13 },
	{ .op = KTAP_RE_CLASS,
	  .set = (const unsigned char *)"\000\000\000\000\000\000\377\003\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000" },
	{ .op = KTAP_RE_SPLIT, .x = 12, .y = 13 },
	{ .op = KTAP_RE_CLASS,
	  .set = (const unsigned char *)"\000\000\000\000\000\000\377\003\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000" },
	{ .op = KTAP_RE_SAVE, .x = 3 },
	{ .op = KTAP_RE_SAVE, .x = 2 },
	{ .op = KTAP_RE_CHAR, .ch = 0x2e },
	{ .op = KTAP_RE_CLASS,
	  .set = (const unsigned char *)"\000\000\000\000\000\000\377\003\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000" },
	{ .op = KTAP_RE_SPLIT, .x = 18, .y = 21 },
	{ .op = KTAP_RE_CLASS,
	  .set = (const unsigned char *)"\000\000\000\000\000\000\377\003\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000" },
	{ .op = KTAP_RE_SPLIT, .x = 20, .y = 21 },
	{ .op = KTAP_RE_CLASS,
	  .set = (const unsigned char *)"\000\000\000\000\000\000\377\003\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000" },
	{ .op = KTAP_RE_SAVE, .x = 3 },
	{ .op = KTAP_RE_SAVE, .x = 2 },
	{ .op = KTAP_RE_CHAR, .ch = 0x2e },
	{ .op = KTAP_RE_CLASS,
	  .set = (const unsigned char *)"\000\000\000\000\000\000\377\003\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000" },
	{ .op = KTAP_RE_SPLIT, .x = 26, .y = 29 },
	{ .op = KTAP_RE_CLASS,
	  .set = (const unsigned char *)"\000\000\000\000\000\000\377\003\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000" },
	{ .op = KTAP_RE_SPLIT, .x = 28, .y = 29 },
	{ .op = KTAP_RE_CLASS,
	  .set = (const unsigned char *)"\000\000\000\000\000\000\377\003\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000" },
	{ .op = KTAP_RE_SAVE, .x = 3 },
	{ .op = KTAP_RE_SAVE, .x = 1 },
	{ .op = KTAP_RE_MATCH },
};
#define re_6_NGROUPS 2

/* a|ab|abc */
static const struct ktap_re_inst re_7[] = {
	{ .op = KTAP_RE_SAVE, .x = 0 },
	{ .op = KTAP_RE_SPLIT, .x = 2, .y = 8 },
	{ .op = KTAP_RE_SPLIT, .x = 3, .y = 5 },
	{ .op = KTAP_RE_CHAR, .ch = 0x61 },
	{ .op = KTAP_RE_JMP, .x = 7 },
	{ .op = KTAP_RE_CHAR, .ch = 0x61 },
	{ .op = KTAP_RE_CHAR, .ch = 0x62 },
	{ .op = KTAP_RE_JMP, .x = 11 },
	{ .op = KTAP_RE_CHAR, .ch = 0x61 },
	{ .op = KTAP_RE_CHAR, .ch = 0x62 },
	{ .op = KTAP_RE_CHAR, .ch = 0x63 },
	{ .op = KTAP_RE_SAVE, .x = 1 },
	{ .op = KTAP_RE_MATCH },
};
#define re_7_NGROUPS 1

/* x* */
static const struct ktap_re_inst re_8[] = {
	{ .op = KTAP_RE_SAVE, .x = 0 },
	{ .op = KTAP_RE_SPLIT, .x = 2, .y = 4 },
	{ .op = KTAP_RE_CHAR, .ch = 0x78 },
	{ .op = KTAP_RE_SPLIT, .x = 2, .y = 4 },
	{ .op = KTAP_RE_SAVE, .x = 1 },
	{ .op = KTAP_RE_MATCH },
};
#define re_8_NGROUPS 1

/* [^a-c]+$ */
static const struct ktap_re_inst re_9[] = {
	{ .op = KTAP_RE_SAVE, .x = 0 },
	{ .op = KTAP_RE_CLASS,
	  .set = (const unsigned char *)"\376\377\377\377\377\377\377\377\377\377\377\377\361\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377" },
	{ .op = KTAP_RE_SPLIT, .x = 1, .y = 3 },
	{ .op = KTAP_RE_EOL },
	{ .op = KTAP_RE_SAVE, .x = 1 },
	{ .op = KTAP_RE_MATCH },
};
#define re_9_NGROUPS 1

/* (foo|foobar)baz */
static const struct ktap_re_inst re_10[] = {
	{ .op = KTAP_RE_SAVE, .x = 0 },
	{ .op = KTAP_RE_SAVE, .x = 2 },
	{ .op = KTAP_RE_SPLIT, .x = 3, .y = 7 },
	{ .op = KTAP_RE_CHAR, .ch = 0x66 },
	{ .op = KTAP_RE_CHAR, .ch = 0x6f },
	{ .op = KTAP_RE_CHAR, .ch = 0x6f },
	{ .op = KTAP_RE_JMP, .x = 13 },
	{ .op = KTAP_RE_CHAR, .ch = 0x66 },
	{ .op = KTAP_RE_CHAR, .ch = 0x6f },
	{ .op = KTAP_RE_CHAR, .ch = 0x6f },
	{ .op = KTAP_RE_CHAR, .ch = 0x62 },
	{ .op = KTAP_RE_CHAR, .ch = 0x61 },
	{ .op = KTAP_RE_CHAR, .ch = 0x72 },
	{ .op = KTAP_RE_SAVE, .x = 3 },
	{ .op = KTAP_RE_CHAR, .ch = 0x62 },
	{ .op = KTAP_RE_CHAR, .ch = 0x61 },
	{ .op = KTAP_RE_CHAR, .ch = 0x7a },
	{ .op = KTAP_RE_SAVE, .x = 1 },
	{ .op = KTAP_RE_MATCH },
};
#define re_10_NGROUPS 2

/* \.so(\.[0-9]+)*$ */
static const struct ktap_re_inst re_11[] = {
	{ .op = KTAP_RE_SAVE, .x = 0 },
	{ .op = KTAP_RE_CHAR, .ch = 0x2e },
	{ .op = KTAP_RE_CHAR, .ch = 0x73 },
	{ .op = KTAP_RE_CHAR, .ch = 0x6f },
	{ .op = KTAP_RE_SPLIT, .x = 5, .y = 11 },
	{ .op = KTAP_RE_SAVE, .x = 2 },
	{ .op = KTAP_RE_CHAR, .ch = 0x2e },
	{ .op = KTAP_RE_CLASS,
	  .set = (const unsigned char *)"\000\000\000\000\000\000\377\003\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000" },
	{ .op = KTAP_RE_SPLIT, .x = 7, .y = 9 },
	{ .op = KTAP_RE_SAVE, .x = 3 },
	{ .op = KTAP_RE_SPLIT, .x = 5, .y = 11 },
	{ .op = KTAP_RE_EOL },
	{ .op = KTAP_RE_SAVE, .x = 1 },
	{ .op = KTAP_RE_MATCH },
};
#define re_11_NGROUPS 2

/* ^$ */
static const struct ktap_re_inst re_12[] = {
	{ .op = KTAP_RE_SAVE, .x = 0 },
	{ .op = KTAP_RE_BOL },
	{ .op = KTAP_RE_EOL },
	{ .op = KTAP_RE_SAVE, .x = 1 },
	{ .op = KTAP_RE_MATCH },
};
#define re_12_NGROUPS 1

/* (.)(.)(.)(.)(.)(.)(.)(.)(.)(.)(.)(.)(.)(.)(.) */
static const struct ktap_re_inst re_13[] = {
	{ .op = KTAP_RE_SAVE, .x = 0 },
	{ .op = KTAP_RE_SAVE, .x = 2 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SAVE, .x = 3 },
	{ .op = KTAP_RE_SAVE, .x = 4 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SAVE, .x = 5 },
	{ .op = KTAP_RE_SAVE, .x = 6 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SAVE, .x = 7 },
	{ .op = KTAP_RE_SAVE, .x = 8 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SAVE, .x = 9 },
	{ .op = KTAP_RE_SAVE, .x = 10 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SAVE, .x = 11 },
	{ .op = KTAP_RE_SAVE, .x = 12 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SAVE, .x = 13 },
	{ .op = KTAP_RE_SAVE, .x = 14 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SAVE, .x = 15 },
	{ .op = KTAP_RE_SAVE, .x = 16 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SAVE, .x = 17 },
	{ .op = KTAP_RE_SAVE, .x = 18 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SAVE, .x = 19 },
	{ .op = KTAP_RE_SAVE, .x = 20 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SAVE, .x = 21 },
	{ .op = KTAP_RE_SAVE, .x = 22 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SAVE, .x = 23 },
	{ .op = KTAP_RE_SAVE, .x = 24 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SAVE, .x = 25 },
	{ .op = KTAP_RE_SAVE, .x = 26 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SAVE, .x = 27 },
	{ .op = KTAP_RE_SAVE, .x = 28 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SAVE, .x = 29 },
	{ .op = KTAP_RE_SAVE, .x = 30 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SAVE, .x = 31 },
	{ .op = KTAP_RE_SAVE, .x = 1 },
	{ .op = KTAP_RE_MATCH },
};
#define re_13_NGROUPS 16

/* (^|[^a-z])cat($|[^a-z]) */
static const struct ktap_re_inst re_14[] = {
	{ .op = KTAP_RE_SAVE, .x = 0 },
	{ .op = KTAP_RE_SAVE, .x = 2 },
	{ .op = KTAP_RE_SPLIT, .x = 3, .y = 5 },
	{ .op = KTAP_RE_BOL },
	{ .op = KTAP_RE_JMP, .x = 6 },
	{ .op = KTAP_RE_CLASS,
	  .set = (const unsigned char *)"\376\377\377\377\377\377\377\377\377\377\377\377\001\000\000\370\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377" },
	{ .op = KTAP_RE_SAVE, .x = 3 },
	{ .op = KTAP_RE_CHAR, .ch = 0x63 },
	{ .op = KTAP_RE_CHAR, .ch = 0x61 },
	{ .op = KTAP_RE_CHAR, .ch = 0x74 },
	{ .op = KTAP_RE_SAVE, .x = 4 },
	{ .op = KTAP_RE_SPLIT, .x = 12, .y = 14 },
	{ .op = KTAP_RE_EOL },
	{ .op = KTAP_RE_JMP, .x = 15 },
	{ .op = KTAP_RE_CLASS,
	  .set = (const unsigned char *)"\376\377\377\377\377\377\377\377\377\377\377\377\001\000\000\370\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377" },
	{ .op = KTAP_RE_SAVE, .x = 5 },
	{ .op = KTAP_RE_SAVE, .x = 1 },
	{ .op = KTAP_RE_MATCH },
};
#define re_14_NGROUPS 3

/* (a*)*b */
static const struct ktap_re_inst re_15[] = {
	{ .op = KTAP_RE_SAVE, .x = 0 },
	{ .op = KTAP_RE_SPLIT, .x = 2, .y = 8 },
	{ .op = KTAP_RE_SAVE, .x = 2 },
	{ .op = KTAP_RE_SPLIT, .x = 4, .y = 6 },
	{ .op = KTAP_RE_CHAR, .ch = 0x61 },
	{ .op = KTAP_RE_SPLIT, .x = 4, .y = 6 },
	{ .op = KTAP_RE_SAVE, .x = 3 },
	{ .op = KTAP_RE_SPLIT, .x = 2, .y = 8 },
	{ .op = KTAP_RE_CHAR, .ch = 0x62 },
	{ .op = KTAP_RE_SAVE, .x = 1 },
	{ .op = KTAP_RE_MATCH },
};
#define re_15_NGROUPS 2

/* .{0,40}x */
static const struct ktap_re_inst re_16[] = {
	{ .op = KTAP_RE_SAVE, .x = 0 },
	{ .op = KTAP_RE_SPLIT, .x = 2, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 4, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 6, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 8, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 10, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 12, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 14, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 16, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 18, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 20, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 22, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 24, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 26, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 28, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 30, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 32, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 34, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 36, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 38, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 40, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 42, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 44, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 46, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 48, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 50, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 52, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 54, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 56, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 58, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 60, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 62, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 64, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 66, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 68, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 70, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 72, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 74, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 76, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 78, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_SPLIT, .x = 80, .y = 81 },
	{ .op = KTAP_RE_ANY },
	{ .op = KTAP_RE_CHAR, .ch = 0x78 },
	{ .op = KTAP_RE_SAVE, .x = 1 },
	{ .op = KTAP_RE_MATCH },
};
#define re_16_NGROUPS 1

struct re_case {
	const struct ktap_re_inst *prog;
	int ninst, ngroups;
	const char *pattern, *subject;
	const char *expect;	/* matched(0)|matched(1)|...; NULL: no match */
};

#define CASE(n, pat, subj, exp) \
	{ re_##n, ARRAY_SIZE(re_##n), re_##n##_NGROUPS, pat, subj, exp }

static const struct re_case re_cases[] = {
	CASE(0, "^/tmp/regex-([0-9]+)$", "/tmp/regex-42", "/tmp/regex-42|42"),
	CASE(0, "^/tmp/regex-([0-9]+)$", "/tmp/regex-x", NULL),
	CASE(0, "^/tmp/regex-([0-9]+)$", "/tmp/regex-7/y", NULL),
	CASE(1, "str(ing)", "an example string", "string|ing"),
	CASE(1, "str(ing)", "strung", NULL),
	CASE(2, "(a|ab)(c|bcd)(d*)", "abcd", "abcd|a|bcd|"),
	CASE(2, "(a|ab)(c|bcd)(d*)", "xacdd", "acdd|a|c|dd"),
	CASE(3, "[[:alpha:]_][[:alnum:]_]*", "  9x_1 y", "x_1"),
	CASE(3, "[[:alpha:]_][[:alnum:]_]*", "123", NULL),
	CASE(4, "^([^:]*):([0-9]+)$", "localhost:8080", "localhost:8080|localhost|8080"),
	CASE(4, "^([^:]*):([0-9]+)$", ":1", ":1||1"),
	CASE(4, "^([^:]*):([0-9]+)$", "a:b", NULL),
	CASE(5, "(a)|(b)(c)?", "xxbyy", "b||b|"),
	CASE(5, "(a)|(b)(c)?", "bc", "bc||b|c"),
	CASE(5, "(a)|(b)(c)?", "a", "a|a||"),
	CASE(5, "(a)|(b)(c)?", "zzz", NULL),
	CASE(6, "[0-9]{1,3}(\\.[0-9]{1,3}){3}", "ip 192.168.0.1 up", "192.168.0.1|.1"),
	CASE(6, "[0-9]{1,3}(\\.[0-9]{1,3}){3}", "1.2.3", NULL),
	CASE(7, "a|ab|abc", "xabcx", "abc"),
	CASE(7, "a|ab|abc", "xab", "ab"),
	CASE(8, "x*", "", ""),
	CASE(8, "x*", "aaxx", ""),
	CASE(9, "[^a-c]+$", "abcdef", "def"),
	CASE(9, "[^a-c]+$", "abc", NULL),
	CASE(10, "(foo|foobar)baz", "foobarbaz", "foobarbaz|foobar"),
	CASE(11, "\\.so(\\.[0-9]+)*$", "libc.so.6", ".so.6|.6"),
	CASE(11, "\\.so(\\.[0-9]+)*$", "libz.so.1.2.13", ".so.1.2.13|.13"),
	CASE(11, "\\.so(\\.[0-9]+)*$", "x.sox", NULL),
	CASE(12, "^$", "", ""),
	CASE(12, "^$", "a", NULL),
	CASE(13, "(.)(.)(.)(.)(.)(.)(.)(.)(.)(.)(.)(.)(.)(.)(.)", "abcdefghijklmnopq", "abcdefghijklmno|a|b|c|d|e|f|g|h|i|j|k|l|m|n|o"),
	CASE(14, "(^|[^a-z])cat($|[^a-z])", "a cat.", " cat.| |."),
	CASE(14, "(^|[^a-z])cat($|[^a-z])", "concat", NULL),
	CASE(14, "(^|[^a-z])cat($|[^a-z])", "cat", "cat||"),
	CASE(15, "(a*)*b", "aab", "aab|aa"),
	CASE(15, "(a*)*b", "b", "b|"),
	CASE(16, ".{0,40}x", "--------------------------------------------------x", "----------------------------------------x"),
	CASE(16, ".{0,40}x", "x", "x"),
};

static int checks, failed;

static void check_str(struct ktap_context *c, const char *what,
		      const char *got, const char *want)
{
	checks++;
	if (!strcmp(got, want))
		return;
	failed++;
	ktap_printf(c, "FAIL %s: got \"%s\", expected \"%s\"\n", what, got,
		    want);
}

/* s = matched(0)|matched(1)|...|matched(n - 1) */
static void all_groups(struct ktap_context *c, char *s, char *t, int n)
{
	int i;

	s[0] = '\0';
	for (i = 0; i < n; i++) {
		ktap_regex_matched(c, t, i, NULL);
		if (i)
			ktap_strcat(s, s, "|");
		ktap_strcat(s, s, t);
	}
}

static void run_case(struct ktap_context *c, const struct re_case *rc,
		     char *s, char *t)
{
	bool m = ktap_regex_match(c, rc->prog, rc->ninst, rc->ngroups,
				  rc->subject);

	if (c->error) {
		ktap_printf(c, "FAIL /%s/ on \"%s\": error %s\n", rc->pattern,
			    rc->subject, c->error);
		c->error = NULL;
		failed++;
		return;
	}
	if (m)
		all_groups(c, s, t, rc->ngroups);
	ktap_sprintf(c, t, "/%s/ on \"%s\"", rc->pattern, rc->subject);
	check_str(c, t, m ? s : "(no match)", rc->expect ?: "(no match)");
}

/* the error of matched(n), "" if none; c->error is cleared (a catch) */
static void matched_error(struct ktap_context *c, char *dst, int64_t n)
{
	char *tmp = dst + MAXSTRINGLEN;

	ktap_regex_matched(c, tmp, n, "near identifier 'matched' at regextest.stp:9:5");
	ktap_strcpy(dst, c->error ?: "");
	c->error = NULL;
}

static void run_errors(struct ktap_context *c, char *s)
{
	ktap_regex_match(c, re_5, ARRAY_SIZE(re_5), re_5_NGROUPS, "xbx");
	matched_error(c, s, 3);
	check_str(c, "matched(3) of /(a)|(b)(c)?/", s, "");
	matched_error(c, s, 4);
	check_str(c, "matched(4) of /(a)|(b)(c)?/", s,
		  "matched(4): the pattern has no group 4 near identifier 'matched' at regextest.stp:9:5");
	ktap_regex_match(c, re_5, ARRAY_SIZE(re_5), re_5_NGROUPS, "xyz");
	matched_error(c, s, 0);
	check_str(c, "matched(0) after a failed =~", s,
		  "matched(0): no successful =~ match near identifier 'matched' at regextest.stp:9:5");
	ktap_regex_ngroups(c, NULL);
	check_str(c, "ngroups() after a failed =~", c->error ?: "",
		  "ngroups(): no successful =~ match");
	c->error = NULL;
}

/* =~ with too little frame arena left is an error, and leaves it as it was */
static void run_frame_full(struct ktap_context *c)
{
	size_t used = c->frame_used;
	bool m;

	c->frame_used = KTAP_FRAME_SIZE - 64;
	m = ktap_regex_match(c, re_2, ARRAY_SIZE(re_2), re_2_NGROUPS, "abcd");
	check_str(c, "=~ with the frame arena full", c->error ?: "(no error)",
		  "MAXNESTING/frame space exceeded");
	checks++;
	if (m || c->frame_used != KTAP_FRAME_SIZE - 64) {
		failed++;
		ktap_printf(c, "FAIL frame arena after a failed =~\n");
	}
	c->error = NULL;
	c->frame_used = used;
}

/* probe begin */
static void probe_0(struct ktap_context *c)
{
	char *s, *t;
	size_t i;

	s = ktap_frame_push(c, MAXSTRINGLEN);
	t = ktap_frame_push(c, 2 * MAXSTRINGLEN);
	if (unlikely(c->error))
		goto out;
	matched_error(c, t, 0);
	check_str(c, "matched(0) before any =~", t,
		  "matched(0): no successful =~ match near identifier 'matched' at regextest.stp:9:5");
	for (i = 0; i < ARRAY_SIZE(re_cases); i++)
		run_case(c, &re_cases[i], s, t);
	run_errors(c, t);
	run_frame_full(c);
	ktap_printf(c, "regextest: %d checks, %d failed\n", (int64_t)checks,
		    (int64_t)failed);
out:
	;
}

/* probe kprobe.function("__x64_sys_openat") */
static const struct ktap_lock_use probe_1_locks[] = {
	{ .rw = &g_opens_lock, .mode = KTAP_LOCK_WRITE },
	{ .rw = &g_sum_lock, .mode = KTAP_LOCK_WRITE },
};

static void probe_1(struct ktap_context *c)
{
	unsigned long uregs, filename;
	long long n;
	char *s;

	if (strcmp(current->comm, "cat"))	/* execname() != "cat" */
		return;
	s = ktap_frame_push(c, MAXSTRINGLEN);
	if (unlikely(c->error))
		return;
	uregs = c->regs->di;	/* the syscall's struct pt_regs * */
	filename = ktap_read_kernel_long(c, uregs + offsetof(struct pt_regs, si),
					 "near operator '->' at regextest.stp:14:40");
	if (unlikely(c->error))
		return;
	ktap_user_string(c, s, filename,
			 "near identifier 'user_string' at regextest.stp:14:30");
	if (unlikely(c->error))
		return;
	if (!ktap_regex_match(c, re_0, ARRAY_SIZE(re_0), re_0_NGROUPS, s))
		return;
	ktap_regex_matched(c, s, 1, NULL);
	if (unlikely(c->error) || kstrtoll(s, 10, &n))
		return;
	if (!ktap_lock_globals(c, probe_1_locks, 2))
		return;
	g_opens++;
	g_sum += n;
	ktap_unlock_globals(c, probe_1_locks, 2);
	ktap_printf(c, "open %d\n", (int64_t)n);
}

/* probe timer.ms(10) */
static const struct ktap_lock_use probe_2_locks[] = {
	{ .rw = &g_resets_lock, .mode = KTAP_LOCK_WRITE },
	{ .rw = &g_bad_lock, .mode = KTAP_LOCK_WRITE },
};

static void probe_2(struct ktap_context *c)
{
	char *s;

	if (!ktap_lock_globals(c, probe_2_locks, 2))
		return;
	s = ktap_frame_push(c, MAXSTRINGLEN);
	if (unlikely(c->error))
		goto out;
	/* every hit starts without a match, whatever ran before on this CPU */
	ktap_regex_matched(c, s, 0, NULL);
	if (c->error)
		g_resets++;
	else
		g_bad++;
	c->error = NULL;
	/* "cpu:jiffies" =~ "^([^:]*):([0-9]+)$": matched(2) is the jiffies */
	ktap_sprintf(c, s, "cpu%d:%d", (int64_t)smp_processor_id(),
		     (int64_t)jiffies);
	if (!ktap_regex_match(c, re_4, ARRAY_SIZE(re_4), re_4_NGROUPS, s) ||
	    c->re_caps[4] != strchr(s, ':') + 1 - s || c->re_caps[5] != strlen(s))
		g_bad++;
out:
	ktap_unlock_globals(c, probe_2_locks, 2);
}

/* probe end */
static const struct ktap_lock_use probe_3_locks[] = {
	{ .rw = &g_opens_lock, .mode = KTAP_LOCK_READ },
	{ .rw = &g_sum_lock, .mode = KTAP_LOCK_READ },
	{ .rw = &g_resets_lock, .mode = KTAP_LOCK_READ },
	{ .rw = &g_bad_lock, .mode = KTAP_LOCK_READ },
};

static void probe_3(struct ktap_context *c)
{
	if (!ktap_lock_globals(c, probe_3_locks, 4))
		return;
	ktap_printf(c, "end opens=%d sum=%d bad=%d resets %s\n", g_opens, g_sum,
		    g_bad, g_resets > 0 ? "counted" : "none");
	ktap_unlock_globals(c, probe_3_locks, 4);
}

static const struct ktap_probe ktap_probes[] = {
	{ .kind = KTAP_PROBE_BEGIN, .pp = "begin" },
	{ .kind = KTAP_PROBE_KPROBE,
	  .pp = "kprobe.function(\"__x64_sys_openat\")",
	  .symbol = "__x64_sys_openat" },
	{ .kind = KTAP_PROBE_TIMER, .pp = "timer.ms(10)",
	  .period_ns = 10000000 },
	{ .kind = KTAP_PROBE_END, .pp = "end" },
};
#define KTAP_NR_PROBES ARRAY_SIZE(ktap_probes)
/* no user-space probes: usymname() has no files (usyms.h) */
static const struct ktap_usym_file ktap_usym_files[] = { { 0 } };
static const unsigned int ktap_nr_usym_files;

/* the probes' handlers, in the table's order (run_handler.h) */
static void (*const ktap_handlers[])(struct ktap_context *c) = {
	probe_0, probe_1, probe_2, probe_3,
};

#include "run_handler.h"

static int ktap_globals_init(void)
{
	g_opens = 0;
	g_sum = 0;
	g_resets = 0;
	g_bad = 0;
	return 0;
}

#include "module.h"
