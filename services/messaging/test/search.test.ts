/**
 * Full-text search (Zulip's `search:` narrow, zerver/lib/narrow.py's
 * _by_search_tsearch): English stemming and stop words, quoted phrases, the
 * topic and the content, only messages the searcher may read, results carrying
 * match_content / match_subject marked as Zulip's get_search_fields marks them,
 * and an index kept current by sends, edits, moves and deletes.
 */
import { messaging, notifications, type ParamsIn } from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import { badRequestError, expectZulipError } from "../../../test/support/call";
import { testOrganization, type TestOrganization, type TestUser } from "../../../test/support/organization";
import { createChannel, makeCast } from "./helpers";

let org: TestOrganization;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
beforeAll(async () => {
  org = await testOrganization();
  ({ alice, bob, carol } = await makeCast(org));
  await createChannel(org, alice, "design", [alice.userId, bob.userId]);
});
afterAll(() => org?.stop());

type Term = { operator: string; operand: string; negated?: boolean };

const send = async (user: Credentials, params: ParamsIn<typeof messaging.sendMessage>) =>
  (await org.call(messaging.sendMessage, params, user)).id;
const post = (user: Credentials, topic: string, content: string, to = "design") =>
  send(user, { type: "stream", to, topic, content });

/** GET /messages for the newest matches of a narrow, as Zulip's clients ask for a search. */
const search = (user: Credentials, narrow: Term[], extra: Partial<ParamsIn<typeof messaging.getMessages>> = {}) =>
  org.call(messaging.getMessages, { narrow, anchor: "newest", num_before: 50, num_after: 0, ...extra }, user);
const found = async (user: Credentials, narrow: Term[]) => (await search(user, narrow)).messages.map((m) => m.id);
const words = (operand: string): Term[] => [{ operator: "search", operand }];

