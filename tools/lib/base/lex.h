/* lex.h — C++ text as the preprocessor reads it: character classes and
 * words, brackets, literals, the argument lists of calls, and
 * function-like macros (their #define lines and their expansion).
 * Shared by the C++ readers, the C++ model (read/cppmodel, ATen's
 * sources) and hostscan (MPS host files), so that both skip the same
 * literals, know the same keywords and expand a macro to the same text.
 *
 * Layer: base/ (the first: calls no other layer).  Calls base/ (diag).
 *
 * Texts are byte ranges t[0, n) (no NUL needed inside the range); indices
 * and lengths are in bytes.  Identifier and space characters are ASCII
 * ([A-Za-z_][A-Za-z0-9_]*, and space, \t, \n, \v, \f, \r); bytes >= 0x80
 * are neither.  Rules follow C++14 [lex.pptoken] and [cpp.replace], to
 * the depth a scanner of real PyTorch sources needs (no object-like
 * macros, no rescanning: the callers expand nested calls themselves).
 */
#ifndef MK_LEX_H
#define MK_LEX_H

#include <stddef.h>

/* Character classes, one table for every scanner: LEX_ID0 an
 * identifier's first byte ([A-Za-z_]), LEX_ID any identifier byte
 * ([A-Za-z0-9_]), LEX_SP a blank (space, \t, \n, \v, \f, \r), LEX_QUOTE
 * '"' and '\'', LEX_PAREN ( ), LEX_BRACE { }, LEX_BRACKET [ ], LEX_SEMI
 * ';'.  Bytes >= 0x80 are in no class. */
enum { LEX_ID0 = 1, LEX_ID = 2, LEX_SP = 4, LEX_QUOTE = 8, LEX_PAREN = 16,
       LEX_BRACE = 32, LEX_BRACKET = 64, LEX_SEMI = 128 };
extern const unsigned char lex_cls[256];

static inline int lex_id0(char c) { return lex_cls[(unsigned char)c] & LEX_ID0; }
static inline int lex_idc(char c) { return lex_cls[(unsigned char)c] & LEX_ID; }
static inline int lex_sp(char c) { return lex_cls[(unsigned char)c] & LEX_SP; }

/* lex_next_stop: the first index from i on whose byte STOP (a table of
 * 256 flags) marks; four bytes a step.  A marked byte must stand at or
 * after i in readable memory (a text's closing NUL, when STOP marks it),
 * which ends the scan without a bound check per byte. */
static inline size_t lex_next_stop(const char *t, size_t i,
                                   const unsigned char *stop)
{
	for (;; i += 4) {
		if (stop[(unsigned char)t[i]])
			return i;
		if (stop[(unsigned char)t[i + 1]])
			return i + 1;
		if (stop[(unsigned char)t[i + 2]])
			return i + 2;
		if (stop[(unsigned char)t[i + 3]])
			return i + 3;
	}
}

/* lex_skip_ws: the first index from i on (below n) that is not a blank.
 * lex_back_ws: the index down from i (not below lo) before which no
 * blank stands.  lex_ident_end: the end of the identifier bytes from i. */
size_t lex_skip_ws(const char *t, size_t n, size_t i);
size_t lex_back_ws(const char *t, size_t lo, size_t i);
size_t lex_ident_end(const char *t, size_t n, size_t i);

/* lex_angle_open: t[e - 1] is '>': the index of the '<' that opens it
 * (nested angle brackets counted, nothing else), searching back to lo;
 * lo when none does. */
size_t lex_angle_open(const char *t, size_t lo, size_t e);

/* lex_span_is / lex_starts_with / lex_ends_with: s[0, n) is, starts
 * with, ends with the string w. */
int lex_span_is(const char *s, size_t n, const char *w);
int lex_starts_with(const char *s, size_t n, const char *w);
int lex_ends_with(const char *s, size_t n, const char *w);

/* lex_word_at: the identifier w stands whole at t[i] (no identifier
 * byte before it or after it; t has n bytes). */
int lex_word_at(const char *t, size_t n, size_t i, const char *w);

/* lex_is_keyword: s[0, n) is a C++ keyword that may stand before a '('
 * (if, for, while, switch, return, sizeof, catch, decltype, alignof,
 * alignas, static_assert, defined, do, else, case, new, delete, throw,
 * typeid, noexcept, __attribute__, using, typedef, co_return, requires),
 * so never the name of a called or defined function.  The one list of
 * both C++ readers. */
int lex_is_keyword(const char *s, size_t n);

/* lex_match_close: the bracket closing the one at t[i] (OPEN and CLOSE
 * given: '(' ')', '{' '}', '[' ']', '<' '>'), only that pair nesting,
 * C++ literals skipped (lex_skip_literal); n when it is not closed
 * before n.  lex_match_close_quoted: the same with quoted literals
 * without C++ rules (lex_skip_quoted), for Python text. */
size_t lex_match_close(const char *t, size_t n, size_t i, char open,
                       char close);
size_t lex_match_close_quoted(const char *t, size_t n, size_t i, char open,
                              char close);

