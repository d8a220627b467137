/* btf.c - the kernel's functions, parameters and C types from its BTF
 * (libbpf), for when there is no DWARF.
 *
 * BTF knows every out-of-line function's prototype and every type, but no
 * locations: a parameter is found by the x86-64 calling convention, so it
 * is only right at the function's entry. Types become struct ctype on
 * first use, one per BTF type id; the members of structs and unions are
 * loaded when someone asks for them (ctype_members()).
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <gelf.h>

#include "debuginfo.h"
#include "ktap.h"

/* a function symbol's link-time address, from System.map */
struct ksym {
	const char *name;
	uint64_t addr;
	bool ambiguous;		/* several text symbols have this name */
};

struct btf_kernel {
	struct btf *btf;
	const char *path;		/* where the BTF came from */
	const char *system_map;		/* NULL: addresses stay 0 */
	struct ctype **types;		/* by BTF type id, made on first use */
	uint32_t ntypes;
	struct ksym *syms;		/* a hash table, loaded on first use */
	size_t nslots;			/* a power of two; 0: no System.map */
	bool syms_loaded;
	Elf *image;			/* path as ELF, for its data; NULL: none */
	bool image_tried;
};

/* the btf_kernel behind a struct ctype's load_members: one per process is
 * enough (the translator looks at one kernel) */
static struct btf_kernel *members_source;

static struct ctype *btfk_ctype(struct btf_kernel *b, uint32_t id);

/* ---- opening ---- */

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt,
			va_list args)
{
	(void)level, (void)fmt, (void)args;
	return 0;
}

/* libbpf's own messages are turned off: a failure is reported in *why */
static struct btf *parse_btf_file(const char *path, bool elf, char **err)
{
	libbpf_print_fn_t old = libbpf_set_print(libbpf_quiet);
	struct btf *btf = elf ? btf__parse_elf(path, NULL) : btf__parse_raw(path);
	int saved_errno = errno;

	libbpf_set_print(old);
	if (btf)
		return btf;
	if (elf && saved_errno == ENOENT && access(path, R_OK) == 0)
		*err = xasprintf("%s: no .BTF section", path);
	else
		*err = xasprintf("%s: %s", path, strerror(saved_errno));
	return NULL;
}

struct btf_kernel *btfk_open(const char *path, bool elf, const char *system_map,
			     char **err)
{
	struct btf_kernel *b = xalloc(sizeof(*b));

	b->btf = parse_btf_file(path, elf, err);
	if (!b->btf) {
		xfree(b);
		return NULL;
	}
	b->path = path;
	b->system_map = system_map;
	b->ntypes = btf__type_cnt(b->btf);
	b->types = xalloc(b->ntypes * sizeof(*b->types));
	members_source = b;
	return b;
}

/* ---- System.map: addresses and exports ---- */

/* text symbols, __ksymtab_ entries (which say "exported") and the trace
 * events (event_NAME: which system a tracepoint is in) */
static bool wanted_symbol(char type, const char *name)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W' ||
	       strncmp(name, "__ksymtab_", 10) == 0 || strncmp(name, "event_", 6) == 0;
}

