import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import {
  EventCache,
  RawJson,
  SharedPiece,
  identityEvents,
  subscribeEvent,
  type Actor,
  type EventSubscription,
  type RealmRef,
} from "@teamchat/shared";
import type { UserDirectory } from "./user-directory";
import type { UserDoc } from "./user.schema";
import { emailAccessKey, toUserResource, type UserViewOptions } from "./user-view";

/** Bytes of lists kept over all organizations; the least recently used go first beyond it. */
const MAX_CACHED_BYTES = 64 * 1024 * 1024;

/** The lists built for a viewer who is none of the users: every entry is as anyone of the class sees it. */
const NOBODY = 0;

interface Lists {
  /** `{"realm_users":[…],"realm_non_active_users":[…]}`: sent once to a caller that keeps it (the gateway) */
  piece: SharedPiece;
  /** where each user's entry is in the piece's bytes: [start, end) */
  entries: Map<number, [number, number]>;
}

const COMMA = Buffer.from(",");
const OPEN_BRACE = Buffer.from("{");
const CLOSE_BRACE = Buffer.from("}");

/**
 * register's realm_users and realm_non_active_users, serialized once per
 * organization and class of viewer instead of once per register: with a
 * thousand users, mapping and serializing every user for every register was
 * most of identity's work under many registers at once.
 *
 * What a viewer sees of other users depends only on which email visibility
 * settings their role may see (Zulip's format_user_row and
 * can_access_delivery_email: delivery_email, and avatar_url under
 * client_gravatar), and of themselves always everything. So the lists are
 * built for a viewer of the role's class who is none of the users, keyed by
 * (organization and its host, class, client_gravatar), and the caller's own
 * entry is spliced in as they see it. Each list is a SharedPiece: the gateway
 * keeps it and is sent only the spliced entry and where the list goes
 * (docs/adr/0059-shared-reply-pieces.md). They are dropped on the same
 * `usersChanged` events as UserDirectory's copy of the users they are built
 * from (see EventCache for why that keeps read-your-writes).
 */
export class RealmUserLists {
  private readonly cache: EventCache<Lists>;
  private readonly sub: EventSubscription;

  constructor(
    private readonly users: UserDirectory,
    nc: NatsConnection,
    log: Logger,
  ) {
    this.cache = new EventCache(nc, { name: "realm-user-lists", maxWeight: MAX_CACHED_BYTES, weigh: listsWeight });
    this.sub = subscribeEvent(nc, identityEvents.usersChanged, ({ realmId }) => this.cache.dropPrefix(`${realmId}:`), {
      log,
    });
  }

  stop(): void {
    this.sub.unsubscribe();
  }

  /** The two lists as `viewer` sees them (`me` is the viewer's own user), as one JSON object. */
  async get(
    realm: Pick<RealmRef, "id" | "host">,
    viewer: Pick<Actor, "userId" | "role">,
    me: UserDoc,
    opts: UserViewOptions,
  ): Promise<RawJson> {
    const { role } = viewer;
    const key = `${realm.id}:${realm.host}:${emailAccessKey(role)}:${opts.client_gravatar}:${opts.include_custom_profile_fields}`;
    const lists = await this.cache.get(key, async () =>
      build(await this.users.all(realm.id), { userId: NOBODY, role }, realm, opts),
    );
    const { piece, entries } = lists;
    // the braces apart, so that merging this object into the state keeps the slices whole
    const last = piece.bytes.length - 1;
    const at = entries.get(me.userId);
    const own = at && Buffer.from(JSON.stringify(toUserResource(me, viewer, realm, opts)));
    if (!at || own!.equals(piece.bytes.subarray(...at)))
      return new RawJson([OPEN_BRACE, piece.slice(1, last), CLOSE_BRACE]);
    // the shared list is not copied: the reply's bytes are put together as it is sent
    return new RawJson([OPEN_BRACE, piece.slice(1, at[0]), own!, piece.slice(at[1], last), CLOSE_BRACE]);
  }
}

/** The bytes JSON.stringify gives for the two lists, with where each entry lies. */
function build(
  all: UserDoc[],
  viewer: Pick<Actor, "userId" | "role">,
  realm: Pick<RealmRef, "host">,
  opts: UserViewOptions,
): Lists {
  const chunks: Buffer[] = [];
  const entries = new Map<number, [number, number]>();
  let length = 0;
  const push = (chunk: Buffer) => {
    chunks.push(chunk);
    length += chunk.length;
  };
  const list = (users: UserDoc[]) =>
    users.forEach((u, i) => {
      if (i > 0) push(COMMA);
      const entry = Buffer.from(JSON.stringify(toUserResource(u, viewer, realm, opts)));
      entries.set(u.userId, [length, length + entry.length]);
      push(entry);
    });
  push(Buffer.from('{"realm_users":['));
  list(all.filter((u) => u.isActive));
  push(Buffer.from('],"realm_non_active_users":['));
  list(all.filter((u) => !u.isActive));
  push(Buffer.from("]}"));
  return { piece: new SharedPiece(Buffer.concat(chunks, length)), entries };
}

/** The bytes, and roughly what the index of entries takes beside them. */
const listsWeight = (lists: Lists): number => lists.piece.bytes.length + 64 * lists.entries.size;
