/* cachefile.c - small derived files in the private cache.
 *
 * Each is written whole under a temporary name and renamed into place, so
 * two ktap runs writing the same file at once leave one of the two, and a
 * reader never sees half of one. The first line names the format and the
 * input it was made from; the last line is "end": a file that does not
 * have both is made again.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ktap.h"
#include "cachefile.h"

/*
 * ktap_cache_dir() keeps its answer in a static the first time: the
 * fuzzer (fuzz_passes.c) frees every input's memory after it, so that
 * first time must come before any input, or the next input would read
 * freed memory. (util.c could allocate it outside the arena instead.)
 */
__attribute__((constructor)) static void settle_cache_dir(void)
{
	ktap_cache_dir();
}

char *cachefile_dir(const char *name)
{
	static bool untrusted;
	char *dir;

	if (untrusted)
		return NULL;
	dir = cache_private_dir(name, true);
	untrusted = dir == NULL;
	return dir;
}

static char *run_dir;

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void remove_run_dir(void)
{
	nftw(run_dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

char *cachefile_run_dir(const char *name)
{
	char *dir;

	if (!run_dir) {
		const char *tmp = getenv("TMPDIR");
		char *path = xasprintf("%s/ktap-run-XXXXXX", tmp && *tmp ? tmp : "/tmp");

		if (!mkdtemp(path))
			return NULL;
		/* not from the arena: it lives until exit */
		run_dir = strdup(path);
		if (!run_dir)
			return NULL;
		atexit(remove_run_dir);
	}
	dir = xasprintf("%s/%s", run_dir, name);
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return NULL;
	return dir;
}

char *cachefile_identity(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return NULL;
	return xasprintf("%lld %lld.%09ld %lld.%09ld %llu %llu", (long long)st.st_size,
			 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
			 (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec,
			 (unsigned long long)st.st_ino, (unsigned long long)st.st_dev);
}

bool cachefile_write(const char *path, const char *data, size_t len)
{
	static unsigned counter;
	char *tmp = xasprintf("%s.%d.%u.tmp", path, (int)getpid(), counter++);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	size_t done = 0;
	ssize_t n = 0;
	bool ok;

	if (fd < 0) {
		xfree(tmp);
		return false;
	}
	while (done < len && (n = write(fd, data + done, len - done)) > 0)
		done += (size_t)n;
	ok = close(fd) == 0 && done == len && rename(tmp, path) == 0;
	if (!ok)
		unlink(tmp);
	xfree(tmp);
	return ok;
}

char *cachefile_read(const char *path, const char *header, char **body)
{
	size_t len, hlen = strlen(header);
	char *text = read_whole_file(path, &len);

	if (!text)
		return NULL;
	if (len < hlen + 5 || strncmp(text, header, hlen) != 0 || text[hlen] != '\n' ||
	    (len >= hlen + 6 && text[len - 5] != '\n') || strcmp(text + len - 4, "end\n") != 0) {
		xfree(text);
		return NULL;
	}
	text[len - 4] = '\0';
	*body = text + hlen + 1;
	return text;
}
