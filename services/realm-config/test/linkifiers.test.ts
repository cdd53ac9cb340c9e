/**
 * Linkifiers (Zulip's realm_linkifiers.py) and code playgrounds (realm_playgrounds.py)
 * through HTTP: replies, state after each call, each error (and that it
 * changed nothing), the permission matrix, register keys and events, and the
 * linkifiers applied when messaging renders (send, edit, POST /messages/render).
 */
import { Role, messaging, realmConfig } from "@teamchat/shared";
import type { Credentials } from "@teamchat/shared/src/testing/api";
import { badRequestError, expectZulipError, type ExpectedZulipError } from "../../../test/support/call";
import { EventReader } from "../../../test/support/events";
import { testOrganization, type TestOrganization } from "../../../test/support/organization";
import { registerKeyProblems, usersOfEveryRole, type RoleUser } from "./helpers";

let org: TestOrganization;
let roles: RoleUser[];
let channel: number;
beforeAll(async () => {
  org = await testOrganization();
  roles = await usersOfEveryRole(org);
  channel = (await org.call(messaging.createChannel, { name: "tickets", subscribers: [org.owner.userId] }, org.owner))
    .id;
});
afterAll(() => org?.stop());

const SUCCESS = { result: "success", msg: "" };
const TRAC = { pattern: "#(?P<id>[0-9]+)", url_template: "https://trac.example.com/ticket/{id}" };

const add = (params: { pattern: string; url_template: string }, user: Credentials = org.owner) =>
  org.call(realmConfig.createLinkifier, params, user);
const update = (filter_id: number, params: { pattern: string; url_template: string }, user: Credentials = org.owner) =>
  org.call(realmConfig.updateLinkifier, { filter_id, ...params }, user);
const remove = (filter_id: number, user: Credentials = org.owner) =>
  org.call(realmConfig.deleteLinkifier, { filter_id }, user);
const reorder = (ordered_linkifier_ids: number[], user: Credentials = org.owner) =>
  org.call(realmConfig.reorderLinkifiers, { ordered_linkifier_ids }, user);
const linkifiers = async (user: Credentials = org.owner) =>
  (await org.call(realmConfig.listLinkifiers, {}, user)).linkifiers;
const render = async (content: string) => (await org.call(messaging.renderMessage, { content }, org.owner)).rendered;

/** Deletes every linkifier, so each test starts from none. */
async function removeAll(): Promise<void> {
  for (const { id } of await linkifiers()) await remove(id);
}

/** A validation refusal: Zulip's ValidationFailureError, the first message and all of them by field. */
const validationError = (msg: string, errors: Record<string, string[]>) => ({ ...badRequestError(msg), errors });
const mustBeAdmin = badRequestError("Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");

