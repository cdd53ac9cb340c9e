/**
 * Helpers for realm-config's tests. Users of other roles are needed for the
 * permission matrices; until identity serves POST /users and role changes, they
 * call the operation over the bus as the gateway would after authenticating
 * them (the handler decides from ctx.actor.role alone).
 */
import { readFileSync } from "node:fs";
import type { NatsConnection } from "@nats-io/transport-node";
import Ajv from "ajv";
import { parse } from "yaml";
import { BusClient, Role, ZulipError, type Contract, type RoleValue } from "@teamchat/shared";
import type { DomainEvent } from "@teamchat/shared";
import { ZULIP_YAML } from "@teamchat/shared/src/testing/openapi";
import type { TestSystem } from "../../../test/support/system";

export const ROLES: Array<[string, RoleValue]> = [
  ["owner", Role.OWNER],
  ["administrator", Role.ADMINISTRATOR],
  ["moderator", Role.MODERATOR],
  ["member", Role.MEMBER],
  ["guest", Role.GUEST],
];

/** Calls a contract as a user of the given role; resolves to the reply or the Zulip error's wire form. */
export async function callAs(sys: TestSystem, role: RoleValue, contract: Contract, params: Record<string, unknown>) {
  const actor = {
    userId: 1000 + role,
    realmId: sys.realm.id,
    email: `user${role}@example.com`,
    deliveryEmail: `user${role}@example.com`,
    fullName: `Role ${role}`,
    role,
    isBot: false,
  };
  try {
    return {
      ok: true as const,
      data: await new BusClient(sys.nc).request(contract, params, { realm: sys.realm, actor, requestId: "test" }),
    };
  } catch (err) {
    if (!(err instanceof ZulipError)) throw err;
    return { ok: false as const, error: { status: err.status, code: err.code, msg: err.msg } };
  }
}

/** Collects the domain events realm-config publishes, to assert on them after a write. */
export async function recordEvents(nc: NatsConnection) {
  const events: DomainEvent[] = [];
  const sub = nc.subscribe("events.realm-config.>", {
    callback: (_err, msg) => {
      events.push(msg.json<DomainEvent>());
    },
  });
  await nc.flush();
  return {
    events,
    /** Waits until `n` events arrived (publishing is asynchronous to the reply). */
    async next(n = 1): Promise<DomainEvent[]> {
      for (let i = 0; i < 100 && events.length < n; i++) await new Promise((r) => setTimeout(r, 20));
      return events.splice(0, n);
    },
    stop: () => sub.unsubscribe(),
  };
}

/**
 * Problems of a part of the register reply against zulip.yaml's register-queue
 * schema, key by key. (The whole-reply checker cannot compile that schema yet:
 * ajv refuses a `nullable` without `type` somewhere in it.)
 */
export function registerKeyProblems(state: Record<string, unknown>): string[] {
  const doc = parse(readFileSync(ZULIP_YAML, "utf8"), { maxAliasCount: -1 }) as Json;
  const op = (doc.paths as Json)["/register"] as Json;
  const schema = ((((op.post as Json).responses as Json)["200"] as Json).content as Json)["application/json"] as Json;
  const props = ((schema.schema as Json).allOf as Json[])[1]!.properties as Json;
  const ajv = new Ajv({ strict: false, allErrors: true });
  return Object.entries(state).flatMap(([key, value]) => {
    if (!props[key]) return [`${key} is not documented`];
    const validate = ajv.compile({ ...(props[key] as Json), components: doc.components });
    return validate(value) ? [] : [`${key}: ${ajv.errorsText(validate.errors)}`];
  });
}
type Json = Record<string, unknown>;
