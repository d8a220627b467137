/* target-private.h - what the files of target/ share and no other file
 * needs: the debuginfo handles of a target, and the KTAP_DEBUGINFO policy
 * (target.c). kernel.c and (later) program.c include it. */
#ifndef KTAP_TARGET_PRIVATE_H
#define KTAP_TARGET_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

struct target;

/* a target's debuginfo, opened on first use */
struct target_debuginfo {
	bool dwarf_tried, btf_tried;
	struct dw *dw;
	struct btf_kernel *btf;
	char *dw_why, *btf_why;
};

struct target_debuginfo *target_di(struct target *t);	/* made on first use */
void target_forget_debuginfo(void);	/* target_select(): a fresh start */
int target_selection(void);	/* kernel.c: target_select() calls so far, so
				 * that program.c starts afresh after one */
bool target_dwarf_disabled(void);	/* KTAP_DEBUGINFO=btf or none */
bool target_btf_disabled(void);		/* KTAP_DEBUGINFO=none */
/* the sorted 8-byte words of the kernel's table at [start, stop), NULL */
uint64_t *target_image_words(struct target *k, uint64_t start, uint64_t stop, int *n);

#endif
