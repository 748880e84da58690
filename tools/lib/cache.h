/* cache.h — a store of parsed models, keyed by the bytes they were built
 * from.
 *
 * nfyaml (the index of native_functions.yaml) and hostscan (the model of
 * the MPS host and kernel sources) are costly to build and rebuilt from
 * the same files on every run.  After building one, the tool stores it
 * here with a manifest of its inputs: for each file read, its path
 * relative to the checkout, its size and zlib's crc32 of its bytes.  The
 * next run reads the same files, builds the same manifest and, when a
 * stored model has exactly that manifest, takes the model from the store
 * instead of parsing.  A changed byte in any input changes the manifest,
 * up to a crc32 collision of the changed file: 1 in 2^32 for an
 * accidental change, but crc32 is no cryptographic hash, and an edit
 * made on purpose to keep it defeats the store (MK_CACHE=off for files
 * one does not trust).  Nothing depends on file times.
 *
 * Where: $MK_CACHE_DIR, else $XDG_CACHE_HOME/metal-kernel, else
 * $HOME/.cache/metal-kernel (created with mode 0700); only absolute
 * folders count (a relative one turns the store off: the tools change
 * folders).  MK_CACHE=off (or 0, no, false; any case) turns the store
 * off.  One file per model, "KIND-KEY.mkc"; a store keeps at most
 * CACHE_KEEP files of a kind and removes those used longest ago (a hit
 * touches its file), and the temporaries of killed writers after an
 * hour.  Writes are atomic (edit.h edit_write_file, no fsync: a lost or
 * torn file is only a miss).  A file that is short, has a bad checksum,
 * a bad magic or another format, or is not a regular file, is a miss,
 * never an error, and the readers of stored models (nfyaml, hostscan)
 * check what they read against what a parse guarantees.  Every failure
 * to create, read or write the store is silent: the tool then parses as
 * if there were no store.  MK_CACHE_DEBUG=1 prints "cache: hit KIND" /
 * "cache: miss KIND" / "cache: stored KIND" to stderr (for tests).
 *
 * A stored model is read only by the build that wrote it: the manifest
 * starts with "build ID", ID a checksum of tools/lib's sources that the
 * Makefile passes as MK_BUILD_ID, so a changed scanning rule never meets
 * a model the old rule made.
 *
 * File layout (all integers little-endian):
 *   "metal-kernel cache\n" magic, u32 format version (CACHE_FORMAT),
 *   u64 manifest length, manifest bytes ("build ID\n" first), u64
 *   payload length, payload bytes, u32 crc32 of everything before it.
 */
#ifndef MK_CACHE_H
#define MK_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"

/* Bump when any serialized model changes shape. */
#define CACHE_FORMAT 1
#define CACHE_KEEP 16

/* cache_manifest_add: append one input to manifest M: its path REL,
 * its LEN and crc32 of its LEN bytes at DATA. */
void cache_manifest_add(struct buf *m, const char *rel, const char *data,
                        size_t len);

/* cache_load: the payload stored for KIND ("nfyaml", "hostscan") under
 * exactly manifest M.  Returns 1 with *file (the whole stored file,
 * malloc'd: the caller frees it, and *payload and its len bytes point
 * into it), or 0 with *file NULL (miss, store off, unreadable or damaged
 * file). */
int cache_load(const char *kind, const struct buf *m, char **file,
               const char **payload, size_t *len);

/* cache_store: store LEN bytes at PAYLOAD for KIND under manifest M.
 * Silent on failure. */
void cache_store(const char *kind, const struct buf *m, const char *payload,
                 size_t len);

/* ---- serialization of models into a payload ----
 * Integers as LEB128 varints; a string as its length + 1 then its bytes
 * and a NUL (so that a reader may point into the payload), NULL as 0. */
void ser_u64(struct buf *b, uint64_t v);
void ser_str(struct buf *b, const char *s);

/* A reader over a payload.  Each de_* returns 0 / NULL and sets bad
 * when the payload ends early or holds an impossible value; callers
 * check bad once at the end and drop what they built. */
struct deser {
	const unsigned char *p;
	size_t n, at;
	int bad;
};
uint64_t de_u64(struct deser *d);
/* de_str: the next string, malloc'd (caller frees), or NULL for a
 * stored NULL (and on error). */
char *de_str(struct deser *d);
/* de_ref: the same string in place: a pointer into the payload, valid as
 * long as the payload is (a string holding a NUL, or not ending in one,
 * is an error). */
const char *de_ref(struct deser *d);

#endif
