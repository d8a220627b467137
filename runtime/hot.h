/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap runtime: the tiny helpers generated code calls on every hit.
 *
 * Statement counting (MAXACTION), the script function nesting count
 * (MAXNESTING), the frame arena, the loop over a handler's lock table
 * (this CPU's lock of a statistic taken inline), the current task's name
 * and ids, a system call's arguments, and copying and printing strings
 * and integers cost a few instructions each; called out of line they
 * cost more than their work, several times a hit. So they are inline in
 * both kinds of unit:
 *
 *   - the full build: context.h includes this after struct ktap_context,
 *     ktap_error() and the lock primitives;
 *   - a light unit (api.h): struct ktap_context has only api-list.h's
 *     members, at the offsets measured for the tree, and ktap_error(),
 *     ktap_trylock(), ktap_unlock() and ktap_lock_timeout() are the
 *     prebuilt object's (rwlocks need the kernel's headers; the
 *     statistics' locks are cpulock.h's).
 *
 * Hence this file uses nothing but the members api-list.h lists
 * (actions, nesting, error, frame, frame_used, cpu_offset, task,
 * print_buf, print_len, tp_args), the KTAP_TASK_*, KTAP_REGS_OFF_*,
 * KTAP_PRINT_HDR_SIZE and KTAP_PAGE_SIZE constants (context.h, or
 * measured for a light unit), those functions, ktap_print_str() and
 * ktap_print_long() (print.h's),
 * limits.h, cpulock.h and the compiler: no kernel header, no macro of one
 * (ALIGN, memset, __always_inline).
 */
#ifndef _KTAP_HOT_H
#define _KTAP_HOT_H

/* frame arena allocations are rounded up to 8 bytes */
static inline size_t ktap_frame_round(size_t size)
{
	return (size + 7) & ~(size_t)7;
}

/**
 * ktap_action() - count one statement
 * @c: the context
 * @loc: the statement's location, for the error
 *
 * Return: true (and c->error set) once the hit exceeds MAXACTION.
 */
static inline bool ktap_action(struct ktap_context *c, const char *loc)
{
	if (likely(++c->actions <= MAXACTION))
		return false;
	ktap_error(c, "MAXACTION exceeded", loc);
	return true;
}

/* Count a statement; true past MAXACTION: if (KTAP_ACTION(c, loc)) goto out; */
#define KTAP_ACTION(c, loc) unlikely(ktap_action((c), (loc)))

/**
 * ktap_nest_enter() - enter a script function call
 * @c: the context
 * @loc: the call's location, for the error
 *
 * Return: true if the call may proceed; false (and c->error set) beyond
 * MAXNESTING. Every true is paired with ktap_nest_leave().
 */
static inline bool ktap_nest_enter(struct ktap_context *c, const char *loc)
{
	if (likely(c->nesting < MAXNESTING)) {
		c->nesting++;
		return true;
	}
	ktap_error(c, "MAXNESTING exceeded", loc);
	return false;
}

/**
 * ktap_nest_leave() - leave a script function call
 * @c: the context
 */
static inline void ktap_nest_leave(struct ktap_context *c)
{
	c->nesting--;
}

/**
 * ktap_frame_alloc() - memory on this CPU's frame arena, not zeroed
 * @c: the context
 * @size: bytes (rounded up to 8)
 *
 * For generated handlers, which set each local themselves: zeroing whole
 * frames of string buffers would cost more than the rest of a hit.
 *
 * Return: the memory, or NULL with c->error set when the arena is full.
 */
static inline void *ktap_frame_alloc(struct ktap_context *c, size_t size)
{
	void *p;

	size = ktap_frame_round(size);
	if (unlikely(size > KTAP_FRAME_SIZE - c->frame_used)) {
		ktap_error(c, "MAXNESTING/frame space exceeded", NULL);
		return NULL;
	}
	p = c->frame + c->frame_used;
	c->frame_used += size;
	return p;
}

/**
 * ktap_probe_frame() - a probe handler's frame, its first allocation
 * @c: the context, as ktap_enter() left it
 * @size: bytes (rounded up to 8)
 *
 * Tells the compiler what ktap_enter() set (no statement counted, no
 * call nested, no error, the arena empty and there), so that it drops
 * the checks the handler's first statements would make: the frame's own
 * room, MAXACTION before the first statements, MAXNESTING at the first
 * call. Each is a branch, and in a TCG guest every taken branch ends a
 * translation block.
 *
 * Return: the memory, or NULL with c->error set when the arena is too
 * small for the frame.
 */
static inline __attribute__((__always_inline__))
void *ktap_probe_frame(struct ktap_context *c, size_t size)
{
	if (c->actions || c->nesting || c->error || c->frame_used || !c->frame)
		__builtin_unreachable();
	return ktap_frame_alloc(c, size);
}

/**
 * ktap_frame_push() - allocate zeroed memory on this CPU's frame arena
 * @c: the context
 * @size: bytes (rounded up to 8)
 *
 * Return: the memory, or NULL with c->error set when the arena is full.
 */
static inline void *ktap_frame_push(struct ktap_context *c, size_t size)
{
	void *p = ktap_frame_alloc(c, size);

	/* the builtin: a light unit has no string.h (the kernel's memset) */
	if (p)
		__builtin_memset(p, 0, ktap_frame_round(size));
	return p;
}

/**
 * ktap_frame_pop() - free the most recent ktap_frame_push() of @size bytes
 * @c: the context
 * @size: the size given to ktap_frame_push()
 *
 * Pops are LIFO. A handler that bails out need not pop: ktap_enter()
 * starts every hit with an empty arena.
 */
static inline void ktap_frame_pop(struct ktap_context *c, size_t size)
{
	c->frame_used -= ktap_frame_round(size);
}

/*
 * The current task's name and ids, for the tapset functions a light unit
 * compiles itself (execname(), pid() and tid() are marked "light" in
 * context.stp): read through the context's task pointer at the tree's
 * offsets.
 */

/**
 * ktap_task_comm() - the current task's name (KTAP_TASK_COMM_LEN bytes)
 * @c: the context
 *
 * Return: the kernel's comm array, NUL-padded.
 */
static inline const char *ktap_task_comm(const struct ktap_context *c)
{
	return (const char *)c->task + KTAP_TASK_OFF_COMM;
}

/**
 * ktap_task_tgid() - the current process id
 * @c: the context
 *
 * Return: the task's tgid.
 */
static inline int ktap_task_tgid(const struct ktap_context *c)
{
	return *(const int *)((const char *)c->task + KTAP_TASK_OFF_TGID);
}

/**
 * ktap_task_pid() - the current thread id
 * @c: the context
 *
 * Return: the task's pid.
 */
static inline int ktap_task_pid(const struct ktap_context *c)
{
	return *(const int *)((const char *)c->task + KTAP_TASK_OFF_PID);
}

/**
 * ktap_syscall_nr() - the number of a system call, from its saved registers
 * @uregs: the user registers saved at the call (sys_exit's first argument)
 *
 * Without the kernel's struct pt_regs, so that a light unit's sys_exit
 * dispatcher (emit.c) compiles too.
 *
 * Return: the saved orig_ax.
 */
static inline long ktap_syscall_nr(const void *uregs)
{
	return *(const long *)((const char *)uregs + KTAP_REGS_OFF_ORIG_AX);
}

/**
 * ktap_syscall_arg() - an argument of the system call being entered or left
 * @c: the context of a sys_enter or sys_exit hit (tp_args[0]: the saved
 *	user registers)
 * @n: 1 to 6 (anything above 6 reads the sixth)
 *
 * Return: the register that carries argument @n (x86_64's calling
 * convention for system calls: di, si, dx, r10, r8, r9).
 */
static inline unsigned long ktap_syscall_arg(const struct ktap_context *c,
					     int64_t n)
{
	static const unsigned short off[] = {
		KTAP_REGS_OFF_DI, KTAP_REGS_OFF_SI, KTAP_REGS_OFF_DX,
		KTAP_REGS_OFF_R10, KTAP_REGS_OFF_R8, KTAP_REGS_OFF_R9,
	};
	const char *uregs = (const char *)c->tp_args[0];

	n = n < 1 ? 1 : n > 6 ? 6 : n;
	return *(const unsigned long *)(uregs + off[n - 1]);
}

/**
 * ktap_this_cpulock() - this CPU's lock of a statistic
 * @c: the context (of the CPU the hit runs on)
 * @l: the statistic's per-CPU locks
 *
 * this_cpu_ptr() without the kernel's headers: the context knows the
 * offset of its CPU's per-CPU area.
 *
 * Return: the lock.
 */
static inline ktap_cpulock_t *ktap_this_cpulock(const struct ktap_context *c,
						 ktap_cpulock_t __percpu *l)
{
	return (ktap_cpulock_t *)((unsigned long)l + c->cpu_offset);
}

/**
 * ktap_unlock_globals() - release the locks taken by ktap_lock_globals()
 * @c: the context
 * @locks: the handler's lock table
 * @n: number of entries
 */
static inline __attribute__((__always_inline__))
void ktap_unlock_globals(const struct ktap_context *c,
			 const struct ktap_lock_use *locks, int n)
{
	while (n--) {
		if (locks[n].mode == KTAP_LOCK_THIS_CPU)
			ktap_cpulock_release(ktap_this_cpulock(c, locks[n].cpu));
		else
			ktap_unlock(&locks[n]);
	}
}

/**
 * ktap_lock_globals() - take the locks of the globals a handler uses
 * @c: the context
 * @locks: the handler's lock table, in the script's global order
 * @n: number of entries
 *
 * Inline so that the full build's compiler sees a constant table (one
 * trylock per global). A statistic's lock of this CPU is tried inline in
 * both kinds of unit (a free one is the common case); anything else, and
 * a busy lock, goes to ktap_trylock(), a call in a light unit.
 *
 * Return: true if all are taken; false if one could not be within
 * MAXTRYLOCK tries (those taken are released, the hit is counted as
 * skipped and as a lock timeout, the handler must not run).
 */
static inline __attribute__((__always_inline__))
bool ktap_lock_globals(struct ktap_context *c, const struct ktap_lock_use *locks, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (locks[i].mode == KTAP_LOCK_THIS_CPU &&
		    likely(ktap_cpulock_try(ktap_this_cpulock(c, locks[i].cpu))))
			continue;
		if (likely(ktap_trylock(&locks[i])))
			continue;
		ktap_unlock_globals(c, locks, i);
		ktap_lock_timeout(c);
		return false;
	}
	return true;
}

