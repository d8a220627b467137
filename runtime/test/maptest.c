// SPDX-License-Identifier: GPL-2.0
/*
 * maptest - a hand-written module in the shape the translator generates,
 * testing map.h and stat.h in the guest (run-tests.sh). It stands for:
 *
 *   global a, s, k9, small[4], w%[3], big, srt, str, two, sl,
 *          x, v5, v5s, hl, hn, hs, st, sst, sf[2], sw%[2], pc, ps, tick,
 *          ticks
 *   probe begin { every array and statistics operation on known data;
 *                 each result printed as "t ..." (maptest-expected.txt) }
 *   probe timer.ms(10) { tick <<< 1; ticks++ }
 *   probe kprobe.function("__x64_sys_openat") {
 *           if (user_string(...) =~ "^/tmp/mt([AB])-([0-9]+)$") {
 *                   pc[$1] <<< $2; ps <<< $2 } }   (read lock only)
 *   probe end { the merged per-CPU statistics, as "end ..." }
 *
 * target() selects a failure, on the first tick: 1 a full array, 2 a
 * foreach nested three deep.
 */
#define KTAP_MODULE_NAME "ktap_maptest"
/* timer hits that land in a kprobe handler are skipped: not a failure */
#define MAXSKIPPED 1000000
#define KTAP_NEED_VARIANCE 1
#include "runtime.h"

/* globals */
static struct ktap_map *g_a, *g_s, *g_k9, *g_small, *g_w, *g_big, *g_srt,
	*g_str, *g_two, *g_sl, *g_x, *g_v5, *g_v5s, *g_hl, *g_hn, *g_hs, *g_st,
	*g_sst, *g_sf, *g_sw, *g_pc, *g_ps, *g_tick;
static KTAP_DEFINE_RWLOCK(g_all_lock);	/* the begin-only arrays share one */
static KTAP_DEFINE_RWLOCK(g_pc_lock);
static KTAP_DEFINE_RWLOCK(g_ps_lock);
static KTAP_DEFINE_RWLOCK(g_tick_lock);
static int64_t g_ticks;
static KTAP_DEFINE_RWLOCK(g_ticks_lock);

#define LOC "near identifier 'a' at maptest.stp:1:1"

static const struct ktap_hist_desc hist_log = { .kind = KTAP_HIST_LOG };
static const struct ktap_hist_desc hist_lin = {
	.kind = KTAP_HIST_LINEAR, .lo = 0, .hi = 100, .step = 10,
};

/* Print c->error, then forget it, so that begin can go on. */
static void show_error(struct ktap_context *c, const char *what)
{
	ktap_printf(c, "t %s error [%s]\n", what, c->error ?: "none");
	c->error = NULL;
}

/* Print the keys and value of the current element of @it. */
static void show_item(struct ktap_context *c, struct ktap_map *m,
		      struct ktap_map_iter *it, struct ktap_stat_agg *agg)
{
	int i;

	for (i = 1; i <= m->d.nkeys; i++) {
		if (m->d.key_types[i - 1] == KTAP_STRING)
			ktap_printf(c, "%s%s", i > 1 ? "," : "",
				    ktap_map_iter_key_str(it, i));
		else
			ktap_printf(c, "%s%d", i > 1 ? "," : "",
				    ktap_map_iter_key_long(it, i));
	}
	switch (m->d.value_type) {
	case KTAP_LONG:
		ktap_printf(c, "=%d", ktap_map_iter_value_long(it));
		break;
	case KTAP_STRING:
		ktap_printf(c, "=%s", ktap_map_iter_value_str(it));
		break;
	case KTAP_STATS:
		ktap_map_iter_value_stat(it, agg);
		ktap_printf(c, "=%d/%d/%d/%d/%d", agg->count, agg->sum,
			    agg->min, agg->max, ktap_stat_avg(agg));
		break;
	}
}

/* foreach over @m, printed on one line labelled @what. */
static void dump(struct ktap_context *c, const char *what, struct ktap_map *m,
		 int sort_by, int dir, char agg, int64_t limit,
		 const union ktap_key *slice, unsigned int wild,
		 struct ktap_stat_agg *sa)
{
	struct ktap_map_iter *it;

	ktap_printf(c, "t %s:", what);
	it = ktap_map_iter_start(c, m, sort_by, dir, agg, limit, slice, wild,
				 LOC);
	if (unlikely(c->error))
		goto out;
	while (ktap_map_iter_next(it)) {
		ktap_print_char(c, ' ');
		show_item(c, m, it, sa);
	}
out:
	ktap_map_iter_end(it);
	ktap_print_char(c, '\n');
}

/* The merged statistic of a key, as "count/sum/min/max/avg/variance". */
static void show_stat(struct ktap_context *c, const char *what,
		      struct ktap_map *m, const union ktap_key *k,
		      struct ktap_stat_agg *agg)
{
	bool has = ktap_map_stat_get(m, k, agg);

	ktap_printf(c, "t %s %d %d/%d/%d/%d/%d/%d\n", what, (int64_t)has,
		    agg->count, agg->sum, agg->min, agg->max,
		    ktap_stat_avg(agg), ktap_stat_variance(agg));
}

