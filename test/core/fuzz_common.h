/*
 * fuzz_common.h - shared by the libFuzzer targets and the corpus generator:
 * a hard assertion, and the op-program parameters of fuzz_ops.
 */
#ifndef CF_FUZZ_COMMON_H
#define CF_FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "ref.h"

/* a violated invariant: say where and crash, so that libFuzzer keeps the input */
#define FUZZ_ASSERT(cond, ...) \
	do { \
		if (!(cond)) \
		{ \
			fprintf(stderr, "%s:%d: invariant violated: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__); \
			fprintf(stderr, "\n"); \
			abort(); \
		} \
	} while (0)

/* opcodes of an fuzz_ops program (byte % FOP_COUNT) */
enum
{
	FOP_ADD = 0,				/* key byte: add keys[k] */
	FOP_ADD_SAME_FP,			/* key byte: add a value sharing every fingerprint */
	FOP_ADD_SAME_BUCKET,		/* key byte: add a value sharing every primary bucket */
	FOP_DELETE,					/* key byte: delete a present key (if unambiguous) */
	FOP_DELETE_ABSENT,			/* key byte: delete keys[k] if the filter says absent */
	FOP_CONTAINS,				/* key byte: look up */
	FOP_UNION,					/* params + n + keys: union with a new filter */
	FOP_GROW,					/* grow explicitly */
	FOP_ADD_RAW,				/* 8 bytes: add that hash */
	FOP_COUNT
};

#endif							/* CF_FUZZ_COMMON_H */
