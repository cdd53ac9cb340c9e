import { requireUser, type Handler, type identity } from "@teamchat/shared";
import { toNavigationView } from "../navigation-views/navigation-view-rules";
import type { NavigationViewRepository } from "../navigation-views/navigation-view.repository";

/** GET /navigation_views (Zulip's get_navigation_views). */
export const getNavigationViewsHandler =
  ({ navigationViews }: { navigationViews: NavigationViewRepository }): Handler<typeof identity.listNavigationViews> =>
  async (_p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    return { navigation_views: (await navigationViews.ofUser(realm.id, actor.userId)).map(toNavigationView) };
  };
