/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap runtime: kernel stacks and symbols.
 *
 * Backtraces come from the kernel's own unwinder (ORC on the Debian
 * kernels): from the probe's registers when the probe has kernel
 * registers (kprobes, kretprobes, timers that interrupted the kernel),
 * else from the handler's own stack with stack_trace_save(), leaving out
 * the frames inside this module. Names come from kallsyms through
 * sprint_symbol(), which also knows module symbols.
 *
 * A backtrace as a script value is a string of hex addresses separated by
 * spaces ("0xffffffff8134a2b0 0xffffffff8134a5f1"), which print_stack()
 * turns back into one line per frame.
 *
 * Every buffer here is per CPU: a handler runs with preemption disabled
 * and never nests on its CPU, and KSYM_SYMBOL_LEN is too big for the
 * kernel stack of a probe.
 */
#ifndef _KTAP_STACK_H
#define _KTAP_STACK_H

#include <linux/kallsyms.h>
#include <linux/stacktrace.h>
#include <asm/unwind.h>

#ifndef KTAP_MAXBACKTRACE
#define KTAP_MAXBACKTRACE 32	/* frames of one backtrace */
#endif

static DEFINE_PER_CPU(char [KSYM_SYMBOL_LEN], ktap_sym_buf);
static DEFINE_PER_CPU(unsigned long [KTAP_MAXBACKTRACE], ktap_stack_buf);

/**
 * ktap_sym_lookup() - kallsyms' text for an address
 * @addr: the address
 * @offset: with "+off/size" (symdata) or without (symname)
 *
 * Return: this CPU's symbol buffer: "name[+0x1/0x20] [module]", or the
 * address in hex when no symbol holds it.
 */
static __maybe_unused const char *ktap_sym_lookup(unsigned long addr, bool offset)
{
	char *buf = *this_cpu_ptr(&ktap_sym_buf);

	if (offset)
		sprint_symbol(buf, addr);
	else
		sprint_symbol_no_offset(buf, addr);
	return buf;
}

/**
 * ktap_symname() - symname(): the name of the symbol holding an address
 * @dst: MAXSTRINGLEN bytes
 * @addr: the address
 *
 * The module, if any, is left out; an unknown address gives its hex text.
 */
static __maybe_unused void ktap_symname(char *dst, unsigned long addr)
{
	const char *s = ktap_sym_lookup(addr, false);

	strscpy(dst, s, min_t(size_t, strcspn(s, " ") + 1, MAXSTRINGLEN));
}

/**
 * ktap_symdata() - symdata(): "name+offset/size [module]" of an address
 * @dst: MAXSTRINGLEN bytes
 * @addr: the address
 */
static __maybe_unused void ktap_symdata(char *dst, unsigned long addr)
{
	strscpy(dst, ktap_sym_lookup(addr, true), MAXSTRINGLEN);
}

/**
 * ktap_probefunc() - probefunc(): the kernel function the probe is in
 * @c: the context
 * @dst: MAXSTRINGLEN bytes
 *
 * Kprobes and kretprobes know their function; other probes with kernel
 * registers take the function of the interrupted address. Else "".
 */
static __maybe_unused void ktap_probefunc(struct ktap_context *c, char *dst)
{
	const struct ktap_probe *p = c->probe;

	dst[0] = '\0';
	if ((p->kind == KTAP_PROBE_KPROBE || p->kind == KTAP_PROBE_KRETPROBE ||
	     p->kind == KTAP_PROBE_UPROBE || p->kind == KTAP_PROBE_URETPROBE) &&
	    p->symbol) {
		strscpy(dst, p->symbol,
			min_t(size_t, strcspn(p->symbol, "+") + 1, MAXSTRINGLEN));
		return;
	}
	if (c->regs && !user_mode(c->regs))
		ktap_symname(dst, instruction_pointer(c->regs));
}

/**
 * ktap_unwind_regs() - return addresses, unwinding from saved registers
 * @regs: kernel registers of the probe
 * @entries: where the addresses go
 * @max: room in @entries
 *
 * The first entry is the address in @regs (in a kprobe, the probed
 * function); unwind_start() begins at its caller's frame.
 *
 * Return: the number of entries.
 */
