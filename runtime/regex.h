/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap runtime: regular expressions (=~, !~, matched()).
 *
 * The translator compiles every pattern (a POSIX extended regular
 * expression; always a string literal) into a program for the Pike VM
 * below and emits it as a const array of struct ktap_re_inst, plus
 * <name>_NGROUPS (translator/regex.c). "s =~ re" is then
 *
 *	ktap_regex_match(c, re, ARRAY_SIZE(re), re_NGROUPS, s)
 *
 * Semantics: the match is leftmost-longest, as POSIX asks: of the matches
 * that start leftmost, the longest. Groups (matched(1), ...) are those of
 * the highest-priority path to that match, where '|' prefers its left
 * branch and repeats prefer one more iteration (the Perl/RE2 order); this
 * agrees with glibc's regexec() except in rare ambiguous cases. '.' and
 * negated brackets match any byte, newline included; '^' and '$' match
 * only at the start and end of the subject.
 *
 * Cost: the VM runs every thread in lock step, so one match takes
 * O(length of subject * instructions) steps, never more, whatever the
 * pattern: typical patterns take microseconds; the worst the translator
 * lets through (".{0,255}x", 514 instructions, against 511 bytes without
 * an x) about 1.5 ms on a current x86 core. It recurses nowhere and
 * allocates nothing: its work arrays,
 * KTAP_RE_WORKSIZE() bytes, come from the frame arena (context.h) for the
 * time of the match. The translator refuses patterns needing more than
 * KTAP_RE_MAXWORK bytes (a few hundred instructions).
 *
 * The outcome of the last =~ or !~ of the hit (a failure too) is kept in
 * the context (re_ngroups, re_caps, re_subject) for matched().
 *
 * This file needs only what the context provides (ktap_frame_push(),
 * ktap_error(), ktap_errorf()) and <linux/string.h>; the host-side unit
 * test (translator/tests/regex_test.c) runs it in user space with a
 * shim for those.
 */
#ifndef _KTAP_REGEX_H
#define _KTAP_REGEX_H

#if MAXSTRINGLEN > 65535
#error "regex.h keeps offsets in 16 bits: MAXSTRINGLEN must be at most 65535"
#endif

/* Bytes of frame arena one match may use (translator: REGEX_MAXWORK). */
#define KTAP_RE_MAXWORK 8192

/* Largest program the VM accepts (indexes and stack entries are 15 bits). */
#define KTAP_RE_MAXINST 2048

/*
 * Work bytes of one match (translator: REGEX_WORKSIZE()): per instruction
 * a mark and room on the stack, per thread (nthreads: the CHAR, ANY,
 * CLASS and MATCH instructions) two list entries with their captures.
 */
#define KTAP_RE_WORKSIZE(ninst, nthreads, ngroups) \
	(6 * (ninst) + 4 + 8 * (ngroups) + (nthreads) * (4 + 8 * (ngroups)))

/* An unset capture. */
#define KTAP_RE_UNSET 0xffff

/* A stack entry that restores a capture has this bit in its first half. */
#define KTAP_RE_RESTORE 0x8000

/**
 * enum ktap_re_op - the instructions of a regex program
 * @KTAP_RE_CHAR: consume the byte @ch
 * @KTAP_RE_ANY: consume any byte
 * @KTAP_RE_CLASS: consume a byte b whose bit (@set[b / 8] >> b % 8) is set
 * @KTAP_RE_SPLIT: continue at @x and, with lower priority, at @y
 * @KTAP_RE_JMP: continue at @x
 * @KTAP_RE_SAVE: capture slot @x (2n: start of group n, 2n+1: end) = here
 * @KTAP_RE_BOL: only at the start of the subject
 * @KTAP_RE_EOL: only at the end of the subject
 * @KTAP_RE_MATCH: a match; slots 0 and 1 hold its bounds
 */
enum ktap_re_op {
	KTAP_RE_CHAR,
	KTAP_RE_ANY,
	KTAP_RE_CLASS,
	KTAP_RE_SPLIT,
	KTAP_RE_JMP,
	KTAP_RE_SAVE,
	KTAP_RE_BOL,
	KTAP_RE_EOL,
	KTAP_RE_MATCH,
};

/**
 * struct ktap_re_inst - one instruction; the program starts at index 0
 * @op: enum ktap_re_op
 * @ch: CHAR: the byte
 * @x: SPLIT, JMP: the (preferred) next instruction; SAVE: the slot
 * @y: SPLIT: the other next instruction
 * @set: CLASS: 32 bytes, one bit per byte value
 */
