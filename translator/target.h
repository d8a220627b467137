/* target.h - what is probed: the kernel, one of its loadable modules, or
 * (for user-space probes) a program or shared library.
 *
 * One struct target per thing probed. Every pass asks it: pass 1 for the
 * release and .config its %( conditions test, pass 2 for the System.map,
 * the system call headers and the debuginfo, pass 4 for the build tree,
 * the module cache for the build-id. Nothing else finds a build tree,
 * reads a build-id or decides which file's DWARF or BTF describes the
 * kernel: the debuginfo is opened through the target on first use (with
 * libdw.c and btf.c, which read the files they are given) and kept by
 * build-id.
 *
 * Strings and structures live until the process ends, like the rest of
 * the translator's; target_select() starts afresh (the fuzzer frees every
 * allocation between its inputs).
 */
#ifndef KTAP_TARGET_H
#define KTAP_TARGET_H

#include <stdbool.h>
#include <stdint.h>

struct options;
struct dw;
struct btf_kernel;

enum target_kind {
	TARGET_KERNEL,
	TARGET_MODULE,		/* a loadable module of ->kernel */
	TARGET_PROGRAM,		/* an ELF program or shared library (uprobes) */
};

/* how the kernel was chosen */
enum target_origin {
	TARGET_RUNNING,		/* this machine's: no -r, no --vm */
	TARGET_RELEASE,		/* -r RELEASE */
	TARGET_TREE,		/* -r BUILD_DIR */
	TARGET_GUEST,		/* --vm: the ktap guest's */
};

struct target;
struct program_image;
struct source;			/* ast.h */
struct target_debuginfo;	/* the handles, opened once (target-private.h) */

/* the words of the target's maker (kernel.c; program.c) for what is missing */
struct target_ops {
	/* a debug file at path of another build (its build-id: id, or NULL) */
	char *(*mismatch_why)(const struct target *t, const char *path, const char *id);
	/* no debug file: the candidates looked at, and a mismatch's words */
	char *(*no_debug_why)(const struct target *t, const char *looked, const char *mismatch);
};

struct target {
	enum target_kind kind;
	const char *name;	/* "kernel"; a module's as the kernel spells it
				 * ("virtio_ring"); a program's path */
	struct target *kernel;	/* a module's kernel; NULL otherwise */
	const char *release;	/* the kernel's (a module's: its kernel's);
				 * NULL when not known */

	/* The ELF file that runs, when it is at hand, and its GNU build-id
	 * (hex): the guest's bootable image, this machine's running kernel
	 * (no file; /sys/kernel/notes), a module's .ko in the guest's image,
	 * the program itself. The debug file must have the same build-id. */
	const char *image;
	const char *build_id;

	/* where the debug file is looked for, in order (kernel_debug_files(),
	 * module_debug_files()); a program's is the program, or what its
	 * .gnu_debuglink or build-id names */
	const char **debug_candidates;
	int ndebug_candidates;

	/* ---- the kernel ---- */
	enum target_origin origin;
	const char *vm_dir;	/* the ktap guest's cache of this release, or NULL */
	bool this_machine;	/* the release this machine runs */
	const char *system_map;	/* NULL: none readable */
	const char *config;	/* its .config, for %( CONFIG_... %) */
	const char *build_dir;	/* target_build_dir()'s answer, once asked */
	bool build_dir_asked;
	bool tree_checked;	/* -r DIR was checked complete (tree_complete()) */

	/* ---- a program (TARGET_PROGRAM) ---- */
	const char *load_path;	/* the file as the module's machine names it
				 * (--vm: under the guest's KTAP_HOSTROOT) */
	struct program_image *prog;	/* what its ELF file says (program.c) */
	bool dyn;		/* ET_DYN (a PIE or library): statics move */

	const struct target_ops *ops;
	struct target_debuginfo *di;
};

/* ---- target/kernel.c: the kernel and its modules ---- */

/* the kernel of -r RELEASE|BUILD_DIR, else --vm's, else this machine's;
 * main.c calls this before pass 1 (the fuzzer before each input) */
void target_select(const struct options *opt);
struct target *target_kernel(void);	/* the selected kernel; made on first call */
struct target *target_guest(void);	/* the ktap guest's kernel, which runs --vm */

/* the kernel's build tree (kbuild, headers, Module.symvers); NULL after
 * saying on stderr, once, which package to install */
const char *target_build_dir(struct target *k);
/* the source headers (include/linux/...) of a build tree: Debian's
 * linux-headers-REL-common that its Makefile includes, or the tree */
const char *target_source_dir(const char *build_dir);

/*
 * What the module cache keys a kernel by and checks a cached module
 * against (doc/internals.md, section 5): the guest's ABI and the
 * build-id of its image ("vm"), else the build tree's UTS_RELEASE and a
 * hash of its .config, Module.symvers and utsrelease.h ("tree"). False
 * when the kernel has none (no build tree, no build-id).
 */
struct target_identity {
	const char *kind;	/* "vm" or "tree" */
	const char *release;
	const char *id;
};
bool target_identity(struct target *k, struct target_identity *out);
char *target_tree_id(const char *build_dir);	/* the "tree" hash of a build tree */

/* the value of a kernel's config option as its .config spells it ("y",
 * "250", "\"...\""), NULL when unset or without a .config */
