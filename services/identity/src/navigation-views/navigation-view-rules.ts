import {
  ZulipError,
  badRequest,
  identity,
  identityEvents,
  type EventPublisher,
  type PayloadOf,
} from "@teamchat/shared";
import type { NavigationViewDoc } from "./navigation-view.schema";

export const toNavigationView = (v: NavigationViewDoc): identity.NavigationView => ({
  fragment: v.fragment,
  is_pinned: v.isPinned,
  name: v.name,
});

export const isBuiltInView = (fragment: string) => identity.BUILT_IN_NAVIGATION_VIEWS.includes(fragment);

/** A fragment from the path, stripped as Zulip's StringConstraints(strip_whitespace=True, min_length=1) does. */
export function pathFragment(raw: string): string {
  const fragment = raw.trim();
  if (!fragment) throw badRequest("fragment cannot be blank");
  return fragment;
}

/** Zulip's errors, as its views word them. */
export const builtInNamed = () => badRequest("Built-in views cannot have a custom name.");
export const viewExists = () => badRequest("Navigation view already exists.");
/** Zulip's ResourceNotFoundError: 404 with the default code. */
export const noSuchView = () => new ZulipError("BAD_REQUEST", "Navigation view does not exist.", 404);

/** A navigation_view event, to the user's own queues only. */
export function publishNavigationViewEvent(
  events: EventPublisher<"identity">,
  realmId: number,
  userId: number,
  event: PayloadOf<typeof identityEvents.navigationView>["event"],
  requestId: string | undefined,
): void {
  events.publish(identityEvents.navigationView, { realmId, userIds: [userId], event }, requestId);
}
