"""cuckoo.psycopg2 - cuckoofilter values as cuckoo.Filter with psycopg2.

    import psycopg2, cuckoo.psycopg2
    conn = psycopg2.connect('')
    cuckoo.psycopg2.register(conn)          # once per connection (or cursor)
    cur.execute("INSERT INTO t (f) VALUES (%s)", (cuckoo.Filter.from_values(ids),))
    cur.execute("SELECT f FROM t")          # -> cuckoo.Filter
    cur.fetchone()[0].contains(42)

register() looks the type up in the connection's database (the extension must
be created there), then makes psycopg2 return cuckoofilter and
cuckoofilter[] columns as cuckoo.Filter and lists of them, and send a Filter
as a cuckoofilter value (psycopg2 sends parameters as text: the filter's text
form, typed, so no cast is needed in the SQL).  Sending is set up for every
connection of the process (psycopg2's adapters are global), reading for the
connection or cursor given.
"""
import psycopg2
import psycopg2.extensions

from ._cuckoo import Filter
from ._typeinfo import TYPE_QUERY, not_installed

__all__ = ['register']


class _FilterAdapter:
    """a Filter as an SQL literal: its text form (base64), as cuckoofilter"""

    # the type's (schema-qualified) name, set by register()
    type_name = 'cuckoofilter'

    def __init__(self, f):
        self._f = f

    def getquoted(self):
        # base64 needs no quoting; a literal with a cast, so that the value is
        # a cuckoofilter wherever it goes (VALUES, WHERE, a function argument)
        return ("'%s'::%s" % (self._f.to_text(), self.type_name)).encode('ascii')


def _cast(value, cur):
    return None if value is None else Filter.from_text(value)


def register(conn_or_cursor):
    """Registers the cuckoofilter adapters on a psycopg2 connection or cursor:
    cuckoofilter (and cuckoofilter[]) columns come back as cuckoo.Filter, and
    a cuckoo.Filter parameter goes in as a cuckoofilter.  Returns the type's OID."""
    if isinstance(conn_or_cursor, psycopg2.extensions.cursor):
        cur = conn_or_cursor
    elif isinstance(conn_or_cursor, psycopg2.extensions.connection):
        cur = conn_or_cursor.cursor()
    else:
        raise TypeError('cuckoo.psycopg2.register() takes a psycopg2 connection or cursor, not %s'
                        % type(conn_or_cursor).__name__)
    cur.execute(TYPE_QUERY)
    row = cur.fetchone()
    if row is None:
        raise not_installed()
    oid, array_oid, name = row
    _FilterAdapter.type_name = name
    cf = psycopg2.extensions.new_type((oid,), 'CUCKOOFILTER', _cast)
    psycopg2.extensions.register_type(cf, conn_or_cursor)
    psycopg2.extensions.register_type(
        psycopg2.extensions.new_array_type((array_oid,), 'CUCKOOFILTER[]', cf), conn_or_cursor)
    psycopg2.extensions.register_adapter(Filter, _FilterAdapter)
    return oid
