/**
 * Presence through HTTP: POST /users/me/presence (legacy and modern formats,
 * last_update_id, ping_only), GET /realm/presence, GET
 * /users/{user_id_or_email}/presence, presence events, presence_enabled, and
 * register's presences.
 */
import { identity } from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import { badRequestError as bad, expectZulipError } from "../../../test/support/call";
import { EventReader } from "../../../test/support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";

let org: TestOrganization;
let watcher: TestUser;
beforeAll(async () => {
  org = await testOrganization();
  watcher = await org.makeUser("watcher");
});
afterAll(() => org?.stop());

let n = 0;
const freshUser = () => org.makeUser(`presence${++n}`);
const report = (user: Credentials, params: Record<string, unknown>) =>
  org.call(identity.updatePresence, { status: "active", ...params } as { status: string }, user);
const nowSecs = () => Date.now() / 1000;
/** Matches an integer UNIX time of the last few seconds (a jest asymmetric matcher). */
const recent = () => ({
  asymmetricMatch: (v: unknown) => Number.isInteger(v) && Math.abs(nowSecs() - (v as number)) < 10,
  toAsymmetricMatcher: () => "a UNIX time of the last few seconds",
});

const legacy = (status: "active" | "idle", timestamp: unknown) => ({
  aggregated: { client: "website", status, timestamp },
  website: { client: "website", status, timestamp, pushable: false },
});

describe("POST /users/me/presence", () => {
  it("a first report: the organization's presences (legacy format by email) and a presence event to everyone", async () => {
    const amy = await freshUser();
    const reader = await EventReader.register(org.api(watcher), { event_types: ["presence"] });
    const res = await org.api(amy).post("/users/me/presence", { status: "active", new_user_input: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      result: "success",
      msg: "",
      presences: expect.objectContaining({ [amy.email]: legacy("active", recent()) }),
      server_timestamp: expect.any(Number),
      presence_last_update_id: expect.any(Number),
    });
    const [event] = await reader.until((e) => e.some((x) => x.user_id === amy.userId));
    expect(event).toEqual({
      id: expect.any(Number),
      type: "presence",
      user_id: amy.userId,
      email: amy.email,
      server_timestamp: expect.any(Number),
      presence: { website: legacy("active", recent()).website },
    });
  });

  it("last_update_id: the modern format, only what changed since; a repeated report changes nothing", async () => {
    const ben = await freshUser();
    const first = await report(ben, { last_update_id: -1 });
    expect(first.presences![String(ben.userId)]).toEqual({ active_timestamp: recent(), idle_timestamp: recent() });
    const since = first.presence_last_update_id!;

    // within a minute of the stored report: nothing to write, nothing new
    const again = await report(ben, { last_update_id: since, status: "idle" });
    expect(again).toEqual({
      result: "success",
      msg: "",
      presences: {},
      server_timestamp: expect.any(Number),
      presence_last_update_id: since,
    });

    const cleo = await freshUser();
    await report(cleo, { status: "idle", ping_only: true });
    const later = await report(ben, { last_update_id: since });
    // never active: Zulip counts the join date as the last activity
    expect(later.presences).toEqual({
      [String(cleo.userId)]: { active_timestamp: recent(), idle_timestamp: recent() },
    });
    expect(later.presence_last_update_id).toBeGreaterThan(since);
  });

  it("slim_presence asks for the modern format; ping_only answers nothing else", async () => {
    const dora = await freshUser();
    const slim = await report(dora, { slim_presence: true });
    expect(slim.presences![String(dora.userId)]).toEqual({ active_timestamp: recent(), idle_timestamp: recent() });
    expect(Object.keys(slim.presences!)).not.toContain(dora.email);
    const ping = await org.api(dora).post("/users/me/presence", { status: "idle", ping_only: true });
    expect([ping.status, ping.body]).toEqual([200, { result: "success", msg: "" }]);
  });

  it("history_limit_days 0 returns no one; an unknown status is refused and stores nothing", async () => {
    const eve = await freshUser();
    const none = await report(eve, { last_update_id: -1, history_limit_days: 0 });
    expect([none.presences, none.presence_last_update_id]).toEqual([{}, -1]);

    const fred = await freshUser();
    await expectZulipError(org.api(fred).post("/users/me/presence", { status: "away" }), bad("Invalid status: away"));
    await expectZulipError(org.api(fred).post("/users/me/presence", {}), {
      status: 400,
      code: "REQUEST_VARIABLE_MISSING",
      msg: "Missing 'status' argument",
      var_name: "status",
    });
    await expectZulipError(
      org.api(watcher).get(`/users/${fred.userId}/presence`),
      bad(`No presence data for ${fred.userId}`),
    );
  });

  it("every role reports and sees the others", async () => {
    const users = [
      org.owner,
      await org.makeUser("presadmin", 200),
      await org.makeUser("presmod", 300),
      await org.makeUser("presguest", 600),
    ];
    for (const user of users) await report(user, { ping_only: true });
    for (const user of users) {
      const { presences } = await report(user, { slim_presence: true });
      for (const other of users) expect(presences).toHaveProperty(String(other.userId));
    }
  });
});

