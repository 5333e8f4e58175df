import type { Locale } from "@/lib/i18n/locales";

/**
 * The fonts text is drawn with, all installed on the reader's machine: nothing is downloaded at
 * run time (a workshop room's network may be the LAN alone, and next/font/google fails offline).
 * Latin first; then CJK fonts in the reader's language's order, so a Han character takes the
 * form that language writes (the same code point is drawn differently in Korean, Japanese and
 * Chinese): Noto Sans CJK (Debian's fonts-noto-cjk, which the tests' Chromium gets), then what
 * macOS, iOS and Windows ship. A name in another script on the page (민준 on an English
 * projector) still finds its glyphs further down the list.
 *
 * app/globals.css writes the same stacks, by `lang` (tests/unit/i18n-fonts.test.ts keeps them equal).
 */
const LATIN = ["system-ui", "-apple-system", '"Segoe UI"', "Roboto", '"Helvetica Neue"', "Arial"];
const KOREAN = ['"Noto Sans CJK KR"', '"Apple SD Gothic Neo"', '"Malgun Gothic"'];
const JAPANESE = ['"Noto Sans CJK JP"', '"Hiragino Sans"', '"Hiragino Kaku Gothic ProN"', '"Yu Gothic"', "Meiryo"];
const CHINESE = ['"Noto Sans CJK SC"', '"PingFang SC"', '"Hiragino Sans GB"', '"Microsoft YaHei"'];

const stack = (...cjk: string[][]) => [...LATIN, ...cjk.flat(), "sans-serif"].join(", ");

export const FONT_STACKS: Readonly<Record<Locale, string>> = Object.freeze({
  en: stack(KOREAN, JAPANESE, CHINESE),
  ko: stack(KOREAN, JAPANESE, CHINESE),
  ja: stack(JAPANESE, CHINESE, KOREAN),
  "zh-CN": stack(CHINESE, JAPANESE, KOREAN),
});
