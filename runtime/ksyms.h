/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap runtime: where a probe point of the kernel image is in this boot.
 *
 * A kprobe given a symbol name makes the kernel search kallsyms for it,
 * linearly on 6.1: about 25 ms in a TCG guest, so most of the time that
 * a script with thousands of function probes took to start. The
 * translator knows each point's link-time address (probe->link_addr,
 * from DWARF and the image's __mcount_loc); KASLR moved the whole image
 * by one offset, which kfree()'s address gives (KTAP_LINK_KFREE is its
 * link-time address).
 *
 * An address is used only where kallsyms names the probe's symbol and
 * offset there, so a System.map that does not match the running kernel
 * costs a symbol search, never a wrong probe. The check costs about
 * 0.2 ms in a TCG guest; ftrace sites, which ftrace vets again (it takes
 * only its own sites), are checked one in KTAP_KSYMS_CHECK_EVERY, and the
 * first that fails turns the addresses off for the rest of the run.
 */
#ifndef _KTAP_KSYMS_H
#define _KTAP_KSYMS_H

#include <linux/kallsyms.h>
#include <linux/slab.h>

/* kfree()'s link-time address: the generated table's (module tests: none) */
#ifndef KTAP_LINK_KFREE
#define KTAP_LINK_KFREE 0UL
#endif

#define KTAP_KSYMS_CHECK_EVERY 64

static bool ktap_ksyms_wrong;		/* a check failed: use the names */
static unsigned int ktap_ksyms_unchecked;	/* ftrace sites since the last check */

/**
 * ktap_ksyms_names() - whether kallsyms names @probe's point at @addr
 * @probe: a kprobe probe
 * @addr: its address in this boot
 *
 * Return: true if @addr is @probe->symbol + @probe->offset (for a
 * function entry also + 4: past an endbr64).
 */
static bool ktap_ksyms_names(const struct ktap_probe *probe, unsigned long addr)
{
	char sym[KSYM_SYMBOL_LEN], want[32];
	size_t len = strlen(probe->symbol);

	sprint_symbol(sym, addr);
	if (strncmp(sym, probe->symbol, len))
		return false;
	snprintf(want, sizeof(want), "+0x%x/", probe->offset);
	if (!strncmp(sym + len, want, strlen(want)))
		return true;
	return probe->ftrace_site && !strncmp(sym + len, "+0x4/", 5);
}

/**
 * ktap_ksyms_addr() - a probe point's address in this boot
 * @probe: a kprobe probe
 *
 * Return: the address, or 0 if it is not known (the caller gives the
 * kernel the symbol's name).
 */
static unsigned long ktap_ksyms_addr(const struct ktap_probe *probe)
{
	unsigned long addr;

	if (!probe->link_addr || !KTAP_LINK_KFREE || !probe->symbol ||
	    ktap_ksyms_wrong)
		return 0;
	addr = probe->link_addr + ((unsigned long)&kfree - KTAP_LINK_KFREE);
	if (probe->ftrace_site && ktap_ksyms_unchecked++ % KTAP_KSYMS_CHECK_EVERY)
		return addr;
	if (ktap_ksyms_names(probe, addr))
		return addr;
	ktap_ksyms_wrong = true;
	pr_warn("ktap: %s is not at its link-time address + the KASLR offset: "
		"System.map does not match this kernel\n", probe->symbol);
	return 0;
}

#endif /* _KTAP_KSYMS_H */
