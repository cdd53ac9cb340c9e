import { z } from "zod";
import { RawJson, type HandlerContext } from "../src/bus";
import { registerStateContract, statePart, type RegisterStateParams } from "../src/contracts/register";
import { provideState, registerStateHandler } from "../src/register-state";

const first = statePart(["a"], z.object({ list: z.array(z.number()), name: z.string() }));
const second = statePart(["b"], z.object({ count: z.number() }));
const contract = registerStateContract("identity", [first, second]);
const params: RegisterStateParams = {
  fetch_event_types: null,
  client_gravatar: false,
  include_subscribers: false,
  slim_presence: false,
  client_capabilities: {},
};
const ctx = { log: { debug: () => undefined } } as unknown as HandlerContext;
const answer = async (firstPart: () => Promise<{ list: number[]; name: string } | RawJson>) => {
  const handle = registerStateHandler(contract, [
    provideState(first, firstPart),
    provideState(second, async () => ({ count: 2 })),
  ]);
  return handle(params, ctx);
};

describe("registerStateHandler", () => {
  it("merges object parts into one object, in the contract's part order", async () => {
    const reply = await answer(async () => ({ list: [1], name: "é" }));
    expect(reply).not.toBeInstanceOf(RawJson);
    expect(JSON.stringify(reply)).toBe('{"list":[1],"name":"é","count":2}');
  });

  it("joins the parts as bytes when one comes serialized: the same JSON, the serialized part copied as it is", async () => {
    const reply = await answer(async () => new RawJson('{"list":[1],"name":"é"}'));
    expect(reply).toBeInstanceOf(RawJson);
    expect((reply as RawJson).json).toBe('{"list":[1],"name":"é","count":2}');
  });
});
