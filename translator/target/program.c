/* program.c - a program or shared library probed in user space
 * (process("PATH"), issue 16).
 *
 * PATH is absolute, or a name looked up in $PATH (a shared library's
 * name in the library directories); symbolic links are followed on the
 * host, so the file is named the way the machine that loads the module
 * finds it: this machine's path, or with --vm the host's file under the
 * guest's KTAP_HOSTROOT (guest/frames.h). From the ELF file itself come
 * its build-id, its loadable segments (a link-time address's offset in
 * the file, which uprobes take), its functions by the symbol table
 * (.symtab, else the debug file's .symtab, else .dynsym), the libraries
 * it needs (DT_NEEDED) and its SDT markers (.note.stapsdt); its DWARF
 * is its own, the build-id file under /usr/lib/debug/.build-id, or what
 * its .gnu_debuglink names (target.c opens it).
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../ktap.h"
#include "../debuginfo.h"
#include "../target.h"
#include "../../guest/frames.h"	/* KTAP_HOSTROOT: the host's root in the guest */
#include "target-private.h"

/* what the ELF file says, read once */
struct program_image {
	bool is_dyn;			/* ET_DYN: a PIE or shared library */
	bool has_symtab;		/* not stripped: .symtab */
	struct { uint64_t vaddr, memsz, offset, filesz; } *loads;
	int nloads;
	struct program_symbol *syms;	/* functions, sorted by name */
	int nsyms;
	struct program_mark *marks;
	int nmarks;
	const char *debuglink;		/* .gnu_debuglink's file name, or NULL */
	const char **needed;		/* DT_NEEDED: the libraries it names */
	int nneeded;
	struct source *source;		/* its bytes, for the module cache */
	bool source_read;
};

static struct target **programs;
static int nprograms;
static int made_in;		/* the target_selection() they were made in */

/* a new target_select() starts afresh (the fuzzer frees what the last
 * input allocated) */
static void forget_old_programs(void)
{
	if (made_in != target_selection()) {
		programs = NULL;
		nprograms = 0;
		made_in = target_selection();
	}
}

/* ---- finding the file ---- */

static bool is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* the first DIR/name in the colon-separated dirs that is a file */
static char *search_dirs(const char *dirs, const char *name)
{
	char *copy = xstrdup(dirs), *save = NULL, *d;

	for (d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		char *p = xasprintf("%s/%s", *d ? d : ".", name);

		if (is_file(p))
			return p;
	}
	return NULL;
}

#define LIBRARY_DIRS "/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib64:/usr/lib64:/lib:/usr/lib:/usr/local/lib"

/* a relative name: in $PATH, else (libfoo.so...) in the library dirs */
static char *find_file(const char *name)
{
	const char *path = getenv("PATH");
	char *p;

	if (strchr(name, '/'))
		return is_file(name) ? xstrdup(name) : NULL;
	if ((p = search_dirs(path ? path : "/usr/bin:/bin", name)))
		return p;
	if (strstr(name, ".so"))
		return search_dirs(LIBRARY_DIRS, name);
	return NULL;
}

/* ---- reading the ELF file ---- */

static void read_loads(Elf *e, struct program_image *im)
{
	size_t n = 0, i;

	if (elf_getphdrnum(e, &n) != 0)
		return;
	im->loads = xalloc((n + 1) * sizeof(*im->loads));
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, i, &ph) && ph.p_type == PT_LOAD) {
			im->loads[im->nloads].vaddr = ph.p_vaddr;
			im->loads[im->nloads].memsz = ph.p_memsz;
			im->loads[im->nloads].offset = ph.p_offset;
			im->loads[im->nloads].filesz = ph.p_filesz;
			im->nloads++;
		}
	}
}

static int symbol_cmp(const void *a, const void *b)
{
	const struct program_symbol *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->addr > y->addr) - (x->addr < y->addr);
}

