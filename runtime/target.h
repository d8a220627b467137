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

#endif /* _KTAP_TARGET_H */
