/** Integration tests run against the real stack; say how to get it instead of failing obscurely. */
export default async function requireStack(): Promise<void> {
  const url = `http://127.0.0.1:${process.env.PUBLIC_PORT ?? 3000}/api/health`;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(3000) });
    if (response.ok) return;
  } catch {
    // fall through
  }
  throw new Error(`No Lock Lab stack answers at ${url}. Run the tests with \`npm test\`, which starts it.`);
}
