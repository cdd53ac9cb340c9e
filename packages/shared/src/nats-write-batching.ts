import * as internals from "@nats-io/nats-core/internal";
import { checkPatchTarget, installedVersion, type PatchTarget } from "./patch-target";

/**
 * nats.js writes a connection's outgoing commands in a microtask after each task, so every HTTP
 * request or NATS message handled in a task of its own costs a write(2) and a read on nats-server.
 * Here the write waits for the end of the event loop's turn (setImmediate), so the commands of one
 * turn share one write; 32 KiB waiting, `flush()` and `close()` still write at once.
 * Why and what it saves: docs/adr/0002-nats-write-batching.md.
 */
export const WRITE_BATCHING_TARGET: PatchTarget = {
  patch: "packages/shared/src/nats-write-batching.ts",
  decision: "docs/adr/0002-nats-write-batching.md",
  library: "@nats-io/nats-core",
  version: "3.3.1",
  sources: {
    // replaced: the patch is this function with setImmediate for queueMicrotask
    "ProtocolHandler.prototype.sendCommand": "674ae0825cde1a19af89bd11584a32870161262e5102721c37da6f76df03a0cb",
    // wrapped: it must still be the one place that destroys the socket
    "ProtocolHandler.prototype.close": "20a78db863887ffcf7ae310f520c003a500ea79a66aa889a8002533449b41692",
    // called: writes what waits, once connected
    "ProtocolHandler.prototype.flushPending": "e95765f26edfcd1deb5d4ac8400eb88855797967df1c035da1113bf748793790",
  },
};

type Protocol = {
  outbound: internals.ProtocolHandler["outbound"];
  pendingLimit: number;
  flushPending(): void;
};

checkPatchTarget(WRITE_BATCHING_TARGET, {
  version: installedVersion(WRITE_BATCHING_TARGET.library),
  exports: internals,
});

const protocol = internals.ProtocolHandler.prototype;
const close = protocol.close;

const encoder = new TextEncoder();

protocol.sendCommand = function (this: Protocol, cmd: string | Uint8Array, ...payloads: Uint8Array[]): void {
  const wasEmpty = this.outbound.length() === 0;
  this.outbound.fill(typeof cmd === "string" ? encoder.encode(cmd) : cmd, ...payloads);
  if (wasEmpty) setImmediate(() => this.flushPending());
  else if (this.outbound.size() >= this.pendingLimit) this.flushPending();
};

// close() destroys the socket: what waits for the end of the turn is written first
protocol.close = function (this: internals.ProtocolHandler, err?: Error): Promise<void> {
  (this as unknown as Protocol).flushPending();
  return close.call(this, err);
};
