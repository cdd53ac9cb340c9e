import type { RoleValue } from "@teamchat/shared";
import type { TestOrganization, TestUser } from "./organization";

export type { TestUser } from "./organization";

/** Kept for the tests not yet on `org.makeUser(...)`, which does the same. */
export const makeUser = (org: TestOrganization, name: string, role?: RoleValue, fullName?: string): Promise<TestUser> =>
  org.makeUser(name, role, fullName);
