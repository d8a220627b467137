/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap runtime: the module's interface to user space (doc/internals.md,
 * section 2), in the one header both ends include: the runtime
 * (transport.h, context.h, module.h) and the loaders, loader/ktap-run.c
 * and runtime/test/ktapread.c. It must stay includable by a static
 * user-space program and by kernel code: nothing but <linux/types.h>.
 *
 * After loading, the module has /sys/kernel/debug/<module name>/ with
 * one relay file per CPU, KTAP_RELAY_FILE followed by the CPU's number,
 * the control file, KTAP_CTL_FILE, and KTAP_STATS_FILE, one line of
 * counters (KTAP_STATS_FORMAT) for anyone to read at any time.
 */
#ifndef _KTAP_UAPI_H
#define _KTAP_UAPI_H

#include <linux/types.h>

#define KTAP_RELAY_FILE	"cpu"
#define KTAP_CTL_FILE	"ctl"
#define KTAP_STATS_FILE	"stats"
/* records written, their bytes, records dropped, probe hits skipped */
#define KTAP_STATS_FORMAT "records %lu bytes %lu dropped %lu skipped %lu"

/* module parameters (the runtime's variables of these names) */
#define KTAP_PARAM_TARGET	"ktap_target"	/* target()'s pid */
#define KTAP_PARAM_BUFSIZE	"ktap_bufsize"	/* relay bytes per CPU */
#define KTAP_PARAM_FLIGHT	"ktap_flight"	/* 1: the relay buffer is a ring
						 * that keeps the last records */
#define KTAP_PARAM_TZ_GMTOFF	"ktap_tz_gmtoff"	/* local time zone, seconds west of UTC */
#define KTAP_PARAM_TZ_NAME	"ktap_tz_name"	/* its name, e.g. "CET" */
/* -G NAME=VALUE: the script's global NAME is the parameter g_NAME (the
 * generated module's g_NAME variable, translator/emit.c) */
#define KTAP_PARAM_GLOBAL_PREFIX "g_"
/* up to KTAP_MAX_LOADERS tgids, comma-separated, whose own work fires no
 * probe: the loader and the guest agent (none given: all is traced) */
#define KTAP_PARAM_LOADER	"ktap_loader"
#define KTAP_MAX_LOADERS	4
/* 1: the loader prints JSON (ktap --json): records carry their time, and
 * histograms and backtraces are written as KTAP_REC_MAGIC_DATA records */
#define KTAP_PARAM_JSON		"ktap_json"
/* read-only, set by the module: the TSC's rate in kHz (the kernel's
 * tsc_khz), for the loader to turn a record's @tsc into time */
#define KTAP_PARAM_TSC_KHZ	"ktap_tsc_khz"
/* read-only, set by the module as it loads: a TSC reading and the
 * CLOCK_REALTIME ns of the same moment, for the same */
#define KTAP_PARAM_TSC_REF	"ktap_tsc_ref"
#define KTAP_PARAM_NS_REF	"ktap_ns_ref"

/* ---- relay files: records ---- */

#define KTAP_REC_MAGIC 0x4b544150	/* "KTAP": the payload is output text */
/*
 * "KTAD": the payload is one value as the members of a JSON object, without
 * the braces ("type":"hist",...), which the loader completes with the
 * record's CPU and time (doc/json.md). Written only under KTAP_PARAM_JSON.
 */
#define KTAP_REC_MAGIC_DATA 0x4b544144

/**
 * struct ktap_rec_hdr - header of one record in a relay file
 * @magic: KTAP_REC_MAGIC or KTAP_REC_MAGIC_DATA: what the payload is
 * @len: bytes of output after the header (no padding between records)
 * @seq: global sequence number, for merging the per-CPU files
 * @tsc: when it was written: the TSC (get_cycles(), a third of the cost
 *	of reading CLOCK_REALTIME in the TCG guest); 0 unless the module was
 *	loaded with KTAP_PARAM_JSON=1. KTAP_PARAM_TSC_KHZ, _TSC_REF and
 *	_NS_REF let the loader make it a time of day.
 */
struct ktap_rec_hdr {
	__u32 magic;
	__u32 len;
	__u64 seq;
	__u64 tsc;
};

/* ---- the control file ---- */

/* commands, written by the loader, one per write() */
#define KTAP_CMD_START	"start"
#define KTAP_CMD_STOP	"stop"
/* "this open file holds the run": when it is closed before "stop" (its
 * loader died), every probe is disarmed at once; written before "start" */
#define KTAP_CMD_HOLD	"hold"

/*
 * Messages, read by the loader, one per line. The words with text after
 * them are followed by one space, then the text: KTAP_MSG_ERROR " %s".
 */
#define KTAP_MSG_EXIT	"exit"		/* the script asked to stop */
#define KTAP_MSG_ERROR	"error"		/* + " <text>" */
#define KTAP_MSG_WARN	"warn"		/* + " <text>" */
#define KTAP_MSG_DONE	"done"		/* + " <dropped> <skipped>" */
#define KTAP_MSG_SYSTEM	"system"	/* + " <command>": system(), run by the
					 * loader (\n and \\ escaped) */

/* ---- detached scripts (ktap -F): the loader's registry ----
 * A detached ktap-run (loader/detach.c) keeps KTAP_DETACH_DIR/<name>.info
 * (lines "pid N", "started EPOCH", "target PID", "output FILE|ring",
 * "script TEXT") and listens on KTAP_DETACH_DIR/<name>.sock. A client
 * connects, sends one request word with its stdout and stderr
 * (SCM_RIGHTS), and gets one byte when it is done: the exit status.
 */
#define KTAP_DETACH_DIR		"/run/ktap"
#define KTAP_DETACH_ATTACH	"attach"	/* stream the output until the
						 * client goes (ring first) */
#define KTAP_DETACH_STOP	"stop"		/* stop; end probes' output and
						 * messages to the client */

#endif /* _KTAP_UAPI_H */
