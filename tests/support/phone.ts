import http from "node:http";
import { PUBLIC_URL } from "./stack";

/** One POST through nginx from `from`, a loopback address other than 127.0.0.1 (a phone the hall bench plays). */
export function postFrom(from: string, path: string, body: unknown, cookie?: string): Promise<{ status: number; body: Record<string, unknown>; setCookie: string[] }> {
  const url = new URL(path, PUBLIC_URL);
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request({
      host: url.hostname, port: url.port, path: url.pathname, method: "POST", localAddress: from, agent: false, timeout: 10_000,
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload), ...(cookie ? { cookie } : {}) },
    }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text || "{}") as Record<string, unknown>, setCookie: [response.headers["set-cookie"] ?? []].flat() }));
    });
    request.on("timeout", () => request.destroy(new Error(`POST ${path} from ${from} timed out`)));
    request.on("error", reject);
    request.end(payload);
  });
}
