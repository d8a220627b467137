/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap runtime: associative arrays.
 *
 * A script array is a struct ktap_map: a hash table over the key tuple
 * (1 to 9 components, each a long or a string), whose values are longs,
 * strings or statistics. Everything is allocated by ktap_map_new() at
 * module init: the entries, their key and value storage, the hash heads
 * and the foreach iterators. Probe context never allocates; a full array
 * is an error ("array 'a' is full (MAXMAPENTRIES 2048)"), or, for
 * "global a%[N]", the oldest entry is reused.
 *
 * Locking is taken by generated code (context.h). An array of longs or
 * strings has an rwlock: lookups under the read lock, changes and foreach
 * under the write lock. Statistics are different: a statistics array keeps
 * one table per possible CPU, and one lock per CPU. a[k] <<< v takes only
 * its own CPU's lock and finds or inserts the key in its own CPU's table,
 * so CPUs adding at once share no lock and no cache line (when the key is
 * there already: an insertion also bumps the array's creation counter).
 * The extractors, foreach, delete and 'in' take every CPU's lock and so
 * see every table at rest while they merge them. A statistic without keys
 * (global s; s <<< v) is a statistics array with nkeys = 0: one entry per
 * CPU.
 *
 * Memory per array and table, with S = MAXSTRINGLEN (512), N = max
 * entries (MAXMAPENTRIES, 2048), B = histogram buckets (128 for log):
 *   entry   48 + 8 * nkeys + S * (string keys) + value
 *           value: long 8, string S, statistic 56 + 8 B
 *   table   N * entry + 8 * N (hash heads, N rounded up to a power of 2)
 *   arrays  one table; statistics one table per possible CPU
 *   foreach 24 * N * tables per nesting level (KTAP_MAP_ITER_DEPTH, 2)
 * e.g. a[long] = long: 128 KiB + 16 KiB + 96 KiB of iterators = 240 KiB;
 * a[string] = string: 2.2 MiB; a[long] <<< v with @hist_log: 2.3 MiB per
 * CPU.
 */
#ifndef _KTAP_MAP_H
#define _KTAP_MAP_H

#include <linux/list.h>
#include <linux/log2.h>
#include <linux/rculist.h>
#include <linux/sort.h>

/* Entries of an array without a size ("global a", not "global a[N]"). */
#ifndef MAXMAPENTRIES
#define MAXMAPENTRIES 2048
#endif

/*
 * foreach loops over the same array that may be nested (SystemTap allows
 * nesting read-only loops); one more is the error "nested foreach over
 * array 'a'".
 */
#ifndef KTAP_MAP_ITER_DEPTH
#define KTAP_MAP_ITER_DEPTH 2
#endif

#define KTAP_MAX_KEYS 9

/* Arrays are allocated at module init; too big is ENOMEM, not a warning. */
#define KTAP_MAP_GFP (GFP_KERNEL | __GFP_NOWARN)

/**
 * enum ktap_vtype - type of a key component or of a value
 * @KTAP_LONG: int64_t
 * @KTAP_STRING: a string, up to MAXSTRINGLEN - 1 bytes
 * @KTAP_STATS: a statistic (values only)
 */
enum ktap_vtype {
	KTAP_LONG,
	KTAP_STRING,
	KTAP_STATS,
};

/**
 * union ktap_key - one key component
 * @n: a long
 * @s: a string
 */
union ktap_key {
	int64_t n;
	const char *s;
};

/**
 * struct ktap_map_desc - what generated code tells ktap_map_new()
 * @name: the script's name of the array, for errors
 * @nkeys: key components, 1..9; 0 for a statistic without keys
 * @key_types: KTAP_LONG or KTAP_STRING, per component
 * @value_type: KTAP_LONG, KTAP_STRING or KTAP_STATS
 * @max_entries: 0 for MAXMAPENTRIES
 * @wrap: when full, reuse the oldest entry instead of failing (a%[N])
 * @hist: statistics: the histogram to keep
 * @var_shift: statistics: the @variance bit shift, 0..62 (@variance(a, b))
 */
struct ktap_map_desc {
	const char *name;
	int nkeys;
	enum ktap_vtype key_types[KTAP_MAX_KEYS];
	enum ktap_vtype value_type;
	int64_t max_entries;
	bool wrap;
	struct ktap_hist_desc hist;
	int var_shift;
};

/**
 * struct ktap_map_entry - one element; its keys and value follow it
 * @hnode: in its hash chain
 * @node: in the table's list of live entries (oldest first), or free list
 * @seq: when it was created, in the array's order
 * @hash: hash of its keys
 * @mark: foreach: this key was seen on another CPU already
 * @keys: the keys; a string key points to the entry's own storage
 *
 * Then, at the array's val_off: int64_t, char[MAXSTRINGLEN] or struct
 * ktap_stat_data; at str_off: MAXSTRINGLEN bytes per string key.
 */
struct ktap_map_entry {
	struct hlist_node hnode;
	struct list_head node;
	u64 seq;
	u32 hash;
	u32 mark;
	union ktap_key keys[];
};

/**
 * struct ktap_map_table - the entries of an array (of one CPU, for stats)
 * @heads: hash chains, @mask + 1 of them
 * @mask: number of chains - 1
 * @live: entries in use, oldest first
 * @free: entries not in use
 * @n: entries in use
 * @mem: the entries, stride bytes each
 */
struct ktap_map_table {
	struct hlist_head *heads;
	u32 mask;
	struct list_head live;
	struct list_head free;
	int64_t n;
	char *mem;
} ____cacheline_aligned_in_smp;	/* a CPU inserting changes only its own */

/**
 * struct ktap_map_item - one element a foreach visits
 * @e: the entry (for statistics: the entry of the lowest CPU)
 * @sortval: the value it is sorted by (long value, statistic aggregate)
 * @seq: creation order (for statistics: of the earliest CPU's entry)
 */
struct ktap_map_item {
	struct ktap_map_entry *e;
	int64_t sortval;
	u64 seq;
};

struct ktap_map;

/**
 * struct ktap_map_iter - a foreach in progress
 * @m: the array
 * @items: what it visits, in order; capacity: every entry of every table
 * @n: number of @items
 * @pos: current item, -1 before the first
 * @sort_by: 0 the value, n the n-th key
 * @dir: 1 ascending, -1 descending, 0 creation order
 * @busy: in use
 */
struct ktap_map_iter {
	struct ktap_map *m;
	struct ktap_map_item *items;
	int64_t n, pos;
	int sort_by, dir;
	bool busy;
};

/**
 * struct ktap_map - a script array
 * @d: its description (a copy)
 * @max_entries: entries per table
 * @nbuckets: statistics: histogram buckets
 * @val_off: offset of the value in an entry
 * @val_size: size of the value
 * @str_off: offset of the first string key's storage
 * @stride: size of an entry
 * @ntables: tables in @tables: nr_cpu_ids for statistics, else 1
 * @tables: the tables; for statistics indexed by CPU, @mem NULL for a CPU
 *	that is not possible
 * @seq: creation counter; on a cache line of its own with what foreach
 *	changes, away from what every <<< reads
 * @mark: foreach: generation of ktap_map_entry.mark
 * @iters: the foreach iterators
 */
struct ktap_map {
	struct ktap_map_desc d;
	int64_t max_entries;
	int nbuckets;
	size_t val_off, val_size, str_off, stride;
	int ntables;
	struct ktap_map_table *tables;
	atomic64_t seq ____cacheline_aligned_in_smp;
	u32 mark;
	struct ktap_map_iter iters[KTAP_MAP_ITER_DEPTH];
};

/* Iterate over the allocated tables of an array. */
#define ktap_map_for_each_table(m, t)					\
	for ((t) = (m)->tables; (t) < (m)->tables + (m)->ntables; (t)++) \
		if (!(t)->mem) {} else

/* ---- setup ---- */

/**
 * ktap_map_table_init() - allocate and link the entries of one table
 * @m: the array (layout computed)
 * @t: the table
 * @node: NUMA node to allocate on
 *
 * Return: 0 or -ENOMEM.
 */
static int ktap_map_table_init(struct ktap_map *m, struct ktap_map_table *t,
			       int node)
{
	size_t nheads = roundup_pow_of_two(max_t(int64_t, m->max_entries, 16));
	int64_t i;
	int k;

	t->heads = kvmalloc_node(array_size(nheads, sizeof(*t->heads)),
				 KTAP_MAP_GFP, node);
	t->mem = kvzalloc_node(array_size(m->stride, m->max_entries),
			       KTAP_MAP_GFP, node);
	if (!t->heads || !t->mem)
		return -ENOMEM;
	t->mask = nheads - 1;
	for (i = 0; i < nheads; i++)
		INIT_HLIST_HEAD(&t->heads[i]);
	INIT_LIST_HEAD(&t->live);
	INIT_LIST_HEAD(&t->free);
	for (i = 0; i < m->max_entries; i++) {
		struct ktap_map_entry *e = (void *)(t->mem + i * m->stride);
		char *str = (char *)e + m->str_off;

		for (k = 0; k < m->d.nkeys; k++) {
			if (m->d.key_types[k] != KTAP_STRING)
				continue;
			e->keys[k].s = str;
			str += ALIGN(MAXSTRINGLEN, 8);
		}
		INIT_HLIST_NODE(&e->hnode);
		list_add_tail(&e->node, &t->free);
	}
	return 0;
}

/**
 * ktap_map_layout() - check a description, lay out the entries
 * @m: the array, with @m->d set
 *
 * Return: 0, -EINVAL for a description the runtime cannot keep, -E2BIG
 * for more than 2 GiB of entries.
 */
static int ktap_map_layout(struct ktap_map *m)
{
	const struct ktap_map_desc *d = &m->d;
	int k, nstr = 0;

	if (d->nkeys < 0 || d->nkeys > KTAP_MAX_KEYS || d->max_entries < 0 ||
	    (!d->nkeys && d->value_type != KTAP_STATS))
		return -EINVAL;
	for (k = 0; k < d->nkeys; k++) {
		if (d->key_types[k] == KTAP_STRING)
			nstr++;
		else if (d->key_types[k] != KTAP_LONG)
			return -EINVAL;
	}
	m->max_entries = d->max_entries ?: MAXMAPENTRIES;
	if (!d->nkeys)
		m->max_entries = 1;
	switch (d->value_type) {
	case KTAP_LONG:
		m->val_size = sizeof(int64_t);
		break;
	case KTAP_STRING:
		m->val_size = ALIGN(MAXSTRINGLEN, 8);
		break;
	case KTAP_STATS:
		if (!ktap_hist_valid(&d->hist) || d->var_shift < 0 ||
		    d->var_shift > KTAP_STAT_MAX_SHIFT)
			return -EINVAL;
		m->nbuckets = ktap_hist_nbuckets(&d->hist);
		m->val_size = struct_size((struct ktap_stat_data *)NULL, hist,
					  m->nbuckets);
		break;
	default:
		return -EINVAL;
	}
	m->val_off = struct_size((struct ktap_map_entry *)NULL, keys, d->nkeys);
	m->str_off = m->val_off + m->val_size;
	m->stride = m->str_off + nstr * ALIGN(MAXSTRINGLEN, 8);
	if (m->max_entries > INT_MAX / m->stride)
		return -E2BIG;
	return 0;
}

/**
 * ktap_map_free() - free an array
 * @m: the array, or NULL
 */
static __maybe_unused void ktap_map_free(struct ktap_map *m)
{
	int i;

	if (!m)
		return;
	for (i = 0; m->tables && i < m->ntables; i++) {
		kvfree(m->tables[i].heads);
		kvfree(m->tables[i].mem);
	}
	kfree(m->tables);
	for (i = 0; i < KTAP_MAP_ITER_DEPTH; i++)
		kvfree(m->iters[i].items);
	kfree(m);
}

/**
 * ktap_map_new() - allocate an array and everything it will ever use
 * @d: its description (copied)
 *
 * Module init only (GFP_KERNEL). A description the runtime cannot keep
 * (a bad histogram, more than 9 keys) is logged and fails too.
 *
 * Return: the array, or NULL.
 */
static __maybe_unused struct ktap_map *ktap_map_new(
	const struct ktap_map_desc *d)
{
	struct ktap_map *m = kzalloc(sizeof(*m), KTAP_MAP_GFP);
	int64_t cap = 0;
	int i;

	if (!m)
		return NULL;
	m->d = *d;
	if (ktap_map_layout(m)) {
		pr_err("ktap: array '%s': invalid description or too big\n",
		       d->name);
		goto fail;
	}
	m->ntables = d->value_type == KTAP_STATS ? nr_cpu_ids : 1;
	m->tables = kcalloc(m->ntables, sizeof(*m->tables), KTAP_MAP_GFP);
	if (!m->tables)
		goto fail;
	atomic64_set(&m->seq, 0);
	for (i = 0; i < m->ntables; i++) {
		if (d->value_type == KTAP_STATS && !cpu_possible(i))
			continue;
		if (ktap_map_table_init(m, &m->tables[i],
					d->value_type == KTAP_STATS ?
					cpu_to_node(i) : NUMA_NO_NODE))
			goto fail;
		cap += m->max_entries;
	}
	for (i = 0; i < KTAP_MAP_ITER_DEPTH; i++) {
		m->iters[i].m = m;
		m->iters[i].items = kvmalloc_array(cap,
						   sizeof(struct ktap_map_item),
						   KTAP_MAP_GFP);
		if (!m->iters[i].items)
			goto fail;
	}
	return m;

fail:
	ktap_map_free(m);
	return NULL;
}

/* ---- entries ---- */

/**
 * ktap_map_val() - the value of an entry
 * @m: the array
 * @e: the entry
 *
 * Return: its int64_t, char[MAXSTRINGLEN] or struct ktap_stat_data.
 */
static inline void *ktap_map_val(const struct ktap_map *m,
				 const struct ktap_map_entry *e)
{
	return (char *)e + m->val_off;
}

/* the key hashing and comparing primitives are hot.h's (light units inline them) */

/**
 * ktap_map_hash() - hash a key tuple
 * @m: the array
 * @k: the keys (@m->d.nkeys of them; may be NULL when there are none)
 *
 * Return: the hash; strings count up to MAXSTRINGLEN - 1 bytes.
 */
static __always_inline u32 ktap_map_hash(const struct ktap_map *m,
					 const union ktap_key *k)
{
	u32 h = 0x811c9dc5;	/* the seed */
	int i;

	for (i = 0; i < m->d.nkeys; i++) {
		if (m->d.key_types[i] == KTAP_STRING)
			h = ktap_key_str_hash(h, k[i].s);
		else
			h = ktap_key_long_hash(h, k[i].n);
	}
	return ktap_key_hash_final(h);
}

/**
 * ktap_map_match() - do an entry's keys match a (partial) key tuple?
 * @m: the array
 * @e: the entry
 * @k: the keys
 * @wild: components to ignore, bit i for key i + 1
 *
 * Return: true if every component not in @wild is equal.
 */
static __always_inline bool ktap_map_match(const struct ktap_map *m,
					   const struct ktap_map_entry *e,
					   const union ktap_key *k,
					   unsigned int wild)
{
	int i;

	for (i = 0; i < m->d.nkeys; i++) {
		if (wild & (1U << i))
			continue;
		if (m->d.key_types[i] == KTAP_STRING) {
			if (!ktap_key_str_eq(e->keys[i].s, k[i].s))
				return false;
		} else if (e->keys[i].n != k[i].n) {
			return false;
		}
	}
	return true;
}

/**
 * ktap_map_find() - look a key tuple up in one table
 * @m: the array
 * @t: the table
 * @k: the keys
 * @hash: ktap_map_hash() of @k
 *
 * The caller holds @t's lock: the array's, or for statistics @t's CPU's.
 *
 * Return: the entry, or NULL.
 */
static __always_inline struct ktap_map_entry *
ktap_map_find(const struct ktap_map *m, struct ktap_map_table *t,
	      const union ktap_key *k, u32 hash)
{
	struct ktap_map_entry *e;

	hlist_for_each_entry_rcu(e, &t->heads[hash & t->mask], hnode, true) {
		if (e->hash == hash && ktap_map_match(m, e, k, 0))
			return e;
	}
	return NULL;
}

/**
 * ktap_map_full() - report that an array is full
 * @c: the context
 * @m: the array
 * @loc: the script location
 */
static void ktap_map_full(struct ktap_context *c, const struct ktap_map *m,
			  const char *loc)
{
	ktap_errorf(c, loc, "array '%s' is full (MAXMAPENTRIES %lld)",
		    m->d.name, (long long)m->max_entries);
}

/**
 * ktap_map_insert() - create an entry for a key tuple
 * @c: the context
 * @m: the array
 * @t: the table
 * @k: the keys (not in @t yet)
 * @hash: their hash
 * @loc: the script location, for the error
 *
 * Takes a free entry or, if the table is full and the array wraps, the
 * oldest one. Copies the keys in, zeroes the value, links it last.
 *
 * Return: the entry, or NULL (and c->error set) when full.
 */
static noinline struct ktap_map_entry *
ktap_map_insert(struct ktap_context *c, struct ktap_map *m,
		struct ktap_map_table *t, const union ktap_key *k, u32 hash,
		const char *loc)
{
	struct ktap_map_entry *e;
	int i;

	if (!list_empty(&t->free)) {
		e = list_first_entry(&t->free, struct ktap_map_entry, node);
		t->n++;
	} else if (m->d.wrap && !list_empty(&t->live)) {
		e = list_first_entry(&t->live, struct ktap_map_entry, node);
		hlist_del_rcu(&e->hnode);
	} else {
		ktap_map_full(c, m, loc);
		return NULL;
	}
	list_del(&e->node);
	e->hash = hash;
	e->seq = atomic64_inc_return(&m->seq);
	for (i = 0; i < m->d.nkeys; i++) {
		if (m->d.key_types[i] == KTAP_STRING)
			strscpy((char *)e->keys[i].s, k[i].s, MAXSTRINGLEN);
		else
			e->keys[i].n = k[i].n;
	}
	memset(ktap_map_val(m, e), 0, m->val_size);
	list_add_tail(&e->node, &t->live);
	hlist_add_head_rcu(&e->hnode, &t->heads[hash & t->mask]);
	return e;
}

/**
 * ktap_map_get_entry() - find or create the entry of a key tuple
 * @c: the context
 * @m: the array
 * @t: the table
 * @k: the keys
 * @loc: the script location
 *
 * Return: the entry, or NULL (and c->error set) when full.
 */
static __always_inline struct ktap_map_entry *
ktap_map_get_entry(struct ktap_context *c, struct ktap_map *m,
		   struct ktap_map_table *t, const union ktap_key *k,
		   const char *loc)
{
	u32 hash = ktap_map_hash(m, k);
	struct ktap_map_entry *e = ktap_map_find(m, t, k, hash);

	return e ?: ktap_map_insert(c, m, t, k, hash, loc);
}

/**
 * ktap_map_remove() - put an entry back on the free list
 * @t: its table
 * @e: the entry
 */
static void ktap_map_remove(struct ktap_map_table *t, struct ktap_map_entry *e)
{
	hlist_del_rcu(&e->hnode);
	list_move(&e->node, &t->free);
	t->n--;
}

/* ---- long and string values ---- */

/**
 * ktap_map_lookup() - the entry of a key tuple in an array's only table
 * @m: the array (not statistics)
 * @k: the keys
 *
 * Return: the entry, or NULL.
 */
static inline struct ktap_map_entry *ktap_map_lookup(struct ktap_map *m,
						     const union ktap_key *k)
{
	return ktap_map_find(m, &m->tables[0], k, ktap_map_hash(m, k));
}

/**
 * ktap_map_get_long() - a[k] of a long array
 * @m: the array
 * @k: the keys
 *
 * Read lock.
 *
 * Return: the value, 0 if absent.
 */
static __maybe_unused int64_t ktap_map_get_long(struct ktap_map *m,
						const union ktap_key *k)
{
	struct ktap_map_entry *e = ktap_map_lookup(m, k);

	return e ? *(int64_t *)ktap_map_val(m, e) : 0;
}

/**
 * ktap_map_get_str() - a[k] of a string array
 * @m: the array
 * @k: the keys
 *
 * Read lock.
 *
 * Return: the value, valid while the lock is held; "" if absent.
 */
static __maybe_unused const char *ktap_map_get_str(struct ktap_map *m,
						   const union ktap_key *k)
{
	struct ktap_map_entry *e = ktap_map_lookup(m, k);

	return e ? ktap_map_val(m, e) : "";
}

/**
 * ktap_map_set_long() - a[k] = v
 * @c: the context
 * @m: the array
 * @k: the keys
 * @v: the value
 * @loc: the script location
 *
 * Write lock.
 *
 * Return: true, or false (and c->error set) when the array is full.
 */
static __maybe_unused bool ktap_map_set_long(struct ktap_context *c,
					     struct ktap_map *m,
					     const union ktap_key *k,
					     int64_t v, const char *loc)
{
	struct ktap_map_entry *e = ktap_map_get_entry(c, m, &m->tables[0], k,
						      loc);

	if (!e)
		return false;
	*(int64_t *)ktap_map_val(m, e) = v;
	return true;
}

/**
 * ktap_map_set_str() - a[k] = s
 * @c: the context
 * @m: the array
 * @k: the keys
 * @v: the value (truncated to MAXSTRINGLEN - 1 bytes)
 * @loc: the script location
 *
 * Write lock.
 *
 * Return: true, or false (and c->error set) when the array is full.
 */
static __maybe_unused bool ktap_map_set_str(struct ktap_context *c,
					    struct ktap_map *m,
					    const union ktap_key *k,
					    const char *v, const char *loc)
{
	struct ktap_map_entry *e = ktap_map_get_entry(c, m, &m->tables[0], k,
						      loc);

	if (!e)
		return false;
	strscpy(ktap_map_val(m, e), v, MAXSTRINGLEN);
	return true;
}

/**
 * ktap_map_add_long() - a[k] += delta (also a[k]++, a[k]--)
 * @c: the context
 * @m: the array
 * @k: the keys
 * @delta: what to add
 * @loc: the script location
 *
 * Write lock. An absent element counts as 0.
 *
 * Return: the new value; 0 (and c->error set) when the array is full.
 */
static __maybe_unused int64_t ktap_map_add_long(struct ktap_context *c,
						struct ktap_map *m,
						const union ktap_key *k,
						int64_t delta, const char *loc)
{
	struct ktap_map_entry *e = ktap_map_get_entry(c, m, &m->tables[0], k,
						      loc);
	int64_t *v;

	if (!e)
		return 0;
	v = ktap_map_val(m, e);
	*v = (int64_t)((u64)*v + (u64)delta);
	return *v;
}

/* ---- membership, deletion ---- */

/**
 * ktap_map_exists() - [k] in a
 * @m: the array
 * @k: the keys
 *
 * Read lock; for statistics every CPU's lock. For statistics: the key
 * has data on some CPU.
 *
 * Return: true if present.
 */
static __maybe_unused bool ktap_map_exists(struct ktap_map *m,
					   const union ktap_key *k)
{
	u32 hash = ktap_map_hash(m, k);
	struct ktap_map_table *t;

	ktap_map_for_each_table(m, t) {
		if (ktap_map_find(m, t, k, hash))
			return true;
	}
	return false;
}

/**
 * ktap_map_exists_slice() - [*, k] in a
 * @m: the array
 * @k: the keys; those in @wild_mask are ignored
 * @wild_mask: the components written '*', bit i for key i + 1
 *
 * Read lock; for statistics every CPU's lock. Scans the array unless
 * @wild_mask is 0.
 *
 * Return: true if some element matches.
 */
static __maybe_unused bool ktap_map_exists_slice(struct ktap_map *m,
						 const union ktap_key *k,
						 unsigned int wild_mask)
{
	struct ktap_map_table *t;
	struct ktap_map_entry *e;

	if (!wild_mask)
		return ktap_map_exists(m, k);
	ktap_map_for_each_table(m, t) {
		list_for_each_entry(e, &t->live, node) {
			if (ktap_map_match(m, e, k, wild_mask))
				return true;
		}
	}
	return false;
}

/**
 * ktap_map_delete() - delete a[k]
 * @m: the array
 * @k: the keys
 *
 * Write lock; for statistics every CPU's lock. Deleting an absent element
 * does nothing.
 */
static __maybe_unused void ktap_map_delete(struct ktap_map *m,
					   const union ktap_key *k)
{
	u32 hash = ktap_map_hash(m, k);
	struct ktap_map_table *t;
	struct ktap_map_entry *e;

	ktap_map_for_each_table(m, t) {
		e = ktap_map_find(m, t, k, hash);
		if (e)
			ktap_map_remove(t, e);
	}
}

/**
 * ktap_map_delete_slice() - delete a[*, k]
 * @m: the array
 * @k: the keys; those in @wild_mask are ignored
 * @wild_mask: the components written '*', bit i for key i + 1
 *
 * Write lock.
 */
static __maybe_unused void ktap_map_delete_slice(struct ktap_map *m,
						 const union ktap_key *k,
						 unsigned int wild_mask)
{
	struct ktap_map_table *t;
	struct ktap_map_entry *e, *tmp;

	if (!wild_mask) {
		ktap_map_delete(m, k);
		return;
	}
	ktap_map_for_each_table(m, t) {
		list_for_each_entry_safe(e, tmp, &t->live, node) {
			if (ktap_map_match(m, e, k, wild_mask))
				ktap_map_remove(t, e);
		}
	}
}

/**
 * ktap_map_clear() - delete a
 * @m: the array
 *
 * Write lock.
 */
static __maybe_unused void ktap_map_clear(struct ktap_map *m)
{
	struct ktap_map_table *t;
	struct ktap_map_entry *e, *tmp;

	ktap_map_for_each_table(m, t) {
		list_for_each_entry_safe(e, tmp, &t->live, node)
			ktap_map_remove(t, e);
	}
}

/* ---- statistics ---- */

/**
 * ktap_map_stat_add() - a[k] <<< v, s <<< v
 * @c: the context
 * @m: the statistics array
 * @k: the keys (NULL without keys)
 * @v: the value
 * @loc: the script location
 *
 * This CPU's lock of @m only (KTAP_LOCK_THIS_CPU), any CPU at once: finds
 * or inserts the key in this CPU's table and changes only that. A table
 * that is full is an error (or, for a%[N], reuses this CPU's oldest
 * entry).
 */
static __maybe_unused void ktap_map_stat_add(struct ktap_context *c,
					     struct ktap_map *m,
					     const union ktap_key *k, int64_t v,
					     const char *loc)
{
	struct ktap_map_table *t = &m->tables[smp_processor_id()];
	struct ktap_map_entry *e = ktap_map_get_entry(c, m, t, k, loc);

	if (e)
		ktap_stat_data_add(ktap_map_val(m, e), &m->d.hist, m->nbuckets,
				   m->d.var_shift, v);
}

/* where hotmap.h's inline a[k] <<< v finds this CPU's entry */
#define KTAP_MAP_OFF_TABLES offsetof(struct ktap_map, tables)
#define KTAP_MAP_OFF_VAL_OFF offsetof(struct ktap_map, val_off)
#define KTAP_MAP_TABLE_SIZE sizeof(struct ktap_map_table)
#define KTAP_MAP_TABLE_OFF_HEADS offsetof(struct ktap_map_table, heads)
#define KTAP_MAP_TABLE_OFF_MASK offsetof(struct ktap_map_table, mask)
#define KTAP_MAP_ENTRY_OFF_HNODE offsetof(struct ktap_map_entry, hnode)
#define KTAP_MAP_ENTRY_OFF_HASH offsetof(struct ktap_map_entry, hash)
#define KTAP_MAP_ENTRY_OFF_KEYS offsetof(struct ktap_map_entry, keys)
#define KTAP_STAT_OFF_COUNT offsetof(struct ktap_stat_data, count)
#define KTAP_STAT_OFF_SUM offsetof(struct ktap_stat_data, sum)
#define KTAP_STAT_OFF_MIN offsetof(struct ktap_stat_data, min)
#define KTAP_STAT_OFF_MAX offsetof(struct ktap_stat_data, max)
static_assert(offsetof(struct hlist_node, next) == 0);
#include "hotmap.h"

/**
 * ktap_map_stat_get() - merge a key's statistic over the CPUs
 * @m: the statistics array
 * @k: the keys (NULL without keys)
 * @agg: filled in
 *
 * Every CPU's lock. Without keys all CPUs are merged at once, an array element
 * pairwise in CPU order (see stat.h).
 *
 * Return: true if the key has data (count > 0).
 */
static __maybe_unused bool ktap_map_stat_get(struct ktap_map *m,
					     const union ktap_key *k,
					     struct ktap_stat_agg *agg)
{
	u32 hash = ktap_map_hash(m, k);
	struct ktap_map_table *t;
	struct ktap_map_entry *e;
	int64_t s = 0;

	ktap_stat_agg_init(agg, m->nbuckets, m->d.var_shift);
	ktap_map_for_each_table(m, t) {
		e = ktap_map_find(m, t, k, hash);
		if (!e)
			continue;
		if (m->d.nkeys)
			ktap_stat_agg_merge(agg, ktap_map_val(m, e));
		else
			ktap_stat_agg_sum(agg, ktap_map_val(m, e));
	}
	if (m->d.nkeys || !agg->count)
		return agg->count > 0;
	ktap_stat_agg_mean(agg);
	ktap_map_for_each_table(m, t) {
		e = ktap_map_find(m, t, k, hash);
		if (e)
			ktap_stat_agg_spread(agg, ktap_map_val(m, e), &s);
	}
	agg->variance_s = ktap_div64(s, agg->count - 1);
	return true;
}

/**
 * ktap_stat_sortval() - the aggregate a foreach sorts statistics by
 * @count: merged count
 * @sum: merged sum
 * @min: merged min
 * @max: merged max
 * @agg: 'c' @count, 's' @sum, 'm' @min, 'M' @max, 'a' @avg
 *
 * Return: the aggregate; @count for anything else.
 */
static int64_t ktap_stat_sortval(int64_t count, int64_t sum, int64_t min,
				 int64_t max, char agg)
{
	switch (agg) {
	case 's':
		return sum;
	case 'm':
		return min;
	case 'M':
		return max;
	case 'a':
		return ktap_div64(sum, count);
	default:
		return count;
	}
}

/**
 * ktap_map_collect_stat() - the merged item of an entry, for foreach
 * @m: the statistics array
 * @t: the entry's table
 * @e: the entry, not marked
 * @agg: the aggregate to sort by
 * @it: the item to fill in
 *
 * Looks the key up in the tables after @t and marks the entries found,
 * so that each key is visited once, through the lowest CPU's entry.
 */
static void ktap_map_collect_stat(struct ktap_map *m, struct ktap_map_table *t,
				  struct ktap_map_entry *e, char agg,
				  struct ktap_map_item *it)
{
	struct ktap_stat_data *sd = ktap_map_val(m, e);
	int64_t count = sd->count, sum = sd->sum, min = sd->min, max = sd->max;
	struct ktap_map_entry *e2;

	it->e = e;
	it->seq = e->seq;
	for (t++; t < m->tables + m->ntables; t++) {
		if (!t->mem)
			continue;
		e2 = ktap_map_find(m, t, e->keys, e->hash);
		if (!e2)
			continue;
		e2->mark = m->mark;
		sd = ktap_map_val(m, e2);
		count += sd->count;
		sum += sd->sum;
		min = min(min, sd->min);
		max = max(max, sd->max);
		it->seq = min(it->seq, e2->seq);
	}
	it->sortval = ktap_stat_sortval(count, sum, min, max, agg);
}

/**
 * ktap_map_size() - number of elements
 * @m: the array
 *
 * For statistics: of distinct keys over the CPUs (every CPU's lock).
 *
 * Return: the count.
 */
static __maybe_unused int64_t ktap_map_size(struct ktap_map *m)
{
	struct ktap_map_table *t;
	struct ktap_map_entry *e;
	struct ktap_map_item it;
	int64_t n = 0;

	if (m->d.value_type != KTAP_STATS)
		return m->tables[0].n;
	m->mark++;
	ktap_map_for_each_table(m, t) {
		list_for_each_entry(e, &t->live, node) {
			if (e->mark == m->mark)
				continue;
			ktap_map_collect_stat(m, t, e, 'c', &it);
			n++;
		}
	}
	return n;
}

/* ---- foreach ---- */

/**
 * ktap_map_iter_cmp() - order of two foreach items
 * @a: an item
 * @b: another
 * @priv: the iterator
 *
 * By the sort key in the iterator's direction, then by creation.
 *
 * Return: <0, 0 or >0.
 */
static int ktap_map_iter_cmp(const void *a, const void *b, const void *priv)
{
	const struct ktap_map_item *x = a, *y = b;
	const struct ktap_map_iter *it = priv;
	const struct ktap_map *m = it->m;
	int r = 0;

	if (it->sort_by == 0 && m->d.value_type == KTAP_STRING) {
		r = strcmp(ktap_map_val(m, x->e), ktap_map_val(m, y->e));
	} else if (it->sort_by == 0) {
		r = x->sortval < y->sortval ? -1 : x->sortval > y->sortval;
	} else if (m->d.key_types[it->sort_by - 1] == KTAP_STRING) {
		r = strcmp(x->e->keys[it->sort_by - 1].s,
			   y->e->keys[it->sort_by - 1].s);
	} else {
		int64_t p = x->e->keys[it->sort_by - 1].n;
		int64_t q = y->e->keys[it->sort_by - 1].n;

		r = p < q ? -1 : p > q;
	}
	r = r < 0 ? -it->dir : r > 0 ? it->dir : 0;
	if (!r)
		r = x->seq < y->seq ? -1 : x->seq > y->seq;
	return r;
}

/**
 * ktap_map_iter_collect() - gather the elements a foreach visits
 * @it: the iterator
 * @agg: statistics: the aggregate to sort by
 * @slice: the keys the elements must have, or NULL for all
 * @wild_mask: components of @slice that match anything
 */
static void ktap_map_iter_collect(struct ktap_map_iter *it, char agg,
				  const union ktap_key *slice,
				  unsigned int wild_mask)
{
	struct ktap_map *m = it->m;
	struct ktap_map_table *t;
	struct ktap_map_entry *e;
	struct ktap_map_item *item;

	m->mark++;
	it->n = 0;
	ktap_map_for_each_table(m, t) {
		list_for_each_entry(e, &t->live, node) {
			if (slice && !ktap_map_match(m, e, slice, wild_mask))
				continue;
			item = &it->items[it->n];
			if (m->d.value_type == KTAP_STATS) {
				if (e->mark == m->mark)
					continue;
				ktap_map_collect_stat(m, t, e, agg, item);
			} else {
				item->e = e;
				item->seq = e->seq;
				item->sortval = m->d.value_type == KTAP_LONG ?
					*(int64_t *)ktap_map_val(m, e) : 0;
			}
			it->n++;
		}
	}
}

/**
 * ktap_map_iter_start() - start a foreach
 * @c: the context
 * @m: the array
 * @sort_by: 0 to sort by value, n (1-based) by the n-th key
 * @dir: 1 ascending, -1 descending, 0 unsorted (creation order)
 * @agg: statistics sorted by value: 'c' @count (the default, also for 0),
 *	's' @sum, 'm' @min, 'M' @max, 'a' @avg
 * @limit: visit at most this many (after sorting); 0 all, < 0 none
 * @slice: foreach ([a, b] in x[k, *]): the keys, or NULL for all
 * @wild_mask: components of @slice written '*', bit i for key i + 1
 * @loc: the script location
 *
 * Write lock (statistics: every CPU's lock). Ties in the sort key keep
 * creation order. The array must not change until ktap_map_iter_end()
 * (the translator rejects changes). Up to KTAP_MAP_ITER_DEPTH loops over
 * one array may be nested.
 *
 * Return: the iterator, before its first element; NULL (and c->error set)
 * when nested too deep. Every non-NULL iterator is given back with
 * ktap_map_iter_end(), also on break and error.
 */
static __maybe_unused struct ktap_map_iter *ktap_map_iter_start(
	struct ktap_context *c, struct ktap_map *m, int sort_by, int dir,
	char agg, int64_t limit, const union ktap_key *slice,
	unsigned int wild_mask, const char *loc)
{
	struct ktap_map_iter *it = NULL;
	int i;

	for (i = 0; i < KTAP_MAP_ITER_DEPTH && !it; i++) {
		if (!m->iters[i].busy)
			it = &m->iters[i];
	}
	if (!it) {
		ktap_errorf(c, loc, "nested foreach over array '%s'",
			    m->d.name);
		return NULL;
	}
	it->busy = true;
	it->pos = -1;
	it->n = 0;
	it->sort_by = sort_by >= 0 && sort_by <= m->d.nkeys ? sort_by : 0;
	it->dir = dir > 0 ? 1 : dir < 0 ? -1 : 0;
	if (limit < 0)
		return it;
	ktap_map_iter_collect(it, agg, slice, wild_mask);
	if (it->dir || m->d.value_type == KTAP_STATS)
		sort_r(it->items, it->n, sizeof(*it->items), ktap_map_iter_cmp,
		       NULL, it);
	if (limit && limit < it->n)
		it->n = limit;
	return it;
}

/**
 * ktap_map_iter_next() - move to the next element
 * @it: the iterator (NULL is an empty loop)
 *
 * Return: false at the end.
 */
static __maybe_unused bool ktap_map_iter_next(struct ktap_map_iter *it)
{
	if (!it || it->pos >= it->n)
		return false;
	return ++it->pos < it->n;
}

/**
 * ktap_map_iter_entry() - the current element
 * @it: the iterator, on an element
 *
 * Return: its entry.
 */
static inline struct ktap_map_entry *ktap_map_iter_entry(
	struct ktap_map_iter *it)
{
	return it->items[it->pos].e;
}

/**
 * ktap_map_iter_key_long() - a long key of the current element
 * @it: the iterator
 * @n: which key, 1-based
 *
 * Return: the key.
 */
static __maybe_unused int64_t ktap_map_iter_key_long(struct ktap_map_iter *it,
						     int n)
{
	return ktap_map_iter_entry(it)->keys[n - 1].n;
}

/**
 * ktap_map_iter_key_str() - a string key of the current element
 * @it: the iterator
 * @n: which key, 1-based
 *
 * Return: the key, valid while the lock is held.
 */
static __maybe_unused const char *ktap_map_iter_key_str(
	struct ktap_map_iter *it, int n)
{
	return ktap_map_iter_entry(it)->keys[n - 1].s;
}

/**
 * ktap_map_iter_value_long() - the value of the current element
 * @it: the iterator, over a long array
 *
 * Return: the value.
 */
static __maybe_unused int64_t ktap_map_iter_value_long(
	struct ktap_map_iter *it)
{
	return *(int64_t *)ktap_map_val(it->m, ktap_map_iter_entry(it));
}

/**
 * ktap_map_iter_value_str() - the value of the current element
 * @it: the iterator, over a string array
 *
 * Return: the value, valid while the lock is held.
 */
static __maybe_unused const char *ktap_map_iter_value_str(
	struct ktap_map_iter *it)
{
	return ktap_map_val(it->m, ktap_map_iter_entry(it));
}

/**
 * ktap_map_iter_value_stat() - the statistic of the current element
 * @it: the iterator, over a statistics array
 * @agg: filled in, merged over the CPUs
 *
 * Return: true if it has data (always, for an element visited).
 */
static __maybe_unused bool ktap_map_iter_value_stat(struct ktap_map_iter *it,
						    struct ktap_stat_agg *agg)
{
	return ktap_map_stat_get(it->m, ktap_map_iter_entry(it)->keys, agg);
}

/**
 * ktap_map_iter_end() - finish a foreach (also after break or an error)
 * @it: the iterator, or NULL
 */
static __maybe_unused void ktap_map_iter_end(struct ktap_map_iter *it)
{
	if (it)
		it->busy = false;
}

/* ---- print(a): a whole array or statistic (ktap's extension) ---- */

/* a statistic's numbers: text "@count=N @min=..." or JSON members */
static void ktap_stat_out(struct ktap_out *o, const struct ktap_stat_agg *a,
			  bool json)
{
	if (json) {
		ktap_out_snprintf(o, "\"count\":%lld,\"sum\":%lld", (long long)a->count,
				  (long long)a->sum);
		if (a->count)
			ktap_out_snprintf(o, ",\"min\":%lld,\"max\":%lld,\"avg\":%lld",
					  (long long)a->min, (long long)a->max,
					  (long long)ktap_stat_avg(a));
		return;
	}
	ktap_out_snprintf(o, "@count=%lld", (long long)a->count);
	if (a->count)
		ktap_out_snprintf(o, " @min=%lld @max=%lld @sum=%lld @avg=%lld",
				  (long long)a->min, (long long)a->max,
				  (long long)a->sum, (long long)ktap_stat_avg(a));
}

/* a string as text, "quoted" as SystemTap's dump of globals shows it */
static void ktap_dump_str(struct ktap_out *o, const char *s, bool json)
{
	if (json) {
		ktap_json_str(o, s);
		return;
	}
	ktap_out_write(o, "\"", 1);
	ktap_out_write(o, s, strlen(s));
	ktap_out_write(o, "\"", 1);
}

/* the current element of @it: text NAME[k,...]=V, or a JSON entry */
static void ktap_dump_entry(struct ktap_out *o, struct ktap_map_iter *it,
			    struct ktap_stat_agg *agg, bool json)
{
	const struct ktap_map_desc *d = &it->m->d;
	int i;

	if (json)
		ktap_out_write(o, "{\"key\":[", 8);
	else
		ktap_out_snprintf(o, "%s[", d->name);
	for (i = 0; i < d->nkeys; i++) {
		if (i)
			ktap_out_write(o, ",", 1);
		if (d->key_types[i] == KTAP_STRING)
			ktap_dump_str(o, ktap_map_iter_key_str(it, i + 1), json);
		else
			ktap_out_snprintf(o, "%lld", (long long)ktap_map_iter_key_long(it, i + 1));
	}
	ktap_out_write(o, json ? "],\"value\":" : "]", json ? 10 : 1);
	if (d->value_type == KTAP_STATS) {
		ktap_map_iter_value_stat(it, agg);
		ktap_out_write(o, json ? "{" : " ", 1);
		ktap_stat_out(o, agg, json);
		ktap_out_write(o, json ? "}}" : "\n", json ? 2 : 1);
		return;
	}
	if (!json)
		ktap_out_write(o, "=", 1);
	if (d->value_type == KTAP_STRING)
		ktap_dump_str(o, ktap_map_iter_value_str(it), json);
	else
		ktap_out_snprintf(o, "%lld", (long long)ktap_map_iter_value_long(it));
	ktap_out_write(o, json ? "}" : "\n", 1);
}

/* the most the current element of @it can take as JSON: strings escaped
 * (6 bytes a byte at worst), numbers 20 digits */
static size_t ktap_dump_entry_room(struct ktap_map_iter *it)
{
	const struct ktap_map_desc *d = &it->m->d;
	size_t n = 160;
	int i;

	for (i = 0; i < d->nkeys; i++)
		n += d->key_types[i] == KTAP_STRING ?
		     6 * strlen(ktap_map_iter_key_str(it, i + 1)) + 4 : 24;
	if (d->value_type == KTAP_STRING)
		n += 6 * strlen(ktap_map_iter_value_str(it));
	return n;
}

/* --json: the elements as "array" data records, as many as they need
 * (every record but the last says "more":true) */
static void ktap_dump_json(struct ktap_context *c, struct ktap_map_iter *it,
			   struct ktap_stat_agg *agg)
{
	struct ktap_out o;
	bool first = true;

	ktap_json_begin(c, &o, "array");
	ktap_out_snprintf(&o, ",\"name\":\"%s\",\"entries\":[", it->m->d.name);
	while (ktap_map_iter_next(it)) {
		if (!first && !ktap_json_room(&o, ktap_dump_entry_room(it))) {
			ktap_out_write(&o, "],\"more\":true", 13);
			ktap_json_end(c, &o);
			ktap_json_begin(c, &o, "array");
			ktap_out_snprintf(&o, ",\"name\":\"%s\",\"entries\":[", it->m->d.name);
			first = true;
		}
		if (!first)
			ktap_out_write(&o, ",", 1);
		ktap_dump_entry(&o, it, agg, true);
		first = false;
	}
	ktap_out_write(&o, "]", 1);
	ktap_json_end(c, &o);
}

/**
 * ktap_print_map() - print(a): every element of an array, or a statistic
 * @c: the context
 * @m: the array (a statistic without keys: nkeys 0)
 * @loc: the script location, for errors
 *
 * Text, one line each as SystemTap shows globals left unread at exit:
 * NAME[k,...]=V (string keys and values quoted), a statistic as NAME
 * @count=N @min=... @max=... @sum=... @avg=...; elements in creation
 * order. With --json, data records of type "array" or "stat"
 * (doc/json.md). The caller holds the write lock (statistics: every CPU's).
 */
static __maybe_unused void ktap_print_map(struct ktap_context *c, struct ktap_map *m,
					  const char *loc)
{
	struct ktap_stat_agg *agg = ktap_frame_push(c, sizeof(*agg));
	struct ktap_map_iter *it;
	struct ktap_out o;

	if (!agg)
		return;
	if (m->d.nkeys == 0) {
		if (!ktap_map_stat_get(m, NULL, agg))
			agg->count = agg->sum = 0;
		if (ktap_json) {
			ktap_json_begin(c, &o, "stat");
			ktap_out_snprintf(&o, ",\"name\":\"%s\",", m->d.name);
		} else {
			ktap_out_print(&o, c);
			ktap_out_snprintf(&o, "%s ", m->d.name);
		}
		ktap_stat_out(&o, agg, ktap_json);
		if (ktap_json) {
			ktap_json_end(c, &o);
		} else {
			ktap_out_write(&o, "\n", 1);
			c->print_len = o.len;
		}
		goto out;
	}
	it = ktap_map_iter_start(c, m, 0, 0, 0, 0, NULL, 0, loc);
	if (!it)
		goto out;
	if (ktap_json) {
		ktap_dump_json(c, it, agg);
	} else {
		ktap_out_print(&o, c);
		while (ktap_map_iter_next(it))
			ktap_dump_entry(&o, it, agg, false);
		c->print_len = o.len;
	}
	ktap_map_iter_end(it);
out:
	ktap_frame_pop(c, sizeof(*agg));
}

#endif /* _KTAP_MAP_H */