/*
 * Printing without the format walk. emit.c splits a printf whose
 * conversions are all bare %s and %d at translation time: its literal
 * runs, strings and integers go straight into this CPU's print buffer
 * here. Formatting the line with ktap_printf() was, with the relay
 * write, most of the cost of a hit that prints one. When the buffer is
 * full, the print.h function that flushes it takes over.
 */

/* bytes of output one record can carry (one byte is kept for a NUL) */
#define KTAP_PRINT_CAP (KTAP_PRINT_BUFSIZE - KTAP_PRINT_HDR_SIZE - 1)

/**
 * ktap_print_data() - the output area of this CPU's print buffer
 * @c: the context
 *
 * Return: the byte after the record header.
 */
static inline char *ktap_print_data(const struct ktap_context *c)
{
	return c->print_buf + KTAP_PRINT_HDR_SIZE;
}

/**
 * ktap_word_has_zero() - does a word hold a zero byte?
 * @w: the word
 *
 * Return: nonzero if one of the bytes of @w is 0.
 */
static inline unsigned long ktap_word_has_zero(unsigned long w)
{
	const unsigned long ones = (unsigned long)-1 / 0xff;

	return (w - ones) & ~w & (ones << 7);
}

/**
 * ktap_copy_until() - copy a string up to a stop byte into a buffer
 * @d: where the bytes go
 * @end: the end of the room at @d
 * @sp: the string; on return, the byte that ended the copy: the NUL,
 *	@stop, or the first byte there was no room for
 * @stop: the byte that ends the run besides the NUL ('\0' for none)
 *
 * Scans and copies in one loop, a word at a time while the word holds
 * neither end and does not reach into the next page, then byte by byte,
 * without calling strlen() or memcpy(): the strings a probe copies and
 * prints are short, and in a TCG guest every instruction, call and
 * return of a hit counts.
 *
 * Return: the byte after the last one copied.
 */
