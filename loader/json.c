/* json.c - ktap-run's JSON lines: records and messages as JSON objects
 * (json.h; the schema is doc/json.md).
 *
 * Strings are escaped as RFC 8259 wants, and the output is always valid
 * UTF-8: a byte that is not part of a well-formed UTF-8 sequence (a %b
 * conversion's raw bytes, a truncated string) is written as the code
 * point of the same number, \u00XX, so a strict parser never refuses a
 * line and the byte can still be told.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "stream.h"

static void grow(struct json_buf *b, size_t n)
{
	if (b->len + n <= b->cap)
		return;
	b->cap = b->len + n > 2 * b->cap ? b->len + n + 256 : 2 * b->cap;
	b->p = realloc(b->p, b->cap);
	if (!b->p) {
		fprintf(stderr, "ktap-run: out of memory\n");
		exit(1);
	}
}

static void put(struct json_buf *b, const char *s, size_t n)
{
	grow(b, n);
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

static void __attribute__((format(printf, 2, 3))) putf(struct json_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	grow(b, n + 1);
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, n + 1, fmt, ap);
	va_end(ap);
	b->len += n;
}

/* the length of the well-formed UTF-8 sequence at s (1..4), or 0 */
static size_t utf8_len(const unsigned char *s, size_t avail)
{
	size_t n, i;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n > avail)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, past U+10FFFF */
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/*
 * s as a JSON string, quotes included. The flood's path: in the TCG guest
 * every instruction here is emulated, so plain bytes are found by one
 * table lookup each and copied as runs, room is made once, and nothing
 * goes through printf.
 */
static const char plain_ascii[128] = {
	/* 0x20..0x7e but '"' and '\\' */
	[0x20] = 1, [0x21] = 1, [0x23 ... 0x5b] = 1, [0x5d ... 0x7e] = 1,
};

static void put_str(struct json_buf *b, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	char *d;
	size_t i = 0;

	grow(b, 6 * len + 2);	/* the most escaping can make */
	d = b->p + b->len;
	*d++ = '"';
	while (i < len) {
		size_t start = i, k;

		while (i < len && u[i] < 0x80 && plain_ascii[u[i]])
			i++;
		memcpy(d, s + start, i - start);
		d += i - start;
		if (i == len)
			break;
		if (u[i] >= 0x80 && (k = utf8_len(u + i, len - i))) {
			memcpy(d, s + i, k);
			d += k;
			i += k;
			continue;
		}
		*d++ = '\\';
		switch (u[i]) {
		case '"': *d++ = '"'; break;
		case '\\': *d++ = '\\'; break;
		case '\n': *d++ = 'n'; break;
		case '\t': *d++ = 't'; break;
		case '\r': *d++ = 'r'; break;
		default:
			memcpy(d, "u00", 3);
			d[3] = hex[u[i] >> 4];
			d[4] = hex[u[i] & 15];
			d += 5;
			break;
		}
		i++;
	}
	*d++ = '"';
	b->len = d - b->p;
}

/* n in decimal at d; returns the end. Two digits a step: a time stamp
 * has 19, and every step is a 64-bit multiply the TCG guest emulates */
static char *put_u64(char *d, uint64_t n)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	char tmp[20], *t = tmp + sizeof(tmp);
	size_t k;

	while (n >= 100) {
		unsigned i = (unsigned)(n % 100) * 2;

		n /= 100;
		t -= 2;
		t[0] = pairs[i];
		t[1] = pairs[i + 1];
	}
	if (n >= 10) {
		t -= 2;
		t[0] = pairs[n * 2];
		t[1] = pairs[n * 2 + 1];
	} else {
		*--t = '0' + n;
	}
	k = tmp + sizeof(tmp) - t;
	memcpy(d, t, k);
	return d + k;
}

static void put_origin(struct json_buf *b, const struct json_origin *at)
{
	char *d;

	grow(b, 96);
	d = b->p + b->len;
	memcpy(d, ",\"cpu\":", 7);
	d = put_u64(d + 7, (uint64_t)at->cpu);
	memcpy(d, ",\"time_ns\":", 11);
	d = put_u64(d + 11, at->time_ns);
	memcpy(d, ",\"seq\":", 7);
	d = put_u64(d + 7, at->seq);
	memcpy(d, "}\n", 2);
	b->len = d + 2 - b->p;
}

