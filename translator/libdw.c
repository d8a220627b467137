/* libdw.c - the kernel's and its modules' DWARF through elfutils libdw.
 *
 * The vmlinux of a distribution kernel carries ~170 MB of .debug_info:
 * walking it takes tens of seconds, so it is walked once per build-id
 * and what probe resolution needs is kept in an index file,
 * ktap_cache_dir()/dwarf/BUILDID/index:
 *
 *   header | function instances | named types | globals | ELF symbols | strings
 *
 * Function instances are sorted by name then address, types and globals
 * by name, symbols by address; every name is an offset into the string
 * table. The file is mmap'd, so a lookup is a binary search followed by
 * dwarf_offdie() on the DIE offsets it records. Everything else (types,
 * variables, locations, line tables) is read from the DWARF on demand.
 *
 * Which file describes which kernel or module, and its build-id, is the
 * target's (target/): dw_open() and dw_open_module() read the file they
 * are given. A loadable module's debug .ko is ET_REL: its DWARF means
 * something only once relocated, which libdwfl does (dw_open_module()).
 * Each module gets its own struct dw and its own index, per build-id like
 * the kernel's.
 *
 * Location expressions become C over ktap_reg() and ktap_kread()
 * (runtime/target.h): see "locations as C" below.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ktap.h"
#include "debuginfo.h"

/* ---- the index file ---- */

#define IDX_MAGIC "KTAPDWI7"
#define IDX_FILE "index7"	/* a new format, a new name: older ktaps
				 * keep reading theirs */

struct idx_header {
	char magic[8];
	uint32_t nfuncs, ntypes, nglobals, nsyms;
	uint64_t funcs_off, types_off, globals_off, syms_off;
	uint64_t strings_off, strings_len;
	double build_seconds;
};

enum {
	IF_INLINED = 1,		/* an inlined copy */
	IF_EXPORTED = 2,	/* __ksymtab_NAME exists */
	IF_EXTERNAL = 4,	/* globals: DW_AT_external */
	IF_DECLARATION = 8,	/* globals: no DW_AT_location (the address is
				 * the ELF symbol's: jiffies) */
	/* functions the DWARF knows but that have no probe-able instance
	 * (addr 0; kept only when no instance of the name has an entry,
	 * for dw_function_without_entry()): */
	IF_NOENTRY_DECL = 16,	/* declared only: no body with debuginfo */
	IF_NOENTRY_INLINE = 32,	/* abstract inline, no concrete copy seen */
	IF_NOENTRY_UNKNOWN = 64,/* a body or inlined copy whose entry
				 * address the DWARF does not give */
};

#define IF_NOENTRY (IF_NOENTRY_DECL | IF_NOENTRY_INLINE | IF_NOENTRY_UNKNOWN)

struct idx_func {
	uint32_t name;		/* string offsets; 0 = none ("") */
	uint32_t decl_file;
	uint32_t decl_line;
	uint32_t flags;
	uint64_t addr;		/* low_pc, or an inlined copy's entry pc */
	uint64_t die;		/* the subprogram or inlined_subroutine */
	uint64_t scope;		/* inlined: the out-of-line subprogram around it */
	uint64_t ret;		/* DW_AT_type's DIE, one per spelling; 0: void */
	uint32_t sym;		/* index of the ELF symbol containing addr */
	uint32_t pad;
};

/* named types ("struct task_struct", "pid_t") and global variables */
struct idx_named {
	uint32_t name;
	uint32_t flags;
	uint64_t die;
};

struct idx_sym {
	uint64_t addr, size;
	uint32_t name;
	uint32_t pad;
};

struct dw {
	char *path;
	const char *module;	/* a loadable module's name; NULL: the kernel */
	Dwfl *dwfl;		/* modules: libdwfl relocates their ET_REL */
	Dwfl_Module *dwfl_mod;
	Dwarf_Addr bias;	/* dwfl addresses minus the DWARF's */
	int fd;
	Elf *elf;
	Dwarf *dwarf;
	Dwarf_CFI *cfi;		/* .debug_frame, else .eh_frame; may be NULL */
	uint64_t percpu_start, percpu_end;	/* .data..percpu */
	bool user;		/* a program's or library's (dw_open_user()):
				 * memory is read with ktap_uread() */
	bool user_dyn;		/* ... position-independent: statics move */
	/* the mmap'd index */
	const struct idx_header *hdr;
	const struct idx_func *funcs;
	const struct idx_named *types, *globals;
	const struct idx_sym *syms;
	const char *strings;
	/* ctypes by DIE offset */
	struct type_slot { uint64_t die; struct ctype *t; } *tcache;
	size_t tcache_cap, tcache_n;
};

static bool dw_debug(void)
{
	const char *v = getenv("KTAP_DEBUG_DWARF");

	return v && *v && strcmp(v, "0") != 0;
}

static const char *istr(const struct dw *dw, uint32_t off)
{
	return dw->strings + off;
}

const char *dw_path(const struct dw *dw)
{
	return dw->path;
}

/* ---- the string table, interned ---- */

struct str_slot {
	const char *s;
	uint32_t off;
};

struct strtab {
	struct strbuf sb;
	struct str_slot *slots;
	size_t cap, n;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static void strtab_grow(struct strtab *st)
{
	size_t oldcap = st->cap, i;
	struct str_slot *old = st->slots;

	st->cap = oldcap ? 2 * oldcap : 1 << 16;
	st->slots = xalloc(st->cap * sizeof(*st->slots));
	for (i = 0; i < oldcap; i++)
		if (old[i].s) {
			size_t j = hash_str(old[i].s) & (st->cap - 1);

			while (st->slots[j].s)
				j = (j + 1) & (st->cap - 1);
			st->slots[j] = old[i];
		}
	xfree(old);
}

/* the offset of s in the table, adding it once; NULL and "" are 0 */
static uint32_t strtab_add(struct strtab *st, const char *s)
{
	size_t j;

	if (!s || !*s)
		return 0;
	if (2 * (st->n + 1) > st->cap)
		strtab_grow(st);
	j = hash_str(s) & (st->cap - 1);
	while (st->slots[j].s) {
		if (strcmp(st->slots[j].s, s) == 0)
			return st->slots[j].off;
		j = (j + 1) & (st->cap - 1);
	}
	st->slots[j].s = s;
	st->slots[j].off = st->sb.len;
	sb_puts(&st->sb, s);
	sb_putc(&st->sb, '\0');
	st->n++;
	return st->slots[j].off;
}

static bool strtab_has(struct strtab *st, const char *s)
{
	size_t j;

	if (!st->cap)
		return false;
	j = hash_str(s) & (st->cap - 1);
	for (; st->slots[j].s; j = (j + 1) & (st->cap - 1))
		if (strcmp(st->slots[j].s, s) == 0)
			return true;
	return false;
}

/* ---- building the index: one walk over every CU ---- */

/* a record while walking: strings still point into libdw's sections */
struct rec {
	const char *name, *file;
	uint32_t line, flags;
	uint64_t addr, die, scope;
	uint64_t ret;			/* the return type's DIE */
	const char *ret_spelling;	/* "struct file*"; NULL if anonymous */
};

struct recs {
	struct rec *v;
	size_t n, cap;
};

static void recs_push(struct recs *r, struct rec x)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 4096;
		r->v = xrealloc(r->v, r->cap * sizeof(*r->v));
	}
	r->v[r->n++] = x;
}

/* one walker per thread, each with its own Dwarf handle */
struct walker {
	const char *path;
	uint64_t cu_first, cu_end;	/* CU header offsets [first, end) */
	int fd;
	Elf *elf;
	Dwarf *dwarf;
	struct recs funcs, types, globals;
	const char *comp_dir;		/* of the CU being walked */
	size_t comp_dir_len;
	bool failed;
	bool borrowed;			/* dwarf is the dw's own (modules): not
					 * opened or closed by the walker */
	struct strtab noentry_seen;	/* names already recorded without an
					 * entry (most CUs declare the external
					 * functions they call) */
	/* recent return types' spellings, by DIE offset (direct-mapped):
	 * the functions of a CU share a few types */
	struct { uint64_t die; const char *spelling; } spellings[4096];
};

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;

	return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
}

static bool die_flag(Dwarf_Die *die, int at)
{
	Dwarf_Attribute a;
	bool v = false;

	if (dwarf_attr_integrate(die, at, &a))
		dwarf_formflag(&a, &v);
	return v;
}

/* a declaring file relative to the build directory: "fs/read_write.c" */
static const char *walker_decl_file(struct walker *w, Dwarf_Die *die)
{
	const char *f = dwarf_decl_file(die);

	if (f && w->comp_dir && strncmp(f, w->comp_dir, w->comp_dir_len) == 0 &&
	    f[w->comp_dir_len] == '/')
		return f + w->comp_dir_len + 1;
	return f;
}

/* how a type is spelled ("const char*"), the same in every CU; NULL for
 * anonymous structs, unions and enums */
static const char *type_spelling(Dwarf_Die *t, int depth)
{
	Dwarf_Attribute a;
	Dwarf_Die next;
	const char *name = dwarf_diename(t), *inner = "void";

	if (depth > 8)
		return NULL;
	if (dwarf_attr(t, DW_AT_type, &a) && dwarf_formref_die(&a, &next))
		inner = type_spelling(&next, depth + 1);
	switch (dwarf_tag(t)) {
	case DW_TAG_pointer_type:
		return inner ? xasprintf("%s*", inner) : NULL;
	case DW_TAG_const_type:
		return inner ? xasprintf("const %s", inner) : NULL;
	case DW_TAG_volatile_type:
		return inner ? xasprintf("volatile %s", inner) : NULL;
	case DW_TAG_structure_type:
		return name ? xasprintf("struct %s", name) : NULL;
	case DW_TAG_union_type:
		return name ? xasprintf("union %s", name) : NULL;
	case DW_TAG_enumeration_type:
		return name ? xasprintf("enum %s", name) : NULL;
	case DW_TAG_base_type:
	case DW_TAG_typedef:
		return name;
	}
	return NULL;
}

static void walker_return_type(struct walker *w, struct rec *r, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Die t;
	size_t slot;

	if (!dwarf_attr_integrate(die, DW_AT_type, &a) || !dwarf_formref_die(&a, &t))
		return;
	r->ret = dwarf_dieoffset(&t);
	slot = (r->ret * 0x9e3779b97f4a7c15ULL) >> 52;
	if (w->spellings[slot].die != r->ret) {
		w->spellings[slot].die = r->ret;
		w->spellings[slot].spelling = type_spelling(&t, 0);
	}
	r->ret_spelling = w->spellings[slot].spelling;
}

static void walker_function(struct walker *w, Dwarf_Die *die, uint32_t flags,
			    uint64_t addr, uint64_t scope)
{
	struct rec r = { .flags = flags, .addr = addr, .scope = scope };
	int line = 0;

	r.name = die_name(die);
	if (!r.name || (!addr && !(flags & IF_NOENTRY)))
		return;
	r.die = dwarf_dieoffset(die);
	r.file = walker_decl_file(w, die);
	dwarf_decl_line(die, &line);
	r.line = line > 0 ? line : 0;
	walker_return_type(w, &r, die);
	recs_push(&w->funcs, r);
}

/*
 * Where a function instance is entered: DW_AT_entry_pc, else DW_AT_low_pc,
 * else (a body split in hot and cold parts has only DW_AT_ranges) the
 * start of its first range, which GCC makes the hot part's: the cold
 * part is a separate "NAME.cold" symbol.
 */
static bool die_entry_pc(Dwarf_Die *die, Dwarf_Addr *entry)
{
	Dwarf_Addr base, end;

	if (dwarf_entrypc(die, entry) == 0 || dwarf_lowpc(die, entry) == 0)
		return true;
	return dwarf_hasattr(die, DW_AT_ranges) &&
	       dwarf_ranges(die, 0, &base, entry, &end) > 0;
}

