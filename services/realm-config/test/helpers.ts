/** Helpers for realm-config's tests. */
import { readFileSync } from "node:fs";
import type { NatsConnection } from "@nats-io/transport-node";
import Ajv from "ajv";
import { parse } from "yaml";
import { Role, type DomainEvent, type RoleValue } from "@teamchat/shared";
import { ok, type Credentials } from "@teamchat/shared/src/testing/api";
import { ZULIP_YAML } from "@teamchat/shared/src/testing/openapi";
import type { TestSystem } from "../../../test/support/system";

export type RoleUser = { label: string; role: RoleValue; user: Credentials };

/** One user per organization role, created through identity's HTTP API (the owner is the system's). */
export async function usersOfEveryRole(sys: TestSystem): Promise<RoleUser[]> {
  const others: Array<[string, RoleValue]> = [
    ["administrator", Role.ADMINISTRATOR],
    ["moderator", Role.MODERATOR],
    ["member", Role.MEMBER],
    ["guest", Role.GUEST],
  ];
  const users: RoleUser[] = [{ label: "owner", role: Role.OWNER, user: sys.owner }];
  for (const [label, role] of others) {
    const email = `${label}@example.com`;
    const password = `${label}-password-1`;
    const { user_id } = ok(await sys.api(sys.owner).post("/users", { email, password, full_name: `The ${label}` }));
    if (role !== Role.MEMBER) ok(await sys.api(sys.owner).patch(`/users/${user_id}`, { role }));
    const { api_key } = ok(await sys.api(null).post("/fetch_api_key", { username: email, password }));
    users.push({ label, role, user: { email, apiKey: api_key } });
  }
  return users;
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
