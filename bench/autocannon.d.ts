/** The part of autocannon@8's API the HTTP benchmark uses (the package ships no types). */
declare module "autocannon" {
  import type { EventEmitter } from "node:events";

  interface AutocannonRequest {
    setupRequest?: (request: { body?: string }) => { body?: string };
  }
  interface AutocannonOptions {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    connections?: number;
    duration?: number;
    timeout?: number;
    sampleInt?: number;
    requests?: AutocannonRequest[];
  }
  interface AutocannonInstance extends EventEmitter {
    stop(): void;
  }
  function autocannon(options: AutocannonOptions, done: (error: Error | null, result: unknown) => void): AutocannonInstance;
  export default autocannon;
}
