import type { Connection } from "mongoose";
import { TenantRepository } from "@teamchat/shared";
import { onboardingStepSchema, type OnboardingStepDoc } from "./onboarding-step.schema";

export class OnboardingStepRepository extends TenantRepository<OnboardingStepDoc> {
  constructor(conn: Connection) {
    super(conn.model<OnboardingStepDoc>("OnboardingStep", onboardingStepSchema));
  }

  /** The names of the steps the user has seen. */
  async seenBy(realmId: number, userId: number): Promise<Set<string>> {
    return new Set((await this.findOfUser(realmId, "userId", userId)).map((s) => s.step));
  }

  /** Records the step as seen; seeing it again changes nothing (Zulip's get_or_create). */
  async markSeen(realmId: number, userId: number, step: string): Promise<void> {
    await this.upsertOne(realmId, { userId, step }, { $setOnInsert: { timestamp: new Date() } });
  }
}
