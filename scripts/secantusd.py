"""Starts SecantusDB (the embedded MongoDB-protocol server) with four speed-ups to its internals.

SecantusDB re-reads a collection's index catalog three times for every document it writes with a
secondary index, and walks it again at each step of planning a statement (ten walks for an update
by two fields). Within one write statement the catalog cannot change under it: each statement
below holds the collection's lock, which index changes also take. So each reads the options and
walks the catalog once per collection and reuses them until it returns; flagging an index multikey
(the one catalog write a data write makes) drops the kept copies, so the statement's later query
planning sees the flag.

A filter holding an _id point lookup among other clauses ({_id, version}: a conditional write) went
through every index picker before the _id; it now goes to the point lookup at once, as a filter of
the _id alone does. Every caller of the planner matches what it selects against the whole filter.

It also encodes each field of a compound index key once per document (index_key_variants below),
where SecantusDB encodes every field again for each element of an array field, and an integer once
per value and without Decimal (encode_int): the same bytes.

These replace private functions of one SecantusDB version: before patching, the launcher checks the
installed version and a fingerprint of each function it relies on, and refuses to start on any
difference (check_target). Why, what they save and how to re-measure them:
docs/adr/0004-secantusdb-launcher-patches.md.

One option of its own: --sync-method=none (with --sync-on-commit) writes each commit's log records
to the operating system without an fsync (WiredTiger's transaction_sync method=none, where
--sync-on-commit alone is method=fsync). An acknowledged write then survives the server being
killed, not the machine failing: MongoDB's default (a journal flushed every 100 ms) keeps less.
Without --sync-on-commit, records wait in WiredTiger's buffer and a SIGKILL loses the last ones.

Usage: python secantusd.py [--sync-method=none] <secantusd arguments>
"""

import hashlib
import inspect
import itertools
import sys
import threading

import secantus
from secantus import sortkey, storage
from secantus.cli import main as secantusd

# The SecantusDB version the patches were written for: scripts/lib/infra.ts installs exactly this one.
PATCHED_VERSION = "0.7.0b3"
DECISION = "docs/adr/0004-secantusdb-launcher-patches.md"

# The write statements, each holding its collection's lock whenever it reads the catalog, with their fingerprints.
WRITE_STATEMENTS = {
    "_insert_chunk": "98bf06590efbdb94dadd244a26d688325ac4d3ae9a6378189f19799ccb17a36c",
    "_update_matching_chunked": "c5169e29b4556d85812bd519cfa69794e7e295eb93fe1b5c682d2d71ebb0baf2",
    "_update_matching_single_txn": "d420f1ebc10a022793b475209cb210f543c1910d6d65ad7dc6055a298a1a80ee",
    "_delete_matching_chunked": "08653e2b7c405d48bbc6b2b9a5a8cc0815df33083b65e479764ac9afd366c624",
    "_delete_matching_single_txn": "0f55299c82a988abb143f1554d3f8251d650ba082294fcb50d1b0eee5dee790b",
}

