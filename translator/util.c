/* util.c - memory, strings and files for the translator.
 *
 * Allocation never fails: on OOM we print one line and exit, so callers
 * never check for NULL. Nothing is freed; the translator is a short-lived
 * process and every pass keeps its tree until exit.
 *
 * The one exception is the fuzzer, which runs passes 1 and 2 on thousands
 * of scripts in one process: between arena_begin() and arena_release()
 * every block handed out here is recorded, and arena_release() frees them
 * all at once. Code that frees a block early uses xfree(), never free().
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"

static void out_of_memory(size_t size)
{
	fprintf(stderr, "ktap: out of memory (%zu bytes)\n", size);
	exit(1);
}

/* ---- the arena: a set of live blocks (open addressing, linear probing) ---- */

static struct {
	bool open;
	void **slots;		/* NULL = empty */
	size_t cap, n;		/* cap is a power of two, n <= cap / 2 */
} arena;

static size_t arena_slot(const void *p)
{
	return (size_t)(((uintptr_t)p >> 4) * 0x9e3779b97f4a7c15ULL) &
	       (arena.cap - 1);
}

static void arena_insert(void *p)
{
	size_t i = arena_slot(p);

	while (arena.slots[i] && arena.slots[i] != p)
		i = (i + 1) & (arena.cap - 1);
	if (!arena.slots[i])
		arena.n++;
	arena.slots[i] = p;
}

static void arena_add(void *p)
{
	if (!arena.open)
		return;
	if (2 * (arena.n + 1) > arena.cap) {
		void **old = arena.slots;
		size_t oldcap = arena.cap, i;

		arena.cap = oldcap ? 2 * oldcap : 4096;
		arena.slots = calloc(arena.cap, sizeof(*arena.slots));
		if (!arena.slots)
			out_of_memory(arena.cap * sizeof(*arena.slots));
		arena.n = 0;
		for (i = 0; i < oldcap; i++)
			if (old[i])
				arena_insert(old[i]);
		free(old);
	}
	arena_insert(p);
}

/* forget p; the entries after it move back so that no probe chain breaks */
static void arena_remove(void *p)
{
	size_t mask = arena.cap - 1, i, j;

	if (!arena.open || !p)
		return;
	for (i = arena_slot(p); arena.slots[i] != p; i = (i + 1) & mask)
		if (!arena.slots[i])
			return;
	arena.slots[i] = NULL;
	arena.n--;
	for (j = (i + 1) & mask; arena.slots[j]; j = (j + 1) & mask) {
		size_t home = arena_slot(arena.slots[j]);

		/* leave it if its home is cyclically in (i, j] */
		if (i <= j ? (home > i && home <= j) : (home > i || home <= j))
			continue;
		arena.slots[i] = arena.slots[j];
		arena.slots[j] = NULL;
		i = j;
	}
}

void arena_begin(void)
{
	arena.open = true;
}

/* free every block allocated since arena_begin() */
void arena_release(void)
{
	size_t i;

	for (i = 0; i < arena.cap; i++)
		free(arena.slots[i]);
	free(arena.slots);
	arena.slots = NULL;
	arena.cap = arena.n = 0;
	arena.open = false;
}

void *xalloc(size_t size)
{
	void *p = calloc(1, size ? size : 1);
	if (!p)
		out_of_memory(size);
	arena_add(p);
	return p;
}

void *xrealloc(void *p, size_t size)
{
	void *q;

	/* the arena forgets the block first: p is not touched after realloc */
	arena_remove(p);
	q = realloc(p, size ? size : 1);
	if (!q)
		out_of_memory(size);
	arena_add(q);
	return q;
}

void xfree(void *p)
{
	arena_remove(p);
	free(p);
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *p = xalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

bool is_module_name(const char *name)
{
	size_t n = strspn(name, "abcdefghijklmnopqrstuvwxyz"
			  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");

	return n > 0 && n <= KTAP_MODULE_NAME_MAX && name[n] == '\0';
}

/* The whole file, NUL-terminated; NULL with errno set on failure. */
char *read_whole_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	struct strbuf sb = {0};
	char chunk[8192];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
		if (sb.len + n + 1 > sb.cap) {
			sb.cap = (sb.len + n + 1) * 2;
			sb.buf = xrealloc(sb.buf, sb.cap);
		}
		memcpy(sb.buf + sb.len, chunk, n);
		sb.len += n;
	}
	int err = ferror(f) ? errno : 0;
	fclose(f);
	if (err) {
		xfree(sb.buf);
		errno = err;
		return NULL;
	}
	sb_putc(&sb, '\0');
	if (len)
		*len = sb.len - 1;
	return sb.buf;
}

double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

bool progress_quiet;

/* "ktap: " and a line on stderr, when shown: the one printer of ktap's
 * informational lines (progress(), vm.c's -v lines) */
void note_line(bool shown, const char *fmt, va_list ap)
{
	if (!shown)
		return;
	fputs("ktap: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/* One line naming a slow step, as guest provisioning does: a user who
 * waits sees why. -q (progress_quiet) silences it; errors still show. */
void progress(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	note_line(!progress_quiet, fmt, ap);
	va_end(ap);
}

/* Peak resident set size (VmHWM) in KiB, or -1 if unknown. */
long peak_rss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return -1;
	char line[256];
	long kb = -1;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, "VmHWM:", 6) == 0)
			kb = strtol(line + 6, NULL, 10);
	fclose(f);
	return kb;
}

/* ---- strbuf ---- */

static void sb_reserve(struct strbuf *sb, size_t extra)
{
	if (sb->len + extra + 1 <= sb->cap)
		return;
	size_t cap = sb->cap ? sb->cap : 64;
	while (cap < sb->len + extra + 1)
		cap *= 2;
	sb->buf = xrealloc(sb->buf, cap);
	sb->cap = cap;
}

void sb_putc(struct strbuf *sb, char c)
{
	sb_reserve(sb, 1);
	sb->buf[sb->len++] = c;
	sb->buf[sb->len] = '\0';
}

void sb_puts(struct strbuf *sb, const char *s)
{
	size_t n = strlen(s);
	sb_reserve(sb, n);
	memcpy(sb->buf + sb->len, s, n + 1);
	sb->len += n;
}

void sb_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	sb_reserve(sb, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

/* where ktap keeps the guest and the module cache: $KTAP_CACHE, else
 * ~/.cache/ktap */
const char *ktap_cache_dir(void)
{
	static char *dir;
	const char *cache = getenv("KTAP_CACHE");
	const char *home = getenv("HOME");

	if (!dir)
		dir = cache && *cache ? xstrdup(cache)
				      : xasprintf("%s/.cache/ktap", home && *home ? home : "/tmp");
	return dir;
}

/* remove a file, or a directory and everything below it; errors ignored */
void remove_tree(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;

	if (!d) {
		unlink(path);
		return;
	}
	while ((de = readdir(d))) {
		char *sub;
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		sub = xasprintf("%s/%s", path, de->d_name);
		if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
			remove_tree(sub);
		else
			unlink(sub);
		xfree(sub);
	}
	closedir(d);
	rmdir(path);
}
