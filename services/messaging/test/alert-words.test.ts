/**
 * Alert words (Zulip's alert_words.py): GET/POST/DELETE /users/me/alert_words
 * and their rules, register's alert_words and the alert_words event, and the
 * has_alert_word flag that later messages get for the users whose words they
 * contain (and the is:alerted narrow).
 */
import { messaging, notifications, type ParamsIn } from "@teamchat/shared";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { EventReader, type ZulipEvent } from "../../../test/support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import { createChannel } from "./helpers";

let org: TestOrganization;
let alice: TestUser, bob: TestUser, carol: TestUser;
let team: number;
beforeAll(async () => {
  org = await testOrganization();
  alice = await org.makeUser("Alice", 400, "Alice");
  bob = await org.makeUser("Bob", 400, "Bob");
  carol = await org.makeUser("Carol", 600, "Carol");
  team = await createChannel(org, alice, "team", [alice.userId, bob.userId, carol.userId]);
});
afterAll(() => org?.stop());

const words = async (user: TestUser) => (await org.call(messaging.getAlertWords, {}, user)).alert_words;
const add = (user: TestUser, alert_words: string[]) => org.call(messaging.addAlertWords, { alert_words }, user);
const remove = (user: TestUser, alert_words: string[]) => org.call(messaging.removeAlertWords, { alert_words }, user);
const registered = async (user: TestUser) =>
  (
    (await org.call(notifications.registerQueue, { fetch_event_types: ["alert_words"] }, user)) as unknown as {
      alert_words: string[];
    }
  ).alert_words;
const send = async (params: ParamsIn<typeof messaging.sendMessage>, from: TestUser = alice) =>
  (await org.call(messaging.sendMessage, params, from)).id;
const flagsOf = async (user: TestUser, id: number) =>
  (await org.call(messaging.getMessage, { message_id: id }, user)).message.flags;
const withoutIds = (events: ZulipEvent[]) => events.map(({ id: _id, ...e }) => e);

describe("/users/me/alert_words", () => {
  it("adds words (stripped, blanks dropped, case-insensitive duplicates skipped); GET, register and the event list them", async () => {
    const r = await EventReader.register(org.api(bob), { event_types: ["alert_words"] });
    expect(await words(bob)).toEqual([]);
    // of two new spellings of one word the last is kept, in the first one's place
    expect(await add(bob, ["  deploy ", "", "   ", "Release Party", "DEPLOY"])).toEqual({
      result: "success",
      msg: "",
      alert_words: ["DEPLOY", "Release Party"],
    });
    // a word the user has in another case is skipped
    expect((await add(bob, ["release party", "Lunch", "LUNCH"])).alert_words).toEqual([
      "DEPLOY",
      "Release Party",
      "LUNCH",
    ]);
    expect(await words(bob)).toEqual(["DEPLOY", "Release Party", "LUNCH"]);
    expect(await registered(bob)).toEqual(["DEPLOY", "Release Party", "LUNCH"]);
    expect(await registered(alice)).toEqual([]);
    expect(withoutIds(await r.until((e) => e.length >= 2))).toEqual([
      { type: "alert_words", alert_words: ["DEPLOY", "Release Party"] },
      { type: "alert_words", alert_words: ["DEPLOY", "Release Party", "LUNCH"] },
    ]);
  });

  it("removes words case-insensitively, ignores unknown ones, and sends the event even when nothing changed", async () => {
    const r = await EventReader.register(org.api(bob), { event_types: ["alert_words"] });
    expect(await remove(bob, ["lunch", "unknown"])).toEqual({
      result: "success",
      msg: "",
      alert_words: ["DEPLOY", "Release Party"],
    });
    expect((await remove(bob, ["unknown"])).alert_words).toEqual(["DEPLOY", "Release Party"]);
    expect((await add(bob, [])).alert_words).toEqual(["DEPLOY", "Release Party"]);
    expect(withoutIds(await r.until((e) => e.length >= 3))).toEqual([
      { type: "alert_words", alert_words: ["DEPLOY", "Release Party"] },
      { type: "alert_words", alert_words: ["DEPLOY", "Release Party"] },
      { type: "alert_words", alert_words: ["DEPLOY", "Release Party"] },
    ]);
    expect(await words(bob)).toEqual(["DEPLOY", "Release Party"]);
  });

  it("refuses words over 100 characters, missing and malformed lists, and changes nothing", async () => {
    const raw = (params: Record<string, unknown>) => org.api(bob).post("/users/me/alert_words", params);
    await expectZulipError(
      add(bob, ["ok", "x".repeat(101)]),
      badRequestError("alert_words[1] is too long (limit: 100 characters)"),
    );
    // characters, not UTF-16 units: 100 emoji are allowed
    expect((await add(bob, ["🚀".repeat(100)])).alert_words).toContain("🚀".repeat(100));
    await remove(bob, ["🚀".repeat(100)]);
    await expectZulipError(raw({}), {
      ...badRequestError("Missing 'alert_words' argument", "REQUEST_VARIABLE_MISSING"),
      var_name: "alert_words",
    });
    await expectZulipError(raw({ alert_words: "deploy" }), badRequestError("alert_words is not valid JSON"));
    await expectZulipError(raw({ alert_words: '"deploy"' }), badRequestError("alert_words is not a list"));
    await expectZulipError(raw({ alert_words: "[1]" }), badRequestError("alert_words[0] is not a string"));
    await expectZulipError(
      org.api(bob).delete("/users/me/alert_words", { alert_words: "{}" }),
      badRequestError("alert_words is not a list"),
    );
    expect(await words(bob)).toEqual(["DEPLOY", "Release Party"]);
  });
});

