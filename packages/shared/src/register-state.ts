import type { z } from "zod";
import { RawJson, type Handler, type HandlerContext } from "./bus";
import { partWanted, type RegisterStateContract, type RegisterStateParams, type StatePart } from "./contracts/register";

/**
 * Computes one state part for the caller; typed by the part's schema, or the
 * part's JSON object as bytes when the provider keeps it serialized (a large
 * list shared by many callers): then only the contract check of replies
 * (BusServerOptions.validateReplies) sees its shape.
 */
export interface StateProvider {
  part: StatePart;
  provide(params: RegisterStateParams, ctx: HandlerContext): Promise<Record<string, unknown> | RawJson>;
}

export const provideState = <S extends z.ZodRawShape>(
  part: StatePart<S>,
  provide: (params: RegisterStateParams, ctx: HandlerContext) => Promise<z.output<z.ZodObject<S>> | RawJson>,
): StateProvider => ({ part, provide });

/**
 * A service's register-state handler: the wanted parts, computed in parallel
 * and merged in the contract's part order (the reply's key order). Every part
 * of the contract needs exactly one provider. When a part comes as bytes, the
 * parts are joined as bytes (parts have no keys in common, so the reply is the
 * same) and the serialized part is copied, not parsed and serialized again.
 */
export function registerStateHandler(
  contract: RegisterStateContract,
  providers: StateProvider[],
): Handler<RegisterStateContract> {
  const unprovided = contract.parts.filter((part) => providers.filter((p) => p.part === part).length !== 1);
  if (unprovided.length || providers.length !== contract.parts.length) {
    throw new Error(`${contract.subject}: each state part needs exactly one provider`);
  }
  const inPartOrder = contract.parts.map((part) => providers.find((p) => p.part === part)!);
  return async (params, ctx) => {
    const parts = await Promise.all(
      inPartOrder
        .filter((p) => partWanted(p.part, params))
        .map(async (p) => {
          const started = performance.now();
          const part = await p.provide(params, ctx);
          // which part of /register is slow: each one's time, at debug level
          ctx.log.debug(
            { part: p.part.eventTypes.join(","), ms: Math.round(performance.now() - started) },
            "state part",
          );
          return part;
        }),
    );
    return parts.some((part) => part instanceof RawJson)
      ? RawJson.merge(parts)
      : (Object.assign({}, ...parts) as Record<string, unknown>);
  };
}
