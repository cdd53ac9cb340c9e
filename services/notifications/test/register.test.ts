import { ok, type Body } from "@teamchat/shared/src/testing/api";
import { startSystem, type TestSystem } from "../../../test/support/system";

let sys: TestSystem;
beforeAll(async () => {
  sys = await startSystem({ env: { RATE_LIMIT_REQUESTS: "10000" } });
  ok(await sys.api(sys.owner).post("/channels/create", { name: "general", subscribers: [sys.owner.userId] }));
});
afterAll(() => sys?.stop());

const register = async (params: Record<string, unknown>) => ok(await sys.api(sys.owner).post("/register", params));
const ownerIn = (state: Body) =>
  (state.realm_users as Array<Record<string, unknown>>).find((u) => u.user_id === sys.owner.userId)!;
const general = (state: Body) => (state.subscriptions as Array<Record<string, unknown>>)[0]!;

describe("POST /register assembles the state from every service", () => {
  it("asks each part with fetch_event_types (defaulting to event_types) and Zulip's defaults, and merges", async () => {
    // every part, with Zulip's defaults: client_gravatar (no avatar URL for gravatar users), no subscribers lists
    const all = await register({});
    expect(all).toMatchObject({
      last_event_id: -1,
      event_queue_longpoll_timeout_seconds: 100,
      realm_name: "Test Organization",
    });
    expect(typeof all.queue_id).toBe("string");
    expect(ownerIn(all)).toMatchObject({ email: sys.owner.email, avatar_url: null });
    expect(general(all)).toMatchObject({ name: "general" });
    expect(general(all)).not.toHaveProperty("subscribers");

    // fetch_event_types defaults to event_types: identity's part only
    const users = await register({ event_types: ["realm_user"] });
    expect(ownerIn(users)).toMatchObject({ email: sys.owner.email });
    for (const key of ["subscriptions", "realm_name", "event_queue_longpoll_timeout_seconds"])
      expect(users).not.toHaveProperty(key);

    // fetch_event_types wins over event_types: messaging's part only
    const subs = await register({ event_types: ["realm_user"], fetch_event_types: ["subscription"] });
    expect(general(subs)).toMatchObject({ name: "general" });
    for (const key of ["realm_users", "realm_name"]) expect(subs).not.toHaveProperty(key);

    // the client's choices reach the parts
    const chosen = await register({
      fetch_event_types: ["realm_user", "subscription"],
      client_gravatar: false,
      include_subscribers: true,
    });
    expect(typeof ownerIn(chosen).avatar_url).toBe("string");
    expect(general(chosen).subscribers).toEqual([sys.owner.userId]);
  });

  it("a part no one answers fails the registration with 503 (never a partial state)", async () => {
    await sys.stopService("messaging");
    try {
      const res = await sys.api(sys.owner).post("/register", {});
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ result: "error", code: "SERVICE_UNAVAILABLE", msg: "Service unavailable: messaging" });
    } finally {
      await sys.startService("messaging");
    }
    // a new instance answers again
    expect(general(await register({ fetch_event_types: ["subscription"] }))).toMatchObject({ name: "general" });
  });
});
