/* cfi.c - a program's or library's unwind table, from its DWARF CFI
 * (ubacktrace() and the rest, runtime/ustack.h).
 *
 * Debian builds without frame pointers, so a user stack is only walked
 * by the call frame information: .eh_frame, which every x86-64 ELF file
 * carries for C++ exceptions and cancellation, else .debug_frame of the
 * file or its debug file. libdw evaluates the CIE/FDE programs; what the
 * module gets is the result, row by row: from a file offset on, the CFA
 * is rsp or rbp plus a constant, the return address is saved at CFA + N,
 * and rbp is unchanged or saved at CFA + M. Rows the runtime cannot
 * follow (a CFA by expression, as in the PLT; a return address
 * "undefined", as in _start) are stop rows, and so are the gaps between
 * FDEs. Equal neighbours are merged.
 *
 * The FDEs' starts come from .eh_frame_hdr's sorted table, and the
 * function symbols' addresses for .debug_frame (which has no index);
 * from each start the rows follow one another by dwarf_frame_info()'s
 * end address until the FDE ends.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../ktap.h"
#include "../target.h"

#define REG_RBP 6
#define REG_RSP 7

struct cfi_rows {
	struct program_cfi_row *v;	/* link-time addresses until the end */
	int n, cap;
};

static void rows_push(struct cfi_rows *r, const struct program_cfi_row *row)
{
	if (r->n) {
		struct program_cfi_row *last = &r->v[r->n - 1];

		if (last->cfa_reg == row->cfa_reg && last->cfa_off == row->cfa_off &&
		    last->ra_off == row->ra_off && last->rbp_off == row->rbp_off &&
		    last->end == row->start) {
			last->end = row->end;
			return;
		}
	}
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 1024;
		r->v = xrealloc(r->v, r->cap * sizeof(*r->v));
	}
	r->v[r->n++] = *row;
}

/* the CFA as reg + off: DW_OP_bregN off or DW_OP_bregx reg off */
static bool cfa_rule(Dwarf_Frame *f, int *reg, int64_t *off)
{
	Dwarf_Op *ops;
	size_t n;

	if (dwarf_frame_cfa(f, &ops, &n) != 0 || n != 1)
		return false;
	if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		*reg = ops[0].atom - DW_OP_breg0;
		*off = (int64_t)ops[0].number;
	} else if (ops[0].atom == DW_OP_bregx) {
		*reg = (int)ops[0].number;
		*off = (int64_t)ops[0].number2;
	} else {
		return false;
	}
	return *reg == REG_RSP || *reg == REG_RBP;
}

enum reg_where { REG_SAME, REG_AT_CFA, REG_LOST };

/* where the caller's regno is: unchanged, in memory at CFA + *off, or
 * somewhere the runtime does not look */
static enum reg_where reg_rule(Dwarf_Frame *f, int regno, int64_t *off)
{
	Dwarf_Op mem[3], *ops;
	size_t n;

	if (dwarf_frame_register(f, regno, mem, &ops, &n) != 0)
		return REG_LOST;
	if (n == 0)
		return ops ? REG_LOST : REG_SAME;	/* undefined : same value */
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return REG_LOST;
	*off = 0;
	if (n == 1)
		return REG_AT_CFA;
	if (n == 2 && ops[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[1].number;
		return REG_AT_CFA;
	}
	return REG_LOST;	/* a value, not a place (DW_OP_stack_value) */
}

/* the row libdw gives for [start, end) */
static void frame_row(Dwarf_Frame *f, int ra_reg, struct program_cfi_row *row)
{
	int64_t off = 0, ra_off = 0, rbp_off = 0;
	int reg;
	enum reg_where rbp;

	row->cfa_reg = -1;
	if (!cfa_rule(f, &reg, &off) || reg_rule(f, ra_reg, &ra_off) != REG_AT_CFA ||
	    ra_off < -128 || ra_off > 127 || off < INT32_MIN || off > INT32_MAX)
		return;
	rbp = reg_rule(f, REG_RBP, &rbp_off);
	if (rbp == REG_AT_CFA && (rbp_off < -128 || rbp_off > 127 || rbp_off == 0))
		rbp = REG_LOST;
	row->cfa_reg = reg;
	row->cfa_off = off;
	row->ra_off = ra_off;
	row->rbp_off = rbp == REG_SAME ? 0 : rbp == REG_AT_CFA ? rbp_off
					   : PROGRAM_CFI_RBP_LOST;
}

/* the rows of the FDE that covers seed, from seed on; its end */
static uint64_t walk_fde(Dwarf_CFI *cfi, uint64_t seed, struct cfi_rows *r)
{
	uint64_t pc = seed;
	int guard = 0;

	while (guard++ < 100000) {
		Dwarf_Frame *f = NULL;
		Dwarf_Addr start, end;
		struct program_cfi_row row = { 0 };
		int ra_reg;

		if (dwarf_cfi_addrframe(cfi, pc, &f) != 0)
			break;
		ra_reg = dwarf_frame_info(f, &start, &end, NULL);
		if (ra_reg < 0 || end <= pc) {
			free(f);
			break;
		}
		frame_row(f, ra_reg, &row);
		row.start = pc;
		row.end = end;
		free(f);
		rows_push(r, &row);
		pc = end;
	}
	return pc;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static Elf_Scn *section_named(Elf *e, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(e, scn))) {
		const char *n;

		if (gelf_getshdr(scn, sh) && (n = elf_strptr(e, shstrndx, sh->sh_name)) &&
		    strcmp(n, name) == 0)
			return scn;
	}
	return NULL;
}

