/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap runtime: reading kernel and user memory.
 *
 * Every read goes through the kernel's no-fault helpers, so a bad address
 * costs an error, never an oops. strncpy_from_user_nofault() is not
 * exported to modules, so strings are copied with copy_from_user_nofault()
 * in small chunks that never cross a page: a string that ends just before
 * an unmapped page still copies.
 *
 * Two flavours: ktap_user_string() and friends set an error on the context
 * when the memory cannot be read; ktap_user_string_or() and friends copy a
 * fallback string instead, for tapsets that prefer one.
 */
#ifndef _KTAP_UACCESS_H
#define _KTAP_UACCESS_H

#define KTAP_STR_CHUNK 64

/**
 * ktap_fetch_user_words() - copy a user string a word at a time, no fault
 * @dst: at least @size bytes
 * @addr: the string
 * @size: room in @dst, NUL included (>= 1)
 *
 * strncpy_from_user() with page faults disabled: it reads aligned words
 * and stops at the word that holds the NUL, where the chunked copy of
 * ktap_fetch_string() reads KTAP_STR_CHUNK bytes and then searches them.
 * A file name is a word or two, and a probe on every open reads one.
 *
 * Not in NMI context (an int3 kprobe counts): there the user mm may be
 * half switched, which only copy_from_user_nofault() checks (with
 * nmi_uaccess_okay(), not exported).
 *
 * Return: the length, NUL-terminated in @dst, or -EFAULT without saying
 * how much of @dst was written.
 */
static inline long ktap_fetch_user_words(char *dst, unsigned long addr,
					 size_t size)
{
	long ret;

	pagefault_disable();
	ret = strncpy_from_user(dst, (const char __user *)addr, size);
	pagefault_enable();
	if (ret < 0)
		return -EFAULT;
	if (ret >= size)	/* no NUL within @size: truncated */
		ret = size - 1;
	dst[ret] = '\0';
	return ret;
}

/**
 * ktap_fetch_string() - copy a NUL-terminated string without faulting
 * @dst: at least @size bytes; always NUL-terminated on return
 * @addr: the string
 * @size: room in @dst, NUL included (>= 1)
 * @user: @addr is a user address (else a kernel address)
 *
 * Stops at the NUL or after @size - 1 bytes.
 *
 * Return: the length copied, or -EFAULT if a byte before the end of the
 * string could not be read (@dst then holds the bytes before it).
 */
static __maybe_unused long ktap_fetch_string(char *dst, unsigned long addr,
					     size_t size, bool user)
{
	size_t done = 0;

	/* the fast path; a fault is redone below to keep the bytes before it */
	if (user && size > 1 && !in_nmi()) {
		long len = ktap_fetch_user_words(dst, addr, size);

		if (len >= 0)
			return len;
	}
	while (done < size - 1) {
		unsigned long a = addr + done;
		size_t n = min3(size - 1 - done, (size_t)KTAP_STR_CHUNK,
				(size_t)(PAGE_SIZE - offset_in_page(a)));
		long ret;
		char *nul;

		if (user)
			ret = copy_from_user_nofault(dst + done,
						     (const void __user *)a, n);
		else
			ret = copy_from_kernel_nofault(dst + done,
						       (const void *)a, n);
		if (ret) {
			dst[done] = '\0';
			return -EFAULT;
		}
		nul = memchr(dst + done, '\0', n);
		if (nul)
			return nul - dst;
		done += n;
	}
	dst[done] = '\0';
	return done;
}

/**
 * ktap_fetch_user_string() - copy a user string without faulting
 * @dst: @size bytes
 * @addr: user address
 * @size: room in @dst, NUL included
 *
 * Return: as ktap_fetch_string().
 */
static inline long ktap_fetch_user_string(char *dst, unsigned long addr,
					  size_t size)
{
	return ktap_fetch_string(dst, addr, size, true);
}