static size_t name_hash(const char *s)
{
	size_t h = 14695981039346656037ULL;	/* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

/* the slot of name: its entry, or the empty slot where it would go */
static struct ksym *symbol_slot(struct btf_kernel *b, const char *name)
{
	size_t i = name_hash(name) & (b->nslots - 1);

	while (b->syms[i].name && strcmp(b->syms[i].name, name) != 0)
		i = (i + 1) & (b->nslots - 1);
	return &b->syms[i];
}

/* one name, one entry: a name with several addresses is ambiguous */
static void add_symbol(struct btf_kernel *b, const char *name, uint64_t addr)
{
	struct ksym *k = symbol_slot(b, name);

	if (k->name) {
		k->ambiguous |= k->addr != addr;
		return;
	}
	*k = (struct ksym){ name, addr, false };
}

/* room for every line of text in a table at most half full */
static size_t table_size(const char *text)
{
	size_t lines = 0, n = 1024;

	for (; (text = strchr(text, '\n')); text++)
		lines++;
	while (n < 2 * lines)
		n *= 2;
	return n;
}

/* "ffffffff813669e0 T vfs_read" lines, split in place (the file's text is
 * kept: names point into it) */
static void read_system_map(struct btf_kernel *b, char *text)
{
	char *line, *next;

	b->nslots = table_size(text);
	b->syms = xalloc(b->nslots * sizeof(*b->syms));
	for (line = text; *line; line = next) {
		char *end;
		uint64_t addr = strtoull(line, &end, 16);

		next = strchrnul(line, '\n');
		if (*next)
			*next++ = '\0';
		if (end[0] == ' ' && end[1] && end[2] == ' ' &&
		    wanted_symbol(end[1], end + 3))
			add_symbol(b, end + 3, addr);
	}
}

static void load_symbols(struct btf_kernel *b)
{
	char *text;

	b->syms_loaded = true;
	if (b->system_map && (text = read_whole_file(b->system_map, NULL)))
		read_system_map(b, text);
}

static const struct ksym *find_symbol(struct btf_kernel *b, const char *name)
{
	struct ksym *k;

	if (!b->syms_loaded)
		load_symbols(b);
	if (!b->nslots)
		return NULL;
	k = symbol_slot(b, name);
	return k->name ? k : NULL;
}

/* ---- type names as a C programmer writes them ---- */

static const char *btf_name(struct btf_kernel *b, uint32_t name_off)
{
	const char *s = btf__name_by_offset(b->btf, name_off);

	return s && *s ? s : NULL;
}

static char *type_spelling(struct btf_kernel *b, uint32_t id);

/* "struct file", "union {...}", "enum pid_type" */
static char *tagged_spelling(const char *tag, const char *name)
{
	return name ? xasprintf("%s %s", tag, name) : xasprintf("%s {...}", tag);
}

/* "int (struct file*, char*)"; a pointer to it reads "int (*)(...)" */
static char *proto_spelling(struct btf_kernel *b, const struct btf_type *t,
			    bool pointer)
{
	const struct btf_param *p = btf_params(t);
	struct strbuf sb = { 0 };
	int i, n = btf_vlen(t);

	sb_printf(&sb, "%s %s(", type_spelling(b, t->type), pointer ? "(*)" : "");
	for (i = 0; i < n; i++) {
		if (i)
			sb_puts(&sb, ", ");
		sb_puts(&sb, p[i].type ? type_spelling(b, p[i].type) : "...");
	}
	sb_puts(&sb, n ? ")" : "void)");
	return sb.buf;
}

/* qualifiers go before the base type ("const char*") and after a pointer
 * ("char* const") */
static char *qualified_spelling(struct btf_kernel *b, const char *qual,
				uint32_t target)
{
	const struct btf_type *t = btf__type_by_id(b->btf, target);

	if (t && btf_is_ptr(t))
		return xasprintf("%s %s", type_spelling(b, target), qual);
	return xasprintf("%s %s", qual, type_spelling(b, target));
}

static char *pointer_spelling(struct btf_kernel *b, uint32_t target)
{
	const struct btf_type *t = btf__type_by_id(b->btf, target);

	if (t && btf_is_func_proto(t))
		return proto_spelling(b, t, true);
	return xasprintf("%s*", type_spelling(b, target));
}

/* "int[2][3]": the outer dimension first, as declared */
static char *array_spelling(struct btf_kernel *b, const struct btf_type *t)
{
	struct strbuf dims = { 0 };

	for (;;) {
		const struct btf_type *elem = btf__type_by_id(b->btf, btf_array(t)->type);

		sb_printf(&dims, "[%u]", btf_array(t)->nelems);
		if (!elem || !btf_is_array(elem))
			break;
		t = elem;
	}
	return xasprintf("%s%s", type_spelling(b, btf_array(t)->type), dims.buf);
}

static char *type_spelling(struct btf_kernel *b, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(b->btf, id);
	const char *name;

	if (!id || !t)
		return xstrdup("void");
	name = btf_name(b, t->name_off);
	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT:
		return tagged_spelling("struct", name);
	case BTF_KIND_UNION:
		return tagged_spelling("union", name);
	case BTF_KIND_FWD:
		return tagged_spelling(btf_kflag(t) ? "union" : "struct", name);
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		return tagged_spelling("enum", name);
	case BTF_KIND_PTR:
		return pointer_spelling(b, t->type);
	case BTF_KIND_ARRAY:
		return array_spelling(b, t);
	case BTF_KIND_CONST:
		return qualified_spelling(b, "const", t->type);
	case BTF_KIND_VOLATILE:
		return qualified_spelling(b, "volatile", t->type);
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:		/* __user and friends: not C */
		return type_spelling(b, t->type);
	case BTF_KIND_FUNC_PROTO:
		return proto_spelling(b, t, false);
	default:			/* int, float, typedef */
		return xstrdup(name ? name : "?");
	}
}

