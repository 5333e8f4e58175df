// The lab image's own start (the Dockerfile's CMD, under tini): the stack `npm run demo` starts,
// already installed and built, then what the instructor needs: where the store, the admin pages
// and the projector are, the admin password, whether links can be cut, and the address phones get.
//
//   docker run --rm -it -p 3000:3000 --cap-add NET_ADMIN [-e JOIN_URL=http://<laptop>:3000] lock-lab
//
// Ctrl-C (SIGINT) and `docker stop` (SIGTERM) reach this process through tini; the stack's own
// handlers stop every server in order and exit (130 or 143).

import { StackError, startStack } from "./stack/stack";

const t0 = Date.now();
const say = (line: string) => console.log(line);

interface Status {
  readonly network?: { readonly available?: boolean; readonly reason?: string };
  readonly nginx?: { readonly storeUrls?: readonly string[] };
}

/** The runner's own /status, for the banner; undefined if it does not answer. */
async function stackStatus(url: string, token: string): Promise<Status | undefined> {
  try {
    const response = await fetch(`${url}/status`, { headers: { "x-stack-token": token }, signal: AbortSignal.timeout(5000) });
    return (await response.json()) as Status;
  } catch {
    return undefined;
  }
}

async function qrCode(url: string): Promise<string> {
  try {
    const { default: QRCode } = await import("qrcode");
    return await QRCode.toString(url, { type: "terminal", small: true });
  } catch (err) {
    return `(no QR code: ${(err as Error).message})`;
  }
}

async function main(): Promise<void> {
  let env;
  try {
    ({ env } = await startStack({ quiet: false }));
  } catch (err) {
    console.error(`✗ ${err instanceof StackError ? err.message : ((err as Error)?.stack ?? String(err))}`);
    process.exit(1);
  }
  const status = await stackStatus(env.STACK_CONTROL_URL, env.STACK_CONTROL_TOKEN);
  const port = env.PUBLIC_PORT;
  const joinUrl = process.env.JOIN_URL?.trim();
  say(`
  Lock Lab is running in this container (${((Date.now() - t0) / 1000).toFixed(1)} s). On the machine that runs it, with -p ${port}:${port}:
    store   http://localhost:${port}
    admin   http://localhost:${port}/admin   (password: ${env.ADMIN_PASSWORD}${process.env.ADMIN_PASSWORD ? ", from ADMIN_PASSWORD" : ", generated; -e ADMIN_PASSWORD=… chooses one"})
    live    http://localhost:${port}/admin/live   (the projector)
  (another host port, -p 8080:${port}: the same paths on localhost:8080)`);
  say(
    status?.network?.available
      ? "  network faults: on (the link grid cuts links inside this container)"
      : `  network faults: off — ${status?.network?.reason ?? "the stack did not say why"}; every other card runs`,
  );
  if (joinUrl) {
    say(`  phones: ${status?.nginx?.storeUrls?.[0] ?? joinUrl} (JOIN_URL: the projector's QR code and join address)\n${await qrCode(joinUrl)}`);
  } else {
    say(
      "  phones: from inside a container the lab cannot see this laptop's address on the room's network, so the\n" +
        "  projector's QR code shows the container's own address, which phones cannot reach. Start it with\n" +
        `  -e JOIN_URL=http://<this laptop's LAN address>:${port} to give phones the address they can use.`,
    );
  }
  say("  Ctrl-C (or docker stop) stops everything.");
}

void main();