/**
 * ktap_fetch_kernel_string() - copy a kernel string without faulting
 * @dst: @size bytes
 * @addr: kernel address
 * @size: room in @dst, NUL included
 *
 * Return: as ktap_fetch_string().
 */
static inline long ktap_fetch_kernel_string(char *dst, unsigned long addr,
					    size_t size)
{
	return ktap_fetch_string(dst, addr, size, false);
}

/**
 * ktap_user_string_n() - user_string_n(): at most @n bytes of a user string
 * @c: the context
 * @dst: MAXSTRINGLEN bytes
 * @addr: user address
 * @n: bytes wanted (clamped to MAXSTRINGLEN - 1)
 * @loc: location for the error
 *
 * Return: the length, or -EFAULT with c->error set to
 * "user string copy fault at 0x<addr> <loc>".
 */
static __maybe_unused long ktap_user_string_n(struct ktap_context *c,
					      char *dst, unsigned long addr,
					      int64_t n, const char *loc)
{
	long ret;

	n = clamp_t(int64_t, n, 0, MAXSTRINGLEN - 1);
	ret = ktap_fetch_string(dst, addr, n + 1, true);
	if (ret < 0)
		ktap_errorf(c, loc, "user string copy fault at 0x%lx", addr);
	return ret;
}

/**
 * ktap_user_string() - user_string(): a user string
 * @c: the context
 * @dst: MAXSTRINGLEN bytes
 * @addr: user address
 * @loc: location for the error
 *
 * Return: as ktap_user_string_n().
 */
static inline long ktap_user_string(struct ktap_context *c, char *dst,
				    unsigned long addr, const char *loc)
{
	return ktap_user_string_n(c, dst, addr, MAXSTRINGLEN - 1, loc);
}

/**
 * ktap_user_string_or() - a user string, or @fallback if it cannot be read
 * @dst: MAXSTRINGLEN bytes
 * @addr: user address
 * @fallback: copied to @dst on a fault
 *
 * Return: 0 if the string was read, -EFAULT if @fallback was used.
 */
static inline int ktap_user_string_or(char *dst, unsigned long addr,
				      const char *fallback)
{
	if (ktap_fetch_string(dst, addr, MAXSTRINGLEN, true) >= 0)
		return 0;
	strscpy(dst, fallback, MAXSTRINGLEN);
	return -EFAULT;
}

/**
 * ktap_kernel_string_n() - kernel_string_n(): at most @n bytes of a kernel
 *	string
 * @c: the context
 * @dst: MAXSTRINGLEN bytes
 * @addr: kernel address
 * @n: bytes wanted (clamped to MAXSTRINGLEN - 1)
 * @loc: location for the error
 *
 * Return: the length, or -EFAULT with c->error set to
 * "kernel string copy fault at 0x<addr> <loc>".
 */
static __maybe_unused long ktap_kernel_string_n(struct ktap_context *c,
						char *dst, unsigned long addr,
						int64_t n, const char *loc)
{
	long ret;

	n = clamp_t(int64_t, n, 0, MAXSTRINGLEN - 1);
	ret = ktap_fetch_string(dst, addr, n + 1, false);
	if (ret < 0)
		ktap_errorf(c, loc, "kernel string copy fault at 0x%lx", addr);
	return ret;
}

/**
 * ktap_kernel_string() - kernel_string(): a kernel string
 * @c: the context
 * @dst: MAXSTRINGLEN bytes
 * @addr: kernel address
 * @loc: location for the error
 *
 * Return: as ktap_kernel_string_n().
 */
static inline long ktap_kernel_string(struct ktap_context *c, char *dst,
				      unsigned long addr, const char *loc)
{
	return ktap_kernel_string_n(c, dst, addr, MAXSTRINGLEN - 1, loc);
}

/**
 * ktap_kernel_string_or() - a kernel string, or @fallback if unreadable
 * @dst: MAXSTRINGLEN bytes
 * @addr: kernel address
 * @fallback: copied to @dst on a fault
 *
 * Return: 0 if the string was read, -EFAULT if @fallback was used.
 */
