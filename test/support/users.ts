import { ok } from "@teamchat/shared/src/testing/api";
import type { TestSystem } from "./system";

export interface TestUser {
  email: string;
  apiKey: string;
  userId: number;
  password: string;
  fullName: string;
}

/** A user created by the owner through POST /users (then given `role`), with a key from POST /fetch_api_key. */
export async function makeUser(
  sys: TestSystem,
  name: string,
  role = 400,
  fullName = `User ${name}`,
): Promise<TestUser> {
  const email = `${name.toLowerCase()}@example.com`;
  const password = `${name}-password-1`;
  const { user_id } = ok(await sys.api(sys.owner).post("/users", { email, password, full_name: fullName }));
  if (role !== 400) ok(await sys.api(sys.owner).patch(`/users/${user_id}`, { role }));
  const { api_key } = ok(await sys.api(null).post("/fetch_api_key", { username: email, password }));
  return { email, apiKey: api_key, userId: user_id, password, fullName };
}
