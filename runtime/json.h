/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap runtime: values as JSON data records (ktap --json).
 *
 * With KTAP_PARAM_JSON (transport.h's ktap_json), print() of a histogram
 * and print_backtrace()/print_stack() do not print text: each writes one
 * record of its own, magic KTAP_REC_MAGIC_DATA, whose payload is the
 * members of a JSON object without its braces ("type":"hist",...). The
 * loader adds the CPU and the time and prints the object as one line
 * (loader/json.c; the schema is doc/json.md). Output text printed before
 * the value in the same hit goes out first, as a record of its own, so
 * the order of the two is kept.
 *
 * A data record is never split: it is built in the print buffer, which
 * holds KTAP_PRINT_CAP bytes; a value that needs more is cut at a whole
 * element by its writer (stat.h, stack.h), which says "truncated":true.
 */
#ifndef _KTAP_JSON_H
#define _KTAP_JSON_H

/**
 * ktap_json_begin() - start a data record in the print buffer
 * @c: the context
 * @o: the sink to set up: the print buffer, never flushed
 * @type: the record's "type"
 */
static __maybe_unused void ktap_json_begin(struct ktap_context *c,
					   struct ktap_out *o,
					   const char *type)
{
	ktap_print_flush(c);
	ktap_out_print(o, c);
	o->flush = false;
	ktap_out_snprintf(o, "\"type\":\"%s\"", type);
}

/**
 * ktap_json_end() - write the data record built since ktap_json_begin()
 * @c: the context
 * @o: the sink
 */
static __maybe_unused void ktap_json_end(struct ktap_context *c,
					 struct ktap_out *o)
{
	struct ktap_rec_hdr *rec = (struct ktap_rec_hdr *)c->print_buf;

	rec->len = o->len;
	ktap_transport_write_as(rec, KTAP_REC_MAGIC_DATA);
	c->print_len = 0;
}

/**
 * ktap_json_room() - is there room for @n more bytes (and the closing
 *	brackets a writer keeps for itself)?
 * @o: the sink
 * @n: bytes
 */
static inline bool ktap_json_room(const struct ktap_out *o, size_t n)
{
	return o->len + n + 32 <= o->cap;
}

/**
 * ktap_json_str() - append @s as a JSON string, quoted and escaped
 * @o: the sink
 * @s: the string (bytes >= 0x80 pass as they are)
 */
static __maybe_unused void ktap_json_str(struct ktap_out *o, const char *s)
{
	ktap_out_write(o, "\"", 1);
	for (; *s; s++) {
		unsigned char ch = *s;
		char esc[8];

		if (ch == '"' || ch == '\\') {
			esc[0] = '\\';
			esc[1] = ch;
			ktap_out_write(o, esc, 2);
		} else if (ch < 0x20) {
			ktap_out_write(o, esc, scnprintf(esc, sizeof(esc), "\\u%04x", ch));
		} else {
			ktap_out_write(o, s, 1);
		}
	}
	ktap_out_write(o, "\"", 1);
}

#endif /* _KTAP_JSON_H */
