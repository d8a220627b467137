/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap runtime: limits.
 *
 * The script-visible limits keep SystemTap's names and defaults; each can
 * be overridden with -DNAME=VALUE (ktap -D NAME=VALUE). The KTAP_* sizes
 * below them are runtime internals.
 */
#ifndef _KTAP_LIMITS_H
#define _KTAP_LIMITS_H

/* Size of a script string, including its NUL. */
#ifndef MAXSTRINGLEN
#define MAXSTRINGLEN 512
#endif

/* Statements one probe hit may execute. */
#ifndef MAXACTION
#define MAXACTION 1000
#endif

/* Depth of nested function calls. */
#ifndef MAXNESTING
#define MAXNESTING 10
#endif

/* Attempts to take a global's lock before the hit is skipped. */
#ifndef MAXTRYLOCK
#define MAXTRYLOCK 1000
#endif

#ifndef MAXSKIPPED
#define MAXSKIPPED 100		/* probe hits that could not run, then stop */
#endif

/*
 * The overload guard: a script whose handlers take more than
 * KTAP_OVERLOAD_THRESHOLD_NS of any one CPU's time in a window of
 * KTAP_OVERLOAD_INTERVAL_NS is stopped. -D KTAP_NO_OVERLOAD turns it off.
 */
#ifndef KTAP_OVERLOAD_INTERVAL_NS
#define KTAP_OVERLOAD_INTERVAL_NS 1000000000ULL
#endif
#ifndef KTAP_OVERLOAD_THRESHOLD_NS
#define KTAP_OVERLOAD_THRESHOLD_NS 500000000ULL
#endif

/*
 * About one hit in this many is timed for the guard; a hit that takes
 * KTAP_OVERLOAD_SLOW_NS or more is counted as it is, and the next one is
 * timed too (context.h). Reading the clock twice costs about 0.5 us in a
 * TCG guest, as much as a small handler, hence one hit in 32; even at
 * 10,000 hits a second that is 300 timed hits a second.
 */
#ifndef KTAP_OVERLOAD_SAMPLE
#define KTAP_OVERLOAD_SAMPLE 32
#endif
#ifndef KTAP_OVERLOAD_SLOW_NS
#define KTAP_OVERLOAD_SLOW_NS 200000ULL
#endif

/* Errors tolerated before the script is stopped (0: the first one stops it). */
#ifndef MAXERRORS
#define MAXERRORS 0
#endif

/* Delay between two lock attempts, in nanoseconds. */
#ifndef KTAP_TRYLOCKDELAY_NS
#define KTAP_TRYLOCKDELAY_NS 1000
#endif

/* Per-CPU print buffer: one relay record, header included. */
#ifndef KTAP_PRINT_BUFSIZE
#define KTAP_PRINT_BUFSIZE 8192
#endif

/* Per-CPU arena for string locals and temporaries of generated code. */
#ifndef KTAP_FRAME_SIZE
#define KTAP_FRAME_SIZE 16384
#endif

/* Room for "<message> near <location>" of the first error of a hit. */
#define KTAP_ERRLEN 512

/* Widest field (width or precision) a printf conversion may ask for. */
#define KTAP_FMT_MAXWIDTH 4096

/* Relay: default bytes per CPU, sub-buffers per CPU, smallest buffer. */
#define KTAP_BUFSIZE_DEFAULT (1UL << 20)
#define KTAP_NR_SUBBUFS 8
#define KTAP_BUFSIZE_MIN (KTAP_NR_SUBBUFS * KTAP_PRINT_BUFSIZE)
#define KTAP_BUFSIZE_MAX (256UL << 20)

/* A reader waiting in poll() sees a new record within this many ms. */
#ifndef KTAP_WAKE_MS
#define KTAP_WAKE_MS 10
#endif

/* Control channel: queued messages, and the longest line. */
#define KTAP_CTL_SLOTS 32
#define KTAP_CTL_MSGLEN 600

#if MAXSTRINGLEN < 16
#error "MAXSTRINGLEN must be at least 16"
#endif
#if KTAP_OVERLOAD_SAMPLE < 1
#error "KTAP_OVERLOAD_SAMPLE must be at least 1"
#endif
#if KTAP_PRINT_BUFSIZE < 1024
#error "KTAP_PRINT_BUFSIZE must be at least 1024"
#endif

#endif /* _KTAP_LIMITS_H */
