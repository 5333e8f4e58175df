import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FONT_STACKS } from "@/app/fonts";

const css = fs.readFileSync(path.join(__dirname, "../../app/globals.css"), "utf8");

/** The font-family a CSS rule whose selector list names `selector` sets. */
function fontFamilyFor(selector: string): string | undefined {
  for (const [, selectors, body] of css.matchAll(/([^{}]+)\{([^{}]*)\}/g)) {
    if (selectors!.split(",").map((part) => part.trim()).includes(selector)) {
      const family = /font-family:\s*([^;]+);/.exec(body!)?.[1];
      if (family) return family.trim();
    }
  }
  return undefined;
}

describe("fonts", () => {
  it.each(Object.entries(FONT_STACKS))("a part in %s is drawn with app/fonts.ts's stack for it", (locale, stack) => {
    expect(fontFamilyFor(`[lang="${locale}"]`)).toBe(stack);
  });

  it("names local CJK fonts after the Latin ones and downloads none", () => {
    for (const stack of Object.values(FONT_STACKS)) {
      expect(stack.indexOf("Arial")).toBeLessThan(stack.indexOf("Noto Sans CJK"));
      for (const font of ["Noto Sans CJK KR", "Noto Sans CJK JP", "Noto Sans CJK SC"]) expect(stack).toContain(font);
    }
    expect(css).not.toMatch(/@import|@font-face|url\(/);
  });
});
