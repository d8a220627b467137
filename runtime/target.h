/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap runtime: target variables ($var, $var->field, @cast, @var).
 *
 * The translator turns DWARF location expressions and BTF parameter
 * positions into C built from these helpers (translator/debuginfo.h):
 * registers by DWARF number, and no-fault reads of kernel memory.
 */
#ifndef _KTAP_TARGET_H
#define _KTAP_TARGET_H

/**
 * ktap_reg() - a register at the probe point, by DWARF x86-64 number
 * @c: the context
 * @dwarf_regno: 0 rax, 1 rdx, 2 rcx, 3 rbx, 4 rsi, 5 rdi, 6 rbp, 7 rsp,
 *	8-15 r8-r15, 16 rip
 *
 * Return: the register's value; 0 with c->error set when this probe has
 * no registers (begin, end, timers) or the number is not a register.
 */
static __maybe_unused unsigned long ktap_reg(struct ktap_context *c,
					     int dwarf_regno)
{
	struct pt_regs *r = c->regs;

	if (!r) {
		ktap_error(c, "no registers at this probe point", c->target_loc);
		return 0;
	}
	switch (dwarf_regno) {
	case 0: return r->ax;
	case 1: return r->dx;
	case 2: return r->cx;
	case 3: return r->bx;
	case 4: return r->si;
	case 5: return r->di;
	case 6: return r->bp;
	case 7: return r->sp;
	case 8: return r->r8;
	case 9: return r->r9;
	case 10: return r->r10;
	case 11: return r->r11;
	case 12: return r->r12;
	case 13: return r->r13;
	case 14: return r->r14;
	case 15: return r->r15;
	case 16: return r->ip;
	}
	ktap_errorf(c, c->target_loc, "DWARF register %d is not available",
		    dwarf_regno);
	return 0;
}

/**
 * ktap_set_reg() - change a register the probed code resumes with (guru)
 * @c: the context
 * @dwarf_regno: as for ktap_reg()
 * @v: the new value
 *
 * Return: @v; with c->error set when there are no registers here.
 */
static __maybe_unused unsigned long ktap_set_reg(struct ktap_context *c,
						 int dwarf_regno,
						 unsigned long v)
{
	struct pt_regs *r = c->regs;
	unsigned long *slot = NULL;

	if (!r) {
		ktap_error(c, "no registers at this probe point", c->target_loc);
		return v;
	}
	switch (dwarf_regno) {
	case 0: slot = &r->ax; break;
	case 1: slot = &r->dx; break;
	case 2: slot = &r->cx; break;
	case 3: slot = &r->bx; break;
	case 4: slot = &r->si; break;
	case 5: slot = &r->di; break;
	case 6: slot = &r->bp; break;
	case 8: slot = &r->r8; break;
	case 9: slot = &r->r9; break;
	case 10: slot = &r->r10; break;
	case 11: slot = &r->r11; break;
	case 12: slot = &r->r12; break;
	case 13: slot = &r->r13; break;
	case 14: slot = &r->r14; break;
	case 15: slot = &r->r15; break;
	}
	if (!slot)
		ktap_errorf(c, c->target_loc, "DWARF register %d cannot be set",
			    dwarf_regno);
	else
		*slot = v;
	return v;
}

/**
 * ktap_kwrite() - write 1, 2, 4 or 8 bytes of kernel memory (guru)
 * @c: the context
 * @addr: the address
 * @size: 1, 2, 4 or 8
 * @v: the value (its low @size bytes are written)
 *
 * Return: @v; with c->error set if the memory cannot be written.
 */
static __maybe_unused unsigned long ktap_kwrite(struct ktap_context *c,
						unsigned long addr, int size,
						unsigned long v)
{
	union {
		u8 b;
		u16 h;
		u32 w;
		u64 q;
	} u;

	switch (size) {
	case 1: u.b = v; break;
	case 2: u.h = v; break;
	case 4: u.w = v; break;
	default: u.q = v; break;
	}
	if (ktap_write_kernel_nofault((void *)addr, &u, size))
		ktap_errorf(c, c->target_loc, "kernel write fault at 0x%lx", addr);
	return v;
}

/**
 * ktap_kread() - read 1, 2, 4 or 8 bytes of kernel memory without faulting
 * @c: the context
 * @addr: the address
 * @size: 1, 2, 4 or 8
 *
 * Return: the bytes, zero-extended; 0 with c->error set on a fault.
 */
