/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap runtime: statistics and histograms.
 *
 * A statistic (s <<< v, a[k] <<< v) accumulates per CPU: each CPU updates
 * only its own struct ktap_stat_data, under its own CPU's lock of the
 * global. The extractors (@count, @sum, @min, @max, @avg, @variance,
 * @hist_log, @hist_linear) merge the CPUs' data into a struct
 * ktap_stat_agg, under every CPU's lock (context.h). map.h keeps the per-CPU data; this file does the
 * arithmetic and draws the histograms.
 *
 * The numbers are SystemTap's, computed the way SystemTap computes them:
 *   @avg       sum / count, truncated toward zero
 *   @variance  Welford's online algorithm in integer arithmetic, per CPU,
 *              the CPUs merged with the total-variance formula; values
 *              are scaled by 2^shift first (@variance(v, shift), 0 by
 *              default). So @variance of 1, 2, 3, 4, 5 is 12 as in
 *              SystemTap's manual (2 with shift 1; the exact value is 2.5).
 *              A statistic without keys merges all CPUs at once, an array
 *              element merges them pairwise in CPU order, as SystemTap does.
 *   buckets    log: 128 buckets, bucket 64 holds 0, 64 + n holds
 *              [2^(n-1), 2^n), 64 - n holds (-2^n, -2^(n-1)]; linear(lo,
 *              hi, step): bucket 0 holds v < lo, bucket i holds
 *              [lo + (i-1) step, lo + i step), the last one what is above.
 * The histogram text follows SystemTap's layout, byte for byte.
 */
#ifndef _KTAP_STAT_H
#define _KTAP_STAT_H

/* struct ktap_hist_desc.kind */
#define KTAP_HIST_NONE 0
#define KTAP_HIST_LOG 1
#define KTAP_HIST_LINEAR 2

/* Log histograms: bucket count, and the bucket of 0. */
#define KTAP_HIST_LOG_BUCKETS 128
#define KTAP_HIST_LOG_ZERO 64

/*
 * Most buckets a histogram may have: log histograms use 128; a linear one
 * (hi - lo) / step + 3 (two for under- and overflow), at most this many,
 * as in SystemTap (STP_MAX_BUCKETS).
 */
#ifndef KTAP_HIST_MAX_BUCKETS
#define KTAP_HIST_MAX_BUCKETS 128
#endif
#if KTAP_HIST_MAX_BUCKETS < KTAP_HIST_LOG_BUCKETS
#error "KTAP_HIST_MAX_BUCKETS must be at least 128"
#endif

/* Histogram text: width of the bars; empty rows kept around the data. */
#define KTAP_HIST_WIDTH 50
#define KTAP_HIST_ELISION 2

/* Largest @variance bit shift, as in SystemTap. */
#define KTAP_STAT_MAX_SHIFT 62

/**
 * struct ktap_hist_desc - which histogram a statistic keeps
 * @kind: KTAP_HIST_NONE, KTAP_HIST_LOG or KTAP_HIST_LINEAR
 * @lo: linear: the lowest value of the first bucket
 * @hi: linear: the highest value (inclusive)
 * @step: linear: bucket width, > 0
 */
struct ktap_hist_desc {
	int kind;
	int64_t lo, hi, step;
};

/**
 * struct ktap_stat_data - what one CPU accumulated for one statistic
 * @count: values added
 * @sum: their sum
 * @min: the smallest
 * @max: the largest
 * @avg_s: Welford's running mean, scaled by 2^shift
 * @m2: Welford's sum of squared differences from the mean, scaled
 * @variance_s: @m2 / (@count - 1)
 * @hist: the histogram's buckets (as many as the statistic has)
 */
struct ktap_stat_data {
	int64_t count, sum, min, max;
	int64_t avg_s, m2, variance_s;
	int64_t hist[];
};

/**
 * struct ktap_stat_agg - a statistic merged over the CPUs
 * @count: @count
 * @sum: @sum
 * @min: @min (meaningless when @count is 0)
 * @max: @max
 * @avg_s: mean scaled by 2^@shift, as the variance merge computed it
 * @variance_s: variance scaled by 2^(2 @shift)
 * @shift: the @variance bit shift
 * @nbuckets: number of histogram buckets (0 without a histogram)
 * @buckets: the histogram
 *
 * About 1 KiB: generated code keeps it on the frame arena, not the stack.
 */
