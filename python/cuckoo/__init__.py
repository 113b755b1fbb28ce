"""cuckoo - cuckoo filters in the very bytes the cuckoo PostgreSQL extension stores.

    import cuckoo
    f = cuckoo.Filter.from_bytes(row[0])      # a cuckoofilter read with psycopg2
    f.contains(42), f.contains_many([1, 2, 3])
    g = cuckoo.Filter.from_values(range(1000000))   # = cf_agg(x) over the same values
    g.to_bytes()                               # what COPY ... (FORMAT binary) loads

Python values are hashed as the server hashes the SQL values they become
(docs/python.md has the table): int and Decimal as numbers (bigint, numeric),
float as double precision, str as text, bytes as bytea, uuid.UUID as uuid,
bool as boolean, datetime.date as date, a naive datetime as timestamp and an
aware one as timestamptz.  None is skipped, as the server skips NULL.  A value
of another kind than a filter holds is refused with TypeError, as the server
refuses it.  cuckoo.hash(v) is the server's cf_hash(v).

The seen recipe (docs/seen.md): seen(base, delta, item) and unseen(base,
delta, candidates) read the two columns as psycopg2 returns them (base: a
memoryview, bytes, a Filter or None; delta: a list or None); mark, mark_all
and unsee return the two columns' new values, as the server's cf_mark_*,
cf_unsee_* functions do.

With psycopg2 or psycopg 3, cuckoo.psycopg2.register(conn) or
cuckoo.psycopg.register(conn) makes cuckoofilter columns come back as Filter
and lets a Filter be passed as a query parameter (docs/python.md).
"""
from ._cuckoo import Error, Filter, hash, kind_of, seen, unseen  # noqa: F401

# the version of the cuckoo extension whose bytes and hashes this module
# gives (cuckoo.control's default_version, python/setup.py; test/release/check.py)
__version__ = '1.5.0'

__all__ = ['Filter', 'Error', 'hash', 'kind_of', 'seen', 'unseen', 'mark', 'mark_all', 'unsee']

# The fold of the seen recipe (src/pg/seen/cuckoo_seen.c): delta is folded into
# base when the array of the marks since the last fold would take more bytes
# than base's bytes / 16, kept between 256 and 1,600; an item base already
# reports twice stays in delta, after a None separator.
_FOLD_RATIO = 16
_FOLD_MIN = 256
_FOLD_MAX = 1600
_MAX_COPIES = 2
_VARHDRSZ = 4
_ARRAY_HEADER = 24      # a one-dimensional array without NULLs: header, dims, lower bounds

# bytes of one element in a PostgreSQL array, for the item kinds of fixed size
_ELEMENT_BYTES = {'number': 8, 'uuid': 16, 'boolean': 1, 'timestamp': 8, 'timestamptz': 8}


def _element_bytes(item):
    import datetime
    kind = kind_of(item)
    if kind == 'number' and not isinstance(item, int):
        raise TypeError('seen marks in Python take bigint items (int); mark %s items through the server'
                        % type(item).__name__)
    if kind == 'timestamp' and not isinstance(item, datetime.datetime):
        return 4                # a date
    if kind not in _ELEMENT_BYTES:
        raise TypeError('seen marks in Python take items of a fixed-size type (int, uuid.UUID, bool, '
                        'date, datetime); mark %s items through the server' % type(item).__name__)
    return _ELEMENT_BYTES[kind]


def _base_filter(base):
    if base is None or isinstance(base, Filter):
        return base
    return Filter.from_bytes(base)


def _base_bytes(base):
    return 0 if base is None else len(base.to_bytes() if isinstance(base, Filter) else bytes(base))


def _fold(base, elems):
    """base with one add of each item of elems (newest first, None the
    separator), oldest first; returns (new base or None if nothing was
    added, the flags of the items left in delta)."""
    f = _base_filter(base)
    f = Filter(1000) if f is None else f.copy()
    left = [False] * len(elems)
    added = 0
    for i in range(len(elems) - 1, -1, -1):
        item = elems[i]
        if item is None:
            continue
        f.count(item)           # the server's kind check, before anything changes
        h = hash(item, f.hashing) & 0xFFFFFFFFFFFFFFFF
        if f._count_hash(h) >= _MAX_COPIES:
            left[i] = True
            continue
        st = f._add_hash(h, _KIND_NUMBERS[kind_of(item)])
        left[i] = st == 'too_many_copies'
        added += st == 'ok'
    return (f if added else None), left


_KIND_NUMBERS = {'number': 1, 'text': 2, 'bytea': 3, 'uuid': 4, 'boolean': 5,
                 'timestamp': 15, 'timestamptz': 16}


def mark_all(base, delta, items):
    """cf_mark_all_base and cf_mark_all_delta: the two columns after marking
    every non-None item, in order: (base, delta), base a Filter or the base
    given (unchanged), delta a list or None."""
    if isinstance(items, (str, bytes, bytearray, memoryview)):
        raise TypeError('mark_all: an iterable of items is expected (a list, tuple, set, generator ...), '
                        'not one %s (give one item as [v], or use mark)' % type(items).__name__)
    new = [x for x in (items or []) if x is not None]
    old = list(delta) if delta is not None else []
    if not new:
        return base, delta
    nd = list(reversed(new)) + old
    fresh = len(nd) if None not in nd else nd.index(None)
    size = _ARRAY_HEADER + sum(_element_bytes(x) for x in nd[:fresh])
    limit = min(max((_base_bytes(base) + _VARHDRSZ if base is not None else 0) // _FOLD_RATIO,
                    _FOLD_MIN), _FOLD_MAX)
    if size <= limit:
        return base, nd
    nb, left = _fold(base, nd)
    kept = [x for x, keep in zip(nd, left) if keep]
    return (nb if nb is not None else base), ([None] + kept if kept else None)


def mark(base, delta, item):
    """cf_mark_base and cf_mark_delta: the two columns after one mark."""
    return mark_all(base, delta, [item])


def unsee(base, delta, item):
    """cf_unsee_base and cf_unsee_delta: the two columns after one unsee of
    an item that was marked (the newest copy in delta, else one from base)."""
    if item is None:
        return base, delta
    h = hash(item)
    if delta is not None:
        for i, x in enumerate(delta):
            if x is not None and hash(x) == h:
                rest = list(delta[:i]) + list(delta[i + 1:])
                return base, (rest if any(y is not None for y in rest) else None)
    f = _base_filter(base)
    if f is None or not f.contains(item):
        return base, delta
    f = f.copy()
    f.delete(item)
    return f, delta