/* insert, lookup, add, delete, exists, size */
static void test_basic(struct ktap_context *c)
{
	union ktap_key k[1];
	int64_t v;

	k[0].n = 1;
	ktap_map_set_long(c, g_a, k, 10, LOC);
	k[0].n = 2;
	ktap_map_set_long(c, g_a, k, 20, LOC);
	k[0].n = -5;
	ktap_map_set_long(c, g_a, k, -50, LOC);
	k[0].n = 1;
	ktap_printf(c, "t get %d", ktap_map_get_long(g_a, k));
	k[0].n = 2;
	ktap_printf(c, " %d", ktap_map_get_long(g_a, k));
	k[0].n = -5;
	ktap_printf(c, " %d", ktap_map_get_long(g_a, k));
	k[0].n = 3;
	ktap_printf(c, " %d exists %d", ktap_map_get_long(g_a, k),
		    (int64_t)ktap_map_exists(g_a, k));
	k[0].n = 2;
	ktap_printf(c, " %d\n", (int64_t)ktap_map_exists(g_a, k));
	v = ktap_map_add_long(c, g_a, k, 5, LOC);
	ktap_printf(c, "t add %d %d", v, ktap_map_get_long(g_a, k));
	k[0].n = 7;
	v = ktap_map_add_long(c, g_a, k, 1, LOC);	/* a[7]++ */
	ktap_printf(c, " new %d\n", v);
	k[0].n = 1;
	ktap_map_delete(g_a, k);
	ktap_map_delete(g_a, k);			/* absent: nothing */
	ktap_printf(c, "t delete %d %d size %d\n",
		    (int64_t)ktap_map_exists(g_a, k), ktap_map_get_long(g_a, k),
		    ktap_map_size(g_a));
	k[0].n = 0;
	ktap_map_set_long(c, g_a, k, 0, LOC);		/* a zero is an element */
	ktap_printf(c, "t zero %d size %d\n", (int64_t)ktap_map_exists(g_a, k),
		    ktap_map_size(g_a));
	dump(c, "order", g_a, 0, 0, 0, 0, NULL, 0, NULL);
	ktap_map_clear(g_a);
	ktap_printf(c, "t clear size %d\n", ktap_map_size(g_a));
	dump(c, "cleared", g_a, 0, 0, 0, 0, NULL, 0, NULL);
}

/* string keys and values, truncation */
static void test_strings(struct ktap_context *c, char *buf)
{
	union ktap_key k[2];

	k[0].s = "foo";
	k[1].n = 1;
	ktap_map_set_str(c, g_s, k, "bar", LOC);
	k[1].n = 2;
	ktap_map_set_str(c, g_s, k, "baz", LOC);
	k[0].s = "";
	k[1].n = 0;
	ktap_map_set_str(c, g_s, k, "empty key", LOC);
	k[0].s = "foo";
	k[1].n = 1;
	ktap_printf(c, "t str [%s]", ktap_map_get_str(g_s, k));
	k[1].n = 2;
	ktap_printf(c, " [%s]", ktap_map_get_str(g_s, k));
	k[1].n = 3;
	ktap_printf(c, " [%s]", ktap_map_get_str(g_s, k));
	k[0].s = "";
	k[1].n = 0;
	ktap_printf(c, " [%s]", ktap_map_get_str(g_s, k));
	k[0].s = "fo";
	k[1].n = 1;
	ktap_printf(c, " [%s] size %d\n", ktap_map_get_str(g_s, k),
		    ktap_map_size(g_s));

	/* a key and a value of MAXSTRINGLEN - 1 bytes, and one too long */
	memset(buf, 'k', MAXSTRINGLEN - 1);
	buf[MAXSTRINGLEN - 1] = '\0';
	k[0].s = buf;
	k[1].n = 9;
	ktap_map_set_str(c, g_s, k, buf, LOC);
	ktap_printf(c, "t longkey %d %d", ktap_strlen(ktap_map_get_str(g_s, k)),
		    (int64_t)ktap_map_exists(g_s, k));
	buf[MAXSTRINGLEN - 2] = 'j';
	ktap_printf(c, " %d", (int64_t)ktap_map_exists(g_s, k));
	buf[MAXSTRINGLEN - 2] = 'k';
	memset(buf + MAXSTRINGLEN, 'v', 200);	/* buf has 2 * MAXSTRINGLEN */
	buf[MAXSTRINGLEN - 1] = 'v';
	buf[MAXSTRINGLEN + 200] = '\0';
	ktap_map_set_str(c, g_s, k, buf, LOC);	/* longer than a string */
	ktap_printf(c, " value %d\n",
		    ktap_strlen(ktap_map_get_str(g_s, k)));
	k[0].s = "foo";
	k[1].n = 2;
	ktap_map_set_str(c, g_s, k, "", LOC);
	ktap_printf(c, "t emptyvalue %d [%s]\n",
		    (int64_t)ktap_map_exists(g_s, k), ktap_map_get_str(g_s, k));
}