struct ktap_re_inst {
	u8 op;
	u8 ch;
	u16 x;
	u16 y;
	const unsigned char *set;
};

/**
 * struct ktap_re_list - the threads at one position, by priority
 * @n: number of threads
 * @pc: @n instructions, each a consuming one or MATCH
 * @caps: @n rows of capture slots
 */
struct ktap_re_list {
	int n;
	u16 *pc;
	u16 *caps;
};

/**
 * struct ktap_re_vm - one run of the Pike VM
 * @prog: the program
 * @nslots: capture slots, 2 per group
 * @s: the subject
 * @len: its length
 * @mark: per instruction, 1 + the position whose list holds it already
 * @stack: what ktap_re_add() has still to visit
 * @cap: the slots of the thread being followed
 * @best: the slots of the best match so far
 * @found: whether there is one
 * @list: the lists of this position and the next
 */
struct ktap_re_vm {
	const struct ktap_re_inst *prog;
	int nslots;
	const unsigned char *s;
	int len;
	u16 *mark;
	u16 *stack;
	u16 *cap;
	u16 *best;
	bool found;
	struct ktap_re_list list[2];
};

/**
 * ktap_re_vm_init() - lay the work arrays out in @mem
 * @vm: the VM
 * @mem: KTAP_RE_WORKSIZE(@ninst, @nthreads, @ngroups) zeroed bytes
 * @prog: the program
 * @ninst: its length
 * @nthreads: its CHAR, ANY, CLASS and MATCH instructions
 * @ngroups: its groups, group 0 included
 * @subject: the string to search
 */
static void ktap_re_vm_init(struct ktap_re_vm *vm, void *mem,
			    const struct ktap_re_inst *prog, int ninst,
			    int nthreads, int ngroups, const char *subject)
{
	u16 *w = mem;
	int i;

	vm->prog = prog;
	vm->nslots = 2 * ngroups;
	vm->s = (const unsigned char *)subject;
	vm->len = strnlen(subject, MAXSTRINGLEN - 1);
	vm->found = false;
	vm->mark = w;
	w += ninst;
	vm->stack = w;
	w += 2 * (ninst + 1);
	vm->cap = w;
	w += vm->nslots;
	vm->best = w;
	w += vm->nslots;
	for (i = 0; i < 2; i++) {
		vm->list[i].n = 0;
		vm->list[i].pc = w;
		w += nthreads;
		vm->list[i].caps = w;
		w += nthreads * vm->nslots;
	}
}

/**
 * ktap_re_copy() - copy capture slots
 * @dst: destination
 * @src: source
 * @n: slots, 2 or more (2, the most common, without a call to memcpy())
 */
static inline void ktap_re_copy(u16 *dst, const u16 *src, int n)
{
	if (n == 2) {
		dst[0] = src[0];
		dst[1] = src[1];
	} else {
		memcpy(dst, src, n * sizeof(u16));
	}
}

/**
 * ktap_re_follow() - follow one path of empty-width instructions
 * @vm: the VM
 * @l: the list being built
 * @pc: where the path starts
 * @pos: the position of @l
 * @sp: the stack pointer, for pushing the paths not taken
 *
 * Return: the new stack pointer. The path ends on an instruction already
 * in @l, a failed anchor, or a consuming instruction or MATCH, which is
 * added to @l with the current slots.
 */
static int ktap_re_follow(struct ktap_re_vm *vm, struct ktap_re_list *l,
			  int pc, int pos, int sp)
{
	const struct ktap_re_inst *in;

	for (;;) {
		if (vm->mark[pc] == pos + 1)
			return sp;
		vm->mark[pc] = pos + 1;
		in = &vm->prog[pc];
		switch (in->op) {
		case KTAP_RE_JMP:
			pc = in->x;
			break;
		case KTAP_RE_SPLIT:
			if (vm->mark[in->y] != pos + 1) {
				vm->stack[sp++] = in->y;
				vm->stack[sp++] = 0;
			}
			pc = in->x;
			break;
		case KTAP_RE_SAVE:
			vm->stack[sp++] = KTAP_RE_RESTORE | in->x;
			vm->stack[sp++] = vm->cap[in->x];
			vm->cap[in->x] = pos;
			pc++;
			break;
		case KTAP_RE_BOL:
			if (pos != 0)
				return sp;
			pc++;
			break;
		case KTAP_RE_EOL:
			if (pos != vm->len)
				return sp;
			pc++;
			break;
		default:
			l->pc[l->n] = pc;
			ktap_re_copy(l->caps + l->n * vm->nslots, vm->cap,
				     vm->nslots);
			l->n++;
			return sp;
		}
	}
}