/* ---- struct ctype ---- */

/* the id under typedefs, qualifiers and type tags (0: void) */
static uint32_t skip_aliases(struct btf_kernel *b, uint32_t id)
{
	const struct btf_type *t;

	while (id && (t = btf__type_by_id(b->btf, id)) &&
	       (btf_is_typedef(t) || btf_is_mod(t) || btf_is_type_tag(t)))
		id = t->type;
	return id;
}

/* a forward declaration stands for the complete type of that name, if the
 * BTF has one */
static uint32_t complete_type(struct btf_kernel *b, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(b->btf, id);
	const char *name;
	int full;

	if (!t || !btf_is_fwd(t) || !(name = btf_name(b, t->name_off)))
		return id;
	full = btf__find_by_name_kind(b->btf, name,
				      btf_kflag(t) ? BTF_KIND_UNION : BTF_KIND_STRUCT);
	return full > 0 ? (uint32_t)full : id;
}

static bool is_char_name(const char *name)
{
	return name && (!strcmp(name, "char") || !strcmp(name, "signed char") ||
			!strcmp(name, "unsigned char"));
}

static void fill_int(struct btf_kernel *b, struct ctype *c,
		     const struct btf_type *t)
{
	c->kind = CT_INT;
	c->size = t->size;
	c->is_signed = btf_int_encoding(t) & BTF_INT_SIGNED;
	c->is_char = is_char_name(btf_name(b, t->name_off));
}

static void fill_enum(struct btf_kernel *b, struct ctype *c,
		      const struct btf_type *t)
{
	int i, n = btf_vlen(t);

	c->kind = CT_ENUM;
	c->size = t->size;
	c->is_signed = btf_kflag(t);	/* BTF's "signed enum" flag */
	c->nenumerators = n;
	c->enumerators = xalloc((n ? n : 1) * sizeof(*c->enumerators));
	for (i = 0; i < n; i++) {
		struct ctype_enumerator *e = &c->enumerators[i];

		if (btf_is_enum64(t)) {
			e->name = btf_name(b, btf_enum64(t)[i].name_off);
			e->value = (int64_t)btf_enum64_value(&btf_enum64(t)[i]);
		} else {
			e->name = btf_name(b, btf_enum(t)[i].name_off);
			e->value = c->is_signed ? (int64_t)btf_enum(t)[i].val :
				   (int64_t)(uint32_t)btf_enum(t)[i].val;
		}
		c->is_signed |= e->value < 0;
	}
}

static void load_btf_members(struct ctype *c);

static void fill_composite(struct ctype *c, const struct btf_type *t,
			   uint32_t id)
{
	c->kind = btf_is_union(t) ? CT_UNION : CT_STRUCT;
	c->size = btf_is_fwd(t) ? 0 : t->size;	/* incomplete: no members */
	c->members_loaded = btf_is_fwd(t);
	c->load_members = load_btf_members;
	c->provider_ref = id;
}