/* 9-key tuples: 5 longs and 4 strings */
static void test_k9(struct ktap_context *c, char *buf)
{
	union ktap_key k[9];
	char *s = buf, *t = buf + 64;
	int64_t i, sum = 0, found = 0;

	k[1].s = s;
	k[3].s = t;
	k[5].s = "five";
	k[7].s = "";
	for (i = 0; i < 100; i++) {
		snprintf(s, 64, "s%lld", i);
		snprintf(t, 64, "t%lld", i % 7);
		k[0].n = i;
		k[2].n = -i;
		k[4].n = i * 1000000007LL;
		k[6].n = i % 3;
		k[8].n = i;
		ktap_map_set_long(c, g_k9, k, i * i, LOC);
	}
	for (i = 0; i < 100; i++) {
		snprintf(s, 64, "s%lld", i);
		snprintf(t, 64, "t%lld", i % 7);
		k[0].n = i;
		k[2].n = -i;
		k[4].n = i * 1000000007LL;
		k[6].n = i % 3;
		k[8].n = i;
		sum += ktap_map_get_long(g_k9, k);
		k[8].n = i + 1;			/* differs in the 9th only */
		found += ktap_map_exists(g_k9, k);
	}
	ktap_printf(c, "t k9 size %d sum %d wrong %d\n", ktap_map_size(g_k9),
		    sum, found);
	dump(c, "k9 by key 4 desc limit 3", g_k9, 4, -1, 0, 3, NULL, 0, NULL);
	k[0].n = 5;
	k[1].s = "s5";
	k[2].n = -5;
	k[3].s = "t5";
	k[4].n = 5 * 1000000007LL;
	k[5].s = "five";
	k[6].n = 2;
	k[7].s = "";
	k[8].n = 5;
	ktap_printf(c, "t k9 get %d\n", ktap_map_get_long(g_k9, k));
}

/* full arrays, MAXMAPENTRIES, wrap */
static void test_full(struct ktap_context *c)
{
	union ktap_key k[1];
	int64_t i, ok = 0;
	bool r;

	for (i = 1; i <= 4; i++) {
		k[0].n = i;
		ok += ktap_map_set_long(c, g_small, k, i, LOC);
	}
	k[0].n = 5;
	r = ktap_map_set_long(c, g_small, k, 5, LOC);
	ktap_printf(c, "t small %d %d\n", ok, (int64_t)r);
	show_error(c, "small set");
	ktap_printf(c, "t small add %d\n",
		    ktap_map_add_long(c, g_small, k, 5, LOC));
	show_error(c, "small add");
	k[0].n = 3;
	r = ktap_map_set_long(c, g_small, k, 33, LOC);	/* existing: fine */
	ktap_printf(c, "t small update %d %d\n", (int64_t)r,
		    ktap_map_get_long(g_small, k));
	show_error(c, "small update");
	ktap_map_delete(g_small, k);
	k[0].n = 5;
	r = ktap_map_set_long(c, g_small, k, 5, LOC);
	ktap_printf(c, "t small reuse %d size %d\n", (int64_t)r,
		    ktap_map_size(g_small));
	dump(c, "small", g_small, 0, 0, 0, 0, NULL, 0, NULL);

	for (i = 0, ok = 0; i < MAXMAPENTRIES; i++) {
		k[0].n = i * 7919;
		ok += ktap_map_set_long(c, g_big, k, i, LOC);
	}
	k[0].n = -1;
	r = ktap_map_set_long(c, g_big, k, 0, LOC);
	ktap_printf(c, "t big %d %d size %d\n", ok, (int64_t)r,
		    ktap_map_size(g_big));
	show_error(c, "big");
	for (i = 0, ok = 0; i < MAXMAPENTRIES; i++) {
		k[0].n = i * 7919;
		ok += ktap_map_get_long(g_big, k) == i;
	}
	ktap_printf(c, "t big found %d\n", ok);
	dump(c, "big by value desc limit 3", g_big, 0, -1, 0, 3, NULL, 0,
	     NULL);
	ktap_map_clear(g_big);
	for (i = 0, ok = 0; i < MAXMAPENTRIES; i++) {
		k[0].n = -i;
		ok += ktap_map_set_long(c, g_big, k, i, LOC);
	}
	ktap_printf(c, "t big refill %d size %d\n", ok, ktap_map_size(g_big));

	for (i = 1; i <= 5; i++) {
		k[0].n = i;
		ktap_map_set_long(c, g_w, k, i * 10, LOC);
	}
	dump(c, "wrap", g_w, 0, 0, 0, 0, NULL, 0, NULL);
	k[0].n = 3;
	ktap_map_add_long(c, g_w, k, 1, LOC);	/* an update keeps its place */
	k[0].n = 6;
	ktap_map_set_long(c, g_w, k, 60, LOC);
	dump(c, "wrap more", g_w, 0, 0, 0, 0, NULL, 0, NULL);
	show_error(c, "wrap");
}

