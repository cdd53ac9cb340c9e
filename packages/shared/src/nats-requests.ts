import { RequestError } from "@nats-io/nats-core";
import * as internals from "@nats-io/nats-core/internal";
import { checkPatchTarget, installedVersion, type PatchTarget } from "./patch-target";

/**
 * nats.js calls `RequestOne.cancel()` after every answered request too, and that builds a new
 * RequestError, stack trace included, only to reject a promise already resolved. A request
 * cancelled for real (its connection closing) is rejected with one shared RequestError("cancelled")
 * instead: the same type and message, without a stack of its own.
 * Why and what it saves: docs/adr/0003-nats-request-cancel.md.
 */
export const REQUEST_CANCEL_TARGET: PatchTarget = {
  patch: "packages/shared/src/nats-requests.ts",
  decision: "docs/adr/0003-nats-request-cancel.md",
  library: "@nats-io/nats-core",
  version: "3.3.1",
  sources: {
    // wrapped: it must still build its error only when it is given none
    "RequestOne.prototype.cancel": "5e7f460c92cad65b51da0416d4e41ec414efd144e34bba6cf47e0a6fb975313a",
  },
};

checkPatchTarget(REQUEST_CANCEL_TARGET, {
  version: installedVersion(REQUEST_CANCEL_TARGET.library),
  exports: internals,
});

const { prototype } = internals.RequestOne;
const cancel = prototype.cancel;
const CANCELLED = new RequestError("cancelled");
prototype.cancel = function (this: internals.RequestOne, err?: Error): void {
  cancel.call(this, err ?? CANCELLED);
};
