/* ktap.h - the translator's table of contents.
 *
 * Pipeline order: util → diag → lexer → parser → resolve → probes/ →
 * emit → build → run (local or vm). Each section declares what one file
 * exports; the prefix of a name tells its owner. What is probed (the
 * kernel, a module, a program) is target.h's, which every pass asks;
 * pass 2's own interface is resolve.h and program.h, the debuginfo's
 * debuginfo.h.
 */
#ifndef KTAP_H
#define KTAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ast.h"

#define KTAP_VERSION "0.1"

/* ---- util.c: memory, strings, files ---- */

void *xalloc(size_t size);			/* zeroed; exits on failure */
void *xrealloc(void *p, size_t size);
void xfree(void *p);				/* for blocks from x...() */
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *read_whole_file(const char *path, size_t *len);	/* NULL + errno */
/* a kernel module name ktap makes files of: [A-Za-z0-9_], 1..55 bytes
 * (the kernel's MODULE_NAME_LEN less its NUL) */
#define KTAP_MODULE_NAME_MAX 55
bool is_module_name(const char *name);
void remove_tree(const char *path);		/* rm -rf; errors ignored */
double now_seconds(void);			/* monotonic */
/* a step that may take more than two seconds says what it does, one
 * line on stderr ("ktap: building ..."), unless -q */
extern bool progress_quiet;
void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void note_line(bool shown, const char *fmt, va_list ap);
const char *ktap_cache_dir(void);	/* $KTAP_CACHE, else ~/.cache/ktap */
long peak_rss_kb(void);
void arena_begin(void);		/* record every allocation from here on */
void arena_release(void);	/* free them all (the fuzzer, per input) */

/* a growable string, for emitters and printers */
struct strbuf {
	char *buf;
	size_t len, cap;
};
void sb_putc(struct strbuf *sb, char c);
void sb_puts(struct strbuf *sb, const char *s);
void sb_printf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- sha256.c: SHA-256, for the cache's keys ---- */

#define SHA256_HEX_LEN 64
struct sha256 {
	uint32_t h[8];
	uint64_t len;
	unsigned char buf[64];
	size_t nbuf;
};
void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final_hex(struct sha256 *s, char hex[SHA256_HEX_LEN + 1]);
bool sha256_file_hex(const char *path, char hex[SHA256_HEX_LEN + 1]);	/* false: unreadable */

/* ---- diag.c: errors and warnings that point at the script ----
 * "file:line:col: error: message", the source line, a caret under the
 * column. Every error is counted; passes keep going to report them all.
 */