static void walker_noentry(struct walker *w, Dwarf_Die *die, uint32_t flag,
			   uint64_t scope);

/* the inlined copies somewhere below a subprogram's DIE */
static void walker_inlined(struct walker *w, Dwarf_Die *parent, uint64_t scope)
{
	Dwarf_Die child;
	Dwarf_Addr entry;

	if (dwarf_child(parent, &child) != 0)
		return;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_inlined_subroutine:
			if (die_entry_pc(&child, &entry))
				walker_function(w, &child, IF_INLINED, entry, scope);
			else
				walker_noentry(w, &child, IF_NOENTRY_UNKNOWN, scope);
			walker_inlined(w, &child, scope);
			break;
		case DW_TAG_lexical_block:
			walker_inlined(w, &child, scope);
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* a function the DWARF names but that has no entry here: recorded once
 * per name and reason, so that asking for it gets the reason */
static void walker_noentry(struct walker *w, Dwarf_Die *die, uint32_t flag,
			   uint64_t scope)
{
	const char *name = die_name(die);
	char key[256];

	if (!name || snprintf(key, sizeof(key), "%u%s", flag, name) >= (int)sizeof(key) ||
	    strtab_has(&w->noentry_seen, key))
		return;
	strtab_add(&w->noentry_seen, xstrdup(key));
	walker_function(w, die, flag, 0, scope);
}

static void walker_subprogram(struct walker *w, Dwarf_Die *die)
{
	Dwarf_Addr entry;

	if (die_entry_pc(die, &entry)) {
		walker_function(w, die, 0, entry, 0);
		walker_inlined(w, die, dwarf_dieoffset(die));
	} else if (dwarf_hasattr(die, DW_AT_ranges) || dwarf_hasattr(die, DW_AT_low_pc)) {
		walker_noentry(w, die, IF_NOENTRY_UNKNOWN, 0);
	} else if (die_flag(die, DW_AT_declaration)) {
		walker_noentry(w, die, IF_NOENTRY_DECL, 0);
	} else if (dwarf_hasattr(die, DW_AT_inline)) {
		walker_noentry(w, die, IF_NOENTRY_INLINE, 0);
	}
}

static void walker_type(struct walker *w, Dwarf_Die *die, const char *prefix)
{
	const char *name = dwarf_diename(die);
	struct rec r = { 0 };

	if (!name || die_flag(die, DW_AT_declaration))
		return;
	r.name = prefix ? xasprintf("%s %s", prefix, name) : name;
	r.die = dwarf_dieoffset(die);
	recs_push(&w->types, r);
}

static void walker_global(struct walker *w, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	struct rec r = { 0 };

	r.name = die_name(die);
	if (!r.name)
		return;
	r.flags = die_flag(die, DW_AT_external) ? IF_EXTERNAL : 0;
	if (!dwarf_attr(die, DW_AT_location, &a))
		r.flags |= IF_DECLARATION;
	r.die = dwarf_dieoffset(die);
	r.file = walker_decl_file(w, die);
	recs_push(&w->globals, r);
}

static void walker_cu(struct walker *w, Dwarf_Die *cu)
{
	Dwarf_Attribute a;
	Dwarf_Die child;

	w->comp_dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a));
	w->comp_dir_len = w->comp_dir ? strlen(w->comp_dir) : 0;
	if (dwarf_child(cu, &child) != 0)
		return;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram:
			walker_subprogram(w, &child);
			break;
		case DW_TAG_structure_type:
			walker_type(w, &child, "struct");
			break;
		case DW_TAG_union_type:
			walker_type(w, &child, "union");
			break;
		case DW_TAG_enumeration_type:
			walker_type(w, &child, "enum");
			break;
		case DW_TAG_typedef:
			walker_type(w, &child, NULL);
			break;
		case DW_TAG_variable:
			walker_global(w, &child);
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

static bool open_dwarf(const char *path, int *fd, Elf **elf, Dwarf **dwarf)
{
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return false;
	elf_version(EV_CURRENT);
	*elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	*dwarf = *elf ? dwarf_begin_elf(*elf, DWARF_C_READ, NULL) : NULL;
	if (!*dwarf) {
		if (*elf)
			elf_end(*elf);
		close(*fd);
		return false;
	}
	return true;
}

static void *walker_run(void *arg)
{
	struct walker *w = arg;
	Dwarf_Off off = w->cu_first, next;
	size_t hsize;
	Dwarf_Die cu;

	if (!w->borrowed && !open_dwarf(w->path, &w->fd, &w->elf, &w->dwarf)) {
		w->failed = true;
		return NULL;
	}
	while (off < w->cu_end &&
	       dwarf_nextcu(w->dwarf, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(w->dwarf, off + hsize, &cu))
			walker_cu(w, &cu);
		off = next;
	}
	return NULL;
}

/* ---- the ELF symbol table: FUNC symbols and the exported names ---- */

struct func_sym {
	uint64_t addr, size;
	const char *name;
	uint32_t shndx;		/* its section */
};

struct symtab {
	struct func_sym *v;
	size_t n;
	struct strtab exported;		/* names with a __ksymtab_ symbol */
	struct strtab defined, ambiguous;	/* names defined once, and
						 * those defined again */
};

static int sym_cmp(const void *a, const void *b)
{
	const struct func_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* global names first among aliases: they are what kprobes know best */
	return strcmp(x->name, y->name);
}

static void symtab_add(struct symtab *st, const char *name, const GElf_Sym *s,
		       uint64_t addr)
{
	if (!name || !*name)
		return;
	if (s->st_shndx != SHN_UNDEF && strtab_has(&st->defined, name))
		strtab_add(&st->ambiguous, name);
	else if (s->st_shndx != SHN_UNDEF)
		strtab_add(&st->defined, name);
	if (strncmp(name, "__ksymtab_", 10) == 0)
		strtab_add(&st->exported, name + 10);
	else if (GELF_ST_TYPE(s->st_info) == STT_FUNC && addr &&
		 s->st_shndx != SHN_UNDEF)
		st->v[st->n++] = (struct func_sym){ addr, s->st_size, name, s->st_shndx };
}

/*
 * A symbol kprobes can find for symbol index i: i itself when its name is
 * defined once; else (static functions of the same name in two files)
 * the nearest symbol below it in the same section whose name is unique.
 * The kernel finds the first of several same-named symbols, and re-bases
 * symbol+offset on the symbol that contains the address, so an offset
 * from another symbol of the section is as good (.return included).
 */
static uint32_t unique_anchor(const struct symtab *st, uint32_t i)
{
	uint32_t j;

	if (i == UINT32_MAX || !strtab_has((struct strtab *)&st->ambiguous, st->v[i].name))
		return i;
	for (j = i; j-- > 0 && st->v[j].shndx == st->v[i].shndx;)
		if (!strtab_has((struct strtab *)&st->ambiguous, st->v[j].name))
			return j;
	return i;	/* none: kprobes may find the other one */
}

/* a module's symbols through libdwfl, at the addresses its relocated
 * DWARF uses (ET_REL symbol values are section offsets) */
static void read_module_symtab(struct dw *dw, struct symtab *st)
{
	int count = dwfl_module_getsymtab(dw->dwfl_mod), i;

	memset(st, 0, sizeof(*st));
	sb_putc(&st->exported.sb, '\0');
	st->v = xalloc((count > 0 ? count + 1 : 1) * sizeof(*st->v));
	for (i = 1; i < count; i++) {
		GElf_Sym s;
		GElf_Addr addr;
		const char *name = dwfl_module_getsym_info(dw->dwfl_mod, i, &s, &addr,
							   NULL, NULL, NULL);

		symtab_add(st, name, &s, addr - dw->bias);
	}
	qsort(st->v, st->n, sizeof(*st->v), sym_cmp);
}

static void read_symtab(Elf *elf, struct symtab *st)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	memset(st, 0, sizeof(*st));
	sb_putc(&st->exported.sb, '\0');
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			break;
	if (!scn)
		return;
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t count = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0, i;

	st->v = xalloc((count + 1) * sizeof(*st->v));
	for (i = 0; d && i < count; i++) {
		GElf_Sym s;

		if (gelf_getsym(d, i, &s))
			symtab_add(st, elf_strptr(elf, sh.sh_link, s.st_name), &s,
				   s.st_value);
	}
	qsort(st->v, st->n, sizeof(*st->v), sym_cmp);
}

/* the index of the FUNC symbol containing addr (preferring one named
 * like the function), or UINT32_MAX */
