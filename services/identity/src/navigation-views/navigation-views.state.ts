import {
  identity,
  provideState,
  requireUser,
  userKey,
  type StateProvider,
  type EventKeyedCache,
  type identityEvents,
} from "@teamchat/shared";
import { toNavigationView } from "./navigation-view-rules";
import type { NavigationViewRepository } from "./navigation-view.repository";
import type { NavigationViewDoc } from "./navigation-view.schema";

/** Each user's views, for register (dropped on navigation_view events). */
export type NavigationViewLists = EventKeyedCache<NavigationViewDoc[], typeof identityEvents.navigationView.payload>;

/** register's navigation_views: the caller's views, as GET /navigation_views lists them, from memory (every register reads them). */
export const navigationViewsState = ({
  navigationViews,
  viewLists,
}: {
  navigationViews: NavigationViewRepository;
  viewLists: NavigationViewLists;
}): StateProvider[] => [
  provideState(identity.navigationViewsState, async (_params, ctx) => {
    const { realm, actor } = requireUser(ctx);
    const views = await viewLists.get(userKey(realm.id, actor.userId), () =>
      navigationViews.ofUser(realm.id, actor.userId),
    );
    return { navigation_views: views.map(toNavigationView) };
  }),
];