struct ktap_stat_agg {
	int64_t count, sum, min, max;
	int64_t avg_s, variance_s;
	int shift;
	int64_t nbuckets;
	int64_t buckets[KTAP_HIST_MAX_BUCKETS];
};

/**
 * ktap_div64() - signed division as SystemTap's runtime does it
 * @x: dividend
 * @y: divisor
 *
 * Return: @x / @y truncated toward zero; 0 when @y is 0.
 */
static inline int64_t ktap_div64(int64_t x, int64_t y)
{
	if (unlikely(!y))
		return 0;
	if (unlikely(y == -1))
		return (int64_t)(0 - (u64)x);
	return div64_s64(x, y);
}

/**
 * ktap_hist_nbuckets() - number of buckets of a histogram
 * @h: the histogram
 *
 * Return: 128 for log, (hi - lo) / step + 3 for linear, 0 for none or an
 * invalid linear histogram (see ktap_hist_valid()).
 */
static inline int64_t ktap_hist_nbuckets(const struct ktap_hist_desc *h)
{
	u64 q;

	switch (h->kind) {
	case KTAP_HIST_LOG:
		return KTAP_HIST_LOG_BUCKETS;
	case KTAP_HIST_LINEAR:
		if (h->step <= 0 || h->hi < h->lo)
			return 0;
		q = div64_u64((u64)h->hi - (u64)h->lo, h->step);
		return min_t(u64, q, S64_MAX - 3) + 3;
	default:
		return 0;
	}
}

/**
 * ktap_hist_valid() - can this histogram be kept?
 * @h: the histogram
 *
 * Return: true for none and log; for linear, when step > 0, hi >= lo and
 * the buckets (under- and overflow included) fit KTAP_HIST_MAX_BUCKETS.
 */
static inline bool ktap_hist_valid(const struct ktap_hist_desc *h)
{
	switch (h->kind) {
	case KTAP_HIST_NONE:
	case KTAP_HIST_LOG:
		return true;
	case KTAP_HIST_LINEAR:
		return ktap_hist_nbuckets(h) >= 3 &&
		       ktap_hist_nbuckets(h) <= KTAP_HIST_MAX_BUCKETS;
	default:
		return false;
	}
}

/**
 * ktap_hist_log_index() - the log bucket of a value
 * @v: the value
 *
 * Return: 64 for 0, 64 + fls(v) above, 64 - fls(-v) below (0..127).
 */
static inline int ktap_hist_log_index(int64_t v)
{
	u64 mag = v < 0 ? 0 - (u64)v : (u64)v;
	int n = fls64(mag);

	if (!v)
		return KTAP_HIST_LOG_ZERO;
	if (v > 0)
		return min(KTAP_HIST_LOG_ZERO + n, KTAP_HIST_LOG_BUCKETS - 1);
	return KTAP_HIST_LOG_BUCKETS - min(KTAP_HIST_LOG_ZERO + n,
					   KTAP_HIST_LOG_BUCKETS);
}

/**
 * ktap_hist_log_value() - the value a log bucket is labelled with
 * @i: the bucket, 0..127
 *
 * Return: 0 for bucket 64, 2^(i-65) above it, -2^(63-i) below it.
 */
static inline int64_t ktap_hist_log_value(int i)
{
	if (i == KTAP_HIST_LOG_ZERO)
		return 0;
	if (i > KTAP_HIST_LOG_ZERO)
		return (int64_t)1 << (i - KTAP_HIST_LOG_ZERO - 1);
	return (int64_t)(~0ULL << (63 - i));
}

/**
 * ktap_hist_index() - the bucket a value falls into
 * @h: the histogram (valid, not none)
 * @nb: its number of buckets
 * @v: the value
 *
 * Return: the bucket, 0..@nb-1.
 */
static inline int ktap_hist_index(const struct ktap_hist_desc *h, int nb,
				  int64_t v)
{
	u64 off;

	if (h->kind == KTAP_HIST_LOG)
		return ktap_hist_log_index(v);
	if (v < h->lo)
		return 0;
	off = div64_u64((u64)v - (u64)h->lo, h->step);
	return off >= nb - 2 ? nb - 1 : off + 1;
}

