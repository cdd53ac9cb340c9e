/**
 * Drafts (Zulip's drafts.py and lib/drafts.py): GET/POST /drafts,
 * PATCH/DELETE /drafts/{id}, their validation, the drafts events and
 * register's drafts; refused while enable_drafts_synchronization is off, and
 * turning it off deletes the server's drafts without events.
 */
import { identity, messaging, notifications, type messaging as m } from "@teamchat/shared";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { EventReader, type ZulipEvent } from "../../../test/support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import { createChannel, makeCast } from "./helpers";

let org: TestOrganization;
let alice: TestUser, bob: TestUser, carol: TestUser, guest: TestUser;
let team: number, secret: number;
beforeAll(async () => {
  org = await testOrganization();
  ({ alice, bob, carol, guest } = await makeCast(org));
  team = await createChannel(org, alice, "team", [alice.userId, bob.userId]);
  secret = await createChannel(org, bob, "secret", [bob.userId], { invite_only: true });
});
afterAll(() => org?.stop());

const success = { result: "success", msg: "" };
const draftsOf = async (user: TestUser) => {
  const reply = await org.call(messaging.getDrafts, {}, user);
  expect(reply.count).toBe(reply.drafts.length);
  return reply.drafts;
};
const registered = async (user: TestUser) =>
  (
    (await org.call(notifications.registerQueue, { fetch_event_types: ["drafts"] }, user)) as unknown as {
      drafts: m.Draft[];
    }
  ).drafts;
const create = (user: TestUser, ...drafts: m.DraftInput[]) => org.call(messaging.createDrafts, { drafts }, user);
const withoutIds = (events: ZulipEvent[]) => events.map(({ id: _id, ...e }) => e);
const setSync = (user: TestUser, on: boolean) =>
  org.call(identity.updateSettings, { enable_drafts_synchronization: on }, user);
const notFound = { status: 404, code: "BAD_REQUEST" as const, msg: "Draft does not exist" };

