/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap runtime: the tiny helpers generated code calls on every hit.
 *
 * Statement counting (MAXACTION), the script function nesting count
 * (MAXNESTING) and the frame arena cost a few instructions each; called
 * out of line they cost more than their work, several times a hit. So
 * they are inline in both kinds of unit:
 *
 *   - the full build: context.h includes this after struct ktap_context
 *     and ktap_error();
 *   - a light unit (api.h): struct ktap_context has only api-list.h's
 *     members, at the offsets measured for the tree, and ktap_error() is
 *     the prebuilt object's.
 *
 * Hence this file uses nothing but the members api-list.h lists
 * (actions, nesting, error, frame, frame_used), ktap_error(), limits.h
 * and the compiler: no kernel header, no macro of one (ALIGN, memset).
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

#endif /* _KTAP_HOT_H */