/**
 * ktap_stat_data_add() - add a value to one CPU's statistic
 * @sd: the CPU's data (zeroed when the key was created)
 * @h: the histogram
 * @nb: its number of buckets
 * @shift: the @variance bit shift
 * @v: the value
 *
 * Welford's update, in integers scaled by 2^@shift, as SystemTap does it.
 */
static inline void ktap_stat_data_add(struct ktap_stat_data *sd,
				      const struct ktap_hist_desc *h, int nb,
				      int shift, int64_t v)
{
	int64_t vs = (int64_t)((u64)v << shift);
	int64_t delta;

	if (!sd->count) {
		sd->count = 1;
		sd->sum = sd->min = sd->max = v;
		sd->avg_s = vs;
		sd->m2 = 0;
	} else {
		sd->count++;
		sd->sum += v;
		if (v > sd->max)
			sd->max = v;
		if (v < sd->min)
			sd->min = v;
#ifdef KTAP_NEED_VARIANCE
		/* two 64-bit divisions per value: only when @variance is used */
		delta = vs - sd->avg_s;
		sd->avg_s += ktap_div64(delta, sd->count);
		sd->m2 += delta * (vs - sd->avg_s);
		sd->variance_s = ktap_div64(sd->m2, sd->count - 1);
#else
		(void)delta;
#endif
	}
	if (nb)
		sd->hist[ktap_hist_index(h, nb, v)]++;
}

/**
 * ktap_stat_agg_init() - start merging a statistic
 * @a: the result
 * @nb: number of histogram buckets
 * @shift: the @variance bit shift
 */
static inline void ktap_stat_agg_init(struct ktap_stat_agg *a, int nb,
				      int shift)
{
	a->count = a->sum = a->min = a->max = 0;
	a->avg_s = a->variance_s = 0;
	a->shift = shift;
	a->nbuckets = nb;
	memset(a->buckets, 0, nb * sizeof(a->buckets[0]));
}

/**
 * ktap_stat_agg_sum() - merge one CPU's count, sum, min, max, histogram
 * @a: the result so far
 * @sd: the CPU's data (count > 0)
 */
static void ktap_stat_agg_sum(struct ktap_stat_agg *a,
			      const struct ktap_stat_data *sd)
{
	int i;

	if (!a->count || sd->min < a->min)
		a->min = sd->min;
	if (!a->count || sd->max > a->max)
		a->max = sd->max;
	a->count += sd->count;
	a->sum += sd->sum;
	for (i = 0; i < a->nbuckets; i++)
		a->buckets[i] += sd->hist[i];
}

/**
 * ktap_stat_sq_dev() - n (x - y)^2, the spread of a group around a mean
 * @n: values in the group
 * @x: its mean
 * @y: the overall mean
 *
 * Return: the product, wrapping on overflow as SystemTap's does.
 */
static inline int64_t ktap_stat_sq_dev(int64_t n, int64_t x, int64_t y)
{
	u64 d = (u64)x - (u64)y;

	return (int64_t)((u64)n * d * d);
}

/**
 * ktap_stat_agg_merge() - merge one more CPU into an array element
 * @a: the result so far
 * @sd: the CPU's data (count > 0)
 *
 * Pairwise: the running result and the CPU's data are combined with the
 * total-variance formula, CPU after CPU.
 */
static void ktap_stat_agg_merge(struct ktap_stat_agg *a,
				const struct ktap_stat_data *sd)
{
	int64_t n1 = a->count, avg1 = a->avg_s, s;

	ktap_stat_agg_sum(a, sd);
	if (!n1) {
		a->avg_s = sd->avg_s;
		a->variance_s = sd->variance_s;
		return;
	}
	a->avg_s = ktap_div64((int64_t)((u64)a->sum << a->shift), a->count);
	s = ktap_stat_sq_dev(n1, avg1, a->avg_s) + (n1 - 1) * a->variance_s +
	    ktap_stat_sq_dev(sd->count, sd->avg_s, a->avg_s) +
	    (sd->count - 1) * sd->variance_s;
	a->variance_s = ktap_div64(s, a->count - 1);
}

