import type { z } from "zod";
import { REGISTER_STATE_CONTRACTS, notifications, type StatePart } from "@teamchat/shared";
import { longpollState } from "@teamchat/shared/src/contracts/notifications/register";
import { documentedReplyFields } from "@teamchat/shared/src/testing/openapi";
import { testOrganization, type TestOrganization } from "../../../test/support/organization";

/**
 * Keys zulip.yaml documents for POST /register that this server does not send,
 * each with the reason. Everything else documented must be in a full register.
 */
const NOT_SENT: Record<string, string> = {
  demo_organization_scheduled_deletion_date: "Zulip sends it for demo organizations only; none are made here",
};

/** What every register reply has, whatever the client asks for. */
const ALWAYS = ["result", "msg", "queue_id", "last_event_id"];

const STATE_PARTS: StatePart[] = [
  longpollState,
  ...REGISTER_STATE_CONTRACTS.flatMap((c): readonly StatePart[] => c.parts),
];

describe("POST /register's state keys", () => {
  let org: TestOrganization;
  beforeAll(async () => {
    org = await testOrganization();
  });
  afterAll(() => org?.stop());

  it("without fetch_event_types has every key zulip.yaml documents, but the commented few", async () => {
    const documented = documentedReplyFields("POST", "/register").filter(
      (k) => !["result", "msg", "ignored_parameters_unsupported"].includes(k),
    );
    const state = await org.call(notifications.registerQueue, {}, org.owner);
    const missing = documented.filter((k) => !(k in state) && !(k in NOT_SENT));
    expect(missing).toEqual([]);
    // the allow-list stays short: at least 95 % of what the document promises is sent
    expect(documented.filter((k) => k in state).length / documented.length).toBeGreaterThanOrEqual(0.95);
    // and it names only keys that really are missing
    expect(Object.keys(NOT_SENT).filter((k) => k in state)).toEqual([]);
  });

  it.each(STATE_PARTS.filter((p) => p.eventTypes.length).map((p) => [p.eventTypes.join(","), p] as const))(
    "fetch_event_types [%s] brings that part's keys and no part that needs another event type",
    async (_types, part) => {
      const state = await org.call(notifications.registerQueue, { fetch_event_types: [...part.eventTypes] }, org.owner);
      const wanted = STATE_PARTS.filter((p) => p.eventTypes.every((t) => part.eventTypes.includes(t)));
      const keys = wanted.flatMap((p) => Object.entries(p.schema.shape));
      // optional keys are sent only when they apply (demo organizations' deletion date)
      const required = [
        ...ALWAYS,
        ...keys.filter(([, schema]) => !(schema as z.ZodType).safeParse(undefined).success).map(([k]) => k),
      ];
      const allowed = new Set([...ALWAYS, ...keys.map(([k]) => k)]);
      expect(Object.keys(state).filter((k) => !allowed.has(k))).toEqual([]);
      expect(required.filter((k) => !(k in state))).toEqual([]);
    },
  );
});
