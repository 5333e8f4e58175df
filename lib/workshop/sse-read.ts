/**
 * The reading side of the live stream (lib/workshop/sse.ts), for scripts and tests that hold one
 * without a browser's EventSource: the `data:` of each whole event in `buffered`, and what is left
 * of an event still arriving. Events with no data (the retry line, heartbeats) give nothing.
 */
export function takeEventData(buffered: string): { readonly data: string[]; readonly rest: string } {
  const data: string[] = [];
  let rest = buffered;
  for (let end = rest.indexOf("\n\n"); end >= 0; end = rest.indexOf("\n\n")) {
    const line = rest.slice(0, end).split("\n").find((candidate) => candidate.startsWith("data: "));
    rest = rest.slice(end + 2);
    if (line) data.push(line.slice("data: ".length));
  }
  return { data, rest };
}