/**
 * ktap_stat_agg_spread() - second pass of a statistic without keys
 * @a: the result, after ktap_stat_agg_sum() of every CPU and
 *	ktap_stat_agg_mean()
 * @sd: one CPU's data (count > 0)
 * @s: running sum of the CPUs' spreads
 *
 * All CPUs at once: s = sum of n_i (mean_i - mean)^2 + (n_i - 1) var_i.
 */
static inline void ktap_stat_agg_spread(const struct ktap_stat_agg *a,
					const struct ktap_stat_data *sd,
					int64_t *s)
{
	*s += ktap_stat_sq_dev(sd->count, sd->avg_s, a->avg_s) +
	      (sd->count - 1) * sd->variance_s;
}

/**
 * ktap_stat_agg_mean() - the overall scaled mean, after the first pass
 * @a: the result
 */
static inline void ktap_stat_agg_mean(struct ktap_stat_agg *a)
{
	a->avg_s = ktap_div64((int64_t)((u64)a->sum << a->shift), a->count);
}

/**
 * ktap_stat_avg() - @avg
 * @a: the merged statistic
 *
 * Return: sum / count truncated toward zero; 0 when count is 0.
 */
static inline int64_t ktap_stat_avg(const struct ktap_stat_agg *a)
{
	return ktap_div64(a->sum, a->count);
}

/**
 * ktap_stat_variance() - @variance
 * @a: the merged statistic
 *
 * Return: the variance SystemTap computes (see the top of this file); 0
 * for fewer than two values.
 */
static inline int64_t ktap_stat_variance(const struct ktap_stat_agg *a)
{
	return a->variance_s >> (2 * a->shift);
}

/**
 * ktap_stat_bucket() - @hist_log(v)[i], @hist_linear(v, lo, hi, step)[i]
 * @a: the merged statistic
 * @h: its histogram
 * @index: the bucket (linear: 0 is underflow, 1..N the buckets, N+1
 *	overflow; log: 0..127, 64 holds 0)
 *
 * The caller checks 0 <= @index < a->nbuckets ("histogram index out of
 * range").
 *
 * Return: the bucket's count; 0 out of range.
 */
static inline int64_t ktap_stat_bucket(const struct ktap_stat_agg *a,
				       const struct ktap_hist_desc *h,
				       int64_t index)
{
	if (h->kind == KTAP_HIST_NONE || index < 0 || index >= a->nbuckets)
		return 0;
	return a->buckets[index];
}

/* ---- histogram text ---- */

/**
 * ktap_num_width() - characters of a number in decimal
 * @v: the number
 *
 * Return: digits, plus one for a minus sign.
 */
static int ktap_num_width(int64_t v)
{
	u64 mag = v < 0 ? 0 - (u64)v : (u64)v;
	int n = v < 0 ? 2 : 1;

	while (mag >= 10) {
		mag = div_u64(mag, 10);
		n++;
	}
	return n;
}

/**
 * struct ktap_hist_rows - the rows a histogram prints
 * @lo: first bucket printed
 * @hi: last bucket printed
 * @under: linear: the underflow row is printed
 * @over: linear: the overflow row is printed
 * @maxcount: the largest bucket
 */
struct ktap_hist_rows {
	int lo, hi;
	bool under, over;
	int64_t maxcount;
};

/**
 * ktap_hist_rows() - choose the rows of a histogram
 * @a: the merged statistic
 * @h: its histogram
 * @r: filled in
 *
 * The buckets with data, plus up to two empty ones on each side; a log
 * histogram goes below 0 only with negative data, a linear one shows its
 * under- and overflow rows only when they are not empty.
 *
 * Return: false if every bucket is empty.
 */
static bool ktap_hist_rows(const struct ktap_stat_agg *a,
			   const struct ktap_hist_desc *h,
			   struct ktap_hist_rows *r)
{
	int nb = a->nbuckets, i;
	bool linear = h->kind == KTAP_HIST_LINEAR;

