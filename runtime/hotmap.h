/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap runtime: a[k] <<< v without a call.
 *
 * Adding to a statistic whose key is there already is the whole work of
 * a counting probe, and in a TCG guest the call into the runtime, its
 * loops over a key tuple it does not know and its checks for histograms
 * the statistic does not keep cost more than the work. Generated code
 * calls ktap_map_stat_add_hot() with the array's constant description,
 * so the compiler unrolls the key loop for the keys the array has and
 * drops what it does not keep; a light unit finds this CPU's table and
 * walks its hash chain itself, at the offsets measured for the tree.
 * Anything else (a new key, a histogram, @variance) goes to map.h's
 * ktap_map_stat_add(), which searches again: an insertion is rare.
 *
 * Included by map.h after ktap_map_stat_add() (the full build, with the
 * layout from the structures themselves) and by api.h (a light unit,
 * with api-layout.h's measurements); it uses what hot.h uses, plus the
 * KTAP_MAP_OFF_* and KTAP_STAT_OFF_* constants.
 */
#ifndef _KTAP_HOTMAP_H
#define _KTAP_HOTMAP_H

/* a member of type @type at byte offset @off of @p */
#define KTAP_AT(type, p, off) (*(type *)((char *)(p) + (off)))

/**
 * ktap_map_keys_hash() - hash a key tuple (map.h's ktap_map_hash())
 * @d: the array's description
 * @k: the keys
 *
 * Return: the hash.
 */
static inline __attribute__((__always_inline__))
u32 ktap_map_keys_hash(const struct ktap_map_desc *d, const union ktap_key *k)
{
	u32 h = 0x811c9dc5;	/* the seed */
	int i;

	for (i = 0; i < d->nkeys; i++) {
		if (d->key_types[i] == KTAP_STRING)
			h = ktap_key_str_hash(h, k[i].s);
		else
			h = ktap_key_long_hash(h, k[i].n);
	}
	return ktap_key_hash_final(h);
}

/**
 * ktap_map_keys_equal() - are an entry's keys @k? (map.h's ktap_map_match())
 * @d: the array's description
 * @ek: the entry's keys
 * @k: the keys looked for
 *
 * Return: true if every component is equal.
 */
static inline __attribute__((__always_inline__))
bool ktap_map_keys_equal(const struct ktap_map_desc *d, const union ktap_key *ek,
			 const union ktap_key *k)
{
	int i;

	for (i = 0; i < d->nkeys; i++) {
		if (d->key_types[i] == KTAP_STRING) {
			if (!ktap_key_str_eq(ek[i].s, k[i].s))
				return false;
		} else if (ek[i].n != k[i].n) {
			return false;
		}
	}
	return true;
}

/**
 * ktap_map_stat_add_hot() - a[k] <<< v, s <<< v, inline where it can be
 * @c: the context (this CPU's lock of @m held, KTAP_LOCK_THIS_CPU)
 * @m: the statistics array
 * @d: its description, a constant the compiler reads (g_NAME_desc)
 * @k: the keys (NULL without keys)
 * @v: the value
 * @loc: the script location, for ktap_map_stat_add()'s errors
 *
 * The same as ktap_map_stat_add(): count, sum, min and max of the entry
 * of @k in this CPU's table.
 */
static inline __attribute__((__always_inline__))
void ktap_map_stat_add_hot(struct ktap_context *c, struct ktap_map *m,
			   const struct ktap_map_desc *d,
			   const union ktap_key *k, int64_t v, const char *loc)
{
	char *t, *e;
	u32 hash;
	int64_t *sd;

#ifdef KTAP_NEED_VARIANCE
	/* Welford's update, for every statistic of the script: map.h's */
	ktap_map_stat_add(c, m, k, v, loc);
	return;
#endif
	if (d->hist.kind) {
		ktap_map_stat_add(c, m, k, v, loc);
		return;
	}
	t = KTAP_AT(char *, m, KTAP_MAP_OFF_TABLES) + c->cpu * KTAP_MAP_TABLE_SIZE;
	hash = ktap_map_keys_hash(d, k);
	e = KTAP_AT(char **, t, KTAP_MAP_TABLE_OFF_HEADS)
		[hash & KTAP_AT(u32, t, KTAP_MAP_TABLE_OFF_MASK)];
	/* the chain: each entry's hlist_node, whose first word is next */
	while (e) {
		char *entry = e - KTAP_MAP_ENTRY_OFF_HNODE;

		if (KTAP_AT(u32, entry, KTAP_MAP_ENTRY_OFF_HASH) == hash &&
		    ktap_map_keys_equal(d, (const union ktap_key *)
					(entry + KTAP_MAP_ENTRY_OFF_KEYS), k)) {
			sd = (int64_t *)(entry + KTAP_AT(size_t, m, KTAP_MAP_OFF_VAL_OFF));
			if (unlikely(!KTAP_AT(int64_t, sd, KTAP_STAT_OFF_COUNT)))
				break;	/* the first value: map.h sets min and max */
			KTAP_AT(int64_t, sd, KTAP_STAT_OFF_COUNT)++;
			KTAP_AT(int64_t, sd, KTAP_STAT_OFF_SUM) += v;
			if (v < KTAP_AT(int64_t, sd, KTAP_STAT_OFF_MIN))
				KTAP_AT(int64_t, sd, KTAP_STAT_OFF_MIN) = v;
			if (v > KTAP_AT(int64_t, sd, KTAP_STAT_OFF_MAX))
				KTAP_AT(int64_t, sd, KTAP_STAT_OFF_MAX) = v;
			return;
		}
		e = *(char **)e;
	}
	ktap_map_stat_add(c, m, k, v, loc);
}

#endif /* _KTAP_HOTMAP_H */
