import type { Connection } from "mongoose";
import { TenantRepository } from "@teamchat/shared";
import { loginAttemptSchema, type LoginAttemptDoc } from "./login-attempt.schema";

export const LOGIN_WINDOW_SECONDS = 1800;
export const LOGIN_MAX_FAILURES = 5;

export class LoginAttemptRepository extends TenantRepository<LoginAttemptDoc> {
  constructor(conn: Connection) {
    super(conn.model<LoginAttemptDoc>("LoginAttempt", loginAttemptSchema));
  }

  private static window(now: number): number {
    return Math.floor(now / 1000 / LOGIN_WINDOW_SECONDS) * LOGIN_WINDOW_SECONDS;
  }

  /** Seconds until the username may try again, or 0 when it may try now. */
  async retryAfter(realmId: number, username: string, now = Date.now()): Promise<number> {
    const windowStart = LoginAttemptRepository.window(now);
    const row = await this.findOne(realmId, { username: username.toLowerCase(), windowStart });
    if (!row || row.failures < LOGIN_MAX_FAILURES) return 0;
    return Math.max(1, Math.ceil(windowStart + LOGIN_WINDOW_SECONDS - now / 1000));
  }

  async recordFailure(realmId: number, username: string, now = Date.now()): Promise<void> {
    const windowStart = LoginAttemptRepository.window(now);
    await this.upsertOne(realmId, { username: username.toLowerCase(), windowStart }, { $inc: { failures: 1 } });
  }
}
