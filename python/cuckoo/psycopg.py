"""cuckoo.psycopg - cuckoofilter values as cuckoo.Filter with psycopg 3.

    import psycopg, cuckoo.psycopg
    conn = psycopg.connect('')
    cuckoo.psycopg.register(conn)           # once per connection
    conn.execute("INSERT INTO t (f) VALUES (%s)", (cuckoo.Filter.from_values(ids),))
    conn.execute("SELECT f FROM t").fetchone()[0]     # -> cuckoo.Filter

register() looks the type up in the connection's database (the extension must
be created there) and registers, on that connection, a dumper and a loader of
each format by the type's OID: a Filter parameter goes in as a cuckoofilter,
in binary (its bytes, cuckoofilter_recv: no base64 on either side), with no
cast in the SQL; cuckoofilter columns come back as cuckoo.Filter, from the
text form or, on a binary cursor (conn.cursor(binary=True)), from the bytes.
cuckoofilter[] arrays of filters work both ways too.
"""
import psycopg
from psycopg.adapt import Dumper, Loader
from psycopg.pq import Format
from psycopg.types import TypeInfo

from ._cuckoo import Filter
from ._typeinfo import TYPE_QUERY, not_installed

__all__ = ['register']


def register(context):
    """Registers the cuckoofilter adapters on a psycopg 3 connection (or
    cursor): cuckoo.Filter parameters are sent as binary cuckoofilter values,
    cuckoofilter (and cuckoofilter[]) columns come back as cuckoo.Filter.
    Returns the type's OID."""
    if isinstance(context, psycopg.Connection):
        conn = context
    elif isinstance(context, psycopg.Cursor):
        conn = context.connection
    else:
        raise TypeError('cuckoo.psycopg.register() takes a psycopg connection or cursor, not %s'
                        % type(context).__name__)
    with conn.cursor(binary=False) as cur:
        row = cur.execute(TYPE_QUERY).fetchone()
    if row is None:
        raise not_installed()
    oid, array_oid, name = row

    class FilterTextDumper(Dumper):
        def dump(self, obj):
            return obj.to_text().encode('ascii')

    class FilterBinaryDumper(FilterTextDumper):
        format = Format.BINARY

        def dump(self, obj):
            return obj.to_bytes()

    class FilterTextLoader(Loader):
        def load(self, data):
            return Filter.from_text(bytes(data).decode('ascii'))

    class FilterBinaryLoader(Loader):
        format = Format.BINARY

        def load(self, data):
            return Filter.from_bytes(bytes(data))

    FilterTextDumper.oid = oid
    # the type and its array, known to this connection by name and OID
    info = TypeInfo(name, oid, array_oid)
    info.register(context)
    adapters = context.adapters
    # the binary dumper last: %s (format auto) takes the last one registered
    adapters.register_dumper(Filter, FilterTextDumper)
    adapters.register_dumper(Filter, FilterBinaryDumper)
    adapters.register_loader(oid, FilterTextLoader)
    adapters.register_loader(oid, FilterBinaryLoader)
    return oid
