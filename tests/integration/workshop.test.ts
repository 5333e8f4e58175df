/**
 * Workshop mode against the real stack: drops that open at one moment for everyone, the per-buyer
 * rate limit, the one-order-per-buyer rule and its invariant, names kept in a cookie, and live
 * snapshots that reach the subscribers of every instance through Redis pub/sub.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPool } from "@/lib/db";
import { resetConfig } from "@/lib/sale/config";
import { getStock } from "@/lib/sale/sale";
import { AddressFullError, getBuyerName, getRoom, joinWorkshop, removePerson } from "@/lib/workshop/buyers";
import { takeEventData } from "@/lib/workshop/sse-read";
import { adminFetch, signIn } from "../support/admin";
import { postFrom } from "../support/phone";
import { PUBLIC_URL, getSaleStats, instanceUrl, prepareSale } from "../support/stack";
import { sleep } from "../support/wait";

let admin: string;
beforeAll(async () => {
  admin = await signIn();
});
afterAll(() => resetConfig());

async function buy(buyer: string, { baseUrl = PUBLIC_URL, cookie }: { baseUrl?: string; cookie?: string } = {}) {
  const response = await fetch(`${baseUrl}/api/buy`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(cookie ? { cookie } : {}) },
    body: JSON.stringify({ buyer }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

async function ordersOf(buyer: string): Promise<number> {
  const { rows } = await getPool().query<{ n: number }>("SELECT count(*)::int AS n FROM orders WHERE buyer = $1 AND status = 'sold'", [buyer]);
  return Number(rows[0]?.n ?? 0);
}

const startDrop = (body: Record<string, unknown>) => adminFetch(admin, "POST", "/api/admin/drop", body);

/** An address no earlier run has people at (people expire a day after the last join). */
const newAddress = () => `10.250.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250) + 1}`;

