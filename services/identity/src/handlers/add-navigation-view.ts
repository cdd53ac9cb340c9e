import {
  badRequest,
  isDuplicateKey,
  requireUser,
  type Handler,
  type identity,
  type EventPublisher,
} from "@teamchat/shared";
import {
  builtInNamed,
  isBuiltInView,
  publishNavigationViewEvent,
  toNavigationView,
  viewExists,
} from "../navigation-views/navigation-view-rules";
import type { NavigationViewRepository } from "../navigation-views/navigation-view.repository";

/**
 * POST /navigation_views (Zulip's add_navigation_view): a built-in view
 * takes no name, a custom one needs one; one view per fragment and per name.
 */
export const addNavigationViewHandler =
  ({
    navigationViews,
    events,
  }: {
    navigationViews: NavigationViewRepository;
    events: EventPublisher<"identity">;
  }): Handler<typeof identity.addNavigationView> =>
  async ({ fragment, is_pinned, name }, ctx) => {
    const { realm, actor } = requireUser(ctx);
    if (isBuiltInView(fragment)) {
      if (name !== undefined) throw builtInNamed();
    } else if (name === undefined) {
      throw badRequest("Custom views must have a valid name.");
    }
    if (
      (await navigationViews.byFragment(realm.id, actor.userId, fragment)) ||
      (name !== undefined && (await navigationViews.nameTaken(realm.id, actor.userId, name)))
    ) {
      throw viewExists();
    }
    let view;
    try {
      view = await navigationViews.insert(realm.id, {
        userId: actor.userId,
        fragment,
        isPinned: is_pinned,
        name: name ?? null,
      });
    } catch (err) {
      // a concurrent request added this fragment first
      if (isDuplicateKey(err)) throw viewExists();
      throw err;
    }
    publishNavigationViewEvent(
      events,
      realm.id,
      actor.userId,
      { type: "navigation_view", op: "add", navigation_view: toNavigationView(view) },
      ctx.requestId,
    );
    return {};
  };
