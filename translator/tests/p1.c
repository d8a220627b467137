/* p1.c - test driver for pass 1.
 *
 *   p1 [-r] [-k] [-g] [-V kernel_vr] [-A arch] [-M file.stpm]...
 *      (-e TEXT | FILE) [ARGS...]
 *
 * Parses the script and prints the -p1 form, or the errors (exit 1).
 * -r checks the round trip: the printed form must parse without errors
 * and print identically (exit 2 and both forms on stderr otherwise).
 * -M parses a macro file first, as a tapset (its @defines stay visible).
 * -k leaves $1/@1/$#/@# to the parser instead of substituting them.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lexer.h"

/* The tree lives until exit by design: no leak reports. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}

static char *print_to_string(const struct file *f)
{
	char *buf;
	size_t len;
	FILE *out = open_memstream(&buf, &len);
	print_file(out, f);
	fclose(out);
	return buf;
}

static int round_trip(const struct file *f)
{
	char *first = print_to_string(f);
	struct file *again = parse_source(source_from_string(f->src->name, first));
	if (diag_error_count()) {
		fprintf(stderr, "p1: the printed form does not parse:\n%s", first);
		return 2;
	}
	char *second = print_to_string(again);
	if (strcmp(first, second) != 0) {
		fprintf(stderr, "p1: round trip differs\n--- first\n%s--- second\n%s",
			first, second);
		return 2;
	}
	fputs(first, stdout);
	return 0;
}

int main(int argc, char **argv)
{
	struct pp_env env = {0};
	const char *text = NULL;
	bool check = false;
	int c;
	const char *macro_files[64];
	int nmacro_files = 0;
	while ((c = getopt(argc, argv, "+rkgV:A:e:M:")) != -1) {
		switch (c) {
		case 'M':
			if (nmacro_files < 64)
				macro_files[nmacro_files++] = optarg;
			break;
		case 'r': check = true; break;
		case 'k': env.keep_args = true; break;
		case 'g': env.guru = true; break;
		case 'V': env.kernel_vr = optarg; break;
		case 'A': env.arch = optarg; break;
		case 'e': text = optarg; break;
		default: return 64;
		}
	}
	struct source *src;
	if (text) {
		src = source_from_string("<input>", text);
	} else if (optind < argc) {
		src = source_from_file(argv[optind]);
		if (!src) {
			perror(argv[optind]);
			return 1;
		}
		optind++;
	} else {
		fprintf(stderr, "usage: p1 [-r] [-k] [-g] (-e TEXT | FILE) [ARGS...]\n");
		return 64;
	}
	env.argv = argv + optind;
	env.argc = argc - optind;
	lexer_set_env(&env);
	for (int i = 0; i < nmacro_files; i++) {
		struct source *m = source_from_file(macro_files[i]);
		if (m) {
			m->is_tapset = true;
			parse_source(m);
		}
	}
	struct file *f = parse_source(src);
	if (diag_error_count())
		return 1;
	if (check)
		return round_trip(f);
	print_file(stdout, f);
	return 0;
}