void diag_error(const struct srcloc *loc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void diag_warning(const struct srcloc *loc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void diag_note(const struct srcloc *loc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int diag_error_count(void);
void diag_reset(void);				/* count from zero again */
/* true if asked before for this place and what (a group of messages said
 * once, however often an alias expands the body) */
bool diag_said_before(const struct srcloc *loc, const char *what);
void diag_set_stream(FILE *f);			/* default stderr */
const char *diag_messages(void);		/* all said so far ("" if none), for
						 * the cache to say again on a hit */
extern bool diag_no_warnings;			/* -w */
extern bool diag_warnings_are_errors;		/* -W */
const char *diag_closest(const char *word, const char *const *candidates,
			 int n);			/* "did you mean" */

/* ---- lexer.c / parser.c / print.c: pass 1 ---- */

struct source *source_from_file(const char *path);	/* NULL on error */
struct source *source_from_string(const char *name, const char *text);
struct file *parse_source(struct source *src);	/* errors go to diag */
void print_file(FILE *out, const struct file *f);	/* -p1 canonical form */
void print_probe_point(FILE *out, const struct probe_point *pp);
char *print_stmt_text(const struct stmt *s);	/* malloc'd; NULL on failure */

/* ---- resolve.c: pass 2 ---- */

struct options;
struct program;
struct program *resolve_program(struct file *user, struct options *opt);
void print_resolved(FILE *out, const struct program *prog);	/* -p2 */

/* ---- probes/probes.c: the providers' points, for -l and -L ---- */

void print_probe_list(FILE *out, const struct program *prog,
		      bool with_vars);				/* -l, -L */

/* ---- emit.c: pass 3 ---- */

/* the C file of a script, and what pass 4 must know of it */
struct unit {
	char *c;			/* the file */
	const char *module_name;	/* its KTAP_MODULE_NAME */
	bool light;			/* it compiles with -DKTAP_LIGHT too, against
					 * runtime/api.h (doc/internals.md, 1f) */
	char *defines;			/* its #define lines the runtime sees (-D,
					 * KTAP_NEED_VARIANCE): the prebuilt object
					 * is compiled with the same */
	const char **prebuilt;		/* the prebuilt object's functions a light */
	int nprebuilt;			/* build calls (ktapt_NAME_HASH) */
};
struct unit *emit_program(const struct program *prog, const struct options *opt);

/* ---- build.c: pass 4 ---- */

int build_module(const struct unit *u, const struct options *opt, char **ko_path);

/* ---- cache.c: built modules, keyed by everything that shapes them ----
 * ${KTAP_CACHE:-~/.cache/ktap}/modules/<key>/{manifest,NAME.ko}. A hit
 * skips passes 1-4. NULL caches are allowed everywhere (not in use).
 */
struct cache;
struct cache *cache_open(const struct options *opt);	/* NULL: not in use */
int cache_fetch(struct cache *c, const struct options *opt,
		char **ko_path);	/* 1 hit (-p4: copied here), 0 miss, -1 error */
void cache_store(struct cache *c, const char *ko, const struct program *prog);
int cache_clean(const struct options *opt);		/* --clean-cache */
char *cache_private_dir(const char *name, bool create);	/* <cache>/NAME, checked private; NULL + warning */

/* ---- run.c: pass 5 ---- */

int run_local(const char *ko_path, const struct options *opt);
int run_detached_cmd(const struct options *opt);	/* -A, --stop, --running */
char *detached_cmd_line(const struct options *opt);	/* ... as ktap-run options */
const char *script_about(const struct options *opt);	/* what -F runs, for --running */
const char *local_run_refusal(void);	/* NULL when modules can load here */
char **ktap_run_argv(const char *loader, const char *ko,
		     const struct options *opt, bool with_output_file);

/* ---- footprint.c: the kernel memory a module asks for ---- */
struct program;
/* pass 3: the .modinfo string of the memory the module allocates at load */
char *footprint_modinfo(const struct program *prog, const struct options *opt);
/* before loading: false, after one message with the numbers, when the
 * module needs more memory than the target (the guest with --vm) has */
bool footprint_check(const char *ko, const struct options *opt);

/* ---- vm.c: pass 5 in the ktap guest ---- */

int vm_run(const char *ko_path, const struct options *opt);
/* the guest's memory free for modules (bytes) and its CPUs */
unsigned long long vm_guest_memory(int *ncpus);
int vm_command(const char *what, const struct options *opt);	/* setup/start/stop/status */
int vm_exec(const char *command, const struct options *opt);	/* --vm-exec */
int vm_detached_cmd(const struct options *opt);	/* --vm -A, --stop, --running */
const char *vm_kernel_release(const struct options *opt);	/* its ABI, e.g. 6.1.0-57-amd64 */

/* ---- main.c: options ---- */

struct options {
	const char *script_file;	/* NULL with -e */
	const char *script_text;	/* -e */
	char **script_args;		/* after the script */
	int nscript_args;
	int last_pass;			/* -p, 5 = run */
	int verbose;			/* -v count */
	bool keep_build;		/* -k */
	bool guru;			/* -g */
	bool vm;			/* --vm */
	bool trace_loader;		/* --trace-loader */
	bool json;			/* --json: ktap-run -j */
	const char *release;		/* -r */
	const char *output_file;	/* -o */
	const char *command;		/* -c */
	long target_pid;		/* -x, 0 = none */
	const char *module_name;	/* -m */
	int buffer_mb;			/* -s */
	long time_limit;		/* -T SECONDS, 0 = none */
	char **defines;			/* -D NAME=VAL */
	int ndefines;
	char **include_dirs;		/* -I */
	int ninclude_dirs;
	const char *data_dir;		/* where runtime/, tapsets/, guest/ live */
	bool no_cache;			/* --disable-cache */
	bool clean_cache;		/* --clean-cache */
	const char *list_points;	/* -l / -L POINT */
	bool list_vars;			/* -L */
	bool unoptimized;		/* -u: no elision */
	bool timing;			/* -t: a report of each probe's hits and cycles */
	bool bulk;			/* -b: accepted; the relay is per-CPU already */
	const char *compatible;		/* --compatible=VERSION: systemtap_v */
	bool suppress_time_limits;	/* --suppress-time-limits (guru) */
	bool all_modules;		/* --all-modules */
	bool ldd;			/* --ldd */
	char **symbol_modules;		/* -d MODULE|PATH */
	int nsymbol_modules;
	bool skip_badvars;		/* --skip-badvars: bad $vars read 0 */
	const char *prologue_searching;	/* -P / --prologue-searching[=WHEN] */
	char **global_settings;		/* -G NAME=VALUE, checked in pass 2 */
	int nglobal_settings;
	/* long runs (ktap-run's loader/detach.c does the work) */
	bool detach;			/* -F: flight recorder, detached */
	const char *rotate;		/* -S MB[,N] */
	char detached_cmd;		/* 'A' -A NAME, 'X' --stop NAME, 'R' --running */
	const char *detached_name;
	bool force;			/* --force: --vm-stop with scripts running */
};

#endif
