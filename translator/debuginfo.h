/* debuginfo.h - what the traced kernel's debuginfo says: functions, their
 * variables, C types, source lines, tracepoints.
 *
 * Two readers fill the same structures: libdw.c (elfutils libdw/libdwfl,
 * the kernel's DWARF, indexed once per build-id into the cache) and btf.c
 * (libbpf, the kernel's BTF: function entries and parameters only, for
 * when there is no DWARF). Each reads the file it is given: which file
 * describes the kernel or a module is the target's (target.h), which
 * opens them on first use. probes/function.c and probes/trace.c turn
 * their answers into probe points; tvar.c compiles $var->field chains
 * over the types.
 *
 * Every string and structure returned is allocated with xalloc() and lives
 * until the process ends (the translator is short-lived).
 */
#ifndef KTAP_DEBUGINFO_H
#define KTAP_DEBUGINFO_H

#include <stdbool.h>
#include <stdint.h>

/* ---- C types ---- */

enum ctype_kind {
	CT_VOID,
	CT_INT,		/* char, short, int, long, bool, _Bool, ... */
	CT_ENUM,
	CT_FLOAT,
	CT_POINTER,
	CT_ARRAY,
	CT_STRUCT,
	CT_UNION,
	CT_FUNC,
};

struct ctype;

/* one member of a struct or union */
struct ctype_member {
	const char *name;	/* NULL: an anonymous struct/union, whose members
				 * are found through it */
	struct ctype *type;
	uint64_t offset;	/* bytes from the start of the outer type */
	int bit_offset;		/* bitfields: bits from the start of the outer
				 * type (absolute, DWARF 5 style); else 0 */
	int bit_size;		/* 0 unless a bitfield */
};

/* one enumerator, for $var$ pretty-printing */
struct ctype_enumerator {
	const char *name;
	int64_t value;
};

/*
 * A C type. Typedefs and cv-qualifiers are looked through: kind, size and
 * the rest describe the underlying type, while name keeps the spelling a
 * user knows ("size_t", "struct file*", "const char*", "loff_t*").
 */
struct ctype {
	enum ctype_kind kind;
	const char *name;
	uint64_t size;		/* bytes; 0 when unknown (void, incomplete) */
	bool is_signed;		/* CT_INT, CT_ENUM */
	bool is_char;		/* CT_INT of char kind: char*, char[] read as strings */
	struct ctype *target;	/* CT_POINTER: the pointee (NULL: void);
				 * CT_ARRAY: the element; CT_FUNC: return type */
	uint64_t nelems;	/* CT_ARRAY: number of elements, 0 if unknown */
	/* CT_STRUCT, CT_UNION: call ctype_members() rather than reading these */
	struct ctype_member *members;
	int nmembers;
	/* CT_ENUM */
	struct ctype_enumerator *enumerators;
	int nenumerators;
	/* the provider's, for loading members on first use */
	bool members_loaded;
	void (*load_members)(struct ctype *t);
	uint64_t provider_ref;	/* e.g. a DIE offset or a BTF type id */
	void *provider;		/* the provider's handle behind provider_ref
				 * (libdw.c: the struct dw, one per module) */
};

/* the members of a struct or union (loaded on first use by its provider's
 * load_members); 0 for others (libdw.c) */
int ctype_members(struct ctype *t, struct ctype_member **members);

/* ---- variables ---- */

/*
 * A variable as C that a probe handler can evaluate. The handler's context
 * pointer is named `c` (struct ktap_context *, runtime/context.h), and the
 * C uses only these runtime helpers (runtime/target.h):
 *   ktap_reg(c, N)                  the DWARF x86-64 register N at the probe
 *                                    (0 rax, 1 rdx, 2 rcx, 3 rbx, 4 rsi,
 *                                    5 rdi, 6 rbp, 7 rsp, 8-15 r8-r15,
 *                                    16 rip), as unsigned long
 *   ktap_kread(c, ADDR, SIZE)       SIZE (1, 2, 4, 8) bytes of kernel memory
 *                                    at ADDR, zero-extended to unsigned long;
 *                                    a fault sets c->error and gives 0
 *   c->tp_args[N]                   tracepoint argument N (probes/trace.c)
 *   c->retval                       the return value in a .return probe
 * Both expressions are unsigned long valued and free of side effects other
 * than the error on a fault.
 */
