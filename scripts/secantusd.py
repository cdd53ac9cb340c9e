"""Starts SecantusDB (the embedded MongoDB-protocol server) with three speed-ups.

SecantusDB 0.7.0b3 re-reads a collection's index catalog (a WiredTiger cursor
scan and a BSON decode per index) three times for every document it writes
with a secondary index: in its unique-key check, its geo pre-check and its
index-entry writer. Profiled with py-spy on 100-row inserts into the
usermessages collection, that was 39 % of the insert's CPU.

Within one write statement the catalog cannot change under it: each of the
functions below holds the collection's lock, which index creation, deletion
and option changes also take. So each of them reads the options once per
collection and reuses them until it returns. The one catalog write a data
write makes itself (flagging an index multikey when a document first puts an
array in it) drops the kept copies, so a statement's later query planning sees
the flag.

It also encodes each field of a compound index key once per document
(index_key_variants below), where SecantusDB encodes every field again for
each element of an array field; and it encodes an integer once per value and
without Decimal (encode_int). The same bytes, measured on a message's
{realmId, receivers, messageId} entries for 100 receivers: 2.1 ms to encode
them before, 0.2 ms after (this index was 9 % of SecantusDB's busy time in the
event-delivery benchmark).

Any other SecantusDB version runs unpatched, with a warning: the functions
patched here are internal and may change.

One option of its own: --sync-method=none (with --sync-on-commit) writes each
commit's log records to the operating system without an fsync (WiredTiger's
transaction_sync method=none, where --sync-on-commit alone is method=fsync).
An acknowledged write then survives the server being killed, not the machine
failing: MongoDB's default (a journal flushed every 100 ms) keeps less. Without
--sync-on-commit, records wait in WiredTiger's buffer, and a SIGKILL after
1,000 acknowledged inserts kept 989. Under the event-delivery benchmark the
fsync was a third of SecantusDB's busy time.

Usage: python secantusd.py [--sync-method=none] <secantusd arguments>
"""

import itertools
import sys
import threading

import secantus
from secantus import sortkey, storage
from secantus.cli import main

PATCHED_VERSION = "0.7.0b3"

# Write statements that hold their collection's lock whenever they read the catalog.
WRITE_STATEMENTS = (
    "_insert_chunk",
    "_update_matching_chunked",
    "_update_matching_single_txn",
    "_delete_matching_chunked",
    "_delete_matching_single_txn",
)

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
    mark_multikey = Storage._maybe_mark_multikey

    def index_options_map(self, db, coll):
        statements = _statements()
        if not statements:
            return read_options(self, db, coll)
        kept = statements[-1]
        if (db, coll) not in kept:
            kept[(db, coll)] = read_options(self, db, coll)
        return kept[(db, coll)]

    def maybe_mark_multikey(self, db, coll, doc, indexes, already_multikey):
        before = len(already_multikey)
        marked = mark_multikey(self, db, coll, doc, indexes, already_multikey)
        if len(marked) > before:
            # the enclosing statements' copies too: an upsert's insert runs inside its update
            for kept in _statements():
                kept.pop((db, coll), None)
        return marked

    Storage._index_options_map = index_options_map
    Storage._maybe_mark_multikey = maybe_mark_multikey
    for name in WRITE_STATEMENTS:
        setattr(Storage, name, _kept_options(getattr(Storage, name)))


def _write_commits_without_fsync():
    """Every commit written to the operating system, none fsynced (see --sync-method above)."""
    open_connection = storage.wt.wiredtiger_open

    fsynced = "transaction_sync=(enabled=true,method=fsync)"
    written = "transaction_sync=(enabled=true,method=none)"

    def wiredtiger_open(home, config):
        if fsynced not in config:
            print(f"secantusd.py: --sync-method=none: no {fsynced} in WiredTiger's configuration", file=sys.stderr)
        return open_connection(home, config.replace(fsynced, written))

    storage.wt.wiredtiger_open = wiredtiger_open


if __name__ == "__main__":
    if "--sync-method=none" in sys.argv:
        sys.argv.remove("--sync-method=none")
        _write_commits_without_fsync()
    if secantus.__version__ == PATCHED_VERSION:
        _patch()
    else:
        print(
            f"secantusd.py: SecantusDB {secantus.__version__} is not {PATCHED_VERSION}: running it unpatched",
            file=sys.stderr,
        )
    sys.argv[0] = "secantusd"
    sys.exit(main())
