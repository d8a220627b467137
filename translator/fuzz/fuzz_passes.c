/* fuzz_passes.c - a libFuzzer target over passes 1 and 2.
 *
 * Each input is a script, run the way main.c runs -p2 with the script
 * arguments 42 and "hello world": parsed, then resolved against this
 * tree's tapsets and printed (-p2). A script that parses must also survive
 * the round trip that testsuite/ktap.parse checks: its canonical form (-p1)
 * parses again, without errors, to the same canonical form; if not, the
 * target aborts, which libFuzzer counts as a crash. Messages and printouts
 * go to /dev/null. Every allocation of one input is freed after it
 * (util.c's arena), so memory stays flat and LeakSanitizer reports only
 * real leaks.
 *
 *   make fuzz                             build, then a short run
 *   build/fuzz_passes -max_total_time=3600 CORPUS_DIR   a longer one
 *
 * KTAP_DATA_DIR overrides where tapsets/ is looked for; KTAP_FUZZ_VERBOSE=1
 * lets the messages through to stderr (to see what an input does).
 */
#include <stdlib.h>
#include <string.h>

#include "../ktap.h"
#include "../lexer.h"
#include "../target.h"

#ifndef KTAP_DATA_DIR
#define KTAP_DATA_DIR "."
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct options opt;
static FILE *devnull;
static char *script_args[] = { "42", "hello world" };	/* $1 @2 ... */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("KTAP_DATA_DIR");

	(void)argc;
	(void)argv;
	opt.data_dir = dir ? dir : KTAP_DATA_DIR;
	opt.last_pass = 2;
	/* no kernel debuginfo: the same input resolves the same way on any
	 * machine, and no handle outlives the arena freed after each input */
	setenv("KTAP_DEBUGINFO", "none", 1);
	opt.script_args = script_args;
	opt.nscript_args = 2;
	devnull = fopen("/dev/null", "w");
	if (!devnull) {
		perror("/dev/null");
		exit(1);
	}
	if (!getenv("KTAP_FUZZ_VERBOSE"))
		diag_set_stream(devnull);
	return 0;
}

/* the canonical form (-p1) of a parsed file, or NULL */
static char *canonical(const struct file *file)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	print_file(f, file);
	fclose(f);
	return text;
}

/* -p1 output parses again, without errors, to the same -p1 output */
static void check_round_trip(const struct file *file)
{
	char *first = canonical(file), *second;
	struct file *again;

	if (!first)
		return;
	again = parse_source(source_from_string("<input>", first));
	if (diag_error_count()) {
		fprintf(stderr, "the canonical form does not parse:\n%s\n", first);
		abort();
	}
	second = canonical(again);
	if (second && strcmp(first, second) != 0) {
		fprintf(stderr, "the canonical form changes when parsed again:\n"
			"%s\n---- becomes ----\n%s\n", first, second);
		abort();
	}
	free(first);
	free(second);
}

/* passes 1 and 2, as main() runs them with -p2 */
static void run_passes(const char *text)
{
	struct pp_env env = { 0 };
	struct file *file;
	struct program *prog;

	env.argv = script_args;
	env.argc = 2;
	lexer_set_env(&env);
	target_select(&opt);	/* this machine's kernel, afresh */
	file = parse_source(source_from_string("<input>", text));
	if (diag_error_count())
		return;
	check_round_trip(file);
	prog = resolve_program(file, &opt);
	if (!prog || diag_error_count())
		return;
	print_resolved(devnull, prog);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;

	arena_begin();
	text = xstrndup((const char *)data, size);
	run_passes(text);
	diag_reset();
	lexer_reset();
	arena_release();
	return 0;
}