struct cvar {
	const char *name;		/* without the '$' */
	struct ctype *type;
	bool is_param;
	const char *value_c;		/* the value, if it fits in 8 bytes and
					 * can be computed; else NULL */
	const char *addr_c;		/* its kernel address, if it lives in
					 * memory; else NULL */
	const char *unavailable;	/* set when neither is known: why,
					 * e.g. "optimized out at this address" */
	/* the same, as data, where the C is a plain register or address:
	 * for what is decided on them (a guru store writes the register) */
	bool in_reg;			/* the value is DWARF register reg at */
	int reg;			/* the probe: value_c is CVAR_REG_C of it */
	uint64_t static_addr;		/* a global's fixed address, which addr_c
					 * spells; 0: none */
	/* a string the probe itself holds (procfs $value), not kernel data:
	 * C that reads it into the string temporary "\1S", and that assigns
	 * or appends the string "\1V" (no guru mode needed); else NULL */
	const char *str_read_c, *str_store_c, *str_append_c;
};

/* the C of DWARF register N at the probe, as value_c says it */
#define CVAR_REG_C "ktap_reg(c, %d)"

/* ---- functions ---- */

/* one probe-able instance of a kernel function */
struct kfunc {
	const char *name;
	const char *decl_file;		/* path as in the DWARF, or NULL */
	int decl_line;			/* 0 if unknown */
	uint64_t addr;			/* where the probe goes */
	const char *symbol;		/* ELF symbol that contains addr ("MODULE:
					 * SYMBOL" in a loadable module, as
					 * kprobes look it up) ... */
	uint64_t offset;		/* ... and addr's offset in it (kprobes
					 * take symbol+offset: KASLR-proof) */
	bool inlined;			/* an inlined copy: no .return */
	bool exported;			/* EXPORT_SYMBOL'd */
	struct ctype *return_type;	/* NULL: void (or, from libdw.c, not
					 * looked up yet: dw_return_type()) */
	uint64_t return_ref;		/* libdw.c: its DIE, for dw_return_type */
	uint64_t provider_ref;		/* the provider's (e.g. DIE offsets) */
	uint64_t provider_ref2;
};

/* ---- libdw.c: the kernel's DWARF through libdw ----
 * Which file to open is the target's to say (target.h: target_dwarf()).
 */

struct dw;

/*
 * Open the DWARF of a kernel's debug vmlinux at path, whose GNU build-id
 * (hex) is build_id: the function index is built on first use for a
 * build-id and kept in ktap_cache_dir()/dwarf/BUILDID/. NULL with *why
 * untouched when the file's DWARF cannot be read; NULL with *why set when
 * the index cannot be made.
 */
struct dw *dw_open(const char *path, const char *build_id, char **why);
const char *dw_path(const struct dw *dw);	/* the file in use */

/* the same for a program or shared library (user-space probes): its
 * variables' C reads memory with ktap_uread(c, ADDR, SIZE), the user-space
 * ktap_kread(); dyn (a PIE or library): its statics are unavailable */
struct dw *dw_open_user(const char *path, const char *build_id, bool dyn, char **why);

/*
 * Open the DWARF of a loadable module (module: "9p", "virtio_ring") from
 * its debug .ko at path (ET_REL, relocated through libdwfl), indexed per
 * build-id like the kernel's. Its functions' symbols are "MODULE:SYMBOL".
 * Module globals (DW_OP_addr) are reported unavailable: their address is
 * known only once the module is loaded. NULL with *why set on failure.
 */
struct dw *dw_open_module(const char *path, const char *module, const char *build_id,
			  char **why);
const char *dw_module(const struct dw *dw);	/* NULL for the kernel */

/*
 * Why no instance of the function named `name` can be probed although the
 * DWARF knows it (a declaration without a body: written in assembly or
 * in no CU with debuginfo; inlined everywhere with no copy left; a body
 * whose entry address cannot be determined); NULL when the DWARF does
 * not know the name or it has probe-able instances.
 */
const char *dw_function_without_entry(struct dw *dw, const char *name);

