import { z } from "zod";
import { defineContract, emptyReply } from "../../contract";

/** Zulip's OnboardingStep as register and the onboarding_steps event carry it. */
export const onboardingStepSchema = z.strictObject({ type: z.literal("one_time_notice"), name: z.string() });
export type OnboardingStep = z.infer<typeof onboardingStepSchema>;

/**
 * Zulip's ONE_TIME_NOTICES (zerver/lib/onboarding_steps.py), in its order:
 * the web app's one-time notices, each shown until the user dismisses it.
 */
export const ONE_TIME_NOTICES: readonly string[] = [
  "visibility_policy_banner",
  "intro_inbox_view_modal",
  "intro_recent_view_modal",
  "first_stream_created_banner",
  "jump_to_conversation_banner",
  "non_interleaved_view_messages_fading",
  "interleaved_view_messages_fading",
  "intro_resolve_topic",
  "navigation_tour_video",
];

/** POST /users/me/onboarding_steps (Zulip's mark_onboarding_step_as_read): the user dismissed a notice. */
export const markOnboardingStepAsRead = defineContract({
  subject: "identity.onboarding_steps.mark_read",
  http: { method: "POST", path: "/users/me/onboarding_steps", auth: "user" },
  params: z.object({ onboarding_step: z.string() }),
  reply: emptyReply,
});