/* sorted foreach, limits, ties */
static void test_sort(struct ktap_context *c)
{
	static const int64_t kv[][2] = {
		{ 5, 50 }, { 3, 30 }, { 9, 10 }, { 1, 30 }, { 7, 70 }, { 2, -20 },
	};
	static const char *const sv[][2] = {
		{ "pear", "green" }, { "apple", "red" }, { "fig", "purple" },
		{ "banana", "yellow" }, { "kiwi", "green" },
	};
	union ktap_key k[2];
	int i;

	for (i = 0; i < ARRAY_SIZE(kv); i++) {
		k[0].n = kv[i][0];
		ktap_map_set_long(c, g_srt, k, kv[i][1], LOC);
	}
	dump(c, "unsorted", g_srt, 0, 0, 0, 0, NULL, 0, NULL);
	dump(c, "key+", g_srt, 1, 1, 0, 0, NULL, 0, NULL);
	dump(c, "key-", g_srt, 1, -1, 0, 0, NULL, 0, NULL);
	dump(c, "value+", g_srt, 0, 1, 0, 0, NULL, 0, NULL);
	dump(c, "value-", g_srt, 0, -1, 0, 0, NULL, 0, NULL);
	dump(c, "value- limit 3", g_srt, 0, -1, 0, 3, NULL, 0, NULL);
	dump(c, "key+ limit 2", g_srt, 1, 1, 0, 2, NULL, 0, NULL);
	dump(c, "unsorted limit 1", g_srt, 0, 0, 0, 1, NULL, 0, NULL);
	dump(c, "limit 100", g_srt, 1, 1, 0, 100, NULL, 0, NULL);
	dump(c, "limit -1", g_srt, 1, 1, 0, -1, NULL, 0, NULL);

	for (i = 0; i < ARRAY_SIZE(sv); i++) {
		k[0].s = sv[i][0];
		ktap_map_set_str(c, g_str, k, sv[i][1], LOC);
	}
	dump(c, "str value+", g_str, 0, 1, 0, 0, NULL, 0, NULL);
	dump(c, "str key-", g_str, 1, -1, 0, 0, NULL, 0, NULL);

	for (i = 0; i < 6; i++) {
		k[0].n = i;
		k[1].s = sv[i % 5][0];
		ktap_map_set_long(c, g_two, k, 100 - i, LOC);
	}
	dump(c, "two key2+", g_two, 2, 1, 0, 0, NULL, 0, NULL);
	dump(c, "two key2-", g_two, 2, -1, 0, 0, NULL, 0, NULL);
}

/* slices: [*, k] in a, delete a[k, *], foreach over a slice */
static void test_slice(struct ktap_context *c)
{
	static const char *const names[] = { "a", "a", "b", "b", "c" };
	static const int64_t nums[] = { 1, 2, 1, 2, 3 };
	union ktap_key k[2];
	int i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		k[0].s = names[i];
		k[1].n = nums[i];
		ktap_map_set_long(c, g_sl, k, i, LOC);
	}
	k[0].s = "a";
	dump(c, "slice [a,*]", g_sl, 0, 0, 0, 0, k, 2, NULL);
	k[1].n = 1;
	dump(c, "slice [*,1]", g_sl, 0, 0, 0, 0, k, 1, NULL);
	dump(c, "slice [a,1]", g_sl, 0, 0, 0, 0, k, 0, NULL);
	dump(c, "slice [*,*] key1-", g_sl, 1, -1, 0, 0, k, 3, NULL);
	k[1].n = 3;
	ktap_printf(c, "t in [*,3] %d", (int64_t)ktap_map_exists_slice(g_sl, k, 1));
	k[1].n = 4;
	ktap_printf(c, " [*,4] %d", (int64_t)ktap_map_exists_slice(g_sl, k, 1));
	k[0].s = "b";
	ktap_printf(c, " [b,*] %d", (int64_t)ktap_map_exists_slice(g_sl, k, 2));
	ktap_printf(c, " [b,4] %d\n", (int64_t)ktap_map_exists_slice(g_sl, k, 0));
	k[1].n = 1;
	ktap_map_delete_slice(g_sl, k, 1);
	dump(c, "delete [*,1]", g_sl, 0, 0, 0, 0, NULL, 0, NULL);
	k[0].s = "a";
	ktap_map_delete_slice(g_sl, k, 2);
	dump(c, "delete [a,*]", g_sl, 0, 0, 0, 0, NULL, 0, NULL);
	k[0].s = "c";
	k[1].n = 3;
	ktap_map_delete_slice(g_sl, k, 0);
	dump(c, "delete [c,3]", g_sl, 0, 0, 0, 0, NULL, 0, NULL);
}

