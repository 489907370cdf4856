export interface HttpResult {
  status: number;
  body: unknown;
  text: string;
}

/** One JSON request, for seeding and checks (not for load). */
export async function request(
  method: string,
  url: string,
  headers: Record<string, string>,
  body?: string | Buffer,
): Promise<HttpResult> {
  const response = await fetch(url, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    // A Buffer (a pre-built gzip body) goes as its bytes.
    body: typeof body === 'string' || body === undefined ? body : new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.byteLength),
  });
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    parsed = null;
  }
  return { status: response.status, body: parsed, text };
}

/** The same, failing loudly unless the status is the one expected. */
export async function expectStatus(
  expected: number,
  method: string,
  url: string,
  headers: Record<string, string>,
  body?: string,
): Promise<HttpResult> {
  const result = await request(method, url, headers, body);
  if (result.status !== expected) {
    throw new Error(`${method} ${url} answered ${result.status}, expected ${expected}: ${result.text.slice(0, 500)}`);
  }
  return result;
}