static __maybe_unused unsigned long ktap_kread(struct ktap_context *c,
					       unsigned long addr, int size)
{
	if (c->error)
		return 0;
	return (unsigned long)ktap_read_mem(c, addr, size, false, false,
					    c->target_loc);
}

/**
 * ktap_uread() - read 1, 2, 4 or 8 bytes of user memory without faulting
 * @c: the context
 * @addr: the address, in the current task's address space
 * @size: 1, 2, 4 or 8
 *
 * For target variables of user-space probes.
 *
 * Return: the bytes, zero-extended; 0 with c->error set on a fault.
 */
static __maybe_unused unsigned long ktap_uread(struct ktap_context *c,
					       unsigned long addr, int size)
{
	if (c->error)
		return 0;
	return (unsigned long)ktap_read_mem(c, addr, size, false, true,
					    c->target_loc);
}

/**
 * ktap_tgt_printf() - append formatted text to a MAXSTRINGLEN buffer
 * @dst: the buffer ($var$ pretty-printing)
 * @n: bytes already in it
 * @fmt: kernel printf format
 *
 * Return: the new length (at most MAXSTRINGLEN - 1).
 */
static __printf(3, 4) __maybe_unused size_t ktap_tgt_printf(char *dst, size_t n,
							    const char *fmt, ...)
{
	va_list ap;

	if (n >= MAXSTRINGLEN - 1)
		return n;
	va_start(ap, fmt);
	n += vscnprintf(dst + n, MAXSTRINGLEN - n, fmt, ap);
	va_end(ap);
	return n;
}

/* one byte of kernel or user memory; nonzero on a fault */
static inline long ktap_tgt_peek(char *ch, unsigned long addr, bool user)
{
	return user ? copy_from_user_nofault(ch, (const void __user *)addr, 1) :
		      copy_from_kernel_nofault(ch, (const void *)addr, 1);
}

/* ktap_tgt_kstring() and ktap_tgt_ustring() */
static size_t ktap_tgt_string(char *dst, size_t n, unsigned long addr,
			      unsigned long max, bool user)
{
	unsigned long i;
	char ch;

	if (!addr || ktap_tgt_peek(&ch, addr, user))
		return ktap_tgt_printf(dst, n, "%#lx", addr);
	n = ktap_tgt_printf(dst, n, "\"");
	for (i = 0; (!max || i < max) && n < MAXSTRINGLEN - 6; i++) {
		if (ktap_tgt_peek(&ch, addr + i, user) || !ch)
			break;
		if (ch == '"' || ch == '\\')
			n = ktap_tgt_printf(dst, n, "\\%c", ch);
		else if (ch == '\n')
			n = ktap_tgt_printf(dst, n, "\\n");
		else if (ch < 32 || ch > 126)
			n = ktap_tgt_printf(dst, n, "\\x%02x", (u8)ch);
		else
			dst[n++] = ch;
	}
	dst[n] = '\0';
	return ktap_tgt_printf(dst, n, "\"");
}

/**
 * ktap_tgt_kstring() - append a kernel string, quoted and escaped
 * @c: the context
 * @dst: the buffer
 * @n: bytes already in it
 * @addr: the string's address
 * @max: at most this many bytes (a char array's size), 0 for no limit
 *
 * A string that cannot be read appends its address instead, as
 * SystemTap's pretty-printing does.
 *
 * Return: the new length.
 */
static __maybe_unused size_t ktap_tgt_kstring(struct ktap_context *c, char *dst,
					      size_t n, unsigned long addr,
					      unsigned long max)
{
	return ktap_tgt_string(dst, n, addr, max, false);
}

/**
 * ktap_tgt_ustring() - ktap_tgt_kstring() for a string in user memory
 * @c: the context
 * @dst: the buffer
 * @n: bytes already in it
 * @addr: the string's address in the current task
 * @max: at most this many bytes, 0 for no limit
 *
 * Return: the new length.
 */
static __maybe_unused size_t ktap_tgt_ustring(struct ktap_context *c, char *dst,
					      size_t n, unsigned long addr,
					      unsigned long max)
{
	return ktap_tgt_string(dst, n, addr, max, true);
}

#endif /* _KTAP_TARGET_H */