/* nested foreach over one array: two deep works, three is an error */
static void test_nested(struct ktap_context *c)
{
	struct ktap_map_iter *i1, *i2, *i3;

	ktap_printf(c, "t nested:");
	i1 = ktap_map_iter_start(c, g_srt, 1, 1, 0, 3, NULL, 0, LOC);
	while (ktap_map_iter_next(i1)) {
		i2 = ktap_map_iter_start(c, g_srt, 0, -1, 0, 2, NULL, 0, LOC);
		while (ktap_map_iter_next(i2))
			ktap_printf(c, " %d/%d", ktap_map_iter_key_long(i1, 1),
				    ktap_map_iter_key_long(i2, 1));
		ktap_map_iter_end(i2);
	}
	ktap_map_iter_end(i1);
	ktap_print_char(c, '\n');

	i1 = ktap_map_iter_start(c, g_srt, 0, 0, 0, 0, NULL, 0, LOC);
	i2 = ktap_map_iter_start(c, g_srt, 0, 0, 0, 0, NULL, 0, LOC);
	i3 = ktap_map_iter_start(c, g_srt, 0, 0, 0, 0, NULL, 0, LOC);
	ktap_printf(c, "t nested3 %d %d\n", (int64_t)(i3 == NULL),
		    (int64_t)ktap_map_iter_next(i3));
	show_error(c, "nested3");
	ktap_map_iter_end(i3);
	ktap_map_iter_end(i2);
	ktap_map_iter_end(i1);
	dump(c, "after nested", g_srt, 1, 1, 0, 2, NULL, 0, NULL);
}

/* statistics of known series, histograms */
static void test_stats(struct ktap_context *c, struct ktap_stat_agg *agg,
		       char *buf)
{
	static const int64_t hl[] = { 0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 100, 1000,
				      1000, -1, -5 };
	static const int64_t hn[] = { -5, 0, 5, 15, 15, 15, 85, 99, 100, 100,
				      150 };
	union ktap_key k[1];
	int64_t i;

	for (i = 1; i <= 10; i++)
		ktap_map_stat_add(c, g_x, NULL, i, LOC);
	for (i = 1; i <= 5; i++) {
		ktap_map_stat_add(c, g_v5, NULL, i, LOC);
		ktap_map_stat_add(c, g_v5s, NULL, i, LOC);
		k[0].n = 1;
		ktap_map_stat_add(c, g_st, k, i, LOC);
	}
	show_stat(c, "x 1..10", g_x, NULL, agg);
	show_stat(c, "v5 1..5", g_v5, NULL, agg);
	show_stat(c, "v5 1..5 shift 1", g_v5s, NULL, agg);
	show_stat(c, "st[1] 1..5", g_st, k, agg);
	k[0].n = 2;
	ktap_map_stat_add(c, g_st, k, -7, LOC);
	show_stat(c, "st[2] -7", g_st, k, agg);
	k[0].n = 3;
	show_stat(c, "st[3] none", g_st, k, agg);
	ktap_printf(c, "t st exists %d size %d\n",
		    (int64_t)ktap_map_exists(g_st, k), ktap_map_size(g_st));

	ktap_map_stat_get(g_x, NULL, agg);
	ktap_printf(c, "t hist x\n");
	ktap_print_hist(c, agg, &hist_log);

	for (i = 0; i < ARRAY_SIZE(hl); i++)
		ktap_map_stat_add(c, g_hl, NULL, hl[i], LOC);
	ktap_map_stat_get(g_hl, NULL, agg);
	ktap_printf(c, "t hist hl\n");
	ktap_print_hist(c, agg, &hist_log);
	ktap_printf(c, "t hl buckets %d: [64]=%d [65]=%d [66]=%d [61]=%d [-1]=%d [128]=%d\n",
		    agg->nbuckets, ktap_stat_bucket(agg, &hist_log, 64),
		    ktap_stat_bucket(agg, &hist_log, 65),
		    ktap_stat_bucket(agg, &hist_log, 66),
		    ktap_stat_bucket(agg, &hist_log, 61),
		    ktap_stat_bucket(agg, &hist_log, -1),
		    ktap_stat_bucket(agg, &hist_log, 128));

	for (i = 0; i < ARRAY_SIZE(hn); i++)
		ktap_map_stat_add(c, g_hn, NULL, hn[i], LOC);
	ktap_map_stat_get(g_hn, NULL, agg);
	ktap_printf(c, "t hist hn\n");
	ktap_print_hist(c, agg, &hist_lin);
	ktap_printf(c, "t hn buckets %d: [0]=%d [1]=%d [2]=%d [11]=%d [12]=%d\n",
		    agg->nbuckets, ktap_stat_bucket(agg, &hist_lin, 0),
		    ktap_stat_bucket(agg, &hist_lin, 1),
		    ktap_stat_bucket(agg, &hist_lin, 2),
		    ktap_stat_bucket(agg, &hist_lin, 11),
		    ktap_stat_bucket(agg, &hist_lin, 12));

	for (i = 0; i < 181; i++)
		ktap_map_stat_add(c, g_hs, NULL, i < 120 ? 1 : i < 180 ? 2 : 4,
				  LOC);
	ktap_map_stat_get(g_hs, NULL, agg);
	ktap_printf(c, "t hist hs\n");
	ktap_print_hist(c, agg, &hist_log);
	ktap_sprint_hist(c, buf, agg, &hist_log);
	ktap_printf(c, "t sprint %d [%s]\n", ktap_strlen(buf),
		    strchr(buf, '\n') + 1 == strstr(buf, "    0 |") ? "ok" : buf);
}

