/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap runtime: print.
 *
 * A hit's output collects in this CPU's print buffer and leaves as one
 * relay record at ktap_leave(); a hit that prints more than the buffer
 * holds flushes a record and carries on.
 *
 * ktap_printf() implements SystemTap's printf. The translator has checked
 * each conversion against its argument and passes int64_t for the integer
 * conversions and for a '*' width or precision, and const char * for %s,
 * %m and %M:
 *
 *   %d %i %u %x %X %o %c %s %p %%   flags "-+ #0", width, .precision, '*'
 *   %b   the integer as raw binary, width bytes (1, 2, 4, 8; default 8);
 *        %B is accepted as a synonym
 *   %m   .precision bytes of memory (default 1), read without faulting
 *   %M   the same bytes in hex
 *   l, ll, h, hh, z, j, t, L length modifiers are accepted and ignored
 *
 * The plain conversions are formatted by the kernel's vsnprintf, one
 * conversion at a time, so they behave as printk's do (e.g. %#x of 0 is
 * "0x0", as in SystemTap).
 */
#ifndef _KTAP_PRINT_H
#define _KTAP_PRINT_H

/**
 * struct ktap_out - where formatted output goes
 * @c: the context; with @flush, a full @buf is flushed as a record
 * @buf: the output
 * @len: bytes in @buf
 * @cap: capacity of @buf, not counting the byte after it (vsnprintf's NUL)
 * @flush: flush a full @buf to relay (print) instead of truncating (sprintf)
 */
struct ktap_out {
	struct ktap_context *c;
	char *buf;
	size_t len;
	size_t cap;
	bool flush;
};

/**
 * struct ktap_fmt_spec - one parsed conversion
 * @flags: the flags given, as a NUL-terminated string of "-+ #0"
 * @width: field width, or -1
 * @prec: precision, or -1
 * @conv: the conversion character
 */
struct ktap_fmt_spec {
	char flags[6];
	int width;
	int prec;
	char conv;
};

/* ktap_print_data() and KTAP_PRINT_CAP, the bytes of output one record
 * can carry: hot.h */

/**
 * ktap_print_flush() - write this CPU's pending output as one record
 * @c: the context
 */
static __always_inline void ktap_print_flush(struct ktap_context *c)
{
	struct ktap_rec_hdr *rec = (struct ktap_rec_hdr *)c->print_buf;

	if (!c->print_len)
		return;
	rec->len = c->print_len;
	ktap_transport_write(rec);
	c->print_len = 0;
}

/**
 * ktap_out_print() - an output sink appending to the print buffer
 * @o: the sink to set up
 * @c: the context
 */
static inline void ktap_out_print(struct ktap_out *o, struct ktap_context *c)
{
	o->c = c;
	o->buf = ktap_print_data(c);
	o->len = c->print_len;
	o->cap = KTAP_PRINT_CAP;
	o->flush = true;
}

/**
 * ktap_out_flush() - make room in a print sink
 * @o: the sink
 *
 * Return: true if @o was flushed and is empty, false for a string sink.
 */
static bool ktap_out_flush(struct ktap_out *o)
{
	if (!o->flush)
		return false;
	o->c->print_len = o->len;
	ktap_print_flush(o->c);
	o->len = 0;
	return true;
}

/**
 * ktap_out_write() - append bytes to a sink
 * @o: the sink
 * @s: the bytes
 * @n: how many
 *
 * A print sink flushes when full; a string sink truncates.
 */
static void ktap_out_write(struct ktap_out *o, const char *s, size_t n)
{
	while (n) {
		size_t k = min(n, o->cap - o->len);

		if (!k) {
			if (!ktap_out_flush(o))
				return;
			continue;
		}
		memcpy(o->buf + o->len, s, k);
		o->len += k;
		s += k;
		n -= k;
	}
}

/**
 * ktap_out_until() - append a string up to a stop byte to a sink
 * @o: the sink
 * @s: the string
 * @stop: the byte that ends the run besides the NUL ('\0' for none)
 *
 * Copies with hot.h's ktap_copy_until(). A print sink flushes when full;
 * a string sink truncates.
 *
 * Return: the byte that ended the run (@stop or the NUL).
 */
