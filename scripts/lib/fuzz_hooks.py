"""Schemathesis hooks for `npm run fuzz` (loaded through SCHEMATHESIS_HOOKS).

Zulip's parameters that are not strings travel JSON-encoded in the query or
form (`narrow=[...]`, `subscriptions=[{"name": ...}]`, `anchor=5`, `flag=true`),
as zulip.yaml says with `content: application/json`; schemathesis would send a
list as repeated fields and an object as its keys, which no client does and
every handler refuses. They are JSON-encoded here, as Zulip's clients do.

Generated ids are mostly ones no object has, so every request would stop at
"not found". Half of the time each id in the path, and each integer field of
the query or form named like one (stream_id, message_id, ...), is swapped for
one the seed created (FUZZ_IDS, JSON: parameter name -> ids), so the handlers'
real work is fuzzed too; the other half keeps what was generated.
"""

import json
import os
import random

import schemathesis

SEEDED_IDS = json.loads(os.environ.get("FUZZ_IDS", "{}"))
# Seeded from the run's seed, so a run can be repeated.
CHOOSER = random.Random(os.environ.get("FUZZ_SEED", "0"))
# parameters that are not integers, swapped whatever was generated
TEXT_IDS = {"fragment", "email", "user_id_or_email", "queue_id"}


def steered(fields, method):
    for name, value in fields.items():
        # DELETE /events would delete the seeded queues that GET /events is to read
        ids = None if method.upper() == "DELETE" and name == "queue_id" else SEEDED_IDS.get(name)
        is_integer = isinstance(value, int) and not isinstance(value, bool)
        if ids and (is_integer or name in TEXT_IDS) and CHOOSER.random() < 0.5:
            fields[name] = CHOOSER.choice(ids)


def json_encoded(fields):
    return {
        name: value if isinstance(value, str) else json.dumps(value)
        for name, value in fields.items()
    }


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    if case.path_parameters:
        steered(case.path_parameters, case.method)
    form = case.media_type in ("application/x-www-form-urlencoded", "multipart/form-data")
    for fields in (case.query, case.body if form else None):
        if isinstance(fields, dict):
            steered(fields, case.method)
    if isinstance(case.query, dict):
        case.query = json_encoded(case.query)
    if form and isinstance(case.body, dict):
        case.body = json_encoded(case.body)