/* statistics arrays: sorting by aggregate, delete, clear */
static void test_stat_arrays(struct ktap_context *c, struct ktap_stat_agg *agg)
{
	static const int64_t kv[][2] = {
		{ 1, 10 }, { 2, 5 }, { 3, 1 }, { 1, 20 }, { 3, 2 }, { 1, -30 },
		{ 3, 3 }, { 3, 4 }, { 4, 100 },
	};
	union ktap_key k[1];
	int i;

	for (i = 0; i < ARRAY_SIZE(kv); i++) {
		k[0].n = kv[i][0];
		ktap_map_stat_add(c, g_sst, k, kv[i][1], LOC);
	}
	dump(c, "sst unsorted", g_sst, 0, 0, 0, 0, NULL, 0, agg);
	dump(c, "sst default-", g_sst, 0, -1, 0, 0, NULL, 0, agg);
	dump(c, "sst @count+", g_sst, 0, 1, 'c', 0, NULL, 0, agg);
	dump(c, "sst @sum-", g_sst, 0, -1, 's', 0, NULL, 0, agg);
	dump(c, "sst @min+", g_sst, 0, 1, 'm', 0, NULL, 0, agg);
	dump(c, "sst @max- limit 2", g_sst, 0, -1, 'M', 2, NULL, 0, agg);
	dump(c, "sst @avg+", g_sst, 0, 1, 'a', 0, NULL, 0, agg);
	dump(c, "sst key-", g_sst, 1, -1, 0, 0, NULL, 0, agg);
	k[0].n = 3;
	dump(c, "sst slice [3]", g_sst, 0, 0, 0, 0, k, 0, agg);
	ktap_map_delete(g_sst, k);
	ktap_printf(c, "t sst delete %d size %d\n",
		    (int64_t)ktap_map_exists(g_sst, k), ktap_map_size(g_sst));
	ktap_map_clear(g_sst);
	ktap_printf(c, "t sst clear size %d\n", ktap_map_size(g_sst));
	ktap_map_stat_add(c, g_sst, k, 42, LOC);
	dump(c, "sst again", g_sst, 0, 0, 0, 0, NULL, 0, agg);

	for (i = 1; i <= 3; i++) {
		k[0].n = i;
		ktap_map_stat_add(c, g_sf, k, i, LOC);
		ktap_map_stat_add(c, g_sw, k, i, LOC);
		ktap_map_stat_add(c, g_sw, k, i, LOC);
	}
	show_error(c, "sf");
	dump(c, "sf", g_sf, 0, 0, 0, 0, NULL, 0, agg);
	dump(c, "sw", g_sw, 0, 0, 0, 0, NULL, 0, agg);
}

/* memory layout of a few arrays: entry sizes */
static void test_layout(struct ktap_context *c)
{
	ktap_printf(c, "t stride a %d s %d k9 %d x %d st %d hn %d\n",
		    (int64_t)g_a->stride, (int64_t)g_s->stride,
		    (int64_t)g_k9->stride, (int64_t)g_x->stride,
		    (int64_t)g_st->stride, (int64_t)g_hn->stride);
}

/* probe begin */
static const struct ktap_lock_use probe_0_locks[] = {
	{ .rw = &g_all_lock, .mode = KTAP_LOCK_WRITE },
};

static void probe_0(struct ktap_context *c)
{
	struct ktap_stat_agg *agg;
	char *buf;

	if (!ktap_lock_globals(c, probe_0_locks, 1))
		return;
	agg = ktap_frame_push(c, sizeof(*agg));
	buf = ktap_frame_push(c, 2 * MAXSTRINGLEN);
	if (unlikely(c->error))
		goto out;
	ktap_printf(c, "t begin\n");
	test_layout(c);
	test_basic(c);
	test_strings(c, buf);
	test_k9(c, buf);
	test_full(c);
	test_sort(c);
	test_slice(c);
	test_nested(c);
	test_stats(c, agg, buf);
	test_stat_arrays(c, agg);
	ktap_printf(c, "t end %s\n", c->error ?: "no error");
out:
	ktap_unlock_globals(c, probe_0_locks, 1);
}

/* probe timer.ms(10) */
static const struct ktap_lock_use probe_1_locks[] = {
	{ .rw = &g_all_lock, .mode = KTAP_LOCK_WRITE },
	{ .rw = &g_tick_lock, .mode = KTAP_LOCK_READ },
	{ .rw = &g_ticks_lock, .mode = KTAP_LOCK_WRITE },
};