describe("search: Zulip's full-text search", () => {
  it("finds words by their stem and marks each match in the content", async () => {
    const id = await post(alice, "errands", "I walked to the market, walking fast");
    const { messages } = await search(bob, words("walk"));
    expect(messages.map((m) => m.id)).toEqual([id]);
    expect(messages[0]).toMatchObject({
      match_content:
        '<p>I <span class="highlight">walked</span> to the market, <span class="highlight">walking</span> fast</p>',
      match_subject: "errands",
    });
    expect(await found(bob, words("WALKS"))).toEqual([id]);
  });

  it("ignores stop words: alone they match nothing, beside other words they are dropped", async () => {
    const id = await post(alice, "notes", "the kettle is on");
    expect(await found(bob, words("the kettle"))).toEqual([id]);
    expect((await search(bob, words("the kettle"))).messages[0]!.match_content).toBe(
      '<p>the <span class="highlight">kettle</span> is on</p>',
    );
    expect(await found(bob, words("the is"))).toEqual([]);
    // register's stop_words are the words left out
    const { stop_words } = (await org.call(
      notifications.registerQueue,
      { fetch_event_types: ["stop_words"] },
      bob,
    )) as {
      stop_words?: string[];
    };
    expect(stop_words).toEqual(expect.arrayContaining(["the", "is", "after"]));
    expect(stop_words).not.toContain("kettle");
  });

  it("needs every word, in the topic or the content, and marks the topic's matches in match_subject", async () => {
    const lunch = await post(alice, "lunch plans", "I am hungry!");
    const meeting = await post(alice, "meetings", "discuss lunch after lunch");
    await post(alice, "meetings", "bring laptops");
    const { messages } = await search(bob, words("lunch"));
    expect(messages.map((m) => [m.id, m.match_subject, m.match_content])).toEqual([
      [lunch, '<span class="highlight">lunch</span> plans', "<p>I am hungry!</p>"],
      [
        meeting,
        "meetings",
        '<p>discuss <span class="highlight">lunch</span> after <span class="highlight">lunch</span></p>',
      ],
    ]);
    expect(await found(bob, words("lunch hungry"))).toEqual([lunch]);
    // several search operands are one search, as Zulip joins them
    const both = await search(bob, [...words("discuss"), ...words("lunches")]);
    expect(both.messages.map((m) => [m.id, m.match_content])).toEqual([
      [
        meeting,
        '<p><span class="highlight">discuss</span> <span class="highlight">lunch</span> after <span class="highlight">lunch</span></p>',
      ],
    ]);
    // ...in which an operand of stop words only ("after") drops out, as it would within one operand
    expect(await found(bob, [...words("discuss"), ...words("after")])).toEqual([meeting]);
  });

  it("a quoted phrase must appear as written; its words are still matched by stem", async () => {
    const phrase = await post(alice, "shop", "the bakery opens at nine");
    await post(alice, "shop", "nine bakery staff: opens tomorrow");
    expect(await found(bob, words('"bakery opens"'))).toEqual([phrase]);
    expect((await search(bob, words('"bakery opens" nine'))).messages.map((m) => m.match_content)).toEqual([
      '<p>the <span class="highlight">bakery</span> <span class="highlight">opens</span> at <span class="highlight">nine</span></p>',
    ]);
    expect(await found(bob, words('"opens the bakery"'))).toEqual([]);
  });

  it("marks matches in text only, never inside a tag, and escapes the topic as Zulip does", async () => {
    const id = await post(alice, "links & <tags>", "see [tags here](https://example.org/tags) now");
    const [m] = (await search(bob, words("tags"))).messages;
    expect(m!.id).toBe(id);
    expect(m!.match_subject).toBe('links &amp; &lt;<span class="highlight">tags</span>&gt;');
    // the link's href holds the word too; only the text is marked
    expect(m!.match_content).not.toMatch(/href="[^"]*highlight/);
    expect(m!.match_content).toContain('><span class="highlight">tags</span> here</a>');
  });

  it("a negated search leaves out the matches", async () => {
    const kept = await post(alice, "negation", "gooseberry jam");
    await post(alice, "negation", "gooseberry pie");
    expect(
      await found(bob, [
        { operator: "topic", operand: "negation" },
        { operator: "search", operand: "pie", negated: true },
      ]),
    ).toEqual([kept]);
  });

  it("pages through the matches newest first, older pages from an anchor", async () => {
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push(await post(alice, "pages", `pelican number ${i}`));
    const newest = await search(bob, words("pelican"), { num_before: 2 });
    expect(newest.messages.map((m) => m.id)).toEqual(ids.slice(3));
    expect(newest).toMatchObject({ found_newest: true, found_oldest: false });
    const older = await search(bob, words("pelican"), { anchor: ids[3]!, num_before: 5, include_anchor: false });
    expect(older.messages.map((m) => m.id)).toEqual(ids.slice(0, 3));
    expect(older.found_oldest).toBe(true);
    // the anchor itself only when it matches
    const other = await post(alice, "pages", "no bird here");
    const around = await search(bob, words("pelican"), { anchor: other, num_before: 1, num_after: 1 });
    expect(around.messages.map((m) => m.id)).toEqual([ids[4]]);
    expect(around.found_anchor).toBe(false);
  });
});