/*
 * The FDEs' initial locations from .eh_frame_hdr: version 1, then the
 * encodings of eh_frame_ptr, fde_count and the table. Only the one
 * every x86-64 linker writes is read: pcrel sdata4, udata4, and
 * datarel sdata4 pairs (datarel: from the section's start).
 */
static int hdr_seeds(Elf *e, uint64_t **out)
{
	GElf_Shdr sh;
	Elf_Scn *scn = section_named(e, ".eh_frame_hdr", &sh);
	Elf_Data *d = scn && sh.sh_type == SHT_PROGBITS ? elf_getdata(scn, NULL) : NULL;
	const unsigned char *p = d ? d->d_buf : NULL;
	uint32_t count;
	int32_t pair[2];

	if (!p || d->d_size < 12 || p[0] != 1 || p[1] != 0x1b || p[2] != 0x03 || p[3] != 0x3b)
		return 0;
	memcpy(&count, p + 8, 4);
	if (12 + (uint64_t)count * 8 > d->d_size)
		return 0;
	*out = xalloc((count + 1) * sizeof(**out));
	for (uint32_t i = 0; i < count; i++) {
		memcpy(pair, p + 12 + 8 * i, 8);
		(*out)[i] = sh.sh_addr + (int64_t)pair[0];
	}
	return (int)count;
}

/* where FDEs may start when there is no index: the functions */
static int symbol_seeds(const struct target *t, uint64_t **out)
{
	struct program_symbol *syms;
	int n = target_program_functions(t, "*", &syms);

	*out = xalloc((n + 1) * sizeof(**out));
	for (int i = 0; i < n; i++)
		(*out)[i] = syms[i].addr;
	return n;
}

static void walk_seeds(Dwarf_CFI *cfi, uint64_t *seeds, int n, struct cfi_rows *r)
{
	uint64_t done = 0;

	qsort(seeds, n, sizeof(*seeds), u64_cmp);
	for (int i = 0; i < n; i++)
		if (seeds[i] >= done)
			done = walk_fde(cfi, seeds[i], r);
}

/* the rows of one ELF file's .eh_frame (eh) or .debug_frame */
static void file_rows(const struct target *t, const char *path, bool eh, struct cfi_rows *r)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *e = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Dwarf *dw = NULL;
	Dwarf_CFI *cfi = NULL;
	uint64_t *seeds = NULL;
	int n = 0;

	if (e && eh) {
		cfi = dwarf_getcfi_elf(e);
		n = hdr_seeds(e, &seeds);
	} else if (e && (dw = dwarf_begin_elf(e, DWARF_C_READ, NULL))) {
		cfi = dwarf_getcfi(dw);
	}
	if (cfi && !n)
		n = symbol_seeds(t, &seeds);
	if (cfi)
		walk_seeds(cfi, seeds, n, r);
	if (cfi && eh)
		dwarf_cfi_end(cfi);
	if (dw)
		dwarf_end(dw);
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	free(seeds);
}

/* link-time ranges to file offsets, a stop row in every gap */
static int to_offsets(const struct target *t, const struct cfi_rows *r,
		      struct program_cfi_row **out)
{
	struct cfi_rows o = { 0 };

	for (int i = 0; i < r->n; i++) {
		struct program_cfi_row row = r->v[i];
		uint64_t start, end;

		if (!target_file_offset(t, row.start, &start) ||
		    !target_file_offset(t, row.end - 1, &end))
			continue;
		row.start = start;
		row.end = end + 1;
		if (o.n && o.v[o.n - 1].end < row.start) {
			struct program_cfi_row gap = { .start = o.v[o.n - 1].end,
						       .end = row.start, .cfa_reg = -1 };

			rows_push(&o, &gap);
		}
		rows_push(&o, &row);
	}
	*out = o.v;
	return o.n;
}

int target_program_cfi(struct target *t, struct program_cfi_row **out)
{
	struct cfi_rows r = { 0 };
	const char *debug;
	char *why = NULL;

	elf_version(EV_CURRENT);
	file_rows(t, t->image, true, &r);
	if (!r.n)
		file_rows(t, t->image, false, &r);
	if (!r.n && (debug = target_debug_file(t, &why)) && strcmp(debug, t->image) != 0)
		file_rows(t, debug, false, &r);
	*out = NULL;
	return r.n ? to_offsets(t, &r, out) : 0;
}