/* a multiply and a shift per record instead of a 128-bit division, a
 * library loop that the TCG guest emulates instruction by instruction;
 * the truncated multiplier is off by less than 1e-9 */
void json_clock_set(struct json_clock *c)
{
	c->mult = c->khz ? ((uint64_t)1000000 << 32) / c->khz : 0;
}

uint64_t json_clock_ns(const struct json_clock *c, uint64_t tsc)
{
	if (!c->mult || !tsc)
		return 0;
	if (tsc >= c->tsc)
		return c->ns + (uint64_t)((unsigned __int128)(tsc - c->tsc) * c->mult >> 32);
	return c->ns - (uint64_t)((unsigned __int128)(c->tsc - tsc) * c->mult >> 32);
}

void json_text(struct json_buf *b, const struct json_origin *at,
	       const char *text, size_t len)
{
	put(b, "{\"type\":\"output\",\"text\":", 24);
	put_str(b, text, len);
	put_origin(b, at);
}

/*
 * The runtime's members are trusted to be JSON, but only as far as a
 * check this cheap goes: they start with "type", hold no raw control
 * byte or newline (which would break the one-line framing) and their
 * quotes and brackets balance outside strings.
 */
static bool members_ok(const char *s, size_t len)
{
	int depth = 0;
	bool in_str = false;

	if (len < 8 || strncmp(s, "\"type\":\"", 8))
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = s[i];

		if (ch < 0x20)
			return false;
		if (in_str) {
			if (ch == '\\')
				i++;
			else if (ch == '"')
				in_str = false;
		} else if (ch == '"') {
			in_str = true;
		} else if (ch == '[' || ch == '{') {
			depth++;
		} else if ((ch == ']' || ch == '}') && --depth < 0) {
			return false;
		}
	}
	return !in_str && depth == 0;
}

int json_data(struct json_buf *b, const struct json_origin *at,
	      const char *members, size_t len)
{
	if (!members_ok(members, len))
		return 0;
	put(b, "{", 1);
	put(b, members, len);
	put_origin(b, at);
	return 1;
}

static void message(struct json_buf *b, const char *type, const char *text, size_t len)
{
	put(b, "{\"type\":", 8);
	put_str(b, type, strlen(type));
	put(b, ",\"message\":", 11);
	put_str(b, text, len);
	put(b, "}\n", 2);
}

void json_message(struct json_buf *b, const char *type, const char *text)
{
	message(b, type, text, strlen(text));
}

void json_count(struct json_buf *b, const char *type, unsigned long long n)
{
	put(b, "{\"type\":", 8);
	put_str(b, type, strlen(type));
	putf(b, ",\"count\":%llu}\n", n);
}

/* why: len bytes, or NULL */
static void exit_line(struct json_buf *b, int status, const char *why, size_t len)
{
	putf(b, "{\"type\":\"exit\",\"status\":%d", status);
	if (why) {
		put(b, ",\"reason\":", 10);
		put_str(b, why, len);
	}
	put(b, "}\n", 2);
}

void json_exit(struct json_buf *b, int status, const char *why)
{
	exit_line(b, status, why, why ? strlen(why) : 0);
}

/* ---- ktap-run -J's stream (stream.h) ---- */

static void stream_record(struct json_stream *s, struct json_buf *b, int kind,
			  int32_t dtsc, const char *p, size_t len)
{
	struct json_origin at = { .cpu = s->cpu, .seq = s->seq };

	s->tsc += (int64_t)dtsc;
	at.time_ns = json_clock_ns(&s->clock, s->tsc);
	s->seq++;
	s->records++;
	if (kind == KTAP_STREAM_TEXT)
		json_text(b, &at, p, len);
	else if (!json_data(b, &at, p, len))
		json_message(b, "warning", "a malformed data record was left out");
}

/* a payload that must be n bytes: copied to v; false if it is not */
static bool stream_fixed(void *v, size_t n, const char *p, size_t len)
{
	if (len != n)
		return false;
	memcpy(v, p, n);
	return true;
}