static inline __attribute__((__always_inline__))
char *ktap_copy_until(char *d, const char *end, const char **sp, char stop)
{
	const unsigned long stops = (unsigned long)-1 / 0xff * (unsigned char)stop;
	const char *s = *sp;
	unsigned long w;

	while (end - d >= (long)sizeof(w) &&
	       ((unsigned long)s & (KTAP_PAGE_SIZE - 1)) <= KTAP_PAGE_SIZE - sizeof(w)) {
		__builtin_memcpy(&w, s, sizeof(w));
		if (ktap_word_has_zero(w) || ktap_word_has_zero(w ^ stops))
			break;
		__builtin_memcpy(d, &w, sizeof(w));
		d += sizeof(w);
		s += sizeof(w);
	}
	while (d < end && *s && *s != stop)
		*d++ = *s++;
	*sp = s;
	return d;
}

/**
 * ktap_format_decimal() - a signed integer in decimal, as "%lld" prints it
 * @end: the byte after room for at least 20 bytes
 * @v: the value
 *
 * Return: the first byte of the text, which ends just before @end.
 */
static inline char *ktap_format_decimal(char *end, int64_t v)
{
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
	char *p = end;

	do {
		*--p = '0' + u % 10;
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	return p;
}

/**
 * ktap_put_lit() - print a literal run of a format
 * @c: the context
 * @s: the run, NUL-terminated
 * @n: its length, a constant: the copy is a few moves
 */
static inline __attribute__((__always_inline__))
void ktap_put_lit(struct ktap_context *c, const char *s, size_t n)
{
	if (unlikely(n > KTAP_PRINT_CAP - c->print_len)) {
		ktap_print_str(c, s);
		return;
	}
	__builtin_memcpy(ktap_print_data(c) + c->print_len, s, n);
	c->print_len += n;
}

/**
 * ktap_put_str() - print a string (%s)
 * @c: the context
 * @s: the string
 */
static inline __attribute__((__always_inline__))
void ktap_put_str(struct ktap_context *c, const char *s)
{
	char *start = ktap_print_data(c);

	c->print_len = ktap_copy_until(start + c->print_len,
				       start + KTAP_PRINT_CAP, &s, '\0') - start;
	if (unlikely(*s))	/* the buffer is full */
		ktap_print_str(c, s);
}

/**
 * ktap_put_dec() - print an integer in decimal (%d)
 * @c: the context
 * @v: the value
 */
static inline __attribute__((__always_inline__))
void ktap_put_dec(struct ktap_context *c, int64_t v)
{
	char text[24];
	char *p = ktap_format_decimal(text + sizeof(text), v);
	size_t n = text + sizeof(text) - p;
	char *d;

	if (unlikely(n > KTAP_PRINT_CAP - c->print_len)) {
		ktap_print_long(c, v);
		return;
	}
	d = ktap_print_data(c) + c->print_len;
	c->print_len += n;
	while (n--)
		*d++ = *p++;
}

/* ---- array keys (map.h; hotmap.h's inline a[k] <<< v) ---- */

/*
 * Hashing and comparing keys is most of a[k] <<< v, so both are inline
 * loops that read a string a word at a time: the kernel's strnlen(),
 * jhash() and strncmp() are three out-of-line passes over a string, an
 * out-of-line call alone costs as much as a dozen instructions in a TCG
 * guest, and a byte loop ends a translation block per byte (a task name
 * is one or two words).
 */

/**
 * ktap_key_word() - the next word of a key string, zero past its end
 * @s: where the word starts, inside the string or at its NUL
 * @i: its offset in the string (the last byte counted is MAXSTRINGLEN - 2)
 * @last: set when the string ends in this word
 *
 * Reads the bytes after the NUL only when the word does not reach into
 * the next page; they count as zero, so that a key's words depend on its
 * text only.
 *
 * Return: the word, little-endian, the bytes from the NUL on cleared.
 */
static inline __attribute__((__always_inline__))
unsigned long ktap_key_word(const char *s, int i, bool *last)
{
	unsigned long w = 0, z;
	int j;

	if (((unsigned long)s & (KTAP_PAGE_SIZE - 1)) <= KTAP_PAGE_SIZE - sizeof(w)) {
		__builtin_memcpy(&w, s, sizeof(w));
	} else {
		for (j = 0; j < (int)sizeof(w) && s[j]; j++)
			w |= (unsigned long)(unsigned char)s[j] << (8 * j);
	}
	if (i + (int)sizeof(w) >= MAXSTRINGLEN)	/* a longer string is cut */
		w &= ~(0xffUL << (8 * (MAXSTRINGLEN - 1 - i)));
	z = ktap_word_has_zero(w);
	*last = z;
	if (z)	/* the lowest flagged byte is the NUL: keep the bytes below */
		w &= ((z & -z) >> 7) - 1;
	return w;
}

/**
 * ktap_key_str_hash() - fold a key string into a hash
 * @h: the hash so far
 * @s: the string; up to MAXSTRINGLEN - 1 bytes count
 *
 * Return: the new hash.
 */
static inline __attribute__((__always_inline__)) u32 ktap_key_str_hash(u32 h, const char *s)
{
	bool last = false;
	int i;

	for (i = 0; !last; i += sizeof(long)) {
		u64 x = ((u64)ktap_key_word(s + i, i, &last) ^ h) * 0x9e3779b97f4a7c15ull;

		h = (u32)(x >> 32) ^ (u32)x;
	}
	return h;
}

/**
 * ktap_key_long_hash() - fold a long key into a hash
 * @h: the hash so far
 * @n: the key
 *
 * Return: the new hash.
 */
static inline __attribute__((__always_inline__)) u32 ktap_key_long_hash(u32 h, int64_t n)
{
	u64 x = ((u64)n ^ h) * 0x9e3779b97f4a7c15ull;	/* 2^64 / golden ratio */

	return (u32)(x >> 32) ^ (u32)x;
}

/**
 * ktap_key_hash_final() - the last mix of a key tuple's hash
 * @h: the keys' hash
 *
 * Spreads every bit into the low ones, which pick the bucket.
 *
 * Return: the hash.
 */
static inline u32 ktap_key_hash_final(u32 h)
{
	h ^= h >> 16;
	h *= 0x85ebca6b;
	h ^= h >> 13;
	return h;
}

/**
 * ktap_key_str_eq() - are two key strings equal?
 * @a: one
 * @b: the other
 *
 * Return: true if their first MAXSTRINGLEN - 1 bytes (up to a NUL) match.
 */
static inline __attribute__((__always_inline__)) bool ktap_key_str_eq(const char *a, const char *b)
{
	bool last = false, blast;
	int i;

	for (i = 0; !last; i += sizeof(long))
		if (ktap_key_word(a + i, i, &last) != ktap_key_word(b + i, i, &blast))
			return false;
	return true;
}

#endif /* _KTAP_HOT_H */