describe("the has_alert_word flag", () => {
  it("flags later messages for the recipients whose words appear as whole words, case-insensitively", async () => {
    await add(carol, ["lunch"]);
    const both = await send({ type: "stream", to: team, topic: "t", content: "DEPLOY after lunch." });
    const partial = await send({ type: "stream", to: team, topic: "t", content: "redeployment at lunchtime" });
    const phrase = await send({ type: "stream", to: team, topic: "t", content: "(release party) tonight" });
    expect(await flagsOf(bob, both)).toEqual(["has_alert_word"]);
    expect(await flagsOf(carol, both)).toEqual(["has_alert_word"]);
    expect(await flagsOf(alice, both)).toEqual(["read"]);
    expect(await flagsOf(bob, partial)).toEqual([]);
    expect(await flagsOf(carol, partial)).toEqual([]);
    expect(await flagsOf(bob, phrase)).toEqual(["has_alert_word"]);
    expect(await flagsOf(carol, phrase)).toEqual([]);
    // direct messages too, and the sender's own words count (Zulip flags every recipient)
    const dm = await send({ type: "private", to: [alice.userId], content: "deploy?" }, bob);
    expect(await flagsOf(bob, dm)).toEqual(["read", "has_alert_word"]);
    expect(await flagsOf(alice, dm)).toEqual([]);

    const alerted = await org.call(
      messaging.getMessages,
      { anchor: "newest", num_before: 10, num_after: 0, narrow: [{ operator: "is", operand: "alerted" }] },
      bob,
    );
    expect(alerted.messages.map((m) => m.id)).toEqual([both, phrase, dm]);
  });

  it("new words apply to messages sent after them; removed words no longer flag", async () => {
    const before = await send({ type: "stream", to: team, topic: "t", content: "standup now" });
    const r = await EventReader.register(org.api(alice), { event_types: ["message"] });
    await add(alice, ["standup"]);
    const after = await send({ type: "stream", to: team, topic: "t", content: "standup now" }, bob);
    expect(await flagsOf(alice, before)).toEqual(["read"]);
    expect(await flagsOf(alice, after)).toEqual(["has_alert_word"]);
    const [event] = await r.until((e) => e.length >= 1);
    expect(event!.flags).toEqual(["has_alert_word"]);
    await remove(alice, ["STANDUP"]);
    const later = await send({ type: "stream", to: team, topic: "t", content: "standup now" }, bob);
    expect(await flagsOf(alice, later)).toEqual([]);
  });
});
