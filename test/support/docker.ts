/** True when a Docker engine answers (the CLI alone is not enough). */
export async function dockerAvailable(): Promise<boolean> {
  if (process.env.TEAMCHAT_TEST_NO_DOCKER) return false;
  try {
    const { getContainerRuntimeClient } = await import("testcontainers");
    await Promise.race([
      getContainerRuntimeClient(),
      new Promise((_, reject) => setTimeout(() => reject(new Error("timeout")), 5_000)),
    ]);
    return true;
  } catch {
    return false;
  }
}
