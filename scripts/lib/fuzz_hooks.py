"""Schemathesis hooks for `npm run fuzz` (loaded through SCHEMATHESIS_HOOKS).

Zulip's parameters that are not strings travel JSON-encoded in the query or
form (`narrow=[...]`, `subscriptions=[{"name": ...}]`, `anchor=5`, `flag=true`),
as zulip.yaml says with `content: application/json`; schemathesis would send a
list as repeated fields and an object as its keys, which no client does and
every handler refuses. They are JSON-encoded here, as Zulip's clients do.

Generated path ids are mostly ones no object has, so every request would stop at
"not found". Half of the time each id in the path is swapped for one the seed
created (FUZZ_IDS, JSON: path parameter name -> ids), so the handlers' real work
is fuzzed too; the other half keeps what was generated.
"""

import json
import os
import random

import schemathesis

SEEDED_IDS = json.loads(os.environ.get("FUZZ_IDS", "{}"))
# Seeded from the run's seed, so a run can be repeated.
CHOOSER = random.Random(os.environ.get("FUZZ_SEED", "0"))


def json_encoded(fields):
    return {
        name: value if isinstance(value, str) else json.dumps(value)
        for name, value in fields.items()
    }


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    if isinstance(case.query, dict):
        case.query = json_encoded(case.query)
    if isinstance(case.body, dict) and case.media_type in (
        "application/x-www-form-urlencoded",
        "multipart/form-data",
    ):
        case.body = json_encoded(case.body)
    for name in list((case.path_parameters or {}).keys()):
        ids = SEEDED_IDS.get(name)
        if ids and CHOOSER.random() < 0.5:
            case.path_parameters[name] = CHOOSER.choice(ids)
