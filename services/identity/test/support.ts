import { ok } from "@teamchat/shared/src/testing/api";
import type { TestSystem } from "../../../test/support/system";

export interface TestUser {
  email: string;
  apiKey: string;
  userId: number;
  password: string;
}

/** A user created by the owner over POST /users, with a key from /fetch_api_key, in the given role. */
export async function makeUser(sys: TestSystem, name: string, role = 400): Promise<TestUser> {
  const email = `${name}@example.com`;
  const password = `${name}-password-1`;
  const { user_id } = ok(await sys.api(sys.owner).post("/users", { email, password, full_name: `User ${name}` }));
  if (role !== 400) ok(await sys.api(sys.owner).patch(`/users/${user_id}`, { role }));
  const { api_key } = ok(await sys.api(null).post("/fetch_api_key", { username: email, password }));
  return { email, apiKey: api_key, userId: user_id, password };
}