describe("search: only what the searcher may read", () => {
  it("private channels: a non-subscriber finds nothing and cannot name the channel", async () => {
    await createChannel(org, alice, "vault", [alice.userId], { invite_only: true });
    const id = await post(alice, "t", "narwhal secrets", "vault");
    expect(await found(alice, words("narwhal"))).toEqual([id]);
    expect(await found(bob, words("narwhal"))).toEqual([]);
    await expectZulipError(search(bob, [{ operator: "channel", operand: "vault" }, ...words("narwhal")]), {
      ...badRequestError("Invalid narrow operator: unknown channel vault", "BAD_NARROW"),
      desc: "unknown channel vault",
    });
  });

  it("a private channel with protected history: a later subscriber finds only what they received", async () => {
    await createChannel(org, alice, "protected", [alice.userId], {
      invite_only: true,
      history_public_to_subscribers: false,
    });
    await post(alice, "t", "armadillo before", "protected");
    await org.call(messaging.subscribe, { subscriptions: [{ name: "protected" }], principals: [carol.userId] }, alice);
    const after = await post(alice, "t", "armadillo after", "protected");
    expect(await found(carol, [{ operator: "channel", operand: "protected" }, ...words("armadillo")])).toEqual([after]);
    expect(await found(carol, words("armadillo"))).toEqual([after]);
  });

  it("a channel with shared history: a subscriber finds its whole history in the channel", async () => {
    await createChannel(org, alice, "shared", [alice.userId], {
      invite_only: true,
      history_public_to_subscribers: true,
    });
    const before = await post(alice, "t", "capybara before", "shared");
    await org.call(messaging.subscribe, { subscriptions: [{ name: "shared" }], principals: [carol.userId] }, alice);
    const after = await post(alice, "t", "capybara after", "shared");
    expect(await found(carol, [{ operator: "channel", operand: "shared" }, ...words("capybara")])).toEqual([
      before,
      after,
    ]);
    // without the channel, a search covers the searcher's own history, as Zulip's does
    expect(await found(carol, words("capybara"))).toEqual([after]);
  });

  it("a public channel's history is searchable in the channel by a non-subscriber; direct messages only by their participants", async () => {
    await createChannel(org, alice, "town-square", [alice.userId]);
    const open = await post(alice, "t", "flamingo parade", "town-square");
    expect(await found(carol, [{ operator: "channel", operand: "town-square" }, ...words("flamingo")])).toEqual([open]);
    expect(await found(carol, words("flamingo"))).toEqual([]);
    const dm = await send(alice, { type: "private", to: [bob.userId], content: "flamingo gossip" });
    expect(await found(bob, words("flamingo"))).toEqual([dm]);
    expect(await found(carol, words("flamingo"))).toEqual([]);
  });
});

describe("search: the index follows every change", () => {
  it("an edit of the content or the topic, a move and a delete", async () => {
    const id = await post(alice, "zoo", "a quokka smiles");
    expect(await found(bob, words("quokka"))).toEqual([id]);

    await org.call(messaging.updateMessage, { message_id: id, content: "a wombat smiles" }, alice);
    expect(await found(bob, words("quokka"))).toEqual([]);
    const [edited] = (await search(bob, words("wombat"))).messages;
    expect([edited!.id, edited!.match_content]).toEqual([id, '<p>a <span class="highlight">wombat</span> smiles</p>']);

    await org.call(
      messaging.updateMessage,
      { message_id: id, topic: "marsupials", send_notification_to_new_thread: false },
      alice,
    );
    expect(await found(bob, words("marsupial"))).toEqual([id]);
    expect(await found(bob, words("zoo"))).toEqual([]);

    // a move to a channel Bob is not in takes the message out of his results
    const burrow = await createChannel(org, alice, "burrow", [alice.userId], { invite_only: true });
    await org.call(messaging.updateMessage, { message_id: id, stream_id: burrow }, alice);
    expect(await found(bob, words("wombat"))).toEqual([]);
    expect(await found(alice, [{ operator: "channel", operand: "burrow" }, ...words("wombat")])).toEqual([id]);

    await org.call(messaging.deleteMessage, { message_id: id }, alice);
    expect(await found(alice, words("wombat"))).toEqual([]);
  });
});

describe("GET /messages/matches_narrow with a search", () => {
  it("answers with the matches marked, as GET /messages does", async () => {
    const hit = await post(alice, "reports", "KEYWORDMATCH and should work");
    const miss = await post(alice, "reports", "no match");
    const { messages } = await org.call(
      messaging.matchesNarrow,
      { msg_ids: [hit, miss], narrow: words("keywordmatch") },
      bob,
    );
    expect(messages).toEqual({
      [hit]: {
        match_content: '<p><span class="highlight">KEYWORDMATCH</span> and should work</p>',
        match_subject: "reports",
      },
    });
  });
});
