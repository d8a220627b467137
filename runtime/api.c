// SPDX-License-Identifier: GPL-2.0
/*
 * ktap runtime: the prebuilt side of api.h.
 *
 * build.c compiles this into two units per kernel tree, after runtime.h:
 *
 *   KTAP_API_LAYOUT: compiled to assembly only, it measures what the
 *	light unit cannot know without the kernel headers (api-list.h's
 *	KTAP_API_CTX and KTAP_API_SIZE); build.c turns the "->NAME VALUE"
 *	lines into api-layout.h, as kbuild's asm-offsets does.
 *   otherwise (the prebuilt object, with module.h and the tapsets'
 *	embedded C before it): the symbols ktapx_<name> that api.h binds
 *	the light unit's calls to, each a call of the runtime's function.
 */
#define KTAP_API_EXPORT
#include "api.h"

#ifdef KTAP_API_LAYOUT

#define KTAP_API_EMIT(name, value) \
	asm volatile("\n.ascii \"->" name " %c0\"" : : "i" (value))

/**
 * ktap_api_layout() - the offsets and sizes of api-list.h, as assembly
 */
void ktap_api_layout(void)
{
#define KTAP_API_CTX(type, name) \
	KTAP_API_EMIT("KTAP_API_OFF_" #name, offsetof(struct ktap_context, name));
#define KTAP_API_SIZE(name, expr) KTAP_API_EMIT("KTAP_API_SIZE_" #name, expr);
#include "api-list.h"
#undef KTAP_API_CTX
#undef KTAP_API_SIZE
}

#else /* the prebuilt object */

/* api.h's copies of the runtime's plain types must be the runtime's */
#define KTAP_API_SAME(api, rt, member) \
	static_assert(offsetof(struct api, member) == offsetof(struct rt, member) && \
		      sizeof(((struct api *)0)->member) == sizeof(((struct rt *)0)->member))
KTAP_API_SAME(ktap_probe_api, ktap_probe, kind);
KTAP_API_SAME(ktap_probe_api, ktap_probe, pp);
KTAP_API_SAME(ktap_probe_api, ktap_probe, symbol);
KTAP_API_SAME(ktap_probe_api, ktap_probe, offset);
KTAP_API_SAME(ktap_probe_api, ktap_probe, period_ns);
KTAP_API_SAME(ktap_probe_api, ktap_probe, per_cpu);
KTAP_API_SAME(ktap_probe_api, ktap_probe, maxactive);
KTAP_API_SAME(ktap_probe_api, ktap_probe, optional);
KTAP_API_SAME(ktap_probe_api, ktap_probe, tracepoint);
KTAP_API_SAME(ktap_probe_api, ktap_probe, tp_func);
KTAP_API_SAME(ktap_probe_api, ktap_probe, entry);
KTAP_API_SAME(ktap_probe_api, ktap_probe, entry_size);
KTAP_API_SAME(ktap_probe_api, ktap_probe, priority);
KTAP_API_SAME(ktap_probe_api, ktap_probe, randomize_ns);
KTAP_API_SAME(ktap_probe_api, ktap_probe, procfs_name);
KTAP_API_SAME(ktap_probe_api, ktap_probe, procfs_mode);
KTAP_API_SAME(ktap_probe_api, ktap_probe, procfs_maxsize);
KTAP_API_SAME(ktap_probe_api, ktap_probe, path);
KTAP_API_SAME(ktap_probe_api, ktap_probe, ref_ctr_offset);
KTAP_API_SAME(ktap_probe_api, ktap_probe, pid);
KTAP_API_SAME(ktap_usym_api, ktap_usym, offset);
KTAP_API_SAME(ktap_usym_api, ktap_usym, size);
KTAP_API_SAME(ktap_usym_api, ktap_usym, name);
KTAP_API_SAME(ktap_usym_file_api, ktap_usym_file, path);
KTAP_API_SAME(ktap_usym_file_api, ktap_usym_file, syms);
KTAP_API_SAME(ktap_usym_file_api, ktap_usym_file, nsyms);
KTAP_API_SAME(ktap_usym_file_api, ktap_usym_file, cfi);
KTAP_API_SAME(ktap_usym_file_api, ktap_usym_file, ncfi);
KTAP_API_SAME(ktap_ucfi_api, ktap_ucfi, start);
KTAP_API_SAME(ktap_ucfi_api, ktap_ucfi, cfa_off);
KTAP_API_SAME(ktap_ucfi_api, ktap_ucfi, cfa_reg);
KTAP_API_SAME(ktap_ucfi_api, ktap_ucfi, ra_off);
KTAP_API_SAME(ktap_ucfi_api, ktap_ucfi, rbp_off);
KTAP_API_SAME(ktap_probe_api, ktap_probe, address);
KTAP_API_SAME(ktap_probe_api, ktap_probe, perf_type);
KTAP_API_SAME(ktap_probe_api, ktap_probe, perf_config);
KTAP_API_SAME(ktap_probe_api, ktap_probe, perf_sample);
KTAP_API_SAME(ktap_probe_api, ktap_probe, perf_freq);
KTAP_API_SAME(ktap_probe_api, ktap_probe, perf_task);
KTAP_API_SAME(ktap_probe_api, ktap_probe, perf_counter);
KTAP_API_SAME(ktap_probe_api, ktap_probe, nf_hook);
KTAP_API_SAME(ktap_probe_api, ktap_probe, nf_pf);
KTAP_API_SAME(ktap_probe_api, ktap_probe, nf_priority);
KTAP_API_SAME(ktap_probe_api, ktap_probe, syscall_nr);
KTAP_API_SAME(ktap_probe_api, ktap_probe, bp_len);
KTAP_API_SAME(ktap_probe_api, ktap_probe, bp_type);
KTAP_API_SAME(ktap_probe_api, ktap_probe, link_addr);
KTAP_API_SAME(ktap_probe_api, ktap_probe, ftrace_site);
static_assert(sizeof(struct ktap_probe_api) == sizeof(struct ktap_probe));
KTAP_API_SAME(ktap_lock_use_api, ktap_lock_use, rw);
KTAP_API_SAME(ktap_lock_use_api, ktap_lock_use, cpu);
KTAP_API_SAME(ktap_lock_use_api, ktap_lock_use, mode);
static_assert(sizeof(struct ktap_lock_use_api) == sizeof(struct ktap_lock_use));
static_assert((int)KTAP_API_PROBE_TRACEPOINT == (int)KTAP_PROBE_TRACEPOINT &&
	      (int)KTAP_API_PROBE_KRETPROBE == (int)KTAP_PROBE_KRETPROBE &&
	      (int)KTAP_API_PROBE_BEGIN == (int)KTAP_PROBE_BEGIN &&
	      (int)KTAP_API_PROBE_NEVER == (int)KTAP_PROBE_NEVER &&
	      (int)KTAP_API_PROBE_PROCFS_WRITE == (int)KTAP_PROBE_PROCFS_WRITE &&
	      (int)KTAP_API_PROBE_PERF == (int)KTAP_PROBE_PERF &&
	      (int)KTAP_API_PROBE_NETFILTER == (int)KTAP_PROBE_NETFILTER &&
	      (int)KTAP_API_PROBE_HWBKPT == (int)KTAP_PROBE_HWBKPT);
static_assert((int)KTAP_API_LOCK_ALL_CPUS == (int)KTAP_LOCK_ALL_CPUS &&
	      (int)KTAP_API_LOCK_READ == (int)KTAP_LOCK_READ);

KTAP_API_SAME(ktap_hist_desc_api, ktap_hist_desc, kind);
KTAP_API_SAME(ktap_hist_desc_api, ktap_hist_desc, lo);
KTAP_API_SAME(ktap_hist_desc_api, ktap_hist_desc, hi);
KTAP_API_SAME(ktap_hist_desc_api, ktap_hist_desc, step);
static_assert(sizeof(struct ktap_hist_desc_api) == sizeof(struct ktap_hist_desc));
KTAP_API_SAME(ktap_map_desc_api, ktap_map_desc, name);
KTAP_API_SAME(ktap_map_desc_api, ktap_map_desc, nkeys);
KTAP_API_SAME(ktap_map_desc_api, ktap_map_desc, key_types);
KTAP_API_SAME(ktap_map_desc_api, ktap_map_desc, value_type);
KTAP_API_SAME(ktap_map_desc_api, ktap_map_desc, max_entries);
KTAP_API_SAME(ktap_map_desc_api, ktap_map_desc, wrap);
KTAP_API_SAME(ktap_map_desc_api, ktap_map_desc, hist);
KTAP_API_SAME(ktap_map_desc_api, ktap_map_desc, var_shift);
static_assert(sizeof(struct ktap_map_desc_api) == sizeof(struct ktap_map_desc));
KTAP_API_SAME(ktap_stat_agg_api, ktap_stat_agg, count);
KTAP_API_SAME(ktap_stat_agg_api, ktap_stat_agg, sum);
KTAP_API_SAME(ktap_stat_agg_api, ktap_stat_agg, min);
KTAP_API_SAME(ktap_stat_agg_api, ktap_stat_agg, max);
KTAP_API_SAME(ktap_stat_agg_api, ktap_stat_agg, avg_s);
KTAP_API_SAME(ktap_stat_agg_api, ktap_stat_agg, variance_s);
KTAP_API_SAME(ktap_stat_agg_api, ktap_stat_agg, shift);
KTAP_API_SAME(ktap_stat_agg_api, ktap_stat_agg, nbuckets);
KTAP_API_SAME(ktap_stat_agg_api, ktap_stat_agg, buckets);
static_assert(sizeof(struct ktap_stat_agg_api) == sizeof(struct ktap_stat_agg));
KTAP_API_SAME(ktap_re_inst_api, ktap_re_inst, op);
KTAP_API_SAME(ktap_re_inst_api, ktap_re_inst, ch);
KTAP_API_SAME(ktap_re_inst_api, ktap_re_inst, x);
KTAP_API_SAME(ktap_re_inst_api, ktap_re_inst, y);
KTAP_API_SAME(ktap_re_inst_api, ktap_re_inst, set);
static_assert(sizeof(struct ktap_re_inst_api) == sizeof(struct ktap_re_inst));
static_assert((int)KTAP_API_RE_CHAR == (int)KTAP_RE_CHAR &&
	      (int)KTAP_API_RE_ANY == (int)KTAP_RE_ANY &&
	      (int)KTAP_API_RE_CLASS == (int)KTAP_RE_CLASS &&
	      (int)KTAP_API_RE_SPLIT == (int)KTAP_RE_SPLIT &&
	      (int)KTAP_API_RE_JMP == (int)KTAP_RE_JMP &&
	      (int)KTAP_API_RE_SAVE == (int)KTAP_RE_SAVE &&
	      (int)KTAP_API_RE_BOL == (int)KTAP_RE_BOL &&
	      (int)KTAP_API_RE_EOL == (int)KTAP_RE_EOL &&
	      (int)KTAP_API_RE_MATCH == (int)KTAP_RE_MATCH);
static_assert(sizeof(union ktap_key_api) == sizeof(union ktap_key) &&
	      sizeof(((union ktap_key_api *)0)->s) == sizeof(((union ktap_key *)0)->s));
static_assert((int)KTAP_API_LONG == (int)KTAP_LONG &&
	      (int)KTAP_API_STRING == (int)KTAP_STRING &&
	      (int)KTAP_API_STATS == (int)KTAP_STATS);

/*
 * The light unit's struct ktap_context declares each listed member with
 * api-list.h's type at the measured offset (KTAP_API_LAYOUT); the type
 * must be the runtime's too, or hot.h's inline code would differ.
 */
#define KTAP_API_CTX(type, name) \
	static_assert(__builtin_types_compatible_p(type, \
			__typeof__(((struct ktap_context *)0)->name)), \
		      "api-list.h: struct ktap_context's " #name " has another type");
#include "api-list.h"
#undef KTAP_API_CTX

#define KTAP_API_FN(ret, name, params, args) \
	ret ktapx_##name params; \
	ret ktapx_##name params { return name args; }
#include "api-list.h"
#undef KTAP_API_FN

/*
 * The variadic ones hand their arguments on: to the runtime's va_list
 * form, or as %pV.
 */
void ktapx_ktap_printf(struct ktap_context *c, const char *fmt, ...);
void ktapx_ktap_printf(struct ktap_context *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ktap_vprintf(c, fmt, ap);
	va_end(ap);
}

void ktapx_ktap_sprintf(struct ktap_context *c, char *dst, const char *fmt, ...);
void ktapx_ktap_sprintf(struct ktap_context *c, char *dst, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ktap_vsprintf(c, dst, fmt, ap);
	va_end(ap);
}

void ktapx_ktap_sprintf_at(struct ktap_context *c, const char *loc, char *dst,
			   const char *fmt, ...);
void ktapx_ktap_sprintf_at(struct ktap_context *c, const char *loc, char *dst,
			   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ktap_vsprintf_at(c, loc, dst, fmt, ap);
	va_end(ap);
}

__printf(3, 4) void ktapx_ktap_errorf(struct ktap_context *c, const char *loc,
				      const char *fmt, ...);
void ktapx_ktap_errorf(struct ktap_context *c, const char *loc, const char *fmt, ...)
{
	struct va_format vaf;
	va_list ap;

	va_start(ap, fmt);
	vaf.fmt = fmt;
	vaf.va = &ap;
	ktap_errorf(c, loc, "%pV", &vaf);
	va_end(ap);
}

__printf(3, 4) size_t ktapx_ktap_tgt_printf(char *dst, size_t n, const char *fmt, ...);
size_t ktapx_ktap_tgt_printf(char *dst, size_t n, const char *fmt, ...)
{
	struct va_format vaf;
	va_list ap;
	size_t len;

	va_start(ap, fmt);
	vaf.fmt = fmt;
	vaf.va = &ap;
	len = ktap_tgt_printf(dst, n, "%pV", &vaf);
	va_end(ap);
	return len;
}

/**
 * ktap_api_check() - what api.h assumes and a compiler cannot check
 *
 * Return: 0, or -EINVAL (the module does not load) if an unlocked lock
 * of this kernel is not all zero bytes, as the light unit's are.
 */
static int ktap_api_check(void)
{
	static const ktap_rwlock_t rw = KTAP_RWLOCK_UNLOCKED(rw);

	if (memchr_inv(&rw, 0, sizeof(rw))) {
		pr_err("%s: unlocked locks are not zero on this kernel\n", KTAP_MODULE_NAME);
		return -EINVAL;
	}
	return 0;
}

#endif /* KTAP_API_LAYOUT */
