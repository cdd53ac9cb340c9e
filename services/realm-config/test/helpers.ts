/** Helpers for realm-config's tests. */
import { readFileSync } from "node:fs";
import Ajv from "ajv";
import { parse } from "yaml";
import { Role, type RoleValue } from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import { ZULIP_YAML } from "@teamchat/shared/src/testing/openapi";
import type { TestOrganization } from "../../../test/support/organization";

export type RoleUser = { label: string; role: RoleValue; user: Credentials };

/** One user per organization role (the owner is the organization's). */
export async function usersOfEveryRole(org: TestOrganization): Promise<RoleUser[]> {
  const others: Array<[string, RoleValue]> = [
    ["administrator", Role.ADMINISTRATOR],
    ["moderator", Role.MODERATOR],
    ["member", Role.MEMBER],
    ["guest", Role.GUEST],
  ];
  const users: RoleUser[] = [{ label: "owner", role: Role.OWNER, user: org.owner }];
  for (const [label, role] of others) users.push({ label, role, user: await org.makeUser(label, role) });
  return users;
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