static __always_inline const char *ktap_out_until(struct ktap_out *o,
						  const char *s, char stop)
{
	for (;;) {
		o->len = ktap_copy_until(o->buf + o->len, o->buf + o->cap, &s,
					 stop) - o->buf;
		if (!*s || *s == stop)
			return s;
		if (!ktap_out_flush(o))	/* a string sink: skip the rest */
			while (*s && *s != stop)
				s++;
	}
}

/**
 * ktap_out_pad() - append @n spaces to a sink
 * @o: the sink
 * @n: how many
 */
static void ktap_out_pad(struct ktap_out *o, int n)
{
	static const char spaces[] = "                ";

	while (n > 0) {
		int k = min_t(int, n, sizeof(spaces) - 1);

		ktap_out_write(o, spaces, k);
		n -= k;
	}
}

/**
 * ktap_out_snprintf() - append kernel-vsnprintf output to a sink
 * @o: the sink
 * @fmt: kernel printf format
 *
 * Formats in place. When the result does not fit, a print sink is flushed
 * and the conversion formatted again at the start of an empty buffer; a
 * string sink keeps what fits.
 */
static __printf(2, 3) void ktap_out_snprintf(struct ktap_out *o,
					     const char *fmt, ...)
{
	size_t room = o->cap - o->len;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, room + 1, fmt, ap);
	va_end(ap);
	if (n <= room) {
		o->len += n;
		return;
	}
	if (o->len && ktap_out_flush(o)) {
		room = o->cap;
		va_start(ap, fmt);
		n = vsnprintf(o->buf, room + 1, fmt, ap);
		va_end(ap);
	}
	o->len += min_t(size_t, n, room);
}

/**
 * ktap_fmt_parse() - parse one conversion
 * @fmt: just after the '%'
 * @spec: filled in
 * @ap: the arguments, for '*' width and precision (int64_t each)
 *
 * A negative '*' width means '-' and its absolute value; a negative '*'
 * precision means none. Both are clamped to KTAP_FMT_MAXWIDTH.
 *
 * Return: the character after the conversion.
 */
static const char *ktap_fmt_parse(const char *fmt, struct ktap_fmt_spec *spec,
				  va_list *ap)
{
	int nflags = 0;
	int64_t v;

	spec->width = -1;
	spec->prec = -1;
	while (*fmt && strchr("-+ #0", *fmt)) {
		if (!strchr(spec->flags, *fmt) && nflags < 5) {
			spec->flags[nflags++] = *fmt;
			spec->flags[nflags] = '\0';
		}
		fmt++;
	}
	if (*fmt == '*') {
		v = va_arg(*ap, int64_t);
		if (v < 0) {
			v = -v;
			if (!strchr(spec->flags, '-') && nflags < 5) {
				spec->flags[nflags++] = '-';
				spec->flags[nflags] = '\0';
			}
		}
		spec->width = min_t(int64_t, v, KTAP_FMT_MAXWIDTH);
		fmt++;
	} else if (isdigit(*fmt)) {
		for (spec->width = 0; isdigit(*fmt); fmt++)
			spec->width = min(spec->width * 10 + (*fmt - '0'),
					  KTAP_FMT_MAXWIDTH);
	}
	if (*fmt == '.') {
		fmt++;
		if (*fmt == '*') {
			v = va_arg(*ap, int64_t);
			spec->prec = v < 0 ? -1 : min_t(int64_t, v,
							KTAP_FMT_MAXWIDTH);
			fmt++;
		} else {
			for (spec->prec = 0; isdigit(*fmt); fmt++)
				spec->prec = min(spec->prec * 10 + (*fmt - '0'),
						 KTAP_FMT_MAXWIDTH);
		}
	}
	while (*fmt && strchr("lhzjtqL", *fmt))
		fmt++;
	spec->conv = *fmt;
	return *fmt ? fmt + 1 : fmt;
}

/**
 * ktap_fmt_kernel() - build the kernel printf format of a conversion
 * @spec: the conversion
 * @kfmt: at least 40 bytes
 * @suffix: length modifier and conversion for vsnprintf, e.g. "lld"
 */
