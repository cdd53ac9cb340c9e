import { identity, type BusServer, type EventPublisher } from "@teamchat/shared";
import { addNavigationViewHandler } from "../handlers/add-navigation-view";
import { getNavigationViewsHandler } from "../handlers/get-navigation-views";
import { removeNavigationViewHandler } from "../handlers/remove-navigation-view";
import { updateNavigationViewHandler } from "../handlers/update-navigation-view";
import type { NavigationViewRepository } from "../navigation-views/navigation-view.repository";

/** A user's navigation views. */
export function registerNavigationViewOperations(
  server: BusServer,
  {
    navigationViews,
    events,
  }: {
    navigationViews: NavigationViewRepository;
    events: EventPublisher<"identity">;
  },
): void {
  server
    .handle(identity.listNavigationViews, getNavigationViewsHandler({ navigationViews }))
    .handle(identity.addNavigationView, addNavigationViewHandler({ navigationViews, events }))
    .handle(identity.updateNavigationView, updateNavigationViewHandler({ navigationViews, events }))
    .handle(identity.removeNavigationView, removeNavigationViewHandler({ navigationViews, events }));
}
