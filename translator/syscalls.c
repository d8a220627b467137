/* syscalls.c - the target kernel's system call table, from its headers.
 *
 * Numbers and entry points come from the build tree's generated
 * arch/x86/include/generated/asm/syscalls_64.h (__SYSCALL(0, sys_read)),
 * the names users know from .../uapi/asm/unistd_64.h (__NR_stat is
 * sys_newstat), and parameter types and names from include/linux/syscalls.h
 * with its #ifdef CONFIG_ branches decided by the tree's .config; the few
 * calls it has no prototype for (mmap, arch_prctl, iopl, utime ...) get
 * theirs from the kernel's DWARF, when it is at hand (the target's debug
 * vmlinux, read by libdw.c). The tree and its headers are the target's
 * (target.h). From
 * that, syscalls_tapset_dir() writes the syscall.NAME aliases into the
 * cache, one file per call, where resolve.c loads them like any tapset
 * file. The files are made again only when the headers or ktap change.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"
#include "program.h"
#include "cachefile.h"
#include "debuginfo.h"
#include "target.h"
#include "sysdoc.h"

#define MAX_SYSCALL_ARGS 6

struct sc_param {
	char *type;		/* "const char __user *" */
	char *name;		/* "filename", or "argN" when unnamed */
};

struct syscall_info {
	char *name;		/* "stat" */
	int nr;
	char *entry;		/* "sys_newstat" */
	int nparams;
	struct sc_param params[MAX_SYSCALL_ARGS];
	bool has_prototype;
};

struct syscall_table {
	struct syscall_info *calls;
	int n;
	char *errno_text;	/* the errno and signal headers, for names */
	char *signal_text;
	char *arch_prctl_text;	/* x86's asm/prctl.h: arch_prctl's options */
};

/* ---- the tree's headers and .config ---- */

static bool config_set(const char *config, const char *name)
{
	char *needle = xasprintf("\n%s=", name);

	/* syscalls.h hides its prototypes from architectures with syscall
	 * wrappers (x86_64) because the calling convention differs; the
	 * prototypes still say what the arguments are, which is all we want */
	if (strcmp(name, "CONFIG_ARCH_HAS_SYSCALL_WRAPPER") == 0)
		return false;
	return config && strstr(config, needle) != NULL;
}

/* ---- parsing ---- */

#define MAX_SYSCALL_NR 1024

/* the names after "__NR_" in unistd_64.h, by number */
static char **uapi_names(const char *unistd)
{
	char **names = xalloc(MAX_SYSCALL_NR * sizeof(*names));
	const char *p = unistd;
	char name[128];
	int nr;

	while ((p = strstr(p, "#define __NR_"))) {
		if (sscanf(p, "#define __NR_%127s %d", name, &nr) == 2 && nr >= 0 &&
		    nr < MAX_SYSCALL_NR && !names[nr])
			names[nr] = xstrdup(name);
		p++;
	}
	return names;
}