/* kind, size and the rest from the underlying type `id` */
static void fill_ctype(struct btf_kernel *b, struct ctype *c, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(b->btf, id);

	if (!id || !t) {
		c->kind = CT_VOID;
		return;
	}
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		fill_int(b, c, t);
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		fill_enum(b, c, t);
		break;
	case BTF_KIND_FLOAT:
		c->kind = CT_FLOAT;
		c->size = t->size;
		c->is_signed = true;
		break;
	case BTF_KIND_PTR:
		c->kind = CT_POINTER;
		c->size = sizeof(uint64_t);	/* x86-64 */
		c->target = skip_aliases(b, t->type) ? btfk_ctype(b, t->type) : NULL;
		break;
	case BTF_KIND_ARRAY:
		c->kind = CT_ARRAY;
		c->target = btfk_ctype(b, btf_array(t)->type);
		c->nelems = btf_array(t)->nelems;
		c->size = c->target->size * c->nelems;
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_FWD:
		fill_composite(c, t, id);
		break;
	case BTF_KIND_FUNC_PROTO:
		c->kind = CT_FUNC;
		c->target = t->type ? btfk_ctype(b, t->type) : NULL;
		break;
	default:
		c->kind = CT_VOID;
	}
}

/* the ctype of BTF type `id`, made once; named by id's own spelling */
static struct ctype *btfk_ctype(struct btf_kernel *b, uint32_t id)
{
	struct ctype *c;

	if (id >= b->ntypes)
		id = 0;
	if (b->types[id])
		return b->types[id];
	/* cached before filling: the target of a pointer may lead back here */
	c = b->types[id] = xalloc(sizeof(*c));
	c->name = type_spelling(b, id);
	fill_ctype(b, c, complete_type(b, skip_aliases(b, id)));
	return c;
}

/* a bitfield's offset is the aligned storage unit of its type when the
 * field lies within one (as libdw.c gives it), else the byte it starts in */
static void place_bitfield(struct ctype_member *cm, uint32_t bit)
{
	uint64_t unit = cm->type->size * 8;

	cm->bit_offset = (int)bit;
	if (unit && bit / unit == (bit + cm->bit_size - 1) / unit)
		cm->offset = bit / unit * cm->type->size;
}

/* ctype.load_members for BTF structs and unions */
static void load_btf_members(struct ctype *c)
{
	struct btf_kernel *b = members_source;
	const struct btf_type *t = btf__type_by_id(b->btf, c->provider_ref);
	const struct btf_member *m = btf_members(t);
	int i, n = btf_vlen(t);

	c->nmembers = n;
	c->members = xalloc((n ? n : 1) * sizeof(*c->members));
	for (i = 0; i < n; i++) {
		struct ctype_member *cm = &c->members[i];
		uint32_t bit = btf_member_bit_offset(t, i);

		cm->name = btf_name(b, m[i].name_off);
		cm->type = btfk_ctype(b, m[i].type);
		cm->offset = bit / 8;
		cm->bit_size = btf_member_bitfield_size(t, i);
		if (cm->bit_size)
			place_bitfield(cm, bit);
	}
}

struct ctype *btfk_type_named(struct btf_kernel *b, const char *name)
{
	static const struct {
		const char *prefix;
		int kinds[5];
	} forms[] = {
		{ "struct ", { BTF_KIND_STRUCT } },
		{ "union ", { BTF_KIND_UNION } },
		{ "enum ", { BTF_KIND_ENUM, BTF_KIND_ENUM64 } },
		{ "", { BTF_KIND_STRUCT, BTF_KIND_UNION, BTF_KIND_TYPEDEF,
			BTF_KIND_ENUM, BTF_KIND_ENUM64 } },
	};
	size_t i, k, len;

	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		len = strlen(forms[i].prefix);
		if (strncmp(name, forms[i].prefix, len) != 0)
			continue;
		for (k = 0; k < 5 && forms[i].kinds[k]; k++) {
			int id = btf__find_by_name_kind(b->btf, name + len,
							forms[i].kinds[k]);
			if (id > 0)
				return btfk_ctype(b, id);
		}
		return NULL;
	}
	return NULL;
}

/* ---- functions ---- */

static int compare_kfuncs(const void *a, const void *b)
{
	return strcmp(((const struct kfunc *)a)->name, ((const struct kfunc *)b)->name);
}