static uint32_t sym_containing(const struct symtab *st, uint64_t addr,
			       const char *name)
{
	size_t lo = 0, hi = st->n, best = SIZE_MAX, i;

	while (lo < hi) {		/* the first symbol above addr */
		size_t mid = (lo + hi) / 2;

		if (st->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i-- > 0 && st->v[i].addr + (1 << 20) > addr;) {
		if (addr >= st->v[i].addr + (st->v[i].size ? st->v[i].size : 1))
			continue;
		if (best == SIZE_MAX || strcmp(st->v[i].name, name) == 0)
			best = i;
		if (st->v[i].addr < st->v[best].addr)
			break;
	}
	return best == SIZE_MAX ? UINT32_MAX : (uint32_t)best;
}

/* ---- writing the index ---- */

static struct strtab *sort_strings;	/* qsort has no context argument */

static int func_cmp(const void *a, const void *b)
{
	const struct idx_func *x = a, *y = b;
	int c = strcmp(sort_strings->sb.buf + x->name, sort_strings->sb.buf + y->name);

	if (c)
		return c;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->die < y->die ? -1 : x->die > y->die;
}

static int named_cmp(const void *a, const void *b)
{
	const struct idx_named *x = a, *y = b;
	int c = strcmp(sort_strings->sb.buf + x->name, sort_strings->sb.buf + y->name);

	if (c)
		return c;
	/* definitions first, externally visible ones first, then the
	 * lowest DIE */
	if ((x->flags & IF_DECLARATION) != (y->flags & IF_DECLARATION))
		return (x->flags & IF_DECLARATION) ? 1 : -1;
	if ((x->flags & IF_EXTERNAL) != (y->flags & IF_EXTERNAL))
		return (x->flags & IF_EXTERNAL) ? -1 : 1;
	return x->die < y->die ? -1 : x->die > y->die;
}

/* sorted, one entry per name */
static size_t named_table(struct walker *w, int nw, size_t which,
			  struct strtab *st, struct idx_named **out)
{
	size_t n = 0, i, k;
	struct idx_named *v;
	int t;

	for (t = 0; t < nw; t++)
		n += (which ? w[t].globals : w[t].types).n;
	v = xalloc((n + 1) * sizeof(*v));
	n = 0;
	for (t = 0; t < nw; t++) {
		struct recs *r = which ? &w[t].globals : &w[t].types;

		for (i = 0; i < r->n; i++)
			v[n++] = (struct idx_named){ strtab_add(st, r->v[i].name),
						    r->v[i].flags, r->v[i].die };
	}
	sort_strings = st;
	qsort(v, n, sizeof(*v), named_cmp);
	for (i = k = 0; i < n; i++)
		if (k == 0 || v[i].name != v[k - 1].name)
			v[k++] = v[i];
	*out = v;
	return k;
}

static bool write_all(int fd, const void *p, size_t len)
{
	const char *c = p;

	while (len) {
		ssize_t n = write(fd, c, len);

		if (n <= 0)
			return false;
		c += n;
		len -= n;
	}
	return true;
}

/* one DIE per type spelling, so that listing every function builds a few
 * thousand return types rather than one per CU */
struct die_slot {
	const char *s;
	uint64_t die;
};

struct die_map {
	struct die_slot *slots;
	size_t cap, n;
};

static uint64_t canonical_die(struct die_map *m, const char *spelling, uint64_t die)
{
	size_t j;

	if (!spelling)
		return die;
	if (2 * (m->n + 1) > m->cap) {
		struct die_slot *old = m->slots;
		size_t oldcap = m->cap, i;

		m->cap = oldcap ? 2 * oldcap : 4096;
		m->slots = xalloc(m->cap * sizeof(*m->slots));
		for (i = 0; i < oldcap; i++)
			if (old[i].s) {
				j = hash_str(old[i].s) & (m->cap - 1);
				while (m->slots[j].s)
					j = (j + 1) & (m->cap - 1);
				m->slots[j] = old[i];
			}
		xfree(old);
	}
	j = hash_str(spelling) & (m->cap - 1);
	for (; m->slots[j].s; j = (j + 1) & (m->cap - 1))
		if (strcmp(m->slots[j].s, spelling) == 0)
			return m->slots[j].die;
	m->slots[j].s = spelling;
	m->slots[j].die = die;
	m->n++;
	return die;
}

/*
 * The index is written to an unnamed file (O_TMPFILE) that gets its name
 * only once complete: readers see all of it or nothing, and an
 * interrupted build leaves nothing behind. Where O_TMPFILE is not
 * supported: a temporary name, renamed into place (*tmp set).
 */
static int open_unnamed(const char *path, char **tmp)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	int fd;

	if (slash)
		*slash = '\0';
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	xfree(dir);
	if (fd >= 0)
		return fd;
	*tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
	return open(*tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

static bool name_file(int fd, const char *tmp, const char *path)
{
	char *proc;
	bool ok;

	if (tmp)
		return rename(tmp, path) == 0;
	proc = xasprintf("/proc/self/fd/%d", fd);
	/* another ktap may have built the same index meanwhile: keep it */
	ok = linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0 ||
	     errno == EEXIST;
	xfree(proc);
	return ok;
}

/* in funcs sorted by name: one no-entry record per name (its reasons
 * merged), and none for a name that has instances */
static size_t drop_needless_noentry(struct idx_func *funcs, size_t n)
{
	size_t i = 0, j, k = 0, m;

	while (i < n) {
		uint32_t reasons = 0;
		bool has_entry = false;

		for (j = i; j < n && funcs[j].name == funcs[i].name; j++) {
			reasons |= funcs[j].flags & IF_NOENTRY;
			has_entry |= !(funcs[j].flags & IF_NOENTRY);
		}
		for (m = i; m < j; m++) {
			if (!(funcs[m].flags & IF_NOENTRY))
				funcs[k++] = funcs[m];
			else if (!has_entry && reasons) {
				funcs[k] = funcs[m];
				funcs[k++].flags |= reasons;
				reasons = 0;
			}
		}
		i = j;
	}
	return k;
}

static bool write_index(const char *path, struct walker *w, int nw,
			struct symtab *syms, double seconds)
{
	struct strtab st = { 0 };
	struct idx_header h = { .build_seconds = seconds };
	struct idx_func *funcs;
	struct idx_named *types, *globals;
	struct idx_sym *isyms;
	struct die_map rets = { 0 };
	size_t nf = 0, i, k;
	int t, fd;
	char *tmp = NULL;
	bool ok;

	sb_putc(&st.sb, '\0');
	for (t = 0; t < nw; t++)
		nf += w[t].funcs.n;
	funcs = xalloc((nf + 1) * sizeof(*funcs));
	for (t = 0, k = 0; t < nw; t++)
		for (i = 0; i < w[t].funcs.n; i++) {
			struct rec *r = &w[t].funcs.v[i];
			struct idx_func *f = &funcs[k++];

			f->name = strtab_add(&st, r->name);
			f->decl_file = strtab_add(&st, r->file);
			f->decl_line = r->line;
			f->flags = r->flags;
			if (strtab_has(&syms->exported, r->name))
				f->flags |= IF_EXPORTED;
			f->addr = r->addr;
			f->die = r->die;
			f->scope = r->scope;
			f->ret = r->ret ? canonical_die(&rets, r->ret_spelling, r->ret) : 0;
			f->sym = unique_anchor(syms, sym_containing(syms, r->addr, r->name));
		}
	sort_strings = &st;
	qsort(funcs, nf, sizeof(*funcs), func_cmp);
	nf = drop_needless_noentry(funcs, nf);
	h.ntypes = named_table(w, nw, 0, &st, &types);
	h.nglobals = named_table(w, nw, 1, &st, &globals);
	isyms = xalloc((syms->n + 1) * sizeof(*isyms));
	for (i = 0; i < syms->n; i++)
		isyms[i] = (struct idx_sym){ syms->v[i].addr, syms->v[i].size,
					     strtab_add(&st, syms->v[i].name), 0 };

	memcpy(h.magic, IDX_MAGIC, 8);
	h.nfuncs = nf;
	h.nsyms = syms->n;
	h.funcs_off = sizeof(h);
	h.types_off = h.funcs_off + nf * sizeof(*funcs);
	h.globals_off = h.types_off + h.ntypes * sizeof(*types);
	h.syms_off = h.globals_off + h.nglobals * sizeof(*globals);
	h.strings_off = h.syms_off + syms->n * sizeof(*isyms);
	h.strings_len = st.sb.len;

	fd = open_unnamed(path, &tmp);
	ok = fd >= 0 && write_all(fd, &h, sizeof(h)) &&
	     write_all(fd, funcs, nf * sizeof(*funcs)) &&
	     write_all(fd, types, h.ntypes * sizeof(*types)) &&
	     write_all(fd, globals, h.nglobals * sizeof(*globals)) &&
	     write_all(fd, isyms, syms->n * sizeof(*isyms)) &&
	     write_all(fd, st.sb.buf, st.sb.len) &&
	     name_file(fd, tmp, path);
	if (fd >= 0 && close(fd) != 0)
		ok = false;
	if (!ok && tmp)
		unlink(tmp);
	xfree(rets.slots);
	xfree(funcs);
	xfree(types);
	xfree(globals);
	xfree(isyms);
	return ok;
}

/* the CU offsets split in two halves of about equal size */
static uint64_t cu_split(Dwarf *dwarf, uint64_t *end)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dwarf_nextcu(dwarf, off, &next, &hsize, NULL, NULL, NULL) == 0)
		off = next;
	*end = off;
	uint64_t half = off / 2;

	off = 0;
	while (off < half &&
	       dwarf_nextcu(dwarf, off, &next, &hsize, NULL, NULL, NULL) == 0)
		off = next;
	return off;
}

static bool mkdir_p(const char *dir)
{
	char *p = xstrdup(dir), *s;

	for (s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	return mkdir(p, 0755) == 0 || errno == EEXIST;
}

/* a module's DWARF is small and exists only relocated, in the dw's own
 * handle: one walker on it */
static int walk_module(struct dw *dw, struct walker *w, struct symtab *syms)
{
	w->dwarf = dw->dwarf;
	w->borrowed = true;
	w->cu_end = UINT64_MAX;
	walker_run(w);
	read_module_symtab(dw, syms);
	return 1;
}

/* the kernel's: two threads, each on its own handle */
static int walk_kernel(struct dw *dw, struct walker *w, struct symtab *syms)
{
	uint64_t end, mid = cu_split(dw->dwarf, &end);
	pthread_t th;
	bool ok;
	int i;

	for (i = 0; i < 2; i++)
		w[i].path = dw->path;
	w[0].cu_first = 0;
	w[0].cu_end = mid;
	w[1].cu_first = mid;
	w[1].cu_end = end;
	ok = pthread_create(&th, NULL, walker_run, &w[1]) == 0;
	walker_run(&w[0]);
	if (ok)
		pthread_join(th, NULL);
	else
		walker_run(&w[1]);
	read_symtab(dw->elf, syms);
	return 2;
}

/* walk every CU and write the index file */
static bool build_index(struct dw *dw, const char *path, char **why)
{
	struct walker w[2] = { 0 };
	struct symtab syms;
	double t0 = now_seconds();
	int nw = dw->dwfl ? walk_module(dw, w, &syms) : walk_kernel(dw, w, &syms);
	bool ok;
	int i;

	ok = !w[0].failed && !w[1].failed &&
	     write_index(path, w, nw, &syms, now_seconds() - t0);
	if (!ok)
		*why = xasprintf("cannot write the DWARF index %s: %s", path, strerror(errno));
	if (dw_debug())
		fprintf(stderr, "ktap: indexed %s in %.1f s: %zu function instances, "
			"%zu types, %zu globals\n", dw->path, now_seconds() - t0,
			w[0].funcs.n + w[1].funcs.n, w[0].types.n + w[1].types.n,
			w[0].globals.n + w[1].globals.n);
	for (i = 0; i < 2; i++) {
		if (w[i].dwarf && !w[i].borrowed) {
			dwarf_end(w[i].dwarf);
			elf_end(w[i].elf);
			close(w[i].fd);
		}
		xfree(w[i].funcs.v);
		xfree(w[i].types.v);
		xfree(w[i].globals.v);
		xfree(w[i].noentry_seen.slots);
		xfree(w[i].noentry_seen.sb.buf);
	}
	xfree(syms.v);
	xfree(syms.defined.slots);
	xfree(syms.defined.sb.buf);
	xfree(syms.ambiguous.slots);
	xfree(syms.ambiguous.sb.buf);
	return ok;
}

static bool map_index(struct dw *dw, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	const struct idx_header *h;
	void *p;

	if (fd < 0)
		return false;
	if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(*h)) {
		close(fd);
		return false;
	}
	p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return false;
	h = p;
	if (memcmp(h->magic, IDX_MAGIC, 8) != 0 ||
	    h->strings_off + h->strings_len != (uint64_t)st.st_size) {
		munmap(p, st.st_size);
		return false;
	}
	dw->hdr = h;
	dw->funcs = (const void *)((const char *)p + h->funcs_off);
	dw->types = (const void *)((const char *)p + h->types_off);
	dw->globals = (const void *)((const char *)p + h->globals_off);
	dw->syms = (const void *)((const char *)p + h->syms_off);
	dw->strings = (const char *)p + h->strings_off;
	return true;
}

static bool load_index(struct dw *dw, const char *build_id, char **why)
{
	char *dir = xasprintf("%s/dwarf/%s", ktap_cache_dir(), build_id);
	char *path = xasprintf("%s/" IDX_FILE, dir);

	if (map_index(dw, path))
		return true;
	if (!mkdir_p(dir)) {
		*why = xasprintf("cannot create %s: %s", dir, strerror(errno));
		return false;
	}
	progress("indexing the DWARF of %s (once per build-id)", dw->path);
	return build_index(dw, path, why) && map_index(dw, path);
}

/* ---- opening ---- */