describe("presence_enabled false", () => {
  it("shows the user offline to everyone at once and ignores their reports until turned on again", async () => {
    const gus = await freshUser();
    await report(gus, {});
    const reader = await EventReader.register(org.api(watcher), { event_types: ["presence"] });
    await org.call(identity.updateSettings, { presence_enabled: false }, gus);
    const [off] = await reader.until((e) => e.some((x) => x.user_id === gus.userId));
    const offAt = (off!.presence as { website: { timestamp: number } }).website.timestamp;
    expect(nowSecs() - offAt).toBeGreaterThan(200);

    await report(gus, {});
    const { presence } = await org.call(identity.getUserPresence, { user_id_or_email: String(gus.userId) }, watcher);
    expect(presence).toEqual({
      website: { status: expect.any(String), timestamp: offAt },
      aggregated: { status: "offline", timestamp: offAt },
    });

    await org.call(identity.updateSettings, { presence_enabled: true }, gus);
    await reader.until((e) => e.filter((x) => x.user_id === gus.userId).length >= 2);
    const back = await org.call(identity.getUserPresence, { user_id_or_email: gus.email }, watcher);
    expect(back.presence).toEqual({
      website: { status: "active", timestamp: recent() },
      aggregated: { status: "active", timestamp: recent() },
    });
  });
});

describe("GET /realm/presence and GET /users/{user_id_or_email}/presence", () => {
  it("the organization's presences in the legacy format; one user's by id or email", async () => {
    const hal = await freshUser();
    await report(hal, {});
    const realm = await org.api(watcher).get("/realm/presence");
    expect(realm.body).toEqual({
      result: "success",
      msg: "",
      presences: expect.objectContaining({ [hal.email]: legacy("active", recent()) }),
      server_timestamp: expect.any(Number),
    });

    const byId = await org.api(watcher).get(`/users/${hal.userId}/presence`);
    expect(byId.body).toEqual({
      result: "success",
      msg: "",
      presence: {
        website: { status: "active", timestamp: recent() },
        aggregated: { status: "active", timestamp: recent() },
      },
    });
    const byEmail = await org.call(identity.getUserPresence, { user_id_or_email: hal.email }, watcher);
    expect(byEmail.presence).toEqual((byId.body as { presence: unknown }).presence);

    await expectZulipError(org.api(watcher).get("/users/999999/presence"), bad("No such user"));
    await expectZulipError(org.api(watcher).get("/users/nobody@example.com/presence"), bad("No such user"));
  });
});

describe("POST /register", () => {
  it("presences as a first fetch gives them, presence_last_update_id, server_timestamp and the presence timings", async () => {
    const ivy = await freshUser();
    await report(ivy, {});
    const slim = (
      await org.api(watcher).post("/register", { fetch_event_types: ["presence", "realm"], slim_presence: true })
    ).body as Record<string, unknown>;
    expect(slim).toMatchObject({
      presences: expect.objectContaining({
        [String(ivy.userId)]: { active_timestamp: recent(), idle_timestamp: recent() },
      }),
      presence_last_update_id: expect.any(Number),
      server_timestamp: expect.any(Number),
      server_presence_ping_interval_seconds: 60,
      server_presence_offline_threshold_seconds: 200,
    });
    const { presences: polled } = await report(watcher, {
      last_update_id: slim.presence_last_update_id,
      ping_only: false,
    });
    // only the watcher's own report is newer than register's
    expect(Object.keys(polled!)).toEqual([String(watcher.userId)]);

    const legacyState = (await org.api(watcher).post("/register", { fetch_event_types: ["presence"] })).body as {
      presences: Record<string, unknown>;
    };
    expect(legacyState.presences[ivy.email]).toEqual(legacy("active", recent()));
  });
});
