/**
 * Management CLI (like Zulip's manage.py), talking to a running system over NATS.
 *   npm run manage -- create-realm --name "Acme" --subdomain acme --owner-email boss@acme.test --owner-name "Boss" [--password pw]
 *   npm run manage -- import-realm PATH --subdomain acme [--name "Acme"]  (a Zulip export: .tar.gz or its directory)
 * NATS_URL selects the system; by default the one `npm start` runs (.data/runtime.json).
 */
import { connect } from "@nats-io/transport-node";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { REPO_ROOT } from "./lib/infra";
import { natsServers } from "@teamchat/shared";
import { createOrganization } from "./lib/organization";
import { importRealm } from "./lib/realm-import";

const USAGE = `usage: npm run manage -- create-realm --name NAME --owner-email EMAIL --owner-name NAME [--subdomain SUB] [--password PW]
       npm run manage -- import-realm PATH --subdomain SUB [--name NAME]`;

function natsUrl(): string {
  if (process.env.NATS_URL) return process.env.NATS_URL;
  const runtime = join(process.env.TEAMCHAT_DATA_DIR ?? join(REPO_ROOT, ".data"), "runtime.json");
  if (existsSync(runtime)) return (JSON.parse(readFileSync(runtime, "utf8")) as { natsUrl: string }).natsUrl;
  throw new Error("no running system found: start it with `npm start`, or set NATS_URL");
}

async function main() {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      name: { type: "string" },
      subdomain: { type: "string", default: "" },
      "owner-email": { type: "string" },
      "owner-name": { type: "string" },
      password: { type: "string" },
    },
  });
  if (positionals[0] === "import-realm") {
    if (!positionals[1] || !values.subdomain) throw new Error(USAGE);
    const nc = await connect({ servers: natsServers(natsUrl()), name: "manage" });
    try {
      const { owner, counts } = await importRealm(
        nc,
        { path: positionals[1], subdomain: values.subdomain, name: values.name },
        (line) => process.stdout.write(`${line}\n`),
      );
      process.stdout.write(
        `Imported ${Object.entries(counts)
          .map(([what, n]) => `${n} ${what}`)
          .join(", ")}\n` +
          `Owner ${owner.email} (user id ${owner.userId}); imported users have no password until they reset it\n` +
          `API key: ${owner.apiKey}\n`,
      );
    } finally {
      await nc.close();
    }
    return;
  }
  if (positionals[0] !== "create-realm" || !values.name || !values["owner-email"] || !values["owner-name"]) {
    throw new Error(USAGE);
  }
  const nc = await connect({ servers: natsServers(natsUrl()), name: "manage" });
  try {
    const org = await createOrganization(nc, {
      subdomain: values.subdomain!,
      name: values.name,
      ownerEmail: values["owner-email"],
      ownerName: values["owner-name"],
      ownerPassword: values.password ?? null,
    });
    process.stdout.write(
      `${org.realmCreated ? "Created" : "Found existing"} organization "${org.realm.name}" at ${org.realm.uri}\n` +
        `Owner ${values["owner-email"]} (user id ${org.userId}${org.ownerCreated ? ", created" : ", existing"})\n` +
        `API key: ${org.apiKey}\n`,
    );
  } finally {
    await nc.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`manage: ${(err as Error).message}\n`);
  process.exit(1);
});
