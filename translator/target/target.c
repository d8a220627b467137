/* target.c - what every kind of target has: a build-id, a debug file
 * found by it, and DWARF opened once per build-id.
 *
 * The kind-specific parts (where a kernel's or a module's files are, the
 * words for what to install) are kernel.c's; a program's will be
 * program.c's. This file reads GNU build-id notes (the one reader: of
 * ELF files and of the running kernel's /sys/kernel/notes) and decides,
 * by KTAP_DEBUGINFO, whether DWARF may be used at all.
 */
#include <elfutils/debuginfod.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../ktap.h"
#include "../debuginfo.h"
#include "../target.h"
#include "target-private.h"

/* ---- build-ids ---- */

#define NOTE_GNU_BUILD_ID 3

/* the GNU build-id in a run of ELF notes (each: namesz, descsz, type,
 * then name and desc, each padded to align), in hex; NULL if none */
static char *notes_build_id(const unsigned char *p, size_t len, size_t align)
{
	size_t off = 0;

	while (off + 12 <= len) {
		uint32_t h[3];
		size_t name, desc;

		memcpy(h, p + off, sizeof(h));
		name = off + 12;
		desc = name + ((h[0] + align - 1) & ~(align - 1));
		if (desc > len || h[1] > len - desc)
			break;
		if (h[2] == NOTE_GNU_BUILD_ID && h[0] == 4 && h[1] &&
		    memcmp(p + name, "GNU", 4) == 0) {
			struct strbuf hex = { 0 };

			for (uint32_t i = 0; i < h[1]; i++)
				sb_printf(&hex, "%02x", p[desc + i]);
			return hex.buf;
		}
		off = desc + ((h[1] + align - 1) & ~(align - 1));
	}
	return NULL;
}

/* the notes of an ELF file: its PT_NOTE segments, else (no program
 * headers: a relocatable .ko, a debug file) its SHT_NOTE sections */
static char *elf_build_id(Elf *e)
{
	Elf_Scn *scn = NULL;
	size_t nph = 0, i;
	char *id = NULL;

	if (elf_getphdrnum(e, &nph) == 0)
		for (i = 0; i < nph && !id; i++) {
			GElf_Phdr ph;
			Elf_Data *d;

			if (gelf_getphdr(e, i, &ph) && ph.p_type == PT_NOTE &&
			    (d = elf_getdata_rawchunk(e, ph.p_offset, ph.p_filesz, ELF_T_BYTE)))
				id = notes_build_id(d->d_buf, d->d_size, ph.p_align == 8 ? 8 : 4);
		}
	while (!id && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOTE &&
		    (d = elf_rawdata(scn, NULL)))
			id = notes_build_id(d->d_buf, d->d_size, sh.sh_addralign == 8 ? 8 : 4);
	}
	return id;
}

