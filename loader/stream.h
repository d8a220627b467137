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
 * each record's payload behind an 8-byte header; the host makes "cpu",
 * "time_ns" and "seq" of what the headers say. The header is small
 * because in the guest every byte written is copied by emulated code
 * (twice with --vm: into the pipe and out to the agent): a record of
 * the flood holds 40 bytes of text; the relay's own header, 24 more.
 *
 * The stream is a sequence of items, each a struct ktap_stream_hdr
 * followed by its payload, in the byte order of the machine that wrote it
 * (the guest and the host are both x86_64). The reader keeps three facts
 * that items change: the CPU, the seq the next record has, and the TSC
 * of the last record (all 0 at the start).
 *
 *   KTAP_STREAM_TEXT   a record of output text (KTAP_REC_MAGIC): its seq is
 *                      the next seq (then the next is one more), its tsc
 *                      the last record's + dtsc, its CPU the current one
 *   KTAP_STREAM_DATA   the same for a data record (KTAP_REC_MAGIC_DATA)
 *   KTAP_STREAM_CPU    a __u32: the CPU of the records that follow
 *   KTAP_STREAM_SEQ    a __u64: the next record's seq (a gap: records
 *                      were dropped)
 *   KTAP_STREAM_TSC    a __u64: taken as the last record's tsc, when the
 *                      next one's dtsc would not fit in 32 bits
 *   KTAP_STREAM_CLOCK  a struct ktap_stream_clock: how the records' tsc
 *                      become times (the module's KTAP_PARAM_TSC_*)
 *   KTAP_STREAM_ERROR  the text of an error message of the script
 *   KTAP_STREAM_WARNING ... of a warning
 *   KTAP_STREAM_COUNTS two __u64: records dropped, probe hits skipped
 *                      (once, at the end)
 *   KTAP_STREAM_EXIT   an __s32, ktap-run's exit status, then what
 *                      stopped the script (none: nothing said); the last
 *                      item
 *
 * Records, messages, counts and the exit become the JSON lines
 * doc/json.md describes; the other items only say how to make them.
 */
#ifndef KTAP_LOADER_STREAM_H
#define KTAP_LOADER_STREAM_H

#include "../runtime/uapi.h"

/**
 * struct ktap_stream_hdr - the header of one item of a -J stream
 * @kind_len: the kind (KTAP_STREAM_*) in the low 8 bits, the payload's
 *	length in bytes above them
 * @dtsc: records: their tsc minus the last record's; other items: 0
 */
struct ktap_stream_hdr {
	__u32 kind_len;
	__s32 dtsc;
};

#define KTAP_STREAM_KIND(h)	((h)->kind_len & 0xff)
#define KTAP_STREAM_LEN(h)	((h)->kind_len >> 8)
#define KTAP_STREAM_WORD(kind, len)	((__u32)(len) << 8 | (kind))

enum ktap_stream_kind {
	KTAP_STREAM_TEXT = 'T',
	KTAP_STREAM_DATA = 'D',
	KTAP_STREAM_CPU = 'C',
	KTAP_STREAM_SEQ = 'S',
	KTAP_STREAM_TSC = 'B',
	KTAP_STREAM_CLOCK = 'K',
	KTAP_STREAM_ERROR = 'E',
	KTAP_STREAM_WARNING = 'W',
	KTAP_STREAM_COUNTS = 'N',
	KTAP_STREAM_EXIT = 'X',
};

/* the payload of KTAP_STREAM_CLOCK */
struct ktap_stream_clock {
	__u64 tsc_ref;		/* KTAP_PARAM_TSC_REF */
	__u64 ns_ref;		/* KTAP_PARAM_NS_REF */
	__u64 tsc_khz;		/* KTAP_PARAM_TSC_KHZ */
};

/* an item's payload is at most this long (24 bits; the runtime's records
 * are far shorter) */
#define KTAP_STREAM_MAX_ITEM	((1u << 24) - 1)

#endif