/**
 * ktap_re_add() - add a thread and all it leads to without consuming
 * @vm: the VM; @vm->cap holds the thread's slots (clobbered)
 * @l: the list of position @pos
 * @pc: the thread's instruction
 * @pos: its position
 *
 * Depth first, preferred branch first, so @l stays in priority order; an
 * instruction already in @l (from a thread of higher priority) is not
 * added again. Each instruction is visited once per position, which
 * bounds the stack by the program's length.
 */
static void ktap_re_add(struct ktap_re_vm *vm, struct ktap_re_list *l,
			int pc, int pos)
{
	int sp = ktap_re_follow(vm, l, pc, pos, 0);

	while (sp) {
		u16 a, b;

		sp -= 2;
		a = vm->stack[sp];
		b = vm->stack[sp + 1];
		if (a & KTAP_RE_RESTORE)
			vm->cap[a & ~KTAP_RE_RESTORE] = b;
		else
			sp = ktap_re_follow(vm, l, a, pos, sp);
	}
}

/**
 * ktap_re_better() - is a match better than the best so far?
 * @vm: the VM
 * @caps: the slots of the match
 *
 * Return: true if there is no best yet, or the match starts before it,
 * or starts with it and is longer.
 */
static inline bool ktap_re_better(const struct ktap_re_vm *vm,
				  const u16 *caps)
{
	return !vm->found || caps[0] < vm->best[0] ||
	       (caps[0] == vm->best[0] && caps[1] > vm->best[1]);
}

/**
 * ktap_re_consumes() - does an instruction consume the byte at @pos?
 * @vm: the VM
 * @in: a CHAR, ANY or CLASS instruction
 * @pos: the position
 *
 * Return: true if it does.
 */
static inline bool ktap_re_consumes(const struct ktap_re_vm *vm,
				    const struct ktap_re_inst *in, int pos)
{
	unsigned char b;

	if (pos >= vm->len)
		return false;
	b = vm->s[pos];
	switch (in->op) {
	case KTAP_RE_CHAR:
		return b == in->ch;
	case KTAP_RE_ANY:
		return true;
	default:
		return in->set[b / 8] & (1 << (b % 8));
	}
}

/**
 * ktap_re_step() - run the threads of one position
 * @vm: the VM
 * @cl: the threads at @pos
 * @nl: the threads at @pos + 1, built here
 * @pos: the position
 *
 * A thread that reaches MATCH becomes the best match if it is better;
 * once there is one, threads that started after it are dropped.
 */
static void ktap_re_step(struct ktap_re_vm *vm, struct ktap_re_list *cl,
			 struct ktap_re_list *nl, int pos)
{
	int t;

	nl->n = 0;
	for (t = 0; t < cl->n; t++) {
		const u16 *caps = cl->caps + t * vm->nslots;
		const struct ktap_re_inst *in = &vm->prog[cl->pc[t]];

		if (vm->found && caps[0] > vm->best[0])
			continue;
		if (in->op == KTAP_RE_MATCH) {
			if (ktap_re_better(vm, caps)) {
				ktap_re_copy(vm->best, caps, vm->nslots);
				vm->found = true;
			}
			continue;
		}
		if (!ktap_re_consumes(vm, in, pos))
			continue;
		ktap_re_copy(vm->cap, caps, vm->nslots);
		ktap_re_add(vm, nl, cl->pc[t] + 1, pos + 1);
	}
}

/**
 * ktap_re_run() - search the subject
 * @vm: the VM, from ktap_re_vm_init()
 *
 * A new thread starts at every position until a match is found.
 *
 * Return: true if there is a match; its slots are in @vm->best.
 */
static bool ktap_re_run(struct ktap_re_vm *vm)
{
	struct ktap_re_list *cl = &vm->list[0], *nl = &vm->list[1], *tmp;
	int pos;

	for (pos = 0; pos <= vm->len; pos++) {
		if (!vm->found) {
			memset(vm->cap, 0xff, vm->nslots * sizeof(u16));
			ktap_re_add(vm, cl, 0, pos);
		}
		if (vm->found && !cl->n)
			break;
		ktap_re_step(vm, cl, nl, pos);
		tmp = cl;
		cl = nl;
		nl = tmp;
	}
	return vm->found;
}

/**
 * ktap_re_record() - keep a successful match for matched()
 * @c: the context
 * @vm: the VM, after ktap_re_run() found a match
 * @ngroups: the program's groups
 */