static void percpu_range(struct dw *dw)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(dw->elf, &shstrndx) != 0)
		return;
	while ((scn = elf_nextscn(dw->elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(dw->elf, shstrndx, sh.sh_name);
		if (name && strcmp(name, ".data..percpu") == 0) {
			dw->percpu_start = sh.sh_addr;
			dw->percpu_end = sh.sh_addr + sh.sh_size;
		}
	}
}

struct dw *dw_open(const char *path, const char *build_id, char **why)
{
	struct dw *dw;
	int fd;
	Elf *elf;
	Dwarf *dwarf;

	if (!open_dwarf(path, &fd, &elf, &dwarf))
		return NULL;
	dw = xalloc(sizeof(*dw));
	dw->path = xstrdup(path);
	dw->fd = fd;
	dw->elf = elf;
	dw->dwarf = dwarf;
	dw->cfi = dwarf_getcfi(dwarf);
	if (!dw->cfi)
		dw->cfi = dwarf_getcfi_elf(elf);
	percpu_range(dw);
	if (!load_index(dw, build_id, why))
		return NULL;
	return dw;
}

/* a program's or shared library's DWARF (user-space probes): indexed as
 * the kernel's, its memory read from user space */
struct dw *dw_open_user(const char *path, const char *build_id, bool dyn, char **why)
{
	struct dw *dw = dw_open(path, build_id, why);

	if (dw) {
		dw->user = true;
		dw->user_dyn = dyn;
	}
	return dw;
}

/* ---- loadable modules: debug .ko files, relocated by libdwfl ---- */

const char *dw_module(const struct dw *dw)
{
	return dw->module;
}

static const Dwfl_Callbacks offline_callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* the relocated DWARF of one .ko through libdwfl; NULL + *why */
static struct dw *open_module_file(const char *path, const char *module, char **why)
{
	struct dw *dw = xalloc(sizeof(*dw));
	Dwarf_Addr elf_bias;

	elf_version(EV_CURRENT);
	dw->dwfl = dwfl_begin(&offline_callbacks);
	dw->dwfl_mod = dw->dwfl ? dwfl_report_offline(dw->dwfl, module, path, -1) : NULL;
	if (dw->dwfl)
		dwfl_report_end(dw->dwfl, NULL, NULL);
	if (dw->dwfl_mod)
		dw->dwarf = dwfl_module_getdwarf(dw->dwfl_mod, &dw->bias);
	if (!dw->dwarf) {
		*why = xasprintf("%s: no DWARF in it (%s)", path, dwfl_errmsg(-1));
		if (dw->dwfl)
			dwfl_end(dw->dwfl);
		return NULL;
	}
	dw->elf = dwfl_module_getelf(dw->dwfl_mod, &elf_bias);
	dw->path = xstrdup(path);
	dw->module = xstrdup(module);
	dw->fd = -1;
	dw->cfi = dwarf_getcfi(dw->dwarf);
	return dw;
}

struct dw *dw_open_module(const char *path, const char *module, const char *build_id,
			  char **why)
{
	struct dw *dw = open_module_file(path, module, why);

	if (!dw || !load_index(dw, build_id, why))
		return NULL;
	return dw;
}

/* ---- looking things up in the index ---- */

/* the first entry of a sorted table whose name is >= key (or, with
 * prefix, the first one past every name starting with key) */
static size_t lower_bound(const struct dw *dw, const void *base, size_t n,
			  size_t size, const char *key, bool past_prefix)
{
	size_t lo = 0, hi = n, klen = strlen(key);

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const char *name = istr(dw, *(const uint32_t *)((const char *)base + mid * size));
		int c = past_prefix ? strncmp(name, key, klen) : strcmp(name, key);

		if (past_prefix ? c <= 0 : c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* [*first, *end) of the entries whose names may match glob */
static void glob_range(const struct dw *dw, const void *base, size_t n,
		       size_t size, const char *glob, size_t *first, size_t *end)
{
	size_t lit = strcspn(glob, "*?[\\");
	char *prefix = xstrndup(glob, lit);

	*first = lower_bound(dw, base, n, size, prefix, false);
	*end = lit == 0 ? n : lower_bound(dw, base, n, size, prefix, true);
	xfree(prefix);
}

static const struct idx_named *named_lookup(const struct dw *dw,
					    const struct idx_named *v, size_t n,
					    const char *name)
{
	size_t i = lower_bound(dw, v, n, sizeof(*v), name, false);

	return i < n && strcmp(istr(dw, v[i].name), name) == 0 ? &v[i] : NULL;
}

static bool file_matches(const char *file, const char *glob)
{
	const char *base;

	if (!glob)
		return true;
	if (!file)
		return false;
	base = strrchr(file, '/');
	return fnmatch(glob, file, 0) == 0 ||
	       (base && fnmatch(glob, base + 1, 0) == 0);
}

static struct ctype *type_of_die(struct dw *dw, Dwarf_Die *die);

/* the ctype of a DIE's DW_AT_type (abstract origins followed); NULL: void */
static struct ctype *type_attr(struct dw *dw, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Die t;

	if (!dwarf_attr_integrate(die, DW_AT_type, &a) || !dwarf_formref_die(&a, &t))
		return NULL;
	return type_of_die(dw, &t);
}

static void kfunc_from_index(struct dw *dw, const struct idx_func *f,
			     struct kfunc *k)
{
	k->name = istr(dw, f->name);
	k->decl_file = f->decl_file ? istr(dw, f->decl_file) : NULL;
	k->decl_line = f->decl_line;
	k->addr = f->addr;
	if (f->sym != UINT32_MAX) {
		k->symbol = istr(dw, dw->syms[f->sym].name);
		k->offset = f->addr - dw->syms[f->sym].addr;
		if (dw->module)		/* kprobes resolve "mod:sym" */
			k->symbol = xasprintf("%s:%s", dw->module, k->symbol);
	}
	k->inlined = f->flags & IF_INLINED;
	k->exported = f->flags & IF_EXPORTED;
	k->provider_ref = f->die;
	k->provider_ref2 = f->scope;
	k->return_ref = f->ret;
}

struct ctype *dw_return_type(struct dw *dw, const struct kfunc *f)
{
	Dwarf_Die die;

	if (!f->return_ref || !dwarf_offdie(dw->dwarf, f->return_ref, &die))
		return NULL;
	return type_of_die(dw, &die);
}

static bool func_wanted(const struct dw *dw, const struct idx_func *f,
			const char *name_glob, const char *file_glob,
			bool want_outline, bool want_inlined)
{
	bool inl = f->flags & IF_INLINED;

	return !(f->flags & IF_NOENTRY) && (inl ? want_inlined : want_outline) &&
	       fnmatch(name_glob, istr(dw, f->name), 0) == 0 &&
	       file_matches(f->decl_file ? istr(dw, f->decl_file) : NULL, file_glob);
}

int dw_functions(struct dw *dw, const char *name_glob, const char *file_glob,
		 bool want_outline, bool want_inlined, struct kfunc **out)
{
	size_t first, end, i;
	int n = 0, k = 0;
	struct kfunc *v;

	glob_range(dw, dw->funcs, dw->hdr->nfuncs, sizeof(*dw->funcs), name_glob,
		   &first, &end);
	/* count, then fill: "*" is 300000 instances */
	for (i = first; i < end; i++)
		n += func_wanted(dw, &dw->funcs[i], name_glob, file_glob,
				 want_outline, want_inlined);
	v = xalloc((n + 1) * sizeof(*v));
	for (i = first; i < end && k < n; i++)
		if (func_wanted(dw, &dw->funcs[i], name_glob, file_glob,
				want_outline, want_inlined))
			kfunc_from_index(dw, &dw->funcs[i], &v[k++]);
	*out = v;
	return n;
}

const char *dw_function_without_entry(struct dw *dw, const char *name)
{
	size_t i = lower_bound(dw, dw->funcs, dw->hdr->nfuncs, sizeof(*dw->funcs),
			       name, false);
	const struct idx_func *f;

	if (i >= dw->hdr->nfuncs || strcmp(istr(dw, dw->funcs[i].name), name) != 0)
		return NULL;
	f = &dw->funcs[i];
	if (f->flags & IF_NOENTRY_UNKNOWN)
		return "the DWARF gives no entry address for its code";
	if (f->flags & IF_NOENTRY_INLINE)
		return "it is inlined at every call and no inlined copy is left "
		       "(the compiler optimized them all away)";
	if (f->flags & IF_NOENTRY_DECL)
		return "the DWARF only declares it: its body has no debuginfo "
		       "(written in assembly, or in a file built without -g)";
	return NULL;
}

/* ---- C types ---- */

int ctype_members(struct ctype *t, struct ctype_member **members)
{
	if (t->kind != CT_STRUCT && t->kind != CT_UNION) {
		*members = NULL;
		return 0;
	}
	if (!t->members_loaded && t->load_members) {
		t->members_loaded = true;
		t->load_members(t);
	}
	t->members_loaded = true;
	*members = t->members;
	return t->nmembers;
}

static struct ctype *tcache_get(struct dw *dw, uint64_t die)
{
	size_t j;

	if (!dw->tcache_cap)
		return NULL;
	j = (die * 0x9e3779b97f4a7c15ULL) & (dw->tcache_cap - 1);
	for (; dw->tcache[j].die; j = (j + 1) & (dw->tcache_cap - 1))
		if (dw->tcache[j].die == die)
			return dw->tcache[j].t;
	return NULL;
}

static void tcache_put(struct dw *dw, uint64_t die, struct ctype *t)
{
	size_t j;

	if (2 * (dw->tcache_n + 1) > dw->tcache_cap) {
		struct type_slot *old = dw->tcache;
		size_t oldcap = dw->tcache_cap, i;

		dw->tcache_cap = oldcap ? 2 * oldcap : 1024;
		dw->tcache = xalloc(dw->tcache_cap * sizeof(*dw->tcache));
		dw->tcache_n = 0;
		for (i = 0; i < oldcap; i++)
			if (old[i].die)
				tcache_put(dw, old[i].die, old[i].t);
		xfree(old);
	}
	j = (die * 0x9e3779b97f4a7c15ULL) & (dw->tcache_cap - 1);
	while (dw->tcache[j].die)
		j = (j + 1) & (dw->tcache_cap - 1);
	dw->tcache[j].die = die;
	dw->tcache[j].t = t;
	dw->tcache_n++;
}

static uint64_t die_udata(Dwarf_Die *die, int at, uint64_t dflt)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	if (!dwarf_attr_integrate(die, at, &a) || dwarf_formudata(&a, &w) != 0)
		return dflt;
	return w;
}

/* the complete definition of a declared struct/union/enum, through the
 * index; the declaration itself when there is none */
static bool complete_definition(struct dw *dw, Dwarf_Die *die, const char *kw)
{
	const char *name = dwarf_diename(die);
	const struct idx_named *e;

	if (!name || !die_flag(die, DW_AT_declaration))
		return true;
	e = named_lookup(dw, dw->types, dw->hdr->ntypes, xasprintf("%s %s", kw, name));
	return e && dwarf_offdie(dw->dwarf, e->die, die);
}

static void load_dwarf_members(struct ctype *t);

static void base_type(struct ctype *t, Dwarf_Die *die)
{
	uint64_t enc = die_udata(die, DW_AT_encoding, DW_ATE_signed);

	t->name = dwarf_diename(die);
	t->size = die_udata(die, DW_AT_byte_size, 0);
	t->kind = enc == DW_ATE_float ? CT_FLOAT : CT_INT;
	t->is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char ||
		       enc == DW_ATE_float;
	t->is_char = enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char ||
		     (t->name && t->size == 1 && strstr(t->name, "char"));
}

static void enum_type(struct ctype *t, Dwarf_Die *die)
{
	Dwarf_Die child;
	int cap = 0;

	t->kind = CT_ENUM;
	t->size = die_udata(die, DW_AT_byte_size, 4);
	if (dwarf_child(die, &child) != 0)
		return;
	do {
		Dwarf_Attribute a;
		Dwarf_Sword v = 0;

		if (dwarf_tag(&child) != DW_TAG_enumerator)
			continue;
		if (dwarf_attr(&child, DW_AT_const_value, &a))
			dwarf_formsdata(&a, &v);
		if (v < 0)
			t->is_signed = true;
		if (t->nenumerators == cap) {
			cap = cap ? 2 * cap : 8;
			t->enumerators = xrealloc(t->enumerators, cap * sizeof(*t->enumerators));
		}
		t->enumerators[t->nenumerators++] =
			(struct ctype_enumerator){ dwarf_diename(&child), v };
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* an array; several subranges are arrays of arrays */
static void array_type(struct dw *dw, struct ctype *t, Dwarf_Die *die)
{
	Dwarf_Die sub, dims[8];
	struct ctype *elem = type_attr(dw, die);
	int n = 0, i;

	if (dwarf_child(die, &sub) == 0)
		do {
			if (dwarf_tag(&sub) == DW_TAG_subrange_type && n < 8)
				dims[n++] = sub;
		} while (dwarf_siblingof(&sub, &sub) == 0);
	for (i = n - 1; i >= 0; i--) {
		struct ctype *a = i ? xalloc(sizeof(*a)) : t;
		uint64_t count = die_udata(&dims[i], DW_AT_count, 0);
		Dwarf_Attribute at;

		if (!count && dwarf_attr(&dims[i], DW_AT_upper_bound, &at)) {
			Dwarf_Word ub;

			if (dwarf_formudata(&at, &ub) == 0)
				count = ub + 1;
		}
		a->kind = CT_ARRAY;
		a->target = elem;
		a->nelems = count;
		a->size = elem ? elem->size * count : 0;
		a->name = xasprintf("%s[%llu]", elem && elem->name ? elem->name : "void",
				    (unsigned long long)count);
		elem = a;
	}
	if (n == 0) {
		t->kind = CT_ARRAY;
		t->target = elem;
		t->name = xasprintf("%s[]", elem && elem->name ? elem->name : "void");
	}
}

static void struct_type(struct dw *dw, struct ctype *t, Dwarf_Die *die,
			const char *kw)
{
	const char *name = dwarf_diename(die);

	t->kind = kw[0] == 's' ? CT_STRUCT : CT_UNION;
	t->name = name ? xasprintf("%s %s", kw, name) : xasprintf("%s {...}", kw);
	if (!complete_definition(dw, die, kw))
		return;		/* incomplete: size 0, no members */
	t->size = die_udata(die, DW_AT_byte_size, 0);
	t->provider_ref = dwarf_dieoffset(die);
	t->provider = dw;
	t->load_members = load_dwarf_members;
}

/* a type seen through a typedef or a qualifier: the target's meaning,
 * this spelling */
static void alias_type(struct dw *dw, struct ctype *t, Dwarf_Die *die,
		       const char *qualifier)
{
	struct ctype *target = type_attr(dw, die);
	const char *name = dwarf_diename(die);

	if (target)
		*t = *target;
	else
		t->kind = CT_VOID;
	if (qualifier && target && target->name &&
	    strncmp(target->name, qualifier, strlen(qualifier)) == 0 &&
	    target->name[strlen(qualifier)] == ' ')
		name = target->name;	/* const of an array of const: once */
	else if (qualifier)
		name = xasprintf("%s %s", qualifier, target && target->name ? target->name : "void");
	t->name = name ? name : target ? target->name : "void";
}

static struct ctype *type_of_die(struct dw *dw, Dwarf_Die *die)
{
	uint64_t off = dwarf_dieoffset(die);
	struct ctype *t = tcache_get(dw, off);

	if (t)
		return t;
	t = xalloc(sizeof(*t));
	tcache_put(dw, off, t);		/* before the targets: cycles end here */
	switch (dwarf_tag(die)) {
	case DW_TAG_base_type:
		base_type(t, die);
		break;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
		t->kind = CT_POINTER;
		t->size = die_udata(die, DW_AT_byte_size, 8);
		t->target = type_attr(dw, die);
		t->name = xasprintf("%s*", t->target && t->target->name ? t->target->name : "void");
		break;
	case DW_TAG_structure_type:
		struct_type(dw, t, die, "struct");
		break;
	case DW_TAG_union_type:
		struct_type(dw, t, die, "union");
		break;
	case DW_TAG_enumeration_type: {
		const char *name = dwarf_diename(die);

		t->name = name ? xasprintf("enum %s", name) : "enum {...}";
		if (complete_definition(dw, die, "enum"))
			enum_type(t, die);
		else
			t->kind = CT_ENUM;
		break;
	}
	case DW_TAG_array_type:
		array_type(dw, t, die);
		break;
	case DW_TAG_subroutine_type:
		t->kind = CT_FUNC;
		t->target = type_attr(dw, die);
		t->name = "func";	/* "void (*)(...)" is not worth spelling */
		break;
	case DW_TAG_typedef:
		alias_type(dw, t, die, NULL);
		break;
	case DW_TAG_const_type:
		alias_type(dw, t, die, "const");
		break;
	case DW_TAG_volatile_type:
		alias_type(dw, t, die, "volatile");
		break;
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
	default:
		alias_type(dw, t, die, NULL);
		break;
	}
	return t;
}

/* a member's place: bytes, and bits for a bitfield (absolute) */
static void member_place(Dwarf_Die *m, struct ctype_member *cm)
{
	uint64_t loc = die_udata(m, DW_AT_data_member_location, 0);
	uint64_t bit_size = die_udata(m, DW_AT_bit_size, 0);
	uint64_t size = cm->type ? cm->type->size : 0;
	Dwarf_Attribute a;
	uint64_t bit;

	cm->offset = loc;
	if (!bit_size)
		return;
	if (dwarf_attr(m, DW_AT_data_bit_offset, &a))
		bit = die_udata(m, DW_AT_data_bit_offset, 0);
	else	/* DWARF 2/3: counted from the storage unit's high-order bit */
		bit = loc * 8 + die_udata(m, DW_AT_byte_size, size) * 8 -
		      die_udata(m, DW_AT_bit_offset, 0) - bit_size;
	cm->bit_size = bit_size;
	cm->bit_offset = bit;
	/* offset: the aligned storage unit of the field's type, when the
	 * field lies within one; else the byte it starts in */
	if (size && (bit / (size * 8)) == ((bit + bit_size - 1) / (size * 8)))
		cm->offset = bit / (size * 8) * size;
	else
		cm->offset = bit / 8;
}

static void load_dwarf_members(struct ctype *t)
{
	struct dw *dw = t->provider;
	Dwarf_Die die, m;
	int cap = 0;

	if (!dw || !dwarf_offdie(dw->dwarf, t->provider_ref, &die) ||
	    dwarf_child(&die, &m) != 0)
		return;
	do {
		struct ctype_member *cm;

		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		if (t->nmembers == cap) {
			cap = cap ? 2 * cap : 16;
			t->members = xrealloc(t->members, cap * sizeof(*t->members));
		}
		cm = &t->members[t->nmembers++];
		memset(cm, 0, sizeof(*cm));
		cm->name = dwarf_diename(&m);
		cm->type = type_attr(dw, &m);
		member_place(&m, cm);
	} while (dwarf_siblingof(&m, &m) == 0);
}

struct ctype *dw_type_named(struct dw *dw, const char *name)
{
	static const char *const kws[] = { "", "struct ", "union ", "enum " };
	const struct idx_named *e = NULL;
	Dwarf_Die die;
	size_t i;

	while (*name == ' ')
		name++;
	if (strncmp(name, "struct ", 7) == 0 || strncmp(name, "union ", 6) == 0 ||
	    strncmp(name, "enum ", 5) == 0)
		e = named_lookup(dw, dw->types, dw->hdr->ntypes, name);
	for (i = 0; !e && i < sizeof(kws) / sizeof(kws[0]); i++)
		e = named_lookup(dw, dw->types, dw->hdr->ntypes,
				 xasprintf("%s%s", kws[i], name));
	if (!e || !dwarf_offdie(dw->dwarf, e->die, &die))
		return NULL;
	return type_of_die(dw, &die);
}

/* ---- locations as C ----
 *
 * A location expression runs on a stack machine; here it runs at compile
 * time on a stack of C expressions, each side-effect free, so that
 * DW_OP_breg7 8, DW_OP_deref becomes ktap_kread(c, (ktap_reg(c, 7) + 8), 8).
 * A register location (DW_OP_reg5) gives the value itself; a final
 * DW_OP_stack_value, a computed value; anything else, an address.
 */

enum loc_kind { LOC_FAIL, LOC_REG, LOC_MEMORY, LOC_VALUE };

/* the no-fault reader of the dw's memory (runtime/target.h) */
static const char *read_fn(const struct dw *dw)
{
	return dw->user ? "ktap_uread" : "ktap_kread";
}

struct loc_ctx {
	struct dw *dw;
	uint64_t pc;
	Dwarf_Die *frame_die;		/* the out-of-line subprogram at pc */
	bool at_entry;			/* pc is that function's first byte */
	Dwarf_Attribute *attr;		/* the location being translated */
	const char *why;		/* LOC_FAIL: the reason */
	int reg;			/* LOC_REG, entry value: the register */
};

#define LOC_STACK 16

struct loc_stack {
	char *v[LOC_STACK];
	int n;
};

static const char *op_name(unsigned op)
{
	static const struct { unsigned op; const char *name; } names[] = {
		{ DW_OP_implicit_pointer, "DW_OP_implicit_pointer" },
		{ DW_OP_GNU_implicit_pointer, "DW_OP_GNU_implicit_pointer" },
		{ DW_OP_entry_value, "DW_OP_entry_value" },
		{ DW_OP_GNU_entry_value, "DW_OP_GNU_entry_value" },
		{ DW_OP_GNU_parameter_ref, "DW_OP_GNU_parameter_ref" },
		{ DW_OP_convert, "DW_OP_convert" },
		{ DW_OP_GNU_convert, "DW_OP_GNU_convert" },
		{ DW_OP_regval_type, "DW_OP_regval_type" },
		{ DW_OP_GNU_regval_type, "DW_OP_GNU_regval_type" },
		{ DW_OP_deref_type, "DW_OP_deref_type" },
		{ DW_OP_GNU_deref_type, "DW_OP_GNU_deref_type" },
		{ DW_OP_const_type, "DW_OP_const_type" },
		{ DW_OP_GNU_const_type, "DW_OP_GNU_const_type" },
		{ DW_OP_GNU_variable_value, "DW_OP_GNU_variable_value" },
		{ DW_OP_piece, "DW_OP_piece" },
		{ DW_OP_bit_piece, "DW_OP_bit_piece" },
		{ DW_OP_skip, "DW_OP_skip" },
		{ DW_OP_bra, "DW_OP_bra" },
		{ DW_OP_call2, "DW_OP_call2" },
		{ DW_OP_call4, "DW_OP_call4" },
		{ DW_OP_call_ref, "DW_OP_call_ref" },
		{ DW_OP_form_tls_address, "DW_OP_form_tls_address" },
		{ DW_OP_GNU_push_tls_address, "DW_OP_GNU_push_tls_address" },
		{ DW_OP_push_object_address, "DW_OP_push_object_address" },
		{ DW_OP_xderef, "DW_OP_xderef" },
		{ DW_OP_xderef_size, "DW_OP_xderef_size" },
		{ DW_OP_implicit_value, "DW_OP_implicit_value" },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].op == op)
			return names[i].name;
	return xasprintf("DW_OP_0x%x", op);
}

static bool loc_fail(struct loc_ctx *lc, const char *why)
{
	if (!lc->why)
		lc->why = why;
	return false;
}

static bool unsupported(struct loc_ctx *lc, unsigned op)
{
	return loc_fail(lc, xasprintf("location uses %s, which ktap cannot read yet",
				      op_name(op)));
}

static bool push(struct loc_ctx *lc, struct loc_stack *s, char *e)
{
	if (s->n == LOC_STACK)
		return loc_fail(lc, "location expression too deep");
	s->v[s->n++] = e;
	return true;
}

static char *pop(struct loc_stack *s)
{
	return s->n ? s->v[--s->n] : NULL;
}

static char *reg_c(unsigned reg)
{
	return xasprintf(CVAR_REG_C, (int)reg);
}

static char *plus_c(const char *e, int64_t off)
{
	if (off == 0)
		return xstrdup(e);
	return off < 0 ? xasprintf("(%s - %llu)", e, (unsigned long long)-off)
		       : xasprintf("(%s + %llu)", e, (unsigned long long)off);
}

static bool reg_ok(struct loc_ctx *lc, uint64_t reg)
{
	if (reg <= 16)
		return true;
	return loc_fail(lc, xasprintf("lives in DWARF register %llu, which ktap "
				      "cannot read", (unsigned long long)reg));
}

static enum loc_kind run_ops(struct loc_ctx *lc, Dwarf_Op *ops, size_t n,
			     char **out);

/* the CFA at pc as C, from the call frame information */
static char *cfa_c(struct loc_ctx *lc)
{
	Dwarf_Frame *frame;
	Dwarf_Op *ops;
	size_t n;
	char *e;

	if (lc->dw->cfi && dwarf_cfi_addrframe(lc->dw->cfi, lc->pc, &frame) == 0 &&
	    dwarf_frame_cfa(frame, &ops, &n) == 0 &&
	    run_ops(lc, ops, n, &e) == LOC_MEMORY)
		return e;
	if (lc->at_entry)	/* the return address was just pushed */
		return plus_c(reg_c(7), 8);
	loc_fail(lc, "no call frame information at this address");
	return NULL;
}

/* DW_AT_frame_base of the function at pc, as C */
static char *frame_base_c(struct loc_ctx *lc)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;
	char *e;
	struct loc_ctx sub = *lc;

	if (!lc->frame_die || !dwarf_attr(lc->frame_die, DW_AT_frame_base, &a) ||
	    dwarf_getlocation_addr(&a, lc->pc, &ops, &n, 1) != 1) {
		loc_fail(lc, "the function has no frame base here");
		return NULL;
	}
	sub.attr = &a;
	sub.why = NULL;
	switch (run_ops(&sub, ops, n, &e)) {
	case LOC_MEMORY:
	case LOC_VALUE:
		return e;
	case LOC_REG:		/* DW_OP_reg6: the frame base is rbp's value */
		return e;
	default:
		loc_fail(lc, sub.why);
		return NULL;
	}
}

/* DW_OP_entry_value(DW_OP_regN): the register as it was at the function's
 * entry, which is known only while still there */
static char *entry_value_c(struct loc_ctx *lc, Dwarf_Op *op)
{
	Dwarf_Attribute inner;
	Dwarf_Op *ops;
	size_t n;

	if (!lc->attr || dwarf_getlocation_attr(lc->attr, op, &inner) != 0 ||
	    dwarf_getlocation(&inner, &ops, &n) != 0 || n != 1 ||
	    !((ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) ||
	      ops[0].atom == DW_OP_regx)) {
		unsupported(lc, op->atom);
		return NULL;
	}
	if (!lc->at_entry) {
		loc_fail(lc, "known only at the function's entry (DW_OP_entry_value)");
		return NULL;
	}
	unsigned reg = ops[0].atom == DW_OP_regx ? (unsigned)ops[0].number
						 : (unsigned)(ops[0].atom - DW_OP_reg0);

	lc->reg = (int)reg;
	return reg_ok(lc, reg) ? reg_c(reg) : NULL;
}

static bool binary_op(struct loc_ctx *lc, struct loc_stack *s, const char *fmt)
{
	char *b = pop(s), *a = pop(s);

	if (!a || !b)
		return loc_fail(lc, "malformed location expression");
	return push(lc, s, xasprintf(fmt, a, b));
}

static bool unary_op(struct loc_ctx *lc, struct loc_stack *s, const char *fmt)
{
	char *a = pop(s);

	if (!a)
		return loc_fail(lc, "malformed location expression");
	return push(lc, s, xasprintf(fmt, a));
}

/* one operation that computes on the stack; false when it cannot */
static bool stack_op(struct loc_ctx *lc, struct loc_stack *s, Dwarf_Op *op)
{
	unsigned a = op->atom;
	char *x, *y;

	if (a >= DW_OP_lit0 && a <= DW_OP_lit31)
		return push(lc, s, xasprintf("%uUL", a - DW_OP_lit0));
	if (a >= DW_OP_breg0 && a <= DW_OP_breg31)
		return reg_ok(lc, a - DW_OP_breg0) &&
		       push(lc, s, plus_c(reg_c(a - DW_OP_breg0), (int64_t)op->number));
	switch (a) {
	case DW_OP_addr:
		if (lc->dw->user_dyn)
			return loc_fail(lc, "a static of a position-independent program or "
					"library, whose address is known only once it is "
					"loaded (not supported yet)");
		if (lc->dw->module)
			return loc_fail(lc, xasprintf("a static of module %s, whose address "
						      "is known only once the module is "
						      "loaded (not supported yet)",
						      lc->dw->module));
		return push(lc, s, xasprintf("0x%llxUL", (unsigned long long)op->number));
	case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u:
	case DW_OP_const8u: case DW_OP_constu:
		return push(lc, s, xasprintf("0x%llxUL", (unsigned long long)op->number));
	case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s:
	case DW_OP_const8s: case DW_OP_consts:
		return push(lc, s, xasprintf("(unsigned long)%lldL", (long long)op->number));
	case DW_OP_bregx:
		return reg_ok(lc, op->number) &&
		       push(lc, s, plus_c(reg_c(op->number), (int64_t)op->number2));
	case DW_OP_fbreg:
		x = frame_base_c(lc);
		return x && push(lc, s, plus_c(x, (int64_t)op->number));
	case DW_OP_call_frame_cfa:
		x = cfa_c(lc);
		return x && push(lc, s, x);
	case DW_OP_entry_value:
	case DW_OP_GNU_entry_value:
		x = entry_value_c(lc, op);
		return x && push(lc, s, x);
	case DW_OP_dup:
		x = s->n ? s->v[s->n - 1] : NULL;
		return x ? push(lc, s, x) : loc_fail(lc, "malformed location expression");
	case DW_OP_over:
		x = s->n > 1 ? s->v[s->n - 2] : NULL;
		return x ? push(lc, s, x) : loc_fail(lc, "malformed location expression");
	case DW_OP_pick:
		x = op->number < (uint64_t)s->n ? s->v[s->n - 1 - op->number] : NULL;
		return x ? push(lc, s, x) : loc_fail(lc, "malformed location expression");
	case DW_OP_drop:
		return pop(s) ? true : loc_fail(lc, "malformed location expression");
	case DW_OP_swap:
		y = pop(s), x = pop(s);
		if (!x || !y)
			return loc_fail(lc, "malformed location expression");
		return push(lc, s, y) && push(lc, s, x);
	case DW_OP_rot:
		if (s->n < 3)
			return loc_fail(lc, "malformed location expression");
		x = s->v[s->n - 1];
		s->v[s->n - 1] = s->v[s->n - 2];
		s->v[s->n - 2] = s->v[s->n - 3];
		s->v[s->n - 3] = x;
		return true;
	case DW_OP_deref:
		return unary_op(lc, s, xasprintf("%s(c, %%s, 8)", read_fn(lc->dw)));
	case DW_OP_deref_size:
		if (op->number != 1 && op->number != 2 && op->number != 4 && op->number != 8)
			return unsupported(lc, a);
		return unary_op(lc, s, xasprintf("%s(c, %%s, %d)", read_fn(lc->dw),
						 (int)op->number));
	case DW_OP_plus_uconst:
		x = pop(s);
		return x ? push(lc, s, plus_c(x, (int64_t)op->number))
			 : loc_fail(lc, "malformed location expression");
	case DW_OP_plus:  return binary_op(lc, s, "(%s + %s)");
	case DW_OP_minus: return binary_op(lc, s, "(%s - %s)");
	case DW_OP_mul:   return binary_op(lc, s, "(%s * %s)");
	case DW_OP_and:   return binary_op(lc, s, "(%s & %s)");
	case DW_OP_or:    return binary_op(lc, s, "(%s | %s)");
	case DW_OP_xor:   return binary_op(lc, s, "(%s ^ %s)");
	case DW_OP_shl:   return binary_op(lc, s, "(%s << (%s & 63))");
	case DW_OP_shr:   return binary_op(lc, s, "(%s >> (%s & 63))");
	case DW_OP_shra:  return binary_op(lc, s, "(unsigned long)((long)%s >> (%s & 63))");
	case DW_OP_div:   return binary_op(lc, s, "({ long d_ = (long)%2$s; d_ ? (unsigned long)((long)%1$s / d_) : 0UL; })");
	case DW_OP_mod:   return binary_op(lc, s, "({ unsigned long m_ = %2$s; m_ ? %1$s %% m_ : 0UL; })");
	case DW_OP_eq:    return binary_op(lc, s, "(unsigned long)((long)%s == (long)%s)");
	case DW_OP_ne:    return binary_op(lc, s, "(unsigned long)((long)%s != (long)%s)");
	case DW_OP_lt:    return binary_op(lc, s, "(unsigned long)((long)%s < (long)%s)");
	case DW_OP_gt:    return binary_op(lc, s, "(unsigned long)((long)%s > (long)%s)");
	case DW_OP_le:    return binary_op(lc, s, "(unsigned long)((long)%s <= (long)%s)");
	case DW_OP_ge:    return binary_op(lc, s, "(unsigned long)((long)%s >= (long)%s)");
	case DW_OP_neg:   return unary_op(lc, s, "(-%s)");
	case DW_OP_not:   return unary_op(lc, s, "(~%s)");
	case DW_OP_abs:   return unary_op(lc, s, "({ long a_ = (long)%s; (unsigned long)(a_ < 0 ? -a_ : a_); })");
	case DW_OP_nop:
		return true;
	}
	return unsupported(lc, a);
}

/* a constant of up to 8 bytes (DW_OP_implicit_value) as C */
static char *block_value_c(const unsigned char *p, size_t len)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < len && i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);		/* x86-64: little-endian */
	return xasprintf("0x%llxUL", (unsigned long long)v);
}

