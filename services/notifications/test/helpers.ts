import { publishEvent, type DomainEvent } from "@teamchat/shared";
import { ok, type ApiClient } from "@teamchat/shared/src/testing/api";
import type { TestSystem } from "../../../test/support/system";

/** Publishes a domain event as another service would. */
export function publish(
  sys: TestSystem,
  userIds: DomainEvent["userIds"],
  event: DomainEvent["event"],
  perUser?: DomainEvent["perUser"],
) {
  publishEvent(sys.nc, "test", { realmId: sys.realm.id, userIds, event, perUser });
}

export async function registerQueue(api: ApiClient, params: Record<string, unknown> = {}): Promise<string> {
  const body = ok(
    await api.post("/register", {
      event_types: ["alert_words", "muted_users", "typing", "typing_edit_message"],
      ...params,
    }),
  );
  return body.queue_id as string;
}

export const alertWords = (...words: string[]) => ({ type: "alert_words", alert_words: words });