char *target_build_id_of(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *id = NULL;
	Elf *e;

	if (fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (e) {
		id = elf_build_id(e);
		elf_end(e);
	}
	close(fd);
	return id;
}

char *target_running_build_id(void)
{
	size_t len;
	char *notes = read_whole_file("/sys/kernel/notes", &len);
	char *id = notes ? notes_build_id((const unsigned char *)notes, len, 4) : NULL;

	xfree(notes);
	return id;
}

/* ---- what KTAP_DEBUGINFO allows ---- */

/* KTAP_DEBUGINFO=btf: ignore the DWARF (to test the BTF fallback);
 * KTAP_DEBUGINFO=none: ignore the BTF too (the fuzzer: results that do
 * not depend on the machine) */
bool target_dwarf_disabled(void)
{
	const char *v = getenv("KTAP_DEBUGINFO");

	return v && (strcmp(v, "btf") == 0 || strcmp(v, "none") == 0);
}

bool target_btf_disabled(void)
{
	const char *v = getenv("KTAP_DEBUGINFO");

	return v && strcmp(v, "none") == 0;
}

/* ---- the debug file ---- */

/* the first candidate with t's build-id (any when it is not known),
 * from the n-th on; *mismatch says about one whose build-id differs */
static int matching_candidate(const struct target *t, int from, char **mismatch)
{
	for (int i = from; i < t->ndebug_candidates; i++) {
		const char *path = t->debug_candidates[i];
		char *id;

		if (access(path, R_OK) != 0)
			continue;
		id = target_build_id_of(path);
		if (!t->build_id || (id && strcasecmp(id, t->build_id) == 0))
			return i;
		*mismatch = t->ops->mismatch_why(t, path, id);
	}
	return -1;
}

/* why t has no debug file, the candidates tried, a mismatch */
static char *no_debug_file(const struct target *t, const char *mismatch)
{
	struct strbuf looked = { 0 };

	if (target_dwarf_disabled())
		return xasprintf("DWARF is disabled (KTAP_DEBUGINFO=%s)", getenv("KTAP_DEBUGINFO"));
	sb_puts(&looked, "");
	for (int i = 0; i < t->ndebug_candidates; i++)
		sb_printf(&looked, "%s%s", i ? ", " : "", t->debug_candidates[i]);
	return t->ops->no_debug_why(t, looked.buf, mismatch);
}

const char *target_debug_file(struct target *t, char **why)
{
	char *mismatch = NULL;
	int i = target_dwarf_disabled() ? -1 : matching_candidate(t, 0, &mismatch);

	if (i < 0) {
		*why = no_debug_file(t, mismatch);
		return NULL;
	}
	return t->debug_candidates[i];
}

/* ---- DWARF, once per build-id ---- */

static struct opened {
	const char *build_id;
	struct dw *dw;
} *opened;
static int nopened;

void target_forget_debuginfo(void)
{
	opened = NULL;		/* (the fuzzer frees each run's memory) */
	nopened = 0;
}

struct target_debuginfo *target_di(struct target *t)
{
	if (!t->di)
		t->di = xalloc(sizeof(*t->di));
	return t->di;
}

/* a debug file's DWARF, or the one opened already for its build-id */
static struct dw *open_dwarf_file(const struct target *t, const char *path, char **why)
{
	char *id = target_build_id_of(path);
	struct dw *dw;

	if (!id) {
		*why = xasprintf("%s has no build-id, so its index cannot be cached", path);
		return NULL;
	}
	for (int i = 0; i < nopened; i++)
		if (strcmp(opened[i].build_id, id) == 0)
			return opened[i].dw;
	dw = t->kind == TARGET_MODULE ? dw_open_module(path, t->name, id, why) :
	     t->kind == TARGET_PROGRAM ? dw_open_user(path, id, t->dyn, why) :
					 dw_open(path, id, why);
	if (dw) {
		opened = xrealloc(opened, (nopened + 1) * sizeof(*opened));
		opened[nopened++] = (struct opened){ id, dw };
	}
	return dw;
}

/* the debug file debuginfod has for t's build-id, or NULL */
static char *debuginfod_path(const struct target *t)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	debuginfod_client *client;
	char *path = NULL;
	int fd;

	if (!urls || !*urls || !t->build_id)
		return NULL;
	client = debuginfod_begin();
	if (!client)
		return NULL;
	fd = debuginfod_find_debuginfo(client, (const unsigned char *)t->build_id, 0, &path);
	debuginfod_end(client);
	if (fd < 0)
		return NULL;
	close(fd);
	return path;
}

/* the candidates in order, then debuginfod; a file whose DWARF cannot be
 * read is passed over, a failure to index it is the answer */
static struct dw *find_dwarf(struct target *t, char **why)
{
	char *mismatch = NULL, *p;
	struct dw *dw;
	int i = -1;

	while ((i = matching_candidate(t, i + 1, &mismatch)) >= 0) {
		*why = NULL;
		if ((dw = open_dwarf_file(t, t->debug_candidates[i], why)) || *why)
			return dw;
	}
	if ((p = debuginfod_path(t))) {
		if ((dw = open_dwarf_file(t, p, why)) || *why)
			return dw;
	}
	*why = no_debug_file(t, mismatch);
	return NULL;
}

struct dw *target_dwarf(struct target *t, char **why)
{
	struct target_debuginfo *di = target_di(t);

	if (!di->dwarf_tried) {
		di->dwarf_tried = true;
		if (target_dwarf_disabled())
			di->dw_why = no_debug_file(t, NULL);
		else
			di->dw = find_dwarf(t, &di->dw_why);
	}
	if (!di->dw && why)
		*why = di->dw_why;
	return di->dw;
}

/* ---- words of the loaded image ---- */

static int by_word(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* the 8-byte words at [start, stop) of path's loaded image, or NULL */
static uint64_t *file_words(const char *path, uint64_t start, uint64_t stop, int *n)
{
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	uint64_t *words = NULL;
	Elf_Scn *scn = NULL;
	Elf *e;

	if (fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	while (e && !words && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    start < sh.sh_addr || stop > sh.sh_addr + sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size < stop - sh.sh_addr)
			break;
		*n = (stop - start) / 8;
		words = xalloc((*n + 1) * sizeof(*words));
		memcpy(words, (char *)d->d_buf + (start - sh.sh_addr), *n * 8);
	}
	if (e)
		elf_end(e);
	close(fd);
	return words;
}

/*
 * A table the kernel keeps between two symbols (the mcount sites, the
 * kprobe blacklist): its words from the kernel image, else from its debug
 * file, sorted; NULL (and *n 0) when neither holds it.
 */
uint64_t *target_image_words(struct target *k, uint64_t start, uint64_t stop, int *n)
{
	char *why = NULL;
	uint64_t *words;

	*n = 0;
	if (!start || stop <= start)
		return NULL;
	words = file_words(k->image, start, stop, n);
	if (!words)
		words = file_words(target_debug_file(k, &why), start, stop, n);
	free(why);
	if (words)
		qsort(words, *n, sizeof(*words), by_word);
	return words;
}