static void ktap_fmt_kernel(const struct ktap_fmt_spec *spec, char *kfmt,
			    const char *suffix)
{
	char *p = kfmt;

	*p++ = '%';
	p += strlen(strcpy(p, spec->flags));
	if (spec->width >= 0)
		p += sprintf(p, "%d", spec->width);
	if (spec->prec >= 0)
		p += sprintf(p, ".%d", spec->prec);
	strcpy(p, suffix);
}

/**
 * ktap_fmt_is_plain() - a conversion without flags, width or precision?
 * @spec: the conversion
 *
 * The common "%s" and "%d" need no kernel format: ktap_fmt_conv() writes
 * them directly, which saves two vsnprintf() calls per conversion.
 *
 * Return: true if plain.
 */
static inline bool ktap_fmt_is_plain(const struct ktap_fmt_spec *spec)
{
	return !spec->flags[0] && spec->width < 0 && spec->prec < 0;
}

/**
 * ktap_out_decimal() - append a signed integer in decimal to a sink
 * @o: the sink
 * @v: the value
 *
 * The same text as "%lld", without vsnprintf().
 */
static void ktap_out_decimal(struct ktap_out *o, int64_t v)
{
	char text[24];

	text[sizeof(text) - 1] = '\0';
	ktap_out_until(o, ktap_format_decimal(text + sizeof(text) - 1, v), '\0');
}

/**
 * ktap_fmt_binary() - %b: the integer's bytes, native byte order
 * @o: the sink
 * @spec: the conversion; width 1, 2, 4 or 8 bytes (default 8)
 * @v: the value
 */
static void ktap_fmt_binary(struct ktap_out *o,
			    const struct ktap_fmt_spec *spec, int64_t v)
{
	u8 b1 = v;
	u16 b2 = v;
	u32 b4 = v;

	switch (spec->width) {
	case 1:
		ktap_out_write(o, (char *)&b1, 1);
		break;
	case 2:
		ktap_out_write(o, (char *)&b2, 2);
		break;
	case 4:
		ktap_out_write(o, (char *)&b4, 4);
		break;
	default:
		ktap_out_write(o, (char *)&v, 8);
		break;
	}
}

/**
 * ktap_fmt_memory() - %m / %M: bytes of kernel memory, raw or in hex
 * @o: the sink
 * @spec: the conversion; precision is the byte count (default 1), width
 *	pads the output on the left (right with '-')
 * @addr: the memory
 *
 * Reads with copy_from_kernel_nofault(); a fault sets the error
 * "kernel read fault at 0x..." and ends the conversion.
 */
static void ktap_fmt_memory(struct ktap_out *o,
			    const struct ktap_fmt_spec *spec, const char *addr)
{
	bool hex = spec->conv == 'M';
	bool left = strchr(spec->flags, '-');
	size_t n = spec->prec >= 0 ? spec->prec : 1;
	size_t outlen = hex ? 2 * n : n;
	int pad = spec->width > (int)outlen ? spec->width - (int)outlen : 0;
	size_t done = 0;

	if (!left)
		ktap_out_pad(o, pad);
	while (done < n) {
		char chunk[32], text[2 * sizeof(chunk)];
		size_t k = min(n - done, sizeof(chunk));

		if (copy_from_kernel_nofault(chunk, addr + done, k)) {
			ktap_errorf(o->c, NULL, "kernel read fault at 0x%lx",
				    (unsigned long)(addr + done));
			return;
		}
		if (hex) {
			bin2hex(text, chunk, k);
			ktap_out_write(o, text, 2 * k);
		} else {
			ktap_out_write(o, chunk, k);
		}
		done += k;
	}
	if (left)
		ktap_out_pad(o, pad);
}

/**
 * ktap_fmt_conv() - format one parsed conversion
 * @o: the sink
 * @spec: the conversion
 * @ap: the arguments
 * @start: the conversion's text (from '%'), output as is if unknown
 * @end: just after it
 */