static void probe_1(struct ktap_context *c)
{
	union ktap_key k[1] = { { .n = 1 } };
	struct ktap_map_iter *it[3];
	int i;

	if (!ktap_lock_globals(c, probe_1_locks, 3))
		return;
	ktap_map_stat_add(c, g_tick, NULL, 1, LOC);
	if (++g_ticks != 1)
		goto out;
	switch (ktap_target) {
	case 1:
		for (i = 100; i < 105 && !c->error; i++) {
			k[0].n = i;
			ktap_map_set_long(c, g_small, k, i,
					  "near identifier 'small' at maptest.stp:7:3");
		}
		ktap_printf(c, "full %d\n", (int64_t)i);
		break;
	case 2:
		for (i = 0; i < 3 && !c->error; i++)
			it[i] = ktap_map_iter_start(c, g_srt, 0, 0, 0, 0, NULL, 0,
						    "near keyword 'foreach' at maptest.stp:9:5");
		while (i--)
			ktap_map_iter_end(it[i]);
		break;
	}
out:
	ktap_unlock_globals(c, probe_1_locks, 3);
}

/* probe kprobe.function("__x64_sys_openat"): /tmp/mtA-N, /tmp/mtB-N */
static const struct ktap_lock_use probe_2_locks[] = {
	{ .rw = &g_pc_lock, .mode = KTAP_LOCK_READ },
	{ .rw = &g_ps_lock, .mode = KTAP_LOCK_READ },
};

static void probe_2(struct ktap_context *c)
{
	union ktap_key k[1];
	unsigned long uregs, filename;
	char *s;
	long long n;

	if (strcmp(current->comm, "ktapread"))
		return;
	s = ktap_frame_push(c, MAXSTRINGLEN);
	if (unlikely(c->error))
		return;
	uregs = c->regs->di;
	filename = ktap_read_kernel_long(c, uregs + offsetof(struct pt_regs, si),
					 LOC);
	if (unlikely(c->error))
		return;
	ktap_user_string(c, s, filename, LOC);
	if (unlikely(c->error))
		return;
	if (strncmp(s, "/tmp/mt", 7) || (s[7] != 'A' && s[7] != 'B') ||
	    s[8] != '-' || kstrtoll(s + 9, 10, &n))
		return;
	s[8] = '\0';
	k[0].s = s + 7;
	if (!ktap_lock_globals(c, probe_2_locks, 2))
		return;
	ktap_map_stat_add(c, g_pc, k, n, LOC);
	ktap_map_stat_add(c, g_ps, NULL, n, LOC);
	ktap_unlock_globals(c, probe_2_locks, 2);
}

/* probe end */
static const struct ktap_lock_use probe_3_locks[] = {
	{ .rw = &g_pc_lock, .mode = KTAP_LOCK_WRITE },
	{ .rw = &g_ps_lock, .mode = KTAP_LOCK_WRITE },
	{ .rw = &g_tick_lock, .mode = KTAP_LOCK_WRITE },
	{ .rw = &g_ticks_lock, .mode = KTAP_LOCK_WRITE },
};

static void probe_3(struct ktap_context *c)
{
	struct ktap_stat_agg *agg;
	struct ktap_map_table *t;
	union ktap_key k[1];
	int cpus = 0;

	if (!ktap_lock_globals(c, probe_3_locks, 4))
		return;
	agg = ktap_frame_push(c, sizeof(*agg));
	if (unlikely(c->error))
		goto out;
	k[0].s = "A";
	ktap_map_stat_get(g_pc, k, agg);
	ktap_printf(c, "end pc A %d %d %d %d\n", agg->count, agg->sum,
		    agg->min, agg->max);
	k[0].s = "B";
	ktap_map_stat_get(g_pc, k, agg);
	ktap_printf(c, "end pc B %d %d %d %d\n", agg->count, agg->sum,
		    agg->min, agg->max);
	ktap_map_for_each_table(g_ps, t)
		cpus += t->n > 0;
	ktap_map_stat_get(g_ps, NULL, agg);
	ktap_printf(c, "end ps %d %d %d %d cpus %d\n", agg->count, agg->sum,
		    agg->min, agg->max, (int64_t)cpus);
	cpus = 0;
	ktap_map_for_each_table(g_pc, t)
		cpus += t->n > 0;
	ktap_printf(c, "end pc size %d cpus %d\n", ktap_map_size(g_pc),
		    (int64_t)cpus);
	dump(c, "pc @count-", g_pc, 0, -1, 0, 0, NULL, 0, agg);
	ktap_map_stat_get(g_tick, NULL, agg);
	ktap_printf(c, "end ticks %s %d\n",
		    agg->count == g_ticks ? "ok" : "MISMATCH", g_ticks);
out:
	ktap_unlock_globals(c, probe_3_locks, 4);
}

static const struct ktap_probe ktap_probes[] = {
	{ .kind = KTAP_PROBE_BEGIN, .pp = "begin" },
	{ .kind = KTAP_PROBE_TIMER, .pp = "timer.ms(10)",
	  .period_ns = 10000000 },
	{ .kind = KTAP_PROBE_KPROBE,
	  .pp = "kprobe.function(\"__x64_sys_openat\")",
	  .symbol = "__x64_sys_openat" },
	{ .kind = KTAP_PROBE_END, .pp = "end" },
};
#define KTAP_NR_PROBES ARRAY_SIZE(ktap_probes)
/* no user-space probes: usymname() has no files (usyms.h) */
static const struct ktap_usym_file ktap_usym_files[] = { { 0 } };
static const unsigned int ktap_nr_usym_files;

