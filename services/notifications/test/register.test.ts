import { mongo } from "mongoose";
import { messaging, notifications, type ParamsIn } from "@teamchat/shared";
import { expectZulipError } from "../../../test/support/call";
import { testOrganization, type TestOrganization } from "../../../test/support/organization";
import { startSystem, type TestSystem } from "../../../test/support/system";

type State = Record<string, unknown>;
type RegisterParams = ParamsIn<typeof notifications.registerQueue>;

/** POST /register as the owner, and what its state says of the owner and of the channel "general". */
function registration(org: TestOrganization) {
  const register = (params: RegisterParams) => org.call(notifications.registerQueue, params, org.owner);
  const ownerIn = (state: State) =>
    (state.realm_users as Array<Record<string, unknown>>).find((u) => u.user_id === org.owner.userId)!;
  const general = (state: State) => (state.subscriptions as Array<Record<string, unknown>>)[0]!;
  const createGeneral = () =>
    org.call(messaging.createChannel, { name: "general", subscribers: [org.owner.userId] }, org.owner);
  return { register, ownerIn, general, createGeneral };
}

describe("POST /register assembles the state from every service", () => {
  let org: TestOrganization;
  let r: ReturnType<typeof registration>;
  beforeAll(async () => {
    org = await testOrganization();
    r = registration(org);
    await r.createGeneral();
  });
  afterAll(() => org?.stop());

  it("asks each part with fetch_event_types (defaulting to event_types) and Zulip's defaults, and merges", async () => {
    const { register, ownerIn, general } = r;
    // every part, with Zulip's defaults: client_gravatar (no avatar URL for gravatar users), no subscribers lists
    const all = await register({});
    expect(all).toMatchObject({
      last_event_id: -1,
      event_queue_longpoll_timeout_seconds: 100,
      realm_name: "Test Organization",
    });
    expect(typeof all.queue_id).toBe("string");
    expect(ownerIn(all)).toMatchObject({ email: org.owner.email, avatar_url: null });
    expect(general(all)).toMatchObject({ name: "general" });
    expect(general(all)).not.toHaveProperty("subscribers");

    // fetch_event_types defaults to event_types: identity's part only
    const users = await register({ event_types: ["realm_user"] });
    expect(ownerIn(users)).toMatchObject({ email: org.owner.email });
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
    expect(general(chosen).subscribers).toEqual([org.owner.userId]);
  });
});

describe("a service that does not answer (a private system: it stops messaging)", () => {
  let sys: TestSystem;
  let r: ReturnType<typeof registration>;
  beforeAll(async () => {
    sys = await startSystem({ env: { RATE_LIMIT_REQUESTS: "10000" } });
    r = registration(sys);
    await r.createGeneral();
  });
  afterAll(() => sys?.stop());

  it("a part no one answers fails the registration with 503 (never a partial state), its queue removed", async () => {
    const db = await mongo.MongoClient.connect(process.env.TEST_MONGO_URL!);
    const queues = () =>
      db
        .db(`${sys.config.MONGO_DB_PREFIX}_notifications`)
        .collection("event_queues")
        .countDocuments({ realmId: sys.realm.id, userId: sys.owner.userId });
    const before = await queues();
    await sys.stopService("messaging");
    try {
      await expectZulipError(r.register({}), {
        status: 503,
        code: "SERVICE_UNAVAILABLE",
        msg: "Service unavailable: messaging",
      });
      // the gateway asked notifications to remove the queue it had made for the state that never came
      expect(await queues()).toBe(before);
    } finally {
      await sys.startService("messaging");
      await db.close();
    }
    // a new instance answers again
    expect(r.general(await r.register({ fetch_event_types: ["subscription"] }))).toMatchObject({ name: "general" });
  });
});