describe("the per-buyer rate limit", () => {
  it("answers 429 rate_limited past 5 attempts a second from one buyer, and those attempts change nothing", async () => {
    await prepareSale({ strategy: "token-lua", workMs: 0 }, 100);
    const buyer = `flood-${Date.now()}`;
    expect((await buy(`${buyer}-warm-up`)).status).toBe(201);
    const startedAt = Date.now();
    const answers = await Promise.all(Array.from({ length: 12 }, () => buy(buyer)));
    // A fixed window of 1 s: taps spread over more than one window get 5 per window.
    const windows = 1 + Math.floor((Date.now() - startedAt) / 1000);
    const limited = answers.filter((a) => a.status === 429);
    const bought = answers.filter((a) => a.status === 201);
    expect(bought.length).toBeLessThanOrEqual(5 * windows);
    expect(limited.length).toBeGreaterThanOrEqual(12 - 5 * windows);
    expect(limited.length).toBeGreaterThan(0);
    expect(bought.length + limited.length).toBe(12);
    for (const answer of limited) {
      expect(answer.body.code).toBe("rate_limited");
      expect(String(answer.body.message)).toMatch(/too many purchase attempts/);
      expect(Number(answer.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    }
    // Only the purchases that were let through took stock and wrote orders.
    expect(await ordersOf(buyer)).toBe(bought.length);
    expect(await getStock()).toBe(100 - 1 - bought.length);
    // Another buyer is not held back by this one.
    expect((await buy(`${buyer}-other`)).status).toBe(201);
  });
});

describe("a drop", () => {
  it("refuses buyers with 409 drop_not_open until the countdown ends, and drop_closed once closed; nothing is sold meanwhile", async () => {
    await resetConfig();
    const started = await startDrop({ stock: 3, countdownS: 60, strategy: "token-lua", workMs: 0 });
    expect(started.status).toBe(201);
    expect((started.json.drop as { state: string }).state).toBe("scheduled");

    const early = await buy(`early-${Date.now()}`);
    expect(early.status).toBe(409);
    expect(early.body.code).toBe("drop_not_open");
    expect(Number(early.body.opensInMs)).toBeGreaterThan(50_000);
    expect(await getStock()).toBe(3);

    const closed = await adminFetch(admin, "DELETE", "/api/admin/drop");
    expect(closed.status).toBe(200);
    expect((closed.json.drop as { state: string }).state).toBe("closed");
    const late = await buy(`late-${Date.now()}`);
    expect(late.status).toBe(409);
    expect(late.body.code).toBe("drop_closed");
    const stats = await getSaleStats();
    expect(stats.orders).toBe(0);
    expect(stats.remaining).toBe(3);
  });

  it("opens for everyone when its countdown reaches zero", async () => {
    const started = await startDrop({ stock: 2, countdownS: 1, strategy: "token-lua", workMs: 0 });
    expect(started.status).toBe(201);
    const opensAt = (started.json.drop as { opensAt: number }).opensAt;
    // The countdown's end is a moment on the clock, not a state to poll: tap 50 ms past it.
    await sleep(Math.max(0, opensAt - Date.now()) + 50);
    expect((await buy(`on-time-${Date.now()}`)).status).toBe(201);
  });

  it("refuses bad drop settings with 422 and keeps the running sale", async () => {
    const before = await getSaleStats();
    for (const body of [{ stock: 0 }, { stock: 5, countdownS: -1 }, { stock: 5, strategy: "no-such-lock" }, { stock: 5, extra: 1 }]) {
      const answer = await startDrop(body);
      expect(answer.status).toBe(422);
      expect(answer.json.code).toBe("invalid_fields");
    }
    expect((await getSaleStats()).id).toBe(before.id);
    expect((await adminFetch(null, "POST", "/api/admin/drop", { stock: 5 })).status).toBe(401);
  });
});

describe("one order per buyer", () => {
  it("under token-lua a buyer's second purchase is refused with 409 one_per_buyer, and no buyer has two orders", async () => {
    expect((await startDrop({ stock: 5, countdownS: 0, onePerBuyer: true, strategy: "token-lua", workMs: 0 })).status).toBe(201);
    const buyer = `once-${Date.now()}`;
    expect((await buy(buyer)).status).toBe(201);
    const again = await buy(buyer);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("one_per_buyer");
    // Taps at once are held to the rule by the lock too.
    const racer = `race-${Date.now()}`;
    const taps = await Promise.all(Array.from({ length: 4 }, () => buy(racer)));
    expect(taps.filter((t) => t.status === 201)).toHaveLength(1);
    const stats = await getSaleStats();
    expect(stats.onePerBuyer).toBe(true);
    expect(stats.buyersWithTwoOrders).toBe(0);
    expect(stats.orders).toBe(2);
    expect(stats.remaining).toBe(3);
    expect(stats.verdict).toBe("PASS");
  });

  it("under none, one buyer's simultaneous taps both get through and the accounting counts the buyer with two orders", async () => {
    expect((await startDrop({ stock: 5, countdownS: 0, onePerBuyer: true, strategy: "none", workMs: 300 })).status).toBe(201);
    const buyer = `twice-${Date.now()}`;
    const taps = await Promise.all(Array.from({ length: 3 }, () => buy(buyer)));
    const bought = taps.filter((t) => t.status === 201).length;
    expect(bought).toBeGreaterThanOrEqual(2);
    const stats = await getSaleStats();
    expect(await ordersOf(buyer)).toBe(bought);
    expect(stats.buyersWithTwoOrders).toBe(1);
    expect(stats.verdict).toBe("FAIL");
  });
});

describe("joining with a display name", () => {
  it("refuses a bad name with 422 and changes nothing; a good one gets a buyer cookie that the purchase uses", async () => {
    for (const name of ["", "   ", "<b>x</b>", "a".repeat(25), "-dash", "tab\there"]) {
      const response = await fetch(`${PUBLIC_URL}/api/workshop/join`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name }) });
      expect(response.status).toBe(422);
      expect(((await response.json()) as { code: string }).code).toBe("invalid_fields");
      expect(response.headers.getSetCookie()).toHaveLength(0);
    }
    const joined = await fetch(`${PUBLIC_URL}/api/workshop/join`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "Zoë K." }) });
    expect(joined.status).toBe(201);
    const { buyer, name } = (await joined.json()) as { buyer: string; name: string };
    expect(name).toBe("Zoë K.");
    expect(buyer).toMatch(/^human-[a-z0-9]{12}$/);
    const cookie = joined.headers.getSetCookie().find((c) => c.startsWith("locklab_buyer="))?.split(";")[0];
    expect(cookie).toBe(`locklab_buyer=${buyer}`);

    await prepareSale({ strategy: "token-lua", workMs: 0 }, 5);
    // Nobody passes for a person by naming one in the body: those ids come only with the cookie.
    const impostor = await buy(buyer);
    expect(impostor.status).toBe(422);
    expect(impostor.body.code).toBe("invalid_buyer");
    expect(await getStock()).toBe(5);
    const answer = await buy("someone-else-entirely", { cookie });
    expect(answer.status).toBe(201);
    expect((answer.body.order as { buyer: string }).buyer).toBe(buyer);
  });

  it("twenty joins at once from one new LAN address make one person, named by one of them", async () => {
    // The function the join route calls, as twenty requests from one phone reach it in the same
    // moment (nginx lets six through; the instances' Redis connections pipeline their commands).
    const address = newAddress();
    const names = Array.from({ length: 20 }, (_, i) => `Quick ${i}`);
    const joined = await Promise.all(names.map((name) => joinWorkshop(name, { address, local: false })));
    const buyers = new Set(joined.map((j) => j.buyer));
    expect(buyers.size, [...buyers].join(" ")).toBe(1);
    const [buyer] = buyers;
    expect(names).toContain(await getBuyerName(buyer!));
    // Joining again later renames the same person.
    expect((await joinWorkshop("Later", { address, local: false })).buyer).toBe(buyer);
    expect(await getBuyerName(buyer!)).toBe("Later");
    await removePerson(buyer!);
  });
});

