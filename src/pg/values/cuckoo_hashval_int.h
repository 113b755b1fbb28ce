/*
 * cuckoo_hashval_int.h - what the three files of value hashing share and
 * nothing else includes: cuckoo_hashval.c (a type's hash info, refusals,
 * value kinds), cuckoo_hashval_hash.c (a value's canonical bytes and hash)
 * and cuckoo_hashval_alt.c (the alternates a probe tries).
 */
#ifndef CUCKOO_HASHVAL_INT_H
#define CUCKOO_HASHVAL_INT_H

#include "access/tupdesc.h"
#include "lib/stringinfo.h"

#include "cuckoo_hashval_hash.h"

CFPG_HIDDEN_BEGIN

/* tags that start the canonical bytes of the values hashed by structure */
#define CFH_TAG_ARRAY	'A'
#define CFH_TAG_RECORD	'R'
#define CFH_TAG_RANGE	'G'
#define CFH_TAG_INTERVAL 'I'
#define CFH_TAG_JSONB	'J'
#define CFH_TAG_MULTIRANGE 'M'
/*
 * A big array's canonical bytes are hashed in chunks: when they reach
 * CFH_CHUNK bytes they are replaced by 'C' and their 64-bit hash, so the
 * buffer stays small whatever the array's size.
 */
#define CFH_TAG_CHUNK	'C'
#define CFH_CHUNK		65536

/* cuckoo_hashval_hash.c: the canonical bytes and hashes the alternates reuse */
extern uint64 cfpg_hash_text(const char *p, size_t len, bool to_utf8);
extern uint64 cfpg_hash_text_blanks(const char *p, size_t len, bool strip_blanks, bool to_utf8);
extern bytea *cfpg_send_utf8(CfHashInfo *hi, Datum value);
extern void cfpg_append_le(StringInfo buf, uint64 v, int nbytes);
extern void cfpg_fold_chunk(StringInfo buf);
extern uint64 cfpg_hash_buf(StringInfo buf);
extern uint64 cfpg_hash_array(CfHashInfo *hi, Datum value, int hashing);
extern TupleDesc cfpg_record_open(CfHashInfo *hi, Datum value, Datum **values, bool **nulls);
extern uint64 cfpg_hash_record(CfHashInfo *hi, Datum value, int hashing);
extern uint64 cfpg_hash_interval(Datum value);
extern uint64 cfpg_hash_range(CfHashInfo *hi, Datum value, int hashing);
extern uint64 cfpg_hash_multirange(CfHashInfo *hi, Datum value, int hashing);
extern uint64 cfpg_hash_number_v2(float8 v);
extern uint64 cfpg_hash_byte(uint8 b);

CFPG_HIDDEN_END

#endif							/* CUCKOO_HASHVAL_INT_H */