static __maybe_unused unsigned int ktap_unwind_regs(struct pt_regs *regs,
				     unsigned long *entries, unsigned int max)
{
	struct unwind_state state;
	unsigned int n = 0;
	unsigned long addr;

	entries[n++] = instruction_pointer(regs);
	for (unwind_start(&state, current, regs, NULL);
	     !unwind_done(&state) && n < max; unwind_next_frame(&state)) {
		addr = unwind_get_return_address(&state);
		if (!addr)
			break;
		if (n == 1 && addr == entries[0])
			continue;
		entries[n++] = addr;
	}
	return n;
}

/**
 * ktap_unwind_here() - return addresses of the handler's caller
 * @entries: where the addresses go
 * @max: room in @entries
 *
 * For probes without registers (begin, end, tracepoints): the stack
 * above the handler, without this module's frames.
 *
 * Return: the number of entries.
 */
static __maybe_unused unsigned int ktap_unwind_here(unsigned long *entries, unsigned int max)
{
	unsigned int n, skip = 0;

	n = stack_trace_save(entries, max, 0);
	while (skip < n && within_module(entries[skip], THIS_MODULE))
		skip++;
	memmove(entries, entries + skip, (n - skip) * sizeof(*entries));
	return n - skip;
}

/**
 * ktap_stack_capture() - the kernel backtrace at this probe hit
 * @c: the context
 * @entries: set to this CPU's array of return addresses
 *
 * A probe that interrupted user space has no kernel backtrace.
 *
 * Return: the number of addresses, at most KTAP_MAXBACKTRACE.
 */
static __maybe_unused unsigned int ktap_stack_capture(struct ktap_context *c,
				       unsigned long **entries)
{
	*entries = *this_cpu_ptr(&ktap_stack_buf);
	if (c->regs && user_mode(c->regs))
		return 0;
	if (c->regs)
		return ktap_unwind_regs(c->regs, *entries, KTAP_MAXBACKTRACE);
	return ktap_unwind_here(*entries, KTAP_MAXBACKTRACE);
}

/* @n addresses as hex words separated by spaces, the ones that fit whole
 * in MAXSTRINGLEN (backtrace(), ubacktrace()) */
static __maybe_unused void ktap_addrs_str(char *dst, const unsigned long *entries,
					  unsigned int n)
{
	size_t len = 0;
	unsigned int i;
	char one[24];
	int k;

	dst[0] = '\0';
	for (i = 0; i < n; i++) {
		k = scnprintf(one, sizeof(one), "%s%#lx", i ? " " : "", entries[i]);
		if (len + k >= MAXSTRINGLEN)
			break;
		memcpy(dst + len, one, k + 1);
		len += k;
	}
}

/**
 * ktap_backtrace() - backtrace(): the backtrace as hex addresses
 * @c: the context
 * @dst: MAXSTRINGLEN bytes
 *
 * Addresses that do not fit whole are left out.
 */
static __maybe_unused void ktap_backtrace(struct ktap_context *c, char *dst)
{
	unsigned long *entries;
	unsigned int n = ktap_stack_capture(c, &entries);

	ktap_addrs_str(dst, entries, n);
}

/**
 * ktap_frame_line() - one frame as a line: " 0xADDR : name+off/size [mod]"
 * @o: the sink
 * @addr: the address
 * @whole: only append the line if it fits whole (a string sink)
 *
 * Return: false if @whole and the line did not fit.
 */
static __maybe_unused bool ktap_frame_line(struct ktap_out *o, unsigned long addr, bool whole)
{
	const char *sym = ktap_sym_lookup(addr, true);
	char head[24];
	int k = scnprintf(head, sizeof(head), " %#lx : ", addr);
	size_t need = k + strlen(sym) + 1;

	if (whole && need > o->cap - o->len)
		return false;
	ktap_out_write(o, head, k);
	ktap_out_write(o, sym, strlen(sym));
	ktap_out_write(o, "\n", 1);
	return true;
}

/**
 * ktap_stack_parse() - the addresses of a backtrace string
 * @bt: hex addresses separated by spaces, as from ktap_backtrace()
 * @entries: where the addresses go
 * @max: room in @entries
 *
 * Words that are not numbers are skipped.
 *
 * Return: the number of addresses, at most @max.
 */
