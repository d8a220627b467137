/* ktap-flamegraph - draw folded stacks as an interactive SVG flame graph.
 *
 * usage: ktap-flamegraph [--title TEXT] [--width PX] [--min-width PX]
 *                        [--unit WORD] [FILE...] > out.svg
 *
 * Input: folded stacks, one a line, "frame;frame;frame COUNT", the
 * outermost frame first (what examples/flamegraph.stp prints; perf's and
 * SystemTap's stack collapsers print the same). Equal lines add up.
 *
 * Output: one self-contained SVG. Each frame is a box as wide as the
 * samples that passed through it, its callers below it; boxes with the
 * same name have the same colour. The viewer script (viewer.js, embedded
 * with viewer.css at build time) shows a frame's name and count on hover,
 * zooms into a frame on click and searches by name; nothing is fetched
 * when the file is viewed.
 *
 * Three steps: read_input() builds the tree of call paths (a node per
 * distinct path, found through a hash table on parent and name), layout()
 * gives each node its place, write_svg() prints the boxes in tree order.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viewer.gen.h"	/* viewer_css[], viewer_js[] */

#define FRAME_H		16	/* px per stack level, with the 1 px gap */
#define PAD_X		10	/* px left and right of the graph */
#define HEAD_H		36	/* px above the graph: title, buttons */
#define FOOT_H		28	/* px below: the details line */
#define CHAR_W		7.2	/* px of one 12 px monospace character */

struct options {
	const char *title;
	double width;		/* of the image, px */
	double min_width;	/* narrower frames are left out, px */
	const char *unit;	/* what a count counts */
};

/* ---- messages ---- */

