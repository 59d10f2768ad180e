// A TCP port free on this machine's 127.0.0.1 a moment ago, for a server a test's command starts.
import { createServer, type AddressInfo } from 'node:net';

export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