static __maybe_unused unsigned int ktap_stack_parse(const char *bt,
				     unsigned long *entries, unsigned int max)
{
	unsigned int n = 0;
	char word[24];
	size_t k;

	while (n < max) {
		bt = skip_spaces(bt);
		k = strcspn(bt, " \t\n");
		if (!k)
			break;
		if (k < sizeof(word)) {
			memcpy(word, bt, k);
			word[k] = '\0';
			if (!kstrtoul(word, 0, &entries[n]))
				n++;
		}
		bt += k;
	}
	return n;
}

/**
 * ktap_stack_out() - the frames of a backtrace string into a sink
 * @o: the sink
 * @bt: hex addresses separated by spaces, as from ktap_backtrace()
 * @whole: as for ktap_frame_line()
 *
 * With @whole, the first frame that does not fit ends the output.
 */
static __maybe_unused void ktap_stack_out(struct ktap_out *o, const char *bt, bool whole)
{
	unsigned long *entries = *this_cpu_ptr(&ktap_stack_buf);
	unsigned int n = ktap_stack_parse(bt, entries, KTAP_MAXBACKTRACE), i;

	for (i = 0; i < n && ktap_frame_line(o, entries[i], whole); i++)
		;
}

/**
 * ktap_ksym_frame() - the name of a kernel frame in a folded stack
 * @c: the context (unused: a user-space namer needs the task)
 * @addr: the frame's address
 * @innermost: @addr is where the stack was taken, not a return address
 *
 * A return address can be the first byte after a call at the very end of
 * its function (a call of a noreturn function), so it is looked up one
 * byte back, as the kernel's own "%pB" does.
 *
 * Return: "name" or "name [module]", or the address in hex.
 */
static __maybe_unused const char *ktap_ksym_frame(struct ktap_context *c,
						  unsigned long addr,
						  bool innermost)
{
	char *buf = *this_cpu_ptr(&ktap_sym_buf);

	if (innermost)
		return ktap_sym_lookup(addr, false);
	ktap_sym_lookup(addr - 1, false);
	if (buf[0] == '0' && buf[1] == 'x')	/* no symbol: the address itself */
		scnprintf(buf, KSYM_SYMBOL_LEN, "%#lx", addr);
	return buf;
}

/* names one frame of a folded stack: kernel symbols, later user ones */
typedef const char *(*ktap_frame_namer)(struct ktap_context *c,
					unsigned long addr, bool innermost);

/**
 * ktap_folded_out() - frames as one folded stack: "root;...;leaf"
 * @o: the sink
 * @entries: the addresses, innermost first (as unwound)
 * @n: how many
 * @name: names a frame (ktap_ksym_frame() for the kernel)
 * @whole: frames that do not fit whole end the output (a string sink)
 *
 * The format flame graph tools read: frame names joined by ';', the
 * outermost first, so equal call paths are equal prefixes. Kernel frame
 * names hold no ';'.
 */
static __maybe_unused void ktap_folded_out(struct ktap_out *o,
					   const unsigned long *entries,
					   unsigned int n, ktap_frame_namer name,
					   bool whole)
{
	unsigned int i;

	for (i = n; i-- > 0;) {
		const char *s = name(o->c, entries[i], i == 0);
		size_t k = strlen(s) + (i != n - 1);

		if (whole && k > o->cap - o->len)
			return;
		if (i != n - 1)
			ktap_out_write(o, ";", 1);
		ktap_out_write(o, s, strlen(s));
	}
}

/**
 * ktap_stack_json() - frames as a "backtrace" data record (json.h)
 * @c: the context
 * @entries: the addresses, innermost first
 * @n: how many
 *
 * Addresses are hex strings: a JSON number holds 53 bits exactly.
 */
static __maybe_unused void ktap_stack_json(struct ktap_context *c,
					   const unsigned long *entries,
					   unsigned int n)
{
	struct ktap_out o;
	unsigned int i;

	ktap_json_begin(c, &o, "backtrace");
	ktap_out_write(&o, ",\"frames\":[", 11);
	for (i = 0; i < n; i++) {
		const char *sym = ktap_sym_lookup(entries[i], true);

		if (!ktap_json_room(&o, 2 * strlen(sym) + 48)) {
			ktap_out_snprintf(&o, "],\"truncated\":true");
			ktap_json_end(c, &o);
			return;
		}
		ktap_out_snprintf(&o, "%s{\"addr\":\"%#lx\",\"symbol\":", i ? "," : "",
				  entries[i]);
		ktap_json_str(&o, sym);
		ktap_out_write(&o, "}", 1);
	}
	ktap_out_write(&o, "]", 1);
	ktap_json_end(c, &o);
}