/* a whole expression without pieces */
static enum loc_kind run_ops(struct loc_ctx *lc, Dwarf_Op *ops, size_t n,
			     char **out)
{
	struct loc_stack s = { .n = 0 };
	size_t i;

	if (n == 0)
		return loc_fail(lc, "optimized out at this address"), LOC_FAIL;
	if (n == 1 && ((ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) ||
		       ops[0].atom == DW_OP_regx)) {
		lc->reg = ops[0].atom == DW_OP_regx ? (int)ops[0].number
						     : ops[0].atom - DW_OP_reg0;
		*out = reg_c(lc->reg);
		return reg_ok(lc, lc->reg) ? LOC_REG : LOC_FAIL;
	}
	if (n == 1 && ops[0].atom == DW_OP_implicit_value) {
		if (ops[0].number > 8)
			return unsupported(lc, ops[0].atom), LOC_FAIL;
		*out = block_value_c((const unsigned char *)(uintptr_t)ops[0].number2,
				     ops[0].number);
		return LOC_VALUE;
	}
	for (i = 0; i < n; i++) {
		if (ops[i].atom == DW_OP_stack_value && i == n - 1) {
			*out = pop(&s);
			return *out ? LOC_VALUE : LOC_FAIL;
		}
		if (!stack_op(lc, &s, &ops[i]))
			return LOC_FAIL;
	}
	*out = pop(&s);
	if (!*out)
		return loc_fail(lc, "malformed location expression"), LOC_FAIL;
	return LOC_MEMORY;
}