/* the functions of one symbol table section type; false if it has none */
static bool read_symbols(Elf *e, struct program_image *im, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type && sh.sh_entsize)
			break;
	if (!scn)
		return false;
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t count = sh.sh_size / sh.sh_entsize, i;

	im->syms = xalloc((count + 1) * sizeof(*im->syms));
	for (i = 0; d && i < count; i++) {
		GElf_Sym s;
		const char *name;

		if (!gelf_getsym(d, i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
		    s.st_shndx == SHN_UNDEF || !s.st_value ||
		    !(name = elf_strptr(e, sh.sh_link, s.st_name)) || !*name)
			continue;
		/* versioned aliases (memcpy@GLIBC_2.2.5) are the same code */
		im->syms[im->nsyms++] = (struct program_symbol){
			xstrndup(name, strcspn(name, "@")), s.st_value, s.st_size };
	}
	qsort(im->syms, im->nsyms, sizeof(*im->syms), symbol_cmp);
	/* one entry per name and address */
	int k = 0;

	for (i = 0; i < (size_t)im->nsyms; i++)
		if (!k || symbol_cmp(&im->syms[k - 1], &im->syms[i]) != 0)
			im->syms[k++] = im->syms[i];
	im->nsyms = k;
	return im->nsyms > 0;
}

static const char *section_name(Elf *e, GElf_Shdr *sh)
{
	size_t shstrndx;

	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return NULL;
	return elf_strptr(e, shstrndx, sh->sh_name);
}

static Elf_Scn *find_section(Elf *e, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		const char *n;

		if (gelf_getshdr(scn, sh) && (n = section_name(e, sh)) && strcmp(n, name) == 0)
			return scn;
	}
	return NULL;
}

static void read_debuglink(Elf *e, struct program_image *im)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_section(e, ".gnu_debuglink", &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;

	if (d && d->d_size > 4 && memchr(d->d_buf, '\0', d->d_size))
		im->debuglink = xstrdup(d->d_buf);
}

/* the DT_NEEDED names of .dynamic */
static void read_needed(Elf *e, struct program_image *im)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_section(e, ".dynamic", &sh);
	Elf_Data *d = scn && sh.sh_entsize ? elf_getdata(scn, NULL) : NULL;
	size_t n = d ? sh.sh_size / sh.sh_entsize : 0;

	im->needed = xalloc((n + 1) * sizeof(*im->needed));
	for (size_t i = 0; i < n; i++) {
		GElf_Dyn dyn;
		const char *name;

		if (gelf_getdyn(d, i, &dyn) && dyn.d_tag == DT_NEEDED &&
		    (name = elf_strptr(e, sh.sh_link, dyn.d_un.d_val)))
			im->needed[im->nneeded++] = xstrdup(name);
	}
}

/*
 * SDT markers: each .note.stapsdt note (type 3, name "stapsdt") holds
 * the marker's address, the link-time address of .stapsdt.base (prelink
 * moves code: the difference is added), the semaphore's address (0:
 * none), then "provider\0name\0args\0".
 */
#define NT_STAPSDT 3

static void add_mark(struct program_image *im, uint64_t base_now, const char *desc,
		     size_t len)
{
	uint64_t a[3];
	const char *prov, *name, *args, *end = desc + len;

	if (len < 24 + 3)
		return;
	memcpy(a, desc, sizeof(a));
	prov = desc + 24;
	name = memchr(prov, '\0', end - prov) ? prov + strlen(prov) + 1 : end;
	args = name < end && memchr(name, '\0', end - name) ? name + strlen(name) + 1 : end;
	if (args >= end || !memchr(args, '\0', end - args))
		return;
	im->marks = xrealloc(im->marks, (im->nmarks + 1) * sizeof(*im->marks));
	im->marks[im->nmarks++] = (struct program_mark){
		xstrdup(prov), xstrdup(name), xstrdup(args),
		a[0] + (base_now && a[1] ? base_now - a[1] : 0),
		a[2] ? a[2] + (base_now && a[1] ? base_now - a[1] : 0) : 0 };
}