static void add_call(struct syscall_table *t, int nr, const char *entry,
		     char **names)
{
	struct syscall_info *c;
	const char *name = nr >= 0 && nr < MAX_SYSCALL_NR ? names[nr] : NULL;

	t->calls = xrealloc(t->calls, (t->n + 1) * sizeof(*t->calls));
	c = &t->calls[t->n++];
	memset(c, 0, sizeof(*c));
	c->nr = nr;
	c->entry = xstrdup(entry);
	c->name = name ? xstrdup(name) :
		  xstrdup(strncmp(entry, "sys_", 4) == 0 ? entry + 4 : entry);
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static bool is_type_word(const char *w)
{
	static const char *const words[] = { "int", "long", "char", "short",
		"unsigned", "signed", "void", "u32", "u64", "size_t", "pid_t",
		"umode_t", "off_t", "loff_t", "key_serial_t", "uid_t", "gid_t",
		"qid_t", "timer_t", "rwf_t", "clockid_t", "aio_context_t", "__u64",
		"__u32", "old_uid_t", "old_gid_t", "mqd_t", "__kernel_old_time_t" };
	size_t k;

	for (k = 0; k < sizeof(words) / sizeof(words[0]); k++)
		if (strcmp(w, words[k]) == 0)
			return true;
	return false;
}

/* "const char __user * filename" -> type and name; "unsigned long" or
 * "struct stat __user *" have no name: argN */
static void split_param(char *text, int i, struct sc_param *p)
{
	char *s = trim(text), *end = s + strlen(s), *w = end, *before;
	bool named;

	while (w > s && (isalnum((unsigned char)w[-1]) || w[-1] == '_'))
		w--;
	before = trim(xstrndup(s, (size_t)(w - s)));
	named = *w && *before && !is_type_word(w) &&
		(before[strlen(before) - 1] == '*' ||
		 (strcmp(before, "struct") != 0 && strcmp(before, "union") != 0 &&
		  strcmp(before, "enum") != 0 && strcmp(before, "const struct") != 0));
	if (named) {
		p->name = xstrdup(w);
		p->type = before;
	} else {
		p->type = xstrdup(s);
		p->name = xasprintf("arg%d", i + 1);
	}
}

/* the parameter list of "asmlinkage long sys_NAME(...);" */
static void parse_prototype(struct syscall_info *c, char *params)
{
	char *save = NULL, *tok;
	int i = 0;

	if (strcmp(trim(params), "void") == 0) {
		c->has_prototype = true;
		return;
	}
	for (tok = strtok_r(params, ",", &save); tok && i < MAX_SYSCALL_ARGS;
	     tok = strtok_r(NULL, ",", &save))
		split_param(tok, i++, &c->params[c->nparams++]);
	c->has_prototype = true;
}

static struct syscall_info *find_entry(struct syscall_table *t, const char *entry)
{
	int i;

	for (i = 0; i < t->n; i++)
		if (strcmp(t->calls[i].entry, entry) == 0 && !t->calls[i].has_prototype)
			return &t->calls[i];
	return NULL;
}

/* preprocessor conditions: #ifdef/#ifndef/#if defined(CONFIG_X) by the
 * tree's .config; any other #if counts as true */
struct cond_stack {
	bool live[32];
	bool taken[32];
	int depth;
};

static bool cond_live(const struct cond_stack *cs)
{
	int i;

	for (i = 0; i < cs->depth; i++)
		if (!cs->live[i])
			return false;
	return true;
}

static bool eval_condition(const char *line, const char *config)
{
	char name[128];

	if (sscanf(line, "#ifdef %127s", name) == 1)
		return config_set(config, name);
	if (sscanf(line, "#ifndef %127s", name) == 1)
		return !config_set(config, name);
	if (sscanf(line, "#if defined(%127[A-Za-z0-9_])", name) == 1 ||
	    sscanf(line, "#if defined %127[A-Za-z0-9_]", name) == 1)
		return config_set(config, name);
	if (sscanf(line, "#if !defined(%127[A-Za-z0-9_])", name) == 1)
		return !config_set(config, name);
	return true;
}

static bool preprocess_line(struct cond_stack *cs, const char *line, const char *config)
{
	while (*line == ' ' || *line == '\t')
		line++;
	if (strncmp(line, "#if", 3) == 0) {
		bool v = eval_condition(line, config);

		if (cs->depth < 32) {
			cs->live[cs->depth] = v;
			cs->taken[cs->depth] = v;
		}
		cs->depth++;
		return true;
	}
	if (strncmp(line, "#elif", 5) == 0 && cs->depth) {
		int d = cs->depth - 1;
		bool v = !cs->taken[d] && eval_condition(line + 2, config);

		cs->live[d] = v;
		cs->taken[d] = cs->taken[d] || v;
		return true;
	}
	if (strncmp(line, "#else", 5) == 0 && cs->depth) {
		int d = cs->depth - 1;

		cs->live[d] = !cs->taken[d];
		return true;
	}
	if (strncmp(line, "#endif", 6) == 0 && cs->depth) {
		cs->depth--;
		return true;
	}
	return line[0] == '#';
}

static void parse_prototypes(struct syscall_table *t, char *text, const char *config)
{
	struct cond_stack cs = { 0 };
	char *line = text, *next;

	for (; line && *line; line = next) {
		char *open, *close, *name;
		struct syscall_info *c;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (preprocess_line(&cs, line, config) || !cond_live(&cs))
			continue;
		if (!(name = strstr(line, " sys_")) || (strncmp(line, "asmlinkage long", 15) != 0 &&
							  strncmp(line, "long sys_", 9) != 0))
			continue;
		open = strchr(name, '(');
		if (!open)
			continue;
		/* the parameters may continue on the following lines */
		while (!(close = strchr(open, ')')) && next) {
			char *more = next;

			next = strchr(more, '\n');
			if (next)
				*next++ = '\0';
			line = xasprintf("%s %s", line, more);
			name = strstr(line, " sys_");
			open = strchr(name, '(');
		}
		if (!close)
			break;
		*open = '\0';
		*close = '\0';
		c = find_entry(t, trim(name));
		if (c)
			parse_prototype(c, open + 1);
	}
}

/* ---- prototypes the headers lack, from the kernel's DWARF ---- */

/* a DWARF base type as the headers spell it: "long unsigned int" is
 * "unsigned long"; a parameter that points is a user pointer ("const
 * char*" is "const char __user *"), as every pointer a system call is
 * passed is */
static char *header_spelling(const char *dwarf_name)
{
	static const char *const bases[][2] = {
		{ "long unsigned int", "unsigned long" }, { "long int", "long" },
		{ "long long unsigned int", "unsigned long long" },
		{ "long long int", "long long" }, { "short unsigned int", "unsigned short" },
		{ "short int", "short" },
	};
	size_t len = strlen(dwarf_name), i;

	if (len && dwarf_name[len - 1] == '*')
		return xasprintf("%s __user *", trim(xstrndup(dwarf_name, len - 1)));
	for (i = 0; i < sizeof(bases) / sizeof(bases[0]); i++)
		if (strcmp(dwarf_name, bases[i][0]) == 0)
			return xstrdup(bases[i][1]);
	return xstrdup(dwarf_name);
}

static void add_dwarf_param(struct syscall_info *c, const struct dw_param *param)
{
	struct sc_param *p;

	/* SYSCALL_DEFINE0's pt_regs *__unused is no argument */
	if (!param->name || strncmp(param->name, "__", 2) == 0 || c->nparams == MAX_SYSCALL_ARGS)
		return;
	p = &c->params[c->nparams++];
	p->name = xstrdup(param->name);
	p->type = header_spelling(param->type);
}

/* the target's debug vmlinux (target.h); NULL without one, or when
 * KTAP_DEBUGINFO turns the DWARF off */
static const char *debug_vmlinux(void)
{
	char *why;

	return target_debug_file(target_kernel(), &why);
}

/*
 * x86_64's SYSCALL_DEFINEn(NAME, type, arg, ...) declares __do_sys_NAME
 * with the declared types and names, inlined into __x64_sys_NAME (so the
 * DWARF keeps it, the BTF does not). A call whose prototype the headers
 * do not give (x86's own, or hidden behind an __ARCH_WANT_ macro) takes
 * its parameters from there: the CU holding __x64_sys_NAME's address
 * (.debug_aranges) declares __do_sys_NAME. Reading those few CUs takes
 * milliseconds, where the DWARF index (libdw.c) takes seconds to build.
 */
static void prototypes_from_dwarf(struct syscall_table *t)
{
	const char *path = debug_vmlinux();
	const char **sym = xalloc((t->n + 1) * sizeof(*sym)), **decl = xalloc((t->n + 1) * sizeof(*decl));
	struct syscall_info **calls = xalloc((t->n + 1) * sizeof(*calls));
	struct dw_param **params;
	int *nparams, n = 0;

	for (int i = 0; i < t->n; i++)
		if (!t->calls[i].has_prototype) {
			calls[n] = &t->calls[i];
			sym[n] = xasprintf("__x64_%s", t->calls[i].entry);
			decl[n++] = xasprintf("__do_%s", t->calls[i].entry);
		}
	params = xalloc((n + 1) * sizeof(*params));
	nparams = xalloc((n + 1) * sizeof(*nparams));
	if (!path || !n || !dw_params_by_symbol(path, n, sym, decl, params, nparams))
		return;
	for (int i = 0; i < n; i++) {
		if (nparams[i] < 0)
			continue;
		for (int j = 0; j < nparams[i]; j++)
			add_dwarf_param(calls[i], &params[i][j]);
		calls[i]->has_prototype = true;
	}
}

static struct syscall_table *load_table(const char *build)
{
	struct syscall_table *t = xalloc(sizeof(*t));
	char *sys64 = read_whole_file(xasprintf("%s/arch/x86/include/generated/asm/syscalls_64.h",
						build), NULL);
	char *unistd = read_whole_file(xasprintf("%s/arch/x86/include/generated/uapi/asm/unistd_64.h",
						 build), NULL);
	const char *src = target_source_dir(build);
	char *protos = read_whole_file(xasprintf("%s/include/linux/syscalls.h", src), NULL);
	char *config = read_whole_file(xasprintf("%s/.config", build), NULL);
	char *xprotos = read_whole_file(xasprintf("%s/arch/x86/include/asm/syscalls.h", src), NULL);
	const char *p;
	char **names;

	if (!sys64 || !unistd || !protos)
		return NULL;
	names = uapi_names(unistd);
	for (p = sys64; (p = strstr(p, "__SYSCALL(")); p++) {
		char entry[128];
		int nr;

		if (sscanf(p, "__SYSCALL(%d, %127[A-Za-z0-9_])", &nr, entry) == 2 &&
		    strcmp(entry, "sys_ni_syscall") != 0)
			add_call(t, nr, entry, names);
	}
	parse_prototypes(t, protos, config);
	if (xprotos)	/* x86's own, "long sys_mmap(...)" */
		parse_prototypes(t, xprotos, config);
	/* the uapi numbers and the kernel-internal ones (ERESTARTSYS 512...),
	 * from the target's own tree: what its return values mean */
	t->errno_text = xasprintf("%s\n%s\n%s",
		read_whole_file(xasprintf("%s/include/uapi/asm-generic/errno-base.h", src), NULL) ?: "",
		read_whole_file(xasprintf("%s/include/uapi/asm-generic/errno.h", src), NULL) ?: "",
		read_whole_file(xasprintf("%s/include/linux/errno.h", src), NULL) ?: "");
	t->signal_text = read_whole_file(xasprintf("%s/arch/x86/include/uapi/asm/signal.h", src),
					 NULL);
	t->arch_prctl_text = read_whole_file(xasprintf("%s/arch/x86/include/uapi/asm/prctl.h",
						       src), NULL);
	return t;
}

/* ---- the table for the target kernel ---- */

static struct syscall_table *table;
static bool table_tried;

static const struct syscall_table *syscall_table(const struct options *opt)
{
	const char *build;

	if (table_tried)
		return table;
	table_tried = true;
	build = opt->release || opt->vm ? target_build_dir(target_kernel()) : NULL;
	if (build)
		table = load_table(build);
	return table;
}

/* the table with the parameters the headers lack named from the DWARF:
 * what the tapset is written from (only then is the DWARF opened) */
static const struct syscall_table *syscall_table_named(const struct options *opt)
{
	static bool named;

	if (syscall_table(opt) && !named) {
		named = true;
		prototypes_from_dwarf(table);
	}
	return table;
}

static const struct syscall_table *syscall_numbers(const struct options *opt);

int syscall_number(const struct options *opt, const char *name)
{
	const struct syscall_table *t = syscall_numbers(opt);
	int i;

	for (i = 0; t && i < t->n; i++)
		if (strcmp(t->calls[i].name, name) == 0)
			return t->calls[i].nr;
	return -1;
}

const char *syscall_name(const struct options *opt, int nr)
{
	const struct syscall_table *t = syscall_numbers(opt);
	int i;

	for (i = 0; t && i < t->n; i++)
		if (t->calls[i].nr == nr)
			return t->calls[i].name;
	return NULL;
}

/* the kernel function of call nr ("sys_openat"), or NULL; several
 * numbers may share one (sys_ni_syscall) */
const char *syscall_entry(const struct options *opt, int nr)
{
	const struct syscall_table *t = syscall_numbers(opt);
	int i;

	for (i = 0; t && i < t->n; i++)
		if (t->calls[i].nr == nr)
			return t->calls[i].entry;
	return NULL;
}

/* whether the target's calls have x86_64's __x64_sys_NAME entry points
 * (CONFIG_ARCH_HAS_SYSCALL_WRAPPER: 4.17 and later), for probes/syscall.c */
bool syscall_has_entry_points(const struct options *opt)
{
	static int known = -1;
	const char *build;
	char *config;

	if (known >= 0)
		return known;
	build = opt->release || opt->vm ? target_build_dir(target_kernel()) : NULL;
	config = build ? read_whole_file(xasprintf("%s/.config", build), NULL) : NULL;
	known = config && strstr(config, "\nCONFIG_ARCH_HAS_SYSCALL_WRAPPER=y");
	return known;
}

bool syscall_table_known(const struct options *opt)
{
	return syscall_numbers(opt) != NULL;
}

/* ---- the generated tapset ---- */

static bool is_keyword(const char *s)
{
	static const char *const kw[] = { "if", "else", "for", "foreach", "in", "limit",
		"return", "delete", "while", "break", "continue", "next", "probe",
		"global", "function", "try", "catch", "private", "string", "long",
		"name", "argstr", "retval", "retstr" };
	size_t i;

	for (i = 0; i < sizeof(kw) / sizeof(kw[0]); i++)
		if (strcmp(s, kw[i]) == 0)
			return true;
	return false;
}

/* a C string the caller passes: "const char __user *" itself (not
 * execve's argv, "const char __user *const __user *"), or a file name the
 * kernel does not declare const (utime, utimes) */
static bool is_user_string(const struct sc_param *p)
{
	return strcmp(p->type, "const char __user *") == 0 ||
	       strcmp(p->type, "const char __user*") == 0 ||
	       (strcmp(p->type, "char __user *") == 0 && strcmp(p->name, "filename") == 0);
}

/* execve's argv and envp: user arrays of user strings, NULL-terminated */
static bool is_string_array(const struct sc_param *p)
{
	return strcmp(p->type, "const char __user *const __user *") == 0;
}

static bool is_pointer(const struct sc_param *p)
{
	return strchr(p->type, '*') != NULL;
}

static bool is_signed_int(const struct sc_param *p)
{
	return strcmp(p->type, "int") == 0 || strcmp(p->type, "pid_t") == 0 ||
	       strcmp(p->type, "clockid_t") == 0 || strcmp(p->type, "timer_t") == 0 ||
	       strcmp(p->type, "key_serial_t") == 0 || strcmp(p->type, "rwf_t") == 0;
}

/* a user address passed as an unsigned long: mmap's, munmap's and
 * mremap's addr, mprotect's and madvise's start, brk's brk; arch_prctl's
 * arg2 (the address of the FS or GS base, or where to store it) */
static bool is_address_number(const struct syscall_info *c, const struct sc_param *p)
{
	static const char *const names[] = { "addr", "start", "brk", "new_addr" };
	size_t i;

	if (strcmp(p->type, "unsigned long") != 0)
		return false;
	if (strcmp(c->name, "arch_prctl") == 0 && strcmp(p->name, "arg2") == 0)
		return true;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(p->name, names[i]) == 0)
			return true;
	return false;
}

