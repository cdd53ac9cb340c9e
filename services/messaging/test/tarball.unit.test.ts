/**
 * A realm export's tarball discarded mid-way (the export failed, or the
 * instance stops): the files being added fail, and nothing else does.
 */
import type { FileStore } from "@teamchat/shared";
import { TarballWriter } from "../src/realm-exports/tarball";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The chunks' store: only what the tarball calls, its chunks kept nowhere. */
const files = { putChunk: async () => undefined } as unknown as FileStore;

async function* slowly(pieces: number, bytes: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < pieces; i++) {
    yield Buffer.alloc(bytes, i);
    await sleep(20);
  }
}

describe("a tarball discarded", () => {
  it("while one file is copied in and others wait, fails those files and not the process", async () => {
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on("uncaughtException", onUncaught);
    try {
      const tarball = new TarballWriter(files, 1, "file");
      const copied = tarball.addStream("uploads/big", 5 * 1024, slowly(5, 1024));
      const waiting = tarball.add("realm.json", "{}");
      const settled = Promise.allSettled([copied, waiting]);
      await sleep(30);
      tarball.discard();
      expect((await settled).map((r) => r.status)).toEqual(["rejected", "rejected"]);
      await sleep(50);
      expect(uncaught).toEqual([]);
      await expect(tarball.add("later.json", "{}")).rejects.toThrow("already finalized or destroyed");
    } finally {
      process.off("uncaughtException", onUncaught);
    }
  }, 10_000);
});
