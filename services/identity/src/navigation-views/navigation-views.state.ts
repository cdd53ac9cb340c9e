import { identity, provideState, requireUser, type StateProvider } from "@teamchat/shared";
import type { Deps } from "../deps";
import { toNavigationView } from "./navigation-view-rules";

/** register's navigation_views: the caller's views, as GET /navigation_views lists them. */
export const navigationViewsState = ({ navigationViews }: Deps<"navigationViews">): StateProvider[] => [
  provideState(identity.navigationViewsState, async (_params, ctx) => {
    const { realm, actor } = requireUser(ctx);
    return { navigation_views: (await navigationViews.ofUser(realm.id, actor.userId)).map(toNavigationView) };
  }),
];