static void read_marks(Elf *e, struct program_image *im)
{
	GElf_Shdr sh, bsh;
	Elf_Scn *scn = find_section(e, ".note.stapsdt", &sh);
	uint64_t base = find_section(e, ".stapsdt.base", &bsh) ? bsh.sh_addr : 0;
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while (d && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0)
		if (nh.n_type == NT_STAPSDT && nh.n_namesz == 8 &&
		    memcmp((char *)d->d_buf + name_off, "stapsdt", 8) == 0)
			add_mark(im, base, (char *)d->d_buf + desc_off, nh.n_descsz);
}

static bool read_image(const char *path, struct program_image *im, char **why)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	GElf_Ehdr eh;
	Elf *e;

	if (fd < 0) {
		*why = xasprintf("cannot open %s: %s", path, strerror(errno));
		return false;
	}
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || !gelf_getehdr(e, &eh) || (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)) {
		*why = xasprintf("%s is not an ELF program or shared library", path);
		if (e)
			elf_end(e);
		close(fd);
		return false;
	}
	im->is_dyn = eh.e_type == ET_DYN;
	read_loads(e, im);
	im->has_symtab = read_symbols(e, im, SHT_SYMTAB);
	if (!im->has_symtab)
		read_symbols(e, im, SHT_DYNSYM);
	read_debuglink(e, im);
	read_needed(e, im);
	read_marks(e, im);
	elf_end(e);
	close(fd);
	return true;
}

/* ---- the target ---- */

static char *program_mismatch_why(const struct target *t, const char *path, const char *id)
{
	return xasprintf("%s is the debug file of another build of %s (build-id %s, not %s)",
			 path, t->name, id ? id : "none", t->build_id);
}

static char *program_no_debug_why(const struct target *t, const char *looked,
				  const char *mismatch)
{
	if (mismatch)
		return xstrdup(mismatch);
	return xasprintf("%s has no DWARF (looked in %s): build it with -g, or install "
			 "its -dbg/-dbgsym package", t->name, looked);
}

static const struct target_ops program_ops = { program_mismatch_why, program_no_debug_why };

/* the program, the build-id file, then .gnu_debuglink's name in the
 * places gdb looks */
static void debug_candidates(struct target *t, const struct program_image *im)
{
	const char **c = xalloc(6 * sizeof(*c));
	char *dir = xstrdup(t->image), *slash = strrchr(dir, '/');
	int n = 0;

	*slash = '\0';
	c[n++] = t->image;
	if (t->build_id && strlen(t->build_id) > 2)
		c[n++] = xasprintf("/usr/lib/debug/.build-id/%.2s/%s.debug", t->build_id,
				   t->build_id + 2);
	if (im->debuglink) {
		c[n++] = xasprintf("%s/%s", dir, im->debuglink);
		c[n++] = xasprintf("%s/.debug/%s", dir, im->debuglink);
		c[n++] = xasprintf("/usr/lib/debug%s/%s", dir, im->debuglink);
	}
	t->debug_candidates = c;
	t->ndebug_candidates = n;
}

/*
 * A stripped file's local functions from its debug file's .symtab
 * (libc6-dbg's has __libc_start_call_main, the stdio internals): the
 * first debug candidate with t's build-id and a symbol table. The
 * addresses are the file's own.
 */