describe("linkifiers", () => {
  beforeEach(removeAll);

  it("POST /realm/filters adds one last, stripped; GET /realm/linkifiers and the legacy GET /realm/filters list them", async () => {
    const first = await add({ pattern: "  #(?P<id>[0-9]+) ", url_template: " https://trac.example.com/ticket/{id}\n" });
    expect(first).toEqual({ ...SUCCESS, id: expect.any(Number) });
    const second = await add({ pattern: "PR (?P<n>[0-9]+)", url_template: "https://github.com/zulip/zulip/pull/{n}" });
    const expected = [
      { pattern: "#(?P<id>[0-9]+)", url_template: "https://trac.example.com/ticket/{id}", id: first.id },
      { pattern: "PR (?P<n>[0-9]+)", url_template: "https://github.com/zulip/zulip/pull/{n}", id: second.id },
    ];
    expect(await linkifiers()).toEqual(expected);
    // any user reads them, guests too
    for (const { user } of roles) expect(await linkifiers(user)).toEqual(expected);
    const legacy = await org.api(roles[4]!.user).get("/realm/filters");
    expect(legacy.status).toBe(200);
    expect(legacy.body).toEqual({ ...SUCCESS, filters: expected.map((l) => [l.pattern, l.url_template, l.id]) });
  });

  it("refuses patterns and templates as Zulip's RealmFilter.clean does, changing nothing", async () => {
    const { id } = await add(TRAC);
    const cases: Array<[{ pattern: string; url_template: string }, ExpectedZulipError]> = [
      [
        { pattern: "#(?P<id>[0-9]+", url_template: TRAC.url_template },
        validationError("Bad regular expression: missing ): #(?P<id>[0-9]+", {
          __all__: ["Bad regular expression: missing ): #(?P<id>[0-9]+"],
        }),
      ],
      [
        { pattern: "(?P<id>a)(?=b)", url_template: TRAC.url_template },
        validationError("Bad regular expression: invalid perl operator: (?=", {
          __all__: ["Bad regular expression: invalid perl operator: (?="],
        }),
      ],
      [
        { pattern: "T(?P<id>[0-9]+)", url_template: "https://trac.example.com/{id" },
        validationError("Invalid URL template.", { url_template: ["Invalid URL template."] }),
      ],
      [
        { pattern: "T(?P<id>[0-9]+)", url_template: "https://trac.example.com/{id}/{other}" },
        validationError("Group 'other' in URL template is not present in linkifier pattern.", {
          __all__: ["Group 'other' in URL template is not present in linkifier pattern."],
        }),
      ],
      [
        { pattern: "#(?P<id>[0-9]+)-(?P<b>x)", url_template: "https://trac.example.com/{id}" },
        validationError("Group 'b' in linkifier pattern is not present in URL template.", {
          __all__: ["Group 'b' in linkifier pattern is not present in URL template."],
        }),
      ],
      [
        { pattern: "  ", url_template: "https://example.com" },
        validationError("This field cannot be blank.", { pattern: ["This field cannot be blank."] }),
      ],
      [
        { pattern: "abc", url_template: "" },
        validationError("This field cannot be blank.", { url_template: ["This field cannot be blank."] }),
      ],
      [
        TRAC,
        validationError("Realm filter with this Realm and Pattern already exists.", {
          __all__: ["Realm filter with this Realm and Pattern already exists."],
        }),
      ],
    ];
    for (const [params, error] of cases) await expectZulipError(add(params), error);
    expect(await linkifiers()).toEqual([{ ...TRAC, id }]);
    await expectZulipError(org.api(org.owner).post("/realm/filters", { pattern: "x" }), {
      status: 400,
      code: "REQUEST_VARIABLE_MISSING",
      msg: "Missing 'url_template' argument",
      var_name: "url_template",
    });
  });

  it("PATCH /realm/filters/{id} replaces pattern and template; unknown ids and invalid values are refused", async () => {
    const { id } = await add(TRAC);
    const other = await add({ pattern: "bug(?P<n>[0-9]+)", url_template: "https://bugs.example.com/{n}" });
    expect(await update(id, { pattern: "T-(?P<t>[0-9]+)", url_template: "https://t.example.com/{t}" })).toEqual(
      SUCCESS,
    );
    const after = [
      { pattern: "T-(?P<t>[0-9]+)", url_template: "https://t.example.com/{t}", id },
      { pattern: "bug(?P<n>[0-9]+)", url_template: "https://bugs.example.com/{n}", id: other.id },
    ];
    expect(await linkifiers()).toEqual(after);
    await expectZulipError(update(other.id + 1000, TRAC), {
      status: 400,
      code: "BAD_REQUEST",
      msg: "Linkifier not found.",
    });
    await expectZulipError(
      update(id, { pattern: "bug(?P<n>[0-9]+)", url_template: "https://bugs.example.com/{n}" }),
      validationError("Realm filter with this Realm and Pattern already exists.", {
        __all__: ["Realm filter with this Realm and Pattern already exists."],
      }),
    );
    await expectZulipError(
      update(id, { pattern: "T-(?P<t>[0-9]+)", url_template: "https://t.example.com/{u}" }),
      validationError("Group 'u' in URL template is not present in linkifier pattern.", {
        __all__: ["Group 'u' in URL template is not present in linkifier pattern."],
      }),
    );
    // keeping its own pattern is no conflict
    expect(await update(id, { pattern: "T-(?P<t>[0-9]+)", url_template: "https://t2.example.com/{t}" })).toEqual(
      SUCCESS,
    );
    expect((await linkifiers())[0]).toEqual({ ...after[0], url_template: "https://t2.example.com/{t}" });
  });

  it("DELETE /realm/filters/{id} removes it; an unknown one is 'Linkifier not found.'", async () => {
    const { id } = await add(TRAC);
    expect(await remove(id)).toEqual(SUCCESS);
    expect(await linkifiers()).toEqual([]);
    await expectZulipError(remove(id), { status: 400, code: "BAD_REQUEST", msg: "Linkifier not found." });
  });

  it("PATCH /realm/linkifiers reorders; the list must name every linkifier exactly once", async () => {
    expect(await reorder([])).toEqual(SUCCESS);
    const ids = [];
    for (const n of [1, 2, 3])
      ids.push((await add({ pattern: `L${n}-(?P<x>[0-9])`, url_template: `https://${n}.example.com/{x}` })).id);
    expect(await reorder([ids[2]!, ids[0]!, ids[1]!])).toEqual(SUCCESS);
    expect((await linkifiers()).map((l) => l.id)).toEqual([ids[2], ids[0], ids[1]]);
    // a new one goes last
    const last = await add({ pattern: "L4", url_template: "https://4.example.com" });
    expect((await linkifiers()).map((l) => l.id)).toEqual([ids[2], ids[0], ids[1], last.id]);
    const unchanged = await linkifiers();
    await expectZulipError(reorder([ids[0]!, ids[0]!, ids[1]!, ids[2]!, last.id]), {
      status: 400,
      code: "BAD_REQUEST",
      msg: "The ordered list must not contain duplicated linkifiers",
    });
    for (const wrong of [
      [ids[0]!, ids[1]!, ids[2]!],
      [...ids, last.id, last.id + 1000],
    ]) {
      await expectZulipError(reorder(wrong), {
        status: 400,
        code: "BAD_REQUEST",
        msg: "The ordered list must enumerate all existing linkifiers exactly once",
      });
    }
    expect(await linkifiers()).toEqual(unchanged);
  });

  it("administrators only: others get UNAUTHORIZED_PRINCIPAL and nothing changes", async () => {
    const { id } = await add(TRAC);
    for (const { label, role, user } of roles) {
      const pattern = `${label}-(?P<x>[0-9])`;
      const url_template = "https://x.example.com/{x}";
      if (role <= Role.ADMINISTRATOR) {
        const mine = await add({ pattern, url_template }, user);
        expect(await update(mine.id, { pattern, url_template: "https://y.example.com/{x}" }, user)).toEqual(SUCCESS);
        expect(await reorder((await linkifiers()).map((l) => l.id).reverse(), user)).toEqual(SUCCESS);
        expect(await remove(mine.id, user)).toEqual(SUCCESS);
      } else {
        await expectZulipError(add({ pattern, url_template }, user), mustBeAdmin);
        await expectZulipError(update(id, { pattern, url_template }, user), mustBeAdmin);
        await expectZulipError(reorder([id], user), mustBeAdmin);
        await expectZulipError(remove(id, user), mustBeAdmin);
      }
    }
    expect(await linkifiers()).toEqual([{ ...TRAC, id }]);
  });

  it("register: realm_linkifiers for clients with linkifier_url_template, empty otherwise; realm_filters always empty", async () => {
    const { id } = await add(TRAC);
    const member = roles[3]!.user;
    const withCapability = await org.api(member).post("/register", {
      fetch_event_types: ["realm_linkifiers", "realm_filters"],
      client_capabilities: { linkifier_url_template: true },
    });
    expect(withCapability.body).toMatchObject({ realm_linkifiers: [{ ...TRAC, id }], realm_filters: [] });
    const without = await org
      .api(member)
      .post("/register", { fetch_event_types: ["realm_linkifiers", "realm_filters"] });
    expect(without.body).toMatchObject({ realm_linkifiers: [], realm_filters: [] });
    const state = withCapability.body as Record<string, unknown>;
    expect(
      registerKeyProblems({ realm_linkifiers: state.realm_linkifiers, realm_filters: state.realm_filters }),
    ).toEqual([]);
  });

  it("every change sends everyone the whole list in a realm_linkifiers event, only to queues with linkifier_url_template", async () => {
    const queues = await Promise.all(
      roles.map(({ user }) =>
        EventReader.register(org.api(user), {
          event_types: ["realm_linkifiers"],
          client_capabilities: { linkifier_url_template: true },
        }),
      ),
    );
    const legacyQueue = await EventReader.register(org.api(roles[3]!.user), {
      event_types: ["realm_linkifiers", "realm_playgrounds"],
    });
    const { id } = await add(TRAC);
    const second = await add({ pattern: "PR(?P<n>[0-9]+)", url_template: "https://pr.example.com/{n}" });
    await update(id, { pattern: TRAC.pattern, url_template: "https://trac2.example.com/{id}" });
    await reorder([second.id, id]);
    await remove(second.id);
    const one = { ...TRAC, id };
    const two = { pattern: "PR(?P<n>[0-9]+)", url_template: "https://pr.example.com/{n}", id: second.id };
    const moved = { ...one, url_template: "https://trac2.example.com/{id}" };
    const lists = [[one], [one, two], [moved, two], [two, moved], [moved]];
    for (const queue of queues) {
      expect(await queue.until((es) => es.length === lists.length)).toEqual(
        lists.map((realm_linkifiers) => ({ id: expect.any(Number), type: "realm_linkifiers", realm_linkifiers })),
      );
    }
    // the queue without the capability gets the playground event that follows, and no linkifier event
    const playground = await org.call(
      realmConfig.createPlayground,
      { name: "Marker", pygments_language: "Marker", url_template: "https://m.example.com/?c={code}" },
      org.owner,
    );
    expect((await legacyQueue.until((es) => es.length > 0)).map((e) => e.type)).toEqual(["realm_playgrounds"]);
    await org.call(realmConfig.deletePlayground, { playground_id: playground.id }, org.owner);
  });
});

