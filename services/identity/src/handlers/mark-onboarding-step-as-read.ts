import { badRequest, identity, identityEvents, requireUser, type Handler, type EventPublisher } from "@teamchat/shared";
import { nextOnboardingSteps } from "../onboarding-steps/onboarding-steps";
import { requireHuman } from "../users/access";
import type { OnboardingStepRepository } from "../onboarding-steps/onboarding-step.repository";

/**
 * POST /users/me/onboarding_steps (Zulip's mark_onboarding_step_as_read): the
 * step is recorded as seen and the user's queues get the steps left
 * (do_mark_onboarding_step_as_read sends them even when it was seen already).
 */
export const markOnboardingStepAsReadHandler =
  (deps: {
    onboardingSteps: OnboardingStepRepository;
    events: EventPublisher<"identity">;
  }): Handler<typeof identity.markOnboardingStepAsRead> =>
  async ({ onboarding_step }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    requireHuman(actor);
    if (!identity.ONE_TIME_NOTICES.includes(onboarding_step)) {
      throw badRequest(`Unknown onboarding_step: ${onboarding_step}`);
    }
    await deps.onboardingSteps.markSeen(realm.id, actor.userId, onboarding_step);
    deps.events.publish(
      identityEvents.onboardingSteps,
      {
        realmId: realm.id,
        userIds: [actor.userId],
        event: {
          type: "onboarding_steps",
          onboarding_steps: await nextOnboardingSteps(deps, realm.id, actor.userId),
        },
      },
      ctx.requestId,
    );
    return {};
  };
