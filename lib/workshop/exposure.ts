import QRCode from "qrcode";
import { getEnv } from "../env";
import { getStackStatus } from "../stack/control";

/**
 * Who can reach the store (workshop mode): the stack runner knows whether nginx listens on the
 * LAN (`npm run demo -- --lan`, or the lab's container) and at which addresses, or the one the
 * instructor gave (JOIN_URL); without the runner the store is where PUBLIC_URL says.
 */
export interface Exposure {
  /** The store listens beyond loopback. */
  readonly lan: boolean;
  /** The addresses students type (or scan), best first. */
  readonly storeUrls: readonly string[];
  /** The admin pages and control routes answer from the LAN too (the instructor opted in). */
  readonly adminFromLan: boolean;
}

export async function getExposure(): Promise<Exposure> {
  try {
    const { nginx } = await getStackStatus();
    if (nginx.storeUrls?.length) return { lan: Boolean(nginx.lan), storeUrls: nginx.storeUrls, adminFromLan: Boolean(nginx.adminFromLan) };
  } catch {
    // No stack runner: fall through to PUBLIC_URL.
  }
  return { lan: false, storeUrls: [getEnv().PUBLIC_URL], adminFromLan: false };
}

/** A QR code of `url` as an SVG document (for the projector page). */
export function qrSvg(url: string): Promise<string> {
  return QRCode.toString(url, { type: "svg", margin: 1, errorCorrectionLevel: "M" });
}