/**
 * ktap_print_backtrace() - print_backtrace(): print the backtrace
 * @c: the context
 */
static __maybe_unused void ktap_print_backtrace(struct ktap_context *c)
{
	unsigned long *entries;
	unsigned int n = ktap_stack_capture(c, &entries), i;
	struct ktap_out o;

	if (ktap_json) {
		ktap_stack_json(c, entries, n);
		return;
	}
	ktap_out_print(&o, c);
	for (i = 0; i < n; i++)
		ktap_frame_line(&o, entries[i], false);
	c->print_len = o.len;
}

/**
 * ktap_sprint_backtrace() - sprint_backtrace(): the printed backtrace as
 *	a string
 * @c: the context
 * @dst: MAXSTRINGLEN bytes; frames that do not fit whole are left out
 */
static __maybe_unused void ktap_sprint_backtrace(struct ktap_context *c,
						 char *dst)
{
	unsigned long *entries;
	unsigned int n = ktap_stack_capture(c, &entries), i;
	struct ktap_out o = { .c = c, .buf = dst, .cap = MAXSTRINGLEN - 1 };

	for (i = 0; i < n && ktap_frame_line(&o, entries[i], true); i++)
		;
	dst[o.len] = '\0';
}

/**
 * ktap_print_stack() - print_stack(bt): print the frames of a backtrace
 * @c: the context
 * @bt: a backtrace() string
 */
static __maybe_unused void ktap_print_stack(struct ktap_context *c,
					    const char *bt)
{
	struct ktap_out o;

	if (ktap_json) {
		unsigned long *entries = *this_cpu_ptr(&ktap_stack_buf);

		ktap_stack_json(c, entries, ktap_stack_parse(bt, entries,
							     KTAP_MAXBACKTRACE));
		return;
	}
	ktap_out_print(&o, c);
	ktap_stack_out(&o, bt, false);
	c->print_len = o.len;
}

/**
 * ktap_sprint_stack() - sprint_stack(bt): the frames of a backtrace as a
 *	string
 * @c: the context
 * @dst: MAXSTRINGLEN bytes; frames that do not fit whole are left out
 * @bt: a backtrace() string (may not be @dst)
 */
static __maybe_unused void ktap_sprint_stack(struct ktap_context *c, char *dst,
					     const char *bt)
{
	struct ktap_out o = { .c = c, .buf = dst, .cap = MAXSTRINGLEN - 1 };

	ktap_stack_out(&o, bt, true);
	dst[o.len] = '\0';
}

/**
 * ktap_print_stack_folded() - print_stack_folded(bt): print a backtrace
 *	as one folded stack, "root;...;leaf", without a newline
 * @c: the context
 * @bt: a backtrace() string
 */
static __maybe_unused void ktap_print_stack_folded(struct ktap_context *c,
						   const char *bt)
{
	unsigned long *entries = *this_cpu_ptr(&ktap_stack_buf);
	unsigned int n = ktap_stack_parse(bt, entries, KTAP_MAXBACKTRACE);
	struct ktap_out o;

	ktap_out_print(&o, c);
	ktap_folded_out(&o, entries, n, ktap_ksym_frame, false);
	c->print_len = o.len;
}

/**
 * ktap_sprint_stack_folded() - sprint_stack_folded(bt): a backtrace as
 *	one folded stack, "root;...;leaf"
 * @c: the context
 * @dst: MAXSTRINGLEN bytes; the innermost frames that do not fit whole
 *	are left out
 * @bt: a backtrace() string (may be @dst: it is read first)
 */
static __maybe_unused void ktap_sprint_stack_folded(struct ktap_context *c,
						    char *dst, const char *bt)
{
	unsigned long *entries = *this_cpu_ptr(&ktap_stack_buf);
	unsigned int n = ktap_stack_parse(bt, entries, KTAP_MAXBACKTRACE);
	struct ktap_out o = { .c = c, .buf = dst, .cap = MAXSTRINGLEN - 1 };

	ktap_folded_out(&o, entries, n, ktap_ksym_frame, true);
	dst[o.len] = '\0';
}

#endif /* _KTAP_STACK_H */
