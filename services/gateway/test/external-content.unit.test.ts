/** The image proxy without a system: its address check, URL signing, name resolution and time limit. */
import Fastify, { type FastifyInstance } from "fastify";
import { lookup } from "node:dns/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { hostname } from "node:os";
import { camoPath, registerExternalContent } from "../src/external-content";
import { ReachableAddresses } from "@teamchat/shared";

describe("ReachableAddresses", () => {
  const publicOnly = new ReachableAddresses("");

  it.each(["8.8.8.8", "93.184.216.34", "2001:4860:4860::8888", "::ffff:8.8.8.8"])("lets %s through", (address) => {
    expect(publicOnly.reachable(address)).toBe(true);
  });

  it.each([
    ["loopback", "127.0.0.1"],
    ["loopback, elsewhere in 127/8", "127.0.0.2"],
    ["private", "10.1.2.3"],
    ["private", "172.16.0.1"],
    ["private", "192.168.1.1"],
    ["link-local (cloud metadata)", "169.254.169.254"],
    ["carrier-grade NAT", "100.64.0.1"],
    ["unspecified", "0.0.0.0"],
    ["multicast", "224.0.0.1"],
    ["broadcast", "255.255.255.255"],
    ["reserved", "240.0.0.1"],
    ["IPv6 loopback", "::1"],
    ["IPv6 unspecified", "::"],
    ["IPv6 link-local", "fe80::1"],
    ["IPv6 unique-local", "fd00::1"],
    ["IPv6 multicast", "ff02::1"],
    ["IPv4-mapped loopback", "::ffff:127.0.0.1"],
    ["IPv4-mapped private", "::ffff:10.0.0.1"],
    ["NAT64 of loopback", "64:ff9b::7f00:1"],
    ["6to4", "2002:7f00:1::"],
    ["not an address", "example.com"],
  ])("refuses %s (%s)", (_kind, address) => {
    expect(publicOnly.reachable(address)).toBe(false);
  });

  it("lets through the private addresses and ranges it is given, and no others", () => {
    const allowing = new ReachableAddresses(" 127.0.0.1 , 10.0.0.0/8,fd00::/8");
    expect(allowing.reachable("127.0.0.1")).toBe(true);
    expect(allowing.reachable("::ffff:127.0.0.1")).toBe(true);
    expect(allowing.reachable("10.200.0.1")).toBe(true);
    expect(allowing.reachable("fd12::1")).toBe(true);
    expect(allowing.reachable("127.0.0.2")).toBe(false);
    expect(allowing.reachable("192.168.0.1")).toBe(false);
    expect(allowing.reachable("::1")).toBe(false);
  });

  it("refuses a setting entry that is neither an address nor a range", () => {
    expect(() => new ReachableAddresses("127.0.0.1,localhost")).toThrow(
      'CAMO_ALLOWED_PRIVATE_ADDRESSES: "localhost" is neither an IP address nor a CIDR range',
    );
  });
});

it("signs a URL as Zulip's generate_camo_url does: HMAC-SHA1 hex digest, then the URL in hex", () => {
  // hmac.new(b"k", b"https://example.com/cat.png", hashlib.sha1).hexdigest() in Python
  expect(camoPath("k", "https://example.com/cat.png")).toBe(
    "/external_content/5d35b9cc59934f212bcfba72d062a86cb16383dc/68747470733a2f2f6578616d706c652e636f6d2f6361742e706e67",
  );
});

describe("the time limit (go-camo's timeout)", () => {
  let proxy: FastifyInstance;
  let slowHost: Server;
  let slowBase: string;
  beforeAll(async () => {
    proxy = Fastify();
    registerExternalContent(proxy, {
      key: "k",
      maxBytes: 1024,
      timeoutMs: 300,
      addresses: new ReachableAddresses("127.0.0.1"),
    });
    // answers nothing, or the start of an image and then nothing
    slowHost = createServer((req, res) => {
      if (req.url === "/stalls-midway.png") res.writeHead(200, { "content-type": "image/png" }).write("partial");
    });
    await new Promise<void>((resolve) => slowHost.listen(0, "127.0.0.1", resolve));
    slowBase = `http://127.0.0.1:${(slowHost.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    slowHost.closeAllConnections();
    await new Promise((resolve) => slowHost.close(resolve));
    await proxy.close();
  });

  it("a host that does not answer in time: 504", async () => {
    const res = await proxy.inject({ method: "GET", url: camoPath("k", `${slowBase}/never.png`) });
    expect({ status: res.statusCode, body: res.body }).toEqual({ status: 504, body: "Error Fetching Resource\n" });
  });

  it("a body that stops coming: the answer is cut off at the time limit", async () => {
    const url = await proxy.listen({ port: 0, host: "127.0.0.1" });
    const started = Date.now();
    const res = await fetch(`${url}${camoPath("k", `${slowBase}/stalls-midway.png`)}`);
    expect(res.status).toBe(200);
    await expect(res.arrayBuffer()).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

it("a host name: resolved and checked by the proxy, connected to at the address checked, with its name as Host", async () => {
  // this machine's own name resolves to one of its addresses (loopback or private) on any machine
  const name = hostname();
  const addresses = (await lookup(name, { all: true })).map((found) => found.address);
  const host = createServer((req, res) => res.writeHead(200, { "content-type": "image/png" }).end(req.headers.host));
  await new Promise<void>((resolve) => host.listen(0, addresses[0], resolve));
  const url = `http://${name}:${(host.address() as AddressInfo).port}/x.png`;
  const answers: Array<[number, string]> = [];
  for (const allowed of [addresses.join(","), ""]) {
    const proxy = Fastify();
    registerExternalContent(proxy, {
      key: "k",
      maxBytes: 1024,
      timeoutMs: 2_000,
      addresses: new ReachableAddresses(allowed),
    });
    const res = await proxy.inject({ method: "GET", url: camoPath("k", url) });
    answers.push([res.statusCode, res.body]);
    await proxy.close();
  }
  host.close();
  expect(answers).toEqual([
    [200, new URL(url).host],
    [404, "Error Fetching Resource\n"],
  ]);
});