static void ktap_fmt_conv(struct ktap_out *o, struct ktap_fmt_spec *spec,
			  va_list *ap, const char *start, const char *end)
{
	char kfmt[40];

	switch (spec->conv) {
	case 'd':
	case 'i':
		if (ktap_fmt_is_plain(spec)) {
			ktap_out_decimal(o, va_arg(*ap, int64_t));
			break;
		}
		ktap_fmt_kernel(spec, kfmt, "lld");
		ktap_out_snprintf(o, kfmt, (long long)va_arg(*ap, int64_t));
		break;
	case 'u':
	case 'x':
	case 'X':
	case 'o':
		ktap_fmt_kernel(spec, kfmt, "ll?");
		kfmt[strlen(kfmt) - 1] = spec->conv;
		ktap_out_snprintf(o, kfmt,
				  (unsigned long long)va_arg(*ap, int64_t));
		break;
	case 'p':
		if (!strchr(spec->flags, '#'))
			strlcat(spec->flags, "#", sizeof(spec->flags));
		if (spec->width < 0) {
			spec->width = 2 + 2 * sizeof(void *);
			if (!strchr(spec->flags, '0'))
				strlcat(spec->flags, "0", sizeof(spec->flags));
		}
		ktap_fmt_kernel(spec, kfmt, "llx");
		ktap_out_snprintf(o, kfmt,
				  (unsigned long long)va_arg(*ap, int64_t));
		break;
	case 'c':
		ktap_fmt_kernel(spec, kfmt, "c");
		ktap_out_snprintf(o, kfmt, (int)va_arg(*ap, int64_t));
		break;
	case 's':
		if (ktap_fmt_is_plain(spec)) {
			const char *str = va_arg(*ap, const char *) ?: "(null)";

			ktap_out_write(o, str, strlen(str));
			break;
		}
		ktap_fmt_kernel(spec, kfmt, "s");
		ktap_out_snprintf(o, kfmt, va_arg(*ap, const char *));
		break;
	case 'b':
	case 'B':
		ktap_fmt_binary(o, spec, va_arg(*ap, int64_t));
		break;
	case 'm':
	case 'M':
		ktap_fmt_memory(o, spec, va_arg(*ap, const char *));
		break;
	case '%':
		ktap_out_write(o, "%", 1);
		break;
	default:
		ktap_out_write(o, start, end - start);
		break;
	}
}

/**
 * ktap_fmt_one() - format the conversion at @pct
 * @o: the sink
 * @pct: the '%' that starts it
 * @ap: the arguments
 *
 * A bare "%s" or "%d", most of what scripts print, is written without
 * parsing a spec: on a flood of output lines the parser was a good part
 * of the cost of a hit.
 *
 * Return: the character after the conversion.
 */
static const char *ktap_fmt_one(struct ktap_out *o, const char *pct,
				va_list *ap)
{
	struct ktap_fmt_spec spec;
	const char *end;

	switch (pct[1]) {
	case 's':
		ktap_out_until(o, va_arg(*ap, const char *) ?: "(null)", '\0');
		return pct + 2;
	case 'd':
		ktap_out_decimal(o, va_arg(*ap, int64_t));
		return pct + 2;
	}
	spec.flags[0] = '\0';
	end = ktap_fmt_parse(pct + 1, &spec, ap);
	ktap_fmt_conv(o, &spec, ap, pct, end);
	return end;
}

/**
 * ktap_vformat() - format a SystemTap printf into a sink
 * @o: the sink
 * @fmt: the format
 * @args: its arguments (see the top of this file for their types)
 */
static void ktap_vformat(struct ktap_out *o, const char *fmt, va_list args)
{
	va_list ap;

	va_copy(ap, args);
	for (;;) {
		const char *pct = ktap_out_until(o, fmt, '%');

		if (!*pct)
			break;
		fmt = ktap_fmt_one(o, pct, &ap);
	}
	va_end(ap);
}

/* ktap_printf() with its arguments as a va_list (api.c's wrapper) */
static inline void ktap_vprintf(struct ktap_context *c, const char *fmt, va_list ap)
{
	struct ktap_out o;

	ktap_out_print(&o, c);
	ktap_vformat(&o, fmt, ap);
	c->print_len = o.len;
}

