import { requireUser, type Handler, type identity, type EventPublisher } from "@teamchat/shared";
import {
  builtInNamed,
  isBuiltInView,
  noSuchView,
  pathFragment,
  publishNavigationViewEvent,
  viewExists,
} from "../navigation-views/navigation-view-rules";
import type { NavigationViewRepository } from "../navigation-views/navigation-view.repository";

/**
 * PATCH /navigation_views/{fragment} (Zulip's update_navigation_view), its
 * checks in Zulip's order: a name for a built-in view, a name in use (the
 * view's own included), then the view must exist. The event's data has what
 * the request set (nothing, when it set nothing).
 */
export const updateNavigationViewHandler =
  ({
    navigationViews,
    events,
  }: {
    navigationViews: NavigationViewRepository;
    events: EventPublisher<"identity">;
  }): Handler<typeof identity.updateNavigationView> =>
  async ({ fragment: rawFragment, is_pinned, name }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const fragment = pathFragment(rawFragment);
    if (name !== undefined) {
      if (isBuiltInView(fragment)) throw builtInNamed();
      if (await navigationViews.nameTaken(realm.id, actor.userId, name)) throw viewExists();
    }
    const data = { ...(name !== undefined && { name }), ...(is_pinned !== undefined && { is_pinned }) };
    const change = { ...(name !== undefined && { name }), ...(is_pinned !== undefined && { isPinned: is_pinned }) };
    const found = Object.keys(change).length
      ? await navigationViews.update(realm.id, actor.userId, fragment, change)
      : (await navigationViews.byFragment(realm.id, actor.userId, fragment)) !== null;
    if (!found) throw noSuchView();
    publishNavigationViewEvent(
      events,
      realm.id,
      actor.userId,
      { type: "navigation_view", op: "update", fragment, data },
      ctx.requestId,
    );
    return {};
  };