static bool has_param(const struct syscall_info *c, const char *name)
{
	int i;

	for (i = 0; i < c->nparams; i++)
		if (strcmp(c->params[i].name, name) == 0)
			return true;
	return false;
}

/*
 * How an argument is read and shown in argstr: `read` is the script
 * expression of its value (%d: its position), `fmt` its argstr format,
 * `show` the expression formatted (%s: the variable).
 */
struct arg_style {
	const char *read;
	const char *fmt;
	const char *show;
};

static struct arg_style arg_style(const struct syscall_info *c, const struct sc_param *p)
{
	const char *v = p->name;

	if (is_string_array(p))
		return (struct arg_style){ "__sc_arg(%d)", "%s", strcmp(v, "envp") == 0 ?
					   "_sc_envp_str(%s)" : "_sc_argv_str(%s)" };
	if (is_pointer(p) || is_address_number(c, p))
		return (struct arg_style){ "__sc_arg(%d)", "%s", "__sc_ptr_str(%s)" };
	if (strcmp(v, "option") == 0 && strcmp(c->name, "arch_prctl") == 0)
		return (struct arg_style){ "__sc_int(%d)", "%s", "_arch_prctl_option_str(%s)" };
	if (strcmp(v, "prot") == 0)
		return (struct arg_style){ "__sc_arg(%d)", "%s", "_mmap_prot_str(%s)" };
	if (strcmp(v, "flags") == 0 && strcmp(c->name, "mmap") == 0)
		return (struct arg_style){ "__sc_arg(%d)", "%s", "_mmap_flags_str(%s)" };
	if (strcmp(v, "dfd") == 0 || strcmp(v, "olddfd") == 0 || strcmp(v, "newdfd") == 0)
		return (struct arg_style){ "__sc_int(%d)", "%s", "_dfd_str(%s)" };
	/* a file descriptor is an int, whatever the prototype says (mmap's
	 * unsigned long fd): -1, not 4294967295 */
	if (strcmp(v, "fd") == 0)
		return (struct arg_style){ "__sc_int(%d)", "%d", "%s" };
	if (strcmp(p->type, "umode_t") == 0)
		return (struct arg_style){ "__sc_arg(%d) & 0xffff", "%#o", "%s" };
	if (strcmp(v, "flags") == 0 && strncmp(c->name, "open", 4) == 0)
		return (struct arg_style){ "__sc_arg(%d) & 0xffffffff", "%s", "_open_flags_str(%s)" };
	if (strcmp(v, "sig") == 0 && is_signed_int(p))
		return (struct arg_style){ "__sc_int(%d)", "%s", "_signal_name(%s)" };
	if (strstr(v, "flags") || strcmp(v, "mask") == 0)
		return (struct arg_style){ "__sc_arg(%d)", "%s", "__sc_hex(%s)" };
	if (is_signed_int(p))
		return (struct arg_style){ "__sc_int(%d)", "%d", "%s" };
	return (struct arg_style){ "__sc_arg(%d)",
		strstr(p->type, "unsigned") && !strstr(p->type, "long") ? "%u" : "%d", "%s" };
}