# The SHA-256 of the source of each SecantusDB function the launcher replaces, wraps or calls, in PATCHED_VERSION.
TARGET_SOURCES = {
    # replaced: encode_int gives the same bytes for ints, index_key_variants the same keys
    "sortkey._encode_number": "cdbc8176960a1f6ea45d9bef882447f71e2a7ff404cc85e670ed0161307f794d",
    "storage._index_key_variants": "802b33c8e9d256944250822b8bc994bad2542e079b2a29ec47bbec1da4204947",
    # called by index_key_variants, as the replaced one calls them
    "storage._index_field_values": "9c16b3f2d779b2249753af14e5fe7d8241e90aa19372325078096e48e527be8b",
    "storage._sparse_covers": "07594c18d18504bb2766e340ab902d73fd15c9cffd9dc585b0f10e45f2521537",
    "storage.encode_value_directed": "2fba61eb927ec29b70792ad51898399ebe3e551ace3be958f11aff6885d392a5",
    # wrapped: the catalog read kept per statement, and the one catalog write a data write makes
    "storage.Storage._index_options_map": "c967190f9c9ea57ea09a379bdb0751b6db5c99a014108203ddf882c8ef2fb4b8",
    "storage.Storage._maybe_mark_multikey": "02a0c8aba4ac1080ea32e23ed573ce850468ec3cd12b41d7f4081cd5ce7c341e",
    # wrapped: the catalog walk kept per statement, and the planner an _id point lookup goes around
    "storage.Storage._iter_indexes": "f1753b797fc136eccac1ba00c75bf498109badd71fba9f5764d479a08c21f521",
    "storage.Storage._try_index_id_keys": "a10371cd1854da791e53e943de577264c87e7f65889961d7bdcc230665c55be1",
    # called by that point lookup, as the planner's own _id path calls them
    "storage._id_point_lookup_keys": "a5a88c427eb6382a7009a31f60912883a9e3997718f2439bb1956f5e4943608c",
    "storage.Storage._doc_recordid": "a868a912c4014dc494a04e9dcf8b778b9e1b970298bc5df129aa408dcc4e23f3",
    "storage.Storage._is_timeseries": "f4e7b5087c8455c6390e08f873febd2abc84bc37b9b859e1db83ced79e22c0e1",
    # the planner's callers, which match every document it selects against the whole filter
    "storage.Storage._candidates_iter": "884156f98f149ab4a9ffa919b67a701ffdb051a076bde2ddb467fa4fe9628c42",
    "storage.Storage._try_index_lookup": "f7908417b1aebd9a0006817151d4decd73ca3cd1f0f96201fcc2fb8180ccf6da",
    "storage.Storage.find_matching": "50d92722b31d2012a38b919f9041c96d5863fecb63821ca168d436f5ccb4f374",
    # wrapped: the write statements (above)
    **{f"storage.Storage.{name}": fingerprint for name, fingerprint in WRITE_STATEMENTS.items()},
    # builds the WiredTiger configuration whose transaction_sync --sync-method=none rewrites
    "storage.Storage.__init__": "b8a82ce319ff802f2fccba731393a6736633d5765f1f7808e4038c3e5d47b6ca",
}

_local = threading.local()
encode_number = sortkey._encode_number


def _statements():
    """This thread's write statements under way, outermost first, each with its kept copies."""
    if not hasattr(_local, "statements"):
        _local.statements = []
    return _local.statements


def _kept_options(statement):
    """Runs a write statement with its own kept copies (a nested statement, such as an upsert's insert, gets fresh ones)."""

    def run(self, *args, **kwargs):
        statements = _statements()
        statements.append({})
        try:
            return statement(self, *args, **kwargs)
        finally:
            statements.pop()

    return run


# Encoded ints, by value: user, realm and channel ids recur in every index entry.
_encoded_ints = {}
_ENCODED_INTS_KEPT = 65536
# Decimal's default context keeps 28 digits: SecantusDB's encoding rounds longer ints, so they go to it.
_EXACT_DIGITS = 28


def encode_int(value):
    """sortkey._encode_number for an int (not a bool, float or Decimal128): the same bytes, without Decimal."""
    if type(value) is not int:
        return encode_number(value)
    encoded = _encoded_ints.get(value)
    if encoded is not None:
        return encoded
    digits = str(abs(value))
    if value == 0 or len(digits) > _EXACT_DIGITS:
        return encode_number(value)
    exponent = 128 + len(digits) - 1
    digits = digits.rstrip("0")
    if len(digits) % 2:
        digits += "0"
    pairs = bytes([int(digits[i : i + 2]) + 1 for i in range(0, len(digits), 2)])
    if value > 0:
        encoded = b"\xc0" + bytes([exponent]) + pairs + b"\x00"
    else:
        encoded = b"\x40" + bytes([0xFF - exponent]) + bytes([0x64 - p for p in pairs]) + b"\xff"
    if len(_encoded_ints) >= _ENCODED_INTS_KEPT:
        _encoded_ints.clear()
    _encoded_ints[value] = encoded
    return encoded


def index_key_variants(doc, key_spec, *, sparse, collation=None):
    """storage._index_key_variants with each candidate value encoded once: the same keys in the same order."""
    if sparse and not storage._sparse_covers(doc, key_spec):
        return []
    # dict.fromkeys: each key once, in the order first met
    per_field = []
    for field, direction in key_spec.items():
        candidates, _multikey = storage._index_field_values(doc, field)
        encoded = (storage.encode_value_directed(value, int(direction), collation=collation) for value in candidates)
        per_field.append(list(dict.fromkeys(encoded)))
    if len(per_field) == 1:
        return per_field[0]
    return list(dict.fromkeys(storage.COMPOUND_SEP.join(parts) for parts in itertools.product(*per_field)))