/**
 * ktap_printf() - printf() of a script: format into the print buffer
 * @c: the context
 * @fmt: SystemTap printf format
 *
 * Arguments: int64_t for integer conversions and '*', const char * for
 * %s, %m, %M.
 */
static __maybe_unused void ktap_printf(struct ktap_context *c,
				       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ktap_vprintf(c, fmt, ap);
	va_end(ap);
}

/**
 * ktap_vsprintf() - format into a string
 * @c: the context
 * @dst: MAXSTRINGLEN bytes; may be one of the arguments
 * @fmt: SystemTap printf format
 * @ap: its arguments
 *
 * Output longer than MAXSTRINGLEN - 1 is truncated. %b output containing
 * zero bytes ends the string there.
 *
 * Return: the length the output would have had.
 */
static size_t ktap_vsprintf(struct ktap_context *c, char *dst,
			    const char *fmt, va_list ap)
{
	/* one byte more than a string holds: room to see it overflow */
	struct ktap_out o = {
		.c = c,
		.buf = c->scratch,
		.cap = MAXSTRINGLEN,
	};

	ktap_vformat(&o, fmt, ap);
	if (o.len > MAXSTRINGLEN - 1) {
		memcpy(dst, o.buf, MAXSTRINGLEN - 1);
		dst[MAXSTRINGLEN - 1] = '\0';
	} else {
		memcpy(dst, o.buf, o.len);
		dst[o.len] = '\0';
	}
	return o.len;
}

/**
 * ktap_sprintf() - sprintf() in tapset code: format into a string,
 *	truncating
 * @c: the context
 * @dst: MAXSTRINGLEN bytes; may be one of the arguments
 * @fmt: SystemTap printf format
 *
 * Output longer than MAXSTRINGLEN - 1 is truncated (a tapset's argstr
 * of a long path must not stop the script).
 */
static __maybe_unused void ktap_sprintf(struct ktap_context *c, char *dst,
					const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ktap_vsprintf(c, dst, fmt, ap);
	va_end(ap);
}

/* ktap_sprintf_at() with its arguments as a va_list (api.c's wrapper) */
static __maybe_unused void ktap_vsprintf_at(struct ktap_context *c,
					    const char *loc, char *dst,
					    const char *fmt, va_list ap)
{
	if (unlikely(ktap_vsprintf(c, dst, fmt, ap) > MAXSTRINGLEN - 1))
		ktap_errorf(c, loc, "sprintf result exceeds MAXSTRINGLEN (%d)",
			    MAXSTRINGLEN);
}

/**
 * ktap_sprintf_at() - sprintf() and the sprint family in a script
 * @c: the context
 * @loc: the call's location, for the error
 * @dst: MAXSTRINGLEN bytes; may be one of the arguments
 * @fmt: SystemTap printf format
 *
 * Output longer than MAXSTRINGLEN - 1 is an error naming MAXSTRINGLEN
 * (see kstring.h); @dst then holds what fits.
 */
static __maybe_unused void ktap_sprintf_at(struct ktap_context *c,
					   const char *loc, char *dst,
					   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ktap_vsprintf_at(c, loc, dst, fmt, ap);
	va_end(ap);
}

/**
 * ktap_print_str() - print a string
 * @c: the context
 * @s: the string
 */
static inline void ktap_print_str(struct ktap_context *c, const char *s)
{
	struct ktap_out o;

	ktap_out_print(&o, c);
	ktap_out_until(&o, s, '\0');
	c->print_len = o.len;
}

/**
 * ktap_print_long() - print an integer in decimal
 * @c: the context
 * @v: the value
 */
static inline void ktap_print_long(struct ktap_context *c, int64_t v)
{
	struct ktap_out o;

	ktap_out_print(&o, c);
	ktap_out_decimal(&o, v);
	c->print_len = o.len;
}

/**
 * ktap_print_char() - print one byte
 * @c: the context
 * @ch: the byte
 */
static inline void ktap_print_char(struct ktap_context *c, int ch)
{
	struct ktap_out o;
	char b = ch;

	ktap_out_print(&o, c);
	ktap_out_write(&o, &b, 1);
	c->print_len = o.len;
}

#endif /* _KTAP_PRINT_H */
