import type { RunningService, ServiceDeps } from "@teamchat/shared";

/** Composition root. Operations are registered on deps.server as they are built. */
export async function buildNotifications(_deps: ServiceDeps): Promise<RunningService> {
  return {};
}
