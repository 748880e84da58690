/* clangfmt.h — the line-breaking settings a checkout's .clang-format
 * gives one language, so that the code the tools write keeps the file's
 * column limit (issue #21: a host stub line over the limit).  Layer:
 * read (may call base and read; calls base and read/nfyaml's
 * nf_yaml_nesting).
 *
 * What it reads: ROOT/.clang-format only (clang-format itself also looks
 * in the file's folder and its parents; PyTorch keeps one file at the
 * root).  The file is YAML, one or more documents: a document without
 * `Language` sets the defaults of every language, a document with
 * `Language: X` (Cpp, ObjC, ...) overrides them for X, as clang-format's
 * "Configuring Style with clang-format" says.  Keys read: ColumnLimit,
 * AlignAfterOpenBracket (Align, DontAlign, AlwaysBreak, BlockIndent),
 * ContinuationIndentWidth, BinPackArguments, BasedOnStyle (for the
 * values a document does
 * not set: LLVM, Google, Chromium, Mozilla 80; GNU 79; Microsoft 120;
 * WebKit 0, no limit).  PyTorch 2.6.0's: ColumnLimit 80 and AlwaysBreak
 * for every language, ObjC (the .mm host files) 120 and Align.
 * Without the file, or when it cannot be read or parsed: clang-format's
 * default style, LLVM: 80 columns, Align, continuation indent 4, bin
 * packing.
 */
#ifndef MK_CLANGFMT_H
#define MK_CLANGFMT_H

enum cf_align { CF_ALIGN = 0, CF_DONT_ALIGN, CF_ALWAYS_BREAK };

struct cf_style {
	unsigned column;     /* ColumnLimit; 0: no limit */
	int align;           /* enum cf_align (BlockIndent reads as
	                        CF_ALWAYS_BREAK) */
	unsigned cont;       /* ContinuationIndentWidth */
	int binpack;         /* BinPackArguments (PyTorch: false, one argument
	                        a line once a call is broken; LLVM: true) */
	int from_file;       /* 1: ROOT/.clang-format gave the column limit
	                        (its language's document or the defaults') */
	char source[64];     /* for people: ".clang-format (Language: ObjC)",
	                        ".clang-format", or "clang-format's default
	                        style (LLVM)" */
};

/* cf_style_for: the settings of LANG ("Cpp", "ObjC") in ROOT's
 * .clang-format, into *st.  Never fails: a missing or malformed file
 * gives the LLVM defaults (st->from_file 0).  Prints nothing. */
void cf_style_for(const char *root, const char *lang, struct cf_style *st);

/* cf_lang_of: the clang-format language of a file named PATH: "ObjC" for
 * .mm and .m, else "Cpp" (.metal is not one clang-format knows; it
 * formats it as C++). */
const char *cf_lang_of(const char *path);

#endif