/* one whole item: its line (if it has one); -1 if it is not an item */
static int stream_item(struct json_stream *s, struct json_buf *b,
		       const struct ktap_stream_hdr *h, const char *p)
{
	size_t len = KTAP_STREAM_LEN(h);
	struct ktap_stream_clock c;
	uint64_t n[2];
	uint32_t cpu;
	int32_t st;

	switch (KTAP_STREAM_KIND(h)) {
	case KTAP_STREAM_TEXT:
	case KTAP_STREAM_DATA:
		stream_record(s, b, KTAP_STREAM_KIND(h), h->dtsc, p, len);
		return 0;
	case KTAP_STREAM_CPU:
		if (!stream_fixed(&cpu, sizeof(cpu), p, len))
			return -1;
		s->cpu = (int)cpu;
		return 0;
	case KTAP_STREAM_SEQ:
		return stream_fixed(&s->seq, sizeof(s->seq), p, len) ? 0 : -1;
	case KTAP_STREAM_TSC:
		return stream_fixed(&s->tsc, sizeof(s->tsc), p, len) ? 0 : -1;
	case KTAP_STREAM_CLOCK:
		if (!stream_fixed(&c, sizeof(c), p, len))
			return -1;
		s->clock = (struct json_clock){ .tsc = c.tsc_ref, .ns = c.ns_ref,
						.khz = (unsigned long)c.tsc_khz };
		json_clock_set(&s->clock);
		return 0;
	case KTAP_STREAM_ERROR:
	case KTAP_STREAM_WARNING:
		message(b, KTAP_STREAM_KIND(h) == KTAP_STREAM_ERROR ? "error" : "warning",
			p, len);
		return 0;
	case KTAP_STREAM_COUNTS:
		if (!stream_fixed(n, sizeof(n), p, len))
			return -1;
		json_count(b, "dropped", n[0]);
		json_count(b, "skipped", n[1]);
		return 0;
	case KTAP_STREAM_EXIT:
		if (len < sizeof(st))
			return -1;
		memcpy(&st, p, sizeof(st));
		s->ended = true;
		s->status = st;
		exit_line(b, st, len > sizeof(st) ? p + sizeof(st) : NULL, len - sizeof(st));
		return 0;
	default:
		return -1;
	}
}

static const char stream_kinds[] = {
	KTAP_STREAM_TEXT, KTAP_STREAM_DATA, KTAP_STREAM_CPU, KTAP_STREAM_SEQ,
	KTAP_STREAM_TSC, KTAP_STREAM_CLOCK, KTAP_STREAM_ERROR, KTAP_STREAM_WARNING,
	KTAP_STREAM_COUNTS, KTAP_STREAM_EXIT, 0
};

/* the whole items at p: the bytes they take, or -1 */
static long stream_items(struct json_stream *s, struct json_buf *b,
			 const char *p, size_t n)
{
	struct ktap_stream_hdr h;
	size_t off = 0;

	while (n - off >= sizeof(h)) {
		memcpy(&h, p + off, sizeof(h));
		/* no kind of item: known before its length is waited for */
		if (!strchr(stream_kinds, KTAP_STREAM_KIND(&h)) || !KTAP_STREAM_KIND(&h))
			return -1;
		if (n - off - sizeof(h) < KTAP_STREAM_LEN(&h))
			break;
		if (stream_item(s, b, &h, p + off + sizeof(h)) < 0)
			return -1;
		off += sizeof(h) + KTAP_STREAM_LEN(&h);
	}
	return (long)off;
}

/*
 * Items are read where they are; only an item cut short by the end of
 * data is copied, and completed by the next feed.
 */
int json_stream_feed(struct json_stream *s, struct json_buf *b,
		     const char *data, size_t len)
{
	const char *p = data;
	size_t n = len, rest;
	long used;

	if (s->bad)
		return -1;
	if (s->len) {
		if (s->len + len > s->cap) {
			s->cap = s->len + len + 4096;
			s->part = realloc(s->part, s->cap);
			if (!s->part) {
				fprintf(stderr, "ktap: out of memory\n");
				exit(1);
			}
		}
		memcpy(s->part + s->len, data, len);
		p = s->part;
		n = s->len + len;
	}
	used = stream_items(s, b, p, n);
	if (used < 0) {
		s->bad = true;
		return -1;
	}
	rest = n - (size_t)used;
	if (rest && p != s->part && rest > s->cap) {
		s->cap = rest + 4096;
		free(s->part);
		s->part = malloc(s->cap);
		if (!s->part) {
			fprintf(stderr, "ktap: out of memory\n");
			exit(1);
		}
	}
	if (rest)
		memmove(s->part, p + used, rest);
	s->len = rest;
	return 0;
}

void json_stream_free(struct json_stream *s)
{
	free(s->part);
	s->part = NULL;
	s->len = s->cap = 0;
}