static void ktap_re_record(struct ktap_context *c, const struct ktap_re_vm *vm,
			   int ngroups)
{
	int i;

	memmove(c->re_subject, vm->s, vm->len);
	c->re_subject[vm->len] = '\0';
	for (i = 0; i < 2 * ngroups; i++)
		c->re_caps[i] = vm->best[i] == KTAP_RE_UNSET ? -1 : vm->best[i];
	c->re_ngroups = ngroups;
}

/**
 * ktap_re_nthreads() - how many threads a program can have at a position
 * @prog: the program
 * @ninst: its length
 *
 * Return: the number of its CHAR, ANY, CLASS and MATCH instructions.
 */
static int ktap_re_nthreads(const struct ktap_re_inst *prog, int ninst)
{
	int i, n = 0;

	for (i = 0; i < ninst; i++)
		n += prog[i].op == KTAP_RE_CHAR || prog[i].op == KTAP_RE_ANY ||
		     prog[i].op == KTAP_RE_CLASS || prog[i].op == KTAP_RE_MATCH;
	return n;
}

/**
 * ktap_regex_match() - s =~ re: search a string for a regular expression
 * @c: the context
 * @prog: the program (emitted by the translator)
 * @ninst: its length, ARRAY_SIZE(@prog)
 * @ngroups: its groups, group 0 included (<name>_NGROUPS)
 * @subject: the string
 *
 * Records the outcome for matched(): the subject and the groups, or "no
 * match". !~ is the negation.
 *
 * Return: true if @subject contains a match; false if not, or on an error
 * (c->error set: no frame space left, or a program the runtime cannot run).
 */
static __maybe_unused bool ktap_regex_match(struct ktap_context *c,
					    const struct ktap_re_inst *prog,
					    int ninst, int ngroups,
					    const char *subject)
{
	struct ktap_re_vm vm;
	int nthreads;
	size_t size;
	void *mem;
	bool found;

	c->re_ngroups = 0;
	if (unlikely(ninst < 1 || ninst > KTAP_RE_MAXINST || ngroups < 1 ||
		     ngroups > KTAP_RE_MAXGROUPS)) {
		ktap_error(c, "regex too complex for the runtime", NULL);
		return false;
	}
	nthreads = ktap_re_nthreads(prog, ninst);
	size = KTAP_RE_WORKSIZE(ninst, nthreads, ngroups);
	mem = ktap_frame_push(c, size);
	if (unlikely(!mem))
		return false;
	ktap_re_vm_init(&vm, mem, prog, ninst, nthreads, ngroups, subject);
	found = ktap_re_run(&vm);
	if (found)
		ktap_re_record(c, &vm, ngroups);
	ktap_frame_pop(c, size);
	return found;
}

/**
 * ktap_regex_matched() - matched(n): group @n of the last =~ of this hit
 * @c: the context
 * @dst: MAXSTRINGLEN bytes for the text
 * @n: the group; 0 is the whole match
 * @loc: where, for the error, or NULL
 *
 * A group that took no part in the match (the other side of a '|') gives
 * "". It is an error if the last =~ of the hit failed (or there was none),
 * or if the pattern has no group @n; @dst is "" then.
 */
static __maybe_unused void ktap_regex_matched(struct ktap_context *c,
					      char *dst, int64_t n,
					      const char *loc)
{
	int start, end;

	dst[0] = '\0';
	if (!c->re_ngroups) {
		ktap_errorf(c, loc, "matched(%lld): no successful =~ match",
			    (long long)n);
		return;
	}
	if (n < 0 || n >= c->re_ngroups) {
		ktap_errorf(c, loc, "matched(%lld): the pattern has no group %lld",
			    (long long)n, (long long)n);
		return;
	}
	start = c->re_caps[2 * n];
	end = c->re_caps[2 * n + 1];
	if (start < 0 || end < start)
		return;
	memmove(dst, c->re_subject + start, end - start);
	dst[end - start] = '\0';
}

/**
 * ktap_regex_ngroups() - ngroups(): groups of the last =~ of this hit
 * @c: the context
 * @loc: where, for the error, or NULL
 *
 * Return: the groups of the pattern, group 0 included (matched(0) to
 * matched(n - 1) are valid); 0 and an error if the last =~ failed.
 */
static __maybe_unused int64_t ktap_regex_ngroups(struct ktap_context *c,
						 const char *loc)
{
	if (!c->re_ngroups)
		ktap_error(c, "ngroups(): no successful =~ match", loc);
	return c->re_ngroups;
}

#endif /* _KTAP_REGEX_H */
