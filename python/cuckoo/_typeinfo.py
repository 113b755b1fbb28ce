"""_typeinfo.py - the cuckoofilter type's OIDs and name in one database, as
both psycopg adapters look them up when they are registered."""

# the type of the cuckoo extension: the one visible on search_path if there
# is one (a database holds the extension once, in one schema), its name
# schema-qualified so that the adapters' literals work whatever search_path says
TYPE_QUERY = """
SELECT t.oid, t.typarray, format('%I.%I', n.nspname, t.typname)
  FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
 WHERE t.typname = 'cuckoofilter' AND t.typtype = 'b'
 ORDER BY pg_type_is_visible(t.oid) DESC, n.nspname
 LIMIT 1"""


def not_installed():
    return LookupError('cuckoo: the cuckoofilter type is not in this database: '
                       'CREATE EXTENSION cuckoo first, then register the adapters')