static void __attribute__((format(printf, 1, 2), noreturn)) die(const char *fmt, ...)
{
	va_list ap;

	fputs("ktap-flamegraph: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

/* a bad input line: where, what, the line and a caret under the place */
static void __attribute__((noreturn)) bad_line(const char *file, long lineno,
					       const char *line, size_t col,
					       const char *what)
{
	fprintf(stderr, "%s:%ld:%zu: error: %s\n    %s\n    %*s^\n", file, lineno,
		col + 1, what, line, (int)col, "");
	exit(1);
}

/* ---- the tree of call paths ---- */

struct node {
	char *name;
	size_t parent;		/* index; the root is its own parent */
	size_t *kids;		/* sorted by name by layout() */
	size_t nkids, capkids;
	uint64_t count;		/* samples through this frame */
	uint64_t x;		/* samples left of it at its depth */
	int depth;		/* the root ("all") is 0 */
};

static struct node *nodes;
static size_t nnodes, capnodes;
static size_t *table;		/* hash of (parent, name) -> node index + 1 */
static size_t table_size;

static uint64_t hash_name(size_t parent, const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull ^ parent;	/* FNV-1a */

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static size_t new_node(size_t parent, const char *name, size_t len)
{
	struct node *n;

	if (nnodes == capnodes) {
		capnodes = capnodes ? 2 * capnodes : 1024;
		nodes = xrealloc(nodes, capnodes * sizeof(*nodes));
	}
	n = &nodes[nnodes];
	memset(n, 0, sizeof(*n));
	n->name = strndup(name, len);
	if (!n->name)
		die("out of memory");
	n->parent = parent;
	n->depth = nnodes ? nodes[parent].depth + 1 : 0;
	if (nnodes) {
		struct node *p = &nodes[parent];

		if (p->nkids == p->capkids) {
			p->capkids = p->capkids ? 2 * p->capkids : 4;
			p->kids = xrealloc(p->kids, p->capkids * sizeof(*p->kids));
		}
		p->kids[p->nkids++] = nnodes;
	}
	return nnodes++;
}

static void table_insert(size_t idx)
{
	const struct node *n = &nodes[idx];
	size_t i = hash_name(n->parent, n->name, strlen(n->name)) & (table_size - 1);

	while (table[i])
		i = (i + 1) & (table_size - 1);
	table[i] = idx + 1;
}

/* keep the table at most half full */
static void table_grow(void)
{
	free(table);
	table_size = table_size ? 2 * table_size : 4096;
	table = calloc(table_size, sizeof(*table));
	if (!table)
		die("out of memory");
	for (size_t i = 1; i < nnodes; i++)
		table_insert(i);
}

/* the child of parent named name[0..len), made if new */
static size_t child(size_t parent, const char *name, size_t len)
{
	size_t i, idx;

	if (2 * (nnodes + 1) > table_size)
		table_grow();
	i = hash_name(parent, name, len) & (table_size - 1);
	for (; table[i]; i = (i + 1) & (table_size - 1)) {
		const struct node *n = &nodes[table[i] - 1];

		if (n->parent == parent && !strncmp(n->name, name, len) && !n->name[len])
			return table[i] - 1;
	}
	idx = new_node(parent, name, len);
	table[i] = idx + 1;
	return idx;
}

/* ---- input ---- */

/* the count after the line's last space; its column, or -1 when bad */
static long parse_count(const char *line, size_t len, uint64_t *count)
{
	const char *sp = memrchr(line, ' ', len);
	char *end;

	if (!sp || sp[1] < '0' || sp[1] > '9')
		return -1;
	errno = 0;
	*count = strtoull(sp + 1, &end, 10);
	if (errno || end != line + len)
		return -1;
	return sp - line;
}

/* add one "a;b;c COUNT" line to the tree */
static void add_line(const char *file, long lineno, const char *line, size_t len)
{
	uint64_t count;
	long stack_len = parse_count(line, len, &count);
	size_t at = 0, node = 0;

	if (stack_len < 0)
		bad_line(file, lineno, line, len, "expected a space and a count at the end");
	if (stack_len == 0)
		bad_line(file, lineno, line, 0, "no frames before the count");
	nodes[0].count += count;
	while (at <= (size_t)stack_len) {
		const char *semi = memchr(line + at, ';', stack_len - at);
		size_t end = semi ? (size_t)(semi - line) : (size_t)stack_len;

		if (end == at)
			bad_line(file, lineno, line, at, "empty frame name");
		node = child(node, line + at, end - at);
		nodes[node].count += count;
		at = end + 1;
	}
}

static void read_file(FILE *f, const char *file)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	long lineno = 0;

	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (len > 0)
			add_line(file, lineno, line, len);
	}
	if (ferror(f))
		die("cannot read %s: %s", file, strerror(errno));
	free(line);
}

static void read_input(char **files, int nfiles)
{
	new_node(0, "all", 3);
	if (nfiles == 0) {
		read_file(stdin, "<stdin>");
		return;
	}
	for (int i = 0; i < nfiles; i++) {
		FILE *f = strcmp(files[i], "-") ? fopen(files[i], "r") : stdin;

		if (!f)
			die("cannot open %s: %s", files[i], strerror(errno));
		read_file(f, strcmp(files[i], "-") ? files[i] : "<stdin>");
		if (f != stdin)
			fclose(f);
	}
}

/* ---- layout ---- */

static int by_name(const void *a, const void *b)
{
	return strcmp(nodes[*(const size_t *)a].name, nodes[*(const size_t *)b].name);
}

/* children side by side in name order from their parent's left edge;
 * returns the depth of the deepest node drawn */
static int layout(size_t idx, double px_per_sample, double min_width)
{
	struct node *n = &nodes[idx];
	uint64_t x = n->x;
	int deepest = n->depth;

	qsort(n->kids, n->nkids, sizeof(*n->kids), by_name);
	for (size_t i = 0; i < n->nkids; i++) {
		struct node *k = &nodes[n->kids[i]];
		int d;

		k->x = x;
		x += k->count;
		if (k->count * px_per_sample < min_width)
			continue;
		d = layout(n->kids[i], px_per_sample, min_width);
		if (d > deepest)
			deepest = d;
	}
	return deepest;
}

/* ---- output ---- */

static void put_escaped(FILE *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len && s[i]; i++) {
		switch (s[i]) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		default:
			/* control characters are not allowed in XML 1.0 */
			fputc((unsigned char)s[i] < 0x20 ? '?' : s[i], out);
		}
	}
}

/* the same name, the same colour: warm shades for the kernel, blue for
 * "[user]" and other bracketed pseudo-frames, green for module code */
static void frame_colour(const char *name, int rgb[3])
{
	uint64_t h = hash_name(0, name, strlen(name));
	size_t len = strlen(name);
	int a = h % 64, b = (h >> 8) % 128, c = (h >> 16) % 48;

	if (name[0] == '[') {
		rgb[0] = 80 + c; rgb[1] = 140 + a; rgb[2] = 200 + a / 2;
	} else if (len > 1 && name[len - 1] == ']') {
		rgb[0] = 70 + b / 2; rgb[1] = 180 + a; rgb[2] = 60 + c;
	} else {
		rgb[0] = 200 + a * 55 / 63; rgb[1] = 60 + b; rgb[2] = c;
	}
}

/* what fits of the name in width px: all, a cut with "..", or nothing */
static void put_label(FILE *out, const char *name, double width)
{
	long fit = (long)((width - 6) / CHAR_W);
	size_t len = strlen(name);

	if (fit < 3)
		return;
	if ((size_t)fit >= len) {
		put_escaped(out, name, len);
		return;
	}
	put_escaped(out, name, fit - 2);
	fputs("..", out);
}

