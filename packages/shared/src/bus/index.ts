/**
 * The bus between services: a typed request and its reply over NATS, the
 * caller's end (client.ts) and the callee's (server.ts).
 */
export { BusClient, isNoResponders, isTimeout, type BusClientOptions } from "./client";
export { requireRealm, requireUser, type CallContext, type Handler, type HandlerContext } from "./context";
export { RawJson } from "./raw-json";
export { BusServer, type BusServerOptions } from "./server";
export { SharedPiece } from "./shared-pieces";
export { DEADLINE_HEADER, REQUEST_ID_HEADER } from "./wire";
