/** Route precedence is declared on the contracts, not taken from the order they are listed in. */
import { allContracts, defineContract, identity } from "@teamchat/shared";
import { z } from "zod";
import { groupRoutes } from "../src/routes/api";

const usersRoute = (contracts = allContracts) =>
  groupRoutes(contracts).find((g) => g.method === "GET" && g.url === "/api/v1/users/:p0")!;

it("tries /users/{user_id} before /users/{email}, whatever order the contracts come in", () => {
  const forward = usersRoute().routes.map((r) => r.contract.subject);
  const reversed = usersRoute([...allContracts].reverse()).routes.map((r) => r.contract.subject);
  expect(forward).toEqual([identity.getUser.subject, identity.getUserByEmail.subject]);
  expect(reversed).toEqual(forward);
});

it("refuses two contracts that share a path without distinct precedences", () => {
  const twin = defineContract({
    subject: "identity.users.get_twin",
    http: { method: "GET", path: "/users/{name}", auth: "user" },
    params: z.object({ name: z.string() }),
    reply: z.object({}),
  });
  expect(() => groupRoutes([identity.getUser, twin])).toThrow(
    "GET /api/v1/users/:p0 is shared by identity.users.get (0), identity.users.get_twin (none): give each a distinct http.precedence",
  );
});
