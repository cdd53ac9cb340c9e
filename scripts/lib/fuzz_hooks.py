"""Schemathesis hooks for `npm run fuzz` (loaded through SCHEMATHESIS_HOOKS).

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


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    for name in list((case.path_parameters or {}).keys()):
        ids = SEEDED_IDS.get(name)
        if ids and CHOOSER.random() < 0.5:
            case.path_parameters[name] = CHOOSER.choice(ids)