static void debug_symbols(struct target *t, struct program_image *im)
{
	for (int i = 1; i < t->ndebug_candidates; i++) {
		const char *path = t->debug_candidates[i];
		char *id = target_build_id_of(path);
		int fd;
		Elf *e;

		if (!id || !t->build_id || strcmp(id, t->build_id) != 0 ||
		    (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		if ((e = elf_begin(fd, ELF_C_READ_MMAP, NULL))) {
			struct program_image dbg = { 0 };

			if (read_symbols(e, &dbg, SHT_SYMTAB)) {
				im->syms = dbg.syms;
				im->nsyms = dbg.nsyms;
				im->has_symtab = true;
			}
			elf_end(e);
		}
		close(fd);
		if (im->has_symtab)
			return;
	}
}

static bool under_guest(void)
{
	struct target *k = target_kernel();

	return k && k->origin == TARGET_GUEST;
}

struct target *target_program(const char *name, char **why)
{
	char real[PATH_MAX], *found = find_file(name);
	struct program_image *im;
	struct target *t;
	int i;

	forget_old_programs();
	if (!found || !realpath(found, real)) {
		*why = xasprintf("no such program or library: %s%s", name,
				 strchr(name, '/') ? "" : " (not in $PATH)");
		return NULL;
	}
	for (i = 0; i < nprograms; i++)
		if (strcmp(programs[i]->image, real) == 0)
			return programs[i];
	im = xalloc(sizeof(*im));
	if (!read_image(real, im, why))
		return NULL;
	t = xalloc(sizeof(*t));
	t->kind = TARGET_PROGRAM;
	t->name = xstrdup(real);
	t->image = t->name;
	t->build_id = target_build_id_of(real);
	t->kernel = target_kernel();
	t->release = t->kernel ? t->kernel->release : NULL;
	t->load_path = under_guest() ? xasprintf(KTAP_HOSTROOT "%s", real) : t->name;
	t->ops = &program_ops;
	t->prog = im;
	t->dyn = im->is_dyn;
	debug_candidates(t, im);
	if (!im->has_symtab)
		debug_symbols(t, im);
	programs = xrealloc(programs, (nprograms + 1) * sizeof(*programs));
	programs[nprograms++] = t;
	return t;
}

struct source *target_file_source(struct target *t)
{
	struct program_image *im = t->prog;

	if (!im->source_read) {
		size_t len;
		char *text = read_whole_file(t->image, &len);

		im->source_read = true;
		if (text) {
			im->source = xalloc(sizeof(*im->source));
			im->source->name = xstrdup(t->image);
			im->source->text = text;
			im->source->len = len;
		}
	}
	return im->source;
}

bool target_program_has_symtab(const struct target *t)
{
	return t->prog->has_symtab;
}

bool target_file_offset(const struct target *t, uint64_t addr, uint64_t *off)
{
	const struct program_image *im = t->prog;

	for (int i = 0; i < im->nloads; i++)
		if (addr >= im->loads[i].vaddr &&
		    addr - im->loads[i].vaddr < im->loads[i].filesz) {
			*off = addr - im->loads[i].vaddr + im->loads[i].offset;
			return true;
		}
	return false;
}

int target_program_functions(const struct target *t, const char *glob,
			     struct program_symbol **out)
{
	const struct program_image *im = t->prog;
	int n = 0;

	*out = xalloc((im->nsyms + 1) * sizeof(**out));
	for (int i = 0; i < im->nsyms; i++)
		if (fnmatch(glob, im->syms[i].name, 0) == 0)
			(*out)[n++] = im->syms[i];
	return n;
}

int target_program_marks(const struct target *t, const char *provider_glob,
			 const char *name_glob, struct program_mark **out)
{
	const struct program_image *im = t->prog;
	int n = 0;

	*out = xalloc((im->nmarks + 1) * sizeof(**out));
	for (int i = 0; i < im->nmarks; i++)
		if ((!provider_glob || fnmatch(provider_glob, im->marks[i].provider, 0) == 0) &&
		    fnmatch(name_glob, im->marks[i].name, 0) == 0)
			(*out)[n++] = im->marks[i];
	return n;
}

int target_program_needed(struct target *t, struct target ***out)
{
	const struct program_image *im = t->prog;
	char *why = NULL;
	int n = 0;

	*out = xalloc((im->nneeded + 1) * sizeof(**out));
	for (int i = 0; i < im->nneeded; i++) {
		char *path = search_dirs(LIBRARY_DIRS, im->needed[i]);
		struct target *lib = path ? target_program(path, &why) : NULL;

		if (lib)
			(*out)[n++] = lib;
	}
	return n;
}