static struct kfunc make_kfunc(struct btf_kernel *b, uint32_t id,
			       const char *name)
{
	const struct btf_type *proto = btf__type_by_id(b->btf,
						       btf__type_by_id(b->btf, id)->type);
	const struct ksym *sym = find_symbol(b, name);
	char ksymtab[300];
	struct kfunc f = {
		.name = name,
		.symbol = name,
		.provider_ref = id,
	};

	if (sym && !sym->ambiguous)
		f.addr = sym->addr;
	snprintf(ksymtab, sizeof(ksymtab), "__ksymtab_%s", name);
	f.exported = find_symbol(b, ksymtab) != NULL;
	if (proto && proto->type)
		f.return_type = btfk_ctype(b, proto->type);
	return f;
}

/*
 * BTF has one FUNC per name and prototype; two static functions with the
 * same name and different prototypes appear twice. Their probe point would
 * be the same symbol name, so the first one stands for both.
 */
static int drop_duplicate_names(struct kfunc *v, int n)
{
	int i, kept = 0;

	for (i = 0; i < n; i++)
		if (!kept || strcmp(v[kept - 1].name, v[i].name) != 0)
			v[kept++] = v[i];
	return kept;
}

int btfk_functions(struct btf_kernel *b, const char *name_glob,
		   struct kfunc **out)
{
	struct kfunc *v = NULL;
	int n = 0, cap = 0;
	uint32_t id;

	for (id = 1; id < b->ntypes; id++) {
		const struct btf_type *t = btf__type_by_id(b->btf, id);
		const char *name;

		if (!btf_is_func(t) || !(name = btf_name(b, t->name_off)) ||
		    fnmatch(name_glob, name, 0) != 0)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			v = xrealloc(v, cap * sizeof(*v));
		}
		v[n++] = make_kfunc(b, id, name);
	}
	if (n > 1) {
		qsort(v, n, sizeof(*v), compare_kfuncs);
		n = drop_duplicate_names(v, n);
	}
	*out = v;
	return n;
}

/* ---- parameters by the x86-64 calling convention ---- */

/* the DWARF numbers of rdi, rsi, rdx, rcx, r8, r9: integer arguments 1-6 */
static const int arg_regs[] = { 5, 4, 1, 2, 8, 9 };
#define NARG_REGS ((int)(sizeof(arg_regs) / sizeof(arg_regs[0])))

/* the FUNC_PROTO of f: by its id when that still names it, else by name */
static const struct btf_type *function_proto(struct btf_kernel *b,
					     const struct kfunc *f)
{
	const struct btf_type *t = NULL;
	int id = (int)f->provider_ref;

	if (id > 0 && (uint32_t)id < b->ntypes)
		t = btf__type_by_id(b->btf, id);
	if (!t || !btf_is_func(t) || !btf_name(b, t->name_off) ||
	    strcmp(btf_name(b, t->name_off), f->name) != 0) {
		id = btf__find_by_name_kind(b->btf, f->name, BTF_KIND_FUNC);
		if (id <= 0)
			return NULL;
		t = btf__type_by_id(b->btf, id);
	}
	return btf__type_by_id(b->btf, t->type);
}

/*
 * Where one parameter is, given the integer registers used so far
 * (*next_reg). SysV classes every kernel type as INTEGER (no floats in the
 * kernel) or MEMORY: up to 16 bytes take one or two registers when that
 * many are left, larger ones go on the stack. Only one-register scalars
 * get a value here; the others only move *next_reg.
 */
static void place_parameter(struct cvar *v, int *next_reg)
{
	const struct ctype *t = v->type;
	int regs = t->size <= 8 ? 1 : 2;

	if (t->kind == CT_FLOAT) {
		v->unavailable = "a floating-point parameter (passed in an SSE register)";
		return;
	}
	if (t->size > 16 || t->size == 0 || *next_reg + regs > NARG_REGS) {
		v->unavailable = t->size == 0 ? "a parameter of unknown size" :
			"passed on the stack (BTF gives no stack offsets)";
		return;
	}
	*next_reg += regs;
	if (t->kind == CT_STRUCT || t->kind == CT_UNION)
		v->unavailable = "a struct passed by value (in registers, with no address)";
	else if (regs == 2)
		v->unavailable = "a 16-byte parameter (split over two registers)";
	else {
		v->in_reg = true;
		v->reg = arg_regs[*next_reg - 1];
		v->value_c = xasprintf(CVAR_REG_C, v->reg);
	}
}

