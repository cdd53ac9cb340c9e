import { identity, type BusServer, type EventPublisher } from "@teamchat/shared";
import { markOnboardingStepAsReadHandler } from "../handlers/mark-onboarding-step-as-read";
import type { OnboardingStepRepository } from "../onboarding-steps/onboarding-step.repository";

/** A user's onboarding steps. */
export function registerOnboardingStepOperations(
  server: BusServer,
  {
    onboardingSteps,
    events,
  }: {
    onboardingSteps: OnboardingStepRepository;
    events: EventPublisher<"identity">;
  },
): void {
  server.handle(identity.markOnboardingStepAsRead, markOnboardingStepAsReadHandler({ onboardingSteps, events }));
}