static bool in_list(char *const *names, const char *name)
{
	for (; names && *names; names++)
		if (strcmp(*names, name) == 0)
			return true;
	return false;
}

/* "\tVAR = EXPR\n", unless the documented variables (set) already gave
 * VAR its documented meaning */
static void assign(struct strbuf *sb, char *const *set, const char *var, const char *expr)
{
	if (!in_list(set, var))
		sb_printf(sb, "\t%s = %s\n", var, expr);
}

/* what argstr reads for VAR: the variable, or its expression when the
 * documented variable of that name means something else */
static const char *doc_text;	/* the documented variables' assignments */

static char *ref(char *const *set, const char *var, const char *expr)
{
	if (!in_list(set, var) || strstr(doc_text, xasprintf("\t%s = %s\n", var, expr)))
		return xstrdup(var);
	return xasprintf("(%s)", expr);
}

/* the value of the call's flags argument, as its variable is given it */
static char *flags_read(const struct syscall_info *c)
{
	for (int j = 0; j < c->nparams; j++)
		if (strcmp(c->params[j].name, "flags") == 0)
			return xasprintf(arg_style(c, &c->params[j]).read, j + 1);
	return xstrdup("0");
}

/* one argument's kernel-named variable and its part of argstr */
static void emit_param(struct strbuf *sb, struct strbuf *fmt, struct strbuf *args,
		       const struct syscall_info *c, int i, char *const *set)
{
	const struct sc_param *p = &c->params[i];
	char *var = is_keyword(p->name) ? xasprintf("%s_", p->name) : xstrdup(p->name);
	struct arg_style st;
	char *read;

	if (strcmp(p->type, "umode_t") == 0 && has_param(c, "flags")) {
		/* open(2) and friends: the mode only matters, and strace only
		 * shows it, when the flags create a file */
		read = xasprintf("__sc_arg(%d) & 0xffff", i + 1);
		assign(sb, set, var, read);
		sb_puts(fmt, "%s");
		sb_printf(args, ", _sc_creates(%s) ? sprintf(\", %%#o\", %s) : \"\"",
			  ref(set, "flags", flags_read(c)), ref(set, var, read));
		return;
	}
	if (i)
		sb_puts(fmt, ", ");
	if (is_user_string(p) && strcmp(p->name, "buf") != 0) {
		char *uaddr = xasprintf("%s_uaddr", var);

		read = xasprintf("__sc_arg(%d)", i + 1);
		assign(sb, set, uaddr, read);
		assign(sb, set, var, xasprintf("user_string2(%s, \"<unknown>\")",
					       ref(set, uaddr, read)));
		/* SystemTap gives each string argument its _unquoted text
		 * too (stapprobes(3stap)), also where the page omits it
		 * (execve's filename) */
		assign(sb, set, xasprintf("%s_unquoted", var),
		       xasprintf("user_string2(%s, \"<unknown>\")", ref(set, uaddr, read)));
		sb_puts(fmt, "%s");
		sb_printf(args, ", __sc_str_arg(%s)", ref(set, uaddr, read));
		return;
	}
	st = arg_style(c, p);
	read = xasprintf(st.read, i + 1);
	assign(sb, set, var, read);
	sb_puts(fmt, st.fmt);
	sb_puts(args, ", ");
	sb_printf(args, st.show, ref(set, var, read));
}