describe("linkifiers in rendered messages", () => {
  beforeEach(removeAll);

  it("send, fetch, edit and POST /messages/render apply the organization's linkifiers, in their order", async () => {
    const { id } = await add(TRAC);
    expect(await render("Fix #224 and issue#1, not `#3`")).toBe(
      '<p>Fix <a href="https://trac.example.com/ticket/224">#224</a> and issue#1, not <code>#3</code></p>',
    );
    const sent = await org.call(
      messaging.sendMessage,
      { type: "stream", to: channel, topic: "bugs", content: "see #42" },
      org.owner,
    );
    const fetched = await org.call(messaging.getMessage, { message_id: sent.id }, org.owner);
    expect(fetched.message.content).toBe('<p>see <a href="https://trac.example.com/ticket/42">#42</a></p>');
    expect(fetched.raw_content).toBe("see #42");
    expect(fetched.message.topic_links).toEqual([]);
    const inTopic = await org.call(
      messaging.sendMessage,
      { type: "stream", to: channel, topic: "#9 crash, see https://example.com/log", content: "x" },
      org.owner,
    );
    expect((await org.call(messaging.getMessage, { message_id: inTopic.id }, org.owner)).message.topic_links).toEqual([
      { url: "https://trac.example.com/ticket/9", text: "#9" },
      { url: "https://example.com/log", text: "https://example.com/log" },
    ]);

    // a change applies to the next render at once (messaging's copy is dropped on the event)
    await update(id, { pattern: TRAC.pattern, url_template: "https://new.example.com/{id}" });
    await org.call(messaging.updateMessage, { message_id: sent.id, content: "now #43" }, org.owner);
    expect((await org.call(messaging.getMessage, { message_id: sent.id }, org.owner)).message.content).toBe(
      '<p>now <a href="https://new.example.com/43">#43</a></p>',
    );

    // the first linkifier in order wins where two match the same text
    const broad = await add({ pattern: "#(?P<n>[0-9]{2})", url_template: "https://broad.example.com/{n}" });
    expect(await render("#12")).toBe('<p><a href="https://new.example.com/12">#12</a></p>');
    await reorder([broad.id, id]);
    expect(await render("#12")).toBe('<p><a href="https://broad.example.com/12">#12</a></p>');

    await removeAll();
    expect(await render("#12")).toBe("<p>#12</p>");
  });
});

