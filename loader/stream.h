/* stream.h - ktap-run -J's output: the records of a run, for JSON lines
 * made by another program (ktap --vm, on the host), in the one header
 * both ends include: loader/ktap-run.c writes it, loader/json.c
 * (json_stream_feed()) reads it, in ktap (translator/vm.c) and in
 * ktap-run -d.
 *
 * Why: in the TCG guest every instruction of ktap-run is emulated, and its
 * CPU is the traced workload's. Formatting a JSON line there cost as much
 * again as reading the record (doc/json.md). With -J, ktap-run does what
 * it does for text, merging the CPUs' records into seq order, and writes
 * each record as the relay file held it, header included; the host turns
 * the headers into "cpu", "time_ns" and "seq".
 *
 * The stream is a sequence of items, each a struct ktap_rec_hdr
 * (runtime/uapi.h) followed by its len bytes, in the byte order of the
 * machine that wrote it (the guest and the host are both x86_64):
 *
 *   KTAP_REC_MAGIC       a record of output text, as the relay file held
 *   KTAP_REC_MAGIC_DATA  it (seq and tsc as the runtime wrote them), from
 *                        the CPU the last KTAP_STREAM_CPU named
 *   KTAP_STREAM_CPU      seq: the CPU of the records that follow; len 0
 *   KTAP_STREAM_CLOCK    a struct ktap_stream_clock: how the records'
 *                        tsc become times (the module's KTAP_PARAM_TSC_*)
 *   KTAP_STREAM_ERROR    the text of an error message of the script
 *   KTAP_STREAM_WARNING  ... of a warning
 *   KTAP_STREAM_COUNTS   seq: records dropped, tsc: probe hits skipped;
 *                        len 0 (once, at the end)
 *   KTAP_STREAM_EXIT     seq: ktap-run's exit status; the text: what
 *                        stopped the script (len 0: nothing said); the
 *                        last item
 *
 * Each item becomes the JSON line doc/json.md describes for it, except
 * KTAP_STREAM_CPU and KTAP_STREAM_CLOCK, which only say how to make them.
 */
#ifndef KTAP_LOADER_STREAM_H
#define KTAP_LOADER_STREAM_H

#include "../runtime/uapi.h"

#define KTAP_STREAM_CPU		0x4b545343	/* "KTSC" */
#define KTAP_STREAM_CLOCK	0x4b54534b	/* "KTSK" */
#define KTAP_STREAM_ERROR	0x4b545345	/* "KTSE" */
#define KTAP_STREAM_WARNING	0x4b545357	/* "KTSW" */
#define KTAP_STREAM_COUNTS	0x4b54534e	/* "KTSN" */
#define KTAP_STREAM_EXIT	0x4b545358	/* "KTSX" */

/* the payload of KTAP_STREAM_CLOCK */
struct ktap_stream_clock {
	__u64 tsc_ref;		/* KTAP_PARAM_TSC_REF */
	__u64 ns_ref;		/* KTAP_PARAM_NS_REF */
	__u64 tsc_khz;		/* KTAP_PARAM_TSC_KHZ */
};

/* items longer than this mean a corrupt stream (the runtime's records
 * are far shorter) */
#define KTAP_STREAM_MAX_ITEM	(16u << 20)

#endif