static inline int ktap_kernel_string_or(char *dst, unsigned long addr,
					const char *fallback)
{
	if (ktap_fetch_string(dst, addr, MAXSTRINGLEN, false) >= 0)
		return 0;
	strscpy(dst, fallback, MAXSTRINGLEN);
	return -EFAULT;
}

/**
 * ktap_peek_mem() - read a 1, 2, 4 or 8 byte integer without faulting
 * @addr: the address
 * @size: 1, 2, 4 or 8
 * @is_signed: sign-extend the value
 * @user: @addr is a user address (else a kernel address)
 * @val: the value, when it could be read
 *
 * Return: true if it could be read; false (and *@val 0) if not.
 */
static __maybe_unused bool ktap_peek_mem(unsigned long addr, int size,
					 bool is_signed, bool user, int64_t *val)
{
	union {
		u8 b;
		u16 h;
		u32 w;
		u64 q;
	} v = { .q = 0 };
	long ret;

	if (user)
		ret = copy_from_user_nofault(&v, (const void __user *)addr,
					     size);
	else
		ret = copy_from_kernel_nofault(&v, (const void *)addr, size);
	if (ret) {
		*val = 0;
		return false;
	}
	switch (size) {
	case 1:
		*val = is_signed ? (int64_t)(s8)v.b : v.b;
		break;
	case 2:
		*val = is_signed ? (int64_t)(s16)v.h : v.h;
		break;
	case 4:
		*val = is_signed ? (int64_t)(s32)v.w : v.w;
		break;
	default:
		*val = v.q;
	}
	return true;
}

/**
 * ktap_read_mem() - read a 1, 2, 4 or 8 byte integer without faulting
 * @c: the context
 * @addr: the address
 * @size: 1, 2, 4 or 8
 * @is_signed: sign-extend the value
 * @user: @addr is a user address (else a kernel address)
 * @loc: location for the error
 *
 * Return: the value; 0 with c->error set to "kernel read fault at 0x..."
 * (or "user read fault ...") if it cannot be read.
 */
static __maybe_unused int64_t ktap_read_mem(struct ktap_context *c,
					    unsigned long addr, int size,
					    bool is_signed, bool user,
					    const char *loc)
{
	int64_t v;

	if (!ktap_peek_mem(addr, size, is_signed, user, &v))
		ktap_errorf(c, loc, "%s read fault at 0x%lx",
			    user ? "user" : "kernel", addr);
	return v;
}

/**
 * ktap_write_kernel_nofault() - copy_to_kernel_nofault(), for modules
 * @dst: the kernel address to write
 * @src: the bytes
 * @size: how many
 *
 * The kernel does not export copy_to_kernel_nofault() to modules (6.1), so
 * this is its loop over __put_kernel_nofault(), a byte at a time (guru
 * writes are few and small), with the address checks that
 * copy_from_kernel_nofault() makes: no user address, not the vsyscall
 * page, a canonical one. Memory mapped read-only faults, and fails here.
 *
 * Return: 0; -ERANGE for an address that is not the kernel's; -EFAULT if
 * a byte could not be written (those before it were).
 */
static __maybe_unused long ktap_write_kernel_nofault(void *dst, const void *src,
						     size_t size)
{
	unsigned long vaddr = (unsigned long)dst;
	const u8 *s = src;
	u8 *d = dst;

	if (vaddr < TASK_SIZE_MAX + PAGE_SIZE || vaddr + size < vaddr ||
	    is_vsyscall_vaddr(vaddr) ||
	    !__is_canonical_address(vaddr, boot_cpu_data.x86_virt_bits))
		return -ERANGE;
	pagefault_disable();
	for (; size; size--, d++, s++)
		__put_kernel_nofault(d, s, u8, fault);
	pagefault_enable();
	return 0;
fault:
	pagefault_enable();
	return -EFAULT;
}

