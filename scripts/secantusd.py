"""Starts SecantusDB (the embedded MongoDB-protocol server) with one speed-up.

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

Any other SecantusDB version runs unpatched, with a warning: the functions
patched here are internal and may change.

Usage: python secantusd.py <secantusd arguments>
"""

import sys
import threading

import secantus
from secantus import storage
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


def _patch():
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


if __name__ == "__main__":
    if secantus.__version__ == PATCHED_VERSION:
        _patch()
    else:
        print(
            f"secantusd.py: SecantusDB {secantus.__version__} is not {PATCHED_VERSION}: running it unpatched",
            file=sys.stderr,
        )
    sys.argv[0] = "secantusd"
    sys.exit(main())