describe("/drafts", () => {
  it("creates drafts as Zulip shows them, lists them by edit time, and sends drafts add", async () => {
    const r = await EventReader.register(org.api(alice), { event_types: ["drafts"] });
    const reply = await create(
      alice,
      { type: "stream", to: [team], topic: " plans ", content: "Let's  meet\n", timestamp: 1_595_479_019.5 },
      {
        type: "private",
        to: [bob.userId, alice.userId, carol.userId],
        topic: "ignored",
        content: "group",
        timestamp: 1_595_479_010,
      },
      { type: "private", to: [alice.userId], topic: "", content: "note to self", timestamp: 1_595_479_030 },
      { type: "private", to: [], topic: "", content: "unaddressed direct", timestamp: 1_595_479_040 },
      { type: "", to: [team], topic: "x", content: "nowhere", timestamp: 1_595_479_050 },
    );
    expect(reply).toEqual({
      ...success,
      ids: [expect.any(Number), expect.any(Number), expect.any(Number), expect.any(Number), expect.any(Number)],
    });
    const [channelId, groupId, selfId, noOneId, nowhereId] = reply.ids;
    const drafts = [
      { id: channelId, type: "stream", to: [team], topic: " plans ", content: "Let's  meet", timestamp: 1_595_479_019 },
      {
        id: groupId,
        type: "private",
        to: [bob.userId, carol.userId],
        topic: "",
        content: "group",
        timestamp: 1_595_479_010,
      },
      { id: selfId, type: "private", to: [alice.userId], topic: "", content: "note to self", timestamp: 1_595_479_030 },
      { id: noOneId, type: "", to: [], topic: "", content: "unaddressed direct", timestamp: 1_595_479_040 },
      { id: nowhereId, type: "", to: [], topic: "", content: "nowhere", timestamp: 1_595_479_050 },
    ];
    expect(withoutIds(await r.until((e) => e.length >= 1))).toEqual([{ type: "drafts", op: "add", drafts }]);
    // GET: least recently edited first; register: most recently edited first
    const byTime = [...drafts].sort((a, b) => a.timestamp - b.timestamp);
    expect(await draftsOf(alice)).toEqual(byTime);
    expect(await registered(alice)).toEqual([...byTime].reverse());
    // a draft without a timestamp is edited now
    const before = Math.floor(Date.now() / 1000);
    const [nowId] = (await create(alice, { type: "", to: [], topic: "", content: "now" })).ids;
    const now = (await draftsOf(alice)).find((d) => d.id === nowId)!;
    expect(now.timestamp).toBeGreaterThanOrEqual(before);
    expect(now.timestamp).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
    expect(await draftsOf(bob)).toEqual([]);
  });

  it("edits a draft (drafts update) and deletes one (drafts remove)", async () => {
    const r = await EventReader.register(org.api(alice), { event_types: ["drafts"] });
    const [first] = await draftsOf(alice);
    const draft = {
      type: "private" as const,
      to: [bob.userId],
      topic: "",
      content: "changed",
      timestamp: 1_700_000_000,
    };
    expect(await org.call(messaging.editDraft, { draft_id: first!.id, draft }, alice)).toEqual(success);
    const edited = { id: first!.id, ...draft };
    expect((await draftsOf(alice)).find((d) => d.id === first!.id)).toEqual(edited);
    // register's copy (kept in memory, read when the queue above was registered) follows each change
    expect((await registered(alice)).find((d) => d.id === first!.id)).toEqual(edited);
    expect(await org.call(messaging.deleteDraft, { draft_id: first!.id }, alice)).toEqual(success);
    expect((await draftsOf(alice)).map((d) => d.id)).not.toContain(first!.id);
    expect((await registered(alice)).map((d) => d.id)).not.toContain(first!.id);
    expect(withoutIds(await r.until((e) => e.length >= 2))).toEqual([
      { type: "drafts", op: "update", draft: edited },
      { type: "drafts", op: "remove", draft_id: first!.id },
    ]);
  });

  it("refuses what Zulip refuses, and changes nothing", async () => {
    const r = await EventReader.register(org.api(alice), { event_types: ["drafts"] });
    const before = await draftsOf(alice);
    const ok = { type: "stream" as const, to: [team], topic: "t", content: "c" };
    const refusals: Array<[m.DraftInput, string]> = [
      [{ ...ok, to: [team, team] }, "Must specify exactly 1 channel ID for channel messages"],
      [{ ...ok, to: [] }, "Must specify exactly 1 channel ID for channel messages"],
      [{ ...ok, to: [secret] }, "Invalid channel ID"],
      [{ ...ok, to: [999_999] }, "Invalid channel ID"],
      [{ ...ok, topic: "a\0b" }, "Topic must not contain null bytes"],
      [{ ...ok, content: "a\0b" }, "Message must not contain null bytes"],
      [{ ...ok, timestamp: -1 }, "Timestamp must not be negative."],
      [{ type: "private", to: [999_999], topic: "", content: "c" }, "Invalid user ID 999999"],
      [{ ...ok, content: "  " }, 'drafts[1]["content"] cannot be blank'],
    ];
    for (const [bad, msg] of refusals) {
      // the good draft before it is not stored either
      await expectZulipError(create(alice, ok, bad), badRequestError(msg));
    }
    await expectZulipError(
      org.call(messaging.createDrafts, { drafts: [{ ...ok, extra: 1 } as never] }, alice),
      badRequestError('Argument "extra" at drafts[0] is unexpected'),
    );
    await expectZulipError(
      org.call(messaging.createDrafts, { drafts: [{ ...ok, type: "channel" } as never] }, alice),
      badRequestError('Invalid drafts[0]["type"]'),
    );
    await expectZulipError(
      org.call(messaging.editDraft, { draft_id: before[0]!.id, draft: { ...ok, to: [secret] } }, alice),
      badRequestError("Invalid channel ID"),
    );
    await expectZulipError(org.call(messaging.editDraft, { draft_id: 999_999, draft: ok }, alice), notFound);
    await expectZulipError(org.call(messaging.deleteDraft, { draft_id: 999_999 }, alice), notFound);
    // another user's draft does not exist for them, whatever their role
    for (const other of [bob, guest, org.owner]) {
      await expectZulipError(org.call(messaging.editDraft, { draft_id: before[0]!.id, draft: ok }, other), notFound);
      await expectZulipError(org.call(messaging.deleteDraft, { draft_id: before[0]!.id }, other), notFound);
    }
    expect(await draftsOf(alice)).toEqual(before);
    expect(await r.drain()).toEqual([]);
  });

  it("a guest drafts to channels they may read only", async () => {
    await expectZulipError(
      create(guest, { type: "stream", to: [team], topic: "t", content: "c" }),
      badRequestError("Invalid channel ID"),
    );
    await org.call(messaging.subscribe, { subscriptions: [{ name: "team" }], principals: [guest.userId] }, alice);
    const [id] = (await create(guest, { type: "stream", to: [team], topic: "t", content: "c", timestamp: 5 })).ids;
    expect(await draftsOf(guest)).toEqual([{ id, type: "stream", to: [team], topic: "t", content: "c", timestamp: 5 }]);
  });

  it("turning synchronization off deletes the server's drafts without events, and refuses /drafts until it is on", async () => {
    const [kept] = (await create(carol, { type: "", to: [], topic: "", content: "mine", timestamp: 10 })).ids;
    const r = await EventReader.register(org.api(carol), { event_types: ["drafts"] });
    // register's copy, which the deletion below must drop though no client hears of it
    expect((await registered(carol)).map((d) => d.id)).toEqual([kept]);
    expect(await setSync(carol, false)).toEqual(success);
    const refused = badRequestError("User has disabled synchronizing drafts.");
    await expectZulipError(org.call(messaging.getDrafts, {}, carol), refused);
    await expectZulipError(create(carol, { type: "", to: [], topic: "", content: "x" }), refused);
    await expectZulipError(
      org.call(messaging.editDraft, { draft_id: kept!, draft: { type: "", to: [], topic: "", content: "x" } }, carol),
      refused,
    );
    await expectZulipError(org.call(messaging.deleteDraft, { draft_id: kept! }, carol), refused);
    expect(await registered(carol)).toEqual([]);
    expect(await setSync(carol, true)).toEqual(success);
    expect(await draftsOf(carol)).toEqual([]);
    expect(await registered(carol)).toEqual([]);
    // no drafts event was sent: the next one is the add of a new draft
    const [fresh] = (await create(carol, { type: "", to: [], topic: "", content: "again", timestamp: 11 })).ids;
    expect(withoutIds(await r.until((e) => e.length >= 1))).toEqual([
      {
        type: "drafts",
        op: "add",
        drafts: [{ id: fresh, type: "", to: [], topic: "", content: "again", timestamp: 11 }],
      },
    ]);
    // other users' drafts stay
    expect((await draftsOf(alice)).length).toBeGreaterThan(0);
  });
});
