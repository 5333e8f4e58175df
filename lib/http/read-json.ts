import type { IncomingMessage } from "node:http";
import type { WithHeaders } from "../i18n/locales";
import { HttpError } from "./errors";

/** Bodies above this are refused with 413 before they are parsed (nginx enforces the same). */
export const MAX_BODY_BYTES = 16 * 1024;

/** Reads a JSON object body, refusing wrong media types, oversized bodies and invalid JSON. */
export async function readJsonBody(request: Request, maxBytes = MAX_BODY_BYTES): Promise<unknown> {
  checkDeclared(request, maxBytes);
  return parseJsonObject(await readLimited(request, maxBytes));
}

/** readJsonBody for a Pages Router API route: the body from Node's request stream, with the same refusals. */
export async function readNodeJsonBody(request: WithHeaders, body: IncomingMessage, maxBytes = MAX_BODY_BYTES): Promise<unknown> {
  checkDeclared(request, maxBytes);
  return parseJsonObject(await readLimitedNode(body, maxBytes));
}

function checkDeclared(request: WithHeaders, maxBytes: number): void {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/json\b/i.test(type)) {
    throw new HttpError(415, "unsupported_media_type", "Send the body as JSON with Content-Type: application/json.");
  }
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > maxBytes) throw tooLarge(maxBytes);
}

function parseJsonObject(text: string): unknown {
  if (!text.trim()) throw new HttpError(400, "invalid_json", "The body is empty; send a JSON object.");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new HttpError(400, "invalid_json", "The body is not valid JSON.");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new HttpError(400, "invalid_json", "The body must be a JSON object.");
  }
  return body;
}

async function readLimited(request: Request, maxBytes: number): Promise<string> {
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

function readLimitedNode(body: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > maxBytes) {
        // The rest is not read: the answer is sent, and the connection closed after it.
        body.off("data", onData);
        body.pause();
        reject(tooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    body.on("data", onData);
    body.once("end", () => resolve(new TextDecoder().decode(Buffer.concat(chunks))));
    body.once("error", reject);
  });
}

function tooLarge(maxBytes: number): HttpError {
  return new HttpError(413, "payload_too_large", `The body is larger than ${maxBytes} bytes.`);
}
