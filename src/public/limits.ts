/** What a body sent to a public endpoint (ingestion, flag evaluation, OFREP) may be. */
export const PUBLIC_BODY_LIMITS = {
  /** The request body as it arrives on the wire (compressed or not). */
  maxBodyBytes: 20 * 1024 * 1024,
  /**
   * The body after gunzip / base64 decoding, as PostHog's capture limits a request. Enforced while
   * inflating (zlib stops at this many output bytes), so a gzip bomb never expands further.
   */
  maxDecodedBytes: 20 * 1024 * 1024,
  /**
   * Nesting of the JSON body (the envelope and the event count: properties get about 96 levels).
   * Deeper values overflow the stack of JSON.stringify and of PostgreSQL's jsonb parser.
   */
  maxJsonDepth: 100,
} as const;
