import { z } from "zod";

/** Zulip's organization roles (UserProfile.ROLE_*). */
export const Role = { OWNER: 100, ADMINISTRATOR: 200, MODERATOR: 300, MEMBER: 400, GUEST: 600 } as const;
export const roleSchema = z.union([z.literal(100), z.literal(200), z.literal(300), z.literal(400), z.literal(600)]);
export type RoleValue = z.infer<typeof roleSchema>;

/** The organization a request is for, resolved by the gateway from the Host header. */
export const realmRefSchema = z.object({
  id: z.number().int(),
  /** host clients use, e.g. `localhost:9991` or `acme.chat.example.com` */
  host: z.string(),
  /** base URL, e.g. `http://localhost:9991` */
  uri: z.string(),
  name: z.string(),
});
export type RealmRef = z.infer<typeof realmRefSchema>;

/** The authenticated user a request acts as. Set by the gateway after identity checked the key. */
export const actorSchema = z.object({
  userId: z.number().int(),
  realmId: z.number().int(),
  email: z.string(),
  deliveryEmail: z.string(),
  fullName: z.string(),
  role: roleSchema,
  isBot: z.boolean(),
});
export type Actor = z.infer<typeof actorSchema>;

export const isAdmin = (a: Pick<Actor, "role">): boolean => a.role <= Role.ADMINISTRATOR;
export const isOwner = (a: Pick<Actor, "role">): boolean => a.role === Role.OWNER;
export const isGuest = (a: Pick<Actor, "role">): boolean => a.role === Role.GUEST;