/* a value of `size` bytes from a translated location */
static char *value_of(const struct dw *dw, enum loc_kind k, const char *e, uint64_t size)
{
	if (k == LOC_REG || k == LOC_VALUE)
		return xstrdup(e);
	if (size == 1 || size == 2 || size == 4 || size == 8)
		return xasprintf("%s(c, %s, %d)", read_fn(dw), e, (int)size);
	return NULL;
}

/* DW_OP_piece: a value put together from parts of up to 8 bytes in all */
static bool run_pieces(struct loc_ctx *lc, Dwarf_Op *ops, size_t n,
		       struct cvar *cv)
{
	struct strbuf sb = { 0 };
	size_t start = 0, i;
	uint64_t shift = 0;

	for (i = 0; i < n; i++) {
		char *e;
		enum loc_kind k;
		uint64_t size;

		if (ops[i].atom != DW_OP_piece)
			continue;
		size = ops[i].number;
		if (shift + size > 8) {
			loc_fail(lc, xasprintf("split into pieces of more than 8 bytes, "
					       "which ktap cannot read yet"));
			return false;
		}
		if (i == start) {
			loc_fail(lc, "partly optimized out at this address");
			return false;
		}
		k = run_ops(lc, ops + start, i - start, &e);
		if (k == LOC_FAIL)
			return false;
		e = value_of(lc->dw, k, e, size);
		if (!e)
			return loc_fail(lc, "a piece of an odd size");
		sb_printf(&sb, "%s((%s & 0x%llxUL) << %llu)", shift ? " | " : "(", e,
			  (unsigned long long)(size == 8 ? ~0ULL : (1ULL << (8 * size)) - 1),
			  (unsigned long long)(8 * shift));
		shift += size;
		start = i + 1;
	}
	if (start != n)
		return unsupported(lc, DW_OP_piece);
	sb_putc(&sb, ')');
	cv->value_c = sb.buf;
	return true;
}

