import { registerState } from "@teamchat/shared";
import { ok } from "@teamchat/shared/src/testing/api";
import { startSystem, type TestSystem } from "../../../test/support/system";
import { stubIfMissing } from "./helpers";

let sys: TestSystem;
beforeAll(async () => {
  sys = await startSystem({ env: { RATE_LIMIT_REQUESTS: "10000" } });
});
afterAll(() => sys?.stop());

/** A plain (non-queue-group) subscription sees every request to a subject without answering it. */
function capture(subject: string): Array<Record<string, unknown>> {
  const seen: Array<Record<string, unknown>> = [];
  sys.nc.subscribe(subject, {
    callback: (_e, msg) => {
      seen.push(msg.json<{ params: Record<string, unknown> }>().params);
    },
  });
  return seen;
}

describe("POST /register assembles the state from every service", () => {
  it("asks each part with fetch_event_types (defaulting to event_types) and Zulip's defaults, and merges", async () => {
    const stubs = await Promise.all(
      (["identity", "realm-config", "messaging"] as const).map((s) => stubIfMissing(sys, registerState(s), () => ({}))),
    );
    const seen = capture("realm-config.register.state");
    await new Promise((r) => setTimeout(r, 100));

    const all = ok(await sys.api(sys.owner).post("/register", {}));
    expect(all).toMatchObject({ last_event_id: -1, event_queue_longpoll_timeout_seconds: 100 });
    expect(typeof all.queue_id).toBe("string");
    ok(await sys.api(sys.owner).post("/register", { event_types: ["alert_words"] }));
    ok(await sys.api(sys.owner).post("/register", { event_types: ["alert_words"], fetch_event_types: ["realm"] }));
    await new Promise((r) => setTimeout(r, 100));
    expect(seen).toEqual([
      {
        fetch_event_types: null,
        client_gravatar: true,
        include_subscribers: false,
        slim_presence: false,
        client_capabilities: {},
      },
      expect.objectContaining({ fetch_event_types: ["alert_words"] }),
      expect.objectContaining({ fetch_event_types: ["realm"] }),
    ]);

    // a part nobody answers fails the registration (never a partial state)
    stubs[2]?.unsubscribe();
    await sys.stopService("messaging");
    const res = await sys.api(sys.owner).post("/register", {});
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ result: "error", code: "SERVICE_UNAVAILABLE", msg: "Service unavailable: messaging" });
  });
});
