import { describe, expect, it } from "vitest";
import { forgetProcessSingleton, processSingleton } from "@/lib/process-singleton";

describe("processSingleton", () => {
  it("makes one value per name for the whole process, and a new one only after it is forgotten", () => {
    let made = 0;
    const make = () => ({ n: ++made });
    const name = `test.${Math.random()}`;
    const first = processSingleton(name, make);
    expect(processSingleton(name, make)).toBe(first);
    // Another bundle's copy of the module finds it on globalThis under the same symbol.
    expect((globalThis as unknown as Record<symbol, unknown>)[Symbol.for(`locklab.${name}`)]).toBe(first);
    expect(processSingleton(`${name}.other`, make)).not.toBe(first);

    forgetProcessSingleton(name);
    const second = processSingleton(name, make);
    expect(second).not.toBe(first);
    expect(second).toEqual({ n: 3 });
    expect(processSingleton(name, make)).toBe(second);
    forgetProcessSingleton(name);
    forgetProcessSingleton(`${name}.other`);
  });
});
