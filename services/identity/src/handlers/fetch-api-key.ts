import { ZulipError, identity, requireRealm, type Handler } from "@teamchat/shared";
import { verifyPassword } from "../passwords";
import { apiEmail } from "../users/user-view";
import type { UserDirectory } from "../users/user-directory";
import type { ApiKeyRepository } from "../api-keys/api-key.repository";
import type { LoginAttemptRepository } from "../login-attempts/login-attempt.repository";
import type { LoginMailer } from "../users/login-mail";

/**
 * Password login. Keys are stored hashed, so every login issues a new key
 * (one per device, like a session) instead of returning an existing one.
 */
export const fetchApiKeyHandler =
  ({
    users,
    keys,
    attempts,
    loginMail,
  }: {
    users: UserDirectory;
    keys: ApiKeyRepository;
    attempts: LoginAttemptRepository;
    loginMail: LoginMailer;
  }): Handler<typeof identity.fetchApiKey> =>
  async ({ username, password, user_agent, remote_addr }, ctx) => {
    const realm = requireRealm(ctx);
    const wait = await attempts.retryAfter(realm.id, username);
    if (wait > 0) {
      throw new ZulipError("RATE_LIMIT_HIT", "API usage exceeded rate limit", 429, { "retry-after": wait });
    }
    const user = await users.byEmail(realm.id, username);
    // system bots have no password: nobody logs in as them
    if (!user || user.isSystemBot || !(await verifyPassword(password, user.passwordHash))) {
      await attempts.recordFailure(realm.id, username);
      throw new ZulipError("AUTHENTICATION_FAILED", "Your username or password is incorrect", 401);
    }
    if (!user.isActive) throw new ZulipError("USER_DEACTIVATED", "Account is deactivated", 401);
    const api_key = await keys.issue(realm.id, user.userId);
    // Zulip's process_api_key_fetch_authenticate_result: a login by password is mailed to the user
    loginMail.notify(user, realm, { userAgent: user_agent ?? "", address: remote_addr });
    return { api_key, email: apiEmail(user, realm), user_id: user.userId };
  };