/* the arguments as sysdoc.c reads them: each one's value as its
 * kernel-named variable is given it */
static struct sysdoc_arg *doc_args(const struct syscall_info *c)
{
	struct sysdoc_arg *a = xalloc((c->nparams + 1) * sizeof(*a));

	for (int i = 0; i < c->nparams; i++) {
		const struct sc_param *p = &c->params[i];

		a[i].name = p->name;
		a[i].type = p->type;
		a[i].is_string = is_user_string(p);
		a[i].read = strcmp(p->type, "umode_t") == 0 && has_param(c, "flags") ?
			    xasprintf("__sc_arg(%d) & 0xffff", i + 1) :
			    xasprintf(arg_style(c, p).read, i + 1);
	}
	return a;
}

static void emit_call(struct strbuf *sb, const struct syscall_info *c, const char *prefix)
{
	struct strbuf fmt = { 0 }, args = { 0 }, doc = { 0 }, docvars = { 0 };
	char **set, *missing;
	int i;

	sb_puts(&fmt, "");
	sb_puts(&args, "");
	sb_puts(&docvars, "");
	/* SystemTap's documented names first (tapset::syscalls(3stap)), then
	 * the kernel's own names for what they do not cover */
	set = sysdoc_emit(&docvars, c->name, doc_args(c), c->nparams, &missing);
	doc_text = docvars.buf;
	sb_printf(&doc, "/**\n * probe %s%s - the %s system call (%d) is entered\n"
		  " * @name: \"%s\"\n", prefix, c->name, c->name, c->nr, c->name);
	for (i = 0; set[i]; i++)
		sb_printf(&doc, " * @%s: as tapset::syscalls(3stap) documents for syscall.%s\n",
			  set[i], sysdoc_probe_name(c->name));
	for (i = 0; i < c->nparams; i++)
		if (!in_list(set, c->params[i].name))
			sb_printf(&doc, " * @%s%s: %s\n", c->params[i].name,
				  is_keyword(c->params[i].name) ? "_" : "", c->params[i].type);
	sb_printf(&doc, " * @argstr: the arguments, formatted like strace\n */\n");
	if (*missing)
		sb_printf(&doc, "// documented, not computed by ktap: %s\n", missing);
	sb_puts(sb, doc.buf);
	/* the name is looked up at run time, so handlers of different calls
	 * can be the same code (resolve.c merges those) */
	sb_printf(sb, "probe %s%s = kernel.syscall(\"%s\") {\n\tname = __sc_name()\n", prefix,
		  c->name, c->name);
	sb_puts(sb, docvars.buf);
	for (i = 0; i < c->nparams; i++)
		emit_param(sb, &fmt, &args, c, i, set);
	sb_printf(sb, "\targstr = sprintf(\"%s\"%s)\n}\n\n", fmt.buf, args.buf);
	sb_printf(sb, "/**\n * probe %s%s.return - the %s system call returns\n"
		  " * @name: \"%s\"\n * @retval: the return value\n"
		  " * @retstr: the return value as text, with the errno name: \"-2 (ENOENT)\"\n */\n",
		  prefix, c->name, c->name, c->name);
	sb_printf(sb, "probe %s%s.return = kernel.syscall(\"%s\").return {\n\tname = __sc_name()\n"
		  "\tretval = __sc_ret()\n\tretstr = _sc_retstr(retval)\n}\n\n",
		  prefix, c->name, c->name);
}

