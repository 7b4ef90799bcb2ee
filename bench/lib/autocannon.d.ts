// The few fields of autocannon's API the benches use (the package ships no types).
declare module 'autocannon' {
  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    pipelining?: number;
    method?: string;
    headers?: Record<string, string>;
  }
  export interface Histogram {
    average: number;
    mean: number;
    p50: number;
    p99: number;
    total: number;
  }
  export interface Result {
    requests: Histogram;
    latency: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
