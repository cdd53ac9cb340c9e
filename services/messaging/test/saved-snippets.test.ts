/**
 * Saved snippets (Zulip's saved_snippets.py, FL 297 and 368): GET/POST
 * /saved_snippets, PATCH/DELETE /saved_snippets/{id}, each user's own, the
 * saved_snippets events and register's saved_snippets.
 */
import { messaging, notifications } from "@teamchat/shared";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { EventReader, type ZulipEvent } from "../../../test/support/events";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";

let org: TestOrganization;
let alice: TestUser, bob: TestUser, guest: TestUser;
beforeAll(async () => {
  org = await testOrganization();
  alice = await org.makeUser("Alice", 400, "Alice");
  bob = await org.makeUser("Bob", 400, "Bob");
  guest = await org.makeUser("Guest", 600, "Guest");
});
afterAll(() => org?.stop());

const success = { result: "success", msg: "" };
const snippetsOf = async (user: TestUser) => (await org.call(messaging.getSavedSnippets, {}, user)).saved_snippets;
const registered = async (user: TestUser) =>
  (
    (await org.call(notifications.registerQueue, { fetch_event_types: ["saved_snippets"] }, user)) as unknown as {
      saved_snippets: unknown[];
    }
  ).saved_snippets;
const withoutIds = (events: ZulipEvent[]) => events.map(({ id: _id, ...e }) => e);
const notFound = { status: 404, code: "BAD_REQUEST" as const, msg: "Saved snippet does not exist." };

describe("/saved_snippets", () => {
  it("creates, lists, edits and deletes a user's snippets, with their events", async () => {
    const r = await EventReader.register(org.api(alice), { event_types: ["saved_snippets"] });
    const before = Math.floor(Date.now() / 1000);
    const created = await org.call(messaging.createSavedSnippet, { title: "  Hello ", content: " Welcome! \n" }, alice);
    expect(created).toEqual({ ...success, saved_snippet_id: expect.any(Number) });
    const id = created.saved_snippet_id;
    const [snippet] = await snippetsOf(alice);
    expect(snippet).toEqual({ id, title: "Hello", content: "Welcome!", date_created: expect.any(Number) });
    expect(snippet!.date_created).toBeGreaterThanOrEqual(before);
    expect(snippet!.date_created).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
    const second = (await org.call(messaging.createSavedSnippet, { title: "Bye", content: "See you" }, alice))
      .saved_snippet_id;
    expect((await snippetsOf(alice)).map((s) => s.id)).toEqual([id, second]);
    expect(await registered(alice)).toEqual(await snippetsOf(alice));

    expect(await org.call(messaging.editSavedSnippet, { saved_snippet_id: id, title: "Hi" }, alice)).toEqual(success);
    expect(
      await org.call(messaging.editSavedSnippet, { saved_snippet_id: id, content: "Welcome, all" }, alice),
    ).toEqual(success);
    const edited = { ...snippet!, title: "Hi", content: "Welcome, all" };
    expect((await snippetsOf(alice))[0]).toEqual(edited);
    // nothing to change: success without an event (Zulip's early return)
    expect(await org.call(messaging.editSavedSnippet, { saved_snippet_id: id }, alice)).toEqual(success);

    expect(await org.call(messaging.deleteSavedSnippet, { saved_snippet_id: second }, alice)).toEqual(success);
    expect(await snippetsOf(alice)).toEqual([edited]);
    // register's copy (kept in memory) follows every change
    expect(await registered(alice)).toEqual([edited]);
    expect(withoutIds(await r.until((e) => e.length >= 5))).toEqual([
      { type: "saved_snippets", op: "add", saved_snippet: snippet },
      {
        type: "saved_snippets",
        op: "add",
        saved_snippet: { id: second, title: "Bye", content: "See you", date_created: expect.any(Number) },
      },
      { type: "saved_snippets", op: "update", saved_snippet: { ...snippet!, title: "Hi" } },
      { type: "saved_snippets", op: "update", saved_snippet: edited },
      { type: "saved_snippets", op: "remove", saved_snippet_id: second },
    ]);
    expect(await r.drain()).toHaveLength(5);
  });

  it("refuses blank or over-long fields and changes nothing", async () => {
    const before = await snippetsOf(alice);
    await expectZulipError(
      org.call(messaging.createSavedSnippet, { title: "  ", content: "x" }, alice),
      badRequestError("title cannot be blank"),
    );
    await expectZulipError(
      org.call(messaging.createSavedSnippet, { title: "t", content: "" }, alice),
      badRequestError("content cannot be blank"),
    );
    await expectZulipError(
      org.call(messaging.createSavedSnippet, { title: "x".repeat(61), content: "x" }, alice),
      badRequestError("title is too long (limit: 60 characters)"),
    );
    await expectZulipError(
      org.call(messaging.createSavedSnippet, { title: "t", content: "x".repeat(10001) }, alice),
      badRequestError("content is too long (limit: 10000 characters)"),
    );
    await expectZulipError(
      org.call(messaging.editSavedSnippet, { saved_snippet_id: before[0]!.id, title: " " }, alice),
      badRequestError("title cannot be blank"),
    );
    await expectZulipError(org.call(messaging.createSavedSnippet, { title: "t" } as never, alice), {
      status: 400,
      code: "REQUEST_VARIABLE_MISSING",
      msg: "Missing 'content' argument",
      var_name: "content",
    });
    expect(await snippetsOf(alice)).toEqual(before);
  });

  it("is personal: other users, guests included, neither see nor change another's snippets", async () => {
    const [own] = await snippetsOf(alice);
    expect(await snippetsOf(bob)).toEqual([]);
    expect(await registered(bob)).toEqual([]);
    for (const other of [bob, guest, org.owner]) {
      await expectZulipError(
        org.call(messaging.editSavedSnippet, { saved_snippet_id: own!.id, title: "mine" }, other),
        notFound,
      );
      await expectZulipError(org.call(messaging.deleteSavedSnippet, { saved_snippet_id: own!.id }, other), notFound);
    }
    await expectZulipError(org.call(messaging.deleteSavedSnippet, { saved_snippet_id: 999_999 }, alice), notFound);
    expect(await snippetsOf(alice)).toEqual([own]);
    // a guest keeps snippets of their own
    const id = (await org.call(messaging.createSavedSnippet, { title: "g", content: "guest text" }, guest))
      .saved_snippet_id;
    expect(await snippetsOf(guest)).toEqual([
      { id, title: "g", content: "guest text", date_created: expect.any(Number) },
    ]);
  });
});