/* "#define NAME NUMBER" lines of a header, for names by number; the
 * first name of a number wins (EAGAIN before EWOULDBLOCK) */
static void name_table(struct strbuf *sb, const char *fn, const char *header_text,
		       const char *prefix, const char *doc)
{
	const char *names[4096] = { 0 };
	const char *p;
	int max = 0, i;

	for (p = header_text; p && (p = strstr(p, "#define")); p++) {
		char name[64];
		int v;

		if (sscanf(p, "#define %63s %d", name, &v) != 2 ||
		    strncmp(name, prefix, strlen(prefix)) != 0 || v <= 0 || v >= 4096 ||
		    names[v])
			continue;
		names[v] = xstrdup(name);
		if (v > max)
			max = v;
	}
	sb_printf(sb, "/**\n * sfunction %s - %s\n * @n: the number\n */\n"
		  "function %s:string (n:long) %%{ /* pure */ /* unprivileged */\n"
		  "\tstatic const char *const names[] = {\n", fn, doc, fn);
	for (i = 1; i <= max; i++)
		if (names[i])
			sb_printf(sb, "\t\t[%d] = \"%s\",\n", i, names[i]);
	sb_printf(sb, "\t};\n\tconst char *s = STAP_ARG_n > 0 && STAP_ARG_n < ARRAY_SIZE(names) ?\n"
		  "\t\tnames[STAP_ARG_n] : NULL;\n\n"
		  "\tif (s)\n\t\tstrscpy(STAP_RETVALUE, s, MAXSTRINGLEN);\n"
		  "\telse\n\t\tsnprintf(STAP_RETVALUE, MAXSTRINGLEN, \"%%lld\", (long long)STAP_ARG_n);\n"
		  "%%}\n\n");
}

/* "#define NAME VALUE" lines of a header whose values are few and far
 * apart (0x1001, 0x2003): a list searched in order, not an array by
 * value; an unknown value is shown in hex */
static void sparse_name_table(struct strbuf *sb, const char *fn, const char *header_text,
			      const char *prefix, const char *doc)
{
	const char *p;

	sb_printf(sb, "/**\n * sfunction %s - %s\n * @n: the number\n */\n"
		  "function %s:string (n:long) %%{ /* pure */ /* unprivileged */\n"
		  "\tstatic const struct { long long value; const char *name; } names[] = {\n",
		  fn, doc, fn);
	for (p = header_text; p && (p = strstr(p, "#define")); p++) {
		char name[64];
		long long v;

		if (sscanf(p, "#define %63s %lli", name, &v) == 2 &&
		    strncmp(name, prefix, strlen(prefix)) == 0)
			sb_printf(sb, "\t\t{ %#llx, \"%s\" },\n", v, name);
	}
	sb_puts(sb, "\t};\n\tsize_t i = 0;\n\n"
		    "\twhile (i < ARRAY_SIZE(names) && names[i].value != STAP_ARG_n)\n\t\ti++;\n"
		    "\tif (i < ARRAY_SIZE(names))\n"
		    "\t\tstrscpy(STAP_RETVALUE, names[i].name, MAXSTRINGLEN);\n"
		    "\telse\n\t\tsnprintf(STAP_RETVALUE, MAXSTRINGLEN, \"%#llx\", (long long)STAP_ARG_n);\n"
		    "%}\n\n");
}

/* the part every syscall.NAME uses: names of errnos, signals and calls */
static char *common_text(const struct syscall_table *t)
{
	struct strbuf sb = { 0 };
	int i;

	sb_puts(&sb, "// syscalls-common.stp - generated by ktap from the target kernel's headers,\n"
		     "// beside one NNNN-NAME.stp per x86_64 system call (its syscall.NAME and\n"
		     "// syscall.NAME.return). Do not edit: see translator/syscalls.c.\n\n");
	name_table(&sb, "__sc_errno_name", t->errno_text, "E",
		   "the name of an errno value (\"ENOENT\"), from the kernel's headers");
	name_table(&sb, "_signal_name", t->signal_text, "SIG",
		   "the name of a signal number (\"SIGUSR1\"), from the kernel's headers");
	sparse_name_table(&sb, "_arch_prctl_option_str", t->arch_prctl_text, "ARCH_",
			  "the name of an arch_prctl option (\"ARCH_SET_FS\"), from the kernel's headers");
	sb_puts(&sb, "/**\n * sfunction __sc_name - the name of the system call being entered or left\n */\n"
		     "function __sc_name:string () %{ /* pure */\n\tstatic const char *const names[] = {\n");
	for (i = 0; i < t->n; i++)
		sb_printf(&sb, "\t\t[%d] = \"%s\",\n", t->calls[i].nr, t->calls[i].name);
	sb_puts(&sb, "\t};\n\tunsigned long nr = ((const struct pt_regs *)CONTEXT->tp_args[0])->orig_ax;\n\n"
		     "\tstrscpy(STAP_RETVALUE, nr < ARRAY_SIZE(names) && names[nr] ? names[nr] : \"?\",\n"
		     "\t\tMAXSTRINGLEN);\n%}\n\n");
	return sb.buf;
}