/*
 * The function instances whose name matches name_glob (fnmatch), and whose
 * declaring file matches file_glob when that is not NULL. Inlined copies
 * are included when want_inlined, out-of-line bodies when want_outline.
 * Sorted by name, then address. Returns the count; *out is xalloc'd.
 */
int dw_functions(struct dw *dw, const char *name_glob, const char *file_glob,
		 bool want_outline, bool want_inlined, struct kfunc **out);

/*
 * The variables visible at pc inside function instance f: parameters
 * first (in declaration order), then locals of the scopes that contain pc
 * (innermost first; a name shadowed by an inner scope appears once).
 */
int dw_variables(struct dw *dw, const struct kfunc *f, uint64_t pc,
		 struct cvar **out);

/* what f returns (NULL: void); dw_functions() leaves it to this, so
 * listing every function does not read every return type's DWARF */
struct ctype *dw_return_type(struct dw *dw, const struct kfunc *f);

/* a struct, union, enum or typedef by name: "task_struct",
 * "struct task_struct", "union thread_union", "pid_t"; NULL if unknown */
struct ctype *dw_type_named(struct dw *dw, const char *name);

/* a global variable (@var("jiffies")): its address as C in addr_c */
bool dw_global(struct dw *dw, const char *name, struct cvar *out);

/*
 * Addresses of the line-table rows that begin statements of function f at
 * lines [first, last] of its file (or any file matching file_glob when not
 * NULL); one address per line (the lowest). Returns the count; *lines
 * gets the line of each.
 */
int dw_statements(struct dw *dw, const struct kfunc *f, const char *file_glob,
		  int first, int last, uint64_t **addrs, int **lines);

/* ---- declarations found by address (libdw.c), without the index ---- */

struct dw_param {
	const char *name;		/* NULL: unnamed */
	const char *type;		/* as C spells it: "const char*", "long
					 * unsigned int" (typedefs kept) */
};

/*
 * In the debug file at path, for each i < n: the parameters of the
 * function named decl[i] declared at the top of the CU that holds the
 * address of the function symbol sym[i]; nparams[i] is their count, -1
 * when there is no such symbol or declaration. Reads those CUs only
 * (.debug_aranges): milliseconds, where the index takes seconds (for
 * syscalls.c: __do_sys_NAME in __x64_sys_NAME's CU). False when the
 * file's DWARF cannot be read.
 */
bool dw_params_by_symbol(const char *path, int n, const char *const *sym,
			 const char *const *decl, struct dw_param **params, int *nparams);

/* ---- tracepoints (libdw.c: from __traceiter_NAME's prototype) ---- */

struct ktracepoint {
	const char *system;		/* "sched" (the trace/events header) */
	const char *name;		/* "sched_switch" */
	int nargs;
	struct cvar *args;		/* value_c = "c->tp_args[i]" */
};

int dw_tracepoints(struct dw *dw, const char *system_glob,
		   const char *name_glob, struct ktracepoint **out);

/* ---- btf.c: the kernel's BTF through libbpf (no DWARF needed) ---- */

struct btf_kernel;

/* the BTF of the ELF image at path (its .BTF section), or of a raw BTF
 * file (elf false: /sys/kernel/btf/vmlinux); function addresses from
 * system_map (NULL: they stay 0). Which file is the target's to say
 * (target.h: target_btf()). NULL with *err ("PATH: why") on failure */
struct btf_kernel *btfk_open(const char *path, bool elf, const char *system_map,
			     char **err);

/* out-of-line functions only (BTF knows no inline copies); addr is 0 and
 * symbol = name, offset = 0 */
int btfk_functions(struct btf_kernel *b, const char *name_glob,
		   struct kfunc **out);

/* a function's parameters at its entry: value_c = ktap_reg(c, N) by the
 * x86-64 calling convention (rdi, rsi, rdx, rcx, r8, r9) */
int btfk_parameters(struct btf_kernel *b, const struct kfunc *f,
		    struct cvar **out);

struct ctype *btfk_type_named(struct btf_kernel *b, const char *name);

/* the system of a tracepoint ("sched"), read from the image's event_NAME
 * (trace_event_call -> class -> system); NULL when the image or its
 * System.map is not at hand (the running kernel's BTF) */
const char *btfk_tracepoint_system(struct btf_kernel *b, const char *name);

#endif
