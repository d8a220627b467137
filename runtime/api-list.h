/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap runtime: the list of what a light unit may use (see api.h).
 *
 * One line per item; the includer defines the macros it needs:
 *
 *   KTAP_API_FN(ret, name, (params), (args))
 *	a runtime function; api.h declares it as the symbol ktapx_<name>,
 *	api.c defines that symbol as a call of the runtime's own function
 *   KTAP_API_CTX(type, name)
 *	a member of struct ktap_context that generated code reads or writes
 *   KTAP_API_SIZE(name, expr)
 *	a size the light unit needs but cannot compute without the kernel
 *	headers; measured once per tree (api-layout.h in the prebuilt dir)
 *
 * Variadic functions are not listed: api.h and api.c name them one by one.
 */

#ifdef KTAP_API_FN
/* errors, limits, locks (context.h); counting, frames and the lock loop are inline (hot.h) */
KTAP_API_FN(void, ktap_error, (struct ktap_context *c, const char *msg, const char *loc), (c, msg, loc))
KTAP_API_FN(void, ktap_request_exit, (struct ktap_context *c), (c))
KTAP_API_FN(void, ktap_warn, (const char *msg), (msg))
KTAP_API_FN(bool, ktap_trylock, (const struct ktap_lock_use *u), (u))
KTAP_API_FN(void, ktap_unlock, (const struct ktap_lock_use *u), (u))
KTAP_API_FN(void, ktap_lock_timeout, (struct ktap_context *c), (c))
/* output (print.h) */
KTAP_API_FN(void, ktap_print_str, (struct ktap_context *c, const char *s), (c, s))
KTAP_API_FN(void, ktap_print_long, (struct ktap_context *c, int64_t v), (c, v))
KTAP_API_FN(void, ktap_print_char, (struct ktap_context *c, int ch), (c, ch))
/* strings (kstring.h) */
KTAP_API_FN(void, ktap_strcpy, (char *dst, const char *src), (dst, src))
KTAP_API_FN(void, ktap_strcat, (char *dst, const char *a, const char *b), (dst, a, b))
KTAP_API_FN(void, ktap_concat, (struct ktap_context *c, char *dst, const char *a, const char *b, const char *loc), (c, dst, a, b, loc))
KTAP_API_FN(int64_t, ktap_strlen, (const char *s), (s))
KTAP_API_FN(int, ktap_strcmp, (const char *a, const char *b), (a, b))
KTAP_API_FN(bool, ktap_streq, (const char *a, const char *b), (a, b))
KTAP_API_FN(void, ktap_substr, (char *dst, const char *s, int64_t start, int64_t len), (dst, s, start, len))
KTAP_API_FN(int64_t, ktap_isinstr, (const char *s, const char *sub), (s, sub))
/* regular expressions (regex.h) */
KTAP_API_FN(bool, ktap_regex_match, (struct ktap_context *c, const struct ktap_re_inst *prog, int ninst, int ngroups, const char *subject), (c, prog, ninst, ngroups, subject))
/* memory (uaccess.h) */
KTAP_API_FN(long, ktap_user_string, (struct ktap_context *c, char *dst, unsigned long addr, const char *loc), (c, dst, addr, loc))
KTAP_API_FN(long, ktap_kernel_string, (struct ktap_context *c, char *dst, unsigned long addr, const char *loc), (c, dst, addr, loc))
KTAP_API_FN(int64_t, ktap_read_kernel_long, (struct ktap_context *c, unsigned long addr, const char *loc), (c, addr, loc))
/* target variables (target.h) */
KTAP_API_FN(unsigned long, ktap_reg, (struct ktap_context *c, int dwarf_regno), (c, dwarf_regno))
KTAP_API_FN(unsigned long, ktap_kread, (struct ktap_context *c, unsigned long addr, int size), (c, addr, size))
KTAP_API_FN(unsigned long, ktap_uread, (struct ktap_context *c, unsigned long addr, int size), (c, addr, size))
KTAP_API_FN(size_t, ktap_tgt_kstring, (struct ktap_context *c, char *dst, size_t n, unsigned long addr, unsigned long max), (c, dst, n, addr, max))
KTAP_API_FN(size_t, ktap_tgt_ustring, (struct ktap_context *c, char *dst, size_t n, unsigned long addr, unsigned long max), (c, dst, n, addr, max))
/* arrays (map.h) */
KTAP_API_FN(struct ktap_map *, ktap_map_new, (const struct ktap_map_desc *d), (d))
KTAP_API_FN(void, ktap_map_free, (struct ktap_map *m), (m))
KTAP_API_FN(int64_t, ktap_map_get_long, (struct ktap_map *m, const union ktap_key *k), (m, k))
KTAP_API_FN(const char *, ktap_map_get_str, (struct ktap_map *m, const union ktap_key *k), (m, k))
KTAP_API_FN(bool, ktap_map_set_long, (struct ktap_context *c, struct ktap_map *m, const union ktap_key *k, int64_t v, const char *loc), (c, m, k, v, loc))
KTAP_API_FN(bool, ktap_map_set_str, (struct ktap_context *c, struct ktap_map *m, const union ktap_key *k, const char *v, const char *loc), (c, m, k, v, loc))
KTAP_API_FN(int64_t, ktap_map_add_long, (struct ktap_context *c, struct ktap_map *m, const union ktap_key *k, int64_t delta, const char *loc), (c, m, k, delta, loc))
KTAP_API_FN(bool, ktap_map_exists, (struct ktap_map *m, const union ktap_key *k), (m, k))
KTAP_API_FN(bool, ktap_map_exists_slice, (struct ktap_map *m, const union ktap_key *k, unsigned int wild_mask), (m, k, wild_mask))
KTAP_API_FN(void, ktap_map_delete, (struct ktap_map *m, const union ktap_key *k), (m, k))
KTAP_API_FN(void, ktap_map_delete_slice, (struct ktap_map *m, const union ktap_key *k, unsigned int wild_mask), (m, k, wild_mask))
KTAP_API_FN(void, ktap_map_clear, (struct ktap_map *m), (m))
KTAP_API_FN(struct ktap_map_iter *, ktap_map_iter_start, (struct ktap_context *c, struct ktap_map *m, int sort_by, int dir, char agg, int64_t limit, const union ktap_key *slice, unsigned int wild_mask, const char *loc), (c, m, sort_by, dir, agg, limit, slice, wild_mask, loc))
KTAP_API_FN(bool, ktap_map_iter_next, (struct ktap_map_iter *it), (it))
KTAP_API_FN(void, ktap_map_iter_end, (struct ktap_map_iter *it), (it))
KTAP_API_FN(int64_t, ktap_map_iter_key_long, (struct ktap_map_iter *it, int n), (it, n))
KTAP_API_FN(const char *, ktap_map_iter_key_str, (struct ktap_map_iter *it, int n), (it, n))
KTAP_API_FN(int64_t, ktap_map_iter_value_long, (struct ktap_map_iter *it), (it))
KTAP_API_FN(const char *, ktap_map_iter_value_str, (struct ktap_map_iter *it), (it))
/* statistics (map.h, stat.h) */
KTAP_API_FN(void, ktap_map_stat_add, (struct ktap_context *c, struct ktap_map *m, const union ktap_key *k, int64_t v, const char *loc), (c, m, k, v, loc))
KTAP_API_FN(bool, ktap_map_stat_get, (struct ktap_map *m, const union ktap_key *k, struct ktap_stat_agg *agg), (m, k, agg))
KTAP_API_FN(int64_t, ktap_stat_avg, (const struct ktap_stat_agg *a), (a))
KTAP_API_FN(int64_t, ktap_stat_variance, (const struct ktap_stat_agg *a), (a))
KTAP_API_FN(int64_t, ktap_stat_bucket, (const struct ktap_stat_agg *a, const struct ktap_hist_desc *h, int64_t index), (a, h, index))
KTAP_API_FN(int64_t, ktap_hist_nbuckets, (const struct ktap_hist_desc *h), (h))
KTAP_API_FN(void, ktap_print_hist, (struct ktap_context *c, const struct ktap_stat_agg *a, const struct ktap_hist_desc *h), (c, a, h))
KTAP_API_FN(void, ktap_print_map, (struct ktap_context *c, struct ktap_map *m, const char *loc), (c, m, loc))
/* procfs probes' $value (procfs.h) */
KTAP_API_FN(void, ktap_procfs_get, (struct ktap_context *c, char *dst), (c, dst))
KTAP_API_FN(void, ktap_procfs_set, (struct ktap_context *c, const char *v), (c, v))
KTAP_API_FN(void, ktap_procfs_append, (struct ktap_context *c, const char *v), (c, v))
/* tracepoint probes (module.h) */
KTAP_API_FN(void, ktap_tracepoint_hit, (void *slot, const unsigned long *args), (slot, args))
KTAP_API_FN(void, ktap_tracepoint_hit_index, (int i, const unsigned long *args), (i, args))
#endif