/* one system call's aliases, in a file of its own: a script parses only
 * the calls it probes (resolve.c loads tapset files on demand) */
static char *call_text(const struct syscall_info *c)
{
	struct strbuf sb = { 0 };

	sb_printf(&sb, "// %04d-%s.stp - generated by ktap from the target kernel's headers.\n"
		  "// Do not edit: see translator/syscalls.c.\n\n", c->nr, c->name);
	/* the open family has its own aliases (tapsets/syscall.stp) */
	emit_call(&sb, c, strcmp(c->name, "open") == 0 ? "__syscall_gen." : "syscall.");
	return sb.buf;
}

static const struct syscall_table *writing;	/* the table write_tapset() writes */

static int syscall_index_by_name(const char *name)
{
	for (int i = 0; writing && i < writing->n; i++)
		if (strcmp(writing->calls[i].name, name) == 0)
			return i;
	return -1;
}

/* "probe NAME = TO { BODY }" and its .return, each with its doc comment */
static void same_alias(struct strbuf *sb, const char *name, const char *to, const char *body)
{
	sb_printf(sb, "/**\n * probe %s - %s, under another name (the same variables)\n */\n"
		  "probe %s = %s { %s}\n\n", name, to, name, to, body);
	sb_printf(sb, "/**\n * probe %s.return - %s.return, under another name\n */\n"
		  "probe %s.return = %s.return { %s}\n\n", name, to, name, to, body);
}

/*
 * The name SystemTap documents the call under when it is not the
 * kernel's (syscall.pread for pread64, syscall.mmap2 for mmap), in a file
 * of its own; NULL when the call has none. (nd_syscall.NAME, nd1_ and
 * nd2_ need no alias each: resolve.c takes them as syscall.NAME,
 * aliasvars.c's alias_family_point().)
 */
static char *other_names_text(const struct syscall_info *c)
{
	const char *doc = sysdoc_probe_name(c->name);
	struct strbuf sb = { 0 };

	sb_printf(&sb, "// %04d-%s-names.stp - generated by ktap: the other names of syscall.%s.\n"
		  "// Do not edit: see translator/syscalls.c.\n\n", c->nr, c->name, c->name);
	/* syscall.NAME of a documented name that is no kernel call's; its
	 * name is that name, as SystemTap's is ("pread", not "pread64") */
	if (strcmp(doc, c->name) == 0 || syscall_index_by_name(doc) >= 0)
		return NULL;
	same_alias(&sb, xasprintf("syscall.%s", doc), xasprintf("syscall.%s", c->name),
		   xasprintf("name = \"%s\" ", doc));
	return sb.buf;
}

#define NUMBERS_FORMAT "ktap-syscall-numbers 2"

/* "NR NAME ENTRY" per call: what kernel.syscall("NAME") needs, without
 * the headers (ENTRY: the kernel function, "sys_openat") */
static char *numbers_text(const struct syscall_table *t)
{
	struct strbuf sb = { 0 };
	int i;

	sb_printf(&sb, "%s\n", NUMBERS_FORMAT);
	for (i = 0; i < t->n; i++)
		sb_printf(&sb, "%d %s %s\n", t->calls[i].nr, t->calls[i].name,
			  t->calls[i].entry);
	sb_puts(&sb, "end\n");
	return sb.buf;
}

static struct syscall_table *read_numbers(const char *dir)
{
	struct syscall_table *t;
	char *body, *line, *save = NULL;

	if (!cachefile_read(xasprintf("%s/numbers", dir), NUMBERS_FORMAT, &body))
		return NULL;
	t = xalloc(sizeof(*t));
	for (line = strtok_r(body, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[128], entry[128];
		int nr;

		if (sscanf(line, "%d %127s %127s", &nr, name, entry) != 3)
			return NULL;
		t->calls = xrealloc(t->calls, (t->n + 1) * sizeof(*t->calls));
		memset(&t->calls[t->n], 0, sizeof(*t->calls));
		t->calls[t->n].nr = nr;
		t->calls[t->n].entry = xstrdup(entry);
		t->calls[t->n++].name = xstrdup(name);
	}
	return t;
}

/* the files of the tapset, in a new directory */
static bool write_tapset(const char *dir, const struct syscall_table *t)
{
	char *text = common_text(t);
	int i;

	writing = t;
	if (!cachefile_write(xasprintf("%s/syscalls-common.stp", dir), text, strlen(text)))
		return false;
	text = numbers_text(t);
	if (!cachefile_write(xasprintf("%s/numbers", dir), text, strlen(text)))
		return false;
	/* the number first: the directory's name order is the table's order */
	for (i = 0; i < t->n; i++) {
		text = call_text(&t->calls[i]);
		if (!cachefile_write(xasprintf("%s/%04d-%s.stp", dir, t->calls[i].nr,
					       t->calls[i].name), text, strlen(text)))
			return false;
		text = other_names_text(&t->calls[i]);
		if (text && !cachefile_write(xasprintf("%s/%04d-%s-names.stp", dir, t->calls[i].nr,
					       t->calls[i].name), text, strlen(text)))
			return false;
	}
	return true;
}


/* how long a generation other than the current one is kept */
#define OLD_GENERATION_S 3600

/* the generations of a tree other than KEEP that are an hour old: made by
 * another ktap binary or from older headers, or left half made by a run
 * that was stopped. (Not at once: a run of another ktap binary, say one
 * started before a rebuild, may still be reading its generation.) */
static void remove_old_generations(const char *tree_dir, const char *keep)
{
	DIR *d = opendir(tree_dir);
	time_t now = time(NULL);
	struct dirent *de;
	struct stat st;

	if (!d)
		return;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    strcmp(de->d_name, keep) &&
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    st.st_mtime < now - OLD_GENERATION_S)
			remove_tree(xasprintf("%s/%s", tree_dir, de->d_name));
	closedir(d);
}

