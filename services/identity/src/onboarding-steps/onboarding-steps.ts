import {
  identity,
  requireUser,
  provideState,
  userKey,
  type StateProvider,
  type EventKeyedCache,
  type identityEvents,
} from "@teamchat/shared";
import type { OnboardingStepRepository } from "./onboarding-step.repository";

/**
 * Zulip's NAVIGATION_TOUR_VIDEO_URL: none on this server, so its
 * navigation_tour_video step counts as seen (get_next_onboarding_steps).
 */
export const NAVIGATION_TOUR_VIDEO_URL = null;

/** Zulip's get_next_onboarding_steps: the one-time notices the user has not seen, in Zulip's order. */
export async function nextOnboardingSteps(
  { onboardingSteps }: { onboardingSteps: OnboardingStepRepository },
  realmId: number,
  userId: number,
): Promise<identity.OnboardingStep[]> {
  const seen = await onboardingSteps.seenBy(realmId, userId);
  if (NAVIGATION_TOUR_VIDEO_URL === null) seen.add("navigation_tour_video");
  return identity.ONE_TIME_NOTICES.filter((name) => !seen.has(name)).map((name) => ({
    type: "one_time_notice" as const,
    name,
  }));
}

/** Each user's next onboarding steps, for register (dropped on onboarding_steps events). */
export type OnboardingStepLists = EventKeyedCache<
  identity.OnboardingStep[],
  typeof identityEvents.onboardingSteps.payload
>;

/** register's onboarding_steps, from memory (every register reads them), and navigation_tour_video_url. */
export const onboardingStepsState = (deps: {
  onboardingSteps: OnboardingStepRepository;
  onboardingLists: OnboardingStepLists;
}): StateProvider[] => [
  provideState(identity.onboardingStepsState, async (_params, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const load = () => nextOnboardingSteps(deps, realm.id, actor.userId);
    return {
      onboarding_steps: await deps.onboardingLists.get(userKey(realm.id, actor.userId), load),
      navigation_tour_video_url: NAVIGATION_TOUR_VIDEO_URL,
    };
  }),
];
