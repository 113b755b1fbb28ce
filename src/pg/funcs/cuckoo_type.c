/*
 * cuckoo_type.c - the cuckoofilter type's input and output: strict base64
 * text (white space allowed in input) and the raw bytes as binary.
 */
#include "postgres.h"

#include "libpq/pqformat.h"
#include "utils/memutils.h"

#include "cuckoo_args.h"

/*
 * The base64 text str without its white space (space, tab, newline, CR,
 * as decode(..., 'base64') skips them), so that the output of a base64
 * tool, wrapped or with a final newline, reads back.  Returns str itself
 * when it has none; otherwise a palloc'd copy, after checking every
 * character so that an error names its position in str.  *len is the
 * length of the result.
 */
static char *
cfpg_base64_strip(const char *str, size_t *len)
{
	size_t		n = strlen(str);
	size_t		kept = 0;
	int			npad = 0;
	char	   *out;

	if (strpbrk(str, " \t\n\r") == NULL)
	{
		*len = n;
		return (char *) str;
	}
	out = palloc(n + 1);
	for (size_t i = 0; i < n; i++)
	{
		unsigned char c = (unsigned char) str[i];
		bool		ok;

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
			continue;
		if (c == '=')
			ok = ++npad <= 2;
		else
			ok = npad == 0 && ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
							   (c >= '0' && c <= '9') || c == '+' || c == '/');
		if (!ok)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("invalid input syntax for type %s", "cuckoofilter"),
					 errdetail("Invalid base64 character at position %zu.", i + 1)));
		out[kept++] = (char) c;
	}
	out[kept] = '\0';
	*len = kept;
	return out;
}

/*
 * text input: strict base64 of the filter's bytes; bad input is a soft
 * error where the caller offers an error context (pg_input_is_valid)
 */
PG_FUNCTION_INFO_V1(cuckoofilter_in);
Datum
cuckoofilter_in(PG_FUNCTION_ARGS)
{
	size_t		len;
	char	   *str = cfpg_base64_strip(PG_GETARG_CSTRING(0), &len);	/* white space */
	Node	   *escontext = fcinfo->context;
	struct varlena *v = cfpg_base64_decode(str, len, CF_MAX_SIZE, "cuckoofilter", "cuckoo filter",
											escontext);

	if (v == NULL)
		return (Datum) 0;
	if (!cfpg_validate(CF_VARDATA(v), CF_VARSIZE(v), false, escontext))
		return (Datum) 0;
	PG_RETURN_CUCKOOFILTER_P(v);
}

/* text output: strict base64 of the filter's bytes */
PG_FUNCTION_INFO_V1(cuckoofilter_out);
Datum
cuckoofilter_out(PG_FUNCTION_ARGS)
{
	Datum		d = PG_GETARG_DATUM(0);
	cf_filter	f;
	char	   *out;

	cfpg_open_datum(&d, &f);
	out = cfpg_base64_encode(f.buf, f.len, "cuckoo filter",
							 "Use the binary form (COPY ... WITH (FORMAT binary) or a binary driver), or a smaller filter.");
	PG_RETURN_CSTRING(out);
}

/*
 * binary input: the filter's bytes, fully validated; errors go to the
 * caller's error context when it offers one, as in cuckoofilter_in
 */
PG_FUNCTION_INFO_V1(cuckoofilter_recv);
Datum
cuckoofilter_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	Node	   *escontext = fcinfo->context;
	size_t		n = (size_t) (buf->len - buf->cursor);
	struct varlena *v;

	if (n > CF_MAX_SIZE)
		ereturn(escontext, (Datum) 0,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s value is too long", "cuckoo filter"),
				 errdetail("It has %zu bytes; at most %zu fit in one value.", n, (size_t) CF_MAX_SIZE)));
	if (!cfpg_validate((const uint8 *) buf->data + buf->cursor, n, true, escontext))
		return (Datum) 0;
	v = (struct varlena *) palloc(VARHDRSZ + n);
	SET_VARSIZE(v, VARHDRSZ + n);
	pq_copymsgbytes(buf, VARDATA(v), (int) n);
	PG_RETURN_CUCKOOFILTER_P(v);
}

/* binary output: the filter's bytes */
PG_FUNCTION_INFO_V1(cuckoofilter_send);
Datum
cuckoofilter_send(PG_FUNCTION_ARGS)
{
	Datum		d = PG_GETARG_DATUM(0);
	cf_filter	f;
	StringInfoData buf;

	cfpg_open_datum(&d, &f);
	pq_begintypsend(&buf);
	pq_sendbytes(&buf, (const char *) f.buf, (int) f.len);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}