const char *target_config_value(struct target *k, const char *name);
/* the kernel's CONFIG_HZ (timer.jiffies, timer.profile); 0 with why set
 * when its .config does not say */
long target_hz(struct target *k, char **why);

/* a loadable module of kernel k ("9p"; '-' and '_' are the same), made on
 * first use: its debug .ko is looked for in the guest's modules-dbg/ and
 * /usr/lib/debug/lib/modules/REL/ */
struct target *target_module(struct target *k, const char *name);

/* the names of k's modules, sorted: every module k has (modules.dep of
 * the guest's image, else /lib/modules/REL), or, with_debuginfo, those
 * whose debug .ko target_module() would find */
int target_module_names(struct target *k, bool with_debuginfo, const char ***names);

/* the kernel's BTF (btf.c): the guest's image's, or this machine's own
 * (/sys/kernel/btf/vmlinux) for the kernel it runs; opened on the first
 * call; NULL with *why (why may be NULL) */
struct btf_kernel *target_btf(struct target *k, char **why);

/* ---- target/kprobe_refusal.c ---- */

/* why kernel k refuses a kprobe at symbol+offset (.init.text, its kprobe
 * blacklist), or NULL: no reason known */
const char *target_kprobe_refusal(struct target *k, const char *symbol, uint64_t offset);

/* ---- target/ftrace_sites.c ---- */

/* the link-time address of the ftrace site of the kernel function whose
 * entry is func (a link-time address), or 0 when ftrace has none there
 * (notrace, no fentry call) or k's sites are not known */
uint64_t target_ftrace_site(struct target *k, uint64_t func);
/* whether k's ftrace sites are known (its image or debug file has them) */
bool target_ftrace_sites_known(struct target *k);

/* ---- target/program.c: programs and shared libraries (uprobes) ---- */

/* the program or library NAME (absolute, else looked up in $PATH, a
 * libNAME.so... also in the library directories; symbolic links
 * followed), made on first use; NULL with *why */
struct target *target_program(const char *name, char **why);

/* a function of the ELF symbol table (.symtab, else .dynsym) */
struct program_symbol {
	const char *name;
	uint64_t addr;		/* link-time address */
	uint64_t size;
};
/* those whose name matches glob, sorted by name; the count */
int target_program_functions(const struct target *t, const char *glob,
			     struct program_symbol **out);

/* an SDT marker (.note.stapsdt, <sys/sdt.h>) */
struct program_mark {
	const char *provider, *name;
	const char *args;	/* "8@%rdi -4@-20(%rbp)": size@operand each */
	uint64_t addr;		/* link-time address of the marker */
	uint64_t semaphore;	/* link-time address of its semaphore, 0: none */
};
int target_program_marks(const struct target *t, const char *provider_glob,
			 const char *name_glob, struct program_mark **out);

/* the file offset of a link-time address (uprobes take inode+offset) */
bool target_file_offset(const struct target *t, uint64_t addr, uint64_t *off);
bool target_program_has_symtab(const struct target *t);	/* not stripped */
/* the file's bytes as a source the module cache re-hashes; NULL: unreadable */
struct source *target_file_source(struct target *t);

/* the libraries t names in DT_NEEDED (--ldd), found in the library
 * directories; those not found are left out */
int target_program_needed(struct target *t, struct target ***out);

/* ---- target/cfi.c: a program's unwind table (ubacktrace()) ---- */

/*
 * One row of the table: at file offsets [start, end) the caller's frame
 * is found as CFA = (cfa_reg: 7 rsp, 6 rbp) + cfa_off, its return
 * address at CFA + ra_off, its rbp unchanged (rbp_off 0), at CFA +
 * rbp_off, or lost (PROGRAM_CFI_RBP_LOST). cfa_reg -1: a stop row, the
 * runtime cannot unwind from there.
 */
#define PROGRAM_CFI_RBP_LOST 127
struct program_cfi_row {
	uint64_t start, end;
	int cfa_reg;
	int64_t cfa_off;
	int ra_off, rbp_off;
};
/* t's rows from its .eh_frame (else .debug_frame, its own or its debug
 * file's), sorted, without gaps between the first and the last; the
 * count (0: t has no CFI) */
int target_program_cfi(struct target *t, struct program_cfi_row **out);

/* ---- target/target.c: what every kind of target has ---- */

/* the GNU build-id of an ELF file, in hex; NULL if it has none */
char *target_build_id_of(const char *path);

/* the running kernel's build-id, from /sys/kernel/notes; NULL if unknown */
char *target_running_build_id(void);

/*
 * The file whose DWARF describes t: the first of its debug candidates
 * that is readable and has t's build-id (any, when t's is not known).
 * NULL with *why set (naming what to install) when there is none or
 * KTAP_DEBUGINFO turns the DWARF off. Does not open the DWARF, nor ask
 * debuginfod.
 */
const char *target_debug_file(struct target *t, char **why);

/* t's DWARF (libdw.c), its index built once per build-id: from the debug
 * file, else from debuginfod (DEBUGINFOD_URLS) by build-id. Opened on
 * the first call; NULL with *why (why may be NULL) */
struct dw *target_dwarf(struct target *t, char **why);

/* the address of the kernel's symbol name as its System.map gives it
 * (the image's link address: KASLR moves it at boot), 0 when k has no
 * System.map or no such symbol (kernel.c) */
unsigned long long target_symbol_address(struct target *k, const char *name);


#endif