/* a name for what a path identifies, hashed (FNV-1a) */
static char *hash_name(const char *text)
{
	uint64_t h = 1469598103934665603ULL;
	const char *p;

	for (p = text; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	return xasprintf("%016llx", (unsigned long long)h);
}

/*
 * What the generated tapset is made from: every header load_table() reads,
 * the .config, the debug vmlinux the DWARF names come from (the
 * target's, target_debug_file()), and ktap itself (its generator), each as
 * size, mtime, ctime and inode, and whether KTAP_DEBUGINFO turns the DWARF
 * off. While none of them changes, the tapset made last time is the one
 * this run would make, and the table need not be read at all.
 */
static char *generation_inputs(const char *build)
{
	const char *src = target_source_dir(build), *debug = debug_vmlinux();
	const char *paths[] = {
		xasprintf("%s/arch/x86/include/generated/asm/syscalls_64.h", build),
		xasprintf("%s/arch/x86/include/generated/uapi/asm/unistd_64.h", build),
		xasprintf("%s/.config", build),
		xasprintf("%s/include/linux/syscalls.h", src),
		xasprintf("%s/arch/x86/include/asm/syscalls.h", src),
		xasprintf("%s/include/uapi/asm-generic/errno-base.h", src),
		xasprintf("%s/include/uapi/asm-generic/errno.h", src),
		xasprintf("%s/include/linux/errno.h", src),
		xasprintf("%s/arch/x86/include/uapi/asm/signal.h", src),
		xasprintf("%s/arch/x86/include/uapi/asm/prctl.h", src),
		debug ? debug : "(no debug vmlinux)",
		"/proc/self/exe",
	};
	struct strbuf sb = { 0 };
	size_t i;

	sb_printf(&sb, "ktap %s\nKTAP_DEBUGINFO=%s\n", KTAP_VERSION,
		  getenv("KTAP_DEBUGINFO") ?: "");
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		char *id = cachefile_identity(paths[i]);

		sb_printf(&sb, "%s %s\n", paths[i], id ? id : "missing");
	}
	return sb.buf;
}

/* make a generation: filled under a temporary name, then renamed */
static bool make_generation(const char *tree_dir, const char *gen,
			    const struct syscall_table *t)
{
	char *tmp = xasprintf("%s/.tmp-XXXXXX", tree_dir);

	if (!mkdtemp(tmp))
		return false;
	if (!write_tapset(tmp, t)) {
		remove_tree(tmp);
		return false;
	}
	/* another run may have made the same generation meanwhile */
	if (rename(tmp, gen) < 0) {
		remove_tree(tmp);
		return errno == EEXIST || errno == ENOTEMPTY;
	}
	return true;
}

/* the directory of the generated syscall tapset for the target, or NULL */
static const char *make_tapset_dir(const struct options *opt)
{
	const char *build = opt->release || opt->vm ? target_build_dir(target_kernel()) : NULL;
	const struct syscall_table *t;
	char *dir, *tree_dir, *name, *gen;
	struct stat st;

	if (!build)
		return NULL;
	/* a cache that others can write to must not give code to a module:
	 * then the tapset is made for this run only */
	dir = cachefile_dir("syscalls");
	if (!dir && !(dir = cachefile_run_dir("syscalls")))
		return NULL;
	tree_dir = xasprintf("%s/%s", dir, hash_name(build));
	if (mkdir(tree_dir, 0700) < 0 && errno != EEXIST)
		return NULL;
	name = hash_name(generation_inputs(build));
	gen = xasprintf("%s/%s", tree_dir, name);
	if (stat(gen, &st) == 0 && S_ISDIR(st.st_mode))
		return gen;
	t = syscall_table_named(opt);
	if (!t || !make_generation(tree_dir, gen, t))
		return NULL;
	remove_old_generations(tree_dir, name);
	return gen;
}

static const char *tapset_dir;
static bool tapset_dir_tried;

const char *syscalls_tapset_dir(const struct options *opt)
{
	if (!tapset_dir_tried) {
		tapset_dir_tried = true;
		tapset_dir = make_tapset_dir(opt);
	}
	return tapset_dir;
}

/* names and numbers of the calls: from the generated tapset's directory
 * (no header is read), else from the headers */
static const struct syscall_table *syscall_numbers(const struct options *opt)
{
	static const struct syscall_table *numbers;
	static bool tried;
	const char *dir;

	if (tried)
		return numbers;
	tried = true;
	if ((dir = syscalls_tapset_dir(opt)))
		numbers = read_numbers(dir);
	if (!numbers)
		numbers = syscall_table(opt);
	return numbers;
}