	r->lo = -1;
	r->hi = 0;
	r->maxcount = 0;
	for (i = 0; i < nb; i++) {
		if (!a->buckets[i])
			continue;
		if (r->lo < 0)
			r->lo = i;
		r->hi = i;
		r->maxcount = max(r->maxcount, a->buckets[i]);
	}
	if (r->lo < 0)
		return false;
	for (i = 0; i < KTAP_HIST_ELISION; i++) {
		if (r->lo > 0 && (linear || r->lo != KTAP_HIST_LOG_ZERO))
			r->lo--;
		if (r->hi < nb - 1)
			r->hi++;
	}
	r->under = r->over = false;
	if (linear) {
		if (r->lo == 0 && !a->buckets[0])
			r->lo++;
		if (r->hi == nb - 1 && !a->buckets[nb - 1])
			r->hi--;
		r->under = r->lo == 0;
		r->over = r->hi == nb - 1;
	}
	return true;
}

/**
 * ktap_hist_row_value() - the label of a row
 * @h: the histogram
 * @nb: its number of buckets
 * @i: the bucket
 * @prefix: set to "<" (underflow), ">" (overflow) or ""
 *
 * Return: the value printed.
 */
static int64_t ktap_hist_row_value(const struct ktap_hist_desc *h, int nb,
				   int i, const char **prefix)
{
	*prefix = "";
	if (h->kind == KTAP_HIST_LOG)
		return ktap_hist_log_value(i);
	if (i == 0) {
		*prefix = "<";
		return h->lo;
	}
	if (i == nb - 1) {
		*prefix = ">";
		return h->lo + (int64_t)(i - 2) * h->step;
	}
	return h->lo + (int64_t)(i - 1) * h->step;
}

/**
 * ktap_hist_value_width() - width of the value column
 * @h: the histogram
 * @r: its rows
 *
 * Return: at least 5 (strlen("value")); SystemTap's widths otherwise.
 */
static int ktap_hist_value_width(const struct ktap_hist_desc *h,
				 const struct ktap_hist_rows *r)
{
	int w;

	if (h->kind == KTAP_HIST_LOG)
		w = max(ktap_num_width(ktap_hist_log_value(r->hi)),
			ktap_num_width(ktap_hist_log_value(r->lo)));
	else
		w = max(ktap_num_width(h->lo) + r->under,
			ktap_num_width(h->lo + h->step * r->hi) + r->over);
	return max(w, 5);
}

/**
 * ktap_hist_elided() - is this row part of a run of empty rows folded as ~?
 * @a: the merged statistic
 * @r: the rows
 * @i: the row's bucket
 *
 * Return: true when the bucket and its neighbours up to two rows away
 * (within the printed rows) are all empty.
 */
static bool ktap_hist_elided(const struct ktap_stat_agg *a,
			     const struct ktap_hist_rows *r, int i)
{
	int e = min_t(int64_t, KTAP_HIST_ELISION, a->nbuckets);
	int k;

	for (k = max(r->lo, i - e); k <= min(r->hi, i + e); k++)
		if (a->buckets[k])
			return false;
	return true;
}

/**
 * ktap_hist_format() - draw a histogram
 * @o: the sink
 * @a: the merged statistic
 * @h: its histogram
 *
 * A header, one row per bucket ("value |@@@@ count", the bar scaled so
 * that the largest bucket is at most 50 wide), "~" for folded empty rows,
 * then an empty line. Nothing when every bucket is empty.
 */
static void ktap_hist_format(struct ktap_out *o, const struct ktap_stat_agg *a,
			     const struct ktap_hist_desc *h)
{
	static const char bar[] =
		"@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@";
	static const char dashes[] =
		"--------------------------------------------------";
	struct ktap_hist_rows r;
	int64_t scale, n;
	int vw, cw, i;
	bool eliding = false;

	if (h->kind == KTAP_HIST_NONE || !ktap_hist_rows(a, h, &r))
		return;
	scale = DIV_ROUND_UP_ULL(r.maxcount, KTAP_HIST_WIDTH);
	cw = ktap_num_width(r.maxcount);
	vw = ktap_hist_value_width(h, &r);

	ktap_out_snprintf(o, "%*s |%s count\n", vw, "value", dashes);
	for (i = r.lo; i <= r.hi; i++) {
		const char *prefix;
		int64_t v;

		if (ktap_hist_elided(a, &r, i)) {
			eliding = true;
			continue;
		}
		if (eliding) {
			ktap_out_snprintf(o, "%*s ~\n", vw, "");
			eliding = false;
		}
		v = ktap_hist_row_value(h, a->nbuckets, i, &prefix);
		n = div64_s64(a->buckets[i], scale);
		ktap_out_snprintf(o, "%*s%lld |%.*s%*lld\n",
				  vw - ktap_num_width(v), prefix, (long long)v,
				  (int)n, bar,
				  (int)(KTAP_HIST_WIDTH - n + 1 + cw),
				  (long long)a->buckets[i]);
	}
	ktap_out_write(o, "\n", 1);
}

