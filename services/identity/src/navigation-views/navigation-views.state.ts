import { identity, provideState, requireUser, userKey, type StateProvider } from "@teamchat/shared";
import type { Deps } from "../deps";
import { toNavigationView } from "./navigation-view-rules";

/** register's navigation_views: the caller's views, as GET /navigation_views lists them, from memory (every register reads them). */
export const navigationViewsState = ({
  navigationViews,
  viewLists,
}: Deps<"navigationViews" | "viewLists">): StateProvider[] => [
  provideState(identity.navigationViewsState, async (_params, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const views = await viewLists.get(userKey(realm.id, actor.userId), () =>
      navigationViews.ofUser(realm.id, actor.userId),
    );
    return { navigation_views: views.map(toNavigationView) };
  }),
];
