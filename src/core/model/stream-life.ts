// Pings count as life for the stall watchdog (client.ts). The API sends `ping` events while a
// slow answer is being prepared, but the SDK drops them before any event reaches us, so a
// watchdog fed by events alone cut a live answer after its idle time and sent the request
// again. This per-request SDK middleware sees the raw SSE bytes instead: every chunk of the
// response body, ping or not, restarts the watchdog.
import type { Middleware } from '@anthropic-ai/sdk';

export function bytesAreLife(onBytes: () => void): Middleware {
  return async (request, next) => {
    const res = await next(request);
    if (!res.body) return res;
    const seen = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, out) {
        onBytes();
        out.enqueue(chunk);
      },
    });
    return new Response(res.body.pipeThrough(seen), { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
