/* diag.c - errors and warnings that point at the script.
 *
 *   file:line:col: error: message
 *       source line
 *       ^
 *
 * Every error is counted and passes keep going, so one run reports all
 * of them. The caret line copies the tabs of the source line so it lines
 * up whatever the terminal's tab width.
 *
 * What is said is also kept (diag_messages()): a module the cache stores
 * keeps its script's warnings, which a hit says again, since it skips
 * the passes that found them.
 */
#include <stdlib.h>
#include <string.h>

#include "ktap.h"

bool diag_no_warnings;
bool diag_warnings_are_errors;

static int nerrors;
static FILE *stream;	/* where messages go; NULL = stderr */
static struct strbuf said_text;	/* everything said, for diag_messages() */

/* send messages to f (the fuzzer: /dev/null) */
void diag_set_stream(FILE *f)
{
	stream = f;
}

static FILE *out(void)
{
	return stream ? stream : stderr;
}

const char *diag_messages(void)
{
	return said_text.buf ? said_text.buf : "";
}

int diag_error_count(void)
{
	return nerrors;
}

static const struct source *last_src;
static const char *last_p;
static int last_line;
static char **said;
static int nsaid;
static int nshown;

/* forget every error and message so far (the fuzzer, between inputs) */
void diag_reset(void)
{
	int i;

	for (i = 0; i < nsaid; i++)
		xfree(said[i]);
	xfree(said);
	said = NULL;
	nsaid = 0;
	last_src = NULL;
	last_p = NULL;
	last_line = 0;
	nshown = 0;
	nerrors = 0;
	xfree(said_text.buf);
	said_text = (struct strbuf){ 0 };
}

/* The start of line `line` (1-based) in src, or NULL. Errors mostly
 * come in source order, so the search goes on from the last answer. */
static const char *line_start(const struct source *src, int line)
{
	const char *p = src->text;
	int n = 1;
	if (src == last_src && last_line <= line) {
		p = last_p;
		n = last_line;
	}
	for (; n < line; n++) {
		p = strchr(p, '\n');
		if (!p)
			return NULL;
		p++;
	}
	last_src = src;
	last_p = p;
	last_line = line;
	return p;
}

/* a longer line shows only this much of itself, around the caret */
#define SHOW_WIDTH 200

static void show_source_line(const struct srcloc *loc)
{
	if (!loc->src || !loc->src->text || loc->line < 1)
		return;
	const char *p = line_start(loc->src, loc->line);
	if (!p)
		return;
	int len = (int)strcspn(p, "\n"), from = 0;
	int col = loc->col - 1 < len ? loc->col - 1 : len;
	if (len > SHOW_WIDTH) {
		from = col - SHOW_WIDTH / 2;
		if (from > len - SHOW_WIDTH)
			from = len - SHOW_WIDTH;
		if (from < 0)
			from = 0;
		len = from + SHOW_WIDTH;
	}
	struct strbuf caret = {0};	/* one write: stderr is unbuffered */
	for (int i = from; i < col; i++)
		sb_putc(&caret, p[i] == '\t' ? '\t' : ' ');
	sb_puts(&caret, "^");
	fprintf(out(), "    %.*s\n    %s\n", len - from, p + from, caret.buf);
	xfree(caret.buf);
}

/* One probe body can be resolved several times (an alias that expands to
 * several points); say each thing once. Returns true if already said. */
static bool said_before(const struct srcloc *loc, const char *label,
			const char *msg)
{
	char *key;
	int i;

	if (!loc || !loc->src)
		return false;
	key = xasprintf("%s:%d:%d:%s:%s", loc->src->name, loc->line, loc->col,
			label, msg);
	for (i = 0; i < nsaid; i++) {
		if (strcmp(said[i], key) == 0) {
			xfree(key);
			return true;
		}
	}
	said = xrealloc(said, (nsaid + 1) * sizeof(*said));
	said[nsaid++] = key;
	return false;
}

bool diag_said_before(const struct srcloc *loc, const char *what)
{
	return said_before(loc, "once", what);
}

/* Past this many messages nobody reads on: one line says so, and the
 * rest are counted but not shown. */
#define MAX_MESSAGES 1000

static void say_message(const struct srcloc *loc, const char *label,
			const char *fmt, va_list ap);

/* one message, to the stream and kept: written to memory first, as
 * show_source_line() writes to out() too */
static void report(const struct srcloc *loc, const char *label,
		   const char *fmt, va_list ap)
{
	FILE *saved = stream, *real = out(), *mem;
	char *text = NULL;
	size_t len = 0;

	mem = open_memstream(&text, &len);
	if (!mem) {
		say_message(loc, label, fmt, ap);
		return;
	}
	stream = mem;
	say_message(loc, label, fmt, ap);
	stream = saved;
	fclose(mem);
	fputs(text, real);
	sb_puts(&said_text, text);
	free(text);
}

static void say_message(const struct srcloc *loc, const char *label,
			const char *fmt, va_list ap)
{
	char *msg;

	if (nshown >= MAX_MESSAGES) {
		if (nshown++ == MAX_MESSAGES)
			fprintf(out(), "ktap: more than %d messages; the rest "
				"are not shown\n", MAX_MESSAGES);
		return;
	}
	if (vasprintf(&msg, fmt, ap) < 0)
		return;
	if (said_before(loc, label, msg)) {
		free(msg);
		return;
	}
	nshown++;
	if (loc && loc->src)
		fprintf(out(), "%s:%d:%d: ", loc->src->name, loc->line,
			loc->col);
	else
		fputs("ktap: ", out());
	fprintf(out(), "%s: %s\n", label, msg);
	free(msg);
	if (loc)
		show_source_line(loc);
	/* inside a macro: say where each expansion came from */
	const struct srcloc *last = NULL;
	for (const struct srcloc *v = loc ? loc->via : NULL; v; v = v->via) {
		/* a recursive macro repeats one place: say it once */
		if (last && last->src == v->src && last->line == v->line &&
		    last->col == v->col)
			continue;
		fprintf(out(), "%s:%d:%d: note: expanded from here\n",
			v->src->name, v->line, v->col);
		show_source_line(v);
		last = v;
	}
}

void diag_error(const struct srcloc *loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report(loc, "error", fmt, ap);
	va_end(ap);
	nerrors++;
}

void diag_warning(const struct srcloc *loc, const char *fmt, ...)
{
	if (diag_no_warnings && !diag_warnings_are_errors)
		return;
	va_list ap;
	va_start(ap, fmt);
	report(loc, diag_warnings_are_errors ? "error" : "warning", fmt, ap);
	va_end(ap);
	if (diag_warnings_are_errors)
		nerrors++;
}

void diag_note(const struct srcloc *loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report(loc, "note", fmt, ap);
	va_end(ap);
}

/* Levenshtein distance between a and b. */
static int edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int *row = xalloc((lb + 1) * sizeof *row);
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int diag = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int up = row[j];
			int best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	int d = row[lb];
	xfree(row);
	return d;
}

/* The candidate closest to word, if it is close enough to be a typo. */
const char *diag_closest(const char *word, const char *const *candidates,
			 int n)
{
	const char *best = NULL;
	int best_d = 0;
	int limit = (int)strlen(word) / 4 + 1;

	if (limit < 2)
		limit = 2;	/* short names: one slip of two letters */
	for (int i = 0; i < n; i++) {
		if (!candidates[i] || strcmp(word, candidates[i]) == 0)
			continue;
		int d = edit_distance(word, candidates[i]);
		if (d <= limit && (!best || d < best_d)) {
			best = candidates[i];
			best_d = d;
		}
	}
	return best;
}
