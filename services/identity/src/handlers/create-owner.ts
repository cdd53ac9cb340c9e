import { Role, SYSTEM_BOTS, identity, isDuplicateKey, requireRealm, type Handler } from "@teamchat/shared";
import { hashPassword } from "../passwords";
import type { UserDirectory } from "../users/user-directory";
import type { ApiKeyRepository } from "../api-keys/api-key.repository";

/**
 * Creates the organization's first owner, and its system bots (as Zulip's
 * do_create_realm has them ready); if the address exists, issues it a new key
 * (idempotent retries).
 */
export const createOwnerHandler =
  ({
    users,
    keys,
    passwordHashCost,
  }: {
    users: UserDirectory;
    keys: ApiKeyRepository;
    passwordHashCost: number;
  }): Handler<typeof identity.createOwner> =>
  async ({ email, full_name, password }, ctx) => {
    const realm = requireRealm(ctx);
    for (const bot of SYSTEM_BOTS) await users.systemBot(realm.id, bot);
    const existing = await users.byEmail(realm.id, email);
    if (existing) {
      return { user_id: existing.userId, api_key: await keys.issue(realm.id, existing.userId), created: false };
    }
    try {
      const user = await users.insert({
        realmId: realm.id,
        deliveryEmail: email,
        fullName: full_name,
        role: Role.OWNER,
        isBot: false,
        botType: null,
        botOwnerId: null,
        dateJoined: new Date(),
        timezone: "",
        passwordHash: password ? await hashPassword(password, passwordHashCost) : null,
        canCreateUsers: true,
        canChangeUserEmails: true,
      });
      return { user_id: user.userId, api_key: await keys.issue(realm.id, user.userId), created: true };
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      const raced = (await users.byEmail(realm.id, email))!;
      return { user_id: raced.userId, api_key: await keys.issue(realm.id, raced.userId), created: false };
    }
  };
