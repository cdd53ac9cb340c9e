import type { Logger } from "../logger";
import type { Actor, RealmRef } from "../actor";
import type { Contract, ParamsOf, ReplyOf } from "../contract";
import { unauthorized } from "../errors";
import type { RawJson } from "./raw-json";

export interface CallContext {
  realm: RealmRef | null;
  actor: Actor | null;
  requestId: string;
  /** The HTTP client's name as Zulip records it on what it sends ("ZulipTerminal", "ZulipPython"); the gateway sets it. */
  client?: string;
}

export interface HandlerContext extends CallContext {
  log: Logger;
  /**
   * Waits without holding one of the instance's handler slots (a parked long
   * poll does no work): the slot is given back while `wait` is pending and
   * taken again, in turn, before the handler goes on.
   */
  parked<T>(wait: Promise<T>): Promise<T>;
}

/** The realm and user of a request to an authenticated operation. */
export function requireUser(ctx: CallContext): { realm: RealmRef; actor: Actor } {
  if (!ctx.actor || !ctx.realm) throw unauthorized();
  return { realm: ctx.realm, actor: ctx.actor };
}

export function requireRealm(ctx: CallContext): RealmRef {
  if (!ctx.realm) throw unauthorized();
  return ctx.realm;
}

/** A handler's reply: the contract's reply, or (when it only passes parts on) its JSON text. */
export type Handler<C extends Contract> = (
  params: ParamsOf<C>,
  ctx: HandlerContext,
) => Promise<ReplyOf<C> | RawJson> | ReplyOf<C> | RawJson;