/** Reads server-sent events from `url` until `until` accepts a snapshot, or fails after `timeoutMs`. */
async function awaitSnapshot(url: string, headers: Record<string, string>, until: (snapshot: Record<string, unknown>) => boolean, start: () => Promise<void>, timeoutMs = 10_000) {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    const response = await fetch(url, { headers: { accept: "text/event-stream", ...headers }, signal: abort.signal });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    let first = true;
    const seen: Record<string, unknown>[] = [];
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error("the event stream ended");
      const { data, rest } = takeEventData(buffer + value);
      buffer = rest;
      for (const event of data) {
        const snapshot = JSON.parse(event) as Record<string, unknown>;
        seen.push(snapshot);
        if (first) {
          first = false;
          await start();
        } else if (until(snapshot)) {
          return { snapshot, seen };
        }
      }
    }
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}

describe("live snapshots (server-sent events)", () => {
  it("a purchase served by app-2 reaches a store page subscribed to app-1, through Redis pub/sub", async () => {
    await prepareSale({ strategy: "token-lua", workMs: 0 }, 7);
    const { snapshot } = await awaitSnapshot(`${instanceUrl(0)}/api/live`, {}, (s) => s.stock === 6, async () => {
      expect((await buy(`sse-${Date.now()}`, { baseUrl: instanceUrl(1) })).status).toBe(201);
    });
    expect(snapshot.initialStock).toBe(7);
    expect(snapshot.strategy).toBe("token-lua");
  });

  it("the projector's stream carries the accounting and the who-got-one list, and refuses strangers", async () => {
    const joined = await fetch(`${PUBLIC_URL}/api/workshop/join`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "Ana" }) });
    const cookie = joined.headers.getSetCookie()[0]!.split(";")[0]!;
    expect((await startDrop({ stock: 2, countdownS: 0, strategy: "token-lua", workMs: 0 })).status).toBe(201);
    const { snapshot } = await awaitSnapshot(`${PUBLIC_URL}/api/admin/live`, { cookie: admin }, (s) => (s.accounting as { orders: number }).orders === 1, async () => {
      expect((await buy("ignored", { cookie })).status).toBe(201);
    });
    expect(snapshot.accounting).toMatchObject({ orders: 1, doubleSold: 0, lostUnits: 0, verdict: "PASS" });
    expect((snapshot.winners as { people: { name: string; unit: number }[] }).people).toEqual([{ name: "Ana", unit: 2, twice: false }]);
    expect((await fetch(`${PUBLIC_URL}/api/admin/live`)).status).toBe(401);
  });
});

describe("the machine itself is 127.0.0.1 and ::1, as nginx's limits say", () => {
  it("a phone on another loopback address must join first, and then buys as the person who joined", async () => {
    await prepareSale({ strategy: "token-lua", workMs: 0 }, 5);
    const phone = `127.1.${(process.pid % 200) + 1}.7`;
    const invented = await postFrom(phone, "/api/buy", { buyer: "made-up-id" });
    expect(invented).toMatchObject({ status: 401, body: { code: "join_first" } });
    expect(await getStock()).toBe(5);

    const joined = await postFrom(phone, "/api/workshop/join", { name: "Loopback Phone" });
    expect(joined.status).toBe(201);
    const cookie = joined.setCookie.find((c) => c.startsWith("locklab_buyer="))!.split(";")[0]!;
    const bought = await postFrom(phone, "/api/buy", { buyer: "ignored" }, cookie);
    expect(bought.status).toBe(201);
    expect(await getStock()).toBe(4);
    expect(await ordersOf("made-up-id")).toBe(0);
  });
});