/**
 * ktap_hist_json() - a histogram as a data record (json.h, doc/json.md)
 * @c: the context
 * @a: the merged statistic
 * @h: its histogram
 *
 * The statistic's numbers, then its non-empty buckets in order, each with
 * the value its text row is labelled with; a linear histogram's under-
 * and overflow buckets say so.
 */
static void ktap_hist_json(struct ktap_context *c, const struct ktap_stat_agg *a,
			   const struct ktap_hist_desc *h)
{
	bool linear = h->kind == KTAP_HIST_LINEAR;
	const char *sep = "";
	struct ktap_out o;
	int i;

	ktap_json_begin(c, &o, "hist");
	ktap_out_snprintf(&o, ",\"kind\":\"%s\"", linear ? "linear" : "log");
	if (linear)
		ktap_out_snprintf(&o, ",\"lo\":%lld,\"hi\":%lld,\"step\":%lld",
				  (long long)h->lo, (long long)h->hi, (long long)h->step);
	ktap_out_snprintf(&o, ",\"count\":%lld,\"sum\":%lld,\"min\":%lld,\"max\":%lld,\"avg\":%lld,\"buckets\":[",
			  (long long)a->count, (long long)a->sum, (long long)a->min,
			  (long long)a->max, (long long)ktap_stat_avg(a));
	for (i = 0; i < a->nbuckets; i++) {
		const char *prefix;
		int64_t v;

		if (!a->buckets[i])
			continue;
		if (!ktap_json_room(&o, 80)) {
			ktap_out_snprintf(&o, "],\"truncated\":true");
			ktap_json_end(c, &o);
			return;
		}
		v = ktap_hist_row_value(h, a->nbuckets, i, &prefix);
		ktap_out_snprintf(&o, "%s{\"value\":%lld,\"count\":%lld%s}", sep,
				  (long long)v, (long long)a->buckets[i],
				  *prefix == '<' ? ",\"under\":true" :
				  *prefix == '>' ? ",\"over\":true" : "");
		sep = ",";
	}
	ktap_out_write(&o, "]", 1);
	ktap_json_end(c, &o);
}

/**
 * ktap_print_hist() - print(@hist_log(v)), print(@hist_linear(...))
 * @c: the context
 * @a: the merged statistic
 * @h: its histogram
 *
 * The caller reports "empty aggregate" when the statistic has no data.
 */
static __maybe_unused void ktap_print_hist(struct ktap_context *c,
					   const struct ktap_stat_agg *a,
					   const struct ktap_hist_desc *h)
{
	struct ktap_out o;

	if (ktap_json) {
		ktap_hist_json(c, a, h);
		return;
	}
	ktap_out_print(&o, c);
	ktap_hist_format(&o, a, h);
	c->print_len = o.len;
}

/**
 * ktap_sprint_hist() - sprint(@hist_log(v)): a histogram as a string
 * @c: the context
 * @dst: MAXSTRINGLEN bytes
 * @a: the merged statistic
 * @h: its histogram
 *
 * Truncated to MAXSTRINGLEN - 1 bytes, like any string.
 */
static __maybe_unused void ktap_sprint_hist(struct ktap_context *c, char *dst,
					    const struct ktap_stat_agg *a,
					    const struct ktap_hist_desc *h)
{
	struct ktap_out o = {
		.c = c,
		.buf = c->scratch,
		.cap = MAXSTRINGLEN - 1,
	};

	ktap_hist_format(&o, a, h);
	memcpy(dst, o.buf, o.len);
	dst[o.len] = '\0';
}

#endif /* _KTAP_STAT_H */