#ifdef KTAP_API_CTX
KTAP_API_CTX(struct pt_regs *, regs)
KTAP_API_CTX(const struct ktap_probe *, probe)
KTAP_API_CTX(const char *, pp)
KTAP_API_CTX(int64_t, retval)
KTAP_API_CTX(const char *, error)
KTAP_API_CTX(const char *, error_site)
/* hot.h's, inline in the light unit */
KTAP_API_CTX(unsigned long, actions)
KTAP_API_CTX(int, nesting)
KTAP_API_CTX(char *, frame)
KTAP_API_CTX(size_t, frame_used)
KTAP_API_CTX(char *, scratch)
KTAP_API_CTX(const unsigned long *, tp_args)
KTAP_API_CTX(const char *, target_loc)
KTAP_API_CTX(unsigned long, cpu_offset)
KTAP_API_CTX(int, cpu)
KTAP_API_CTX(struct task_struct *, task)
KTAP_API_CTX(char *, print_buf)
KTAP_API_CTX(size_t, print_len)
#endif

#ifdef KTAP_API_SIZE
KTAP_API_SIZE(context, sizeof(struct ktap_context))
KTAP_API_SIZE(rwlock, sizeof(ktap_rwlock_t))
KTAP_API_SIZE(max_keys, KTAP_MAX_KEYS)
KTAP_API_SIZE(task_comm, offsetof(struct task_struct, comm))
KTAP_API_SIZE(task_comm_len, TASK_COMM_LEN)
KTAP_API_SIZE(task_tgid, offsetof(struct task_struct, tgid))
KTAP_API_SIZE(task_pid, offsetof(struct task_struct, pid))
KTAP_API_SIZE(hist_max_buckets, KTAP_HIST_MAX_BUCKETS)
KTAP_API_SIZE(print_hdr, sizeof(struct ktap_rec_hdr))
KTAP_API_SIZE(page_size, PAGE_SIZE)
KTAP_API_SIZE(regs_di, offsetof(struct pt_regs, di))
KTAP_API_SIZE(regs_si, offsetof(struct pt_regs, si))
KTAP_API_SIZE(regs_dx, offsetof(struct pt_regs, dx))
KTAP_API_SIZE(regs_r10, offsetof(struct pt_regs, r10))
KTAP_API_SIZE(regs_r8, offsetof(struct pt_regs, r8))
KTAP_API_SIZE(regs_r9, offsetof(struct pt_regs, r9))
KTAP_API_SIZE(regs_orig_ax, offsetof(struct pt_regs, orig_ax))
/* hotmap.h's a[k] <<< v: this CPU's table of a statistics array */
KTAP_API_SIZE(map_tables, offsetof(struct ktap_map, tables))
KTAP_API_SIZE(map_val_off, offsetof(struct ktap_map, val_off))
KTAP_API_SIZE(map_table_size, sizeof(struct ktap_map_table))
KTAP_API_SIZE(map_table_heads, offsetof(struct ktap_map_table, heads))
KTAP_API_SIZE(map_table_mask, offsetof(struct ktap_map_table, mask))
KTAP_API_SIZE(map_entry_hnode, offsetof(struct ktap_map_entry, hnode))
KTAP_API_SIZE(map_entry_hash, offsetof(struct ktap_map_entry, hash))
KTAP_API_SIZE(map_entry_keys, offsetof(struct ktap_map_entry, keys))
KTAP_API_SIZE(stat_count, offsetof(struct ktap_stat_data, count))
KTAP_API_SIZE(stat_sum, offsetof(struct ktap_stat_data, sum))
KTAP_API_SIZE(stat_min, offsetof(struct ktap_stat_data, min))
KTAP_API_SIZE(stat_max, offsetof(struct ktap_stat_data, max))
#endif
