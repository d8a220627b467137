/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap runtime: strings.
 *
 * A script string is a char[MAXSTRINGLEN], always NUL-terminated, so it
 * holds at most MAXSTRINGLEN - 1 bytes. For strings a script builds,
 * ktap_concat() and ktap_sprintf_at() (print.h) make a longer result an
 * error naming MAXSTRINGLEN, which stops the script unless caught: a
 * silently shortened key or message is a wrong answer. ktap_strcat() and
 * ktap_sprintf() truncate, for tapset code (an argstr of a long path must
 * not stop a script); so does a copy of a string from kernel or user
 * memory, as users of user_string() and friends expect. (The file is kstring.h,
 * not string.h, so that no #include <string.h> can pick it up.)
 */
#ifndef _KTAP_KSTRING_H
#define _KTAP_KSTRING_H

/**
 * ktap_strcpy() - copy a string, truncating to MAXSTRINGLEN
 * @dst: MAXSTRINGLEN bytes
 * @src: the string
 */
static inline void ktap_strcpy(char *dst, const char *src)
{
	if (dst == src)
		return;
	/* strscpy()'s loop, inline: handlers copy strings into their frames
	 * several times a hit */
	*ktap_copy_until(dst, dst + MAXSTRINGLEN - 1, &src, '\0') = '\0';
}

/**
 * ktap_strcat() - dst = a . b, truncating to MAXSTRINGLEN (tapset code;
 *	a script's '.' is ktap_concat())
 * @dst: MAXSTRINGLEN bytes; may be @a, @b, or both
 * @a: left operand
 * @b: right operand
 *
 * b is moved into place before a, so any aliasing of the three is safe.
 */
static inline void ktap_strcat(char *dst, const char *a, const char *b)
{
	size_t la = strnlen(a, MAXSTRINGLEN - 1);
	size_t lb = strnlen(b, MAXSTRINGLEN - 1 - la);

	memmove(dst + la, b, lb);
	if (dst != a)
		memmove(dst, a, la);
	dst[la + lb] = '\0';
}

/**
 * ktap_string_too_long() - the error of a string beyond MAXSTRINGLEN
 * @c: the context
 * @len: the length the string would have had
 * @loc: where, e.g. "near operator '.' at t.stp:3:12", or NULL
 */
static noinline void ktap_string_too_long(struct ktap_context *c, size_t len,
					  const char *loc)
{
	ktap_errorf(c, loc, "string of %zu bytes exceeds MAXSTRINGLEN (%d)",
		    len, MAXSTRINGLEN);
}

/**
 * ktap_concat() - dst = a . b, an error if longer than MAXSTRINGLEN - 1
 * @c: the context
 * @dst: MAXSTRINGLEN bytes; may be @a, @b, or both
 * @a: left operand
 * @b: right operand
 * @loc: the operator's location, for the error
 *
 * On error, c->error is set and @dst is left unchanged.
 */
static inline void ktap_concat(struct ktap_context *c, char *dst,
			       const char *a, const char *b, const char *loc)
{
	size_t la = strnlen(a, MAXSTRINGLEN - 1);
	size_t lb = strnlen(b, MAXSTRINGLEN - 1);

	if (unlikely(la + lb > MAXSTRINGLEN - 1)) {
		ktap_string_too_long(c, la + lb, loc);
		return;
	}
	ktap_strcat(dst, a, b);
}

/**
 * ktap_strlen() - length of a script string
 * @s: the string
 *
 * Return: its length, at most MAXSTRINGLEN - 1.
 */
static inline int64_t ktap_strlen(const char *s)
{
	return strnlen(s, MAXSTRINGLEN - 1);
}

/**
 * ktap_strcmp() - compare two strings, for < <= > >= == !=
 * @a: left operand
 * @b: right operand
 *
 * Return: <0, 0 or >0, as strcmp().
 */
static inline int ktap_strcmp(const char *a, const char *b)
{
	return strcmp(a, b);
}

/**
 * ktap_streq() - are two strings equal?
 * @a: left operand
 * @b: right operand
 *
 * Return: true if equal.
 */
static inline bool ktap_streq(const char *a, const char *b)
{
	return !strcmp(a, b);
}

/**
 * ktap_substr() - dst = substr(s, start, len)
 * @dst: MAXSTRINGLEN bytes; may be @s
 * @s: the string
 * @start: index of the first byte (0-based); past the end gives ""
 * @len: bytes wanted; fewer if @s ends first
 */
static inline void ktap_substr(char *dst, const char *s, int64_t start,
			       int64_t len)
{
	int64_t n = ktap_strlen(s);

	if (start < 0 || start >= n || len <= 0) {
		dst[0] = '\0';
		return;
	}
	len = min(len, n - start);
	memmove(dst, s + start, len);
	dst[len] = '\0';
}

/**
 * ktap_isinstr() - does @s contain @sub?
 * @s: the string
 * @sub: the substring
 *
 * Return: 1 if it does, 0 if not.
 */
static inline int64_t ktap_isinstr(const char *s, const char *sub)
{
	return strstr(s, sub) != NULL;
}

/**
 * ktap_escape_byte() - one byte as text_str() shows it
 * @esc: at least 5 bytes
 * @ch: the byte
 *
 * Printable ASCII stays itself, but for '"' and '\\'; the C escapes for
 * \a \b \f \n \r \t \v; any other byte (a NUL, a control, one of
 * 127 or above) three octal digits.
 *
 * Return: the length of the text in @esc (NUL-terminated).
 */
static __maybe_unused int ktap_escape_byte(char *esc, unsigned char ch)
{
	static const char named[] = "a\ab\bf\fn\nr\rt\tv\v\"\"\\\\";
	const char *n;

	for (n = named; *n; n += 2) {
		if (n[1] == ch) {
			esc[0] = '\\';
			esc[1] = n[0];
			esc[2] = '\0';
			return 2;
		}
	}
	if (ch >= 32 && ch < 127) {
		esc[0] = ch;
		esc[1] = '\0';
		return 1;
	}
	return scnprintf(esc, 5, "\\%03o", ch);
}

/**
 * ktap_text_escape() - bytes as C-escaped text (text_str(), string_quoted(),
 *	user_string_quoted() and the buffer readers)
 * @dst: MAXSTRINGLEN bytes
 * @src: the bytes; a NUL among the first @len is escaped like any other
 * @len: how many bytes of @src to show
 * @outlen: the longest text to write; clamped to MAXSTRINGLEN - 1
 * @quoted: put the text in double quotes, and "..." after the closing
 *	one when it is cut short
 * @more: @src goes on after @len bytes (so the text is cut short)
 *
 * What does not fit in @outlen is left out, never half an escape; quoted,
 * the closing quote and "..." always fit.
 */
static __maybe_unused void ktap_text_escape(char *dst, const char *src, size_t len,
					    int64_t outlen, bool quoted, bool more)
{
	size_t limit = clamp_t(int64_t, outlen, quoted ? 5 : 0, MAXSTRINGLEN - 1);
	size_t out = 0, safe = 0, i;
	char esc[5];
	int k;

	if (quoted)
		dst[out++] = '"';
	safe = out;
	for (i = 0; i < len; i++) {
		k = ktap_escape_byte(esc, src[i]);
		if (out + k + quoted > limit) {
			more = true;
			break;
		}
		memcpy(dst + out, esc, k);
		out += k;
		/* the longest text after which '"...' still fits */
		if (out + 4 <= limit)
			safe = out;
	}
	if (quoted && more)
		out = safe;
	if (quoted)
		dst[out++] = '"';
	if (quoted && more) {
		memcpy(dst + out, "...", 3);
		out += 3;
	}
	dst[out] = '\0';
}

#endif /* _KTAP_KSTRING_H */
