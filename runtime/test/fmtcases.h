/* SPDX-License-Identifier: GPL-2.0 */
/*
 * printf conversions checked against the C library: selftest.c prints each
 * case with ktap_printf(), fmtexpect.c prints it with printf(3) (with "ll"
 * inserted), and run-tests.sh compares the two. Cases whose SystemTap
 * meaning differs from C's (%p, %b, %m, %M, %#x of 0, length modifiers)
 * are checked by hand in expected-special.txt.
 *
 * FMT_I(fmt, v)            one integer
 * FMT_S(fmt, s)            one string
 * FMT_WI(fmt, w, v)        '*' width, integer
 * FMT_WS(fmt, w, s)        '*' width or precision, string
 * FMT_WPS(fmt, w, p, s)    '*' width and '*' precision, string
 */
#define KTAP_FMT_CASES							\
	FMT_I("%d", 42)							\
	FMT_I("%d", -42)						\
	FMT_I("%i", 123456789012LL)					\
	FMT_I("%d", (-9223372036854775807LL - 1))			\
	FMT_I("%d", 9223372036854775807LL)				\
	FMT_I("%5d", 42)						\
	FMT_I("%-5d|", 42)						\
	FMT_I("%05d", -42)						\
	FMT_I("%010d", 12345)						\
	FMT_I("%+d", 7)							\
	FMT_I("%+5d", 3)						\
	FMT_I("%-+5d|", 3)						\
	FMT_I("% d", 7)							\
	FMT_I("%.3d", 7)						\
	FMT_I("%8.3d", -7)						\
	FMT_I("%u", -1)							\
	FMT_I("%u", 4000000000LL)					\
	FMT_I("%x", 255)						\
	FMT_I("%X", 255)						\
	FMT_I("%#x", 255)						\
	FMT_I("%#X", 255)						\
	FMT_I("%x", -1)							\
	FMT_I("%#10x", 48879)						\
	FMT_I("%#010x", 48879)						\
	FMT_I("%-8x|", 48879)						\
	FMT_I("%o", 8)							\
	FMT_I("%#o", 8)							\
	FMT_I("%c", 65)							\
	FMT_I("%3c", 66)						\
	FMT_I("%-3c|", 67)						\
	FMT_S("%s", "hello")						\
	FMT_S("%s", "")							\
	FMT_S("%10s", "hi")						\
	FMT_S("%-10s|", "hi")						\
	FMT_S("%.3s", "abcdef")						\
	FMT_S("%8.2s", "abcdef")					\
	FMT_S("100%% %s", "sure")					\
	FMT_WI("%*d", 6, 42)						\
	FMT_WI("%-*d|", 6, 42)						\
	FMT_WI("%*d|", -6, 42)						\
	FMT_WS("%.*s", 2, "xyz")					\
	FMT_WS("%*s|", 4, "ab")						\
	FMT_WPS("%*.*s|", 5, 1, "xyz")