describe("one person per phone, and a class behind one address", () => {
  afterAll(async () => {
    expect((await adminFetch(admin, "PUT", "/api/admin/room", { peoplePerAddress: 1 })).status).toBe(200);
  });

  it("a person buys only from the address they joined from: the same cookie from another is refused, and nothing is taken", async () => {
    await prepareSale({ strategy: "token-lua", workMs: 0 }, 5);
    const base = (process.pid % 200) + 1;
    const phone = `127.2.${base}.11`;
    const laptop = `127.2.${base}.12`;
    const joined = await postFrom(phone, "/api/workshop/join", { name: "Bound" });
    expect(joined.status).toBe(201);
    const cookie = joined.setCookie.find((c) => c.startsWith("locklab_buyer="))!.split(";")[0]!;
    const elsewhere = await postFrom(laptop, "/api/buy", { buyer: "x" }, cookie);
    expect(elsewhere).toMatchObject({ status: 403, body: { code: "joined_elsewhere" } });
    expect(await getStock()).toBe(5);
    expect((await postFrom(phone, "/api/buy", { buyer: "x" }, cookie)).status).toBe(201);
    expect(await getStock()).toBe(4);
    await removePerson(String(joined.body.buyer));
  });

  it("with three people per address, three phones behind one are three people, a fourth is refused 409, and a person's cookie renames them", async () => {
    expect((await adminFetch(admin, "PUT", "/api/admin/room", { peoplePerAddress: 3 })).status).toBe(200);
    const address = newAddress();
    const people = await Promise.all(["Ana", "Ömer", "李娜"].map((name) => joinWorkshop(name, { address, local: false })));
    expect(new Set(people.map((person) => person.buyer)).size).toBe(3);
    const fourth = await joinWorkshop("Extra", { address, local: false }).catch((error: unknown) => error);
    expect(fourth).toBeInstanceOf(AddressFullError);
    expect((fourth as AddressFullError).details).toEqual({ people: 3, peoplePerAddress: 3 });
    // Ana's phone joins again (a new name): still Ana's place, renamed, not a fourth person.
    const again = await joinWorkshop("Ana B", { address, local: false, cookie: people[0]!.buyer });
    expect(again.buyer).toBe(people[0]!.buyer);
    const room = await getRoom();
    expect(room.addresses.find((entry) => entry.address === address)).toEqual({ address, people: 3 });
    // The instructor removes Ömer: his place is free for someone else, and his cookie buys nothing more.
    expect((await adminFetch(admin, "DELETE", `/api/admin/room/people/${people[1]!.buyer}`)).status).toBe(200);
    expect((await adminFetch(admin, "DELETE", `/api/admin/room/people/${people[1]!.buyer}`)).json.code).toBe("person_not_found");
    const newcomer = await joinWorkshop("Newcomer", { address, local: false });
    expect(newcomer.buyer).not.toBe(people[1]!.buyer);
    await prepareSale({ strategy: "token-lua", workMs: 0 }, 5);
    expect((await buy("x", { cookie: `locklab_buyer=${people[1]!.buyer}` })).body).toMatchObject({ code: "join_first", reason: "unknown_cookie" });
    expect(await getStock()).toBe(5);
    for (const person of [people[0]!, people[2]!, newcomer]) await removePerson(person.buyer);
  });

  it("the room's settings refuse what is not a setting, and rename only a person who joined", async () => {
    for (const body of [{ peoplePerAddress: 0 }, { peoplePerAddress: 1.5 }, { peoplePerAddress: "3" }, { peoplePerAddress: 3, extra: true }, {}]) {
      const answer = await adminFetch(admin, "PUT", "/api/admin/room", body);
      expect(answer.status, JSON.stringify(body)).toBe(422);
      expect(answer.json.code).toBe("invalid_fields");
    }
    expect((await adminFetch(null, "PUT", "/api/admin/room", { peoplePerAddress: 5 })).status).toBe(401);
    expect((await adminFetch(admin, "PATCH", "/api/admin/room/people/not-a-person", { name: "X" })).status).toBe(404);
    const person = await joinWorkshop("Rude Name", { address: newAddress(), local: false });
    expect((await adminFetch(admin, "PATCH", `/api/admin/room/people/${person.buyer}`, { name: "<b>" })).status).toBe(422);
    expect((await adminFetch(admin, "PATCH", `/api/admin/room/people/${person.buyer}`, { name: "Polite" })).status).toBe(200);
    expect(await getBuyerName(person.buyer)).toBe("Polite");
    await removePerson(person.buyer);
  });
});