/* lex_raw_string_end: t[i] is '"'.  When it opens a C++11 raw string
 * R"d( ... )d" (prefix R, LR, uR, UR or u8R standing as a whole token just
 * before it; a delimiter d of at most 16 characters, none of them a
 * space, '(', ')', '\\' or '"'), the index just after its closing quote,
 * or n when it is not closed before n.  Otherwise 0. */
size_t lex_raw_string_end(const char *t, size_t n, size_t i);

/* lex_digit_separator: is the '\'' at t[i] a C++14 digit separator
 * (1'000, 0xFF'FF, 1.5'0)?  It is when the identifier characters just
 * before it start with a digit, or follow another quote or a '.' (the
 * later groups of a number).  A character literal after a word (u'x',
 * L'x', case'a') is not.  Reads t backwards from i only. */
int lex_digit_separator(const char *t, size_t i);

/* lex_skip_quoted: the quoted literal whose quote (t[i], either kind) is
 * at i, with no C++ rules (a Python list uses it): the index after its
 * closing quote.  A backslash escapes the next byte; an unterminated
 * literal ends at its line's end (the index after the newline) or at n. */
size_t lex_skip_quoted(const char *t, size_t n, size_t i);

/* lex_skip_literal: the C/C++ string or character literal whose quote is
 * at t[i]: the index after it.  A raw string runs to its closing
 * delimiter (lex_raw_string_end); a digit separator is no literal (i + 1);
 * anything else as lex_skip_quoted. */
size_t lex_skip_literal(const char *t, size_t n, size_t i);

/* lex_unqualified: the name NAME without its qualifiers, the part after
 * its last ':' (`at::native::abs_out` -> `abs_out`); NAME itself when it
 * has none.  Points into NAME. */
const char *lex_unqualified(const char *name);

/* lex_trim_dup: a malloc'd copy of s[a, b) without its leading and
 * trailing spaces (caller frees; dies when out of memory). */
char *lex_trim_dup(const char *s, size_t a, size_t b);

/* lex_split_args: the arguments of the call whose '(' is t[open] and ')'
 * is t[close], split at top-level commas (only parentheses nest, as in
 * the preprocessor; literals are skipped), each trimmed.  Returns a
 * malloc'd array of *na malloc'd strings (free with lex_strv_free); `f()`
 * and `f( )` have none (NULL, *na = 0). */
char **lex_split_args(const char *t, size_t open, size_t close, size_t *na);

/* lex_strv_free: free V's N strings and V itself (NULL-safe). */
void lex_strv_free(char **v, size_t n);

/* lex_directive_end: c[j] is the '#' of a preprocessor directive: the
 * index of the newline that ends it (or n), its continuation lines
 * (a backslash as the last non-blank byte of a line) included. */
size_t lex_directive_end(const char *c, size_t n, size_t j);

/* A function-like macro: `#define NAME(PARAMS) BODY`.  All strings are
 * malloc'd and owned by the struct (lex_macro_free). */
struct lex_macro {
	char *name;
	char **params;   /* np names; a trailing "..." is named __VA_ARGS__ */
	size_t np;
	int variadic;    /* the last parameter was "..." */
	char *body;      /* continuation lines joined with one space each,
	                    trimmed */
};

/* lex_define_head: does the directive c[a, b) (c[a] is its '#', comments
 * already masked) define a function-like macro, `# define NAME(`?  Then
 * 1, with the name at c[*ns, *ne) and the parameter list's parentheses at
 * c[*open] and c[*close]; 0 for any other directive (an object-like
 * macro, or a parameter list not closed before b).  Allocates nothing, so
 * that a caller can look the name up before paying for the rest. */
int lex_define_head(const char *c, size_t a, size_t b, size_t *ns, size_t *ne,
                    size_t *open, size_t *close);

/* lex_define_take: fill *mc from the directive c[a, b) whose head
 * lex_define_head returned (ns, ne, open, close): name, parameters and
 * body, where a backslash before a line end (blanks may stand between)
 * joins the lines with one space.  Owns nothing of c. */
void lex_define_take(const char *c, size_t b, size_t ns, size_t ne,
                     size_t open, size_t close, struct lex_macro *mc);

/* lex_macro_free: free what *mc owns and zero it. */
void lex_macro_free(struct lex_macro *mc);

/* lex_param_index: the index of the parameter of mc spelled s[0, n), or
 * -1. */
long lex_param_index(const struct lex_macro *mc, const char *s, size_t n);

/* lex_expand: the body of mc with ARGS (na of them) put in: each
 * parameter replaced by its argument (a missing one by nothing),
 * `#param` by the argument as a string literal, `a ## b` pasted (the
 * blanks around ## removed), __VA_ARGS__ by the variadic arguments joined
 * with ", ".  Literals and pp-numbers (1x, 0x1F) are copied whole.  No
 * rescan.  Returns a malloc'd string (caller frees). */
char *lex_expand(const struct lex_macro *mc, char *const *args, size_t na);

#endif