/* a struct over 16 bytes is returned through memory the caller provides:
 * its address is a hidden first argument, in rdi */
static int returns_in_memory(struct btf_kernel *b, const struct btf_type *proto)
{
	const struct ctype *ret = proto->type ? btfk_ctype(b, proto->type) : NULL;

	return ret && (ret->kind == CT_STRUCT || ret->kind == CT_UNION) &&
	       ret->size > 16;
}

int btfk_parameters(struct btf_kernel *b, const struct kfunc *f,
		    struct cvar **out)
{
	const struct btf_type *proto = function_proto(b, f);
	const struct btf_param *p;
	int i, n, kept = 0, next_reg;

	*out = NULL;
	if (!proto || !btf_is_func_proto(proto))
		return 0;
	p = btf_params(proto);
	n = btf_vlen(proto);
	next_reg = returns_in_memory(b, proto);
	*out = xalloc((n ? n : 1) * sizeof(**out));
	for (i = 0; i < n; i++) {
		struct cvar *v = &(*out)[kept];

		if (!p[i].type)		/* "...": nothing to name */
			continue;
		v->name = btf_name(b, p[i].name_off);
		if (!v->name)
			v->name = xasprintf("arg%d", i + 1);
		v->type = btfk_ctype(b, p[i].type);
		v->is_param = true;
		place_parameter(v, &next_reg);
		kept++;
	}
	return kept;
}

/* ---- the image's data: tracepoint systems ---- */

/* len bytes of the kernel image at virtual address addr (the data the
 * image was built with, before boot) */
static bool image_read(struct btf_kernel *b, uint64_t addr, void *dst, size_t len)
{
	Elf_Scn *scn = NULL;
	int fd;

	if (!b->image_tried) {
		b->image_tried = true;
		elf_version(EV_CURRENT);
		fd = open(b->path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			b->image = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		if (b->image && elf_kind(b->image) != ELF_K_ELF) {
			elf_end(b->image);
			b->image = NULL;
		}
	}
	while (b->image && (scn = elf_nextscn(b->image, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    addr < sh.sh_addr || addr + len > sh.sh_addr + sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || addr - sh.sh_addr + len > d->d_size)
			return false;
		memcpy(dst, (const char *)d->d_buf + (addr - sh.sh_addr), len);
		return true;
	}
	return false;
}

/* the byte offset of member name in struct sname, or -1 */
static long member_offset(struct btf_kernel *b, const char *sname, const char *name)
{
	int id = btf__find_by_name_kind(b->btf, sname, BTF_KIND_STRUCT);
	const struct btf_type *t = id > 0 ? btf__type_by_id(b->btf, id) : NULL;
	const struct btf_member *m;
	int i;

	for (i = 0, m = t ? btf_members(t) : NULL; t && i < btf_vlen(t); i++, m++)
		if (strcmp(btf__name_by_offset(b->btf, m->name_off), name) == 0)
			return (long)(btf_member_bit_offset(t, i) / 8);
	return -1;
}

const char *btfk_tracepoint_system(struct btf_kernel *b, const char *name)
{
	long class_off = member_offset(b, "trace_event_call", "class");
	long system_off = member_offset(b, "trace_event_class", "system");
	const struct ksym *ev = find_symbol(b, xasprintf("event_%s", name));
	uint64_t class_ptr, system_ptr;
	char system[64] = { 0 };

	if (class_off < 0 || system_off < 0 || !ev || ev->ambiguous ||
	    !image_read(b, ev->addr + class_off, &class_ptr, 8) ||
	    !image_read(b, class_ptr + system_off, &system_ptr, 8))
		return NULL;
	/* the string may end near the end of its section: read it short */
	for (size_t n = sizeof(system) - 1; n > 0; n /= 2)
		if (image_read(b, system_ptr, system, n))
			break;
	system[sizeof(system) - 1] = '\0';
	return *system ? xstrdup(system) : NULL;
}
