/* lex.h - pass 1 internals shared by the lexer, the preprocessor and the
 * parser.  Nothing outside pass 1 needs this header. */
#ifndef TAPC_LEX_H
#define TAPC_LEX_H

#include "ast.h"

typedef enum TokKind {
	TK_IDENT,     /* names and keywords, also $name @name $ $$ */
	TK_NUMBER,    /* num */
	TK_STRING,    /* text = decoded value */
	TK_OP,        /* operators and punctuation, also %( %? %: %) */
	TK_EMBEDDED,  /* %{ ... %}: text = the code between */
	TK_ARG,       /* $N @N $# @#: text = as written, num = N (0 for #) */
	TK_EOF,
} TokKind;

typedef struct Token {
	TokKind kind;
	const char *text;   /* interned for TK_IDENT, TK_OP and TK_ARG */
	int64_t num;
	Loc loc;
	bool space_before;  /* whitespace or a comment came right before */
	bool bad;           /* already reported: the parser stays quiet on it */
} Token;

/* lex.c: cut a whole file into tokens (a Vec of Token *), ending with one
 * TK_EOF.  Lexical errors are reported and the bad text skipped. */
Vec *lex_file(SrcFile *src);

/* Diagnostics of pass 1: errors, or warnings while pass1_soft_errors is
 * set (-p1 checking a tapset without -W). */
extern bool pass1_soft_errors;
void p1_error(Loc loc, const char *fmt, ...) PRINTF(2, 3);
int p1_errors(void);  /* errors (or soft errors) reported by pass 1 */

/* preprocess.c: run %( %) conditionals, @define macros and script
 * arguments over a file's tokens; returns the tokens the parser sees,
 * ending with TK_EOF. */
Vec *preprocess(Vec *raw, SrcFile *src);
/* Whether the language version we act as (--compatible or ours) is
 * before version. */
bool compat_before(const char *version);

#endif
