/* json.h - ktap-run's JSON lines (ktap --json; the schema is doc/json.md)
 *
 * Every function appends one whole line, one JSON object and '\n', to a
 * growing buffer that ktap-run then writes out with its other output.
 * Defined in loader/json.c.
 */
#ifndef KTAP_LOADER_JSON_H
#define KTAP_LOADER_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json_buf {
	char *p;
	size_t len, cap;
};

/* where a record came from: its CPU file and header (runtime/uapi.h) */
struct json_origin {
	int cpu;
	uint64_t seq;
	uint64_t time_ns;
};

/* a record's TSC as a time of day: a reading of the TSC and of
 * CLOCK_REALTIME taken together, and the TSC's rate (the module's
 * KTAP_PARAM_TSC_REF, _NS_REF, _TSC_KHZ); khz 0: unknown, every time 0 */
struct json_clock {
	uint64_t tsc, ns;
	unsigned long khz;
	uint64_t mult;		/* ns per cycle << 32: json_clock_set() */
};
void json_clock_set(struct json_clock *c);
uint64_t json_clock_ns(const struct json_clock *c, uint64_t tsc);

/* output text: {"type":"output","text":...,"cpu":N,"time_ns":T,"seq":S} */
void json_text(struct json_buf *b, const struct json_origin *at,
	       const char *text, size_t len);
/* a value the runtime wrote as JSON members (KTAP_REC_MAGIC_DATA): the
 * object is those members and the origin's; false if they are not
 * well-formed JSON members (nothing is appended) */
int json_data(struct json_buf *b, const struct json_origin *at,
	      const char *members, size_t len);
/* a message: {"type":TYPE,"message":TEXT} (error, warning) */
void json_message(struct json_buf *b, const char *type, const char *text);
/* a count: {"type":TYPE,"count":N} (dropped, skipped) */
void json_count(struct json_buf *b, const char *type, unsigned long long n);
/* the end: {"type":"exit","status":N,"reason":WHY} (why may be NULL) */
void json_exit(struct json_buf *b, int status, const char *why);

/*
 * ktap-run -J's stream (stream.h) back into JSON lines: the host's side
 * of ktap --vm --json. A feed may end anywhere, also inside an item.
 */
struct json_stream {
	char *part;		/* an item cut short by the end of a feed */
	size_t len, cap;
	int cpu;		/* KTAP_STREAM_CPU's */
	uint64_t seq;		/* the next record's */
	uint64_t tsc;		/* the last record's */
	struct json_clock clock;	/* KTAP_STREAM_CLOCK's */
	unsigned long long records;
	int status;		/* KTAP_STREAM_EXIT's, once ended */
	bool ended;		/* the exit item came */
	bool bad;		/* something that is no item came */
};
/* appends the line of every whole item in data to b; -1 (now and from
 * then on) if the stream is corrupt */
int json_stream_feed(struct json_stream *s, struct json_buf *b,
		     const char *data, size_t len);
void json_stream_free(struct json_stream *s);

#endif
