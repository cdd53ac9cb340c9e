import { ZulipError, identity, requireRealm, type Handler } from "@teamchat/shared";
import { API_KEY_LENGTH, type ApiKeyRepository } from "../api-keys/api-key.repository";
import { apiEmail, toActor } from "../users/user-view";
import type { UserDirectory } from "../users/user-directory";

const invalidKey = () => new ZulipError("INVALID_API_KEY", "Invalid API key", 401);

export const authenticateHandler =
  ({ users, keys }: { users: UserDirectory; keys: ApiKeyRepository }): Handler<typeof identity.authenticate> =>
  async ({ email, api_key }, ctx) => {
    const realm = requireRealm(ctx);
    if (api_key.length !== API_KEY_LENGTH) throw new ZulipError("INVALID_API_KEY", "Malformed API key", 401);
    const key = await keys.byKey(realm.id, api_key);
    if (!key) throw invalidKey();
    const user = await users.byId(realm.id, key.userId);
    const given = email.toLowerCase();
    // Either the real address or the API (possibly dummy) address identifies the account; system bots have no keys.
    if (!user || user.isSystemBot || (given !== user.deliveryEmail && given !== apiEmail(user, realm).toLowerCase())) {
      throw invalidKey();
    }
    if (!user.isActive) throw new ZulipError("USER_DEACTIVATED", "Account is deactivated", 401);
    return toActor(user, realm);
  };