static bool has_piece(Dwarf_Op *ops, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ops[i].atom == DW_OP_piece || ops[i].atom == DW_OP_bit_piece)
			return true;
	return false;
}

/* a constant variable (DW_AT_const_value) */
static bool const_value(Dwarf_Die *var, struct cvar *cv)
{
	Dwarf_Attribute a;
	Dwarf_Sword sv;
	Dwarf_Block b;

	if (!dwarf_attr_integrate(var, DW_AT_const_value, &a))
		return false;
	if (dwarf_formblock(&a, &b) == 0) {
		if (b.length <= 8)
			cv->value_c = block_value_c(b.data, b.length);
		else
			cv->unavailable = "a constant of more than 8 bytes";
		return true;
	}
	if (dwarf_formsdata(&a, &sv) == 0)
		cv->value_c = xasprintf("(unsigned long)%lldL", (long long)sv);
	else
		cv->unavailable = "a constant ktap cannot read";
	return true;
}

/* where a variable is at lc->pc, into cv */
static void var_location(struct loc_ctx *lc, Dwarf_Die *var, struct cvar *cv)
{
	uint64_t size = cv->type ? cv->type->size : 0;
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;
	char *e;
	enum loc_kind k;
	int r;

	if (!dwarf_attr(var, DW_AT_location, &a)) {
		if (!const_value(var, cv))
			cv->unavailable = "optimized out";
		return;
	}
	r = dwarf_getlocation_addr(&a, lc->pc, &ops, &n, 1);
	if (r <= 0) {
		cv->unavailable = r == 0 ? "optimized out at this address"
					 : xasprintf("bad location: %s", dwarf_errmsg(-1));
		return;
	}
	lc->attr = &a;
	lc->why = NULL;
	if (has_piece(ops, n)) {
		if (!run_pieces(lc, ops, n, cv))
			cv->unavailable = lc->why;
		return;
	}
	k = run_ops(lc, ops, n, &e);
	if (k == LOC_FAIL) {
		cv->unavailable = lc->why ? lc->why : "unreadable location";
		return;
	}
	if (k == LOC_MEMORY)
		cv->addr_c = e;
	if (k == LOC_MEMORY && n == 1 && ops[0].atom == DW_OP_addr)
		cv->static_addr = ops[0].number;
	/* in a register: DW_OP_regN, or at the entry DW_OP_entry_value(
	 * DW_OP_regN), DW_OP_stack_value */
	if (k == LOC_REG || (k == LOC_VALUE && n == 2 && ops[1].atom == DW_OP_stack_value &&
			     (ops[0].atom == DW_OP_entry_value ||
			      ops[0].atom == DW_OP_GNU_entry_value))) {
		cv->in_reg = true;
		cv->reg = lc->reg;
	}
	cv->value_c = value_of(lc->dw, k, e, size);
	if (!cv->value_c && !cv->addr_c)
		cv->unavailable = "a value of more than 8 bytes outside memory";
}

/* ---- variables ---- */

struct cvars {
	struct cvar *v;
	int n, cap;
};

static bool cvars_has(struct cvars *cv, const char *name)
{
	int i;

	for (i = 0; i < cv->n; i++)
		if (strcmp(cv->v[i].name, name) == 0)
			return true;
	return false;
}

static struct cvar *cvars_add(struct cvars *cv)
{
	if (cv->n == cv->cap) {
		cv->cap = cv->cap ? 2 * cv->cap : 8;
		cv->v = xrealloc(cv->v, cv->cap * sizeof(*cv->v));
	}
	memset(&cv->v[cv->n], 0, sizeof(cv->v[0]));
	return &cv->v[cv->n++];
}

/* a parameter or variable DIE (concrete, or abstract when absent) */
static void add_var(struct loc_ctx *lc, struct cvars *out, Dwarf_Die *var,
		    bool concrete, bool is_param)
{
	const char *name = die_name(var);
	struct cvar *cv;

	if (!name || cvars_has(out, name))
		return;
	if (!is_param && die_flag(var, DW_AT_declaration) && !dwarf_hasattr(var, DW_AT_location))
		return;		/* an extern declaration inside a block */
	cv = cvars_add(out);
	cv->name = name;
	cv->is_param = is_param;
	cv->type = type_attr(lc->dw, var);
	if (concrete)
		var_location(lc, var, cv);
	else
		cv->unavailable = "optimized out";
}

static uint64_t origin_of(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Die o;

	if (dwarf_attr(die, DW_AT_abstract_origin, &a) && dwarf_formref_die(&a, &o))
		return dwarf_dieoffset(&o);
	return 0;
}

/* a concrete child of scope with this tag whose abstract origin is off */
static bool concrete_child(Dwarf_Die *scope, int tag, uint64_t off, Dwarf_Die *out)
{
	if (dwarf_child(scope, out) != 0)
		return false;
	do
		if (dwarf_tag(out) == tag && origin_of(out) == off)
			return true;
	while (dwarf_siblingof(out, out) == 0);
	return false;
}

/* the parameters of a function instance, in declaration order: from its
 * abstract origin when it has one (inlined copies, clones) */
static void add_params(struct loc_ctx *lc, struct cvars *out, Dwarf_Die *inst)
{
	Dwarf_Attribute a;
	Dwarf_Die origin, p, conc;
	bool abstract = dwarf_attr(inst, DW_AT_abstract_origin, &a) &&
			dwarf_formref_die(&a, &origin);
	Dwarf_Die *list = abstract ? &origin : inst;

	if (dwarf_child(list, &p) != 0)
		return;
	do {
		if (dwarf_tag(&p) != DW_TAG_formal_parameter)
			continue;
		if (!abstract)
			add_var(lc, out, &p, true, true);
		else if (concrete_child(inst, DW_TAG_formal_parameter,
					dwarf_dieoffset(&p), &conc))
			add_var(lc, out, &conc, true, true);
		else
			add_var(lc, out, &p, false, true);
	} while (dwarf_siblingof(&p, &p) == 0);
}

static void add_locals(struct loc_ctx *lc, struct cvars *out, Dwarf_Die *scope)
{
	Dwarf_Die v;

	if (dwarf_child(scope, &v) != 0)
		return;
	do
		if (dwarf_tag(&v) == DW_TAG_variable)
			add_var(lc, out, &v, true, false);
	while (dwarf_siblingof(&v, &v) == 0);
}

/* the lexical scopes at pc inside the instance, innermost first, up to
 * and including the instance itself; a nested inlined copy is not
 * entered (its variables are its own). Walks down from the instance
 * rather than dwarf_getscopes() from the CU, which is ~50 times slower. */
static int scopes_within(Dwarf_Die *inst, uint64_t pc, Dwarf_Die **out)
{
	Dwarf_Die path[64], child;
	int n = 0, i;
	bool deeper = true;

	path[n++] = *inst;
	while (deeper && n < 64) {
		deeper = false;
		if (dwarf_child(&path[n - 1], &child) != 0)
			break;
		do
			if (dwarf_tag(&child) == DW_TAG_lexical_block &&
			    dwarf_haspc(&child, pc) > 0) {
				path[n++] = child;
				deeper = true;
				break;
			}
		while (dwarf_siblingof(&child, &child) == 0);
	}
	*out = xalloc(n * sizeof(**out));
	for (i = 0; i < n; i++)
		(*out)[i] = path[n - 1 - i];
	return n;
}

int dw_variables(struct dw *dw, const struct kfunc *f, uint64_t pc,
		 struct cvar **out)
{
	Dwarf_Die inst, outer, *scopes = NULL;
	struct loc_ctx lc = { .dw = dw, .pc = pc };
	struct cvars vars = { 0 };
	Dwarf_Addr entry;
	int n, i;

	*out = NULL;
	if (!dwarf_offdie(dw->dwarf, f->provider_ref, &inst))
		return 0;
	outer = inst;
	if (f->inlined && !dwarf_offdie(dw->dwarf, f->provider_ref2, &outer))
		return 0;
	lc.frame_die = &outer;
	lc.at_entry = die_entry_pc(&outer, &entry) && entry == pc;
	add_params(&lc, &vars, &inst);
	n = scopes_within(&inst, pc, &scopes);
	for (i = 0; i < n; i++)
		add_locals(&lc, &vars, &scopes[i]);
	*out = vars.v;
	return vars.n;
}

/* ---- globals ---- */

/* the address of a data symbol in the ELF symbol table, 0 if none */
static uint64_t elf_symbol_addr(struct dw *dw, const char *name)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t i, count;

	while ((scn = elf_nextscn(dw->elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			break;
	if (!scn || !sh.sh_entsize)
		return 0;
	Elf_Data *d = elf_getdata(scn, NULL);

	count = sh.sh_size / sh.sh_entsize;
	for (i = 0; d && i < count; i++) {
		GElf_Sym sym;
		const char *s;

		if (gelf_getsym(d, i, &sym) && GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
		    (s = elf_strptr(dw->elf, sh.sh_link, sym.st_name)) && strcmp(s, name) == 0)
			return sym.st_value;
	}
	return 0;
}

/* a global declared without a location (defined by the linker script,
 * e.g. jiffies = jiffies_64): the symbol's address */
static void global_from_symbol(struct dw *dw, struct cvar *out)
{
	uint64_t addr = elf_symbol_addr(dw, out->name);
	uint64_t size = out->type ? out->type->size : 0;

	if (!addr) {
		out->unavailable = "declared without a location or symbol";
		return;
	}
	out->unavailable = NULL;
	out->static_addr = addr;
	out->addr_c = xasprintf("0x%llxUL", (unsigned long long)addr);
	out->value_c = value_of(dw, LOC_MEMORY, out->addr_c, size);
}

bool dw_global(struct dw *dw, const char *name, struct cvar *out)
{
	const struct idx_named *e = named_lookup(dw, dw->globals, dw->hdr->nglobals, name);
	struct loc_ctx lc = { .dw = dw };
	Dwarf_Die die;

	memset(out, 0, sizeof(*out));
	if (!e || !dwarf_offdie(dw->dwarf, e->die, &die))
		return false;
	out->name = istr(dw, e->name);
	out->type = type_attr(dw, &die);
	if (e->flags & IF_DECLARATION)
		global_from_symbol(dw, out);
	else
		var_location(&lc, &die, out);
	if (out->addr_c) {
		uint64_t addr = out->static_addr;	/* 0 for a computed address */

		if (addr >= dw->percpu_start && addr < dw->percpu_end &&
		    dw->percpu_end) {
			out->addr_c = out->value_c = NULL;
			out->unavailable = "a per-CPU variable, which ktap cannot read yet";
		}
	}
	return true;
}

/* ---- statements: the line table ---- */

struct line_row {
	int line;
	uint64_t addr;
};

static int stmt_cmp(const void *a, const void *b)
{
	const struct line_row *x = a, *y = b;

	if (x->line != y->line)
		return x->line - y->line;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static bool in_ranges(Dwarf_Die *die, uint64_t addr)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0)
		if (addr >= start && addr < end)
			return true;
	return false;
}

/* a line-table file name as the index spells decl files */
static const char *relative_file(Dwarf_Die *cu, const char *file)
{
	Dwarf_Attribute a;
	const char *dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a));
	size_t len = dir ? strlen(dir) : 0;

	if (file && dir && strncmp(file, dir, len) == 0 && file[len] == '/')
		return file + len + 1;
	return file;
}

