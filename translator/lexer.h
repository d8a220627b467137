/* lexer.h - tokens and the preprocessor (pass 1, first half).
 *
 * lex_source() turns a source into a token array ending with TK_EOF:
 * comments dropped, script arguments ($1 @1 $# @#) substituted,
 * %( cond %? a %: b %) conditionals decided, @define macros expanded and
 * adjacent string literals glued. The parser only ever sees the result.
 */
#ifndef KTAP_LEXER_H
#define KTAP_LEXER_H

#include "ktap.h"

/* One-character operators are their own character ('+', ';', '$' ...).
 * Everything else has a kind from here. expr->op holds one of these. */
enum token_kind {
	TK_EOF = 256,
	TK_IDENT,	/* name or keyword: text */
	TK_NUMBER,	/* num (literals above 2**63 wrap around) */
	TK_STRING,	/* text = decoded value */
	TK_TARGET,	/* $name, $$vars...: text with the '$'s (and suffix) */
	TK_AT,		/* @name: text = name without '@' */
	TK_ARG,		/* $N: num = N (only with pp_env.keep_args) */
	TK_ARG_STR,	/* @N */
	TK_ARGC,	/* $# */
	TK_ARGC_STR,	/* @# */
	TK_EMBEDDED,	/* %{ ... %}: text = the code between the markers */
	TK_PP_IF,	/* %( */
	TK_PP_THEN,	/* %? */
	TK_PP_ELSE,	/* %: */
	TK_PP_END,	/* %) */
	TK_DOLLAR2,	/* $$ (pretty-print suffix after a member path) */
	TK_EQ, TK_NE, TK_LE, TK_GE,		/* == != <= >= */
	TK_AND, TK_OR,				/* && || */
	TK_SHL, TK_SHR,				/* << >> */
	TK_INC, TK_DEC, TK_ARROW,		/* ++ -- -> */
	TK_STAT_ADD,				/* <<< */
	TK_MATCH, TK_NOMATCH,			/* =~ !~ */
	TK_ADD_ASSIGN, TK_SUB_ASSIGN, TK_MUL_ASSIGN, TK_DIV_ASSIGN,
	TK_MOD_ASSIGN, TK_SHL_ASSIGN, TK_SHR_ASSIGN, TK_AND_ASSIGN,
	TK_XOR_ASSIGN, TK_OR_ASSIGN, TK_CAT_ASSIGN,	/* += ... .= */
	TK_LAST
};

struct token {
	int kind;		/* a character or an enum token_kind */
	struct srcloc loc;
	const char *text;
	int64_t num;
	bool space_before;	/* whitespace or a comment just before */
	int depth;		/* macro expansion depth (preprocessor) */
	struct token *next;	/* preprocessor work list */
};

/* What %( conditions test, and the script arguments. */
struct pp_env {
	const char *kernel_v;		/* "6.1.0" */
	const char *kernel_vr;		/* "6.1.0-13-amd64" */
	const char *arch;		/* kernel ARCH name: "x86_64", "arm64" */
	const char *runtime;		/* "kernel" */
	const char *systemtap_v;	/* compatibility version, "4.8" */
	const char *privilege;		/* "stapdev" */
	bool guru;
	char **argv;			/* script arguments, argv[0] is $1 */
	int argc;
	bool keep_args;			/* leave $N @N $# @# to the parser */
	const char *kconfig_path;	/* .config for CONFIG_* tests; NULL =
					   /boot/config-<kernel_vr> */
};

/* Set before lexing; unset fields keep the host's defaults (uname). */
void lexer_set_env(const struct pp_env *env);
const struct pp_env *lexer_env(void);
void lexer_reset(void);		/* back to the state before any lexing */

/* The preprocessed tokens of src, ending with TK_EOF; errors go to diag.
 * Macros defined in a ".stpm" source stay visible for later sources. */
struct token *lex_source(struct source *src, int *ntokens);

/* "'+='", "identifier", ... for messages and the printer. */
const char *token_name(int kind);
/* The spelling of an operator token: "+=", "<<<", "+". */
const char *token_spelling(int kind);

bool is_keyword(const char *name);

#endif