def _patch():
    sortkey._encode_number = encode_int
    storage._index_key_variants = index_key_variants
    Storage = storage.Storage
    read_options = Storage._index_options_map
    read_indexes = Storage._iter_indexes
    mark_multikey = Storage._maybe_mark_multikey
    plan_id_keys = Storage._try_index_id_keys

    def index_options_map(self, db, coll):
        statements = _statements()
        if not statements:
            return read_options(self, db, coll)
        kept = statements[-1]
        if (db, coll) not in kept:
            kept[(db, coll)] = read_options(self, db, coll)
        return kept[(db, coll)]

    def iter_indexes(self, db, coll):
        statements = _statements()
        if not statements:
            return read_indexes(self, db, coll)
        kept = statements[-1]
        if (db, coll, "indexes") not in kept:
            kept[(db, coll, "indexes")] = list(read_indexes(self, db, coll))
        return iter(kept[(db, coll, "indexes")])

    def maybe_mark_multikey(self, db, coll, doc, indexes, already_multikey):
        before = len(already_multikey)
        marked = mark_multikey(self, db, coll, doc, indexes, already_multikey)
        if len(marked) > before:
            # the enclosing statements' copies too: an upsert's insert runs inside its update
            for kept in _statements():
                kept.pop((db, coll), None)
                kept.pop((db, coll, "indexes"), None)
        return marked

    def try_index_id_keys(self, db, coll, filter, *, collation=None):
        # An _id point lookup among other clauses: no index can select fewer documents, and every
        # caller matches each document it fetches against the whole filter.
        if collation is None and len(filter) > 1 and "_id" in filter and not self._is_timeseries(db, coll):
            keys = storage._id_point_lookup_keys(filter["_id"])
            if keys is not None:
                return [r for r in (self._doc_recordid(db, coll, k) for k in keys) if r is not None]
        return plan_id_keys(self, db, coll, filter, collation=collation)

    Storage._index_options_map = index_options_map
    Storage._iter_indexes = iter_indexes
    Storage._maybe_mark_multikey = maybe_mark_multikey
    Storage._try_index_id_keys = try_index_id_keys
    for name in WRITE_STATEMENTS:
        setattr(Storage, name, _kept_options(getattr(Storage, name)))


def _write_commits_without_fsync():
    """Every commit written to the operating system, none fsynced (see --sync-method above)."""
    open_connection = storage.wt.wiredtiger_open

    fsynced = "transaction_sync=(enabled=true,method=fsync)"
    written = "transaction_sync=(enabled=true,method=none)"

    def wiredtiger_open(home, config):
        if fsynced not in config:
            sys.exit(f"secantusd.py: --sync-method=none needs --sync-on-commit (no {fsynced} in WiredTiger's configuration)")
        return open_connection(home, config.replace(fsynced, written))

    storage.wt.wiredtiger_open = wiredtiger_open


def _target(name):
    """The object a name of TARGET_SOURCES names ("storage.Storage._insert_chunk"), None when there is none."""
    module, *path = name.split(".")
    found = {"sortkey": sortkey, "storage": storage}[module]
    for attribute in path:
        found = getattr(found, attribute, None)
    return found


def target_changes():
    """How the installed SecantusDB differs from the one the patches were written for, one line each."""
    changes = []
    if secantus.__version__ != PATCHED_VERSION:
        changes.append(f"SecantusDB {secantus.__version__} is installed, not {PATCHED_VERSION}")
    for name, expected in TARGET_SOURCES.items():
        target = _target(name)
        if not inspect.isfunction(target):
            changes.append(f"{name} is not a function any more")
            continue
        try:
            found = hashlib.sha256(inspect.getsource(target).encode()).hexdigest()
        except OSError:
            changes.append(f"{name} has changed: its source cannot be read")
            continue
        if found != expected:
            changes.append(f"{name} has changed: its source's SHA-256 is {found}, not {expected}")
    return changes


def check_target():
    """Exits, saying what changed and what to do, unless SecantusDB is the one the patches were written for."""
    changes = target_changes()
    if changes:
        sys.exit(
            f"secantusd.py patches internals of SecantusDB {PATCHED_VERSION}, and the installed one differs:\n"
            + "".join(f"  - {change}\n" for change in changes)
            + f"Read the new version's code of these functions and re-measure the patches as {DECISION} describes; "
            + "then update the launcher, SecantusDB's pin (scripts/lib/infra.ts) and TARGET_SOURCES, or remove the patches."
        )


def main():
    """secantusd, patched: refuses to start on a SecantusDB the patches were not written for."""
    check_target()
    if "--sync-method=none" in sys.argv:
        sys.argv.remove("--sync-method=none")
        _write_commits_without_fsync()
    _patch()
    sys.argv[0] = "secantusd"
    return secantusd()


if __name__ == "__main__":
    sys.exit(main())
