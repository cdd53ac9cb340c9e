import { Schema } from "mongoose";

/** Zulip's OnboardingStep: an onboarding step the user has seen (dismissed). */
export interface OnboardingStepDoc {
  realmId: number;
  userId: number;
  step: string;
  timestamp: Date;
}

export const onboardingStepSchema = new Schema<OnboardingStepDoc>(
  {
    realmId: { type: Number, required: true },
    userId: { type: Number, required: true },
    step: { type: String, required: true },
    timestamp: { type: Date, required: true },
  },
  { collection: "onboardingsteps", versionKey: false },
);
// OnboardingStepRepository.seenBy (the realmId+userId prefix); one row per user and step, as Zulip's unique (user, onboarding_step)
onboardingStepSchema.index({ realmId: 1, userId: 1, step: 1 }, { unique: true });