describe("code playgrounds", () => {
  const create = (
    params: { name: string; pygments_language: string; url_template: string },
    user: Credentials = org.owner,
  ) => org.call(realmConfig.createPlayground, params, user);
  const playgrounds = async () =>
    (
      (await org.api(org.owner).post("/register", { fetch_event_types: ["realm_playgrounds"] })).body as {
        realm_playgrounds: unknown[];
      }
    ).realm_playgrounds;
  const PYTHON = {
    name: "Python playground",
    pygments_language: "Python",
    url_template: "https://py.example.com/?c={code}",
  };

  it("POST /realm/playgrounds adds one (stripped), DELETE removes it; register and events carry the whole list", async () => {
    const queue = await EventReader.register(org.api(roles[4]!.user), { event_types: ["realm_playgrounds"] });
    const { id, ...rest } = await create({ ...PYTHON, name: " Python playground " });
    expect(rest).toEqual(SUCCESS);
    const saved = { id, ...PYTHON };
    expect(await playgrounds()).toEqual([saved]);
    expect(registerKeyProblems({ realm_playgrounds: [saved] })).toEqual([]);
    expect(await org.call(realmConfig.deletePlayground, { playground_id: id }, org.owner)).toEqual(SUCCESS);
    expect(await playgrounds()).toEqual([]);
    expect(await queue.until((es) => es.length === 2)).toEqual([
      { id: expect.any(Number), type: "realm_playgrounds", realm_playgrounds: [saved] },
      { id: expect.any(Number), type: "realm_playgrounds", realm_playgrounds: [] },
    ]);
    await expectZulipError(org.call(realmConfig.deletePlayground, { playground_id: id }, org.owner), {
      status: 400,
      code: "BAD_REQUEST",
      msg: "Invalid playground",
    });
  });

  it("refuses what Zulip's RealmPlayground.full_clean and check_pygments_language refuse, changing nothing", async () => {
    const { id } = await create(PYTHON);
    const plain = badRequestError;
    const cases: Array<[Partial<typeof PYTHON>, ExpectedZulipError]> = [
      [{ pygments_language: "P".repeat(41) }, plain("pygments_language is too long (limit: 40 characters)")],
      [{ pygments_language: "Py<thon>" }, plain("Invalid characters in pygments language")],
      [
        { url_template: "https://py.example.com/?c={code" },
        validationError("Invalid URL template.", { url_template: ["Invalid URL template."] }),
      ],
      [
        { url_template: "https://py.example.com/?c={src}" },
        validationError('Missing the required variable "code" in the URL template', {
          __all__: ['Missing the required variable "code" in the URL template'],
        }),
      ],
      [
        { url_template: "https://py.example.com/{lang}?c={code}" },
        validationError('"code" should be the only variable present in the URL template', {
          __all__: ['"code" should be the only variable present in the URL template'],
        }),
      ],
      [{ name: " " }, validationError("This field cannot be blank.", { name: ["This field cannot be blank."] })],
      [
        { name: PYTHON.name },
        validationError("Realm playground with this Realm, Pygments language and Name already exists.", {
          __all__: ["Realm playground with this Realm, Pygments language and Name already exists."],
        }),
      ],
    ];
    // another name, so that only the duplicate case is one
    for (const [change, error] of cases) {
      await expectZulipError(create({ ...PYTHON, name: "Other", ...change }), error);
    }
    expect(await playgrounds()).toEqual([{ id, ...PYTHON }]);
    await org.call(realmConfig.deletePlayground, { playground_id: id }, org.owner);
  });

  it("administrators only: others get UNAUTHORIZED_PRINCIPAL and nothing changes", async () => {
    const { id } = await create(PYTHON);
    for (const { label, role, user } of roles) {
      const params = { ...PYTHON, name: `By ${label}` };
      if (role <= Role.ADMINISTRATOR) {
        const mine = await create(params, user);
        expect(await org.call(realmConfig.deletePlayground, { playground_id: mine.id }, user)).toEqual(SUCCESS);
      } else {
        await expectZulipError(create(params, user), mustBeAdmin);
        await expectZulipError(org.call(realmConfig.deletePlayground, { playground_id: id }, user), mustBeAdmin);
      }
    }
    expect(await playgrounds()).toEqual([{ id, ...PYTHON }]);
    await org.call(realmConfig.deletePlayground, { playground_id: id }, org.owner);
  });
});