int dw_statements(struct dw *dw, const struct kfunc *f, const char *file_glob,
		  int first, int last, uint64_t **addrs, int **lines)
{
	Dwarf_Die inst, cu;
	Dwarf_Lines *lt;
	size_t nl, i;
	struct line_row *v;
	int n = 0, k = 0, j;

	*addrs = NULL;
	*lines = NULL;
	if (!dwarf_offdie(dw->dwarf, f->provider_ref, &inst) ||
	    !dwarf_diecu(&inst, &cu, NULL, NULL) ||
	    dwarf_getsrclines(&cu, &lt, &nl) != 0)
		return 0;
	v = xalloc((nl + 1) * sizeof(*v));
	for (i = 0; i < nl; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lt, i);
		Dwarf_Addr addr;
		bool stmt;
		int line;
		const char *file;

		if (!l || dwarf_lineaddr(l, &addr) != 0 || dwarf_lineno(l, &line) != 0 ||
		    dwarf_linebeginstatement(l, &stmt) != 0 || !stmt ||
		    line < first || line > last || !in_ranges(&inst, addr))
			continue;
		file = relative_file(&cu, dwarf_linesrc(l, NULL, NULL));
		if (file_glob ? !file_matches(file, file_glob)
			      : (f->decl_file && (!file || strcmp(file, f->decl_file) != 0)))
			continue;
		v[n++] = (struct line_row){ line, addr };
	}
	qsort(v, n, sizeof(*v), stmt_cmp);
	*addrs = xalloc((n + 1) * sizeof(**addrs));
	*lines = xalloc((n + 1) * sizeof(**lines));
	for (j = 0; j < n; j++)
		if (k == 0 || (*lines)[k - 1] != v[j].line) {
			(*addrs)[k] = v[j].addr;
			(*lines)[k++] = v[j].line;
		}
	xfree(v);
	return k;
}

/* ---- tracepoints: the prototypes of __traceiter_NAME ---- */

#define TRACEITER "__traceiter_"

/* len bytes of the image's initialized data at a link-time address */
static bool elf_read(struct dw *dw, uint64_t addr, void *buf, size_t len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(dw->elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    sh.sh_type != SHT_PROGBITS || addr < sh.sh_addr ||
		    addr + len > sh.sh_addr + sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || addr + len > sh.sh_addr + d->d_size)
			return false;
		memcpy(buf, (char *)d->d_buf + (addr - sh.sh_addr), len);
		return true;
	}
	return false;
}

static int64_t member_offset(struct dw *dw, const char *type, const char *member)
{
	struct ctype *t = dw_type_named(dw, type);
	struct ctype_member *m;
	int n = t ? ctype_members(t, &m) : 0, i;

	for (i = 0; i < n; i++)
		if (m[i].name && strcmp(m[i].name, member) == 0)
			return m[i].offset;
	return -1;
}

/* the system a trace event is registered under, read from the image:
 * event_NAME.class->system (TRACE_SYSTEM, which is not always the
 * header's name: sys_enter is in syscalls.h, under raw_syscalls) */
static const char *event_system(struct dw *dw, const char *name)
{
	static int64_t class_off = -2, system_off;
	const struct idx_named *e;
	struct cvar v;
	uint64_t addr, class, str;
	char buf[64];

	if (class_off == -2) {
		class_off = member_offset(dw, "struct trace_event_call", "class");
		system_off = member_offset(dw, "struct trace_event_class", "system");
	}
	e = named_lookup(dw, dw->globals, dw->hdr->nglobals, xasprintf("event_%s", name));
	if (class_off < 0 || system_off < 0 || !e || !dw_global(dw, istr(dw, e->name), &v) ||
	    !v.addr_c)
		return NULL;
	addr = v.static_addr;
	if (!elf_read(dw, addr + class_off, &class, 8) ||
	    !elf_read(dw, class + system_off, &str, 8) ||
	    !elf_read(dw, str, buf, 1))
		return NULL;
	memset(buf, 0, sizeof(buf));
	elf_read(dw, str, buf, sizeof(buf) - 1);	/* may end past a section */
	if (!buf[0]) {
		size_t i;

		for (i = 0; i < sizeof(buf) - 1 && elf_read(dw, str + i, buf + i, 1) && buf[i]; i++)
			;
		buf[i] = '\0';
	}
	return buf[0] ? xstrdup(buf) : NULL;
}

/* the trace system of a tracepoint: its event's, else the header's name
 * (include/trace/events/sched.h: "sched") for a tracepoint with no event */
static const char *trace_system(struct dw *dw, const char *name, const char *decl_file)
{
	const char *system = event_system(dw, name);
	const char *base = decl_file ? strrchr(decl_file, '/') : NULL;
	size_t len;

	if (system)
		return system;
	base = base ? base + 1 : decl_file;
	if (!base)
		return "unknown";
	len = strlen(base);
	if (len > 2 && strcmp(base + len - 2, ".h") == 0)
		len -= 2;
	return xstrndup(base, len);
}

/* the arguments after `void *__data`, as c->tp_args[i] */
static void tracepoint_args(struct dw *dw, Dwarf_Die *die, struct ktracepoint *tp)
{
	Dwarf_Die p;
	int i = -1, cap = 0;

	if (dwarf_child(die, &p) != 0)
		return;
	do {
		struct cvar *cv;

		if (dwarf_tag(&p) != DW_TAG_formal_parameter || ++i == 0)
			continue;
		if (tp->nargs == cap) {
			cap = cap ? 2 * cap : 4;
			tp->args = xrealloc(tp->args, cap * sizeof(*tp->args));
		}
		cv = &tp->args[tp->nargs++];
		memset(cv, 0, sizeof(*cv));
		cv->name = die_name(&p);
		cv->type = type_attr(dw, &p);
		cv->is_param = true;
		cv->value_c = xasprintf("c->tp_args[%d]", tp->nargs - 1);
	} while (dwarf_siblingof(&p, &p) == 0);
}

int dw_tracepoints(struct dw *dw, const char *system_glob,
		   const char *name_glob, struct ktracepoint **out)
{
	char *glob = xasprintf(TRACEITER "%s", name_glob ? name_glob : "*");
	size_t first, end, i;
	int n = 0, cap = 16;
	struct ktracepoint *v = xalloc(cap * sizeof(*v));

	glob_range(dw, dw->funcs, dw->hdr->nfuncs, sizeof(*dw->funcs), glob,
		   &first, &end);
	for (i = first; i < end; i++) {
		const struct idx_func *f = &dw->funcs[i];
		const char *name = istr(dw, f->name);
		const char *system;
		Dwarf_Die die;

		if ((f->flags & (IF_INLINED | IF_NOENTRY)) || fnmatch(glob, name, 0) != 0 ||
		    (n && strcmp(v[n - 1].name, name + strlen(TRACEITER)) == 0))
			continue;
		system = trace_system(dw, name + strlen(TRACEITER),
				      f->decl_file ? istr(dw, f->decl_file) : NULL);
		if (system_glob && fnmatch(system_glob, system, 0) != 0)
			continue;
		if (!dwarf_offdie(dw->dwarf, f->die, &die))
			continue;
		if (n == cap) {
			cap *= 2;
			v = xrealloc(v, cap * sizeof(*v));
		}
		memset(&v[n], 0, sizeof(v[n]));
		v[n].system = system;
		v[n].name = name + strlen(TRACEITER);
		tracepoint_args(dw, &die, &v[n]);
		n++;
	}
	*out = v;
	return n;
}

/* ---- declarations found by address, without the index ---- */

/* a parameter's type as C spells it ("const char*", "long unsigned
 * int"): qualifiers other than const and typedefs' targets left out */
static char *die_type_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Die t;
	const char *name;

	if (!dwarf_attr_integrate(die, DW_AT_type, &attr) || !dwarf_formref_die(&attr, &t))
		return xstrdup("void");
	name = dwarf_diename(&t);
	switch (dwarf_tag(&t)) {
	case DW_TAG_pointer_type:
		return xasprintf("%s*", die_type_name(&t));
	case DW_TAG_const_type:
		return xasprintf("const %s", die_type_name(&t));
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
		return die_type_name(&t);
	case DW_TAG_structure_type:
		return xasprintf("struct %s", name ? name : "?");
	case DW_TAG_union_type:
		return xasprintf("union %s", name ? name : "?");
	case DW_TAG_enumeration_type:
		return xasprintf("enum %s", name ? name : "?");
	default:
		return xstrdup(name ? name : "long");
	}
}

/* the addresses of the function symbols named sym[0..n) (0: none) */
static uint64_t *symbol_addresses(Elf *elf, int n, const char *const *sym)
{
	uint64_t *addrs = xalloc((n + 1) * sizeof(*addrs));
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			break;
	if (!scn)
		return addrs;
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t nsyms = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;

	for (size_t k = 0; data && k < nsyms; k++) {
		GElf_Sym s;
		const char *name;

		if (!gelf_getsym(data, (int)k, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
		    !(name = elf_strptr(elf, sh.sh_link, s.st_name)))
			continue;
		for (int i = 0; i < n; i++)
			if (strcmp(name, sym[i]) == 0)
				addrs[i] = s.st_value;
	}
	return addrs;
}

/* the parameters of the function named fn declared at the top of a CU;
 * -1 when it declares none of that name */
static int params_in_cu(Dwarf_Die *cu, const char *fn, struct dw_param **out)
{
	Dwarf_Die d, param;
	int n = 0;

	*out = NULL;
	if (dwarf_child(cu, &d) != 0)
		return -1;
	do {
		const char *name = dwarf_diename(&d);

		if (dwarf_tag(&d) != DW_TAG_subprogram || !name || strcmp(name, fn) != 0)
			continue;
		if (dwarf_child(&d, &param) == 0)
			do {
				if (dwarf_tag(&param) != DW_TAG_formal_parameter)
					continue;
				*out = xrealloc(*out, (n + 1) * sizeof(**out));
				(*out)[n].name = dwarf_diename(&param) ?
						 xstrdup(dwarf_diename(&param)) : NULL;
				(*out)[n++].type = die_type_name(&param);
			} while (dwarf_siblingof(&param, &param) == 0);
		return n;
	} while (dwarf_siblingof(&d, &d) == 0);
	return -1;
}

bool dw_params_by_symbol(const char *path, int n, const char *const *sym,
			 const char *const *decl, struct dw_param **params, int *nparams)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Dwarf *dw = fd >= 0 ? dwarf_begin(fd, DWARF_C_READ) : NULL;
	uint64_t *addrs;

	if (!dw) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	addrs = symbol_addresses(dwarf_getelf(dw), n, sym);
	for (int i = 0; i < n; i++) {
		Dwarf_Die cu;

		params[i] = NULL;
		nparams[i] = addrs[i] && dwarf_addrdie(dw, addrs[i], &cu) ?
			     params_in_cu(&cu, decl[i], &params[i]) : -1;
	}
	xfree(addrs);
	dwarf_end(dw);
	close(fd);
	return true;
}