static void write_frame(FILE *out, const struct node *n, double px, int ybase,
			const struct options *o)
{
	double x = PAD_X + n->x * px, w = n->count * px;
	int y = ybase - (n->depth + 1) * FRAME_H, rgb[3];

	frame_colour(n->name, rgb);
	fprintf(out, "<g class=\"f\" data-d=\"%d\" data-x=\"%llu\" data-w=\"%llu\"><title>",
		n->depth, (unsigned long long)n->x, (unsigned long long)n->count);
	put_escaped(out, n->name, strlen(n->name));
	fprintf(out, " (%llu %s, %.2f%%)</title>", (unsigned long long)n->count, o->unit,
		100.0 * n->count / nodes[0].count);
	fprintf(out, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
		"fill=\"rgb(%d,%d,%d)\"/><text x=\"%.2f\" y=\"%d\">",
		x, y, w, FRAME_H - 1, rgb[0], rgb[1], rgb[2], x + 3, y + FRAME_H - 4);
	put_label(out, n->name, w);
	fputs("</text></g>\n", out);
}

/* the frames in tree order, each followed by its callees */
static void write_frames(FILE *out, size_t idx, double px, int ybase,
			 const struct options *o)
{
	const struct node *n = &nodes[idx];

	if (n->count * px < o->min_width)
		return;
	write_frame(out, n, px, ybase, o);
	for (size_t i = 0; i < n->nkids; i++)
		write_frames(out, n->kids[i], px, ybase, o);
}

static void write_svg(FILE *out, const struct options *o)
{
	double px = (o->width - 2 * PAD_X) / nodes[0].count;
	int depth = layout(0, px, o->min_width);
	int height = HEAD_H + (depth + 1) * FRAME_H + FOOT_H;
	int ybase = HEAD_H + (depth + 1) * FRAME_H;

	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
		"height=\"%d\" viewBox=\"0 0 %.0f %d\" data-total=\"%llu\" data-unit=\"",
		o->width, height, o->width, height, (unsigned long long)nodes[0].count);
	put_escaped(out, o->unit, strlen(o->unit));
	fprintf(out, "\" data-pad=\"%d\" data-charw=\"%.1f\">\n<style>\n%s</style>\n",
		PAD_X, CHAR_W, viewer_css);
	fprintf(out, "<rect class=\"bg\" width=\"100%%\" height=\"100%%\"/>\n"
		"<text id=\"title\" x=\"%.0f\" y=\"22\" text-anchor=\"middle\">",
		o->width / 2);
	put_escaped(out, o->title, strlen(o->title));
	fprintf(out, "</text>\n"
		"<text id=\"reset\" class=\"btn hidden\" x=\"%d\" y=\"22\">Reset zoom</text>\n"
		"<text id=\"search\" class=\"btn\" x=\"%.0f\" y=\"22\" text-anchor=\"end\">Search</text>\n"
		"<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n"
		"<text id=\"matched\" x=\"%.0f\" y=\"%d\" text-anchor=\"end\"></text>\n"
		"<g id=\"frames\">\n",
		PAD_X, o->width - PAD_X, PAD_X, height - 10, o->width - PAD_X, height - 10);
	write_frames(out, 0, px, ybase, o);
	fprintf(out, "</g>\n<script type=\"text/javascript\"><![CDATA[\n%s]]></script>\n</svg>\n",
		viewer_js);
}

/* ---- the command line ---- */

static void usage(FILE *f)
{
	fputs("usage: ktap-flamegraph [options] [FILE...] > out.svg\n"
	      "Draws folded stacks (\"frame;frame;frame COUNT\" lines, outermost frame\n"
	      "first; standard input when no FILE) as an interactive SVG flame graph.\n"
	      "  --title TEXT     the heading (default \"Flame graph\")\n"
	      "  --width PX       the image's width (default 1200)\n"
	      "  --min-width PX   leave out narrower frames (default 0.1)\n"
	      "  --unit WORD      what a count counts (default \"samples\")\n"
	      "  -h, --help       this text\n", f);
}

static double parse_px(const char *opt, const char *arg, double lo, double hi)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v >= lo && v <= hi))
		die("--%s wants a number from %g to %g, not '%s'", opt, lo, hi, arg);
	return v;
}

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longs[] = {
		{ "title", required_argument, NULL, 't' },
		{ "width", required_argument, NULL, 'w' },
		{ "min-width", required_argument, NULL, 'm' },
		{ "unit", required_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
		switch (c) {
		case 't': o->title = optarg; break;
		case 'w': o->width = parse_px("width", optarg, 200, 100000); break;
		case 'm': o->min_width = parse_px("min-width", optarg, 0, 100); break;
		case 'u': o->unit = optarg; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); exit(1);
		}
	}
	return optind;
}

int main(int argc, char **argv)
{
	struct options o = { "Flame graph", 1200, 0.1, "samples" };
	int first = parse_options(argc, argv, &o);

	read_input(argv + first, argc - first);
	if (nodes[0].count == 0)
		die("no samples in the input (want lines like \"a;b;c 12\")");
	write_svg(stdout, &o);
	if (fflush(stdout) || ferror(stdout))
		die("cannot write the SVG: %s", strerror(errno));
	return 0;
}
