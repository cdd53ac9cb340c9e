import { requireUser, type Handler, type identity } from "@teamchat/shared";
import type { Deps } from "../deps";
import { toNavigationView } from "../navigation-views/navigation-view-rules";

/** GET /navigation_views (Zulip's get_navigation_views). */
export const getNavigationViewsHandler =
  ({ navigationViews }: Deps<"navigationViews">): Handler<typeof identity.listNavigationViews> =>
  async (_p, ctx) => {
    const { realm, actor } = requireUser(ctx);
    return { navigation_views: (await navigationViews.ofUser(realm.id, actor.userId)).map(toNavigationView) };
  };
