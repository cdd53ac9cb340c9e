import { requireUser, type Handler, type identity, type EventPublisher } from "@teamchat/shared";
import { noSuchView, pathFragment, publishNavigationViewEvent } from "../navigation-views/navigation-view-rules";
import type { NavigationViewRepository } from "../navigation-views/navigation-view.repository";

/** DELETE /navigation_views/{fragment} (Zulip's remove_navigation_view). */
export const removeNavigationViewHandler =
  ({
    navigationViews,
    events,
  }: {
    navigationViews: NavigationViewRepository;
    events: EventPublisher<"identity">;
  }): Handler<typeof identity.removeNavigationView> =>
  async ({ fragment: rawFragment }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const fragment = pathFragment(rawFragment);
    if (!(await navigationViews.remove(realm.id, actor.userId, fragment))) throw noSuchView();
    publishNavigationViewEvent(
      events,
      realm.id,
      actor.userId,
      { type: "navigation_view", op: "remove", fragment },
      ctx.requestId,
    );
    return {};
  };
