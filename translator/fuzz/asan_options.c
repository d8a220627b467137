/* asan_options.c - linked into ktap-asan only.
 *
 * The translator frees nothing by design (util.c: every tree lives until
 * exit), so LeakSanitizer at exit would report each of them. Leaks are
 * checked per input by the fuzzer instead, whose inputs util.c's arena
 * frees: what is left is a real leak.
 */
const char *__asan_default_options(void);

const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}