/**
 * ktap_read_kernel_long() - kernel_long(): a long from kernel memory
 * @c: the context
 * @addr: the address
 * @loc: location for the error
 *
 * Return: the value, or 0 with c->error set.
 */
static inline int64_t ktap_read_kernel_long(struct ktap_context *c,
					    unsigned long addr,
					    const char *loc)
{
	return ktap_read_mem(c, addr, sizeof(long), true, false, loc);
}

/**
 * ktap_read_kernel_int() - kernel_int(): a sign-extended int
 * @c: the context
 * @addr: the address
 * @loc: location for the error
 *
 * Return: the value, or 0 with c->error set.
 */
static inline int64_t ktap_read_kernel_int(struct ktap_context *c,
					   unsigned long addr, const char *loc)
{
	return ktap_read_mem(c, addr, sizeof(int), true, false, loc);
}

/**
 * ktap_read_kernel_short() - kernel_short(): a sign-extended short
 * @c: the context
 * @addr: the address
 * @loc: location for the error
 *
 * Return: the value, or 0 with c->error set.
 */
static inline int64_t ktap_read_kernel_short(struct ktap_context *c,
					     unsigned long addr,
					     const char *loc)
{
	return ktap_read_mem(c, addr, sizeof(short), true, false, loc);
}

/**
 * ktap_read_kernel_char() - kernel_char(): a sign-extended char
 * @c: the context
 * @addr: the address
 * @loc: location for the error
 *
 * Return: the value, or 0 with c->error set.
 */
static inline int64_t ktap_read_kernel_char(struct ktap_context *c,
					    unsigned long addr,
					    const char *loc)
{
	return ktap_read_mem(c, addr, 1, true, false, loc);
}

/**
 * ktap_read_kernel_pointer() - kernel_pointer(): a pointer
 * @c: the context
 * @addr: the address
 * @loc: location for the error
 *
 * Return: the value, or 0 with c->error set.
 */
static inline int64_t ktap_read_kernel_pointer(struct ktap_context *c,
					       unsigned long addr,
					       const char *loc)
{
	return ktap_read_mem(c, addr, sizeof(void *), false, false, loc);
}

/**
 * ktap_read_user_long() - user_long(): a long from user memory
 * @c: the context
 * @addr: the address
 * @loc: location for the error
 *
 * Return: the value, or 0 with c->error set.
 */
static inline int64_t ktap_read_user_long(struct ktap_context *c,
					  unsigned long addr, const char *loc)
{
	return ktap_read_mem(c, addr, sizeof(long), true, true, loc);
}

/**
 * ktap_read_user_int() - user_int(): a sign-extended int
 * @c: the context
 * @addr: the address
 * @loc: location for the error
 *
 * Return: the value, or 0 with c->error set.
 */
static inline int64_t ktap_read_user_int(struct ktap_context *c,
					 unsigned long addr, const char *loc)
{
	return ktap_read_mem(c, addr, sizeof(int), true, true, loc);
}

/**
 * ktap_read_user_short() - user_short(): a sign-extended short
 * @c: the context
 * @addr: the address
 * @loc: location for the error
 *
 * Return: the value, or 0 with c->error set.
 */
static inline int64_t ktap_read_user_short(struct ktap_context *c,
					   unsigned long addr, const char *loc)
{
	return ktap_read_mem(c, addr, sizeof(short), true, true, loc);
}

/**
 * ktap_read_user_char() - user_char(): a sign-extended char
 * @c: the context
 * @addr: the address
 * @loc: location for the error
 *
 * Return: the value, or 0 with c->error set.
 */
static inline int64_t ktap_read_user_char(struct ktap_context *c,
					  unsigned long addr, const char *loc)
{
	return ktap_read_mem(c, addr, 1, true, true, loc);
}

#endif /* _KTAP_UACCESS_H */