/* the probes' handlers, in the table's order (run_handler.h) */
static void (*const ktap_handlers[])(struct ktap_context *c) = {
	probe_0, probe_1, probe_2, probe_3,
};

#include "run_handler.h"

/* the arrays, as generated code describes them */
#define MAP(var, ...) do {						\
	static const struct ktap_map_desc d = { __VA_ARGS__ };		\
	var = ktap_map_new(&d);						\
	if (!var)							\
		goto fail;						\
} while (0)

static void ktap_globals_exit(void);

static int ktap_globals_init(void)
{
	MAP(g_a, .name = "a", .nkeys = 1, .key_types = { KTAP_LONG },
	    .value_type = KTAP_LONG);
	MAP(g_s, .name = "s", .nkeys = 2, .key_types = { KTAP_STRING, KTAP_LONG },
	    .value_type = KTAP_STRING);
	MAP(g_k9, .name = "k9", .nkeys = 9,
	    .key_types = { KTAP_LONG, KTAP_STRING, KTAP_LONG, KTAP_STRING,
			   KTAP_LONG, KTAP_STRING, KTAP_LONG, KTAP_STRING,
			   KTAP_LONG },
	    .value_type = KTAP_LONG, .max_entries = 200);
	MAP(g_small, .name = "small", .nkeys = 1, .key_types = { KTAP_LONG },
	    .value_type = KTAP_LONG, .max_entries = 4);
	MAP(g_w, .name = "w", .nkeys = 1, .key_types = { KTAP_LONG },
	    .value_type = KTAP_LONG, .max_entries = 3, .wrap = true);
	MAP(g_big, .name = "big", .nkeys = 1, .key_types = { KTAP_LONG },
	    .value_type = KTAP_LONG);
	MAP(g_srt, .name = "srt", .nkeys = 1, .key_types = { KTAP_LONG },
	    .value_type = KTAP_LONG);
	MAP(g_str, .name = "str", .nkeys = 1, .key_types = { KTAP_STRING },
	    .value_type = KTAP_STRING);
	MAP(g_two, .name = "two", .nkeys = 2,
	    .key_types = { KTAP_LONG, KTAP_STRING }, .value_type = KTAP_LONG);
	MAP(g_sl, .name = "sl", .nkeys = 2,
	    .key_types = { KTAP_STRING, KTAP_LONG }, .value_type = KTAP_LONG);
	MAP(g_x, .name = "x", .value_type = KTAP_STATS,
	    .hist = { .kind = KTAP_HIST_LOG });
	MAP(g_v5, .name = "v5", .value_type = KTAP_STATS);
	MAP(g_v5s, .name = "v5s", .value_type = KTAP_STATS, .var_shift = 1);
	MAP(g_hl, .name = "hl", .value_type = KTAP_STATS,
	    .hist = { .kind = KTAP_HIST_LOG });
	MAP(g_hn, .name = "hn", .value_type = KTAP_STATS,
	    .hist = { .kind = KTAP_HIST_LINEAR, .lo = 0, .hi = 100, .step = 10 });
	MAP(g_hs, .name = "hs", .value_type = KTAP_STATS,
	    .hist = { .kind = KTAP_HIST_LOG });
	MAP(g_st, .name = "st", .nkeys = 1, .key_types = { KTAP_LONG },
	    .value_type = KTAP_STATS, .hist = { .kind = KTAP_HIST_LOG });
	MAP(g_sst, .name = "sst", .nkeys = 1, .key_types = { KTAP_LONG },
	    .value_type = KTAP_STATS);
	MAP(g_sf, .name = "sf", .nkeys = 1, .key_types = { KTAP_LONG },
	    .value_type = KTAP_STATS, .max_entries = 2);
	MAP(g_sw, .name = "sw", .nkeys = 1, .key_types = { KTAP_LONG },
	    .value_type = KTAP_STATS, .max_entries = 2, .wrap = true);
	MAP(g_pc, .name = "pc", .nkeys = 1, .key_types = { KTAP_STRING },
	    .value_type = KTAP_STATS, .hist = { .kind = KTAP_HIST_LOG });
	MAP(g_ps, .name = "ps", .value_type = KTAP_STATS);
	MAP(g_tick, .name = "tick", .value_type = KTAP_STATS);
	g_ticks = 0;
	return 0;
fail:
	ktap_globals_exit();
	return -ENOMEM;
}

static void ktap_globals_exit(void)
{
	struct ktap_map **all[] = {
		&g_a, &g_s, &g_k9, &g_small, &g_w, &g_big, &g_srt, &g_str,
		&g_two, &g_sl, &g_x, &g_v5, &g_v5s, &g_hl, &g_hn, &g_hs, &g_st,
		&g_sst, &g_sf, &g_sw, &g_pc, &g_ps, &g_tick,
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(all); i++) {
		ktap_map_free(*all[i]);
		*all[i] = NULL;
	}
}
#define ktap_globals_exit ktap_globals_exit

#include "module.h"
